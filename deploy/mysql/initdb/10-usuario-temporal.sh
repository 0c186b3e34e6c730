#!/bin/sh
# Runs once, on the first start with an empty data volume (/docker-entrypoint-initdb.d).
# The application user and database come from MYSQL_USER / MYSQL_DATABASE; Temporal gets its
# own account, limited to its two databases, so no service connects as root.
# The password is inlined in SQL and in URLs: use letters and digits only.
set -e

if [ -z "${TEMPORAL_DB_PASSWORD:-}" ]; then
  echo "10-usuario-temporal.sh: falta TEMPORAL_DB_PASSWORD" >&2
  exit 1
fi

# Grants on databases that do not exist yet are valid: temporal-sql-tool creates them later.
MYSQL_PWD="$MYSQL_ROOT_PASSWORD" mysql --protocol=socket -uroot <<SQL
CREATE USER IF NOT EXISTS 'temporal'@'%' IDENTIFIED BY '${TEMPORAL_DB_PASSWORD}';
GRANT ALL PRIVILEGES ON \`temporal\`.* TO 'temporal'@'%';
GRANT ALL PRIVILEGES ON \`temporal_visibility\`.* TO 'temporal'@'%';
SQL
