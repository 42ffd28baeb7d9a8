#!/usr/bin/env bash
# Holds the running server to its own OpenAPI document: schemathesis
# (--checks all) generates requests from /api/openapi.json, with a player's
# and with the operator's credentials, and fails on any server error, any
# answer the document does not describe, any schema-valid request refused
# or any schema-violating one accepted.
#   scripts/api-conformance.sh                 (uses target/debug/eldorado, built if missing)
#   ELDORADO_BIN=path/to/eldorado scripts/api-conformance.sh
# Needs schemathesis: scripts/setup.sh --test installs it.
set -euo pipefail
cd "$(dirname "$0")/.."

tools=${ELDORADO_TOOLS:-$HOME/.cache/eldorado-tools}
st=$tools/schemathesis/bin/st
[ -x "$st" ] || { echo "api-conformance: schemathesis is missing (run scripts/setup.sh --test)" >&2; exit 1; }
bin=${ELDORADO_BIN:-${CARGO_TARGET_DIR:-target}/debug/eldorado}
[ -x "$bin" ] || cargo build -q -p eldorado-cli

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
base=http://127.0.0.1:$port
data=$(mktemp -d /tmp/eldorado-conformance.XXXXXX)
# The per-address limits are lifted (every generated request comes from one
# address), and the documented examples' lobby URL is on an allowed portal.
"$bin" serve --addr "127.0.0.1:$port" --data "$data" --web . --demo \
    --frame-ancestors "'self' https://casino.example" \
    --demo-players-per-minute 1000000 --sales-per-second 1000000 --launches-per-minute 1000000 \
    >"$data/server.log" 2>&1 &
server=$!
# A server still generating blocks may take long to stop: it gets 10 s.
stop() {
    kill $server 2>/dev/null || return 0
    for _ in $(seq 1 20); do kill -0 $server 2>/dev/null || break; sleep 0.5; done
    kill -9 $server 2>/dev/null || true
    wait $server 2>/dev/null || true
    rm -rf "$data"
}
trap stop EXIT
for _ in $(seq 1 600); do
    curl -sf "$base/api/health" >/dev/null && break
    kill -0 $server 2>/dev/null || { cat "$data/server.log"; exit 1; }
    sleep 0.5
done
curl -sf "$base/api/health" >/dev/null || { echo "api-conformance: the server never became healthy" >&2; exit 1; }

demo_token() {
    curl -sf -X POST "$base/api/demo/players" -H 'content-type: application/json' -d '{}' |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])'
}
run() {
    echo "== schemathesis: $1"
    shift
    "$st" --config-file scripts/api-conformance.toml run "$base/api/openapi.json" \
        --checks all --max-examples "${CONFORMANCE_EXAMPLES:-40}" --seed 20261203 \
        --generation-deterministic --no-color "$@"
}
failed=0
# Ending the session or excluding the player would turn every later request
# of the same player into 401 or 403: each has a player of its own.
run "player" -H "Authorization: Bearer $(demo_token)" \
    --exclude-path-regex '^/api/operator/' --exclude-operation-id-regex 'end_session|post_exclusion' || failed=1
run "player, exclusion" -H "Authorization: Bearer $(demo_token)" --include-operation-id-regex 'post_exclusion' || failed=1
run "player, sign-out" -H "Authorization: Bearer $(demo_token)" --include-operation-id-regex 'end_session' || failed=1
run "operator" -H "Authorization: Bearer $(cat "$data/operator-api.key")" --include-path-regex '^/api/operator/' || failed=1
if [ "$failed" != 0 ]; then
    echo "api-conformance: the server and its OpenAPI document disagree (above)" >&2
    exit 1
fi
echo "api-conformance: no failures"
