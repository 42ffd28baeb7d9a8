#!/usr/bin/env bash
# Runs the operator integration of docs/OPERATOR.md on this machine: the
# game server in seamless-wallet mode and the example operator
# (examples/portal), each on its own origin, then prints the portal's URL.
# Ctrl-C stops both.
#   PORTAL_ADDR=127.0.0.1:8090  the example portal (http://127.0.0.1:8090)
#   GAME_ADDR=127.0.0.1:8080    the game server, reached as http://localhost:8080
#   PORTAL_DATA=./data-portal   secrets, the game's data and the portal's database
#   BEACON_ADDR=127.0.0.1:8091  the game's randomness beacon
# The game runs as an operator would run it: its public record cosigned by
# a witness, its tickets dealt by a beacon, and the page believing those
# two only (scripts/demo-trust.sh).
# The wallet secret and the operator API key are generated on the first run
# (mode 0600) and kept in $PORTAL_DATA, so balances survive a restart.
set -euo pipefail
cd "$(dirname "$0")/.."

portal_addr=${PORTAL_ADDR:-127.0.0.1:8090}
game_addr=${GAME_ADDR:-127.0.0.1:8080}
data=${PORTAL_DATA:-./data-portal}
portal_url="http://$portal_addr"
# "localhost" rather than the portal's 127.0.0.1: the game is on another
# origin than the portal, as it is in production.
game_url="http://localhost:${game_addr##*:}"

[ -f www/pkg/page-manifest.json ] || scripts/build-web.sh
# The dev profile: Cargo.toml optimises the engine and every dependency in
# it too, and scripts/e2e.sh builds the same binaries.
cargo build -p eldorado-cli -p eldorado-portal-example
target_dir=$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')

mkdir -p "$data/game"
new_secret() { # 32 random bytes as 64 lowercase hex digits, readable by us only
    [ -s "$1" ] && return
    (umask 077 && od -An -N32 -tx1 /dev/urandom | tr -d ' \n' >"$1")
}
new_secret "$data/wallet.secret"
# The game server reads its operator API key from this file (it would
# create one itself; made here so that the portal has it before it starts).
new_secret "$data/game/operator-api.key"

pids=()
stop() {
    trap - INT TERM EXIT
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
}
trap 'stop; exit 130' INT
trap 'stop; exit 143' TERM
trap stop EXIT

# shellcheck source=scripts/demo-trust.sh
source scripts/demo-trust.sh
start_demo_trust "$target_dir/debug/eldorado" "$data" "http://$game_addr" \
    "${BEACON_ADDR:-127.0.0.1:8091}" "${WITNESS_ADDR:-127.0.0.1:8093}"

"$target_dir/debug/eldorado" serve \
    --addr "$game_addr" --data "$data/game" --web . \
    --witness "$witness_key" --witness-url "$witness_url" --deal-lead-ms 0 \
    --beacon "$beacon_url" --beacon-key "$beacon_key" \
    --public-url "$game_url" \
    --frame-ancestors "'self' $portal_url" \
    --wallet "$portal_url/wallet" --wallet-secret-file "$data/wallet.secret" &
game=$!
pids+=("$game")

echo "portal.sh: waiting for the game server (the first start generates its blocks)..."
until curl -fsS -o /dev/null "$game_url/api/health"; do
    kill -0 "$game" 2>/dev/null || { echo "portal.sh: the game server stopped" >&2; exit 1; }
    sleep 1
done

"$target_dir/debug/eldorado-portal" \
    --addr "$portal_addr" --public-url "$portal_url" \
    --game-url "http://$game_addr" --game-public-url "$game_url" \
    --operator-key-file "$data/game/operator-api.key" \
    --wallet-secret-file "$data/wallet.secret" \
    --database "$data/portal.sqlite3" &
pids+=($!)

echo
echo "  The example operator portal: open $portal_url/ (the game runs on $game_url)."
echo "  Log in with any name; Ctrl-C stops both servers."
echo
wait -n "${pids[@]}" || true
echo "portal.sh: a server stopped; stopping the other" >&2
exit 1
