#!/usr/bin/env bash
# Sets up, builds and runs Eldorado locally: the game server on an embedded
# SQLite database (./data) in demo mode (--demo), serving the game on localhost.
#   ADDR=127.0.0.1:9000 scripts/run.sh   to use another address
set -euo pipefail
cd "$(dirname "$0")/.."
addr=${ADDR:-127.0.0.1:8080}
scripts/setup.sh
scripts/build-web.sh
cargo build --release -p eldorado-cli
bin=${ELDORADO_BIN:-target/release/eldorado}
# The demo's own witness of the public record (docs/OPERATOR.md, "The
# public record"): a separate process that cosigns the log's checkpoints;
# the page trusts only checkpoints it cosigned. Its key and state live in
# ./data/witness, so that removing ./data starts both afresh.
mkdir -p -m 700 data data/witness
umask 077
"$bin" witness --log "http://$addr" --key-file data/witness/witness.key \
    --state data/witness --name eldorado-demo-witness --poll-ms 250 \
    > data/witness/witness.log 2>&1 &
witness=$!
trap 'kill "$witness" 2>/dev/null || true' EXIT
key=""
for _ in $(seq 100); do
    key=$(sed -n 's/^witness key: //p' data/witness/witness.log)
    [ -n "$key" ] && break
    sleep 0.1
done
if [ -z "$key" ]; then
    echo "run: the witness did not start (data/witness/witness.log):" >&2
    cat data/witness/witness.log >&2
    exit 1
fi
echo
echo "  Eldorado is starting: open http://$addr/ in your browser (Ctrl-C stops it)."
echo "  Its public record is cosigned by the demo witness $key"
echo
# --demo: the page creates play-money players, who play from play-money
# blocks of their own (real-money blocks are kept for operator players).
"$bin" serve --addr "$addr" --data ./data --web . --demo --witness "$key"
