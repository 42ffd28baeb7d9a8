#!/usr/bin/env bash
# Sets up, builds and runs Eldorado locally: the game server on an embedded
# SQLite database (./data) in demo mode (--demo), serving the game on
# localhost, with its witness and the randomness beacon that deals tickets.
#   ADDR=127.0.0.1:9000 scripts/run.sh   to use another address
#   BEACON_ADDR=127.0.0.1:9001           another address for the beacon
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
# The demo's randomness beacon (docs/PROTOCOL.md §10): a separate process
# with its own key (./data/beacon), whose rounds, published every 500 ms
# after each purchase is on the record, deal every ticket. In production,
# a drand relay of the League of Entropy's quicknet takes its place.
beacon_addr=${BEACON_ADDR:-127.0.0.1:8090}
mkdir -p -m 700 data/beacon
"$bin" beacon --key-file data/beacon/beacon.key --period-ms 500 --listen "$beacon_addr" \
    > data/beacon/beacon.log 2>&1 &
beacon=$!
trap 'kill "$witness" "$beacon" 2>/dev/null || true' EXIT
beacon_key=""
for _ in $(seq 100); do
    if grep -q '^beacon listening on' data/beacon/beacon.log; then
        beacon_key=$(sed -n 's/^beacon key: //p' data/beacon/beacon.log)
        break
    fi
    sleep 0.1
done
if [ -z "$beacon_key" ]; then
    echo "run: the beacon did not start (data/beacon/beacon.log):" >&2
    cat data/beacon/beacon.log >&2
    exit 1
fi
echo
echo "  Eldorado is starting: open http://$addr/ in your browser (Ctrl-C stops it)."
echo "  Its public record is cosigned by the demo witness $key"
echo "  Its tickets are dealt by the demo beacon http://$beacon_addr"
echo
# --demo: the page creates play-money players, who play from play-money
# blocks of their own (real-money blocks are kept for operator players).
"$bin" serve --addr "$addr" --data ./data --web . --demo --witness "$key" \
    --beacon "http://$beacon_addr" --beacon-key "$beacon_key"
