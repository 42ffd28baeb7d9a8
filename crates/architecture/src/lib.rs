//! The dependency rules of ARCHITECTURE.md as data, checked on what cargo
//! itself builds: `cargo tree -p <package> -e normal --target <triple>
//! --prefix depth --format "{p}|{f}"` resolves features and `cfg` targets
//! exactly as `cargo build -p <package>` does, so nothing is re-implemented.

use std::collections::BTreeSet;

/// One rule of ARCHITECTURE.md, checked on this machine and on `WASM32`.
#[derive(Clone, Copy, Debug)]
pub struct Rule {
    pub package: &'static str,
    /// Printed with each violation.
    pub why: &'static str,
    /// Packages it must not build with at any depth, as lists separated by
    /// spaces: `name`, whatever its features, or `name/feature`, that
    /// package with that feature on.
    pub forbidden: &'static [&'static str],
    /// Whether any other crate of the workspace is forbidden too.
    pub standalone: bool,
    /// `Some`: the only packages it may depend on directly (a list
    /// separated by spaces).
    pub only_direct: Option<&'static str>,
}

/// The browser's target, checked besides the machine running the tests.
pub const WASM32: &str = "wasm32-unknown-unknown";

pub const NETWORK: &str = "tokio async-std smol mio socket2 hyper axum tower reqwest ureq";
pub const DATABASES: &str = "rusqlite libsqlite3-sys sqlx postgres tokio-postgres";
pub const BROWSER: &str = "wasm-bindgen web-sys js-sys getrandom/wasm_js getrandom/js";
/// The caller passes in an RNG and a time.
pub const OS_RANDOMNESS_AND_CLOCK: &str = "getrandom rand/os_rng rand/thread_rng chrono/clock";
pub const SERVER: &str =
    "eldorado-server eldorado-cli axum hyper tokio rusqlite libsqlite3-sys sqlx tokio-postgres";

/// ARCHITECTURE.md, "Code map": who may not depend on what.
pub const RULES: &[Rule] = &[
    Rule {
        package: "eldorado-engine",
        why: "the engine is pure rules: no I/O, HTTP, database, wasm-bindgen/web-sys, \
              clock or OS randomness, and it stands alone",
        forbidden: &[NETWORK, DATABASES, BROWSER, OS_RANDOMNESS_AND_CLOCK],
        standalone: true,
        only_direct: None,
    },
    Rule {
        package: "eldorado-api",
        why: "the API types are shared by the server and the page: serde, serde_json, the \
              engine and the pure hmac/sha2/hex only, no I/O",
        forbidden: &[
            NETWORK,
            DATABASES,
            BROWSER,
            OS_RANDOMNESS_AND_CLOCK,
            "eldorado-server eldorado-web eldorado-cli eldorado-e2e utoipa",
        ],
        standalone: false,
        only_direct: Some("serde serde_json eldorado-engine hmac sha2 hex"),
    },
    Rule {
        package: "eldorado-server",
        why: "the server may not depend on the browser crate",
        forbidden: &["eldorado-web eldorado-e2e"],
        standalone: false,
        only_direct: None,
    },
    Rule {
        package: "eldorado-web",
        why: "the page may not depend on the server (outcomes come only from signed sales), \
              nor carry the API crate's `openapi` feature",
        forbidden: &[SERVER, "eldorado-e2e eldorado-api/openapi utoipa"],
        standalone: false,
        only_direct: None,
    },
    Rule {
        package: "eldorado-beacon-check",
        why: "the page's check of the beacon's rounds is the engine's check behind \
              wasm-bindgen and nothing else, so that the module stays small",
        forbidden: &[
            SERVER,
            NETWORK,
            DATABASES,
            "eldorado-web eldorado-api eldorado-e2e",
        ],
        standalone: false,
        only_direct: Some("eldorado-engine wasm-bindgen talc"),
    },
    Rule {
        package: "eldorado-portal-example",
        why: "the example operator uses only the published HTTP contracts (the API types), \
              as an operator's own back end would: never the game server's code",
        forbidden: &["eldorado-server eldorado-cli eldorado-web eldorado-e2e"],
        standalone: false,
        only_direct: None,
    },
];

/// One package of a `cargo tree`, the first time it is printed.
#[derive(Clone, Debug)]
pub struct Node {
    pub name: String,
    pub features: BTreeSet<String>,
    /// `name version` from the tree's root down to this package.
    pub path: Vec<String>,
}

/// Reads `cargo tree --prefix depth --format "{p}|{f}"`.
pub fn parse_tree(text: &str) -> Result<Vec<Node>, String> {
    let mut nodes = Vec::new();
    let mut stack: Vec<String> = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let bad = || format!("cargo tree: cannot read {line:?}");
        let digits = line.find(|c: char| !c.is_ascii_digit()).ok_or_else(bad)?;
        let depth: usize = line[..digits].parse().map_err(|_| bad())?;
        let (package, features) = line[digits..].split_once('|').ok_or_else(bad)?;
        let mut words = package.split_whitespace();
        let (Some(name), Some(version)) = (words.next(), words.next()) else {
            return Err(bad());
        };
        if depth > stack.len() {
            return Err(bad());
        }
        stack.truncate(depth);
        stack.push(format!("{name} {version}"));
        // A package printed again is marked `(*)` and adds nothing new.
        if !features.ends_with("(*)") {
            nodes.push(Node {
                name: name.to_owned(),
                features: features
                    .split(',')
                    .filter(|f| !f.is_empty())
                    .map(str::to_owned)
                    .collect(),
                path: stack.clone(),
            });
        }
    }
    Ok(nodes)
}

/// The rule's violations in `tree` (`rule.package` built for `target`);
/// `workspace` names the workspace's crates.
pub fn check(rule: &Rule, target: &str, tree: &[Node], workspace: &[String]) -> Vec<String> {
    let mut broken = Vec::new();
    match tree.first() {
        Some(root) if root.name == rule.package && root.path.len() == 1 => {}
        _ => broken.push(format!(
            "the tree of {} on {target} is not rooted at it",
            rule.package
        )),
    }
    for node in tree.iter().skip(1) {
        let forbidden = rule
            .forbidden
            .iter()
            .flat_map(|list| list.split_whitespace());
        let mut reasons: BTreeSet<String> = forbidden
            .filter_map(|forbidden| match forbidden.split_once('/') {
                None if node.name == forbidden => Some(format!("depends on {forbidden}")),
                Some((name, feature)) if node.name == name && node.features.contains(feature) => {
                    Some(format!("depends on {name} with feature `{feature}`"))
                }
                _ => None,
            })
            .collect();
        if rule.standalone && workspace.contains(&node.name) {
            reasons.insert(format!("depends on workspace crate {}", node.name));
        }
        if let Some(allowed) = rule.only_direct {
            if node.path.len() == 2 && !allowed.split_whitespace().any(|a| a == node.name) {
                reasons.insert(format!(
                    "depends directly on {}, not on its list: {allowed}",
                    node.name
                ));
            }
        }
        for reason in reasons {
            broken.push(format!(
                "{} {reason} on {target} (via {}); rule: {}",
                rule.package,
                node.path.join(" -> "),
                rule.why
            ));
        }
    }
    broken
}
