#!/usr/bin/env bash
# Provides Mailpit v1.33.1 (local SMTP server that keeps every message, with a web UI and a REST API). Built once
# into a folder of its own in the user's cache, outside the clone, so every fresh clone and CI run reuses it (not
# Go's bin folder, where a `go install` of the same module would replace it with a binary without its UI).
#   scripts/mailpit.sh --ruta   prints where the binary lives (or will live)
#   scripts/mailpit.sh          ensures it is there, building it if needed, then prints the path
#
# Not `go install`: the web UI is built with npm from the module's own sources and embedded by `go build`, and the
# module as published has no built UI (a binary from `go install` serves a blank page). Two of the UI's pinned
# packages are missing from the registry this machine reaches (rapidoc 12, for the API docs page, and
# sass-embedded 1.108.1): deploy/mailpit/ holds its package.json with rapidoc 9.3.8 and sass-embedded 1.105.0,
# and the lockfile npm resolved for it, so every build installs the same packages.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

VERSION=v1.33.1
MODULO=github.com/axllent/mailpit

BIN=${MAILPIT_BIN:-${XDG_CACHE_HOME:-$HOME/.cache}/cfdi/mailpit-$VERSION/mailpit}
if [ "${1:-}" = "--ruta" ]; then
  echo "$BIN"
  exit 0
fi

# What a build of ours is: the version and the UI's lockfile. A binary without this stamp (or from `go install`)
# is rebuilt.
SELLO="$BIN.sello"
esperado="$VERSION $(sha256sum deploy/mailpit/package-lock.json | cut -c1-16)"
if [ -x "$BIN" ] && { [ -n "${MAILPIT_BIN:-}" ] || [ "$(cat "$SELLO" 2>/dev/null)" = "$esperado" ]; }; then
  ok "Mailpit $VERSION: $BIN"
  echo "$BIN"
  exit 0
fi

command -v go >/dev/null || falla "Go no está instalado: hace falta Go para compilar $MODULO@$VERSION (o defina MAILPIT_BIN con la ruta de un binario existente)"
paso "compilando Mailpit $VERSION con su interfaz web (la primera vez tarda un par de minutos)"
inicio=$SECONDS
fuente=$(go mod download -json "$MODULO@$VERSION" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).Dir))')
[ -d "$fuente" ] || falla "go mod download $MODULO@$VERSION no dejó sus fuentes"
obra=$(mktemp -d)
trap 'rm -rf "$obra"' EXIT
cp -r "$fuente/." "$obra"
chmod -R u+w "$obra"
cp deploy/mailpit/package.json deploy/mailpit/package-lock.json "$obra/"
(cd "$obra" && npm ci --no-audit --no-fund --loglevel=error >&2) || falla "npm ci de la interfaz de Mailpit falló"
(cd "$obra" && npm run -s build >&2) || falla "la compilación de la interfaz de Mailpit falló"
[ -f "$obra/server/ui/dist/app.js" ] || falla "la interfaz de Mailpit no quedó en server/ui/dist"
mkdir -p "$(dirname "$BIN")"
(cd "$obra" && go build -trimpath -ldflags "-s -w -X $MODULO/config.Version=$VERSION" -o "$BIN" .) \
  || falla "go build de Mailpit falló"
echo "$esperado" >"$SELLO"
ok "Mailpit $VERSION compilado en $((SECONDS - inicio)) s: $BIN"
echo "$BIN"
