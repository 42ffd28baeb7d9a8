//! The example's wallet and player routes through its router, on a fresh
//! database: signatures, idempotency, late debits, and a ledger that always
//! adds up to the balance.

use super::*;
use crate::error::AppError;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use eldorado_api::seamless::{sign, SIGNATURE_HEADER};
use http_body_util::BodyExt;
use serde_json::{json, Value};
use tower::ServiceExt;

const SECRET: &[u8] = b"test wallet secret";
const START: u64 = 1_000;
const OPERATOR_KEY: &str = "test-operator-api-key-0123456789abcdef";

struct Portal {
    router: Router,
    db: Db,
    _dir: tempfile::TempDir,
}

impl Portal {
    fn new() -> Portal {
        Portal::with_game("http://127.0.0.1:9")
    }

    fn with_game(game_url: &str) -> Portal {
        let dir = tempfile::tempdir().expect("temporary directory");
        let db = Db::open(&dir.path().join("portal.sqlite3")).expect("open the database");
        let app = App {
            db: db.clone(),
            game: GameServer::new(game_url, OPERATOR_KEY, Duration::from_secs(5))
                .expect("a client"),
            wallet_secret: Arc::new(SECRET.to_vec()),
            public_url: "http://127.0.0.1:8090".into(),
            game_origin: "http://localhost:8080".into(),
            starting_balance_cents: START,
            max_deposit_cents: 10_000,
            session_ttl: Duration::from_secs(60),
        };
        Portal {
            router: router(app, 16 * 1024),
            db,
            _dir: dir,
        }
    }

    async fn send(&self, request: Request<Body>) -> (StatusCode, Option<String>, Value) {
        let response = self.router.clone().oneshot(request).await.expect("answer");
        let status = response.status();
        let cookie = response
            .headers()
            .get("set-cookie")
            .map(|v| v.to_str().unwrap().to_owned());
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let body = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes).expect("JSON body")
        };
        (status, cookie, body)
    }

    async fn login(&self, name: &str) -> String {
        let (status, cookie, body) = self
            .send(
                Request::post("/api/login")
                    .header("content-type", "application/json")
                    .body(Body::from(json!({"name": name}).to_string()))
                    .unwrap(),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        cookie
            .expect("a session cookie")
            .split(';')
            .next()
            .unwrap()
            .to_owned()
    }

    /// A wallet call signed with `secret`.
    async fn wallet_with(&self, secret: &[u8], route: &str, body: Value) -> (StatusCode, Value) {
        let bytes = body.to_string();
        let (status, _, answer) = self
            .send(
                Request::post(format!("/wallet/{route}"))
                    .header("content-type", "application/json")
                    .header(SIGNATURE_HEADER, sign(secret, bytes.as_bytes()))
                    .body(Body::from(bytes))
                    .unwrap(),
            )
            .await;
        (status, answer)
    }

    async fn wallet(&self, route: &str, body: Value) -> (StatusCode, Value) {
        self.wallet_with(SECRET, route, body).await
    }

    /// The balance, and the sum of the player's ledger rows, which must agree.
    async fn books(&self, player: &str) -> (u64, i64) {
        let player = player.to_owned();
        self.db
            .write(move |tx| {
                let balance = db::balance(tx, &player)?.unwrap_or(0);
                let sum: i64 = tx.query_row(
                    "SELECT COALESCE(SUM(amount_cents), 0) FROM ledger WHERE player_id = ?1",
                    [&player],
                    |row| row.get(0),
                )?;
                Ok::<_, AppError>((balance, sum))
            })
            .await
            .expect("read the books")
    }
}

fn debit(id: &str, player: &str, amount: u64) -> Value {
    json!({"transaction_id": format!("debit:{id}"), "round_id": id, "player_id": player, "amount_cents": amount})
}

fn credit(id: &str, player: &str, amount: u64) -> Value {
    json!({"transaction_id": format!("credit:{id}"), "round_id": id, "player_id": player, "amount_cents": amount})
}

fn rollback(id: &str, player: &str, amount: u64) -> Value {
    json!({"transaction_id": format!("rollback:{id}"), "original_transaction_id": format!("debit:{id}"),
           "round_id": id, "player_id": player, "amount_cents": amount})
}

#[tokio::test]
async fn a_bad_signature_is_401_and_moves_nothing() {
    let portal = Portal::new();
    portal.login("alice").await;
    let (status, body) = portal
        .wallet_with(b"another secret", "debit", debit("r1", "alice", 100))
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
    let (status, _, _) = portal
        .send(
            Request::post("/wallet/balance")
                .body(Body::from(json!({"player_id": "alice"}).to_string()))
                .unwrap(),
        )
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "no signature header");
    assert_eq!(portal.books("alice").await, (START, START as i64));
    // The same debit, signed, is taken: the refusal left no trace.
    let (status, body) = portal.wallet("debit", debit("r1", "alice", 100)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body, json!({"status": "ok", "balance_cents": START - 100}));
}

