#!/usr/bin/env bash
# Builds the browser game's release bundle into www/pkg/, with the size-tuned
# `wasm-release` profile (the native `release` profile stays tuned for speed).
set -euo pipefail
cd "$(dirname "$0")/.."
wasm-pack build --profile wasm-release --target web --out-dir www/pkg --no-typescript --no-pack
