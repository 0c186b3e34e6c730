#!/usr/bin/env bash
# `make campania`: the long reliability campaign in one go (RELIABILITY.md). Each step's whole output goes to
# its own log; at the end a table with each step's result, time and machine-readable figures.
#   FUZZ_SOLICITUDES (10000)   requests of the long fuzz run
#   SOAK_DURACION_S (600)      length of the soak; the other SOAK_* variables reach bench/soak.ts
#   CAMPANIA_PASOS             only these steps, e.g. "auditoria soak" (fuzz matriz reinicios aislamiento
#                              auditoria soak)
#   CAMPANIA_DIR               where the logs go (/tmp/campania-<date>)
# Exit status: 0 when every step passed, 1 when any failed or is missing.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

PASOS=${CAMPANIA_PASOS:-fuzz matriz reinicios aislamiento auditoria soak}
DIR=${CAMPANIA_DIR:-/tmp/campania-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$DIR"
export FUZZ_SOLICITUDES=${FUZZ_SOLICITUDES:-10000}
export SOAK_DURACION_S=${SOAK_DURACION_S:-600}

quiere() { [[ " $PASOS " == *" $1 "* ]]; }

filas=()
fallo=0

# A machine-readable line is "<word> key=value ..." (what the benches and the audit print).
cifras() { grep -aE '^[a-z_]+( [a-z0-9_]+=[^ ]+)+$' "$1" | tail -n "${2:-2}" | paste -sd ';' - | sed 's/;/; /g'; }

# correr <step> <log name> <command...>: runs it, logs it, adds a table row.
correr() {
  local caso=$1 nombre=$2
  shift 2
  local log="$DIR/$nombre.log" t0=$SECONDS estado
  paso "$caso: $*"
  "$@" >"$log" 2>&1
  local rc=$?
  if [ $rc -eq 0 ]; then estado=ok; else estado="FALLA ($rc)" && fallo=1; fi
  filas+=("$caso|$estado|$((SECONDS - t0)) s|$(cifras "$log")|$log")
  [ $rc -eq 0 ] && ok "$caso: ok en $((SECONDS - t0)) s" || printf '  \033[31m✗\033[0m %s: falló, ver %s\n' "$caso" "$log" >&2
}

falta() {
  filas+=("$1|FALTA|-|$2|-")
  fallo=1
  printf '  \033[31m✗\033[0m %s: %s\n' "$1" "$2" >&2
}

# Integration test files, one jest run each (each gets its own Temporal server and database).
jest_archivo() {
  npx jest --selectProjects integration --runTestsByPath "$1"
}

pruebas() {
  local caso=$1
  shift
  local hubo=0
  for archivo in "$@"; do
    [ -f "$archivo" ] || continue
    hubo=1
    correr "$caso: $(basename "$archivo" .test.ts)" "$(basename "$archivo" .test.ts)" jest_archivo "$archivo"
  done
  [ $hubo -eq 1 ] || falta "$caso" "no hay archivos $*"
}

paso "aprovisionamiento (scripts/provision.sh test)"
bash scripts/provision.sh test >"$DIR/aprovisionamiento.log" 2>&1 || falla "el aprovisionamiento falló: $DIR/aprovisionamiento.log"
TEMPORAL_CLI="$(bash scripts/temporal-cli.sh --ruta)"
export TEMPORAL_CLI

if quiere fuzz; then
  if node -e 'process.exit(require("./package.json").scripts["campania:fuzz"] ? 0 : 1)'; then
    correr "fuzz largo ($FUZZ_SOLICITUDES solicitudes)" fuzz npm run -s campania:fuzz
  else
    falta "fuzz largo" "no hay script npm campania:fuzz"
  fi
fi
quiere matriz && pruebas "matriz de fallas" test/integration/matriz-fallas*.test.ts
quiere reinicios && pruebas "reinicios" test/integration/reinicios-*.test.ts
quiere aislamiento && pruebas "aislamiento" test/integration/aislamiento-contrato.test.ts
quiere auditoria && pruebas "auditoría de secretos" test/integration/auditoria-secretos.test.ts

# The soak runs against `make up`: this checkout's if it is already running, else one started here.
soak() {
  local puerto pid_up="" listo=0
  puerto=$(node -e 'console.log(require("./dist/config/config").cargarConfigSinSecretos().api.port)')
  if curl -fsS "http://127.0.0.1:$puerto/salud" >/dev/null 2>&1; then
    echo "usando el make up que ya corre en el puerto $puerto"
  else
    if ss -ltn | grep -q ':7233 '; then
      echo "el puerto 7233 está ocupado por otro Temporal: detenga ese make up primero"
      return 1
    fi
    setsid make up >"$DIR/make-up.log" 2>&1 &
    pid_up=$!
    for _ in $(seq 1 300); do
      grep -q 'Servicio CFDI listo' "$DIR/make-up.log" && listo=1 && break
      kill -0 "$pid_up" 2>/dev/null || break
      sleep 1
    done
    if [ $listo -eq 0 ]; then
      echo "make up no quedó listo: $DIR/make-up.log"
      kill -INT -- "-$pid_up" 2>/dev/null
      return 1
    fi
  fi
  npm run -s campania:soak
  local rc=$?
  if [ -n "$pid_up" ]; then
    # Ctrl-C for the whole group: the orchestrator stops its children in order.
    kill -INT -- "-$pid_up" 2>/dev/null
    wait "$pid_up" 2>/dev/null
  fi
  return $rc
}
quiere soak && correr "soak (${SOAK_DURACION_S} s)" soak soak

printf '\n| caso | resultado | tiempo | cifras | registro |\n|---|---|---|---|---|\n'
for f in "${filas[@]}"; do printf '| %s |\n' "${f//|/ | }"; done
echo
if [ $fallo -eq 0 ]; then
  echo "campania resultado=ok registros=$DIR"
else
  echo "campania resultado=falla registros=$DIR"
fi
exit $fallo
