#!/usr/bin/env bash
# Builds the browser game's release bundle into www/pkg/: wasm-pack with the
# size-tuned `wasm-release` profile (the native `release` profile stays tuned
# for speed), then wasm-opt -Oz from binaryen >= 116 (scripts/setup.sh
# installs it; Debian's 108 breaks wasm-bindgen's externref table).
#   WASM_OPT=/path/to/wasm-opt scripts/build-web.sh
# Pinning the operator key: ELDORADO_OPERATOR_KEY=<64 hex digits> is read by
# the compiler (option_env!) and built into the bundle; the page then refuses
# to play against a server announcing any other key. Unset or empty: no pin.
#   ELDORADO_OPERATOR_KEY=d04ab232…8737 scripts/build-web.sh   (the key of GET /api/config)
# The public record's witnesses and the beacon the page believes are not
# built in: scripts/page-policy.sh writes them into the built page
# (www/pkg/page-policy.json, listed in its manifest); a page without that
# file does not start.
set -euo pipefail
cd "$(dirname "$0")/.."

# The stable compiler as released (rust-toolchain.toml), no unstable option.
wasm-pack build --profile wasm-release --target web --out-dir www/pkg --no-typescript --no-pack . -- -p eldorado-web
# The check of the beacon's rounds, a module the page loads after its first
# download (crates/beacon-check/src/lib.rs says why). Built apart, then
# moved beside the page's: wasm-pack owns the directory it writes to.
beacon_out=${CARGO_TARGET_DIR:-$PWD/target}/beacon-check-pkg
wasm-pack build --profile wasm-release --target web --out-dir "$beacon_out" --no-typescript --no-pack crates/beacon-check
mv "$beacon_out/eldorado_beacon_check.js" "$beacon_out/eldorado_beacon_check_bg.wasm" www/pkg/

tools=${ELDORADO_TOOLS:-$HOME/.cache/eldorado-tools}
pick_wasm_opt() {
    for candidate in "${WASM_OPT:-}" "$tools/binaryen/node_modules/.bin/wasm-opt" "$(command -v wasm-opt || true)"; do
        [ -n "$candidate" ] && [ -x "$candidate" ] || continue
        version=$("$candidate" --version 2>/dev/null | grep -o '[0-9]\+' | head -1)
        if [ "${version:-0}" -ge 116 ]; then echo "$candidate"; return; fi
    done
}
wasm_opt=$(pick_wasm_opt)
[ -n "$wasm_opt" ] || echo "build-web: no wasm-opt >= 116 (run scripts/setup.sh); the modules work but are larger" >&2
terser=$tools/terser/node_modules/.bin/terser
[ -x "$terser" ] || echo "build-web: no terser (run scripts/setup.sh); the glues are not minified" >&2
command -v node >/dev/null ||
    echo "build-web: no node (run scripts/setup.sh); the modules keep wasm-bindgen's long names" >&2
features=(--enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext
    --enable-mutable-globals --enable-reference-types --enable-multivalue)

# Optimises www/pkg/<name>_bg.wasm and minifies its glue www/pkg/<name>.js.
shrink() {
    local wasm=www/pkg/$1_bg.wasm glue=www/pkg/$1.js
    if [ -n "$wasm_opt" ]; then
        # Flattened and its control flow rebuilt (--rereloop) before -Oz: 0.7 KB
        # less compressed than -Oz alone (docs/BENCHMARKS.md). --low-memory-unused:
        # nothing lives in the first 1 KB of memory (Rust's stack sits below 1 MB
        # and grows down towards it, its data above), so binaryen may fold small
        # constant offsets into loads and stores: 0.7 KB more.
        "$wasm_opt" --flatten --rereloop -Oz -Oz --converge --strip-producers --low-memory-unused \
            "${features[@]}" "$wasm" -o "$wasm.opt"
        mv "$wasm.opt" "$wasm"
        echo "build-web: $1 optimised with $wasm_opt: $(wc -c <"$wasm") bytes"
        # Short import, export and module names, renamed to match in the glue
        # (scripts/minify-wasm-names.mjs says why).
        if command -v node >/dev/null; then
            "$wasm_opt" --minify-imports-and-exports-and-modules "${features[@]}" \
                "$wasm" -o "$wasm.min" >www/pkg/names.json
            node scripts/minify-wasm-names.mjs "$glue" www/pkg/names.json "$wasm.min"
            mv "$wasm.min" "$wasm"
            rm www/pkg/names.json
            echo "build-web: $1 with short names: $(wc -c <"$wasm") bytes"
        fi
    fi
    # The glue, minified (an ES module: its exports keep their names; quotes
    # kept as written, for scripts/hash-web.sh's name replacement).
    if [ -x "$terser" ]; then
        "$terser" "$glue" --module --compress --mangle --format quote_style=3 -o "$glue.min"
        mv "$glue.min" "$glue"
        echo "build-web: $1's glue minified with terser: $(wc -c <"$glue") bytes"
    fi
}
shrink eldorado_web
shrink eldorado_beacon_check

# The rules panel's pages, www/pkg/rules-fr.html and rules-en.html, written
# natively from the engine and the page's texts: the page fetches one the
# first time the rules are opened, so neither they nor the code that writes
# them are in the first download (src/rules_page.rs).
# ELDORADO_RULES_PAGES_BIN: a tool already built (scripts/test.sh).
if [ -n "${ELDORADO_RULES_PAGES_BIN:-}" ]; then
    "$ELDORADO_RULES_PAGES_BIN" www/pkg
else
    cargo run -q -p eldorado-web --features rules-pages --bin rules-pages -- www/pkg
fi
echo "build-web: rules pages written: $(wc -c www/pkg/rules-fr.html www/pkg/rules-en.html | tail -1)"

# == Content-hashed names, for long-lived caching (scripts/hash-web.sh) ==
scripts/hash-web.sh

# == The list of what the server may serve, with each file's hash ==
scripts/page-manifest.sh
