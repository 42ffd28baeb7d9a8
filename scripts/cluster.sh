#!/usr/bin/env bash
# A whole Eldorado deployment on this machine, in one command:
#   PostgreSQL primary (port 5440) + streaming standby (5441), synchronous:
#     a sale is acknowledged only once the standby has it on disk too;
#   three `eldorado serve` processes (8081-8083) on that database;
#   nginx in front of them on 8080 (deploy/nginx/eldorado.conf).
# Usage: scripts/cluster.sh start|stop|status|destroy
#        scripts/cluster.sh kill-server N|restart-server N   (drills, N from 1)
# Everything it uses comes from the environment, with these defaults:
#   ELDORADO_CLUSTER_DIR=./cluster          state: logs, keys, nginx files
#   ELDORADO_CLUSTER_NAME=eldorado          PostgreSQL clusters NAME-primary, NAME-standby
#   ELDORADO_CLUSTER_PRIMARY_PORT=5440      ELDORADO_CLUSTER_STANDBY_PORT=5441
#   ELDORADO_CLUSTER_SERVER_PORTS="8081 8082 8083"
#   ELDORADO_CLUSTER_LISTEN=127.0.0.1:8080  the balancer
#   ELDORADO_BIN                            an `eldorado` binary to run; unset:
#                                           built here (cargo build --release)
# docs/DEPLOYMENT.md tells how the same pieces map to several machines.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

DIR=$(realpath -m "${ELDORADO_CLUSTER_DIR:-./cluster}")
NAME=${ELDORADO_CLUSTER_NAME:-eldorado}
PRIMARY=$NAME-primary
STANDBY=$NAME-standby
PRIMARY_PORT=${ELDORADO_CLUSTER_PRIMARY_PORT:-5440}
STANDBY_PORT=${ELDORADO_CLUSTER_STANDBY_PORT:-5441}
read -r -a SERVER_PORTS <<< "${ELDORADO_CLUSTER_SERVER_PORTS:-8081 8082 8083}"
LISTEN=${ELDORADO_CLUSTER_LISTEN:-127.0.0.1:8080}
# A newcomer's cluster lets the page create play-money players, so that the
# game plays through the balancer at once; ELDORADO_CLUSTER_DEMO=0 starts
# real-money servers only (every server of a deployment needs the same flags).
DEMO=(--demo)
if [ "${ELDORADO_CLUSTER_DEMO:-1}" = 0 ]; then DEMO=(); fi
DB=eldorado
ROLE=eldorado
REPLICATOR=eldorado_replicator

say() { printf '\033[1m[cluster]\033[0m %s\n' "$*"; }
as_postgres() { runuser -u postgres -- "$@"; }
[ "$(id -u)" = 0 ] || { echo "run as root (it creates PostgreSQL clusters)" >&2; exit 1; }

