#!/usr/bin/env bash
# Where a sale's server CPU goes (issue 47): runs bench/run-server-bench.sh
# and samples the server with perf while wrk runs (from 3 s into the run
# to 5 s before its end), then prints the functions with the most CPU of
# their own, by binary and symbol, and that CPU per sale by part of the
# server (bench/profile-buckets.py).
# Usage: bench/profile-sale.sh OUT_PREFIX [DURATION=30s] [CONNECTIONS=4096]
#   BENCH_BEACON=1 BENCH_WITNESS=1 WRK_ARGS="--timeout 10s"   dealt by the beacon
# Writes OUT_PREFIX.bench.log (the benchmark's own figures) and
# OUT_PREFIX.perf.data (for `perf report -i`). Needs perf, as root or with
# kernel.perf_event_paranoid <= 1.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: bench/profile-sale.sh OUT_PREFIX [DURATION] [CONNECTIONS]}
duration=${2:-30s}
connections=${3:-4096}
seconds=${duration%s}
[ "$seconds" -gt 10 ] || { echo "profile-sale: a run of more than 10 s, please" >&2; exit 2; }
log=$out.bench.log
bench/run-server-bench.sh "$duration" "$connections" >"$log" 2>&1 &
bench=$!
until grep -q "running wrk" "$log"; do
    kill -0 "$bench" 2>/dev/null || { cat "$log" >&2; exit 1; }
    sleep 1
done
sleep 3
server=$(pgrep -f "eldorado serve --addr 127.0.0.1:${BENCH_PORT:-18088}" | head -1)
perf record -F 499 -p "$server" -o "$out.perf.data" -- sleep $((seconds - 8)) 2>/dev/null
wait "$bench"
grep -E "Requests/sec|Latency|99%|server CPU|non-2xx|Socket errors|sales recorded" -A1 "$log" | grep -v "^--$"
perf report -i "$out.perf.data" --no-children --sort dso,symbol --percent-limit 0.8 --stdio 2>/dev/null |
    grep -v '^#' | grep -v '^$' | head -45
cores=$(sed -n 's/^server CPU: \([0-9.]*\) cores.*/\1/p' "$log")
plays=$(sed -n 's/^plays\/s \([0-9]*\) .*/\1/p' "$log")
bench/profile-buckets.py "$out.perf.data" "$cores" "$plays"
