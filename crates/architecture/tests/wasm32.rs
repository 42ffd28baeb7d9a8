//! The crates the browser shares with the server build for the browser.

mod common;

use common::{cargo, metadata_json, run, WASM32};
use eldorado_architecture::Metadata;
use std::path::PathBuf;

/// Packages that must build for `wasm32-unknown-unknown`; the second is
/// checked once it exists.
const FOR_THE_BROWSER: [(&str, bool); 2] = [("eldorado-engine", true), ("eldorado-api", false)];

#[test]
fn the_engine_and_the_api_crate_build_for_wasm32() {
    let json = metadata_json();
    let metadata = Metadata::parse(&json).unwrap();
    let target_dir: serde_json::Value = serde_json::from_str(&json).unwrap();
    let target_dir = PathBuf::from(target_dir["target_directory"].as_str().unwrap());
    let mut command = cargo();
    command.args(["build", "--target", WASM32]);
    for (package, required) in FOR_THE_BROWSER {
        if metadata.has_package(package) {
            command.args(["-p", package]);
        } else {
            assert!(!required, "{package} is missing from the workspace");
        }
    }
    // A target directory of its own: the `cargo test` running this holds
    // the lock of the outer one until the tests end.
    command.env("CARGO_TARGET_DIR", target_dir.join("arch-wasm32"));
    run(command);
}
