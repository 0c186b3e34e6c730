#!/usr/bin/env bash
# Provides the Temporal CLI v1.5.1 (dev server + Web UI). Built once with `go install` into Go's own bin
# folder, outside the clone, so every fresh clone and CI run on this machine reuses it.
#   scripts/temporal-cli.sh --ruta   prints where the binary lives (or will live)
#   scripts/temporal-cli.sh          ensures it is there, building it if needed, then prints the path
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

VERSION=v1.5.1
MODULO=github.com/temporalio/cli

BIN=${TEMPORAL_CLI:-$(carpeta_bin_go)/temporal}
if [ "${1:-}" = "--ruta" ]; then
  echo "$BIN"
  exit 0
fi

if [ -x "$BIN" ]; then
  if ! command -v go >/dev/null || [ "$(version_modulo "$BIN" "$MODULO")" = "$VERSION" ]; then
    ok "Temporal CLI $VERSION: $BIN"
    echo "$BIN"
    exit 0
  fi
  paso "el binario $BIN no es $MODULO@$VERSION: se reconstruye"
fi

command -v go >/dev/null || falla "Go no está instalado: hace falta Go ≥ 1.25 para compilar $MODULO@$VERSION (o defina TEMPORAL_CLI con la ruta de un binario existente)"
paso "compilando la Temporal CLI $VERSION con go install (la primera vez tarda unos 3-4 minutos)"
inicio=$SECONDS
# -v lists each package as it compiles: count them so the wait shows progress without flooding the log.
go install -v "$MODULO/cmd/temporal@$VERSION" 2>&1 | awk '
  /^go: downloading/ { d++; if (d % 25 == 0) { printf "  … %d módulos descargados\n", d > "/dev/stderr" } next }
  /^go: / { print > "/dev/stderr"; next }
  { n++; if (n % 100 == 0) printf "  … %d paquetes compilados\n", n > "/dev/stderr" }
  END { printf "  … %d paquetes compilados en total\n", n > "/dev/stderr" }'
[ "${PIPESTATUS[0]}" = 0 ] || falla "go install $MODULO/cmd/temporal@$VERSION falló"
[ -x "$BIN" ] || falla "go install terminó pero $BIN no existe"
ok "Temporal CLI $VERSION compilada en $((SECONDS - inicio)) s: $BIN"
echo "$BIN"
