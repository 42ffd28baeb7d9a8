#!/usr/bin/env bash
# Builds the release bundle into www/pkg/: wasm-pack with the size profile,
# then wasm-opt -Oz from a binaryen recent enough for wasm-bindgen's
# externref table (>= 116; Debian's 108 breaks the module).
#   WASM_OPT=/path/to/wasm-opt www/build.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-/work/target-web}

# `.` and `-p`: the workspace's default members are the native crates.
wasm-pack build --profile wasm-release --target web --out-dir www/pkg --no-typescript --no-pack . -- -p eldorado-web

pick_wasm_opt() {
    for candidate in "${WASM_OPT:-}" /opt/binaryen-npm/node_modules/.bin/wasm-opt "$(command -v wasm-opt || true)"; do
        [ -n "$candidate" ] && [ -x "$candidate" ] || continue
        version=$("$candidate" --version 2>/dev/null | grep -o '[0-9]\+' | head -1)
        if [ "${version:-0}" -ge 116 ]; then echo "$candidate"; return; fi
    done
}
wasm_opt=$(pick_wasm_opt)
if [ -z "$wasm_opt" ]; then
    echo "warning: no wasm-opt >= 116 found (npm install --prefix /opt/binaryen-npm binaryen);" \
         "the bundle works but is over the size budget" >&2
    exit 0
fi
wasm=www/pkg/eldorado_web_bg.wasm
"$wasm_opt" -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals --enable-reference-types --enable-multivalue "$wasm" -o "$wasm.opt"
mv "$wasm.opt" "$wasm"
echo "optimised with $wasm_opt: $(wc -c <"$wasm") bytes"
