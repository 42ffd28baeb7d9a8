//! The buyer's nonce (issue 8.4): stored with the sale, signed into it,
//! returned as sent, zeros when absent, refused when malformed.

use crate::common::*;
use axum::http::{Method, StatusCode};
use eldorado_engine::{
    verify_sale, Check, ClientNonce, Expected, Money, SignedCommitment, SignedSale,
};
use serde_json::{json, Value};

const NONCE: &str = "00112233445566778899aabbccddeeff";

fn signed(body: &Value) -> (SignedSale, SignedCommitment) {
    (
        serde_json::from_value(body["sale"].clone()).unwrap(),
        serde_json::from_value(body["commitment"].clone()).unwrap(),
    )
}

#[tokio::test]
async fn the_sale_signs_the_nonce_sent_and_a_retry_keeps_the_first() {
    let router = router();
    let state = shared();
    let (token, player) = demo_player(&router).await;
    let reply = play_with_nonce(&router, &token, 100, "nonce-0001", json!(NONCE)).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    assert_eq!(reply.body["sale"]["client_nonce"], NONCE);
    let (sale, commitment) = signed(&reply.body);
    let nonce = ClientNonce::from_hex(NONCE).unwrap();
    let expected = Expected {
        stake_cents: Some(100),
        player: Some(&player),
        client_nonce: Some(nonce),
        money: Some(Money::Play),
        ..Expected::default()
    };
    let report = verify_sale(&sale, &commitment, &state.public_key, &expected);
    assert!(report.is_verified(), "{:?}", report.first_failure());
    // The nonce is in the signed bytes: a buyer who sent another one sees
    // this sale fail its nonce check.
    let other = Expected {
        client_nonce: Some(ClientNonce([0x5a; 16])),
        ..expected
    };
    let report = verify_sale(&sale, &commitment, &state.public_key, &other);
    assert_eq!(
        report.first_failure().map(|(c, _)| c),
        Some(Check::ClientNonce)
    );

    // A retry of the same purchase, even with another nonce, is the same
    // sale: the stored nonce, the same signature.
    let retry = play_with_nonce(
        &router,
        &token,
        100,
        "nonce-0001",
        json!("ffeeddccbbaa99887766554433221100"),
    )
    .await;
    assert_eq!(retry.status, StatusCode::OK);
    assert_eq!(retry.body["sale"], reply.body["sale"]);
    let id = sale.sale.sale_id;
    let again = call(
        &router,
        Method::GET,
        &format!("/api/sales/{id}"),
        Some(&token),
        None,
    )
    .await;
    assert_eq!(again.body["sale"], reply.body["sale"]);
}

#[tokio::test]
async fn no_nonce_is_sixteen_zero_bytes() {
    let router = router();
    let state = shared();
    let (token, _) = demo_player(&router).await;
    for (key, body) in [("zero-nonce-1", None), ("zero-nonce-2", Some(Value::Null))] {
        let reply = match body {
            None => play(&router, &token, 50, key).await,
            Some(value) => play_with_nonce(&router, &token, 50, key, value).await,
        };
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
        assert_eq!(reply.body["sale"]["client_nonce"], "0".repeat(32));
        let (sale, commitment) = signed(&reply.body);
        let report = verify_sale(
            &sale,
            &commitment,
            &state.public_key,
            &Expected {
                client_nonce: Some(ClientNonce([0; 16])),
                ..Expected::default()
            },
        );
        assert!(report.is_verified(), "{:?}", report.first_failure());
    }
}

#[tokio::test]
async fn a_malformed_nonce_is_refused_and_changes_nothing() {
    let router = router();
    let (token, _) = demo_player(&router).await;
    for bad in [
        json!(NONCE.to_uppercase()),
        json!(&NONCE[..31]),
        json!(format!("{NONCE}00")),
        json!("0011223344556677889900aabbccddeg"),
        json!(""),
        json!(7),
        json!({"nonce": NONCE}),
    ] {
        let reply = play_with_nonce(&router, &token, 100, "bad-nonce-1", bad.clone()).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{bad}");
        assert_eq!(reply.body["error"]["code"], "BAD_REQUEST", "{bad}");
        let message = reply.body["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("client_nonce") && message.contains("32 lowercase hex"),
            "{bad}: {message}"
        );
    }
    let session = call(&router, Method::GET, "/api/session", Some(&token), None).await;
    assert_eq!(session.body["balance_cents"], 5000);
    let history = call(&router, Method::GET, "/api/history", Some(&token), None).await;
    assert_eq!(history.body["items"], json!([]));
    // The refused key is still free for the purchase made right.
    let good = play_with_nonce(&router, &token, 100, "bad-nonce-1", json!(NONCE)).await;
    assert_eq!(good.status, StatusCode::OK, "{}", good.body);
    assert_eq!(good.body["sale"]["client_nonce"], NONCE);
}
