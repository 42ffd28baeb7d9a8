//! Launch links (`POST /api/operator/launches`, `POST /api/launch`): a code
//! in the URL, used once within 60 s, traded for a session whose token
//! never travels in a URL nor reaches a log.

use crate::common::*;
use axum::http::{Method, StatusCode};
use eldorado_server::clock::{Clock, ManualClock};
use eldorado_server::AppState;
use serde_json::{json, Value};
use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

const PORTAL: &str = "https://casino.example";
const PUBLIC_URL: &str = "https://games.example";

fn clock() -> Arc<ManualClock> {
    Arc::new(ManualClock::new(eldorado_server::clock::system_now_ms()))
}

/// A server on the shared data directory that lets `PORTAL` frame it.
fn portal_server(clock: Arc<ManualClock>, demo: bool) -> AppState {
    shared_with(
        |c| {
            c.frame_ancestors = format!("'self' {PORTAL}");
            c.public_url = Some(PUBLIC_URL.to_owned());
            c.demo = demo;
        },
        clock,
    )
}

async fn launch(app: &axum::Router, state: &AppState, body: Value) -> Reply {
    call(
        app,
        Method::POST,
        "/api/operator/launches",
        Some(&operator_key(state)),
        Some(&body.to_string()),
    )
    .await
}

/// The launch URL's code, after checking that the URL carries nothing else.
fn code_of(url: &str, lang: &str) -> String {
    let url = url::Url::parse(url).unwrap();
    assert_eq!(url.origin().ascii_serialization(), PUBLIC_URL);
    assert_eq!(url.path(), "/");
    let pairs: Vec<(String, String)> = url.query_pairs().into_owned().collect();
    assert_eq!(pairs.len(), 2, "{pairs:?}");
    assert_eq!(pairs[0].0, "launch");
    assert_eq!(pairs[1], ("lang".to_owned(), lang.to_owned()));
    let code = pairs[0].1.clone();
    assert_eq!(code.len(), 64);
    assert!(code.bytes().all(|b| b.is_ascii_hexdigit()));
    code
}

async fn exchange(app: &axum::Router, code: &str) -> Reply {
    call(
        app,
        Method::POST,
        "/api/launch",
        None,
        Some(&json!({ "code": code }).to_string()),
    )
    .await
}

fn assert_invalid(reply: &Reply) {
    assert_eq!(reply.status, StatusCode::GONE, "{}", reply.body);
    assert_eq!(reply.body["error"]["code"], "LAUNCH_INVALID");
    assert!(reply.body.get("token").is_none());
}

#[tokio::test]
async fn a_launch_link_opens_one_session_once() {
    let state = portal_server(clock(), true);
    let app = eldorado_server::app(state.clone());
    let created = launch(
        &app,
        &state,
        json!({"player_id": "launch-ann", "lang": "fr",
               "lobby_url": "https://casino.example/lobby?from=game", "mode": "real"}),
    )
    .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.body);
    let url = created.body["url"].as_str().unwrap();
    let code = code_of(url, "fr");

    let session = exchange(&app, &code).await;
    assert_eq!(session.status, StatusCode::CREATED, "{}", session.body);
    assert_eq!(session.body["player_id"], "launch-ann");
    assert_eq!(session.body["money"], "real");
    assert_eq!(session.body["balance_cents"], 0);
    assert_eq!(
        session.body["lobby_url"],
        "https://casino.example/lobby?from=game"
    );
    let token = session.body["token"].as_str().unwrap().to_owned();
    assert!(!url.contains(&token), "the token is in the launch URL");

    // The session is an ordinary one, and it remembers its lobby.
    let read = call(&app, Method::GET, "/api/session", Some(&token), None).await;
    assert_eq!(read.status, StatusCode::OK, "{}", read.body);
    assert_eq!(
        read.body["lobby_url"],
        "https://casino.example/lobby?from=game"
    );
    // Read back from the store, past the cache of this server.
    let other = eldorado_server::app(portal_server(clock(), true));
    let read = call(&other, Method::GET, "/api/session", Some(&token), None).await;
    assert_eq!(
        read.body["lobby_url"],
        "https://casino.example/lobby?from=game"
    );

    // Used once: refused from then on, on any server of the deployment.
    assert_invalid(&exchange(&app, &code).await);
    assert_invalid(&exchange(&other, &code).await);
    // An unknown code is invalid; one the server can never have issued is
    // a malformed request.
    assert_invalid(&exchange(&app, &"ab".repeat(32)).await);
    for malformed in ["not-a-code", &code.to_uppercase()] {
        let reply = exchange(&app, malformed).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{}", reply.body);
        assert!(reply.body.get("token").is_none());
    }

    // A session the operator opens directly has no lobby: the field is absent.
    let direct = call(
        &app,
        Method::POST,
        "/api/operator/sessions",
        Some(&operator_key(&state)),
        Some(r#"{"player_id":"launch-ann"}"#),
    )
    .await;
    assert_eq!(direct.status, StatusCode::CREATED);
    assert!(direct.body.get("lobby_url").is_none(), "{}", direct.body);
}

