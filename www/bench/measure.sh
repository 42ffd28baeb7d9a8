#!/usr/bin/env bash
# Measures the browser game's budget (docs/BENCHMARKS.md, "## Browser"):
#  1. first download, gzip-compressed: HTML, CSS, JS, glue, wasm, icon;
#  2. time to verify one sale in headless Chromium;
#  3. reveal frame times with the CPU throttled 4x (www/bench/frames.py);
#  4. with ELDORADO_GAME_URL, a sale's wait on that server (www/bench/sale_latency.py),
#     and the time to « Jouer » on a phone network (www/bench/time_to_play.py).
# Usage: www/bench/measure.sh   (from anywhere; needs wasm-pack, chromium)
set -euo pipefail
cd "$(dirname "$0")/../.."

echo "== size (release bundle: the files of the first download, gzip -6, as served, brotli)"
# "served": the .gz form scripts/hash-web.sh stores beside each hashed file,
# which the server sends as it is to a browser accepting gzip; the ceiling
# is checked on it (scripts/check-web-size.sh, also run by scripts/test.sh).
# www/bench/download.py URL gzip|br fetches the same files from a running server.
scripts/build-web.sh >/dev/null 2>&1
scripts/check-web-size.sh || echo "(over the ceiling: the figures below still follow)"

echo "== speed (verify one sale, headless Chromium)"
work=$(mktemp -d)
trap 'kill "${server:-0}" 2>/dev/null || true; rm -rf "$work"' EXIT
# Built as scripts/build-web.sh builds the shipped bundle (its profile on
# the stable compiler, then its wasm-opt passes), with the benchmark's exports.
wasm-pack build --profile wasm-release --target web --out-dir "$work/pkg" --no-typescript --no-pack . -- -p eldorado-web --features bench \
  >/dev/null 2>&1
opt=${WASM_OPT:-${ELDORADO_TOOLS:-$HOME/.cache/eldorado-tools}/binaryen/node_modules/.bin/wasm-opt}
if [ -x "$opt" ]; then
  "$opt" --flatten --rereloop -Oz -Oz --converge --strip-producers --low-memory-unused --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals \
    --enable-reference-types --enable-multivalue "$work/pkg/eldorado_web_bg.wasm" -o "$work/pkg/eldorado_web_bg.wasm"
fi
cp www/bench/bench.html www/bench/bench.js "$work/"
port=$((20000 + RANDOM % 20000))
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$work" >/dev/null 2>&1 &
server=$!
sleep 1
timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
  --disable-sync --no-first-run --enable-logging=stderr --v=0 "http://127.0.0.1:$port/bench.html" 2>&1 \
  | grep -m1 -o 'RESULT verify[^"]*\|ERROR [^"]*' || true

echo "== reveal frames (CPU throttled 4x through CDP, headless Chromium)"
# ELDORADO_GAME_URL=http://127.0.0.1:8080/ (a running `eldorado serve --demo`
# serving this bundle) also times the whole game and its time to interactive.
cp www/bench/frames.html www/bench/frames.js "$work/"
python3 www/bench/frames.py "http://127.0.0.1:$port/frames.html" ${ELDORADO_GAME_URL:-}

echo "== a sale's wait, from the request to the verified sale (ELDORADO_GAME_URL)"
# With a server that deals by a beacon (scripts/run.sh does), this is the
# wait between « Jouer » and the first column: the round that deals the
# purchase. Without ELDORADO_GAME_URL, nothing is measured here.
if [ -n "${ELDORADO_GAME_URL:-}" ]; then
  python3 www/bench/sale_latency.py "$ELDORADO_GAME_URL" 60
else
  echo "(set ELDORADO_GAME_URL to measure it)"
fi

echo "== time to « Jouer », cold, Fast 3G and the CPU 4x slower (ELDORADO_GAME_URL)"
if [ -n "${ELDORADO_GAME_URL:-}" ]; then
  python3 www/bench/time_to_play.py "$ELDORADO_GAME_URL" 5
else
  echo "(set ELDORADO_GAME_URL to measure it)"
fi
