#!/usr/bin/env bash
# Builds the browser game's release bundle into www/pkg/.
set -euo pipefail
cd "$(dirname "$0")/.."
wasm-pack build --release --target web --out-dir www/pkg --no-typescript --no-pack
