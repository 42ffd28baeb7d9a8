//! The dependency rules of ARCHITECTURE.md as data, and a checker that
//! applies them to the output of `cargo metadata --format-version 1`.
//!
//! `cargo metadata` resolves features once for the whole workspace, so a
//! feature that one member turns on shows up in the graph of every member
//! sharing that dependency (the browser's `getrandom/wasm_js` would appear
//! under the engine). The checker therefore resolves each checked package
//! on its own, as `cargo build -p <package>` does, from the declared
//! dependencies and feature tables the metadata also lists.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::fmt;

/// Something a package must not have among its normal dependencies, at any
/// depth, on any target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Forbidden {
    /// A package, whatever its features.
    Package(&'static str),
    /// A package with this feature turned on.
    Feature(&'static str, &'static str),
    /// Any other package of the workspace.
    AnyWorkspaceMember,
}

use Forbidden::{AnyWorkspaceMember, Feature, Package};

/// One rule of ARCHITECTURE.md.
#[derive(Clone, Copy, Debug)]
pub struct Rule {
    pub package: &'static str,
    /// A rule for a package that is not (yet) in the workspace is skipped
    /// unless it is required; a required one then fails, so that renaming a
    /// crate cannot silently switch its rule off.
    pub required: bool,
    /// Where the rule comes from, printed with each violation.
    pub why: &'static str,
    pub forbidden: &'static [&'static [Forbidden]],
}

/// Runtimes, sockets and HTTP.
pub const NETWORK: &[Forbidden] = &[
    Package("tokio"),
    Package("async-std"),
    Package("smol"),
    Package("mio"),
    Package("socket2"),
    Package("hyper"),
    Package("axum"),
    Package("tower"),
    Package("reqwest"),
    Package("ureq"),
];

/// Database clients and engines.
pub const DATABASES: &[Forbidden] = &[
    Package("rusqlite"),
    Package("libsqlite3-sys"),
    Package("sqlx"),
    Package("postgres"),
    Package("tokio-postgres"),
];

/// The browser's bindings.
pub const BROWSER: &[Forbidden] = &[
    Package("wasm-bindgen"),
    Package("web-sys"),
    Package("js-sys"),
    Feature("getrandom", "wasm_js"),
    Feature("getrandom", "js"),
];

/// The operating system's randomness and the wall clock: the caller passes
/// in an RNG and a time.
pub const OS_RANDOMNESS_AND_CLOCK: &[Forbidden] = &[
    Package("getrandom"),
    Feature("rand", "os_rng"),
    Feature("rand", "thread_rng"),
    Feature("chrono", "clock"),
];

/// The crates that make up the server.
pub const SERVER: &[Forbidden] = &[
    Package("eldorado-server"),
    Package("eldorado-cli"),
    Package("axum"),
    Package("hyper"),
    Package("tokio"),
    Package("rusqlite"),
    Package("libsqlite3-sys"),
    Package("sqlx"),
    Package("tokio-postgres"),
];

/// ARCHITECTURE.md, "Code map": who may not depend on what.
pub const RULES: &[Rule] = &[
    Rule {
        package: "eldorado-engine",
        required: true,
        why: "the engine is pure rules: no I/O, HTTP, database, wasm-bindgen/web-sys, \
              clock or OS randomness, and it stands alone",
        forbidden: &[
            NETWORK,
            DATABASES,
            BROWSER,
            OS_RANDOMNESS_AND_CLOCK,
            &[AnyWorkspaceMember],
        ],
    },
    Rule {
        package: "eldorado-api",
        required: false,
        why: "the API types are shared by the server and the page, so they do no I/O \
              and depend on neither",
        forbidden: &[
            NETWORK,
            DATABASES,
            BROWSER,
            OS_RANDOMNESS_AND_CLOCK,
            &[
                Package("eldorado-server"),
                Package("eldorado-web"),
                Package("eldorado-cli"),
                Package("eldorado-e2e"),
            ],
        ],
    },
    Rule {
        package: "eldorado-server",
        required: true,
        why: "the server may not depend on the browser crate",
        forbidden: &[&[Package("eldorado-web"), Package("eldorado-e2e")]],
    },
    Rule {
        package: "eldorado-web",
        required: true,
        why: "the page may not depend on the server: outcomes come only from signed sales",
        forbidden: &[SERVER, &[Package("eldorado-e2e")]],
    },
    Rule {
        package: "eldorado-portal-example",
        required: true,
        why: "the example operator uses only the published HTTP contracts (the API types), \
              as an operator's own back end would: never the game server's code",
        forbidden: &[&[
            Package("eldorado-server"),
            Package("eldorado-cli"),
            Package("eldorado-web"),
            Package("eldorado-e2e"),
        ]],
    },
];