pg_version() { ls /usr/lib/postgresql | sort -n | tail -n 1; }
cluster_exists() { pg_lsclusters -h | awk -v n="$1" '$2 == n { found = 1 } END { exit !found }'; }
secret() { # a random secret kept in the state directory, made once
    local file="$DIR/$1"
    [ -s "$file" ] || (umask 077; head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$file")
    cat "$file"
}

start_database() {
    local v; v=$(pg_version)
    local password; password=$(secret db-password)
    if ! cluster_exists "$PRIMARY"; then
        say "creating the PostgreSQL primary on port $PRIMARY_PORT"
        # pg_dropcluster keeps files it did not make: a synchronous.conf left
        # by an earlier cluster would make every commit here wait for a
        # standby that does not exist yet.
        rm -rf "/etc/postgresql/$v/$PRIMARY"
        pg_createcluster "$v" "$PRIMARY" -p "$PRIMARY_PORT" -- --auth-local=peer --auth-host=scram-sha-256 >/dev/null
        cat > "/etc/postgresql/$v/$PRIMARY/conf.d/eldorado.conf" <<CONF
listen_addresses = '127.0.0.1'
wal_level = replica
max_wal_senders = 5
wal_keep_size = '256MB'
synchronous_commit = on
fsync = on
full_page_writes = on
CONF
        pg_ctlcluster "$v" "$PRIMARY" start
        as_postgres psql -p "$PRIMARY_PORT" -qX -v ON_ERROR_STOP=1 <<SQL
CREATE ROLE $ROLE LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION PASSWORD '$password';
CREATE DATABASE $DB OWNER $ROLE;
-- Unsold tickets are in this database: no other role connects to it.
REVOKE ALL ON DATABASE $DB FROM PUBLIC;
CREATE ROLE $REPLICATOR LOGIN REPLICATION PASSWORD '$password';
SQL
    fi
    pg_ctlcluster "$v" "$PRIMARY" start >/dev/null 2>&1 || true
    if ! cluster_exists "$STANDBY"; then
        say "creating the streaming standby on port $STANDBY_PORT (base backup of the primary)"
        rm -rf "/etc/postgresql/$v/$STANDBY"
        pg_createcluster "$v" "$STANDBY" -p "$STANDBY_PORT" >/dev/null
        cp "/etc/postgresql/$v/$PRIMARY/conf.d/eldorado.conf" "/etc/postgresql/$v/$STANDBY/conf.d/"
        local data="/var/lib/postgresql/$v/$STANDBY"
        rm -rf "$data"
        # -R writes standby.signal and the connection to the primary;
        # application_name is how the primary knows its synchronous standby.
        as_postgres env PGPASSWORD="$password" pg_basebackup -h 127.0.0.1 -p "$PRIMARY_PORT" \
            -U "$REPLICATOR" -D "$data" -R -X stream -c fast \
            -d "application_name=eldorado_standby"
    fi
    pg_ctlcluster "$v" "$STANDBY" start >/dev/null 2>&1 || true
    # Durability, once the standby exists (set earlier, every commit would
    # wait for a standby that is not there yet): a commit returns once its
    # WAL is flushed on the primary AND on the standby, so an acknowledged
    # sale survives losing the primary.
    cat > "/etc/postgresql/$v/$PRIMARY/conf.d/synchronous.conf" <<CONF
synchronous_standby_names = 'eldorado_standby'
CONF
    pg_ctlcluster "$v" "$PRIMARY" reload
}

database_url() {
    # Both hosts: after a failover each server reconnects to whichever one
    # accepts writes, without a restart.
    echo "postgres://$ROLE:$(secret db-password)@127.0.0.1:$PRIMARY_PORT,127.0.0.1:$STANDBY_PORT/$DB?target_session_attrs=read-write"
}

# The binary the servers run, as an absolute path: ELDORADO_BIN, or built.
eldorado_bin() {
    if [ -n "${ELDORADO_BIN:-}" ]; then
        [ -x "$ELDORADO_BIN" ] || { echo "ELDORADO_BIN=$ELDORADO_BIN is not an executable" >&2; exit 2; }
        realpath "$ELDORADO_BIN"
        return
    fi
    local target; target=$(realpath -m "${CARGO_TARGET_DIR:-target}")
    say "building eldorado (release)" >&2
    CARGO_TARGET_DIR=$target cargo build --release -q -p eldorado-cli
    echo "$target/release/eldorado"
}

# Starts server N (from 1) unless it runs already; everything by absolute path.
start_server() {
    local n=$1 bin=$2
    local port=${SERVER_PORTS[$((n - 1))]} data="$DIR/server-$n"
    mkdir -p "$data"
    if [ -f "$data/pid" ] && kill -0 "$(cat "$data/pid")" 2>/dev/null; then return; fi
    say "starting server $n on 127.0.0.1:$port"
    # One operator API key for all the servers (the signing key is kept in
    # the database, generated once by whichever server starts first).
    ELDORADO_OPERATOR_API_KEY=$(secret operator-api-key) \
        "$bin" serve --addr "127.0.0.1:$port" --data "$data" --web "$ROOT" --database "$(database_url)" \
        --trusted-proxy 127.0.0.1 "${DEMO[@]}" > "$data/server.log" 2>&1 &
    echo $! > "$data/pid"
}

wait_for_server() {
    local port=${SERVER_PORTS[$(($1 - 1))]}
    for _ in $(seq 1 600); do
        curl -sf "http://127.0.0.1:$port/api/config" >/dev/null && return
        sleep 0.5
    done
    say "server $1 did not answer on 127.0.0.1:$port: see $DIR/server-$1/server.log"
}

start_servers() {
    local bin=$1
    # The page the servers serve: built once, as scripts/run.sh does.
    [ -f "$ROOT/www/pkg/eldorado_web_bg.wasm" ] || scripts/build-web.sh
    echo "$bin" > "$DIR/bin"
    for n in $(seq 1 "${#SERVER_PORTS[@]}"); do start_server "$n" "$bin"; done
    for n in $(seq 1 "${#SERVER_PORTS[@]}"); do wait_for_server "$n"; done
}

# A server's number as given to a drill, checked.
server_number() {
    [[ "${1:-}" =~ ^[0-9]+$ ]] && [ "$1" -ge 1 ] && [ "$1" -le "${#SERVER_PORTS[@]}" ] \
        || { echo "a server number from 1 to ${#SERVER_PORTS[@]}" >&2; exit 2; }
    echo "$1"
}

kill_server() {
    local pidfile="$DIR/server-$1/pid"
    if [ -f "$pidfile" ] && kill -9 "$(cat "$pidfile")" 2>/dev/null; then
        say "server $1 killed (SIGKILL)"
    else
        say "server $1 was not running"
    fi
    rm -f "$pidfile"
}

start_balancer() {
    command -v nginx >/dev/null || { say "installing nginx"; apt-get install -y -qq nginx >/dev/null; }
    local servers=""
    for port in "${SERVER_PORTS[@]}"; do servers+="        server 127.0.0.1:$port max_fails=1 fail_timeout=2s;"$'\n'; done
    mkdir -p "$DIR/nginx"
    awk -v prefix="$DIR/nginx" -v listen="$LISTEN" -v servers="$servers" '
        { gsub("@PREFIX@", prefix); gsub("@LISTEN@", listen) }
        /^[ \t]*@SERVERS@[ \t]*$/ { printf "%s", servers; next }
        { print }' deploy/nginx/eldorado.conf > "$DIR/nginx/nginx.conf"
    if [ -f "$DIR/nginx/nginx.pid" ] && kill -0 "$(cat "$DIR/nginx/nginx.pid")" 2>/dev/null; then
        nginx -p "$DIR/nginx" -c "$DIR/nginx/nginx.conf" -s reload
    else
        say "starting nginx on $LISTEN"
        nginx -p "$DIR/nginx" -c "$DIR/nginx/nginx.conf"
    fi
}

stop_all() {
    [ -f "$DIR/nginx/nginx.pid" ] && nginx -p "$DIR/nginx" -c "$DIR/nginx/nginx.conf" -s stop 2>/dev/null || true
    for n in $(seq 1 "${#SERVER_PORTS[@]}"); do
        local pidfile="$DIR/server-$n/pid"
        [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true
        rm -f "$pidfile"
    done
    local v; v=$(pg_version)
    cluster_exists "$STANDBY" && pg_ctlcluster "$v" "$STANDBY" stop 2>/dev/null || true
    cluster_exists "$PRIMARY" && pg_ctlcluster "$v" "$PRIMARY" stop 2>/dev/null || true
}

status() {
    pg_lsclusters | awk -v p="$PRIMARY" -v s="$STANDBY" 'NR == 1 || $2 == p || $2 == s'
    for port in "${SERVER_PORTS[@]}"; do
        printf 'server 127.0.0.1:%s ' "$port"
        curl -sf "http://127.0.0.1:$port/api/config" >/dev/null && echo up || echo down
    done
    printf 'balancer %s ' "$LISTEN"
    curl -sf "http://$LISTEN/api/config" >/dev/null && echo up || echo down
}

mkdir -p "$DIR"
chmod 700 "$DIR"
case "${1:-start}" in
    start)
        command -v pg_createcluster >/dev/null || scripts/setup.sh
        # The binary first: a wrong ELDORADO_BIN creates nothing.
        bin=$(eldorado_bin)
        start_database
        start_servers "$bin"
        start_balancer
        status
        say "the game: http://$LISTEN/   operator API key: $DIR/operator-api-key"
        ;;
    stop) stop_all ;;
    status) status ;;
    kill-server)
        n=$(server_number "${2:-}")
        kill_server "$n"
        ;;
    restart-server)
        n=$(server_number "${2:-}")
        kill_server "$n"
        [ -s "$DIR/bin" ] || { echo "start the cluster first" >&2; exit 2; }
        start_server "$n" "$(cat "$DIR/bin")"
        wait_for_server "$n"
        ;;
    destroy)
        stop_all
        v=$(pg_version)
        cluster_exists "$STANDBY" && pg_dropcluster "$v" "$STANDBY"
        cluster_exists "$PRIMARY" && pg_dropcluster "$v" "$PRIMARY"
        rm -rf "/etc/postgresql/$v/$PRIMARY" "/etc/postgresql/$v/$STANDBY"
        rm -rf "$DIR"
        ;;
    *) echo "usage: $0 start|stop|status|destroy|kill-server N|restart-server N" >&2; exit 2 ;;
esac
