//! Player protection over HTTP (issue 12): limits refused inside the sale
//! under 32 concurrent requests, the 48-hour delay on a manual clock,
//! exclusions, the operator's routes and audit, and bad bodies.

use crate::common::*;
use axum::http::{Method, StatusCode};
use axum::Router;
use eldorado_server::clock::{system_now_ms, Clock, ManualClock};
use eldorado_server::{app, AppState, Config};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

const HOUR: Duration = Duration::from_secs(3600);
const WEEK_MS: u64 = 7 * 24 * 3600 * 1000;

/// A mixed server of its own on a manual clock.
fn server(name: &str, adjust: impl FnOnce(&mut Config)) -> (AppState, Router, Arc<ManualClock>) {
    let dir = fresh_mixed_data_dir(name);
    let mut config = mixed_config(&dir);
    adjust(&mut config);
    let clock = Arc::new(ManualClock::new(system_now_ms()));
    let state =
        AppState::start_blocking_with_clock(config, clock.clone()).expect("the server starts");
    let router = app(state.clone());
    (state, router, clock)
}

async fn put(router: &Router, path: &str, token: &str, body: Value) -> Reply {
    call(
        router,
        Method::PUT,
        path,
        Some(token),
        Some(&body.to_string()),
    )
    .await
}

async fn limits(router: &Router, token: &str) -> Value {
    let reply = call(router, Method::GET, "/api/limits", Some(token), None).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    reply.body
}

/// A new session of an existing operator player, as after a day away.
async fn new_session(router: &Router, state: &AppState, id: &str) -> Reply {
    let reply = call(
        router,
        Method::POST,
        "/api/operator/sessions",
        Some(&operator_key(state)),
        Some(&json!({ "player_id": id }).to_string()),
    )
    .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.body);
    reply
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thirty_two_concurrent_sales_never_overshoot_a_ten_euro_limit() {
    let (state, router, _) = server("protection-concurrent", |_| {});
    let token = operator_player(&router, &state, "limited", 10_000).await;
    let set = put(
        &router,
        "/api/limits",
        &token,
        json!({"weekly_stake_limit_cents": 1000, "weekly_loss_limit_cents": null}),
    )
    .await;
    assert_eq!(set.status, StatusCode::OK, "{}", set.body);
    assert_eq!(set.body["weekly_stake_limit_cents"], 1000);
    let tasks: Vec<_> = (0..32)
        .map(|i| {
            let router = router.clone();
            let token = token.clone();
            let stake = [50, 100, 200][i % 3];
            tokio::spawn(async move {
                let reply = play(&router, &token, stake, &format!("burst-{i:04}")).await;
                (stake, reply)
            })
        })
        .collect();
    let mut sold = 0;
    let mut refused = Vec::new();
    for task in tasks {
        let (stake, reply) = task.await.unwrap();
        match reply.status {
            StatusCode::OK => sold += stake,
            StatusCode::FORBIDDEN => {
                let error = &reply.body["error"];
                assert_eq!(error["code"], "LIMIT_REACHED", "{}", reply.body);
                let limit = &error["limit"];
                assert_eq!(limit["kind"], "weekly_stake");
                assert_eq!(limit["limit_cents"], 1000);
                assert!(limit["used_cents"].as_u64().unwrap() + stake > 1000);
                assert!(limit["frees_at_ms"].as_u64().unwrap() > 0);
                refused.push(stake);
            }
            other => panic!("{other}: {}", reply.body),
        }
    }
    assert!(sold <= 1000, "{sold} cents sold over a limit of 1000");
    let room = 1000 - sold;
    assert!(
        refused.iter().all(|&s| s > room),
        "room {room}, refused {refused:?}"
    );
    assert_eq!(limits(&router, &token).await["stake_used_cents"], sold);
    // The rest of the room, to the cent, then not one cent more.
    let mut key = 0;
    while sold < 1000 {
        key += 1;
        let reply = play(&router, &token, 50, &format!("fill-{key:04}")).await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
        sold += 50;
    }
    let over = play(&router, &token, 50, "one-cent-too-far").await;
    assert_eq!(over.status, StatusCode::FORBIDDEN);
    assert_eq!(over.body["error"]["limit"]["used_cents"], 1000);
    assert_eq!(limits(&router, &token).await["stake_used_cents"], 1000);
}

