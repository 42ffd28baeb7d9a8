//! Shared helpers: one server per test binary for the tests that only need
//! their own players, and requests through `tower::ServiceExt::oneshot`.

use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use axum::Router;
use eldorado_engine::{verify_sale, Expected, PublicKeyBytes, SignedCommitment, SignedSale};
use eldorado_server::{app, AppState, Config};
use http_body_util::BodyExt;
use serde_json::Value;
use std::path::PathBuf;
use std::sync::OnceLock;
use tower::ServiceExt;

pub const DEMO_SEED: u64 = 20_060_101;

/// A fresh data directory under the target's temporary directory, emptied
/// first so that runs do not pile up databases.
pub fn data_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("server-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub fn config(dir: &std::path::Path) -> Config {
    let mut config = Config::new(dir);
    config.demo_seed = Some(DEMO_SEED);
    config.web_dir = dir.join("web");
    // Every request of a test shares one address: no per-address limit.
    config.limits.demo_players_per_minute = u32::MAX;
    config.limits.sales_per_second = u32::MAX;
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

/// The server shared by the tests of this binary.
pub fn shared() -> &'static AppState {
    static SHARED: OnceLock<AppState> = OnceLock::new();
    SHARED.get_or_init(|| {
        let dir = data_dir("shared");
        std::fs::create_dir_all(dir.join("web/www/pkg")).unwrap();
        std::fs::write(
            dir.join("web/index.html"),
            "<!doctype html><title>Eldorado</title>",
        )
        .unwrap();
        std::fs::write(dir.join("web/www/pkg/game_bg.wasm"), b"\0asm\x01\0\0\0").unwrap();
        AppState::start_blocking(config(&dir)).expect("the shared server starts")
    })
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
