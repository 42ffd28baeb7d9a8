//! The checker on made-up `cargo tree` outputs: it fails when a rule is
//! broken, so the passing test on the real workspace means something.

use eldorado_architecture::{check, parse_tree, Rule, RULES};

fn rule(package: &str) -> &'static Rule {
    RULES.iter().find(|r| r.package == package).unwrap()
}

fn broken(package: &str, tree: &str) -> Vec<String> {
    let workspace = ["eldorado-engine", "eldorado-api", "eldorado-web"].map(String::from);
    check(
        rule(package),
        "wasm32-unknown-unknown",
        &parse_tree(tree).unwrap(),
        &workspace,
    )
}

const ENGINE: &str = "0eldorado-engine v0.1.0 (/w/crates/engine)|\n";

#[test]
fn the_real_shape_of_the_engine_passes() {
    let tree =
        format!("{ENGINE}1rand v0.9.5|alloc\n2rand_core v0.9.5|std\n1rand_core v0.9.5|std (*)\n");
    assert_eq!(broken("eldorado-engine", &tree), Vec::<String>::new());
}

#[test]
fn a_forbidden_package_deep_down_fails_with_its_path() {
    let tree = format!("{ENGINE}1rand v0.9.5|alloc,os_rng\n2getrandom v0.3.4|\n");
    let broken = broken("eldorado-engine", &tree);
    assert_eq!(broken.len(), 2, "{broken:#?}");
    assert!(broken[0].starts_with("eldorado-engine depends on rand with feature `os_rng` on wasm32-unknown-unknown (via eldorado-engine v0.1.0 -> rand v0.9.5); rule: the engine is pure rules"), "{broken:#?}");
    assert!(broken[1].starts_with("eldorado-engine depends on getrandom on wasm32-unknown-unknown (via eldorado-engine v0.1.0 -> rand v0.9.5 -> getrandom v0.3.4)"), "{broken:#?}");
}

#[test]
fn a_forbidden_feature_fails_only_when_on() {
    let off = format!("{ENGINE}1getrandom-user v1.0.0|\n2chrono v0.4.0|alloc\n");
    assert!(broken("eldorado-engine", &off).is_empty());
    let on = format!("{ENGINE}1getrandom-user v1.0.0|\n2chrono v0.4.0|alloc,clock\n");
    assert_eq!(broken("eldorado-engine", &on).len(), 1);
}

#[test]
fn the_engine_depending_on_a_workspace_crate_fails() {
    let tree = format!("{ENGINE}1eldorado-api v0.1.0 (/w/crates/api)|\n");
    assert!(broken("eldorado-engine", &tree)[0].contains("depends on workspace crate eldorado-api"));
}

#[test]
fn the_api_crate_may_depend_directly_only_on_its_list() {
    let api = "0eldorado-api v0.1.0 (/w/crates/api)|\n1serde v1.0.0|std\n1hex v0.4.3|std\n";
    assert!(broken("eldorado-api", api).is_empty());
    let tree = format!("{api}1base64 v0.22.0|std\n");
    assert!(
        broken("eldorado-api", &tree)[0].contains("depends directly on base64, not on its list")
    );
}

#[test]
fn the_page_with_the_server_or_the_openapi_feature_fails() {
    let page = "0eldorado-web v0.1.0 (/w)|\n";
    let server = format!("{page}1eldorado-server v0.1.0 (/w/crates/server)|\n2tokio v1.0.0|rt\n");
    let broken_by_server = broken("eldorado-web", &server);
    assert_eq!(broken_by_server.len(), 2, "{broken_by_server:#?}");
    let openapi = format!("{page}1eldorado-api v0.1.0 (/w/crates/api)|openapi\n2utoipa v5.5.0|\n");
    let broken_by_openapi = broken("eldorado-web", &openapi);
    assert!(broken_by_openapi[0].contains("depends on eldorado-api with feature `openapi`"));
    assert!(broken_by_openapi[1].contains("depends on utoipa"));
}

#[test]
fn a_tree_of_another_package_or_unreadable_output_fails() {
    assert!(broken("eldorado-engine", "0eldorado-api v0.1.0|\n")[0].contains("is not rooted at it"));
    assert!(broken("eldorado-engine", "")[0].contains("is not rooted at it"));
    assert!(parse_tree("eldorado-engine v0.1.0|\n").is_err());
    assert!(parse_tree("0eldorado-engine v0.1.0|\n2rand v0.9.5|\n").is_err());
}
