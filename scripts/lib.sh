# Shared helpers for the provisioning scripts (sourced, not executed).
paso() { printf '\033[1;36m▸ %s\033[0m\n' "$*" >&2; }
ok() { printf '  \033[32m✓\033[0m %s\n' "$*" >&2; }
falla() {
  printf '\033[1;31m✗ %s\033[0m\n' "$*" >&2
  exit 1
}
es_root() { [ "$(id -u)" = 0 ]; }

# Installs Debian packages that are missing; needs root and apt-get, else fails naming them.
apt_asegurar() {
  local faltan=()
  for paquete in "$@"; do
    dpkg-query -W -f='${Status}' "$paquete" 2>/dev/null | grep -q 'install ok installed' || faltan+=("$paquete")
  done
  [ ${#faltan[@]} -eq 0 ] && return 0
  if ! es_root || ! command -v apt-get >/dev/null; then
    falla "faltan paquetes de Debian: ${faltan[*]} (instálelos con: sudo apt-get install ${faltan[*]})"
  fi
  paso "instalando con apt-get: ${faltan[*]}"
  # Package lists may be missing or stale on a new machine.
  apt-get update -qq >&2 || falla "apt-get update falló"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${faltan[@]}" >&2 \
    || falla "apt-get install ${faltan[*]} falló"
  ok "instalados: ${faltan[*]}"
}
