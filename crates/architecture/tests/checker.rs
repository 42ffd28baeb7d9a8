//! The checker on small made-up workspaces: it fails when a rule is broken
//! (so the passing test on the real workspace means something), and it
//! resolves features per package as cargo does.

use eldorado_architecture::{Forbidden, Metadata, Platform, Rule, RULES};
use serde_json::{json, Value};

/// A made-up `cargo metadata`. Each package: (name, is a workspace member,
/// feature table, declared dependencies). `edges` is the workspace-wide
/// resolve, as cargo would print it with every member's features unified.
struct Fake {
    packages: Vec<Value>,
    members: Vec<String>,
    edges: Vec<(String, String)>,
}

fn id(name: &str) -> String {
    format!("fake#{name}@1.0.0")
}

/// A declared normal dependency: (name, optional, features, target).
fn dep(name: &str, optional: bool, features: &[&str], target: Option<&str>) -> Value {
    json!({
        "name": name, "kind": null, "rename": null, "optional": optional,
        "uses_default_features": true, "features": features, "target": target,
    })
}

impl Fake {
    fn new() -> Fake {
        Fake {
            packages: Vec::new(),
            members: Vec::new(),
            edges: Vec::new(),
        }
    }

    fn package(mut self, name: &str, member: bool, features: Value, deps: Vec<Value>) -> Fake {
        for d in &deps {
            self.edges
                .push((name.to_owned(), d["name"].as_str().unwrap().to_owned()));
        }
        self.packages.push(json!({
            "id": id(name), "name": name, "version": "1.0.0",
            "features": features, "dependencies": deps,
        }));
        if member {
            self.members.push(id(name));
        }
        self
    }

    fn metadata(&self) -> Metadata {
        let nodes: Vec<Value> = self
            .packages
            .iter()
            .map(|p| {
                let name = p["name"].as_str().unwrap();
                let deps: Vec<Value> = self
                    .edges
                    .iter()
                    .filter(|(from, _)| from == name)
                    .map(|(_, to)| {
                        json!({"name": to.replace('-', "_"), "pkg": id(to),
                               "dep_kinds": [{"kind": null, "target": null}]})
                    })
                    .collect();
                json!({"id": p["id"], "deps": deps, "features": []})
            })
            .collect();
        Metadata::from_value(&json!({
            "packages": self.packages,
            "workspace_members": self.members,
            "resolve": {"nodes": nodes},
        }))
        .unwrap()
    }
}

fn engine_rule() -> &'static Rule {
    RULES
        .iter()
        .find(|r| r.package == "eldorado-engine")
        .unwrap()
}

fn web_rule() -> &'static Rule {
    RULES.iter().find(|r| r.package == "eldorado-web").unwrap()
}