#[tokio::test]
async fn a_launch_without_a_lobby_gives_a_session_without_one() {
    let state = portal_server(clock(), true);
    let app = eldorado_server::app(state.clone());
    let created = launch(
        &app,
        &state,
        json!({"player_id": "launch-bob", "lang": "en", "mode": "real"}),
    )
    .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.body);
    let code = code_of(created.body["url"].as_str().unwrap(), "en");
    let session = exchange(&app, &code).await;
    assert_eq!(session.status, StatusCode::CREATED, "{}", session.body);
    assert!(session.body.get("lobby_url").is_none(), "{}", session.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn of_concurrent_exchanges_of_one_code_exactly_one_wins() {
    let state = portal_server(clock(), true);
    let app = eldorado_server::app(state.clone());
    for round in 0..5 {
        let created = launch(
            &app,
            &state,
            json!({"player_id": "launch-race", "lang": "fr", "mode": "real"}),
        )
        .await;
        let code = code_of(created.body["url"].as_str().unwrap(), "fr");
        let barrier = Arc::new(tokio::sync::Barrier::new(8));
        let tries: Vec<_> = (0..8)
            .map(|_| {
                let (app, code, barrier) = (app.clone(), code.clone(), Arc::clone(&barrier));
                tokio::spawn(async move {
                    barrier.wait().await;
                    exchange(&app, &code).await
                })
            })
            .collect();
        let mut won = 0;
        for attempt in tries {
            let reply = attempt.await.unwrap();
            match reply.status {
                StatusCode::CREATED => won += 1,
                _ => assert_invalid(&reply),
            }
        }
        assert_eq!(won, 1, "round {round}");
    }
}

#[tokio::test]
async fn a_launch_code_expires_60_seconds_after_it_was_made() {
    let clock = clock();
    let state = portal_server(clock.clone(), true);
    let app = eldorado_server::app(state.clone());
    let made_at = clock.now_ms();
    let mut codes = Vec::new();
    for _ in 0..2 {
        let created = launch(
            &app,
            &state,
            json!({"player_id": "launch-late", "lang": "fr", "mode": "real"}),
        )
        .await;
        assert_eq!(created.body["expires_at_ms"], made_at + 60_000);
        codes.push(code_of(created.body["url"].as_str().unwrap(), "fr"));
    }
    clock.advance(Duration::from_millis(59_999));
    assert_eq!(exchange(&app, &codes[0]).await.status, StatusCode::CREATED);
    clock.advance(Duration::from_millis(1));
    assert_invalid(&exchange(&app, &codes[1]).await);
    // Expired codes are swept with the sessions.
    state.sessions.sweep().unwrap();
    assert_invalid(&exchange(&app, &codes[1]).await);
}

#[tokio::test]
async fn demo_launches_need_demo_mode_and_give_a_play_money_player() {
    let state = portal_server(clock(), false);
    let app = eldorado_server::app(state.clone());
    let refused = launch(
        &app,
        &state,
        json!({"player_id": "launch-dee", "lang": "fr", "mode": "demo"}),
    )
    .await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", refused.body);
    assert_eq!(refused.body["error"]["code"], "DEMO_DISABLED");

    let state = portal_server(clock(), true);
    let app = eldorado_server::app(state.clone());
    let created = launch(
        &app,
        &state,
        json!({"player_id": "launch-dee", "lang": "en", "mode": "demo",
               "lobby_url": "https://casino.example/"}),
    )
    .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.body);
    let code = code_of(created.body["url"].as_str().unwrap(), "en");
    let session = exchange(&app, &code).await;
    assert_eq!(session.status, StatusCode::CREATED, "{}", session.body);
    assert_eq!(session.body["money"], "play");
    assert_eq!(session.body["balance_cents"], 5000);
    assert!(session.body["player_id"]
        .as_str()
        .unwrap()
        .starts_with("demo-"));
    assert_eq!(session.body["lobby_url"], "https://casino.example/");
    // A demo launch made no operator player.
    assert!(state.store.player("launch-dee").unwrap().is_none());
}