#[tokio::test]
async fn debits_and_credits_apply_once_per_transaction_id() {
    let portal = Portal::new();
    portal.login("alice").await;
    let (_, first) = portal.wallet("debit", debit("r1", "alice", 100)).await;
    let (status, again) = portal.wallet("debit", debit("r1", "alice", 100)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(first, again);
    assert_eq!(first["balance_cents"], 900);
    let (_, paid) = portal.wallet("credit", credit("r1", "alice", 250)).await;
    let (_, repaid) = portal.wallet("credit", credit("r1", "alice", 250)).await;
    assert_eq!(paid, json!({"status": "ok", "balance_cents": 1150}));
    assert_eq!(paid, repaid);
    // The same id with another amount is a caller's bug: refused, nothing moves.
    let (status, _) = portal.wallet("credit", credit("r1", "alice", 999)).await;
    assert_eq!(status, StatusCode::CONFLICT);
    let (status, balance) = portal
        .wallet("balance", json!({"player_id": "alice"}))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(balance, json!({"balance_cents": 1150}));
    assert_eq!(portal.books("alice").await, (1150, 1150));
}

#[tokio::test]
async fn a_debit_beyond_the_balance_is_insufficient_funds() {
    let portal = Portal::new();
    portal.login("alice").await;
    let (status, body) = portal
        .wallet("debit", debit("r1", "alice", START + 1))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        body,
        json!({"status": "insufficient_funds", "balance_cents": START})
    );
    let (_, unknown) = portal.wallet("debit", debit("r2", "nobody", 100)).await;
    assert_eq!(unknown["status"], "refused");
    let (status, _) = portal
        .wallet("balance", json!({"player_id": "nobody"}))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // A rollback of a refused debit has nothing to undo.
    let (_, undone) = portal
        .wallet("rollback", rollback("r1", "alice", START + 1))
        .await;
    assert_eq!(undone, json!({"status": "ok", "balance_cents": START}));
    assert_eq!(portal.books("alice").await, (START, START as i64));
}

#[tokio::test]
async fn a_rollback_refunds_a_debit_once() {
    let portal = Portal::new();
    portal.login("alice").await;
    portal.wallet("debit", debit("r1", "alice", 200)).await;
    let (_, undone) = portal
        .wallet("rollback", rollback("r1", "alice", 200))
        .await;
    assert_eq!(undone, json!({"status": "ok", "balance_cents": START}));
    let (_, again) = portal
        .wallet("rollback", rollback("r1", "alice", 200))
        .await;
    assert_eq!(undone, again);
    // Another rollback id for the same debit refunds nothing more.
    let mut other = rollback("r1", "alice", 200);
    other["transaction_id"] = json!("rollback:r1-bis");
    let (_, twice) = portal.wallet("rollback", other).await;
    assert_eq!(twice["balance_cents"], START);
    assert_eq!(portal.books("alice").await, (START, START as i64));
}

