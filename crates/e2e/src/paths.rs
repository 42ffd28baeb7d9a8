//! Where the repository, the server binary and the run's outputs are.

use std::path::PathBuf;

/// The repository root: the server serves `index.html` and `www/` from it.
pub fn repo_root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest
        .parent()
        .and_then(|crates| crates.parent())
        .map(PathBuf::from)
        .expect("crates/e2e sits two levels below the repository root")
}

/// Screenshots and logs of the run: `$E2E_OUT`, else `target/e2e/` of the
/// repository (kept there whatever `CARGO_TARGET_DIR` says, so that they are
/// always found at the same place).
pub fn out_dir() -> PathBuf {
    let dir = std::env::var_os("E2E_OUT")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target").join("e2e"));
    std::fs::create_dir_all(&dir)
        .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    dir
}

/// The `eldorado` binary: `$ELDORADO_BIN` (scripts/e2e.sh sets it), else the
/// one built next to this test in the same target directory.
pub fn eldorado_bin() -> PathBuf {
    if let Some(path) = std::env::var_os("ELDORADO_BIN") {
        return PathBuf::from(path);
    }
    // The test runs as target/<profile>/deps/<test>-<hash>.
    let exe = std::env::current_exe().expect("path of the running test");
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("test binary inside target/<profile>/deps");
    let bin = profile_dir.join("eldorado");
    assert!(
        bin.is_file(),
        "{} is missing: run scripts/e2e.sh, or `cargo build -p eldorado-cli` first, \
         or point ELDORADO_BIN at the eldorado binary",
        bin.display()
    );
    bin
}

/// The example operator's `eldorado-portal` binary: `$ELDORADO_PORTAL_BIN`
/// (scripts/e2e.sh sets it), else the one built next to this test.
pub fn portal_bin() -> PathBuf {
    if let Some(path) = std::env::var_os("ELDORADO_PORTAL_BIN") {
        return PathBuf::from(path);
    }
    let exe = std::env::current_exe().expect("path of the running test");
    let bin = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("test binary inside target/<profile>/deps")
        .join("eldorado-portal");
    assert!(
        bin.is_file(),
        "{} is missing: run scripts/e2e.sh, or `cargo build -p eldorado-portal-example` first, \
         or point ELDORADO_PORTAL_BIN at the eldorado-portal binary",
        bin.display()
    );
    bin
}

pub fn chromedriver_bin() -> PathBuf {
    std::env::var_os("CHROMEDRIVER")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromedriver"))
}

pub fn chromium_bin() -> PathBuf {
    std::env::var_os("CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"))
}

/// Fails early, with the fix, when the wasm bundle was never built.
pub fn check_web_bundle() {
    // The manifest is written last: the build finished.
    let bundle = repo_root().join("www/pkg/page-manifest.json");
    assert!(
        bundle.is_file(),
        "{} is missing: run scripts/build-web.sh (scripts/e2e.sh does it)",
        bundle.display()
    );
}

/// axe-core's script (scripts/setup.sh --test installs it at an exact
/// version in the tools folder); `ELDORADO_AXE` names another copy.
pub fn axe_script() -> PathBuf {
    if let Some(path) = std::env::var_os("ELDORADO_AXE") {
        return PathBuf::from(path);
    }
    let tools = std::env::var_os("ELDORADO_TOOLS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
                .join(".cache/eldorado-tools")
        });
    let path = tools.join("axe-core/node_modules/axe-core/axe.min.js");
    assert!(
        path.is_file(),
        "{} is missing: run scripts/setup.sh --test, or point ELDORADO_AXE at axe.min.js",
        path.display()
    );
    path
}

/// The page's browser tests `tests/<name>.rs`, compiled for wasm32 (built
/// now if `scripts/test.sh`'s browser tests have not built them already).
pub fn wasm_test(name: &str) -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = std::process::Command::new(cargo)
        .current_dir(repo_root())
        .args([
            "test",
            "-p",
            "eldorado-web",
            "--target",
            "wasm32-unknown-unknown",
            "--test",
            name,
            "--no-run",
            "--message-format=json",
        ])
        .stderr(std::process::Stdio::inherit())
        .output()
        .unwrap_or_else(|e| panic!("cannot run cargo to build tests/{name}.rs: {e}"));
    assert!(
        output.status.success(),
        "building tests/{name}.rs for wasm32 failed"
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|m| m["target"]["name"] == name)
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .unwrap_or_else(|| panic!("cargo named no wasm for tests/{name}.rs"))
}

/// The runner of the page's browser tests: the one wasm-pack uses
/// (`CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER`), else
/// `wasm-bindgen-test-runner` from the PATH (scripts/setup.sh installs it).
pub fn wasm_test_runner() -> PathBuf {
    std::env::var_os("CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("wasm-bindgen-test-runner"))
}
