#!/usr/bin/env bash
# Durable plays per second, side by side in one run on this machine:
#   1. SQLite embedded, one server;
#   2. PostgreSQL (the local cluster of scripts/test-postgres.sh), one server;
#   3. the same server behind nginx (deploy/nginx/), and three servers
#      behind it, in turns, with their ratio;
#   4. pgbench on the same PostgreSQL: the database's own ceiling.
# Then how long a new block takes to be listed by every server once the
# open one is closed. Usage: bench/run-deployment-bench.sh [DURATION=15s]
# [CONNECTIONS=64]; ELDORADO_BIN runs a given binary instead of building.
# Needs wrk, nginx, PostgreSQL; only 127.0.0.1 is used.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-15s}
CONNECTIONS=${2:-64}
WORK=$(mktemp -d /tmp/eldorado-dbench.XXXXXX)
. bench/deployment-common.sh
cleanup() {
    for dir in "$WORK/nginx" "$WORK/nginx-one"; do
        [ -f "$dir/nginx.pid" ] && nginx -p "$dir" -c "$dir/nginx.conf" -s stop 2>/dev/null || true
    done
    stop_servers
    psql "$ADMIN_URL" -qc "DROP DATABASE IF EXISTS eldorado_bench WITH (FORCE)" 2>/dev/null || true
    psql "$ADMIN_URL" -qc "DROP DATABASE IF EXISTS eldorado_pgbench WITH (FORCE)" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

# load LABEL ADDR PID...: players with money, then wrk; prints one result
# line, with the CPU time per play of the servers PID... and of the machine.
load() {
    local tokens="$WORK/tokens-$1.txt"
    players "$2" "$1" "$tokens"
    local servers_before machine_before
    servers_before=$(cpu "${@:3}")
    machine_before=$(cpu)
    TOKENS_FILE="$tokens" wrk -t2 -c"$CONNECTIONS" -d"$DURATION" --latency -s bench/play.lua "http://$2" > "$WORK/wrk-$1.txt"
    python3 - "$1" "$WORK/wrk-$1.txt" "$(getconf CLK_TCK)" \
        "$(($(cpu "${@:3}") - servers_before))" "$(($(cpu) - machine_before))" <<'PY'
import re, sys
label, path, hz, servers, machine = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:])
text = open(path).read()
rps = re.search(r"Requests/sec:\s+([\d.]+)", text).group(1)
plays = int(re.search(r"(\d+) requests in", text).group(1))
lat = dict(re.findall(r"^\s+(50|99)%\s+(\S+)", text, re.M))
bad = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
errors = re.search(r"Socket errors: (.*)", text)
per_play = lambda ticks: f"{ticks * 1000 / hz / max(plays, 1):.3f}"
print(f"| {label} | {float(rps):,.0f} | {lat.get('50')} | {lat.get('99')} | "
      f"{bad.group(1) if bad else 0} non-2xx{'; ' + errors.group(1) if errors else ''} | "
      f"{per_play(servers)} | {per_play(machine)} |")
PY
}

echo "| setup | plays/s | p50 | p99 | errors | servers' CPU ms/play | machine's CPU ms/play |"
echo "|---|---:|---:|---:|---|---:|---:|"
serve sqlite 18091 "sqlite:$WORK/sqlite/eldorado.sqlite3"
load sqlite 127.0.0.1:18091 "${PIDS[0]}"
kill "${PIDS[0]}"

psql "$ADMIN_URL" -qc "DROP DATABASE IF EXISTS eldorado_bench WITH (FORCE)" -c "CREATE DATABASE eldorado_bench"
PG_URL="${ADMIN_URL%/*}/eldorado_bench"
# Every PostgreSQL server keeps three blocks per line on sale, one per
# server of the three-server run, so that their batches sell side by side
# (docs/DEPLOYMENT.md); the one-server runs use the same database and flag.
PG_FLAGS=(--open-blocks-per-line 3)
serve pg1 18092 "$PG_URL" "${PG_FLAGS[@]}"
load pg-one-server 127.0.0.1:18092 "${PIDS[1]}"

