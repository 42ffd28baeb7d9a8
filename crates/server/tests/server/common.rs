//! Shared helpers: servers made from templates, and requests through
//! `tower::ServiceExt::oneshot`.
//!
//! Every server of this binary starts from a copy of one of two templates,
//! with nothing sold yet:
//! - the seeded one (`fresh_server`): a `--demo --demo-seed` server, six
//!   play-money blocks (an open and a pending one per stake) in a known
//!   order, for demo players whose assertions depend on the ticket drawn.
//!   A seeded server sells no real money and admits no operator player.
//! - the mixed one (`fresh_mixed_server`, and `shared()`): a `--demo`
//!   server without a seed, twelve blocks from OS randomness (both lines
//!   of each stake), for tests with operator players, whose assertions
//!   hold whatever ticket they draw or read it from the store.

use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use axum::Router;
use eldorado_engine::generate::demo_rng;
use eldorado_engine::{
    generate_block, verify_sale, Block, Expected, Params, PublicKeyBytes, SignedCommitment,
    SignedSale, Stake,
};
use eldorado_server::{app, AppState, Config};
use http_body_util::BodyExt;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use tower::ServiceExt;

pub const DEMO_SEED: u64 = 20_060_101;

/// A fresh data directory under the target's temporary directory, emptied
/// first so that runs do not pile up databases. Its name carries the
/// checkout's path, since several checkouts may share one target directory
/// and test at the same time.
pub fn data_dir(name: &str) -> PathBuf {
    let checkout = env!("CARGO_MANIFEST_DIR")
        .bytes()
        .fold(0u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b)));
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("server-{checkout:08x}-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A demo server with a fixed seed: play-money blocks only, reproducible.
pub fn config(dir: &Path) -> Config {
    let mut config = Config::new(dir);
    config.demo = true;
    config.demo_seed = Some(DEMO_SEED);
    config.web_dir = dir.join("web");
    // Every request of a test shares one address: no per-address limit.
    config.limits.demo_players_per_minute = u32::MAX;
    config.limits.sales_per_second = u32::MAX;
    config.limits.launches_per_minute = u32::MAX;
    config.limits.console_sign_ins_per_minute = u32::MAX;
    config
}

/// Another server on the shared data directory (its blocks are ready, so it
/// starts without generating any), with its own limits and clock.
pub fn shared_with(
    adjust: impl FnOnce(&mut Config),
    clock: std::sync::Arc<eldorado_server::clock::ManualClock>,
) -> AppState {
    let mut config = shared().config.clone();
    adjust(&mut config);
    AppState::start_blocking_with_clock(config, clock).expect("a second server starts")
}

/// A template's data directory: a server started once on it, kept running
/// and never sent a request, so that its files stay as they were when it
/// finished starting (a closing SQLite connection would checkpoint the WAL
/// into the database while it is being copied). Generating blocks of
/// 400,000 tickets takes seconds; copying them does not.
pub fn make_template(name: &str, config: impl FnOnce(&Path) -> Config) -> (PathBuf, AppState) {
    let dir = data_dir(name);
    crate::built_page::write_built_page(
        &dir.join("web"),
        &[
            (
                "www/pkg/index.html",
                b"<!doctype html><title>Eldorado</title>".as_slice(),
            ),
            ("www/pkg/game_bg.wasm", b"\0asm\x01\0\0\0".as_slice()),
        ],
    );
    let state = AppState::start_blocking(config(&dir)).expect("the template server starts");
    (dir, state)
}

/// The seeded template (play money only).
fn template() -> &'static Path {
    static TEMPLATE: OnceLock<(PathBuf, AppState)> = OnceLock::new();
    &TEMPLATE.get_or_init(|| make_template("template", config)).0
}

/// The mixed template (real and play money, OS randomness).
fn mixed_template() -> &'static Path {
    static TEMPLATE: OnceLock<(PathBuf, AppState)> = OnceLock::new();
    &TEMPLATE
        .get_or_init(|| make_template("mixed-template", mixed_config))
        .0
}

/// A demo server without a seed: both kinds of money, each its own blocks.
pub fn mixed_config(dir: &Path) -> Config {
    let mut config = config(dir);
    config.demo_seed = None;
    config
}

/// Copies a directory tree, leaving out SQLite's shared-memory index: it
/// belongs to the running template, and SQLite rebuilds it from the WAL.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if name.to_string_lossy().ends_with("-shm") {
            continue;
        }
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &to.join(&name));
        } else {
            std::fs::copy(entry.path(), to.join(&name)).unwrap();
        }
    }
}

