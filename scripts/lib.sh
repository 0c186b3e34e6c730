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

# Go's own bin folder (GOBIN, else GOPATH/bin): what the scripts build once per machine, outside every clone.
carpeta_bin_go() {
  if command -v go >/dev/null; then
    local bin
    bin=$(go env GOBIN)
    [ -n "$bin" ] || bin="$(go env GOPATH)/bin"
    echo "$bin"
  else
    echo "$HOME/go/bin"
  fi
}

# The version of Go module $2 that binary $1 was built from (empty when Go cannot tell).
version_modulo() { go version -m "$1" 2>/dev/null | awk -v m="$2" '$1 == "mod" && $2 == m { print $3 }'; }
