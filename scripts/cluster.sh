#!/usr/bin/env bash
# A whole Eldorado deployment on this machine, in one command:
#   PostgreSQL managed by pg_auto_failover: a monitor (port 5439) and three
#     nodes (5440-5442), one primary and two standbys. A commit returns once
#     a standby has it on disk too, and when the primary is lost the monitor
#     promotes the most advanced standby by itself;
#   three `eldorado serve` processes (8081-8083) on that database;
#   nginx in front of them on 8080 (deploy/nginx/eldorado.conf).
# Usage: scripts/cluster.sh start|stop|status|destroy
#        scripts/cluster.sh kill-primary                    (drills: SIGKILL the
#        scripts/cluster.sh kill-server N|restart-server N   database's primary or
#                                                            a game server, N from 1)
# `start` also restarts whatever is down: a killed node rejoins as a standby.
# Everything it uses comes from the environment, with these defaults:
#   ELDORADO_CLUSTER_DIR=./cluster          state: logs, keys, nginx files
#   ELDORADO_CLUSTER_NAME=eldorado          names the PostgreSQL directory below
#   ELDORADO_CLUSTER_PGDATA=/var/lib/postgresql/eldorado-cluster/NAME
#                                           the monitor's and nodes' data, owned
#                                           by the postgres user
#   ELDORADO_CLUSTER_MONITOR_PORT=5439      ELDORADO_CLUSTER_NODE_PORTS="5440 5441 5442"
#   ELDORADO_CLUSTER_SERVER_PORTS="8081 8082 8083"
#   ELDORADO_CLUSTER_LISTEN=127.0.0.1:8080  the balancer
#   ELDORADO_CLUSTER_SERVER_FLAGS           more flags for every `eldorado serve`
#                                           (--open-blocks-per-line defaults to
#                                           the number of servers, 8 at most)
#   ELDORADO_CLUSTER_WEB                    the directory the servers serve the
#                                           page from; unset: this repository's
#                                           (built with scripts/build-web.sh)
#   ELDORADO_BIN                            an `eldorado` binary to run; unset:
#                                           built here (cargo build --release)
# docs/DEPLOYMENT.md tells how the same pieces map to several machines.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
WEB=$(realpath -m "${ELDORADO_CLUSTER_WEB:-$ROOT}")