/// A dependency as written in a manifest.
#[derive(Clone, Debug)]
struct Declared {
    /// The package's name.
    name: String,
    /// The name the manifest's feature table refers to it by.
    key: String,
    /// `Some` for a renamed dependency: the name the code uses.
    rename: Option<String>,
    normal: bool,
    optional: bool,
    default_features: bool,
    features: Vec<String>,
    /// `cfg(...)` or a target triple; `None` on every target.
    target: Option<String>,
}

#[derive(Clone, Debug)]
struct PackageInfo {
    name: String,
    version: String,
    features: BTreeMap<String, Vec<String>>,
    declared: Vec<Declared>,
}

/// An edge of the workspace-wide resolve.
#[derive(Clone, Debug)]
struct Edge {
    extern_name: String,
    target: String,
    normal: bool,
}

/// What the checker needs of `cargo metadata --format-version 1`.
#[derive(Clone, Debug)]
pub struct Metadata {
    packages: HashMap<String, PackageInfo>,
    members: BTreeSet<String>,
    edges: HashMap<String, Vec<Edge>>,
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(|s| s.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn text(value: &Value, what: &str) -> Result<String, String> {
    value
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("cargo metadata: {what} is not a string"))
}

/// Dependency kinds are `null` for normal, "dev" and "build".
fn is_normal(kind: &Value) -> bool {
    kind.is_null() || kind == "normal"
}

impl Metadata {
    pub fn parse(json: &str) -> Result<Metadata, String> {
        let value: Value =
            serde_json::from_str(json).map_err(|e| format!("cargo metadata: {e}"))?;
        Metadata::from_value(&value)
    }

