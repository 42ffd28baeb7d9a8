#!/usr/bin/env bash
# Installs what a fresh machine lacks to build and test Eldorado; skips what
# is already there, so it is cheap to run again.
#   scripts/setup.sh          toolchain for building and running the game
#   scripts/setup.sh --test   also what only the tests use: Chromium and its
#                             driver, pg_auto_failover and nginx…
set -euo pipefail
cd "$(dirname "$0")/.."

for_tests=false
[ "${1:-}" = "--test" ] && for_tests=true

say() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

command -v cargo >/dev/null || { echo "Rust is needed: install it with rustup first." >&2; exit 1; }

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    say "adding the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown
fi

# Every build tool at an exact version, installed again when another one is
# found: the same bundle from the same sources on every machine.
wasm_pack_version=0.15.1
terser_version=5.51.4
csso_version=4.0.2
binaryen_version=132.0.0

# wasm-pack cannot download its helpers here: the wasm-bindgen CLI must match
# the exact wasm-bindgen version pinned in Cargo.lock.
bindgen_version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if [ "$(wasm-pack --version 2>/dev/null | awk '{print $2}')" != "$wasm_pack_version" ]; then
    say "installing wasm-pack $wasm_pack_version (a few minutes)"
    cargo install wasm-pack --version "$wasm_pack_version" --locked --force
fi
if [ -n "$bindgen_version" ] && [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$bindgen_version" ]; then
    say "installing wasm-bindgen-cli $bindgen_version (a few minutes)"
    cargo install wasm-bindgen-cli --version "$bindgen_version" --force
fi

apt_updated=false
apt_install() {
    if [ "$apt_updated" = false ]; then as_root apt-get update -qq; apt_updated=true; fi
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"
}
# The bundle is shrunk with wasm-opt from binaryen >= 116 (Debian's 108
# breaks wasm-bindgen's output): binaryen's npm package, kept in a tools
# folder outside the repository.
if ! command -v npm >/dev/null; then
    say "installing Node.js and npm (for binaryen's wasm-opt)"
    apt_install nodejs npm
fi
tools=${ELDORADO_TOOLS:-$HOME/.cache/eldorado-tools}
# The version of npm package $2 installed in tools folder $1, if any.
npm_version() {
    node -p "require(process.argv[1]).version" "$tools/$1/node_modules/$2/package.json" 2>/dev/null || true
}
if [ "$(npm_version binaryen binaryen)" != "$binaryen_version" ]; then
    say "installing binaryen $binaryen_version (wasm-opt) into $tools/binaryen"
    npm install --silent --no-audit --no-fund --prefix "$tools/binaryen" "binaryen@$binaryen_version"
fi
# terser minifies wasm-bindgen's JavaScript glue (scripts/build-web.sh).
if [ "$(npm_version terser terser)" != "$terser_version" ]; then
    say "installing terser $terser_version into $tools/terser"
    # Optional: without it the bundle only ships its glue unminified.
    npm install --silent --no-audit --no-fund --prefix "$tools/terser" "terser@$terser_version" ||
        say "terser could not be installed: the glue will not be minified"
fi
# python3 serves the benchmark pages and drives Chromium for the frame
# times (www/bench/measure.sh, frames.py, download.py).
if ! command -v python3 >/dev/null; then
    say "installing python3"
    apt_install python3 || say "python3 could not be installed: www/bench/measure.sh will not run"
fi
# zopfli: the smallest gzip form of the bundle (scripts/hash-web.sh).
if ! command -v zopfli >/dev/null; then
    say "installing zopfli"
    apt_install zopfli || say "zopfli could not be installed: the bundle is gzipped at level 9"
fi
# csso minifies the stylesheet (scripts/hash-web.sh).
if [ "$(npm_version csso csso-cli)" != "$csso_version" ]; then
    say "installing csso-cli $csso_version into $tools/csso"
    # Optional: without it the stylesheet ships unminified.
    npm install --silent --no-audit --no-fund --prefix "$tools/csso" "csso-cli@$csso_version" ||
        say "csso could not be installed: the stylesheet will not be minified"
fi
# PostgreSQL: the shared store of a several-server deployment, and what
# its tests run on (scripts/test-postgres.sh starts it).
if ! command -v pg_ctlcluster >/dev/null || ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
    say "installing PostgreSQL"
    apt_install postgresql
fi
if [ "$for_tests" = true ]; then
    # pg_auto_failover and nginx: the failover test runs scripts/cluster.sh
    # (crates/cli/tests/deployment/failover.rs).
    pg_version=$(ls /usr/lib/postgresql | sort -n | tail -n 1)
    if ! command -v pg_autoctl >/dev/null || [ ! -f "/usr/share/postgresql/$pg_version/extension/pgautofailover.control" ]; then
        say "installing pg_auto_failover"
        apt_install pg-auto-failover-cli "postgresql-$pg_version-auto-failover" ||
            say "pg_auto_failover could not be installed: the failover test will say SKIPPED"
    fi
    if ! command -v nginx >/dev/null; then
        say "installing nginx"
        apt_install nginx || say "nginx could not be installed: the failover test will say SKIPPED"
    fi
    # schemathesis holds the server to its OpenAPI document
    # (scripts/api-conformance.sh), in a virtual environment of its own.
    schemathesis_version=4.32.5
    if [ "$("$tools/schemathesis/bin/st" --version 2>/dev/null | awk '{print $NF}')" != "$schemathesis_version" ]; then
        say "installing schemathesis $schemathesis_version into $tools/schemathesis"
        command -v python3 >/dev/null || apt_install python3
        python3 -m venv "$tools/schemathesis" 2>/dev/null || { apt_install python3-venv; python3 -m venv "$tools/schemathesis"; }
        "$tools/schemathesis/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$schemathesis_version"
    fi
    # axe-core checks the page's accessibility in the end-to-end tests
    # (crates/e2e/tests/accessibility.rs).
    axe_version=4.11.1
    if [ "$(npm_version axe-core axe-core)" != "$axe_version" ]; then
        say "installing axe-core $axe_version into $tools/axe-core"
        npm install --silent --no-audit --no-fund --prefix "$tools/axe-core" "axe-core@$axe_version"
    fi
    if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
        say "installing Chromium and chromedriver"
        apt_install chromium chromium-driver
    fi
fi
say "ready"
