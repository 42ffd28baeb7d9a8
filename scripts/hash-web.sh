#!/usr/bin/env bash
# Gives the release bundle in www/pkg/ content-hashed names and writes the
# page that loads them, www/pkg/index.html (the server serves it at / when
# present, else the source index.html). A hashed file never changes under
# its name, so the server lets browsers keep it a year (Cache-Control
# immutable); the page itself is revalidated on every load (no-cache) and
# names the new files after each build. Run by scripts/build-web.sh.
#   www/pkg/eldorado_web_bg-<hash>.wasm   the module, without node only (see below)
#   www/pkg/eldorado_web-<hash>.js        the glue, loading that module
#   www/pkg/eldorado_beacon_check_bg-<hash>.wasm   the check of the beacon's rounds
#   www/pkg/eldorado_beacon_check-<hash>.js        its glue, loading that module
#   www/pkg/main-<hash>.js                www/main.js, importing both glues, minified (terser)
#   www/pkg/style-<hash>.css              www/style.css, minified (csso)
# With node, the page carries the module itself (below), and no hashed
# module file is left: nothing would fetch it.
# <hash>: the first 16 hex digits of the file's SHA-256. The unhashed files
# stay beside them for the tools that read the bundle by name
# (www/bench/measure.sh, the source index.html).
# Each of these files also gets its brotli (.br, quality 11) and gzip
# (.gz, zopfli or else level 9) forms, which the server sends as the browser accepts:
# compressed once here at the best level, never per request. Only files
# written here are precompressed, so none can go stale beside its source.
set -euo pipefail
cd "$(dirname "$0")/.."

pkg=www/pkg
# The minifiers scripts/setup.sh installs (as scripts/build-web.sh finds them).
tools=${ELDORADO_TOOLS:-$HOME/.cache/eldorado-tools}
fail() { echo "hash-web: $*" >&2; exit 1; }
hash16() { sha256sum "$1" | cut -c1-16; }
# Names to replace, each checked to be there: a change of wasm-bindgen's
# glue or of the page must not silently leave the old names in place.
needs() { grep -qF "$1" "$2" || fail "$2 no longer mentions $1"; }

rm -f "$pkg"/eldorado_web_bg-*.wasm* "$pkg"/eldorado_web-*.js* "$pkg"/main-*.js* "$pkg"/style-*.css* "$pkg"/index.html* \
    "$pkg"/eldorado_beacon_check_bg-*.wasm* "$pkg"/eldorado_beacon_check-*.js*

# Gives module <name>_bg.wasm and its glue <name>.js (which names the
# module) their hashed names; sets $wasm and $glue to them.
hash_module() {
    wasm=$1_bg-$(hash16 "$pkg/$1_bg.wasm").wasm
    cp "$pkg/$1_bg.wasm" "$pkg/$wasm"
    needs "'$1_bg.wasm'" "$pkg/$1.js"
    sed "s/'$1_bg\.wasm'/'$wasm'/" "$pkg/$1.js" >"$pkg/glue.tmp"
    glue=$1-$(hash16 "$pkg/glue.tmp").js
    mv "$pkg/glue.tmp" "$pkg/$glue"
}
hash_module eldorado_beacon_check
check_wasm=$wasm check_glue=$glue
hash_module eldorado_web

needs '"./pkg/eldorado_web.js"' www/main.js
needs '"./pkg/eldorado_beacon_check.js"' www/main.js
sed -e "s#\"./pkg/eldorado_web\.js\"#\"./$glue\"#" \
    -e "s#\"./pkg/eldorado_beacon_check\.js\"#\"./$check_glue\"#" www/main.js >"$pkg/main.tmp"
# Minified like the glue (its comments are for readers of www/main.js).
terser=$tools/terser/node_modules/.bin/terser
if [ -x "$terser" ]; then
    "$terser" "$pkg/main.tmp" --module --compress --mangle -o "$pkg/main.min.tmp"
    mv "$pkg/main.min.tmp" "$pkg/main.tmp"
else
    echo "hash-web: no terser (run scripts/setup.sh): www/main.js is not minified" >&2
fi
main=main-$(hash16 "$pkg/main.tmp").js
mv "$pkg/main.tmp" "$pkg/$main"

# The stylesheet, minified by csso when scripts/setup.sh could install it
# (comments and spaces only: no rule is merged or moved).
csso=$tools/csso/node_modules/.bin/csso
if [ -x "$csso" ]; then
    "$csso" www/style.css --no-restructure --output "$pkg/style.tmp"
