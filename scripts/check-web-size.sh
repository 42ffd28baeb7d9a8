#!/usr/bin/env bash
# Fails when the first download of the release bundle in www/pkg/ (built by
# scripts/build-web.sh) weighs more than its ceiling as served, gzip: the
# page (which carries the module), its icon, stylesheet and scripts, each counted as the .gz
# form scripts/hash-web.sh stores beside it and the server sends as it is
# (the icon, not precompressed, at gzip -6), and the page's trust policy
# once scripts/page-policy.sh wrote it (sent as it is, not compressed). So the bundle cannot grow
# unnoticed. Prints each file raw, at gzip -6, as served (gzip) and as
# brotli (.br, what a browser accepting it is sent).
#   scripts/check-web-size.sh        (after scripts/build-web.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

ceiling=220000
page=www/pkg/index.html
[ -f "$page" ] || { echo "check-web-size: no $page: run scripts/build-web.sh first" >&2; exit 1; }

total6=0; served=0; brotli=0
# The files the page's head names (the module among them when the page
# does not carry it, scripts/hash-web.sh), each once.
named=$(sed -n '1,/<\/head>/p' "$page" | grep -o 'www/pkg/[^"]*')
policy=www/pkg/page-policy.json
[ -f "$policy" ] || policy=
for f in $(printf '%s\n' "$page" www/icon.svg $named $policy | awk '!seen[$0]++'); do
    raw=$(wc -c <"$f"); g6=$(gzip -6 -c "$f" | wc -c)
    if [ -f "$f.gz" ]; then wire=$(wc -c <"$f.gz"); elif [ "$f" = "$policy" ]; then wire=$raw; else wire=$g6; fi
    if [ -f "$f.br" ]; then br=$(wc -c <"$f.br"); else br=$g6; fi
    total6=$((total6 + g6)); served=$((served + wire)); brotli=$((brotli + br))
    printf "%-46s %8d raw %8d gz-6 %8d served %8d br\n" "$f" "$raw" "$g6" "$wire" "$br"
done
printf "%-46s %8s     %8d gz-6 %8d served %8d br  (ceiling %d bytes served)\n" \
    "TOTAL" "" "$total6" "$served" "$brotli" "$ceiling"
# Not in the first download: the check of the beacon's rounds, which the
# game loads once it runs (crates/beacon-check), reported for the record.
for f in www/pkg/eldorado_beacon_check-*.js www/pkg/eldorado_beacon_check_bg-*.wasm; do
    case $f in *.br|*.gz) continue ;; esac
    [ -f "$f" ] || continue
    printf "%-46s %8d raw %8s      %8d served %8d br  (loaded after)\n" "$f" "$(wc -c <"$f")" "" \
        "$(wc -c <"$f.gz")" "$(wc -c <"$f.br")"
done
if [ "$served" -gt "$ceiling" ]; then
    echo "check-web-size: the first download is $served bytes gzip as served, over its ceiling of $ceiling" >&2
    exit 1
fi
