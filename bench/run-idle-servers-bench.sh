#!/usr/bin/env bash
# The CPU that servers which sell nothing spend while another server of the
# deployment sells: three servers on one PostgreSQL database, wrk's
# connections all on the first. Usage: bench/run-idle-servers-bench.sh
# [DURATION=10s] [CONNECTIONS=64]; ELDORADO_BIN runs a given binary instead
# of building. Needs wrk and PostgreSQL; only 127.0.0.1 is used.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-10s}
CONNECTIONS=${2:-64}
WORK=$(mktemp -d /tmp/eldorado-idle.XXXXXX)
. bench/deployment-common.sh
cleanup() {
    stop_servers
    psql "$ADMIN_URL" -qc "DROP DATABASE IF EXISTS eldorado_idle_bench WITH (FORCE)" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
psql "$ADMIN_URL" -qc "DROP DATABASE IF EXISTS eldorado_idle_bench WITH (FORCE)" -c "CREATE DATABASE eldorado_idle_bench"
PG_URL="${ADMIN_URL%/*}/eldorado_idle_bench"
for i in 1 2 3; do
    serve "$i" "1810$i" "$PG_URL" --open-blocks-per-line 3
done
players 127.0.0.1:18101 p "$WORK/tokens"
ticks() { for pid in "${PIDS[@]}"; do cpu "$pid"; done; }
mapfile -t before < <(ticks)
TOKENS_FILE="$WORK/tokens" wrk -t2 -c"$CONNECTIONS" -d"$DURATION" -s bench/play.lua http://127.0.0.1:18101 > "$WORK/wrk.txt"
mapfile -t after < <(ticks)
plays=$(awk '/requests in/ { print $1 }' "$WORK/wrk.txt")
hz=$(getconf CLK_TCK)
echo "plays: $plays in $DURATION, all on the first server"
for i in 0 1 2; do
    used=$(( after[i] - before[i] ))
    echo "server $((i + 1)): $(echo "scale=2; $used / $hz" | bc) s of CPU, $(echo "scale=4; $used * 1000 / $hz / $plays" | bc) ms per play"
done
