#!/usr/bin/env bash
# The README's screenshots (docs/screenshot-*.png), desktop and phone: the
# end-to-end tests of crates/e2e/tests/screenshots.rs play the seeded demo
# block in headless Chromium and write each shot once the page shows what
# it should. Same needs as scripts/e2e.sh, which this runs.
#   scripts/screenshots.sh [cargo test flags, e.g. --nocapture]
set -euo pipefail
cd "$(dirname "$0")/.."
ELDORADO_SCREENSHOTS_DIR="$PWD/docs" exec scripts/e2e.sh readme_screenshots "$@"
