#!/usr/bin/env bash
# The production-grade Temporal: go.temporal.io/server v1.29.1 (the dev server's release) and its SQL tool,
# built once with `go install` into a folder of Go's own bin, outside the clone, so every clone and CI run on
# this machine reuses them; and its PostgreSQL databases, created and migrated by Temporal's own SQL tool.
#   scripts/temporal-servidor.sh --ruta            prints the folder of the two binaries (server, sql)
#   scripts/temporal-servidor.sh --plantillas      prints the release's config folder (its docker.yaml template)
#   scripts/temporal-servidor.sh                   ensures both binaries, then prints the folder
#   scripts/temporal-servidor.sh esquema BD BD_VIS ensures the PostgreSQL role and both databases at the
#                                                  server's schema version (idempotent)
# PostgreSQL: TEMPORAL_PG_HOST (127.0.0.1), TEMPORAL_PG_PORT (5432), TEMPORAL_PG_USUARIO (temporal),
# TEMPORAL_PG_CONTRASENA (temporal), TEMPORAL_PG_ADMIN (postgres: creates the role when it is missing).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

VERSION=v1.29.1
MODULO=go.temporal.io/server

DIR=${TEMPORAL_SERVIDOR_DIR:-$(carpeta_bin_go)/temporal-servidor-$VERSION}
if [ "${1:-}" = "--ruta" ]; then
  echo "$DIR"
  exit 0
fi

asegurar_binarios() {
  if [ -x "$DIR/server" ] && [ -x "$DIR/sql" ] \
    && { ! command -v go >/dev/null || [ "$(version_modulo "$DIR/server" "$MODULO")" = "$VERSION" ]; }; then
    ok "Temporal server $VERSION: $DIR"
    return
  fi
  command -v go >/dev/null || falla "Go no está instalado: hace falta para compilar $MODULO@$VERSION (o defina TEMPORAL_SERVIDOR_DIR con una carpeta que tenga server y sql)"
  paso "compilando Temporal server $VERSION y su herramienta SQL con go install (la primera vez tarda unos 5 minutos)"
  local inicio=$SECONDS
  mkdir -p "$DIR"
  GOBIN="$DIR" go install "$MODULO/cmd/server@$VERSION" "$MODULO/cmd/tools/sql@$VERSION" \
    || falla "go install $MODULO@$VERSION falló"
  ok "Temporal server $VERSION compilado en $((SECONDS - inicio)) s: $DIR"
}

# The schema files and config templates ship with the module that go install downloaded.
modulo() {
  local mod
  mod="$(go env GOMODCACHE)/$MODULO@$VERSION"
  [ -d "$mod/schema/postgresql/v12" ] || GOFLAGS=-mod=mod go mod download "$MODULO@$VERSION" >&2
  echo "$mod"
}

preparar_bases() {
  local bd=${1:?falta el nombre de la base} vis=${2:?falta el nombre de la base de visibilidad}
  local host=${TEMPORAL_PG_HOST:-127.0.0.1} puerto=${TEMPORAL_PG_PORT:-5432}
  local usuario=${TEMPORAL_PG_USUARIO:-temporal} clave=${TEMPORAL_PG_CONTRASENA:-temporal}
  local admin=${TEMPORAL_PG_ADMIN:-postgres}
  command -v psql >/dev/null || apt_asegurar postgresql-client
  psql -h "$host" -p "$puerto" -U "$admin" -d postgres -Atqc 'select 1' >/dev/null 2>&1 \
    || falla "PostgreSQL no responde en $host:$puerto como $admin (Temporal guarda ahí su estado)"
  if [ "$(psql -h "$host" -p "$puerto" -U "$admin" -d postgres -Atqc "select 1 from pg_roles where rolname = '$usuario'")" != 1 ]; then
    psql -h "$host" -p "$puerto" -U "$admin" -d postgres -qc "create role \"$usuario\" login createdb password '$clave'" >&2
    ok "rol $usuario creado en PostgreSQL"
  fi
  local dir
  dir="$(modulo)/schema/postgresql/v12"
  local sqlt=("$DIR/sql" --plugin postgres12 --ep "$host" -p "$puerto" -u "$usuario" --pw "$clave")
  # The tool logs every statement: kept in a file, shown only when it fails.
  local log
  log=$(mktemp)
  trap 'rm -f "$log"' RETURN
  for par in "$bd:temporal" "$vis:visibility"; do
    local base=${par%%:*} tipo=${par#*:}
    # create-database fails when it exists: only then is that fine.
    "${sqlt[@]}" --db "$base" create-database >/dev/null 2>&1 || true
    local version
    version=$(psql -h "$host" -p "$puerto" -U "$usuario" -d "$base" -Atqc 'select curr_version from schema_version' 2>/dev/null || true)
    if [ -z "$version" ]; then
      "${sqlt[@]}" --db "$base" setup-schema -v 0.0 >"$log" 2>&1 || { cat "$log" >&2; falla "setup-schema de $base falló"; }
    fi
    "${sqlt[@]}" --db "$base" update-schema -d "$dir/$tipo/versioned" >"$log" 2>&1 \
      || { cat "$log" >&2; falla "update-schema de $base falló"; }
  done
  ok "bases $bd y $vis al día en PostgreSQL $host:$puerto"
}

case "${1:-}" in
  --plantillas) echo "$(modulo)/config" ;;
  esquema)
    asegurar_binarios
    preparar_bases "${2:-}" "${3:-}"
    ;;
  "")
    asegurar_binarios
    echo "$DIR"
    ;;
  *) falla "uso: scripts/temporal-servidor.sh [--ruta | --plantillas | esquema BD BD_VISIBILIDAD]" ;;
esac