#[tokio::test]
async fn a_raised_limit_applies_48_hours_later_and_a_lowered_one_at_once() {
    let (state, router, clock) = server("protection-delay", |_| {});
    let token = operator_player(&router, &state, "patient", 10_000).await;
    let body =
        |stake: Value| json!({"weekly_stake_limit_cents": stake, "weekly_loss_limit_cents": null});
    let first = put(&router, "/api/limits", &token, body(json!(100))).await;
    assert_eq!(first.body["weekly_stake_limit_cents"], 100);
    assert_eq!(first.body["pending_weekly_stake_limit"], Value::Null);
    assert_eq!(
        play(&router, &token, 100, "delay-0001").await.status,
        StatusCode::OK
    );
    let refused = play(&router, &token, 50, "delay-0002").await;
    assert_eq!(refused.body["error"]["code"], "LIMIT_REACHED");
    let raised_at = clock.now_ms();
    let raised = put(&router, "/api/limits", &token, body(json!(300))).await;
    assert_eq!(raised.status, StatusCode::OK, "{}", raised.body);
    assert_eq!(raised.body["weekly_stake_limit_cents"], 100);
    assert_eq!(
        raised.body["pending_weekly_stake_limit"],
        json!({"limit_cents": 300, "effective_at_ms": raised_at + 48 * 3600 * 1000})
    );
    // 47 h 59 min later (a new session: the first one expired after 24 h).
    clock.advance(47 * HOUR + Duration::from_secs(59 * 60));
    let session = new_session(&router, &state, "patient").await;
    let token = session.body["token"].as_str().unwrap().to_owned();
    assert_eq!(session.body["protection"]["weekly_stake_limit_cents"], 100);
    assert_eq!(
        session.body["protection"]["pending_weekly_stake_limit"]["limit_cents"],
        300
    );
    let still = play(&router, &token, 50, "delay-0003").await;
    assert_eq!(
        still.body["error"]["code"], "LIMIT_REACHED",
        "{}",
        still.body
    );
    clock.advance(Duration::from_secs(60));
    let now = limits(&router, &token).await;
    assert_eq!(now["weekly_stake_limit_cents"], 300);
    assert_eq!(now["pending_weekly_stake_limit"], Value::Null);
    assert_eq!(
        play(&router, &token, 200, "delay-0004").await.status,
        StatusCode::OK
    );
    let session = call(&router, Method::GET, "/api/session", Some(&token), None).await;
    assert_eq!(session.body["protection"]["stake_used_cents"], 300);
    // Lower: at once.
    let lowered = put(&router, "/api/limits", &token, body(json!(250))).await;
    assert_eq!(lowered.body["weekly_stake_limit_cents"], 250);
    let refused = play(&router, &token, 50, "delay-0005").await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    // The first sale leaves the window a week after it was made.
    assert_eq!(
        refused.body["error"]["limit"]["frees_at_ms"]
            .as_u64()
            .unwrap(),
        raised_at + WEEK_MS
    );
}

