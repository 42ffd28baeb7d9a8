//! Issue 49, item 3: every 429 and 503 says when to come back
//! (`Retry-After`), whichever route, layer or page made it. The table of
//! routes is walked under conditions that make routes refuse for now: a
//! request deadline no handler can meet (503 `TIMEOUT`), and per-address
//! rates of one (429 `RATE_LIMITED`); the console's sign-in is its own
//! case (console.rs). Each condition must have produced its refusal, so
//! the walk cannot pass by refusing nothing.

use crate::common::*;
use axum::http::{header, Method, StatusCode};
use eldorado_server::clock::ManualClock;
use eldorado_server::routes::{endpoints, PREFIX};
use eldorado_server::{app, Config};
use std::sync::Arc;
use std::time::Duration;

/// A launch code of the right form (none was issued).
const LAUNCH_CODE: &str =
    r#"{"code":"0000000000000000000000000000000000000000000000000000000000000000"}"#;

/// A path of the table with its parameters filled in.
fn concrete(path: &str) -> String {
    let filled = path
        .replace("{block}", "1")
        .replace("{sale_id}", "1")
        .replace("{player_id}", "walker");
    format!("{PREFIX}{filled}")
}

/// Calls every route of the table twice (a rate of one refuses the
/// second), with a player's token (made by a server without the
/// conditions, on the same database) and a small body; the statuses seen.
async fn walk(state: eldorado_server::AppState) -> Vec<(String, StatusCode)> {
    let (token, _) = demo_player(&crate::common::router()).await;
    let router = app(state.clone());
    let mut seen = Vec::new();
    // Signing out last: the routes before need the session.
    let mut table = endpoints();
    table.sort_by_key(|e| e.method == Method::DELETE && e.path == "/session");
    for endpoint in table {
        let path = concrete(endpoint.path);
        let body = (endpoint.method != Method::GET).then_some(match endpoint.path {
            // Well-formed, so that the rate is what refuses the second.
            "/sales" => r#"{"stake_cents":50,"idempotency_key":"walk-0001"}"#,
            "/launch" => LAUNCH_CODE,
            _ => "{}",
        });
        for _ in 0..2 {
            let reply = call(&router, endpoint.method.clone(), &path, Some(&token), body).await;
            if matches!(
                reply.status,
                StatusCode::TOO_MANY_REQUESTS | StatusCode::SERVICE_UNAVAILABLE
            ) {
                let wait = reply.headers.get(header::RETRY_AFTER).unwrap_or_else(|| {
                    panic!(
                        "{} {path}: {} without Retry-After: {}",
                        endpoint.method, reply.status, reply.body
                    )
                });
                let secs: u64 = wait.to_str().unwrap().parse().expect("whole seconds");
                assert!(secs >= 1, "{} {path}: Retry-After {secs}", endpoint.method);
            }
            seen.push((format!("{} {path}", endpoint.method), reply.status));
        }
    }
    seen
}

async fn server(adjust: fn(&mut Config)) -> eldorado_server::AppState {
    let clock = Arc::new(ManualClock::new(eldorado_server::clock::system_now_ms()));
    tokio::task::spawn_blocking(move || shared_with(adjust, clock))
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_route_that_times_out_says_when_to_retry() {
    let state = server(|c| c.limits.request_timeout = Duration::from_nanos(1)).await;
    let seen = walk(state).await;
    // Those that wait for the store time out, but any one of them may
    // still answer before the deadline is looked at (the walk asks each
    // route twice): some must be refused for now, each with its
    // Retry-After (checked by the walk).
    let waiting = [
        "POST /api/demo/players",
        "POST /api/sales",
        "GET /api/session",
    ];
    let refused = seen
        .iter()
        .filter(|(route, status)| {
            waiting.contains(&route.as_str()) && *status == StatusCode::SERVICE_UNAVAILABLE
        })
        .count();
    assert!(refused >= 1, "nothing was refused for now: {seen:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_rate_limited_route_says_when_to_retry() {
    let state = server(|c| {
        c.limits.sales_per_second = 1;
        c.limits.launches_per_minute = 1;
        c.limits.demo_players_per_minute = 1;
    })
    .await;
    let seen = walk(state).await;
    for limited in [
        "POST /api/sales",
        "POST /api/launch",
        "POST /api/demo/players",
    ] {
        assert!(
            seen.iter()
                .any(|(route, status)| route == limited && *status == StatusCode::TOO_MANY_REQUESTS),
            "{limited} was refused for its rate: {seen:?}"
        );
    }
}