# balancer DIR LISTEN PORT...: nginx (deploy/nginx/) in front of the servers
# on those ports.
balancer() {
    local dir=$1 listen=$2
    shift 2
    mkdir -p "$dir"
    local servers
    servers=$(printf '        server 127.0.0.1:%s;\n' "$@")
    awk -v prefix="$dir" -v listen="$listen" -v servers="$servers" '
        { gsub("@PREFIX@", prefix); gsub("@LISTEN@", listen) }
        /^[ \t]*@SERVERS@[ \t]*$/ { print servers; next }
        { print }' deploy/nginx/eldorado.conf > "$dir/nginx.conf"
    nginx -p "$dir" -c "$dir/nginx.conf"
}
# The same server behind the balancer, and three servers behind it, in
# turns (one, three, three, one): a run on this machine varies by a fifth
# from one to the next, so each is compared with its neighbours.
serve pg2 18093 "$PG_URL" "${PG_FLAGS[@]}"
serve pg3 18094 "$PG_URL" "${PG_FLAGS[@]}"
balancer "$WORK/nginx-one" 127.0.0.1:18089 18092
balancer "$WORK/nginx" 127.0.0.1:18090 18092 18093 18094
load pg-one-server-behind-nginx 127.0.0.1:18089 "${PIDS[1]}" | tee "$WORK/one-a"
load pg-three-servers-behind-nginx 127.0.0.1:18090 "${PIDS[@]:1:3}" | tee "$WORK/three-a"
load pg-three-servers-behind-nginx-again 127.0.0.1:18090 "${PIDS[@]:1:3}" | tee "$WORK/three-b"
load pg-one-server-behind-nginx-again 127.0.0.1:18089 "${PIDS[1]}" | tee "$WORK/one-b"
nginx -p "$WORK/nginx-one" -c "$WORK/nginx-one/nginx.conf" -s stop
plays() { cat "$@" | awk -F'|' '{gsub(/[ ,]/, "", $3); s += $3} END {print s}'; }
three=$(plays "$WORK/three-a" "$WORK/three-b")
one=$(plays "$WORK/one-a" "$WORK/one-b")
echo "three servers behind nginx / one: $three / $one plays/s summed = $(echo "scale=2; $three / $one" | bc)"


# The next block: close the open 1-euro block on one server, then time
# until every server lists a new pending 1-euro block.
open=$(curl -sf http://127.0.0.1:18092/api/blocks | python3 -c '
import sys, json
print([(b["commitment"].get("commitment") or b["commitment"])["block"] for b in json.load(sys.stdin)["blocks"]
       if b["status"] == "open" and (b["commitment"].get("commitment") or b["commitment"])["stake_cents"] == 100][0])')
start=$(date +%s.%N)
curl -sf -X POST "http://127.0.0.1:18092/api/operator/blocks/$open/close" -H "Authorization: Bearer $ELDORADO_OPERATOR_API_KEY" > /dev/null
for port in 18092 18093 18094; do
    until curl -sf "http://127.0.0.1:$port/api/blocks" | python3 -c '
import sys, json
blocks = json.load(sys.stdin)["blocks"]
n = sum(1 for b in blocks if b["status"] == "pending" and (b["commitment"].get("commitment") or b["commitment"])["stake_cents"] == 100)
sys.exit(0 if n >= 1 else 1)'; do sleep 0.05; done
    echo "next 1-euro block listed by the server on :$port after $(echo "$(date +%s.%N) - $start" | bc) s"
done

nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" -s stop
stop_servers
# The database's own ceiling on this machine, once the servers have let go
# of their connections: pgbench's TPC-B-like transaction (three UPDATEs, a
# SELECT and an INSERT, one commit) on the same cluster with the same
# settings, as many clients as connections.
psql "$ADMIN_URL" -qc "DROP DATABASE IF EXISTS eldorado_pgbench WITH (FORCE)" -c "CREATE DATABASE eldorado_pgbench"
PGBENCH_URL="${ADMIN_URL%/*}/eldorado_pgbench"
pgbench -q -i -s 10 "$PGBENCH_URL" > /dev/null 2>&1
pgbench -c "$CONNECTIONS" -j 2 -T "${DURATION%s}" "$PGBENCH_URL" > "$WORK/pgbench.txt" 2>&1
python3 - "$WORK/pgbench.txt" "$CONNECTIONS" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
tps = float(re.search(r"tps = ([\d.]+)", text).group(1))
lat = re.search(r"latency average = ([\d.]+) ms", text).group(1)
failed = re.search(r"number of failed transactions: (\d+)", text)
print(f"| pgbench TPC-B-like, {sys.argv[2]} clients (transactions/s) | {tps:,.0f} | {lat} ms (average) | | "
      f"{failed.group(1) if failed else 0} failed | | |")
PY
