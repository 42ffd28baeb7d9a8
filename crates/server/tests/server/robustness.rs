//! Issue 9: limits (timeouts, load shedding, rate limits), session
//! revocation, health, one sale per idempotency key under concurrency,
//! one sale's fault isolated from its batch, and entry points that are one
//! transaction. Timeouts use tiny configured limits, never long sleeps.

use crate::common::*;
use axum::body::{Body, Bytes};
use axum::http::{Method, Request, StatusCode};
use eldorado_server::clock::ManualClock;
use eldorado_server::AppState;
use http_body_util::BodyExt;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::sync::oneshot;
use tower::ServiceExt;

/// A request body that never arrives: it says when it is first read, then
/// stays pending for ever.
struct NeverBody(Option<oneshot::Sender<()>>);

impl tokio_stream::Stream for NeverBody {
    type Item = Result<Bytes, std::io::Error>;
    fn poll_next(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if let Some(read) = self.0.take() {
            let _ = read.send(());
        }
        Poll::Pending
    }
}

fn stalled_sale(token: &str) -> (Request<Body>, oneshot::Receiver<()>) {
    let (tx, rx) = oneshot::channel();
    let request = Request::builder()
        .method(Method::POST)
        .uri("/api/sales")
        .header("authorization", format!("Bearer {token}"))
        .body(Body::from_stream(NeverBody(Some(tx))))
        .unwrap();
    (request, rx)
}

async fn json(
    response: axum::response::Response,
) -> (StatusCode, axum::http::HeaderMap, serde_json::Value) {
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (
        status,
        headers,
        serde_json::from_slice(&bytes).unwrap_or_default(),
    )
}

fn clock() -> Arc<ManualClock> {
    Arc::new(ManualClock::new(eldorado_server::clock::system_now_ms()))
}

#[tokio::test]
async fn a_body_that_does_not_arrive_is_408_and_a_slow_answer_503() {
    let (token, _) = demo_player(&router()).await;
    let state = shared_with(
        |c| {
            c.limits.body_timeout = Duration::from_millis(50);
            c.limits.request_timeout = Duration::from_secs(600);
        },
        clock(),
    );
    let (request, _read) = stalled_sale(&token);
    let (status, _, body) = json(eldorado_server::app(state).oneshot(request).await.unwrap()).await;
    assert_eq!(status, StatusCode::REQUEST_TIMEOUT, "{body}");
    assert_eq!(body["error"]["code"], "REQUEST_TIMEOUT");

    let state = shared_with(
        |c| {
            c.limits.body_timeout = Duration::from_secs(600);
            c.limits.request_timeout = Duration::from_millis(50);
        },
        clock(),
    );
    let (request, _read) = stalled_sale(&token);
    let (status, headers, body) =
        json(eldorado_server::app(state).oneshot(request).await.unwrap()).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert_eq!(body["error"]["code"], "TIMEOUT");
    // Its words say retry; so does its header, for clients that read only that.
    assert_eq!(headers["retry-after"], "1");
}

#[tokio::test]
async fn requests_beyond_the_limit_in_flight_are_shed_with_retry_after() {
    let (token, _) = demo_player(&router()).await;
    let state = shared_with(
        |c| {
            c.limits.max_in_flight = 1;
            c.limits.body_timeout = Duration::from_secs(600);
        },
        clock(),
    );
    let app = eldorado_server::app(state);
    let (request, read) = stalled_sale(&token);
    let held = tokio::spawn(app.clone().oneshot(request));
    // The first request is inside its handler, reading its body.
    read.await.unwrap();
    let request = Request::builder()
        .uri("/api/config")
        .body(Body::empty())
        .unwrap();
    let (status, headers, body) = json(app.clone().oneshot(request).await.unwrap()).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert_eq!(body["error"]["code"], "OVERLOADED");
    assert_eq!(headers["retry-after"], "1");
    held.abort();
    let _ = held.await;
    // The slot is free again.
    let request = Request::builder()
        .uri("/api/config")
        .body(Body::empty())
        .unwrap();
    assert_eq!(app.oneshot(request).await.unwrap().status(), StatusCode::OK);
}

