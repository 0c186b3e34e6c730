#!/usr/bin/env bash
# Provides Mailpit v1.33.1 (local SMTP server that keeps every message, with a web UI and a REST API). Built once
# with `go install` into Go's own bin folder, outside the clone, so every fresh clone and CI run reuses it.
#   scripts/mailpit.sh --ruta   prints where the binary lives (or will live)
#   scripts/mailpit.sh          ensures it is there, building it if needed, then prints the path
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

VERSION=v1.33.1
MODULO=github.com/axllent/mailpit

BIN=${MAILPIT_BIN:-$(carpeta_bin_go)/mailpit}
if [ "${1:-}" = "--ruta" ]; then
  echo "$BIN"
  exit 0
fi

if [ -x "$BIN" ]; then
  if ! command -v go >/dev/null || [ "$(version_modulo "$BIN" "$MODULO")" = "$VERSION" ]; then
    ok "Mailpit $VERSION: $BIN"
    echo "$BIN"
    exit 0
  fi
  paso "el binario $BIN no es $MODULO@$VERSION: se reconstruye"
fi

command -v go >/dev/null || falla "Go no está instalado: hace falta Go para compilar $MODULO@$VERSION (o defina MAILPIT_BIN con la ruta de un binario existente)"
paso "compilando Mailpit $VERSION con go install (la primera vez tarda alrededor de un minuto)"
inicio=$SECONDS
# -v lists each package as it compiles: count them so the wait shows progress without flooding the log.
go install -v "$MODULO@$VERSION" 2>&1 | awk '
  /^go: downloading/ { d++; if (d % 25 == 0) { printf "  … %d módulos descargados\n", d > "/dev/stderr" } next }
  /^go: / { print > "/dev/stderr"; next }
  { n++; if (n % 100 == 0) printf "  … %d paquetes compilados\n", n > "/dev/stderr" }
  END { printf "  … %d paquetes compilados en total\n", n > "/dev/stderr" }'
[ "${PIPESTATUS[0]}" = 0 ] || falla "go install $MODULO@$VERSION falló"
[ -x "$BIN" ] || falla "go install terminó pero $BIN no existe"
ok "Mailpit $VERSION compilado en $((SECONDS - inicio)) s: $BIN"
echo "$BIN"
