//! The workspace as it is: `cargo metadata` against the rules of
//! ARCHITECTURE.md.

mod common;

use common::{cargo, platforms, run, workspace_root};
use eldorado_architecture::{Metadata, Platform, RULES};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

fn metadata() -> &'static Metadata {
    static METADATA: OnceLock<Metadata> = OnceLock::new();
    METADATA.get_or_init(|| Metadata::parse(&common::metadata_json()).unwrap())
}

fn targets() -> &'static [Platform] {
    static PLATFORMS: OnceLock<Vec<Platform>> = OnceLock::new();
    PLATFORMS.get_or_init(platforms)
}

#[test]
fn every_crate_keeps_to_its_dependency_rules() {
    let violations = metadata().check_all(RULES, targets());
    assert!(
        violations.is_empty(),
        "ARCHITECTURE.md is broken:\n{}",
        violations
            .iter()
            .map(|v| format!("- {v}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// `cargo tree -p <package> -e normal --target <triple>`: the packages and
/// features cargo itself would build the package with, by name and version.
fn cargo_tree(package: &str, triple: &str) -> BTreeMap<(String, String), BTreeSet<String>> {
    let mut command = cargo();
    command
        .args(["tree", "-p", package, "-e", "normal", "--target", triple])
        .args(["--prefix", "none", "--format", "{p}|{f}", "--manifest-path"])
        .arg(workspace_root().join("Cargo.toml"));
    let mut tree: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for line in run(command).lines().filter(|l| !l.trim().is_empty()) {
        let (package, features) = line.split_once('|').unwrap();
        let mut words = package.split_whitespace();
        let name = words.next().unwrap().to_owned();
        let version = words.next().unwrap().trim_start_matches('v').to_owned();
        // A package shown again is marked "(*)" after its features.
        let features = features.trim_end_matches("(*)").trim();
        tree.entry((name, version)).or_default().extend(
            features
                .split(',')
                .filter(|f| !f.is_empty())
                .map(str::to_owned),
        );
    }
    tree
}

/// The checker resolves each package on its own; if it disagreed with
/// cargo, it could miss a dependency or blame one cargo never builds.
#[test]
fn the_checker_sees_what_cargo_builds_for_each_checked_crate() {
    let metadata = metadata();
    for (rule, platform) in RULES
        .iter()
        .flat_map(|r| targets().iter().map(move |p| (r, p)))
    {
        let Some(id) = metadata.id_of(rule.package) else {
            continue;
        };
        let resolved = metadata.resolve(id, Some(platform));
        let mut mine: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
        for (resolved_id, features) in &resolved.features {
            let key = metadata.name_and_version(resolved_id).unwrap();
            mine.entry(key)
                .or_default()
                .extend(features.iter().cloned());
        }
        let cargos = cargo_tree(rule.package, &platform.triple);
        let only_mine: Vec<_> = mine.keys().filter(|k| !cargos.contains_key(*k)).collect();
        let only_cargos: Vec<_> = cargos.keys().filter(|k| !mine.contains_key(*k)).collect();
        assert!(
            only_mine.is_empty() && only_cargos.is_empty(),
            "{} on {}: packages only the checker sees {only_mine:?}, only cargo builds {only_cargos:?}",
            rule.package,
            platform.triple
        );
        // Features too: a forbidden feature must be seen exactly when cargo
        // turns it on.
        for (package, features) in &mine {
            assert_eq!(
                features, &cargos[package],
                "{} on {}: features of {package:?}",
                rule.package, platform.triple
            );
        }
    }
}
