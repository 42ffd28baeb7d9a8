#!/usr/bin/env bash
# Writes the built page's trust policy, www/pkg/page-policy.json: the
# witnesses whose cosignatures the page requires on the public record, how
# many of them, and the beacon that deals the tickets (or none: dealt in
# order). The page reads only this file for them, never the server's
# answers, which it only compares with it (docs/PROTOCOL.md, "Who the page
# believes"); a page with no policy does not start. The file is part of the
# build: the page's manifest is written again to list it with its hash.
#   scripts/page-policy.sh --witness <vkey> [--witness <vkey>…] [--quorum N]
#       [--beacon-key <hex> [--beacon-genesis-ms MS] [--beacon-period-ms MS]]
#   WEB_ROOT=<dir>   a copy of the built page elsewhere (default: here)
# Quorum: all the witnesses by default. A beacon's schedule defaults to
# `eldorado beacon`'s (genesis 0, 500 ms).
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { echo "page-policy: $*" >&2; exit 2; }
witnesses=() quorum= beacon_key= genesis_ms=0 period_ms=500
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || fail "$1 needs a value"
    case $1 in
        --witness) witnesses+=("$2") ;;
        --quorum) quorum=$2 ;;
        --beacon-key) beacon_key=$2 ;;
        --beacon-genesis-ms) genesis_ms=$2 ;;
        --beacon-period-ms) period_ms=$2 ;;
        *) fail "unknown option $1" ;;
    esac
    shift 2
done
[ ${#witnesses[@]} -gt 0 ] || fail "at least one --witness is needed: a page trusts no checkpoint without"
quorum=${quorum:-${#witnesses[@]}}
[[ $quorum =~ ^[1-9][0-9]*$ ]] && [ "$quorum" -le ${#witnesses[@]} ] ||
    fail "--quorum must be between 1 and the number of witnesses (${#witnesses[@]})"
for w in "${witnesses[@]}"; do
    # A cosignature verifier key: <name>+<8 hex digits>+<base64>.
    [[ $w =~ ^[^+\"\\[:space:]]+\+[0-9a-f]{8}\+[A-Za-z0-9+/=]+$ ]] || fail "not a witness key: $w"
done
if [ -n "$beacon_key" ]; then
    [[ $beacon_key =~ ^[0-9a-f]{192}$ ]] || fail "--beacon-key must be 96 bytes in lowercase hex"
    [[ $genesis_ms =~ ^[0-9]+$ ]] || fail "--beacon-genesis-ms must be a number of milliseconds"
    [[ $period_ms =~ ^[1-9][0-9]*$ ]] || fail "--beacon-period-ms must be a number of milliseconds above 0"
    beacon="{\"public_key\": \"$beacon_key\", \"genesis_time_ms\": $genesis_ms, \"period_ms\": $period_ms}"
else
    beacon=null
fi

root=${WEB_ROOT:-.}
pkg=$root/www/pkg
[ -f "$pkg/index.html" ] || fail "no built page in $pkg (scripts/build-web.sh builds it)"
list=$(printf '"%s", ' "${witnesses[@]}")
printf '{"witnesses": [%s], "quorum": %s, "beacon": %s}\n' "${list%, }" "$quorum" "$beacon" >"$pkg/page-policy.json.tmp"
mv "$pkg/page-policy.json.tmp" "$pkg/page-policy.json"
echo "page-policy: $pkg/page-policy.json: ${#witnesses[@]} witness(es), quorum $quorum, beacon ${beacon_key:+${beacon_key:0:16}…}${beacon_key:-none (dealt in order)}"
WEB_ROOT=$root scripts/page-manifest.sh