#[tokio::test]
async fn a_debit_arriving_after_its_rollback_is_refused() {
    let portal = Portal::new();
    portal.login("alice").await;
    let (_, undone) = portal
        .wallet("rollback", rollback("r1", "alice", 100))
        .await;
    assert_eq!(undone, json!({"status": "ok", "balance_cents": START}));
    let (status, late) = portal.wallet("debit", debit("r1", "alice", 100)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(late, json!({"status": "refused", "balance_cents": START}));
    assert_eq!(portal.books("alice").await, (START, START as i64));
}

#[tokio::test]
async fn bad_wallet_bodies_are_400() {
    let portal = Portal::new();
    portal.login("alice").await;
    for body in [
        debit("r 1", "alice", 100),
        debit("r1", "alice", 0),
        json!({"transaction_id": "debit:r1", "player_id": "alice"}),
    ] {
        let (status, answer) = portal.wallet("debit", body).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
    }
    assert_eq!(portal.books("alice").await, (START, START as i64));
}

#[tokio::test]
async fn players_log_in_by_name_and_use_the_cashier() {
    let portal = Portal::new();
    let (status, _, _) = portal
        .send(Request::get("/api/me").body(Body::empty()).unwrap())
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let cookie = portal.login("alice").await;
    let me = |cookie: &str| {
        Request::get("/api/me")
            .header("cookie", cookie)
            .body(Body::empty())
            .unwrap()
    };
    let (status, _, body) = portal.send(me(&cookie)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body, json!({"player_id": "alice", "balance_cents": START}));
    let deposit = |amount: u64| {
        Request::post("/api/cashier")
            .header("cookie", &cookie)
            .header("content-type", "application/json")
            .body(Body::from(json!({"amount_cents": amount}).to_string()))
            .unwrap()
    };
    let (status, _, body) = portal.send(deposit(500)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["balance_cents"], START + 500);
    let (status, _, _) = portal.send(deposit(10_001)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    // Logging in again keeps the player's money.
    let second = portal.login("alice").await;
    let (_, _, body) = portal.send(me(&second)).await;
    assert_eq!(body["balance_cents"], START + 500);
    assert_eq!(
        portal.books("alice").await,
        (START + 500, (START + 500) as i64)
    );
    let (status, _, _) = portal
        .send(
            Request::post("/api/logout")
                .header("cookie", &second)
                .body(Body::empty())
                .unwrap(),
        )
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, _, _) = portal.send(me(&second)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn the_page_may_frame_the_game_only() {
    let portal = Portal::new();
    let response = portal
        .router
        .clone()
        .oneshot(Request::get("/").body(Body::empty()).unwrap())
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let policy = response.headers()["content-security-policy"]
        .to_str()
        .unwrap();
    assert!(
        policy.contains("frame-src http://localhost:8080;"),
        "{policy}"
    );
}

/// A stand-in for the game server's `POST /api/operator/launches`: records
/// what it was sent and answers as the game does (201 `Launch`), or
/// refuses every launch when `refuse` is set.
async fn fake_game(refuse: bool) -> (String, Arc<std::sync::Mutex<Vec<(String, Value)>>>) {
    use axum::routing::post;
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let record = seen.clone();
    let app = Router::new().route(
        "/api/operator/launches",
        post(
            move |headers: axum::http::HeaderMap, body: axum::Json<Value>| {
                let record = record.clone();
                async move {
                    let auth = headers["authorization"].to_str().unwrap().to_owned();
                    record.lock().unwrap().push((auth, body.0));
                    if refuse {
                        return (
                            StatusCode::FORBIDDEN,
                            axum::Json(json!({"error": {"code": "FORBIDDEN", "message": "no"}})),
                        );
                    }
                    (
                        StatusCode::CREATED,
                        axum::Json(json!({
                            "url": "http://localhost:8080/?launch=00ff&lang=en",
                            "expires_at_ms": 1_796_200_060_000u64
                        })),
                    )
                }
            },
        ),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}"), seen)
}

fn launch_request(cookie: Option<&str>, lang: &str) -> Request<Body> {
    let mut request = Request::post("/api/launch").header("content-type", "application/json");
    if let Some(cookie) = cookie {
        request = request.header("cookie", cookie);
    }
    request
        .body(Body::from(json!({"lang": lang}).to_string()))
        .unwrap()
}

#[tokio::test]
async fn a_launch_asks_the_game_with_the_operator_key_for_the_logged_in_player() {
    let (game, seen) = fake_game(false).await;
    let portal = Portal::with_game(&game);
    let (status, _, _) = portal.send(launch_request(None, "en")).await;
    assert_eq!(
        status,
        StatusCode::UNAUTHORIZED,
        "no launch without a log-in"
    );
    let cookie = portal.login("alice").await;
    let (status, _, body) = portal.send(launch_request(Some(&cookie), "de")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(seen.lock().unwrap().is_empty(), "nothing asked of the game");

    let (status, _, body) = portal.send(launch_request(Some(&cookie), "en")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // The page gets the URL only: neither the key nor anything else.
    assert_eq!(
        body,
        json!({"url": "http://localhost:8080/?launch=00ff&lang=en"})
    );
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen,
        vec![(
            format!("Bearer {OPERATOR_KEY}"),
            json!({"player_id": "alice", "lang": "en",
                   "lobby_url": "http://127.0.0.1:8090/", "mode": "real"})
        )]
    );
}

#[tokio::test]
async fn a_refused_launch_is_502_without_the_games_details() {
    let (game, _) = fake_game(true).await;
    let portal = Portal::with_game(&game);
    let cookie = portal.login("alice").await;
    let (status, _, body) = portal.send(launch_request(Some(&cookie), "fr")).await;
    assert_eq!(status, StatusCode::BAD_GATEWAY);
    assert_eq!(body["error"]["code"], "GAME_UNAVAILABLE");
    assert!(!body.to_string().contains("FORBIDDEN"), "{body}");
}
