//! Block ids that no store can hold (above `i64::MAX`) name no block: 404
//! `NOT_FOUND` on every route that takes one, never a 500 that the store's
//! error path would log as inconsistent data.

use crate::common::*;
use axum::http::{Method, StatusCode};

const UNSTORABLE: [&str; 3] = [
    "9223372036854775808",
    "18446744073709551615",
    "10000000000000000000",
];

#[tokio::test]
async fn a_block_id_above_i64_max_is_404_on_every_block_route() {
    let router = router();
    let key = operator_key(shared());
    for id in UNSTORABLE {
        for (method, path, token) in [
            (Method::GET, format!("/api/blocks/{id}"), None),
            (Method::GET, format!("/api/blocks/{id}/export"), None),
            (
                Method::POST,
                format!("/api/operator/blocks/{id}/close"),
                Some(key.as_str()),
            ),
        ] {
            let reply = call(&router, method, &path, token, None).await;
            assert_eq!(
                reply.status,
                StatusCode::NOT_FOUND,
                "{path}: {}",
                reply.body
            );
            assert_eq!(reply.body["error"]["code"], "NOT_FOUND", "{path}");
        }
    }
    // The largest storable id still goes to the store, which has no such block.
    let reply = call(
        &router,
        Method::GET,
        "/api/blocks/9223372036854775807",
        None,
        None,
    )
    .await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND, "{}", reply.body);
}