#[tokio::test]
async fn demo_players_per_address_and_sales_per_player_are_rate_limited() {
    let clock = clock();
    let state = shared_with(
        |c| {
            c.limits.demo_players_per_minute = 2;
            c.limits.sales_per_second = 3;
        },
        clock.clone(),
    );
    let app = eldorado_server::app(state);
    let (token, _) = demo_player(&app).await;
    let (other, _) = demo_player(&app).await;
    let refused = call(&app, Method::POST, "/api/demo/players", None, Some("{}")).await;
    assert_eq!(refused.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(refused.body["error"]["code"], "RATE_LIMITED");
    assert_eq!(refused.headers["retry-after"], "30");

    for i in 0..3 {
        let sale = play(&app, &token, 50, &format!("rate-{i:04}")).await;
        assert_eq!(sale.status, StatusCode::OK, "{}", sale.body);
    }
    let refused = play(&app, &token, 50, "rate-0003").await;
    assert_eq!(refused.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(refused.body["error"]["code"], "RATE_LIMITED");
    assert_eq!(refused.headers["retry-after"], "1");
    // Another player from the same address has a bucket of its own.
    let sale = play(&app, &other, 50, "rate-other").await;
    assert_eq!(sale.status, StatusCode::OK, "{}", sale.body);
    // A refused sale changed nothing: 3 sales of 50 cents.
    let session = call(&app, Method::GET, "/api/session", Some(&token), None).await;
    let history = call(&app, Method::GET, "/api/history", Some(&token), None).await;
    assert_eq!(history.body["items"].as_array().unwrap().len(), 3);
    let prizes: u64 = history.body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["prize_cents"].as_u64().unwrap())
        .sum();
    assert_eq!(
        session.body["balance_cents"].as_u64().unwrap() + 150,
        5000 + prizes
    );
    clock.advance(Duration::from_millis(334));
    assert_eq!(
        play(&app, &token, 50, "rate-0003").await.status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn a_slowloris_connection_is_closed_after_the_header_timeout() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let state = shared_with(
        |c| c.limits.header_timeout = Duration::from_millis(100),
        clock(),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let server = tokio::spawn(eldorado_server::serve_on(listener, state, async {
        let _ = stopped.await;
    }));
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(b"GET /api/config HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    // Never finishes the headers: the server must hang up (EOF or reset);
    // the outer bound only keeps a broken server from hanging the test.
    let mut buffer = [0u8; 64];
    let read = tokio::time::timeout(Duration::from_secs(30), stream.read(&mut buffer))
        .await
        .expect("the server closed the connection");
    assert!(matches!(read, Ok(0) | Err(_)), "{read:?}");
    let _ = stop.send(());
    server.await.unwrap().unwrap();
}

#[tokio::test]
async fn sessions_end_on_sign_out_and_when_the_operator_ends_them() {
    let router = router();
    let (token, _) = demo_player(&router).await;
    let ended = call(&router, Method::DELETE, "/api/session", Some(&token), None).await;
    assert_eq!(ended.status, StatusCode::NO_CONTENT);
    let refused = call(&router, Method::GET, "/api/session", Some(&token), None).await;
    assert_eq!(refused.status, StatusCode::UNAUTHORIZED);

    let key = operator_key(shared());
    let open = || {
        call(
            &router,
            Method::POST,
            "/api/operator/sessions",
            Some(&key),
            Some(r#"{"player_id":"revoked-player"}"#),
        )
    };
    let one = open().await.body["token"].as_str().unwrap().to_owned();
    let two = open().await.body["token"].as_str().unwrap().to_owned();
    let path = "/api/operator/players/revoked-player/sessions";
    let denied = call(&router, Method::DELETE, path, Some(&one), None).await;
    assert_eq!(denied.status, StatusCode::UNAUTHORIZED);
    let ended = call(&router, Method::DELETE, path, Some(&key), None).await;
    assert_eq!(ended.status, StatusCode::OK, "{}", ended.body);
    assert_eq!(ended.body["sessions_ended"], 2);
    for token in [&one, &two] {
        let refused = call(&router, Method::GET, "/api/session", Some(token), None).await;
        assert_eq!(refused.status, StatusCode::UNAUTHORIZED);
    }
}

#[tokio::test]
async fn health_is_ok_while_the_writer_the_generator_and_the_store_run() {
    let reply = call(&router(), Method::GET, "/api/health", None, None).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(
        reply.body,
        serde_json::json!({"status": "ok", "sale_writer": true, "block_generator": true, "store": true})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thirty_two_identical_requests_at_once_make_one_sale() {
    let router = router();
    let (token, _) = demo_player(&router).await;
    let mut tasks = Vec::new();
    for _ in 0..32 {
        let router = router.clone();
        let token = token.clone();
        tasks.push(tokio::spawn(async move {
            play(&router, &token, 100, "same-key-32").await
        }));
    }
    let mut sales = Vec::new();
    for task in tasks {
        let reply = task.await.unwrap();
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
        sales.push(reply.body["sale"].clone());
    }
    assert!(
        sales.iter().all(|s| *s == sales[0]),
        "one sale, the same bytes"
    );
    let history = call(&router, Method::GET, "/api/history", Some(&token), None).await;
    assert_eq!(history.body["items"].as_array().unwrap().len(), 1);
    let session = call(&router, Method::GET, "/api/session", Some(&token), None).await;
    let prize = sales[0]["ticket"]["prize_cents"].as_u64().unwrap();
    assert_eq!(
        session.body["balance_cents"].as_u64().unwrap(),
        5000 - 100 + prize
    );
}

/// A second connection to the shared database, to inject faults with
/// triggers (SQLite refuses the write, as a failing disk or bug would).
fn inject(sql: &str) {
    let db = shared()
        .config
        .data_dir
        .join(eldorado_server::state::DATABASE_FILE);
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.busy_timeout(Duration::from_secs(10)).unwrap();
    conn.execute_batch(sql).unwrap();
}

#[tokio::test]
async fn one_failing_sale_is_refused_alone_and_the_batch_commits() {
    let state: &AppState = shared();
    let router = router();
    let key = operator_key(state);
    let mut tokens = Vec::new();
    for player in ["iso-ann", "iso-faulty", "iso-bob"] {
        let reply = call(
            &router,
            Method::POST,
            &format!("/api/operator/players/{player}/credit"),
            Some(&key),
            Some(r#"{"amount_cents":1000,"reference":"iso-1"}"#),
        )
        .await;
        assert_eq!(reply.status, StatusCode::OK);
        let body = format!(r#"{{"player_id":"{player}"}}"#);
        let session = call(
            &router,
            Method::POST,
            "/api/operator/sessions",
            Some(&key),
            Some(&body),
        )
        .await;
        tokens.push(session.body["token"].as_str().unwrap().to_owned());
    }
    // The faulty player's sale fails after its debit was written.
    inject(
        "CREATE TRIGGER IF NOT EXISTS iso_fault BEFORE INSERT ON sales \
         WHEN NEW.player_id = 'iso-faulty' BEGIN SELECT RAISE(ABORT, 'injected fault'); END;",
    );
    let requests =
        ["iso-ann", "iso-faulty", "iso-bob"].map(|p| eldorado_server::store::SaleRequest {
            player_id: p.to_owned(),
            stake: eldorado_engine::Stake::from_cents(200).unwrap(),
            idempotency_key: "iso-batch-1".to_owned(),
            client_nonce: eldorado_engine::ClientNonce([0; 16]),
        });
    // One batch, as the sale desk would commit it.
    let outcomes = state.store.sell_batch(&requests, 1).unwrap();
    inject("DROP TRIGGER iso_fault;");
    assert!(
        matches!(outcomes[0], eldorado_server::store::SaleOutcome::Sold(_)),
        "{outcomes:?}"
    );
    assert!(
        matches!(outcomes[1], eldorado_server::store::SaleOutcome::Faulted(_)),
        "{outcomes:?}"
    );
    assert!(
        matches!(outcomes[2], eldorado_server::store::SaleOutcome::Sold(_)),
        "{outcomes:?}"
    );
    // The faulty sale left nothing: balance intact, no sale recorded.
    assert_eq!(
        state
            .store
            .player("iso-faulty")
            .unwrap()
            .unwrap()
            .balance_cents,
        1000
    );
    let history = call(&router, Method::GET, "/api/history", Some(&tokens[1]), None).await;
    assert_eq!(history.body["items"].as_array().unwrap().len(), 0);
    for token in [&tokens[0], &tokens[2]] {
        let history = call(&router, Method::GET, "/api/history", Some(token), None).await;
        assert_eq!(history.body["items"].as_array().unwrap().len(), 1);
    }
}

#[tokio::test]
async fn a_player_is_never_created_without_its_session() {
    let router = router();
    let key = operator_key(shared());
    inject(
        "CREATE TRIGGER IF NOT EXISTS session_fault BEFORE INSERT ON sessions \
         WHEN NEW.player_id = 'half-made' BEGIN SELECT RAISE(ABORT, 'injected fault'); END;",
    );
    let reply = call(
        &router,
        Method::POST,
        "/api/operator/sessions",
        Some(&key),
        Some(r#"{"player_id":"half-made"}"#),
    )
    .await;
    inject("DROP TRIGGER session_fault;");
    assert_eq!(reply.status, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(reply.body["error"]["code"], "INTERNAL");
    assert!(shared().store.player("half-made").unwrap().is_none());
}
