#!/usr/bin/env bash
# End-to-end tests in headless Chromium, through chromedriver: the game
# (issue 5: the real server on a seeded block and the wasm page), the
# operator integration (issue 11: the example portal of examples/portal
# framing the game from another origin, with its seamless wallet) and the
# README's screenshots (issue 13: scripts/screenshots.sh copies them to docs/).
# Builds the wasm bundle (unless ELDORADO_WEB_BUILT=1 says it is built),
# the server and the portal, then runs crates/e2e.
#   scripts/e2e.sh                 everything
#   scripts/e2e.sh tampered        only the tests whose name matches
# Screenshots and logs: target/e2e/.
# Needs Chromium and chromedriver (scripts/setup.sh --test installs them);
# CHROMIUM and CHROMEDRIVER override their paths.
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in chromedriver chromium; do
    var=$(echo "$tool" | tr '[:lower:]' '[:upper:]')
    path=${!var:-/usr/bin/$tool}
    if [ ! -x "$path" ]; then
        echo "e2e: $path not found: run scripts/setup.sh --test, or set $var" >&2
        exit 1
    fi
done

# ELDORADO_WEB_BUILT=1: scripts/test.sh has just built the bundle.
if [ "${ELDORADO_WEB_BUILT:-}" != 1 ]; then
    scripts/build-web.sh
fi
# shellcheck source=scripts/native-selection.sh
source scripts/native-selection.sh
# The server, the portal and these tests, as scripts/test.sh's native tests
# built them (nothing to build after them): `--tests` makes it the same
# selection, as cargo test has the dev-dependencies' features.
cargo build "${native_selection[@]}" --bins --tests
# The binary of this build, wherever CARGO_TARGET_DIR puts it.
target_dir=$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
export ELDORADO_BIN="$target_dir/debug/eldorado"
export ELDORADO_PORTAL_BIN="$target_dir/debug/eldorado-portal"

rm -rf target/e2e
started=$(date +%s)
# The tests are #[ignore]d so that a plain `cargo test --workspace` (which
# builds neither the bundle nor the server) skips them; one at a time, as
# each starts its own server and browser on two cores.
# Run by name (every file of crates/e2e/tests) in the same selection: a
# test of another crate with the same name runs too, and has no ignored
# tests to run.
e2e_tests=()
for file in crates/e2e/tests/*.rs; do e2e_tests+=(--test "$(basename "$file" .rs)"); done
cargo test "${native_selection[@]}" "${e2e_tests[@]}" -- --ignored --test-threads=1 "$@"
echo "e2e: passed in $(( $(date +%s) - started )) s; screenshots in target/e2e/"