    pub fn from_value(value: &Value) -> Result<Metadata, String> {
        let mut packages = HashMap::new();
        for package in value["packages"].as_array().ok_or("no packages")? {
            let features = package["features"]
                .as_object()
                .map(|table| {
                    table
                        .iter()
                        .map(|(name, enables)| (name.clone(), strings(enables)))
                        .collect()
                })
                .unwrap_or_default();
            let mut declared = Vec::new();
            for dep in package["dependencies"].as_array().into_iter().flatten() {
                let name = text(&dep["name"], "a dependency's name")?;
                let rename = dep["rename"].as_str().map(str::to_owned);
                declared.push(Declared {
                    key: rename.clone().unwrap_or_else(|| name.clone()),
                    name,
                    rename,
                    normal: is_normal(&dep["kind"]),
                    optional: dep["optional"].as_bool().unwrap_or(false),
                    default_features: dep["uses_default_features"].as_bool().unwrap_or(true),
                    features: strings(&dep["features"]),
                    target: dep["target"].as_str().map(str::to_owned),
                });
            }
            packages.insert(
                text(&package["id"], "a package id")?,
                PackageInfo {
                    name: text(&package["name"], "a package name")?,
                    version: package["version"].as_str().unwrap_or("").to_owned(),
                    features,
                    declared,
                },
            );
        }
        let members = strings(&value["workspace_members"]).into_iter().collect();
        let mut edges = HashMap::new();
        let nodes = value["resolve"]["nodes"]
            .as_array()
            .ok_or("cargo metadata: no resolve graph (was --no-deps given?)")?;
        for node in nodes {
            let mut out = Vec::new();
            for dep in node["deps"].as_array().into_iter().flatten() {
                out.push(Edge {
                    extern_name: dep["name"].as_str().unwrap_or("").to_owned(),
                    target: text(&dep["pkg"], "a dependency's package id")?,
                    normal: dep["dep_kinds"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .any(|k| is_normal(&k["kind"])),
                });
            }
            edges.insert(text(&node["id"], "a node id")?, out);
        }
        Ok(Metadata {
            packages,
            members,
            edges,
        })
    }

    /// The id of the package called `name`, if the workspace has it.
    pub fn id_of(&self, name: &str) -> Option<&str> {
        self.packages
            .iter()
            .find(|(id, p)| p.name == name && self.members.contains(*id))
            .or_else(|| self.packages.iter().find(|(_, p)| p.name == name))
            .map(|(id, _)| id.as_str())
    }

    pub fn has_package(&self, name: &str) -> bool {
        self.id_of(name).is_some()
    }

    fn name_of(&self, id: &str) -> String {
        self.packages
            .get(id)
            .map_or_else(|| id.to_owned(), |p| format!("{} {}", p.name, p.version))
    }

    /// The resolved packages a declared dependency stands for.
    fn targets_of(&self, from: &str, declared: &Declared) -> Vec<String> {
        let Some(edges) = self.edges.get(from) else {
            return Vec::new();
        };
        edges
            .iter()
            .filter(|edge| edge.normal)
            .filter(|edge| {
                self.packages
                    .get(&edge.target)
                    .is_some_and(|p| p.name == declared.name)
            })
            .filter(|edge| match &declared.rename {
                Some(rename) => edge.extern_name == rename.replace('-', "_"),
                None => true,
            })
            .map(|edge| edge.target.clone())
            .collect()
    }

    /// Every package `root` builds with (normal dependencies, features as
    /// if it were built alone, on `platform` or on every target if `None`),
    /// with the features each has and the package that first pulled it in.
    pub fn resolve(&self, root: &str, platform: Option<&Platform>) -> Resolved {
        let mut resolver = Resolver {
            metadata: self,
            platform,
            resolved: Resolved::default(),
            active_deps: BTreeSet::new(),
            waiting: HashMap::new(),
            jobs: VecDeque::new(),
        };
        resolver.activate(root, None);
        resolver
            .jobs
            .push_back(Job::Feature(root.to_owned(), "default".to_owned()));
        resolver.run();
        resolver.resolved
    }

    /// Checks one rule on one platform; a package the workspace lacks
    /// fails only a required rule.
    pub fn check(&self, rule: &Rule, platform: Option<&Platform>) -> Vec<Violation> {
        let Some(root) = self.id_of(rule.package) else {
            return if rule.required {
                vec![Violation {
                    rule: *rule,
                    platform: None,
                    broken_by: "the package is missing from the workspace".to_owned(),
                    path: Vec::new(),
                }]
            } else {
                Vec::new()
            };
        };
        let resolved = self.resolve(root, platform);
        let mut violations = Vec::new();
        for (id, features) in &resolved.features {
            if id == root {
                continue;
            }
            let Some(package) = self.packages.get(id) else {
                continue;
            };
            for forbidden in rule.forbidden.iter().flat_map(|group| group.iter()) {
                let broken_by = match *forbidden {
                    Package(name) if package.name == name => format!("depends on {name}"),
                    Feature(name, feature)
                        if package.name == name && features.contains(feature) =>
                    {
                        format!("depends on {name} with feature `{feature}`")
                    }
                    AnyWorkspaceMember if self.members.contains(id) => {
                        format!("depends on workspace crate {}", package.name)
                    }
                    _ => continue,
                };
                violations.push(Violation {
                    rule: *rule,
                    platform: platform.map(|p| p.triple.clone()),
                    broken_by,
                    path: resolved
                        .path_to(id)
                        .iter()
                        .map(|i| self.name_of(i))
                        .collect(),
                });
            }
        }
        violations.sort_by(|a, b| (&a.broken_by, &a.path).cmp(&(&b.broken_by, &b.path)));
        violations
    }

    /// Checks every rule of a table on every platform given.
    pub fn check_all(&self, rules: &[Rule], platforms: &[Platform]) -> Vec<Violation> {
        let mut violations: Vec<Violation> = Vec::new();
        for rule in rules {
            for platform in platforms {
                for violation in self.check(rule, Some(platform)) {
                    // A missing package is reported once, not per platform.
                    if violation.platform.is_some()
                        || violations.iter().all(|v| v.rule.package != rule.package)
                    {
                        violations.push(violation);
                    }
                }
            }
        }
        violations
    }

    /// `(name, version)` of a package.
    pub fn name_and_version(&self, id: &str) -> Option<(String, String)> {
        self.packages
            .get(id)
            .map(|p| (p.name.clone(), p.version.clone()))
    }
}

/// One package's build: its packages with their features.
#[derive(Clone, Debug, Default)]
pub struct Resolved {
    pub features: BTreeMap<String, BTreeSet<String>>,
    parent: HashMap<String, String>,
}

impl Resolved {
    /// The chain of ids from the root down to `id`.
    pub fn path_to(&self, id: &str) -> Vec<String> {
        let mut path = vec![id.to_owned()];
        while let Some(parent) = self.parent.get(path.last().unwrap()) {
            path.push(parent.clone());
        }
        path.reverse();
        path
    }
}

enum Job {
    /// Turn on a feature of a package.
    Feature(String, String),
    /// Turn on the declared dependency number `usize` of a package.
    Dependency(String, usize),
}

struct Resolver<'a> {
    metadata: &'a Metadata,
    platform: Option<&'a Platform>,
    resolved: Resolved,
    active_deps: BTreeSet<(String, usize)>,
    /// `dep?/feature` waiting for `dep` to be turned on: (package, key).
    waiting: HashMap<(String, String), Vec<String>>,
    jobs: VecDeque<Job>,
}

impl<'a> Resolver<'a> {
    fn declared(&self, id: &str) -> &'a [Declared] {
        self.metadata
            .packages
            .get(id)
            .map_or(&[], |p| p.declared.as_slice())
    }