/// A workspace like the real one: the engine uses `rand` without OS
/// randomness, the page turns on `rand`'s `os_rng`, which pulls in
/// `getrandom` with its browser feature.
fn like_the_real_one(engine_rand_features: &[&str]) -> Fake {
    Fake::new()
        .package(
            "eldorado-engine",
            true,
            json!({}),
            vec![dep("rand", false, engine_rand_features, None)],
        )
        .package(
            "eldorado-web",
            true,
            json!({}),
            vec![
                dep("eldorado-engine", false, &[], None),
                dep("rand", false, &["os_rng"], None),
                dep("getrandom", false, &["wasm_js"], None),
            ],
        )
        .package(
            "rand",
            false,
            json!({"os_rng": ["dep:getrandom"], "std": ["getrandom?/std"], "default": []}),
            vec![dep("getrandom", true, &[], None)],
        )
        .package(
            "getrandom",
            false,
            json!({"wasm_js": ["dep:wasm-bindgen"], "std": [], "default": []}),
            vec![dep(
                "wasm-bindgen",
                true,
                &[],
                Some(r#"cfg(all(target_arch = "wasm32", target_os = "unknown"))"#),
            )],
        )
        .package("wasm-bindgen", false, json!({}), vec![])
}

#[test]
fn a_feature_only_another_member_turns_on_is_not_held_against_the_engine() {
    let metadata = like_the_real_one(&[]).metadata();
    assert_eq!(
        metadata
            .check(engine_rule(), None)
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        Vec::<String>::new()
    );
    // A weak `getrandom?/std` does not turn getrandom on either.
    let metadata = like_the_real_one(&["std"]).metadata();
    assert!(metadata.check(engine_rule(), None).is_empty());
}

#[test]
fn a_forbidden_package_deep_down_fails_the_engine_rule_with_its_path() {
    let metadata = like_the_real_one(&["os_rng"]).metadata();
    let violations = metadata.check(engine_rule(), None);
    let text: Vec<String> = violations.iter().map(ToString::to_string).collect();
    assert!(
        text.iter().any(|v| v.starts_with(
            "eldorado-engine depends on getrandom (via eldorado-engine 1.0.0 -> rand 1.0.0 -> getrandom 1.0.0)"
        )),
        "{text:#?}"
    );
    assert!(violations
        .iter()
        .all(|v| v.rule.package == "eldorado-engine"));
}

#[test]
fn a_forbidden_feature_and_a_target_only_dependency_are_seen_on_their_platform() {
    let rule = Rule {
        package: "eldorado-web",
        required: true,
        why: "test",
        forbidden: &[&[
            Forbidden::Feature("getrandom", "wasm_js"),
            Forbidden::Package("wasm-bindgen"),
        ]],
    };
    let metadata = like_the_real_one(&[]).metadata();
    let wasm32 = Platform::new(
        "wasm32-unknown-unknown",
        "target_arch=\"wasm32\"\ntarget_os=\"unknown\"\ntarget_family=\"wasm\"\n",
    );
    let linux = Platform::new(
        "x86_64-unknown-linux-gnu",
        "target_arch=\"x86_64\"\ntarget_os=\"linux\"\nunix\ntarget_family=\"unix\"\n",
    );
    let on = |platform: &Platform| -> Vec<String> {
        metadata
            .check(&rule, Some(platform))
            .iter()
            .map(|v| v.broken_by.clone())
            .collect()
    };
    assert_eq!(
        on(&wasm32),
        vec![
            "depends on getrandom with feature `wasm_js`",
            "depends on wasm-bindgen"
        ]
    );
    assert_eq!(
        on(&linux),
        vec!["depends on getrandom with feature `wasm_js`"]
    );
}

#[test]
fn the_page_depending_on_the_server_fails_its_rule() {
    let metadata = Fake::new()
        .package(
            "eldorado-web",
            true,
            json!({}),
            vec![dep("eldorado-server", false, &[], None)],
        )
        .package(
            "eldorado-server",
            true,
            json!({}),
            vec![dep("tokio", false, &[], None)],
        )
        .package("tokio", false, json!({}), vec![])
        .metadata();
    let broken: Vec<String> = metadata
        .check(web_rule(), None)
        .iter()
        .map(|v| v.broken_by.clone())
        .collect();
    assert_eq!(
        broken,
        vec!["depends on eldorado-server", "depends on tokio"]
    );
}

#[test]
fn the_engine_depending_on_any_workspace_crate_fails_its_rule() {
    let metadata = Fake::new()
        .package(
            "eldorado-engine",
            true,
            json!({}),
            vec![dep("eldorado-api", false, &[], None)],
        )
        .package("eldorado-api", true, json!({}), vec![])
        .metadata();
    let broken: Vec<String> = metadata
        .check(engine_rule(), None)
        .iter()
        .map(|v| v.broken_by.clone())
        .collect();
    assert_eq!(broken, vec!["depends on workspace crate eldorado-api"]);
}

#[test]
fn a_missing_package_fails_a_required_rule_and_skips_an_optional_one() {
    let metadata = Fake::new()
        .package("eldorado-web", true, json!({}), vec![])
        .metadata();
    assert_eq!(metadata.check(engine_rule(), None).len(), 1);
    let api = RULES.iter().find(|r| r.package == "eldorado-api").unwrap();
    assert!(!api.required);
    assert!(metadata.check(api, None).is_empty());
}

#[test]
fn target_expressions_are_read_like_cargo_reads_them() {
    let wasm32 = Platform::new(
        "wasm32-unknown-unknown",
        "target_arch=\"wasm32\"\ntarget_os=\"unknown\"\ntarget_family=\"wasm\"\npanic=\"abort\"\n",
    );
    for (target, expected) in [
        ("cfg(target_arch = \"wasm32\")", true),
        ("cfg(unix)", false),
        ("cfg(not(unix))", true),
        (
            "cfg(all(target_arch = \"wasm32\", target_os = \"unknown\"))",
            true,
        ),
        (
            "cfg(all(target_os = \"emscripten\", wasm_bindgen_unstable_tokio))",
            false,
        ),
        ("cfg(any(windows, target_family = \"wasm\"))", true),
        ("wasm32-unknown-unknown", true),
        ("x86_64-pc-windows-gnu", false),
    ] {
        assert_eq!(wasm32.matches(target), expected, "{target}");
    }
}
