#!/usr/bin/env bash
# Writes www/pkg/page-manifest.json, the list of every file the server may
# serve and its SHA-256: the page the build made (www/pkg/index.html), its
# content-hashed files, their precompressed forms, the rules pages, the
# icon and the page's trust policy (scripts/page-policy.sh) once written. The server reads and checks these files at start and serves them
# from memory; nothing else under the web root is ever served, and a file
# changed since the build stops it from starting (docs/OPERATOR.md, "The
# page"). Run by scripts/build-web.sh, last, and by scripts/page-policy.sh.
#   WEB_ROOT=<dir>   a copy of the built page elsewhere (default: here)
set -euo pipefail
cd "$(dirname "$0")/.."
cd "${WEB_ROOT:-.}"

pkg=www/pkg
out=$pkg/page-manifest.json
[ -f "$pkg/index.html" ] || { echo "page-manifest: no $pkg/index.html (scripts/hash-web.sh writes it)" >&2; exit 1; }
shopt -s nullglob
hashed='-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'
files=("$pkg/index.html")
for f in "$pkg"/*$hashed.js "$pkg"/*$hashed.css "$pkg"/*$hashed.wasm "$pkg"/rules-fr.html "$pkg"/rules-en.html www/icon.svg "$pkg"/page-policy.json; do
    files+=("$f")
done
listed=()
for f in "${files[@]}"; do
    [ -f "$f" ] || continue
    listed+=("$f")
    for variant in "$f.br" "$f.gz"; do
        [ -f "$variant" ] && listed+=("$variant")
    done
done
{
    printf '{"files": {'
    sep=
    for f in "${listed[@]}"; do
        printf '%s\n  "%s": "%s"' "$sep" "$f" "$(sha256sum "$f" | cut -d' ' -f1)"
        sep=,
    done
    printf '\n}}\n'
} >"$out.tmp"
mv "$out.tmp" "$out"
echo "page-manifest: $out lists ${#listed[@]} files"
