#!/usr/bin/env bash
# Sets up, builds and runs Eldorado locally: the game server on an embedded
# SQLite database (./data) in demo mode (--demo), serving the game on
# localhost, with its witness and the randomness beacon that deals tickets.
#   ADDR=127.0.0.1:9000 scripts/run.sh   to use another address
#   BEACON_ADDR=127.0.0.1:9001           another address for the beacon
#   WITNESS_ADDR=127.0.0.1:9002          another address for the witness
set -euo pipefail
cd "$(dirname "$0")/.."
addr=${ADDR:-127.0.0.1:8080}
scripts/setup.sh
scripts/build-web.sh
cargo build --release -p eldorado-cli
bin=${ELDORADO_BIN:-target/release/eldorado}
# The demo's own witness of the public record (a separate process that
# cosigns the log's checkpoints) and randomness beacon (whose rounds deal
# every ticket), and the page's policy naming them (scripts/demo-trust.sh).
# shellcheck source=scripts/demo-trust.sh
source scripts/demo-trust.sh
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
start_demo_trust "$bin" data "http://$addr" "${BEACON_ADDR:-127.0.0.1:8090}" \
    "${WITNESS_ADDR:-127.0.0.1:8092}"
echo
echo "  Eldorado is starting: open http://$addr/ in your browser (Ctrl-C stops it)."
echo "  Its public record is cosigned by the demo witness $witness_key"
echo "  Its tickets are dealt by the demo beacon $beacon_url"
echo
umask 077
# --demo: the page creates play-money players, who play from play-money
# blocks of their own (real-money blocks are kept for operator players).
# Each checkpoint is pushed to the witness, which cosigns it at once: a
# purchase names the first round after the second it is bought in
# (--deal-lead-ms 0), and one cosigned too late for it is dealt by the
# next (docs/PROTOCOL.md §10).
"$bin" serve --addr "$addr" --data ./data --web . --demo --witness "$witness_key" \
    --witness-url "$witness_url" --deal-lead-ms 0 \
    --beacon "$beacon_url" --beacon-key "$beacon_key"
