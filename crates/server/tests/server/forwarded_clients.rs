//! Many players behind one balancer: sales are limited per player, the
//! per-address limits count the client's address that a `--trusted-proxy`
//! forwarded, and an address forged by anyone else changes nothing.

use crate::common::*;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Method, Request, StatusCode};
use axum::Router;
use eldorado_server::clock::ManualClock;
use http_body_util::BodyExt;
use serde_json::Value;
use std::net::SocketAddr;
use std::sync::Arc;
use tower::ServiceExt;

const BALANCER: &str = "127.0.0.1:40000";

/// A request as the listener hands it on: from the peer `peer`, with the
/// `X-Forwarded-For` a balancer (or a client) set.
async fn call_from(
    router: &Router,
    peer: &str,
    forwarded_for: Option<&str>,
    path: &str,
    token: Option<&str>,
    body: &str,
) -> (StatusCode, Value) {
    let mut request = Request::builder()
        .method(Method::POST)
        .uri(path)
        .header("content-type", "application/json");
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    if let Some(chain) = forwarded_for {
        request = request.header("x-forwarded-for", chain);
    }
    let mut request = request.body(Body::from(body.to_owned())).unwrap();
    request
        .extensions_mut()
        .insert(ConnectInfo(peer.parse::<SocketAddr>().unwrap()));
    let response = router.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let raw = response.into_body().collect().await.unwrap().to_bytes();
    (status, serde_json::from_slice(&raw).unwrap_or(Value::Null))
}

/// `POST /api/demo/players` from `peer` with that `X-Forwarded-For`.
async fn new_demo_player(router: &Router, peer: &str, forwarded_for: &str) -> StatusCode {
    let (status, _) = call_from(
        router,
        peer,
        Some(forwarded_for),
        "/api/demo/players",
        None,
        "{}",
    )
    .await;
    status
}

fn behind_balancer(demo_per_minute: u32, sales_per_second: u32) -> Router {
    eldorado_server::app(shared_with(
        |c| {
            c.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
            c.limits.demo_players_per_minute = demo_per_minute;
            c.limits.sales_per_second = sales_per_second;
        },
        Arc::new(ManualClock::new(eldorado_server::clock::system_now_ms())),
    ))
}

#[tokio::test]
async fn sixty_four_players_behind_one_balancer_all_get_their_sales() {
    let app = behind_balancer(1, 2);
    let mut tokens = Vec::new();
    for i in 0..64 {
        let client = format!("198.51.100.{i}");
        let (status, body) = call_from(
            &app,
            BALANCER,
            Some(&client),
            "/api/demo/players",
            None,
            "{}",
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "player {i}: {body}");
        tokens.push(body["token"].as_str().unwrap().to_owned());
    }
    // Every player's own two sales per second, all from the one address.
    for (i, token) in tokens.iter().enumerate() {
        for n in 0..2 {
            let sale = format!(r#"{{"stake_cents":50,"idempotency_key":"forward-{i:02}-{n}"}}"#);
            let (status, body) =
                call_from(&app, BALANCER, None, "/api/sales", Some(token), &sale).await;
            assert_eq!(status, StatusCode::OK, "player {i}, sale {n}: {body}");
        }
    }
    // The limit is still there, per player.
    let sale = r#"{"stake_cents":50,"idempotency_key":"forward-00-2"}"#;
    let (status, body) =
        call_from(&app, BALANCER, None, "/api/sales", Some(&tokens[0]), sale).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{body}");
    // The same client behind the balancer is one client.
    assert_eq!(
        new_demo_player(&app, BALANCER, "198.51.100.0").await,
        StatusCode::TOO_MANY_REQUESTS
    );
}

#[tokio::test]
async fn a_forged_forwarded_for_gains_nothing() {
    let app = behind_balancer(1, 20);
    // A client talking to the server directly: its header is not believed.
    let direct = "203.0.113.9:5000";
    assert_eq!(
        new_demo_player(&app, direct, "198.51.100.1").await,
        StatusCode::CREATED
    );
    let (status, body) = call_from(
        &app,
        direct,
        Some("198.51.100.2"),
        "/api/demo/players",
        None,
        "{}",
    )
    .await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{body}");
    assert_eq!(body["error"]["code"], "RATE_LIMITED");
    // Through the balancer, a forged first hop: the balancer appended the
    // real address, and that is the one counted.
    assert_eq!(
        new_demo_player(&app, BALANCER, "198.51.100.1, 203.0.113.50").await,
        StatusCode::CREATED
    );
    assert_eq!(
        new_demo_player(&app, BALANCER, "198.51.100.77, 203.0.113.50").await,
        StatusCode::TOO_MANY_REQUESTS
    );
}
