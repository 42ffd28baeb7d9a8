//! Requests on the edge of what the OpenAPI document allows: the server
//! answers them as the document says (each case was a disagreement found by
//! `scripts/api-conformance.sh`).

use crate::common::*;
use axum::http::{Method, StatusCode};

#[tokio::test]
async fn a_body_must_be_an_object_not_an_array_of_its_fields() {
    let router = router();
    let (token, _) = demo_player(&router).await;
    for body in ["[null,null]", "[100000,null]", "[]"] {
        let reply = call(
            &router,
            Method::PUT,
            "/api/limits",
            Some(&token),
            Some(body),
        )
        .await;
        assert_eq!(
            reply.status,
            StatusCode::BAD_REQUEST,
            "{body}: {}",
            reply.body
        );
    }
    let limits = call(&router, Method::GET, "/api/limits", Some(&token), None).await;
    assert_eq!(
        limits.body["weekly_stake_limit_cents"],
        serde_json::Value::Null
    );
}

#[tokio::test]
async fn a_whole_number_written_with_a_fraction_is_read_as_that_integer() {
    let router = router();
    let (token, _) = demo_player(&router).await;
    let reply = call(
        &router,
        Method::PUT,
        "/api/limits",
        Some(&token),
        Some(r#"{"weekly_stake_limit_cents":473.0,"weekly_loss_limit_cents":null}"#),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    assert_eq!(reply.body["weekly_stake_limit_cents"], 473);
    let sale = play_with_nonce(&router, &token, 100, "whole-float", serde_json::Value::Null).await;
    assert_eq!(sale.status, StatusCode::OK, "{}", sale.body);
    let fraction = call(
        &router,
        Method::PUT,
        "/api/limits",
        Some(&token),
        Some(r#"{"weekly_stake_limit_cents":473.5,"weekly_loss_limit_cents":null}"#),
    )
    .await;
    assert_eq!(
        fraction.status,
        StatusCode::BAD_REQUEST,
        "{}",
        fraction.body
    );
}

#[tokio::test]
async fn a_demo_player_request_is_empty_or_an_empty_object() {
    let router = router();
    for body in [None, Some("{}"), Some("null")] {
        let reply = call(&router, Method::POST, "/api/demo/players", None, body).await;
        assert_eq!(
            reply.status,
            StatusCode::CREATED,
            "{body:?}: {}",
            reply.body
        );
    }
    for body in ["[]", r#"{"a":1}"#, "7"] {
        let reply = call(&router, Method::POST, "/api/demo/players", None, Some(body)).await;
        assert_eq!(
            reply.status,
            StatusCode::BAD_REQUEST,
            "{body}: {}",
            reply.body
        );
    }
}

#[tokio::test]
async fn a_launch_code_that_cannot_have_been_issued_is_a_bad_request() {
    let router = router();
    for code in ["", "abc", &"A".repeat(64), &"0".repeat(65)] {
        let body = serde_json::json!({ "code": code }).to_string();
        let reply = call(&router, Method::POST, "/api/launch", None, Some(&body)).await;
        assert_eq!(
            reply.status,
            StatusCode::BAD_REQUEST,
            "{code}: {}",
            reply.body
        );
    }
    let unknown = serde_json::json!({ "code": "0".repeat(64) }).to_string();
    let reply = call(&router, Method::POST, "/api/launch", None, Some(&unknown)).await;
    assert_eq!(reply.status, StatusCode::GONE, "{}", reply.body);
    assert_eq!(reply.body["error"]["code"], "LAUNCH_INVALID");
}

#[tokio::test]
async fn a_malformed_player_id_in_an_operator_path_is_a_bad_request() {
    let router = router();
    let key = operator_key(shared());
    for (method, path, body) in [
        (
            Method::POST,
            "/api/operator/players/a%20b/credit",
            Some(r#"{"amount_cents":1,"reference":"r"}"#),
        ),
        (
            Method::POST,
            "/api/operator/players/a%20b/debit",
            Some(r#"{"amount_cents":1,"reference":"r"}"#),
        ),
        (Method::DELETE, "/api/operator/players/a%20b/sessions", None),
        (Method::GET, "/api/operator/players/a%20b/protection", None),
        (
            Method::PUT,
            "/api/operator/players/a%20b/exclusion",
            Some(r#"{"until_ms":null}"#),
        ),
        (
            Method::PUT,
            "/api/operator/players/a%20b/limits",
            Some(r#"{"weekly_stake_limit_cents":null,"weekly_loss_limit_cents":null}"#),
        ),
    ] {
        let reply = call(&router, method.clone(), path, Some(&key), body).await;
        assert_eq!(
            reply.status,
            StatusCode::BAD_REQUEST,
            "{method} {path}: {}",
            reply.body
        );
    }
    // A well-formed id of no player is still not found.
    let reply = call(
        &router,
        Method::GET,
        "/api/operator/players/nobody-here/protection",
        Some(&key),
        None,
    )
    .await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND, "{}", reply.body);
}

#[tokio::test]
async fn a_history_page_before_an_id_no_sale_can_have_is_a_bad_request() {
    let router = router();
    let (token, _) = demo_player(&router).await;
    for before in ["0", "9223372036854775808", "-1", "x"] {
        let path = format!("/api/history?before={before}");
        let reply = call(&router, Method::GET, &path, Some(&token), None).await;
        assert_eq!(
            reply.status,
            StatusCode::BAD_REQUEST,
            "{before}: {}",
            reply.body
        );
    }
    let reply = call(
        &router,
        Method::GET,
        "/api/history?before=9223372036854775807",
        Some(&token),
        None,
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
}
