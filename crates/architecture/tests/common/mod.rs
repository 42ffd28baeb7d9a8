//! Running the `cargo` that runs these tests.

// Each test file uses part of these helpers.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// The `cargo` running the tests, so that the toolchain is the same.
pub fn cargo() -> Command {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| env!("CARGO").into());
    let mut command = Command::new(cargo);
    command.current_dir(workspace_root());
    command
}

pub fn run(mut command: Command) -> String {
    let Output {
        status,
        stdout,
        stderr,
    } = command.output().expect("cargo runs");
    assert!(
        status.success(),
        "{command:?} failed ({status}):\n{}",
        String::from_utf8_lossy(&stderr)
    );
    String::from_utf8(stdout).expect("cargo prints UTF-8")
}

pub fn metadata_json() -> String {
    let mut command = cargo();
    command
        .args(["metadata", "--format-version", "1", "--manifest-path"])
        .arg(workspace_root().join("Cargo.toml"));
    run(command)
}

fn rustc(args: &[&str]) -> String {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let mut command = Command::new(rustc);
    command.args(args);
    run(command)
}

pub const WASM32: &str = "wasm32-unknown-unknown";

/// The two targets the project builds for: this machine (server, CLI,
/// native tests) and the browser.
pub fn platforms() -> Vec<eldorado_architecture::Platform> {
    let version = rustc(&["-vV"]);
    let host = version
        .lines()
        .find_map(|line| line.strip_prefix("host: "))
        .expect("rustc -vV names the host")
        .to_owned();
    [host.as_str(), WASM32]
        .iter()
        .map(|triple| {
            eldorado_architecture::Platform::new(
                triple,
                &rustc(&["--print", "cfg", "--target", triple]),
            )
        })
        .collect()
}
