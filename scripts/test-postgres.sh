#!/usr/bin/env bash
# Starts the local PostgreSQL cluster (Debian's postgresql package) for the
# tests, creates their role and database if missing, and prints the URL the
# tests read from ELDORADO_TEST_POSTGRES. Exits non-zero, saying why on
# stderr, when PostgreSQL is not there to start.
#   export ELDORADO_TEST_POSTGRES=$(scripts/test-postgres.sh)
set -euo pipefail

ROLE=eldorado_test
PASSWORD=eldorado_test
DB=eldorado_test

say() { printf '\033[1m[postgres]\033[0m %s\n' "$*" >&2; }
as_postgres() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else sudo -u postgres "$@"; fi
}
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

command -v pg_lsclusters >/dev/null || { say "PostgreSQL is not installed (scripts/setup.sh --test installs it)"; exit 1; }
# Debian's default cluster "main" (e.g. "15 main 5432 down ..."), else the
# first one it knows: never another cluster that happens to sort first.
read -r version cluster port status _ < <(
    pg_lsclusters -h | awk '$2 == "main" { main = $0 } NR == 1 { first = $0 }
        END { if (main != "") print main; else if (first != "") print first }'
) || true
if [ -z "${version:-}" ]; then
    version=$(ls /usr/lib/postgresql | sort -n | tail -n 1)
    say "creating cluster $version/main"
    as_root pg_createcluster "$version" main >&2
    read -r version cluster port status _ < <(pg_lsclusters -h | head -n 1)
fi
if [ "$status" != online ]; then
    say "starting cluster $version/$cluster on port $port"
    as_root pg_ctlcluster "$version" "$cluster" start >&2
fi
psql_admin() { as_postgres psql -p "$port" -v ON_ERROR_STOP=1 -qAtX "$@"; }
if [ "$(psql_admin -c "SELECT 1 FROM pg_roles WHERE rolname = '$ROLE'")" != 1 ]; then
    say "creating role $ROLE (may create databases: one per test)"
    psql_admin -c "CREATE ROLE $ROLE LOGIN CREATEDB PASSWORD '$PASSWORD'" >&2
fi
# A test drops its database WITH (FORCE), which ends the sessions still on
# it; an autovacuum worker's is no role's, and only pg_signal_backend may
# end it (without it the drop failed and the database stayed behind).
if [ "$(psql_admin -c "SELECT pg_has_role('$ROLE', 'pg_signal_backend', 'MEMBER')")" != t ]; then
    psql_admin -c "GRANT pg_signal_backend TO $ROLE" >&2
fi
if [ "$(psql_admin -c "SELECT 1 FROM pg_database WHERE datname = '$DB'")" != 1 ]; then
    psql_admin -c "CREATE DATABASE $DB OWNER $ROLE" >&2
fi
echo "postgres://$ROLE:$PASSWORD@127.0.0.1:$port/$DB"
