#!/usr/bin/env bash
# Everything `make up` and `make test` need on a fresh machine, idempotent and quick the second time.
#   scripts/provision.sh up            also prepares the application database and the demo account
#   scripts/provision.sh test          everything the whole suite needs (the tools it calls: xmllint, xsltproc,
#                                      pdftoppm, zbarimg; the Temporal server; Mailpit; Chromium; HAProxy; MySQL)
#   scripts/provision.sh unit          only what the unit tier needs: npm packages and xmllint/xsltproc
#   scripts/provision.sh repositorios  npm packages and MySQL
#   scripts/provision.sh flujos        npm packages and the Temporal CLI
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
MODO=${1:?uso: scripts/provision.sh up|test|unit|repositorios|flujos}
case $MODO in up | test | unit | repositorios | flujos) ;; *) falla "modo desconocido: $MODO" ;; esac
inicio=$SECONDS
# Whether this mode needs a piece: `necesita temporal chromium` and so on.
necesita() {
  case "$MODO:$1" in
    up:temporal | up:mailpit | up:chromium | up:mysql | up:dist) return 0 ;;
    test:*) return 0 ;;
    unit:herramientas) return 0 ;;
    repositorios:mysql | repositorios:dist) return 0 ;;
    flujos:temporal | flujos:dist) return 0 ;;
    *) return 1 ;;
  esac
}

paso "Node.js"
command -v node >/dev/null || falla "Node.js no está instalado (hace falta ≥ 20.3)"
node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=3)?0:1)' \
  || falla "Node.js $(node --version) es muy antiguo: hace falta ≥ 20.3"
ok "node $(node --version)"

paso "dependencias npm"
huella=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat node_modules/.huella-lock 2>/dev/null)" != "$huella" ]; then
  # Not `npm ci`: npm 11.19 rejects the lockfile npm install itself writes (it leaves out other platforms'
  # optional bindings). Every version is pinned exactly, so this installs what the lockfile says.
  npm install --no-audit --no-fund --loglevel=error >&2 || falla "npm install falló"
  sha256sum package-lock.json | cut -d' ' -f1 >node_modules/.huella-lock
  ok "instaladas desde package-lock.json"
else
  ok "al día con package-lock.json"
fi

if necesita dist; then
  paso "compilación TypeScript"
  npm run -s build >&2 || falla "la compilación falló"
  ok "dist/ al día"
fi

if necesita temporal; then
  paso "Temporal CLI"
  TEMPORAL_CLI=$(bash scripts/temporal-cli.sh)
  export TEMPORAL_CLI
fi

# The SMTP server that keeps the emails sent: `make up`'s (unless SMTP_URL names another) and the tests'.
if necesita mailpit; then
  paso "Mailpit"
  bash scripts/mailpit.sh >/dev/null
fi

# The production-grade server (TEMPORAL=servidor make up; the suite runs one stamping, cancellation and finance
# query against it): built once outside the clone, like the CLI.
if [ "$MODO" = test ] || [ "${TEMPORAL:-dev}" = servidor ]; then
  paso "Temporal server (PostgreSQL)"
  bash scripts/temporal-servidor.sh >/dev/null
fi

if necesita chromium; then
  paso "Chromium"
  if [ -n "${CHROMIUM_PATH:-}" ]; then
    [ -x "$CHROMIUM_PATH" ] || falla "CHROMIUM_PATH=$CHROMIUM_PATH no es un ejecutable"
  elif ! command -v chromium-headless-shell >/dev/null; then
    # The headless shell renders PDFs about 4x cheaper than full Chromium (no print compositor per PDF).
    apt_asegurar chromium chromium-headless-shell
  fi
  ok "$( (${CHROMIUM_PATH:-$(command -v chromium-headless-shell || command -v chromium)} --version) 2>/dev/null || echo chromium)"
fi

# HAProxy balances the API replicas: `make up` with API_REPLICAS > 1, and the suite's scale-out test.
if [ "$MODO" = test ] || { [ "$MODO" = up ] && [ "${API_REPLICAS:-1}" != 1 ]; }; then
  paso "HAProxy (balanceador de las réplicas de la API)"
  apt_asegurar haproxy
  ok "$( (/usr/sbin/haproxy -v || haproxy -v) 2>/dev/null | head -1)"
fi

if [ "$MODO" = test ]; then
  paso "herramientas de prueba (xmllint, xsltproc, pdftoppm, zbarimg)"
  apt_asegurar libxml2-utils xsltproc poppler-utils zbar-tools
  ok "instaladas"
elif necesita herramientas; then
  paso "herramientas de las pruebas unitarias (xmllint, xsltproc)"
  apt_asegurar libxml2-utils xsltproc
  ok "instaladas"
fi

if necesita mysql; then
  paso "MySQL"
  node dist/scripts/mysql-disponible.js >&2 || falla "MySQL no está disponible (revise DATABASE_URL)"
fi

if [ "$MODO" = up ]; then
  paso "base de datos: migraciones, catálogos SAT y cuenta de demostración"
  node dist/db/cli.js --demo >&2 || falla "la preparación de la base de datos falló"
fi

ok "aprovisionamiento listo en $((SECONDS - inicio)) s"