    fn activate(&mut self, id: &str, parent: Option<&str>) {
        if self.resolved.features.contains_key(id) {
            return;
        }
        self.resolved
            .features
            .insert(id.to_owned(), BTreeSet::new());
        if let Some(parent) = parent {
            self.resolved
                .parent
                .insert(id.to_owned(), parent.to_owned());
        }
        for (index, declared) in self.declared(id).iter().enumerate() {
            if declared.normal && !declared.optional && self.on_platform(declared) {
                self.jobs.push_back(Job::Dependency(id.to_owned(), index));
            }
        }
    }

    fn run(&mut self) {
        while let Some(job) = self.jobs.pop_front() {
            match job {
                Job::Dependency(id, index) => self.turn_on_dependency(&id, index),
                Job::Feature(id, feature) => self.turn_on_feature(&id, &feature),
            }
        }
    }

    fn turn_on_dependency(&mut self, id: &str, index: usize) {
        if !self.active_deps.insert((id.to_owned(), index)) {
            return;
        }
        let declared = self.declared(id)[index].clone();
        let waiting = self
            .waiting
            .remove(&(id.to_owned(), declared.key.clone()))
            .unwrap_or_default();
        for target in self.metadata.targets_of(id, &declared) {
            self.activate(&target, Some(id));
            let defaults = declared.default_features.then(|| "default".to_owned());
            for feature in declared.features.iter().cloned().chain(defaults) {
                self.jobs.push_back(Job::Feature(target.clone(), feature));
            }
            for feature in &waiting {
                self.jobs
                    .push_back(Job::Feature(target.clone(), feature.clone()));
            }
        }
    }

