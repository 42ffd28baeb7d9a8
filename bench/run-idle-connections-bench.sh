#!/usr/bin/env bash
# Issue 23, item 1: a player plays while thousands of idle, half-open and
# h2c-idle connections are held against the real server on loopback.
# Usage: bench/run-idle-connections-bench.sh [IDLE=4200] [HALF_OPEN=2000] [H2C=0] [SOURCES=1] [PLAYS=300] [PER_SECOND=10] [CLIENTS=1] [shared]
# With `shared`, the player's CLIENTS clients connect from the attackers'
# first address (one NAT; issue 49, item 4):
#   bench/run-idle-connections-bench.sh 700 0 0 1 95 10 20 shared
# Builds the release binary and the load program
# (crates/server/examples/idle_connections.rs), starts `eldorado serve
# --demo` with its default limits on a fresh data directory, and prints
# how many plays succeeded and their latency. The attackers connect from
# SOURCES addresses of 127.0.0.0/8 (from 127.0.0.10), the player from
# 127.0.0.2; both sides need about IDLE+HALF_OPEN+H2C file descriptors.
set -euo pipefail
cd "$(dirname "$0")/.."
IDLE=${1:-4200}
HALF_OPEN=${2:-2000}
H2C=${3:-0}
SOURCES=${4:-1}
PLAYS=${5:-300}
PER_SECOND=${6:-10}
CLIENTS=${7:-1}
SHARED=${8:-}
ADDR=127.0.0.1:${BENCH_PORT:-18089}
DATA=$(mktemp -d /tmp/eldorado-idle-bench.XXXXXX)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
cargo build --release -q -p eldorado-cli
cargo build --release -q -p eldorado-server --example idle_connections
BIN="$CARGO_TARGET_DIR/release/eldorado"
ulimit -n "$(ulimit -Hn)"
"$BIN" serve --addr "$ADDR" --data "$DATA/data" --demo > "$DATA/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null || true; rm -rf "$DATA"' EXIT
for _ in $(seq 1 600); do
  curl -sf "http://$ADDR/api/config" > /dev/null && break
  sleep 0.5
done
"$CARGO_TARGET_DIR/release/examples/idle_connections" "$ADDR" "$IDLE" "$HALF_OPEN" "$H2C" \
  "$SOURCES" "$PLAYS" "$PER_SECOND" "$CLIENTS" $SHARED