#[tokio::test]
async fn bad_launch_requests_are_refused_and_make_no_code() {
    let state = portal_server(clock(), true);
    let app = eldorado_server::app(state.clone());
    let long = format!("{PORTAL}/{}", "a".repeat(2_100));
    for (lobby, status) in [
        ("https://evil.example/lobby", StatusCode::FORBIDDEN),
        ("http://casino.example/lobby", StatusCode::FORBIDDEN),
        ("https://casino.example:8443/lobby", StatusCode::FORBIDDEN),
        (
            "https://casino.example.evil.example/",
            StatusCode::FORBIDDEN,
        ),
        ("https://user@casino.example/", StatusCode::FORBIDDEN),
        ("https://:secret@casino.example/", StatusCode::FORBIDDEN),
        ("javascript:alert(1)", StatusCode::BAD_REQUEST),
        ("data:text/html,hi", StatusCode::BAD_REQUEST),
        ("/lobby", StatusCode::BAD_REQUEST),
        ("not a url", StatusCode::BAD_REQUEST),
        (long.as_str(), StatusCode::BAD_REQUEST),
    ] {
        let reply = launch(
            &app,
            &state,
            json!({"player_id": "launch-eve", "lang": "fr", "lobby_url": lobby, "mode": "real"}),
        )
        .await;
        assert_eq!(reply.status, status, "{lobby}: {}", reply.body);
        assert!(
            reply.body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("lobby_url"),
            "{}",
            reply.body
        );
    }
    for body in [
        json!({"player_id": "launch-eve", "lang": "de", "mode": "real"}),
        json!({"player_id": "launch eve", "lang": "fr", "mode": "real"}),
        json!({"player_id": "", "lang": "fr", "mode": "real"}),
        json!({"player_id": "launch-eve", "lang": "fr", "mode": "fake"}),
        json!({"player_id": "launch-eve", "lang": "fr"}),
    ] {
        let reply = launch(&app, &state, body.clone()).await;
        assert_eq!(
            reply.status,
            StatusCode::BAD_REQUEST,
            "{body}: {}",
            reply.body
        );
    }
    // None of them made the player.
    assert!(state.store.player("launch-eve").unwrap().is_none());
    // The operator key is required.
    let anonymous = call(
        &app,
        Method::POST,
        "/api/operator/launches",
        None,
        Some(r#"{"player_id":"launch-eve","lang":"fr","mode":"real"}"#),
    )
    .await;
    assert_eq!(anonymous.status, StatusCode::UNAUTHORIZED);

    // A server that no portal may frame takes no lobby at all.
    let unframed = shared_with(|c| c.frame_ancestors = "'self'".to_owned(), clock());
    let reply = launch(
        &eldorado_server::app(unframed.clone()),
        &unframed,
        json!({"player_id": "launch-eve", "lang": "fr", "lobby_url": "https://casino.example/", "mode": "real"}),
    )
    .await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN, "{}", reply.body);
}