    /// The normal dependencies of `id` that a feature table calls `key`
    /// and that exist on the platform.
    fn dependencies_called(&self, id: &str, key: &str) -> Vec<usize> {
        self.declared(id)
            .iter()
            .enumerate()
            .filter(|(_, d)| d.normal && d.key == key && self.on_platform(d))
            .map(|(index, _)| index)
            .collect()
    }

    fn on_platform(&self, declared: &Declared) -> bool {
        match (&declared.target, self.platform) {
            (Some(target), Some(platform)) => platform.matches(target),
            _ => true,
        }
    }

    /// An optional dependency is a feature of its own name unless the
    /// package names it `dep:` somewhere.
    fn has_implicit_feature(&self, id: &str, key: &str) -> bool {
        let Some(package) = self.metadata.packages.get(id) else {
            return false;
        };
        let namespaced = format!("dep:{key}");
        package.declared.iter().any(|d| d.optional && d.key == key)
            && !package
                .features
                .values()
                .flatten()
                .any(|item| *item == namespaced)
    }

    /// `dep/feature` (turns `dep` on) or `dep?/feature` (only if it is on).
    fn dependency_feature(&mut self, id: &str, key: &str, feature: &str, weak: bool) {
        let indices = self.dependencies_called(id, key);
        let on = indices
            .iter()
            .any(|&index| self.active_deps.contains(&(id.to_owned(), index)));
        if on {
            for &index in &indices {
                let declared = self.declared(id)[index].clone();
                for target in self.metadata.targets_of(id, &declared) {
                    self.jobs
                        .push_back(Job::Feature(target, feature.to_owned()));
                }
            }
            return;
        }
        self.waiting
            .entry((id.to_owned(), key.to_owned()))
            .or_default()
            .push(feature.to_owned());
        if !weak {
            // Cargo also turns on the feature named like the dependency,
            // where there is one (`mio = ["dep:mio"]`, or implicit), if the
            // dependency exists on this platform.
            if !indices.is_empty() {
                self.jobs
                    .push_back(Job::Feature(id.to_owned(), key.to_owned()));
            }
            for index in indices {
                self.jobs.push_back(Job::Dependency(id.to_owned(), index));
            }
        }
    }

    fn turn_on_feature(&mut self, id: &str, feature: &str) {
        let table = self
            .metadata
            .packages
            .get(id)
            .and_then(|p| p.features.get(feature))
            .cloned();
        // An optional dependency is also a feature of its own name when the
        // manifest never writes `dep:` for it; any other name (a "default"
        // the package does not define) turns nothing on.
        let implicit = if self.has_implicit_feature(id, feature) {
            self.dependencies_called(id, feature)
        } else {
            Vec::new()
        };
        if table.is_none() && implicit.is_empty() {
            return;
        }
        let Some(enabled) = self.resolved.features.get_mut(id) else {
            return;
        };
        if !enabled.insert(feature.to_owned()) {
            return;
        }
        let Some(enables) = table else {
            for index in implicit {
                self.jobs.push_back(Job::Dependency(id.to_owned(), index));
            }
            return;
        };
        for item in enables {
            if let Some(key) = item.strip_prefix("dep:") {
                for index in self.dependencies_called(id, key) {
                    self.jobs.push_back(Job::Dependency(id.to_owned(), index));
                }
            } else if let Some((key, dep_feature)) = item.split_once('/') {
                match key.strip_suffix('?') {
                    Some(key) => self.dependency_feature(id, key, dep_feature, true),
                    None => self.dependency_feature(id, key, dep_feature, false),
                }
            } else {
                self.jobs.push_back(Job::Feature(id.to_owned(), item));
            }
        }
    }
}

