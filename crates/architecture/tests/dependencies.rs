//! The workspace as cargo builds it against the rules of ARCHITECTURE.md.

use eldorado_architecture::{check, parse_tree, Node, Rule, RULES, WASM32};
use std::path::PathBuf;
use std::process::Command;

fn run(program: &str, args: &[&str]) -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let output = Command::new(program)
        .args(args)
        .current_dir(root)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{program} {args:?} failed:\n{stderr}"
    );
    String::from_utf8(output.stdout).unwrap()
}

/// The `cargo` running the tests, so that the toolchain is the same.
fn cargo(args: &[&str]) -> String {
    run(env!("CARGO"), args)
}

fn host() -> String {
    let version = run("rustc", &["-vV"]);
    let host = version.lines().find_map(|l| l.strip_prefix("host: "));
    host.expect("rustc -vV names the host").to_owned()
}

fn tree(package: &str, target: &str) -> Vec<Node> {
    let args = ["tree", "-p", package, "-e", "normal", "--target", target];
    let format = ["--prefix", "depth", "--format", "{p}|{f}"];
    parse_tree(&cargo(&[&args[..], &format[..]].concat())).unwrap()
}

fn workspace_crates() -> Vec<String> {
    let json = cargo(&["metadata", "--no-deps", "--format-version", "1"]);
    let metadata: serde_json::Value = serde_json::from_str(&json).unwrap();
    let packages = metadata["packages"].as_array().unwrap();
    packages
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn every_crate_keeps_to_its_dependency_rules_on_the_host_and_wasm32() {
    let workspace = workspace_crates();
    let mut broken = Vec::new();
    for target in [host(), WASM32.to_owned()] {
        for rule in RULES {
            broken.extend(check(
                rule,
                &target,
                &tree(rule.package, &target),
                &workspace,
            ));
        }
    }
    assert!(
        broken.is_empty(),
        "ARCHITECTURE.md is broken:\n{}",
        broken.join("\n")
    );
}

/// The checker reads cargo's real output: the page's own build breaks the
/// engine's rule (browser bindings, OS randomness, workspace crates).
#[test]
fn the_engines_rule_fails_on_the_pages_real_tree() {
    let engine = RULES
        .iter()
        .find(|r| r.package == "eldorado-engine")
        .unwrap();
    let on_the_page = Rule {
        package: "eldorado-web",
        ..*engine
    };
    let web = tree("eldorado-web", WASM32);
    let broken = check(&on_the_page, WASM32, &web, &workspace_crates()).join("\n");
    for expected in [
        "depends on wasm-bindgen",
        "depends on getrandom with feature `wasm_js`",
        "depends on workspace crate eldorado-api",
    ] {
        assert!(broken.contains(expected), "{expected} not in:\n{broken}");
    }
}
