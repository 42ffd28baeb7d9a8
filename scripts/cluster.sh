#!/usr/bin/env bash
# A whole Eldorado deployment on this machine, in one command:
#   PostgreSQL primary (port 5440) + streaming standby (5441), synchronous:
#     a sale is acknowledged only once the standby has it on disk too;
#   three `eldorado serve` processes (8081-8083) on that database;
#   nginx in front of them on 8080 (deploy/nginx/eldorado.conf).
# Usage: scripts/cluster.sh start|stop|status|destroy
# State (logs, keys, nginx files) lives in ${ELDORADO_CLUSTER_DIR:-./cluster}.
# docs/DEPLOYMENT.md tells how the same pieces map to several machines.
set -euo pipefail
cd "$(dirname "$0")/.."

DIR=$(realpath -m "${ELDORADO_CLUSTER_DIR:-./cluster}")
PRIMARY_PORT=5440
STANDBY_PORT=5441
SERVER_PORTS=(8081 8082 8083)
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
    if ! cluster_exists eldorado-primary; then
        say "creating the PostgreSQL primary on port $PRIMARY_PORT"
        # pg_dropcluster keeps files it did not make: a synchronous.conf left
        # by an earlier cluster would make every commit here wait for a
        # standby that does not exist yet.
        rm -rf "/etc/postgresql/$v/eldorado-primary"
        pg_createcluster "$v" eldorado-primary -p "$PRIMARY_PORT" -- --auth-local=peer --auth-host=scram-sha-256 >/dev/null
        cat > "/etc/postgresql/$v/eldorado-primary/conf.d/eldorado.conf" <<CONF
listen_addresses = '127.0.0.1'
wal_level = replica
max_wal_senders = 5
wal_keep_size = '256MB'
synchronous_commit = on
fsync = on
full_page_writes = on
CONF
        pg_ctlcluster "$v" eldorado-primary start
        as_postgres psql -p "$PRIMARY_PORT" -qX -v ON_ERROR_STOP=1 <<SQL
CREATE ROLE $ROLE LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION PASSWORD '$password';
CREATE DATABASE $DB OWNER $ROLE;
-- Unsold tickets are in this database: no other role connects to it.
REVOKE ALL ON DATABASE $DB FROM PUBLIC;
CREATE ROLE $REPLICATOR LOGIN REPLICATION PASSWORD '$password';
SQL
    fi
    pg_ctlcluster "$v" eldorado-primary start >/dev/null 2>&1 || true
    if ! cluster_exists eldorado-standby; then
        say "creating the streaming standby on port $STANDBY_PORT (base backup of the primary)"
        rm -rf "/etc/postgresql/$v/eldorado-standby"
        pg_createcluster "$v" eldorado-standby -p "$STANDBY_PORT" >/dev/null
        cp "/etc/postgresql/$v/eldorado-primary/conf.d/eldorado.conf" "/etc/postgresql/$v/eldorado-standby/conf.d/"
        local data="/var/lib/postgresql/$v/eldorado-standby"
        rm -rf "$data"
        # -R writes standby.signal and the connection to the primary;
        # application_name is how the primary knows its synchronous standby.
        as_postgres env PGPASSWORD="$password" pg_basebackup -h 127.0.0.1 -p "$PRIMARY_PORT" \
            -U "$REPLICATOR" -D "$data" -R -X stream -c fast \
            -d "application_name=eldorado_standby"
    fi
    pg_ctlcluster "$v" eldorado-standby start >/dev/null 2>&1 || true
    # Durability, once the standby exists (set earlier, every commit would
    # wait for a standby that is not there yet): a commit returns once its
    # WAL is flushed on the primary AND on the standby, so an acknowledged
    # sale survives losing the primary.
    cat > "/etc/postgresql/$v/eldorado-primary/conf.d/synchronous.conf" <<CONF
synchronous_standby_names = 'eldorado_standby'
CONF
    pg_ctlcluster "$v" eldorado-primary reload
}

database_url() {
    # Both hosts: after a failover each server reconnects to whichever one
    # accepts writes, without a restart.
    echo "postgres://$ROLE:$(secret db-password)@127.0.0.1:$PRIMARY_PORT,127.0.0.1:$STANDBY_PORT/$DB?target_session_attrs=read-write"
}

start_servers() {
    export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
    say "building eldorado (release)"
    cargo build --release -q -p eldorado-cli
    # The page the servers serve: built once, as scripts/run.sh does.
    [ -f www/pkg/eldorado_web_bg.wasm ] || scripts/build-web.sh
    local bin="$CARGO_TARGET_DIR/release/eldorado"
    # One operator API key for all three servers (the signing key is kept
    # in the database, generated once by whichever server starts first).
    export ELDORADO_OPERATOR_API_KEY; ELDORADO_OPERATOR_API_KEY=$(secret operator-api-key)
    local url; url=$(database_url)
    for i in "${!SERVER_PORTS[@]}"; do
        local port=${SERVER_PORTS[$i]} data="$DIR/server-$((i + 1))"
        mkdir -p "$data"
        if [ -f "$data/pid" ] && kill -0 "$(cat "$data/pid")" 2>/dev/null; then continue; fi
        say "starting server $((i + 1)) on 127.0.0.1:$port"
        "$bin" serve --addr "127.0.0.1:$port" --data "$data" --web . --database "$url" \
            --trusted-proxy 127.0.0.1 "${DEMO[@]}" > "$data/server.log" 2>&1 &
        echo $! > "$data/pid"
    done
    for port in "${SERVER_PORTS[@]}"; do
        for _ in $(seq 1 600); do
            curl -sf "http://127.0.0.1:$port/api/config" >/dev/null && break
            sleep 0.5
        done
    done
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
    for i in "${!SERVER_PORTS[@]}"; do
        local pidfile="$DIR/server-$((i + 1))/pid"
        [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true
        rm -f "$pidfile"
    done
    local v; v=$(pg_version)
    cluster_exists eldorado-standby && pg_ctlcluster "$v" eldorado-standby stop 2>/dev/null || true
    cluster_exists eldorado-primary && pg_ctlcluster "$v" eldorado-primary stop 2>/dev/null || true
}

status() {
    pg_lsclusters | awk 'NR == 1 || /eldorado-/'
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
        start_database
        start_servers
        start_balancer
        status
        say "the game: http://$LISTEN/   operator API key: $DIR/operator-api-key"
        ;;
    stop) stop_all ;;
    status) status ;;
    destroy)
        stop_all
        v=$(pg_version)
        cluster_exists eldorado-standby && pg_dropcluster "$v" eldorado-standby
        cluster_exists eldorado-primary && pg_dropcluster "$v" eldorado-primary
        rm -rf "/etc/postgresql/$v/eldorado-primary" "/etc/postgresql/$v/eldorado-standby"
        rm -rf "$DIR"
        ;;
    *) echo "usage: $0 start|stop|status|destroy" >&2; exit 2 ;;
esac