/// The data directory of a new server named `name`, holding the seeded
/// template's blocks, keys and page, with nothing sold.
pub fn fresh_data_dir(name: &str) -> PathBuf {
    let template = template();
    let dir = data_dir(name);
    copy_tree(template, &dir);
    dir
}

/// A seeded server of its own for one test: the template's blocks, nothing sold.
pub fn fresh_server(name: &str) -> AppState {
    let dir = fresh_data_dir(name);
    AppState::start_blocking(config(&dir)).expect("a fresh server starts")
}

/// The data directory of a new server named `name`, holding the mixed
/// template's blocks, keys and page, with nothing sold.
pub fn fresh_mixed_data_dir(name: &str) -> PathBuf {
    let template = mixed_template();
    let dir = data_dir(name);
    copy_tree(template, &dir);
    dir
}

/// A mixed server of its own for one test (real and play money).
pub fn fresh_mixed_server(name: &str) -> AppState {
    let dir = fresh_mixed_data_dir(name);
    AppState::start_blocking(mixed_config(&dir)).expect("a fresh mixed server starts")
}

/// The mixed server shared by the tests whose assertions hold whatever
/// ticket they draw.
pub fn shared() -> &'static AppState {
    static SHARED: OnceLock<AppState> = OnceLock::new();
    SHARED.get_or_init(|| fresh_mixed_server("shared"))
}

/// Block `id` exactly as a server seeded with `DEMO_SEED` generated it.
pub fn seeded_block(id: u64, stake_cents: u64) -> Block {
    let stake = Stake::from_cents(stake_cents).unwrap();
    generate_block(id, stake, &Params::default(), &mut demo_rng(DEMO_SEED, id)).unwrap()
}

/// The blocks of `status` ("open", "pending", ...) at a stake, over HTTP
/// (on a seeded server: all play money).
pub async fn blocks_of(router: &Router, status: &str, stake: u64) -> Vec<Value> {
    let blocks = call(router, Method::GET, "/api/blocks", None, None).await;
    assert_eq!(blocks.status, StatusCode::OK, "{}", blocks.body);
    blocks.body["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["status"] == status && b["commitment"]["stake_cents"] == stake)
        .cloned()
        .collect()
}

/// The one open block of a stake on a seeded server.
pub async fn open_block(router: &Router, stake: u64) -> Value {
    open_block_of(router, stake, "play").await
}

/// The one open block of a stake sold for `money` ("real" or "play").
pub async fn open_block_of(router: &Router, stake: u64, money: &str) -> Value {
    let open: Vec<Value> = blocks_of(router, "open", stake)
        .await
        .into_iter()
        .filter(|b| b["commitment"]["money"] == money)
        .collect();
    assert_eq!(open.len(), 1, "open {money} blocks at {stake}: {open:?}");
    open.into_iter().next().unwrap()
}

pub fn operator_key(state: &AppState) -> String {
    std::fs::read_to_string(state.config.data_dir.join("operator-api.key")).unwrap()
}

pub struct Reply {
    pub status: StatusCode,
    pub headers: axum::http::HeaderMap,
    pub body: Value,
    pub raw: Vec<u8>,
}

pub async fn call(
    router: &Router,
    method: Method,
    path: &str,
    token: Option<&str>,
    body: Option<&str>,
) -> Reply {
    let mut request = Request::builder().method(method).uri(path);
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    if body.is_some() {
        request = request.header("content-type", "application/json");
    }
    let request = request
        .body(body.map_or_else(Body::empty, |b| Body::from(b.to_owned())))
        .unwrap();
    let response = router.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let raw = response
        .into_body()
        .collect()
        .await
        .unwrap()
        .to_bytes()
        .to_vec();
    let body = serde_json::from_slice(&raw).unwrap_or(Value::Null);
    Reply {
        status,
        headers,
        body,
        raw,
    }
}

pub fn router() -> Router {
    app(shared().clone())
}

/// A new demo player: (token, player id).
pub async fn demo_player(router: &Router) -> (String, String) {
    let reply = call(router, Method::POST, "/api/demo/players", None, Some("{}")).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.body);
    assert_eq!(reply.body["balance_cents"], 5000);
    (
        reply.body["token"].as_str().unwrap().to_owned(),
        reply.body["player_id"].as_str().unwrap().to_owned(),
    )
}