#[tokio::test]
async fn an_excluded_player_is_refused_until_the_operator_lifts_it() {
    let (state, router, clock) = server("protection-exclusion", |_| {});
    let token = operator_player(&router, &state, "resting", 5_000).await;
    let key = operator_key(&state);
    assert_eq!(
        play(&router, &token, 100, "excl-0001").await.status,
        StatusCode::OK
    );
    let start = clock.now_ms();
    let day = call(
        &router,
        Method::POST,
        "/api/exclusion",
        Some(&token),
        Some(r#"{"days":1}"#),
    )
    .await;
    assert_eq!(day.status, StatusCode::OK, "{}", day.body);
    let until = start + 24 * 3600 * 1000;
    assert_eq!(day.body["excluded_until_ms"], until);
    assert_eq!(day.body["excluded_indefinitely"], false);
    let refused = play(&router, &token, 100, "excl-0002").await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    assert_eq!(refused.body["error"]["code"], "SELF_EXCLUDED");
    assert_eq!(refused.body["error"]["excluded_until_ms"], until);
    assert!(refused.body["error"].get("excluded_indefinitely").is_none());
    assert!(refused.body["error"].get("limit").is_none());
    // The sale made before is still answered to a retry of its key.
    assert_eq!(
        play(&router, &token, 100, "excl-0001").await.status,
        StatusCode::OK
    );
    let forever = call(
        &router,
        Method::POST,
        "/api/exclusion",
        Some(&token),
        Some(r#"{"days":null}"#),
    )
    .await;
    assert_eq!(forever.body["excluded_indefinitely"], true);
    assert_eq!(forever.body["excluded_until_ms"], Value::Null);
    let shorter = call(
        &router,
        Method::POST,
        "/api/exclusion",
        Some(&token),
        Some(r#"{"days":30}"#),
    )
    .await;
    assert_eq!(shorter.status, StatusCode::CONFLICT, "{}", shorter.body);
    clock.advance(HOUR);
    let refused = play(&router, &token, 100, "excl-0003").await;
    assert_eq!(refused.body["error"]["code"], "SELF_EXCLUDED");
    assert_eq!(refused.body["error"]["excluded_until_ms"], Value::Null);
    assert_eq!(refused.body["error"]["excluded_indefinitely"], true);
    let lifted = put(
        &router,
        "/api/operator/players/resting/exclusion",
        &key,
        json!({"until_ms": null}),
    )
    .await;
    assert_eq!(lifted.status, StatusCode::OK, "{}", lifted.body);
    assert_eq!(lifted.body["excluded_indefinitely"], false);
    assert_eq!(
        play(&router, &token, 100, "excl-0003").await.status,
        StatusCode::OK
    );
    let audit = call(
        &router,
        Method::GET,
        "/api/operator/players/resting/protection",
        Some(&key),
        None,
    )
    .await;
    assert_eq!(audit.status, StatusCode::OK, "{}", audit.body);
    assert_eq!(audit.body["player_id"], "resting");
    assert_eq!(audit.body["protection"]["stake_used_cents"], 200);
    let entries: Vec<(Value, Value, Value, Value)> = audit.body["audit"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["actor"].clone(),
                e["change"].clone(),
                e["old"].clone(),
                e["new"].clone(),
            )
        })
        .collect();
    assert_eq!(
        entries,
        vec![
            (
                json!("operator"),
                json!("exclusion"),
                json!("indefinite"),
                json!(null)
            ),
            (
                json!("player"),
                json!("exclusion"),
                json!(until),
                json!("indefinite")
            ),
            (
                json!("player"),
                json!("exclusion"),
                json!(null),
                json!(until)
            ),
        ]
    );
    let at: Vec<u64> = audit.body["audit"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["at_ms"].as_u64().unwrap())
        .collect();
    assert_eq!(at, vec![start + 3600 * 1000, start, start]);
}

#[tokio::test]
async fn bad_bodies_are_400_and_change_nothing() {
    let (state, router, _) = server("protection-bad", |_| {});
    let token = operator_player(&router, &state, "careful", 1_000).await;
    let key = operator_key(&state);
    let set = put(
        &router,
        "/api/limits",
        &token,
        json!({"weekly_stake_limit_cents": 1000, "weekly_loss_limit_cents": 500}),
    )
    .await;
    assert_eq!(set.status, StatusCode::OK);
    let before = limits(&router, &token).await;
    let audit_path = "/api/operator/players/careful/protection";
    let audit = call(&router, Method::GET, audit_path, Some(&key), None)
        .await
        .body;
    let bad: &[(Method, &str, &str, &str)] = &[
        (
            Method::PUT,
            "/api/limits",
            "player",
            r#"{"weekly_stake_limit_cents":0,"weekly_loss_limit_cents":null}"#,
        ),
        (
            Method::PUT,
            "/api/limits",
            "player",
            r#"{"weekly_stake_limit_cents":100000001,"weekly_loss_limit_cents":null}"#,
        ),
        (
            Method::PUT,
            "/api/limits",
            "player",
            r#"{"weekly_stake_limit_cents":2000}"#,
        ),
        (
            Method::PUT,
            "/api/limits",
            "player",
            r#"{"weekly_stake_limit_cents":"2000","weekly_loss_limit_cents":null}"#,
        ),
        (
            Method::PUT,
            "/api/limits",
            "player",
            r#"{"weekly_stake_limit_cents":-5,"weekly_loss_limit_cents":null}"#,
        ),
        (
            Method::PUT,
            "/api/limits",
            "player",
            r#"{"weekly_stake_limit_cents":10.5,"weekly_loss_limit_cents":null}"#,
        ),
        (Method::POST, "/api/exclusion", "player", r#"{"days":2}"#),
        (Method::POST, "/api/exclusion", "player", r#"{}"#),
        (Method::POST, "/api/exclusion", "player", r#"{"days":"7"}"#),
        (
            Method::PUT,
            "/api/reality-check",
            "player",
            r#"{"minutes":20}"#,
        ),
        (Method::PUT, "/api/reality-check", "player", r#"{}"#),
        (
            Method::PUT,
            "/api/operator/players/careful/limits",
            "operator",
            r#"{"weekly_stake_limit_cents":null,"weekly_loss_limit_cents":0}"#,
        ),
        (
            Method::PUT,
            "/api/operator/players/careful/exclusion",
            "operator",
            r#"{}"#,
        ),
        (
            Method::PUT,
            "/api/operator/players/careful/exclusion",
            "operator",
            r#"{"until_ms":-1}"#,
        ),
        (
            Method::PUT,
            "/api/operator/players/careful/exclusion",
            "operator",
            r#"{"until_ms":18446744073709551615}"#,
        ),
    ];
    for (method, path, who, body) in bad {
        let credential = if *who == "player" { &token } else { &key };
        let reply = call(&router, method.clone(), path, Some(credential), Some(body)).await;
        assert_eq!(
            reply.status,
            StatusCode::BAD_REQUEST,
            "{method} {path} {body}: {}",
            reply.body
        );
        assert_eq!(reply.body["error"]["code"], "BAD_REQUEST");
    }
    assert_eq!(limits(&router, &token).await, before);
    assert_eq!(
        call(&router, Method::GET, audit_path, Some(&key), None)
            .await
            .body,
        audit
    );
    // Nobody else's door: the player's token is no operator key, and an
    // unknown player is not found.
    let denied = put(
        &router,
        "/api/operator/players/careful/exclusion",
        &token,
        json!({"until_ms": null}),
    )
    .await;
    assert_eq!(denied.status, StatusCode::UNAUTHORIZED);
    let unknown = call(
        &router,
        Method::GET,
        "/api/operator/players/nobody/protection",
        Some(&key),
        None,
    )
    .await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    let unknown = put(
        &router,
        "/api/operator/players/nobody/limits",
        &key,
        json!({"weekly_stake_limit_cents": 1, "weekly_loss_limit_cents": null}),
    )
    .await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn the_serve_defaults_reach_new_players_and_the_reality_check_is_theirs_to_set() {
    let (state, router, _) = server("protection-defaults", |config| {
        config.protection.weekly_stake_limit_cents = Some(500);
        config.protection.reality_check_minutes = 30;
    });
    let token = operator_player(&router, &state, "newcomer", 1_000).await;
    let session = call(&router, Method::GET, "/api/session", Some(&token), None).await;
    let protection = &session.body["protection"];
    assert_eq!(protection["weekly_stake_limit_cents"], 500);
    assert_eq!(protection["reality_check_minutes"], 30);
    assert_eq!(protection["excluded_indefinitely"], false);
    let set = put(
        &router,
        "/api/reality-check",
        &token,
        json!({"minutes": 15}),
    )
    .await;
    assert_eq!(set.status, StatusCode::OK, "{}", set.body);
    assert_eq!(set.body["reality_check_minutes"], 15);
    // Play money has no default limit.
    let (demo, _) = demo_player(&router).await;
    assert_eq!(
        limits(&router, &demo).await["weekly_stake_limit_cents"],
        Value::Null
    );
    let key = operator_key(&state);
    let audit = call(
        &router,
        Method::GET,
        "/api/operator/players/newcomer/protection",
        Some(&key),
        None,
    )
    .await;
    assert_eq!(audit.body["audit"][0]["change"], "reality_check");
    assert_eq!(audit.body["audit"][0]["old"], 30);
    assert_eq!(audit.body["audit"][0]["new"], 15);
    assert_eq!(audit.body["audit"][0]["actor"], "player");
}
