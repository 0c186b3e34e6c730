#!/usr/bin/env bash
# Types of the contract, generated from openapi.yaml with openapi-typescript's default options: the server's
# (contrato/openapi.ts) and the SDK's (sdk/src/openapi.ts) copies. `--check` fails when a copy is stale.
set -euo pipefail
cd "$(dirname "$0")/.."
destinos=(contrato/openapi.ts)
[ -d sdk/src ] && destinos+=(sdk/src/openapi.ts)
tmp="$(mktemp)"
trap 'rm -f "$tmp"' EXIT
npx --no-install openapi-typescript openapi.yaml -o "$tmp" >/dev/null 2>&1
npx --no-install prettier --stdin-filepath contrato/openapi.ts <"$tmp" >"$tmp.fmt" && mv "$tmp.fmt" "$tmp"
for d in "${destinos[@]}"; do
  { echo '// Generado de openapi.yaml por scripts/generar-tipos.sh (openapi-typescript 7.13.0): no lo edite.'; cat "$tmp"; } >"$tmp.cab"
  if [ "${1:-}" = --check ]; then
    cmp -s "$tmp.cab" "$d" || { echo "$d no corresponde a openapi.yaml: corra bash scripts/generar-tipos.sh" >&2; rm -f "$tmp.cab"; exit 1; }
  else
    cp "$tmp.cab" "$d"
  fi
  rm -f "$tmp.cab"
done