#[tokio::test]
async fn the_config_names_the_portal_origins() {
    let state = shared_with(
        |c| {
            c.frame_ancestors =
                "'self' https://casino.example https://*.cdn.example http://localhost:9090/"
                    .to_owned()
        },
        clock(),
    );
    let config = call(
        &eldorado_server::app(state),
        Method::GET,
        "/api/config",
        None,
        None,
    )
    .await;
    assert_eq!(
        config.body["portal_origins"],
        json!(["https://casino.example", "http://localhost:9090"])
    );
    let plain = call(&router(), Method::GET, "/api/config", None, None).await;
    assert_eq!(plain.body["portal_origins"], json!([]));
}

#[tokio::test]
async fn launch_exchanges_are_rate_limited_per_address() {
    let state = shared_with(|c| c.limits.launches_per_minute = 2, clock());
    let app = eldorado_server::app(state);
    assert_invalid(&exchange(&app, &"cd".repeat(32)).await);
    assert_invalid(&exchange(&app, &"cd".repeat(32)).await);
    let refused = exchange(&app, &"cd".repeat(32)).await;
    assert_eq!(refused.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(refused.body["error"]["code"], "RATE_LIMITED");
}

/// Everything any thread of this test binary logs from the moment it is
/// installed, at every level.
fn captured_logs() -> &'static Mutex<Vec<u8>> {
    static LOGS: OnceLock<&'static Mutex<Vec<u8>>> = OnceLock::new();
    LOGS.get_or_init(|| {
        let logs: &'static Mutex<Vec<u8>> = Box::leak(Box::new(Mutex::new(Vec::new())));
        struct Sink(&'static Mutex<Vec<u8>>);
        impl Write for Sink {
            fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(bytes);
                Ok(bytes.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_ansi(false)
            .with_writer(move || Sink(logs))
            .finish();
        tracing::subscriber::set_global_default(subscriber).expect("no other subscriber");
        logs
    })
}

#[tokio::test]
async fn no_token_or_launch_code_reaches_the_logs() {
    let logs = captured_logs();
    // Started after the capture: its start-up lines must be in it, which
    // shows that the server's own logging is captured.
    let state = portal_server(clock(), true);
    let app = eldorado_server::app(state.clone());
    let created = launch(
        &app,
        &state,
        json!({"player_id": "launch-log", "lang": "fr",
               "lobby_url": "https://casino.example/lobby", "mode": "real"}),
    )
    .await;
    let code = code_of(created.body["url"].as_str().unwrap(), "fr");
    // The browser loads the page at the launch URL.
    let page = call(
        &app,
        Method::GET,
        &format!("/?launch={code}&lang=fr"),
        None,
        None,
    )
    .await;
    assert_eq!(page.status, StatusCode::OK);
    let session = exchange(&app, &code).await;
    assert_eq!(session.status, StatusCode::CREATED, "{}", session.body);
    let token = session.body["token"].as_str().unwrap().to_owned();
    assert_invalid(&exchange(&app, &code).await);
    call(&app, Method::GET, "/api/session", Some(&token), None).await;
    let sale = play(&app, &token, 100, "launch-log-0001").await;
    assert_eq!(sale.body["error"]["code"], "INSUFFICIENT_FUNDS");
    call(&app, Method::DELETE, "/api/session", Some(&token), None).await;
    call(&app, Method::GET, "/api/session", Some(&token), None).await;

    let text = String::from_utf8_lossy(&logs.lock().unwrap()).into_owned();
    assert!(
        text.contains("opening the store"),
        "the server's logs were not captured:\n{text}"
    );
    assert!(!text.contains(&code), "a launch code was logged:\n{text}");
    assert!(
        !text.contains(&token),
        "a session token was logged:\n{text}"
    );
    let operator_key = operator_key(&state);
    assert!(
        !text.contains(operator_key.trim()),
        "the operator key was logged"
    );
}
