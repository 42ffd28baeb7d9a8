#!/usr/bin/env bash
# Durable plays per second against the real server on loopback.
# Usage: bench/run-server-bench.sh [DURATION=30s] [CONNECTIONS=64] [THREADS=2]
# SERVE_ARGS adds flags to `eldorado serve` (e.g. SERVE_ARGS="--checkpoint-interval-ms 3600000"
# leaves the public log's sequencer idle during the run, to compare).
# WRK_ARGS adds flags to wrk (e.g. WRK_ARGS="--timeout 10s": with the beacon
# and thousands of connections, wrk's 2 s default drops the slow answers
# from the latencies instead of counting them).
# BENCH_BEACON=1 deals every sale from a local `eldorado beacon` (500 ms
# rounds; with a witness, BENCH_WITNESS=1, as in production): each request
# then waits for its round.
# Needs wrk. Builds the release binary (or takes ELDORADO_BIN), starts `eldorado serve` on a fresh
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
# ELDORADO_BIN runs a binary built elsewhere (e.g. to compare two commits).
if [ -n "${ELDORADO_BIN:-}" ]; then
  BIN=$ELDORADO_BIN
else
  cargo build --release -q -p eldorado-cli
  BIN="$CARGO_TARGET_DIR/release/eldorado"
fi
# Every wrk connection comes from 127.0.0.1: lift the per-address sale
# limit, which is meant for one player's browser, not for a load test.
WITNESS_ARGS=()
if [ "${BENCH_WITNESS:-0}" = 1 ]; then
  # A witness beside the server, polling every 100 ms: the figures below
  # then include the time from each checkpoint to its cosignature.
  mkdir -p -m 700 "$DATA/witness"
  "$BIN" witness --log "http://$ADDR" --key-file "$DATA/witness/key" --state "$DATA/witness" \
    --poll-ms 100 > "$DATA/witness.log" 2>&1 &
  WITNESS=$!
  for _ in $(seq 1 100); do
    VKEY=$(sed -n 's/^witness key: //p' "$DATA/witness.log")
    [ -n "$VKEY" ] && break
    sleep 0.1
  done
  WITNESS_ARGS=(--witness "$VKEY")
fi
BEACON_ARGS=()
if [ "${BENCH_BEACON:-0}" = 1 ]; then
  BEACON_ADDR=127.0.0.1:${BENCH_BEACON_PORT:-18090}
  "$BIN" beacon --key-file "$DATA/beacon.key" --period-ms 500 --listen "$BEACON_ADDR" \
    > "$DATA/beacon.log" 2>&1 &
  BEACON=$!
  for _ in $(seq 1 100); do
    grep -q '^beacon listening on' "$DATA/beacon.log" && break
    sleep 0.1
  done
  BEACON_KEY=$(sed -n 's/^beacon key: //p' "$DATA/beacon.log")
  BEACON_ARGS=(--beacon "http://$BEACON_ADDR" --beacon-key "$BEACON_KEY")
fi
# Every connection comes from one address, and each is one player: the
# per-address share of connections and the in-flight cap would turn the
# run into evictions and refusals (measured: 17 % of the server's CPU
# scanning for the connection to evict at 4,096 connections).
LIMIT_ARGS=(--max-connections-per-address "$CONNECTIONS" --max-in-flight "$CONNECTIONS"
  --max-connections "$(( CONNECTIONS > 4000 ? CONNECTIONS + 96 : 4096 ))")
# shellcheck disable=SC2086 # SERVE_ARGS is a list of flags
"$BIN" serve --addr "$ADDR" --data "$DATA" --sales-per-second 1000000 "${LIMIT_ARGS[@]}" ${SERVE_ARGS:-} \
  "${WITNESS_ARGS[@]}" "${BEACON_ARGS[@]}" > "$DATA/server.log" 2>&1 &
SERVER=$!
# BENCH_KEEP_DATA=1 keeps the data directory, to look into after the run.
trap 'kill $SERVER ${WITNESS:-} ${BEACON:-} 2>/dev/null; wait $SERVER 2>/dev/null || true
      if [ "${BENCH_KEEP_DATA:-0}" = 1 ]; then echo "data kept in $DATA"; else rm -rf "$DATA"; fi' EXIT
for _ in $(seq 1 600); do
  curl -sf "http://$ADDR/api/config" > /dev/null && break
  sleep 0.5
done
KEY=$(cat "$DATA/operator-api.key")
TOKENS="$DATA/tokens.txt"
# Each player is two durable operator calls: made 16 at a time, so that
# thousands of players take seconds rather than minutes.
new_player() {
  curl -sf -X POST "http://$ADDR/api/operator/players/bench-$1/credit" \
    -H "Authorization: Bearer $KEY" -d "{\"amount_cents\":100000000,\"reference\":\"bench-$1\"}" > /dev/null
  # The answer ends with no newline: add one, or the tokens run together.
  { curl -sf -X POST "http://$ADDR/api/operator/sessions" -H "Authorization: Bearer $KEY" \
    -d "{\"player_id\":\"bench-$1\"}"; echo; } | sed -n 's/.*"token":"\([^"]*\)".*/\1/p'
}
export -f new_player
export ADDR KEY
seq 1 "$CONNECTIONS" | xargs -P 16 -I{} bash -c 'new_player {}' > "$TOKENS"
[ "$(wc -l < "$TOKENS")" -eq "$CONNECTIONS" ] || { echo "player setup failed" >&2; exit 1; }
echo "server ready; $CONNECTIONS players; running wrk for $DURATION"
# The server's CPU time (user + system, from /proc) over the run.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$SERVER/stat"; }
TICKS=$(cpu_ticks)
STARTED=$(date +%s.%N)
# shellcheck disable=SC2086 # WRK_ARGS is a list of flags
TOKENS_FILE="$TOKENS" wrk ${WRK_ARGS:-} -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency -s bench/play.lua "http://$ADDR"
awk -v t="$(( $(cpu_ticks) - TICKS ))" -v hz="$(getconf CLK_TCK)" -v s="$STARTED" -v e="$(date +%s.%N)" \
  'BEGIN { printf "server CPU: %.2f cores over the run\n", t / hz / (e - s) }'
if [ "${BENCH_AUDIT:-0}" = 1 ]; then
  # The whole log, audited as a stranger would (after the sequencer caught up).
  sleep 2
  /usr/bin/time -f "log audit: %e s, %M KB peak" "$BIN" log audit "http://$ADDR" | tail -3
fi
echo "sales recorded:"
python3 - "$DATA/eldorado.sqlite3" <<'PY'
import sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
print(db.execute("select count(*), count(distinct block || ':' || position) from sales").fetchone())
records, leaf_bytes = db.execute("select count(*), coalesce(sum(length(leaf)), 0) from log_records").fetchone()
hashes = db.execute("select count(*) from log_hashes").fetchone()[0]
logged = db.execute("select count(*) from sales where log_index is not null").fetchone()[0]
print(f"public log: {records} records ({logged} sales logged so far), "
      f"{leaf_bytes / max(records, 1):.0f} leaf bytes and {hashes / max(records, 1):.2f} "
      f"stored hashes of 32 bytes per record")
lags = [r[0] for r in db.execute(
    "select s.received_at_ms - c.signed_at_ms from log_cosignatures s "
    "join log_checkpoints c on c.size = s.size order by 1")]
if lags:
    print(f"checkpoint to cosignature: median {lags[len(lags) // 2]} ms, "
          f"max {lags[-1]} ms over {len(lags)} checkpoints")
PY