pub async fn play(router: &Router, token: &str, stake: u64, key: &str) -> Reply {
    call(
        router,
        Method::POST,
        "/api/sales",
        Some(token),
        Some(&format!(
            r#"{{"stake_cents":{stake},"idempotency_key":"{key}"}}"#
        )),
    )
    .await
}

/// A purchase carrying `client_nonce` as given (any JSON value).
pub async fn play_with_nonce(
    router: &Router,
    token: &str,
    stake: u64,
    key: &str,
    client_nonce: Value,
) -> Reply {
    let body = serde_json::json!({
        "stake_cents": stake,
        "idempotency_key": key,
        "client_nonce": client_nonce,
    });
    call(
        router,
        Method::POST,
        "/api/sales",
        Some(token),
        Some(&body.to_string()),
    )
    .await
}

/// A new operator player `id` holding `cents`; its session token.
pub async fn operator_player(router: &Router, state: &AppState, id: &str, cents: u64) -> String {
    let key = operator_key(state);
    let created = call(
        router,
        Method::POST,
        "/api/operator/sessions",
        Some(&key),
        Some(&format!(r#"{{"player_id":"{id}"}}"#)),
    )
    .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.body);
    let credit = call(
        router,
        Method::POST,
        &format!("/api/operator/players/{id}/credit"),
        Some(&key),
        Some(&format!(
            r#"{{"amount_cents":{cents},"reference":"{id}-start"}}"#
        )),
    )
    .await;
    assert_eq!(credit.body["balance_cents"], cents, "{}", credit.body);
    created.body["token"].as_str().unwrap().to_owned()
}

/// Checks a sale response with the engine exactly as the browser does.
pub fn assert_verified(body: &Value, public_key: &PublicKeyBytes, stake: u64, player: &str) {
    let sale: SignedSale = serde_json::from_value(body["sale"].clone()).unwrap();
    let commitment: SignedCommitment = serde_json::from_value(body["commitment"].clone()).unwrap();
    let report = verify_sale(
        &sale,
        &commitment,
        public_key,
        &Expected {
            stake_cents: Some(stake),
            ..Expected::default()
        },
    );
    assert!(report.is_verified(), "{:?}", report.first_failure());
    assert_eq!(sale.sale.player, player);
    let before = body["balance_before_cents"].as_u64().unwrap();
    let after = body["balance_after_cents"].as_u64().unwrap();
    assert_eq!(after + stake, before + sale.sale.ticket.prize_cents);
}

pub fn public_key(state: &AppState) -> PublicKeyBytes {
    state.public_key
}

/// Every series `deploy/grafana/eldorado-dashboard.json` queries: the
/// `eldorado_*` names in its panels' expressions.
pub fn dashboard_series() -> std::collections::BTreeSet<String> {
    let text = include_str!("../../../../deploy/grafana/eldorado-dashboard.json");
    let dashboard: Value = serde_json::from_str(text).expect("the dashboard is JSON");
    let mut exprs = Vec::new();
    collect_exprs(&dashboard, &mut exprs);
    assert!(!exprs.is_empty(), "the dashboard has no queries");
    let mut names = std::collections::BTreeSet::new();
    for expr in exprs {
        let mut rest = expr.as_str();
        while let Some(at) = rest.find("eldorado_") {
            let name: String = rest[at..]
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            rest = &rest[at + name.len()..];
            names.insert(name);
        }
    }
    names
}

fn collect_exprs(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, value) in map {
                match (key.as_str(), value) {
                    ("expr", Value::String(expr)) => out.push(expr.clone()),
                    _ => collect_exprs(value, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_exprs(v, out)),
        _ => {}
    }
}

/// The dashboard's series only a server with `--wallet` exports.
pub const WALLET_SERIES: [&str; 3] = [
    "eldorado_wallet_calls_total",
    "eldorado_wallet_outbox_backlog",
    "eldorado_wallet_outbox_oldest_age_seconds",
];

/// The dashboard's series only a server on PostgreSQL exports (checked by
/// the deployment test `three_servers_sell_each_ticket_once_and_conserve_money`).
pub const POSTGRES_SERIES: [&str; 2] = [
    "eldorado_db_pool_connections",
    "eldorado_db_pool_wait_seconds_bucket",
];

/// Whether a scrape has samples of the series `name`.
pub fn scrape_has(text: &str, name: &str) -> bool {
    text.lines().any(|line| {
        line.strip_prefix(name)
            .is_some_and(|rest| rest.starts_with('{') || rest.starts_with(' '))
    })
}