else
    echo "hash-web: no csso (run scripts/setup.sh): the stylesheet is not minified" >&2
    cp www/style.css "$pkg/style.tmp"
fi
style=style-$(hash16 "$pkg/style.tmp").css
mv "$pkg/style.tmp" "$pkg/$style"

needs '"www/pkg/eldorado_web.js"' index.html
needs '"www/main.js"' index.html
needs '"www/style.css"' index.html
needs '"www/pkg/eldorado_web_bg.wasm"' index.html
sed -e "s#\"www/pkg/eldorado_web\.js\"#\"www/pkg/$glue\"#" \
    -e "s#\"www/pkg/eldorado_web_bg\.wasm\"#\"www/pkg/$wasm\"#" \
    -e "s#\"www/main\.js\"#\"www/pkg/$main\"#" \
    -e "s#\"www/style\.css\"#\"www/pkg/$style\"#" index.html >"$pkg/index.html"
echo "hash-web: $pkg/index.html loads $main, $glue, $wasm, $style; then $check_glue, $check_wasm"

if ! command -v node >/dev/null; then
    echo "hash-web: no node (scripts/setup.sh installs it): the page fetches its module, the server compresses on the fly" >&2
    exit 0
fi

# The page carries the module in its empty `eldorado-module` block instead
# of preloading it: on a phone network that is a round trip less before
# « Jouer » (docs/BENCHMARKS.md, 2026-12-06). One character per byte, so
# that brotli and gzip still find the module's repeats (base64 would cost
# a third more compressed); the three bytes a script block cannot hold as
# themselves (NUL, CR, "<") are written as U+0100 + byte. www/main.js reads
# it back. The hashed module file is then named by nothing: it goes, and
# is not compressed for nothing (the unhashed one stays for the tools).
needs '<script type="application/octet-stream" id="eldorado-module"></script>' "$pkg/index.html"
needs "<link rel=\"preload\" href=\"www/pkg/$wasm\"" "$pkg/index.html"
node - "$pkg/$wasm" "$pkg/index.html" <<'JS'
const fs = require("fs");
const [wasmFile, pageFile] = process.argv.slice(2);
const bytes = fs.readFileSync(wasmFile);
let text = "";
for (const b of bytes) {
  text += String.fromCharCode(b === 0x00 || b === 0x0d || b === 0x3c ? 0x100 + b : b);
}
const page = fs
  .readFileSync(pageFile, "utf8")
  .split("\n")
  .filter((line) => !line.startsWith('<link rel="preload" href="www/pkg/eldorado_web_bg-'))
  .join("\n")
  .replace(
    '<script type="application/octet-stream" id="eldorado-module"></script>',
    () => `<script type="application/octet-stream" id="eldorado-module">${text}</script>`,
  );
fs.writeFileSync(pageFile, page, "utf8");
JS
rm "$pkg/$wasm"
echo "hash-web: $pkg/index.html carries the module ($(wc -c <"$pkg/index.html") bytes)"
node - "$pkg/$glue" "$pkg/$main" "$pkg/$style" "$pkg/index.html" "$pkg/$check_glue" "$pkg/$check_wasm" <<'JS'
const fs = require("fs");
const zlib = require("zlib");
for (const file of process.argv.slice(2)) {
  const raw = fs.readFileSync(file);
  const br = zlib.brotliCompressSync(raw, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
    },
  });
  fs.writeFileSync(file + ".br", br);
  fs.writeFileSync(file + ".gz", zlib.gzipSync(raw, { level: 9 }));
}
JS
# zopfli writes the same gzip format 4-5 % smaller than zlib's level 9
# (scripts/setup.sh installs it; without it, level 9 stays).
if command -v zopfli >/dev/null; then
    for file in "$pkg/$glue" "$pkg/$main" "$pkg/$style" "$pkg/index.html" "$pkg/$check_glue" "$pkg/$check_wasm"; do
        zopfli -c "$file" >"$file.gz"
    done
fi
echo "hash-web: precompressed: $(wc -c <"$pkg/index.html.br") bytes brotli, $(wc -c <"$pkg/index.html.gz") bytes gzip for the page carrying the module"
echo "hash-web: the beacon's check, loaded after: $(cat "$pkg/$check_glue.br" "$pkg/$check_wasm.br" | wc -c) bytes brotli, $(cat "$pkg/$check_glue.gz" "$pkg/$check_wasm.gz" | wc -c) gzip"
