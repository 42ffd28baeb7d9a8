#!/usr/bin/env bash
# Time from a purchase's request to its dealt sale (issue 43 item 4): the
# release server on SQLite with its own demo beacon (500 ms rounds) and
# witness, BUYERS demo players each buying N tickets with pauses of 0-2 s
# (www/bench/sale_latency.py), then `eldorado log audit` with the
# witness's publication. PUSH=1 (the default game's way) pushes each
# checkpoint to the witness (--witness-url); PUSH=0 leaves the witness to
# poll every 250 ms.
#   bench/run-sale-latency-bench.sh [N=40] [BUYERS=1]
#   LEAD_MS=500 PUSH=0 bench/run-sale-latency-bench.sh 40 1   before push
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-40} buyers=${2:-1} lead=${LEAD_MS:-0} push=${PUSH:-1}
cargo build --release -p eldorado-cli
bin=target/release/eldorado
dir=$(mktemp -d)
pids=()
stop() {
    kill "${pids[@]}" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$dir"
}
trap stop EXIT
"$bin" beacon --key-file "$dir/beacon.key" --period-ms 500 --listen 127.0.0.1:8190 \
    >"$dir/beacon.log" 2>&1 &
pids+=($!)
"$bin" witness --log http://127.0.0.1:8180 --key-file "$dir/witness.key" --state "$dir/witness" \
    --poll-ms 250 --listen 127.0.0.1:8191 >"$dir/witness.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do
    grep -q "witness key:" "$dir/witness.log" && grep -q "beacon key:" "$dir/beacon.log" && break
    sleep 0.1
done
witness_key=$(sed -n 's/^witness key: //p' "$dir/witness.log")
beacon_key=$(sed -n 's/^beacon key: //p' "$dir/beacon.log")
push_flags=()
[ "$push" = 1 ] && push_flags=(--witness-url http://127.0.0.1:8191)
"$bin" serve --addr 127.0.0.1:8180 --data "$dir/data" --web . --demo \
    --witness "$witness_key" "${push_flags[@]}" --deal-lead-ms "$lead" \
    --beacon http://127.0.0.1:8190 --beacon-key "$beacon_key" \
    --demo-players-per-minute 1000 >"$dir/server.log" 2>&1 &
pids+=($!)
for _ in $(seq 600); do
    curl -sf http://127.0.0.1:8180/api/health >/dev/null && break
    sleep 0.2
done
echo "lead ${lead} ms, push ${push}"
python3 www/bench/sale_latency.py http://127.0.0.1:8180 "$n" "$buyers"
"$bin" log audit http://127.0.0.1:8180 --witness-url http://127.0.0.1:8191 2>/dev/null | tail -1
