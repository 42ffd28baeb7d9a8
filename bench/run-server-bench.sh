#!/usr/bin/env bash
# Durable plays per second against the real server on loopback.
# Usage: bench/run-server-bench.sh [DURATION=30s] [CONNECTIONS=64] [THREADS=2]
# Needs wrk. Builds the release binary, starts `eldorado serve` on a fresh
# data directory, creates demo players with a large balance via the
# operator API, then runs wrk with bench/play.lua.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-30s}
CONNECTIONS=${2:-64}
THREADS=${3:-2}
ADDR=127.0.0.1:${BENCH_PORT:-18088}
DATA=$(mktemp -d /tmp/eldorado-bench.XXXXXX)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
cargo build --release -q -p eldorado-cli
BIN="$CARGO_TARGET_DIR/release/eldorado"
# Every wrk connection comes from 127.0.0.1: lift the per-address sale
# limit, which is meant for one player's browser, not for a load test.
"$BIN" serve --addr "$ADDR" --data "$DATA" --sales-per-second 1000000 > "$DATA/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null; rm -rf "$DATA"' EXIT
for _ in $(seq 1 600); do
  curl -sf "http://$ADDR/api/config" > /dev/null && break
  sleep 0.5
done
KEY=$(cat "$DATA/operator-api.key")
TOKENS="$DATA/tokens.txt"
: > "$TOKENS"
for i in $(seq 1 "$CONNECTIONS"); do
  curl -sf -X POST "http://$ADDR/api/operator/players/bench-$i/credit" \
    -H "Authorization: Bearer $KEY" -d "{\"amount_cents\":100000000,\"reference\":\"bench-$i\"}" > /dev/null
  curl -sf -X POST "http://$ADDR/api/operator/sessions" -H "Authorization: Bearer $KEY" \
    -d "{\"player_id\":\"bench-$i\"}" | python3 -c 'import sys,json; print(json.load(sys.stdin)["token"])' >> "$TOKENS"
done
echo "server ready; $CONNECTIONS players; running wrk for $DURATION"
TOKENS_FILE="$TOKENS" wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency -s bench/play.lua "http://$ADDR"
echo "sales recorded:"
python3 - "$DATA/eldorado.sqlite3" <<'PY'
import sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
print(db.execute("select count(*), count(distinct block || ':' || position) from sales").fetchone())
PY
