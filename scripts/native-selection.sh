# Sourced by scripts/test.sh and scripts/e2e.sh, not run: the one cargo
# selection of every native build the tests make. Cargo resolves the
# dependencies' features per selection, so a narrower one (`-p …`) built
# most of them again: about ten minutes of a fresh clone's suite.
# Clippy (scripts/test.sh) checks the same selection.
# shellcheck disable=SC2034
native_selection=(--workspace --features eldorado-web/rules-pages)