DIR=$(realpath -m "${ELDORADO_CLUSTER_DIR:-./cluster}")
NAME=${ELDORADO_CLUSTER_NAME:-eldorado}
PGROOT=$(realpath -m "${ELDORADO_CLUSTER_PGDATA:-/var/lib/postgresql/eldorado-cluster/$NAME}")
MONITOR_PORT=${ELDORADO_CLUSTER_MONITOR_PORT:-5439}
read -r -a NODE_PORTS <<< "${ELDORADO_CLUSTER_NODE_PORTS:-5440 5441 5442}"
read -r -a SERVER_PORTS <<< "${ELDORADO_CLUSTER_SERVER_PORTS:-8081 8082 8083}"
LISTEN=${ELDORADO_CLUSTER_LISTEN:-127.0.0.1:8080}
read -r -a SERVER_FLAGS <<< "${ELDORADO_CLUSTER_SERVER_FLAGS:-}"
# One open block per line for each server (8 at most), so that their sale
# batches sell side by side instead of taking turns on one block; unless
# the flags above say otherwise, or deal from a beacon (which needs one).
if [[ " ${SERVER_FLAGS[*]} " != *" --open-blocks-per-line "* && " ${SERVER_FLAGS[*]} " != *" --beacon "* ]]; then
    open_blocks=${#SERVER_PORTS[@]}
    SERVER_FLAGS+=(--open-blocks-per-line "$((open_blocks < 8 ? open_blocks : 8))")
fi
# A newcomer's cluster lets the page create play-money players, so that the
# game plays through the balancer at once; ELDORADO_CLUSTER_DEMO=0 starts
# real-money servers only (every server of a deployment needs the same flags).
DEMO=(--demo)
if [ "${ELDORADO_CLUSTER_DEMO:-1}" = 0 ]; then DEMO=(); fi
DB=eldorado
ROLE=eldorado
MONITOR_DATA=$PGROOT/monitor
node_data() { echo "$PGROOT/node$1"; }

say() { if [ -t 1 ]; then printf '\033[1m[cluster]\033[0m %s\n' "$*"; else printf '[cluster] %s\n' "$*"; fi; }
[ "$(id -u)" = 0 ] || { echo "run as root (it runs PostgreSQL as the postgres user)" >&2; exit 1; }

pg_bin() { echo "/usr/lib/postgresql/$(ls /usr/lib/postgresql | sort -n | tail -n 1)/bin"; }
# A command as the postgres user, run from / (this directory may be closed
# to it); pg_autoctl's configuration and state, kept by default under the
# user's home and keyed by data directory, are kept with the data instead.
as_postgres() {
    runuser -u postgres -- env -C / PATH="$(pg_bin):/usr/bin:/bin" \
        XDG_CONFIG_HOME="$PGROOT/xdg/config" XDG_DATA_HOME="$PGROOT/xdg/data" \
        XDG_RUNTIME_DIR="$PGROOT/xdg/run" PGPASSFILE="$PGROOT/pgpass" "$@"
}
# psql on the node or monitor at port $1, through its socket (peer auth).
psql_at() { local port=$1; shift; as_postgres psql -p "$port" -qAtX -v ON_ERROR_STOP=1 "$@"; }
monitor_sql() { psql_at "$MONITOR_PORT" -d pg_auto_failover -c "$1"; }

secret() { # a random secret kept in the state directory, made once
    local file="$DIR/$1"
    [ -s "$file" ] || (umask 077; head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$file")
    cat "$file"
}

# Waits up to $1 seconds for the command after it to succeed.
wait_until() {
    local seconds=$1; shift
    for _ in $(seq 1 $((seconds * 5))); do "$@" >/dev/null 2>&1 && return 0; sleep 0.2; done
    return 1
}

# The pid of the pg_autoctl service of data directory $1, if it runs.
autoctl_pid() {
    local pidfile="$PGROOT/xdg/run/pg_autoctl$1/pg_autoctl.pid" pid
    [ -f "$pidfile" ] || return 1
    pid=$(head -n 1 "$pidfile")
    kill -0 "$pid" 2>/dev/null && echo "$pid"
}

# Starts pg_autoctl's service of data directory $1 unless it runs: it
# starts PostgreSQL and keeps it in the state the monitor assigns. Its own
# session, so that a drill kills it with its PostgreSQL and nothing else.
run_autoctl() {
    autoctl_pid "$1" >/dev/null && return
    as_postgres setsid pg_autoctl run --pgdata "$1" >> "$1.log" 2>&1 < /dev/null &
}

# The initdb defaults trust every local connection; here each role
# authenticates: the postgres user through the socket (peer), the servers'
# role and pg_auto_failover's replication and monitor roles by password.
# The monitor's health checks (role pgautofailover_monitor, which reads
# nothing) keep the rule pg_autoctl wrote for them.
harden_hba() {
    local hba=$1/pg_hba.conf extra=$2
    awk '/^(local|host)/ && /[ \t]trust([ \t]|$)/ && !/pgautofailover_monitor/ { next } { print }' "$hba" > "$hba.new"
    {
        echo "local   all             all                                     peer"
        echo "local   replication     all                                     peer"
        printf '%s\n' "$extra"
    } >> "$hba.new"
    chown postgres: "$hba.new"
    chmod 600 "$hba.new"
    mv "$hba.new" "$hba"
}

monitor_url() { echo "postgres://autoctl_node:$(secret monitor-password)@127.0.0.1:$MONITOR_PORT/pg_auto_failover?sslmode=disable"; }

start_monitor() {
    if [ ! -f "$MONITOR_DATA/PG_VERSION" ]; then
        say "creating the pg_auto_failover monitor on port $MONITOR_PORT"
        as_postgres pg_autoctl create monitor --pgdata "$MONITOR_DATA" --pgctl "$(pg_bin)/pg_ctl" \
            --pgport "$MONITOR_PORT" --hostname 127.0.0.1 --auth scram-sha-256 --no-ssl \
            >> "$MONITOR_DATA.log" 2>&1
        harden_hba "$MONITOR_DATA" \
            "host    pg_auto_failover autoctl_node    127.0.0.1/32            scram-sha-256"
        share_memory "$MONITOR_DATA"
    fi
    run_autoctl "$MONITOR_DATA"
    wait_until 60 monitor_sql "SELECT 1" || { say "the monitor did not start: see $MONITOR_DATA.log"; exit 1; }
    # A failover within seconds on a machine that is gone: the monitor
    # checks each node every second and calls it unhealthy after 3 s; a
    # standby is promoted 6 s later, once a primary that is only cut off has
    # demoted itself (each node's network_partition_timeout is 4 s, below).
    monitor_sql "ALTER USER autoctl_node PASSWORD '$(secret monitor-password)'"
    local setting
    for setting in health_check_period=1000 health_check_retry_delay=500 health_check_timeout=1000 \
        node_considered_unhealthy_timeout=3000 primary_demote_timeout=6000; do
        monitor_sql "ALTER SYSTEM SET pgautofailover.${setting%=*} = ${setting#*=}"
    done
    monitor_sql "SELECT pg_reload_conf()" >/dev/null
}

# Whether the monitor assigned state $2 to the node on port $1.
node_is() { [ "$(monitor_sql "SELECT goalstate FROM pgautofailover.node WHERE nodeport = $1")" = "$2" ]; }

# pg_autoctl sizes memory for a machine of its own; here four PostgreSQL
# share one with the servers. Appended last, so it wins over pg_autoctl's
# settings; a standby copies it with the rest of the primary's files.
share_memory() {
    cat >> "$1/postgresql.conf" <<CONF
# scripts/cluster.sh: four PostgreSQL on one machine
shared_buffers = '128MB'
effective_cache_size = '1GB'
maintenance_work_mem = '64MB'
work_mem = '4MB'
CONF
}

create_node() {
    local n=$1 port=$2 data; data=$(node_data "$1")
    say "creating PostgreSQL node $n on port $port"
    as_postgres pg_autoctl create postgres --pgdata "$data" --pgctl "$(pg_bin)/pg_ctl" \
        --pgport "$port" --listen 127.0.0.1 --hostname 127.0.0.1 --name "node$n" \
        --dbname "$DB" --monitor "$(monitor_url)" --auth scram-sha-256 --no-ssl >> "$data.log" 2>&1
    as_postgres pg_autoctl config set --pgdata "$data" timeout.network_partition_timeout 4 >/dev/null
    as_postgres pg_autoctl config set --pgdata "$data" replication.password "$(secret replication-password)" >/dev/null
    if [ "$n" = 1 ]; then share_memory "$data"; fi
}

# The first node becomes the primary; what it holds then (roles, settings,
# pg_hba.conf) is what every standby copies when it is made.
set_up_primary() {
    local port=$1 data=$2 password; password=$(secret db-password)
    wait_until 60 psql_at "$port" -c "SELECT 1" || { say "node 1 did not start: see $data.log"; exit 1; }
    harden_hba "$data" \
        "host    $DB        $ROLE            127.0.0.1/32            scram-sha-256"
    psql_at "$port" >/dev/null <<SQL
CREATE ROLE $ROLE LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION PASSWORD '$password';
ALTER DATABASE $DB OWNER TO $ROLE;
-- Unsold tickets are in this database: no other role connects to it.
REVOKE ALL ON DATABASE $DB FROM PUBLIC;
ALTER USER pgautofailover_replicator PASSWORD '$(secret replication-password)';
SELECT pg_reload_conf();
SQL
}

start_database() {
    mkdir -p "$PGROOT/xdg/run"
    chown -R postgres: "$PGROOT"
    chmod 700 "$PGROOT" "$PGROOT/xdg/run"
    # The nodes' and monitor's passwords, for pg_basebackup and replication.
    (umask 077; {
        echo "127.0.0.1:$MONITOR_PORT:pg_auto_failover:autoctl_node:$(secret monitor-password)"
        echo "127.0.0.1:*:*:pgautofailover_replicator:$(secret replication-password)"
    } > "$PGROOT/pgpass")
    chown postgres: "$PGROOT/pgpass"
    start_monitor
    local i
    for i in "${!NODE_PORTS[@]}"; do
        local n=$((i + 1)) port=${NODE_PORTS[$i]} data; data=$(node_data $((i + 1)))
        if [ ! -f "$data/PG_VERSION" ]; then
            create_node "$n" "$port"
            if [ "$n" = 1 ]; then
                run_autoctl "$data"
                set_up_primary "$port" "$data"
                wait_until 60 node_is "$port" single || true
            fi
        fi
        run_autoctl "$data"
    done
    say "waiting for every node to be the primary or a standby in sync"
    if ! wait_until 180 all_nodes_in_place; then
        say "the nodes are not all in place yet:"
        as_postgres pg_autoctl show state --monitor "$(monitor_url)" || true
    fi
    # One standby's acknowledgement is enough to commit (the monitor writes
    # synchronous_standby_names = ANY 1 (the standbys)), and a failover needs
    # only one standby to report: with two nodes of three gone, the last one
    # still takes over, and runs alone until another rejoins.
    monitor_sql "SELECT pgautofailover.set_formation_number_sync_standbys('default', 0)" >/dev/null 2>&1 || true
}

# Every node reports the state it was assigned, primary or secondary.
all_nodes_in_place() {
    local settled
    settled=$(monitor_sql "SELECT count(*) FROM pgautofailover.node WHERE reportedstate = goalstate \
        AND goalstate IN ('primary', 'secondary')")
    [ "$settled" = "${#NODE_PORTS[@]}" ]
}

database_url() {
    # Every node: a new connection goes to whichever one accepts writes, so
    # the servers follow a failover without a restart.
    local hosts="" port
    for port in "${NODE_PORTS[@]}"; do hosts+="${hosts:+,}127.0.0.1:$port"; done
    echo "postgres://$ROLE:$(secret db-password)@$hosts/$DB?target_session_attrs=read-write"
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
        setsid "$bin" serve --addr "127.0.0.1:$port" --data "$data" --web "$WEB" --database "$(database_url)" \
        --trusted-proxy 127.0.0.1 "${DEMO[@]}" "${SERVER_FLAGS[@]}" > "$data/server.log" 2>&1 < /dev/null &
    echo $! > "$data/pid"
}

# Waits for server N to answer. One that exits before (it could not reach
# the database in time while the nodes settle: several servers start at
# once on a busy machine) is started again, up to three times in all,
# rather than waited for in vain.
wait_for_server() {
    local n=$1 port=${SERVER_PORTS[$(($1 - 1))]} data="$DIR/server-$1" starts=1
    for _ in $(seq 1 600); do
        curl -sf "http://127.0.0.1:$port/api/config" >/dev/null && return
        if ! kill -0 "$(cat "$data/pid")" 2>/dev/null; then
            say "server $n exited: $(tail -n 1 "$data/server.log")"
            [ "$starts" -lt 3 ] || break
            cp "$data/server.log" "$data/server.log.$starts"
            starts=$((starts + 1))
            start_server "$n" "$(cat "$DIR/bin")"
        fi
        sleep 0.5
    done
    say "server $n did not answer on 127.0.0.1:$port: see $data/server.log"
}

start_servers() {
    local bin=$1
    # The page the servers serve: this repository's built once, as
    # scripts/run.sh does, unless ELDORADO_CLUSTER_WEB names another.
    if [ -z "${ELDORADO_CLUSTER_WEB:-}" ] && [ ! -f "$ROOT/www/pkg/page-manifest.json" ]; then
        scripts/build-web.sh
    fi
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
        # One that exited by itself says why at the end of its log.
        say "server $1 was not running; the end of its log:"
        tail -n 5 "$DIR/server-$1/server.log" 2>/dev/null | sed 's/^/    /'
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

# The node (1, 2, …) PostgreSQL answers writes on, if one does.
primary_node() {
    local i
    for i in "${!NODE_PORTS[@]}"; do
        if [ "$(psql_at "${NODE_PORTS[$i]}" -c "SELECT pg_is_in_recovery()" 2>/dev/null)" = f ]; then
            echo $((i + 1))
            return
        fi
    done
    return 1
}

# SIGKILL to node $1's pg_autoctl and its PostgreSQL, as a machine lost.
kill_node() {
    local data pid; data=$(node_data "$1")
    if pid=$(autoctl_pid "$data"); then
        kill -9 -- "-$pid"
        say "node $1 (port ${NODE_PORTS[$(($1 - 1))]}) killed (SIGKILL to pg_autoctl and PostgreSQL)"
    else
        say "node $1 was not running"
    fi
}

gone() { ! kill -0 "$1" 2>/dev/null; }

stop_database() {
    local i data pid pids=()
    # The monitor first: no failover is started while the nodes stop.
    for data in "$MONITOR_DATA" $(for i in "${!NODE_PORTS[@]}"; do node_data $((i + 1)); done); do
        pid=$(autoctl_pid "$data") || continue
        as_postgres pg_autoctl stop --pgdata "$data" >/dev/null 2>&1 || true
        pids+=("$pid")
    done
    # pg_autoctl stop returns at once: wait for each service to be gone.
    for pid in "${pids[@]}"; do
        wait_until 60 gone "$pid" || kill -9 -- "-$pid" 2>/dev/null || true
    done
}

stop_all() {
    [ -f "$DIR/nginx/nginx.pid" ] && nginx -p "$DIR/nginx" -c "$DIR/nginx/nginx.conf" -s stop 2>/dev/null || true
    for n in $(seq 1 "${#SERVER_PORTS[@]}"); do
        local pidfile="$DIR/server-$n/pid"
        [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true
        rm -f "$pidfile"
    done
    [ -d "$PGROOT" ] && stop_database
}

status() {
    if autoctl_pid "$MONITOR_DATA" >/dev/null; then
        as_postgres pg_autoctl show state --monitor "$(monitor_url)" 2>/dev/null || true
    else
        echo "monitor 127.0.0.1:$MONITOR_PORT down"
    fi
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
        [ -x "$(pg_bin)/postgres" ] 2>/dev/null || scripts/setup.sh
        if ! command -v pg_autoctl >/dev/null; then
            say "installing pg_auto_failover"
            apt-get update -qq && apt-get install -y -qq pg-auto-failover-cli "postgresql-$(basename "$(dirname "$(pg_bin)")")-auto-failover" >/dev/null
        fi
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
    kill-primary)
        n=$(primary_node) || { say "no node accepts writes now"; exit 1; }
        kill_node "$n"
        ;;
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
        rm -rf "$PGROOT" "$DIR"
        ;;
    *) echo "usage: $0 start|stop|status|destroy|kill-primary|kill-server N|restart-server N" >&2; exit 2 ;;
esac
