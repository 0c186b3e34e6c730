#!/usr/bin/env bash
# Runs test tiers, each timed, and ends with one table and one summary line.
#   scripts/pruebas.sh [--fondo "estatico unit"] repositorios flujos e2e
# estatico: ESLint, Prettier, the type check and the contract's generated types. The others are jest projects (jest.config.js); e2e is the
# `integration` project. The tiers named after the options run one after another. Those of --fondo run meanwhile,
# one after another too, at the lowest CPU priority: the end-to-end tier waits (timeouts, restarts, the PAC's
# faults) about a quarter of its time, and they take that idle CPU without slowing it. A tier's failure does not
# stop the others: the run reports them all, then fails.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
USO='uso: scripts/pruebas.sh [--fondo "nivel…"] estatico|unit|repositorios|flujos|e2e…'
fondo=()
if [ "${1:-}" = --fondo ]; then
  read -r -a fondo <<<"${2:?$USO}"
  shift 2
fi
[ $# -gt 0 ] || [ ${#fondo[@]} -gt 0 ] || falla "$USO"

TEMPORAL_CLI=${TEMPORAL_CLI:-$(bash scripts/temporal-cli.sh --ruta)}
export TEMPORAL_CLI
# Asked once here rather than by every test file that starts a Mailpit (test/support/mailpit.ts).
MAILPIT_BIN=${MAILPIT_BIN:-$(bash scripts/mailpit.sh --ruta)}
export MAILPIT_BIN
# Jest's JSON reports (per-file times among them) are kept where PRUEBAS_RESULTADOS says, else dropped.
if [ -n "${PRUEBAS_RESULTADOS:-}" ]; then
  resultados=$PRUEBAS_RESULTADOS
  mkdir -p "$resultados"
  rm -f "$resultados"/fila-*
else
  resultados=$(mktemp -d)
  trap 'rm -rf "$resultados"' EXIT
fi

jest_de() {
  local proyecto=$1
  shift
  npx jest --selectProjects "$proyecto" --json --outputFile="$resultados/$proyecto.json" "$@"
}

# ESLint, Prettier and tsc at once (each is one process, mostly on one core), each with its cache in
# node_modules/.cache: a second run reads only what changed. Every output is shown, then the verdict.
estatico() {
  local cache=node_modules/.cache/pruebas
  mkdir -p "$cache"
  npx eslint --cache --cache-location "$cache/eslint" . >"$resultados/eslint.txt" 2>&1 &
  local eslint=$!
  npx prettier --check --cache --cache-location "$cache/prettier" . >"$resultados/prettier.txt" 2>&1 &
  local prettier=$!
  npx tsc -p tsconfig.json --noEmit --incremental --tsBuildInfoFile "$cache/tsc.tsbuildinfo" \
    >"$resultados/tsc.txt" 2>&1 &
  local tsc=$!
  # The generated contract types (server and SDK) must be what openapi.yaml gives today.
  bash scripts/generar-tipos.sh --check >"$resultados/tipos.txt" 2>&1 &
  local tipos=$!
  local rc=0
  wait $eslint || rc=1
  wait $prettier || rc=1
  wait $tsc || rc=1
  wait $tipos || rc=1
  cat "$resultados/eslint.txt" "$resultados/prettier.txt" "$resultados/tsc.txt" "$resultados/tipos.txt"
  return $rc
}

# Runs one tier and writes its row: name, exit status, seconds, passed, failed.
nivel() {
  local nombre=$1 inicio rc
  paso "pruebas: $nombre"
  inicio=$(date +%s.%N)
  case $nombre in
    estatico) estatico ;;
    # CPU-bound and needing nothing shared: one jest worker per core.
    unit) jest_de unit --maxWorkers=2 ;;
    repositorios | flujos) jest_de "$nombre" ;;
    # Two at once: files share the Temporal server and the database, isolated by account and task queue. A third
    # starved the others' workflow tasks for tens of seconds on two cores.
    e2e) jest_de integration --maxWorkers=2 ;;
    *) falla "nivel desconocido: $nombre" ;;
  esac
  rc=$?
  local json="$resultados/${nombre/e2e/integration}.json" p='' f=''
  if [ -f "$json" ]; then
    read -r p f < <(node -e 'const r=require(process.argv[1]); console.log(r.numPassedTests, r.numFailedTests)' "$json")
  fi
  awk -v a="$inicio" -v b="$(date +%s.%N)" -v n="$nombre" -v rc="$rc" -v p="$p" -v f="$f" \
    'BEGIN { printf "%s %s %.0f %s %s\n", n, rc, b - a, p, f }' >"$resultados/fila-$nombre"
  return $rc
}

inicio_total=$(date +%s)
if [ ${#fondo[@]} -gt 0 ]; then
  (
    renice -n 19 -p $BASHPID >/dev/null
    for n in "${fondo[@]}"; do nivel "$n"; done
  ) >"$resultados/fondo.log" 2>&1 &
  pid_fondo=$!
  paso "pruebas en segundo plano, con la menor prioridad: ${fondo[*]} (su salida, al final)"
fi
for n in "$@"; do nivel "$n"; done
if [ ${#fondo[@]} -gt 0 ]; then
  wait $pid_fondo
  paso "salida de las pruebas en segundo plano (${fondo[*]})"
  cat "$resultados/fondo.log"
fi

estado=0
pasadas=0
fallidas=0
printf '\n%-13s %-6s %7s  %s\n' nivel estado tiempo pruebas
for n in "${fondo[@]}" "$@"; do
  if [ ! -f "$resultados/fila-$n" ]; then
    printf '%-13s %-6s\n' "$n" FALLA
    estado=1
    continue
  fi
  read -r _ rc s p f <"$resultados/fila-$n"
  [ "$rc" = 0 ] || estado=1
  cuenta=''
  if [ -n "$p" ]; then
    pasadas=$((pasadas + p))
    fallidas=$((fallidas + f))
    cuenta="$p pasaron, $f fallaron"
  fi
  printf '%-13s %-6s %5s s  %s%s\n' "$n" "$([ "$rc" = 0 ] && echo ok || echo FALLA)" "$s" "$cuenta" \
    "$(for x in "${fondo[@]}"; do [ "$x" = "$n" ] && echo ' (en segundo plano)'; done)"
done
printf '%-13s %-6s %5s s\n' total '' "$(($(date +%s) - inicio_total))"
# The plain closing line CI reads.
echo "$pasadas passed, $fallidas failed"
exit $estado
