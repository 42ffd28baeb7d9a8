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
echo
echo "  Eldorado is starting: open http://$addr/ in your browser (Ctrl-C stops it)."
echo
# --demo: the page creates play-money players, who play from play-money
# blocks of their own (real-money blocks are kept for operator players).
exec target/release/eldorado serve --addr "$addr" --data ./data --web . --demo