/// A broken rule, with the chain of packages that breaks it.
#[derive(Clone, Debug)]
pub struct Violation {
    pub rule: Rule,
    /// The target triple it was found on.
    pub platform: Option<String>,
    pub broken_by: String,
    /// From the rule's package down to the offending one.
    pub path: Vec<String>,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.rule.package, self.broken_by)?;
        if let Some(platform) = &self.platform {
            write!(f, " on {platform}")?;
        }
        if !self.path.is_empty() {
            write!(f, " (via {})", self.path.join(" -> "))?;
        }
        write!(f, "; rule: {}", self.rule.why)
    }
}

/// A target as `rustc --print cfg` describes it, for the `[target.'cfg(..)']`
/// tables of manifests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Platform {
    pub triple: String,
    cfg: BTreeSet<(String, Option<String>)>,
}

impl Platform {
    /// `print_cfg` is the output of `rustc --print cfg --target <triple>`:
    /// lines `name` or `name="value"`.
    pub fn new(triple: &str, print_cfg: &str) -> Platform {
        let cfg = print_cfg
            .lines()
            .map(str::trim)
            .filter(|line| !line.is_empty())
            .map(|line| match line.split_once('=') {
                Some((name, value)) => (name.to_owned(), Some(value.trim_matches('"').to_owned())),
                None => (line.to_owned(), None),
            })
            .collect();
        Platform {
            triple: triple.to_owned(),
            cfg,
        }
    }

    /// Whether a dependency's `target` (a triple or `cfg(...)`) holds here.
    /// An expression it cannot read holds, so that nothing is overlooked.
    pub fn matches(&self, target: &str) -> bool {
        match target
            .strip_prefix("cfg(")
            .and_then(|t| t.strip_suffix(')'))
        {
            Some(expression) => {
                let tokens = tokenize(expression);
                let mut at = 0;
                match self.predicate(&tokens, &mut at) {
                    Some(value) if at == tokens.len() => value,
                    _ => true,
                }
            }
            None => target == self.triple,
        }
    }

    fn predicate(&self, tokens: &[Token], at: &mut usize) -> Option<bool> {
        let Token::Word(name) = tokens.get(*at)? else {
            return None;
        };
        *at += 1;
        match tokens.get(*at) {
            Some(Token::Open) => {
                *at += 1;
                let mut values = Vec::new();
                while tokens.get(*at) != Some(&Token::Close) {
                    values.push(self.predicate(tokens, at)?);
                    if tokens.get(*at) == Some(&Token::Comma) {
                        *at += 1;
                    }
                }
                *at += 1;
                match name.as_str() {
                    "all" => Some(values.iter().all(|v| *v)),
                    "any" => Some(values.iter().any(|v| *v)),
                    "not" if values.len() == 1 => Some(!values[0]),
                    _ => None,
                }
            }
            Some(Token::Equals) => {
                let Some(Token::Text(value)) = tokens.get(*at + 1) else {
                    return None;
                };
                *at += 2;
                Some(self.cfg.contains(&(name.clone(), Some(value.clone()))))
            }
            _ => Some(self.cfg.contains(&(name.clone(), None))),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Word(String),
    Text(String),
    Open,
    Close,
    Comma,
    Equals,
}

fn tokenize(expression: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut chars = expression.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '(' => tokens.push(Token::Open),
            ')' => tokens.push(Token::Close),
            ',' => tokens.push(Token::Comma),
            '=' => tokens.push(Token::Equals),
            '"' => {
                let text: String = chars.by_ref().take_while(|&c| c != '"').collect();
                tokens.push(Token::Text(text));
            }
            c if c.is_whitespace() => {}
            c => {
                let mut word = c.to_string();
                while let Some(&next) = chars.peek() {
                    if next.is_alphanumeric() || next == '_' || next == '-' || next == '.' {
                        word.push(next);
                        chars.next();
                    } else {
                        break;
                    }
                }
                tokens.push(Token::Word(word));
            }
        }
    }
    tokens
}
