//! The cap on a player's live sessions (`--max-sessions-per-player`, 20 by
//! default): opening one more ends the oldest, and its token is answered
//! `401 TOO_MANY_SESSIONS`, so that its page can say why.

use crate::common::*;
use axum::http::{Method, StatusCode};
use eldorado_server::clock::{system_now_ms, ManualClock};
use eldorado_server::sessions::RECHECK_MS;
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

const PLAYER: &str = "cap-ann";
/// Sessions opened beyond the cap.
const EXTRA: usize = 3;

fn assert_ended(reply: &Reply) {
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{}", reply.body);
    assert_eq!(reply.body["error"]["code"], "TOO_MANY_SESSIONS");
}

#[tokio::test]
async fn a_player_keeps_the_cap_of_newest_sessions_and_the_oldest_are_told_why() {
    // A clock of the test's, moved a millisecond per session: which are
    // the oldest does not depend on how fast the machine is.
    let clock = Arc::new(ManualClock::new(system_now_ms()));
    let state = shared_with(|_| {}, Arc::clone(&clock));
    let cap = state.config.limits.max_sessions_per_player as usize;
    assert_eq!(cap, 20, "the documented default");
    let app = eldorado_server::app(state.clone());
    let key = operator_key(&state);
    let mut tokens = Vec::new();
    for _ in 0..cap + EXTRA {
        clock.advance(Duration::from_millis(1));
        let opened = call(
            &app,
            Method::POST,
            "/api/operator/sessions",
            Some(&key),
            Some(&json!({ "player_id": PLAYER }).to_string()),
        )
        .await;
        assert_eq!(opened.status, StatusCode::CREATED, "{}", opened.body);
        let token = opened.body["token"].as_str().unwrap().to_owned();
        // Used at once, so each is in this server's cache when it is ended.
        let read = call(&app, Method::GET, "/api/session", Some(&token), None).await;
        assert_eq!(read.status, StatusCode::OK, "{}", read.body);
        tokens.push(token);
    }

    // Another server of the database, which never saw them, agrees.
    let other = eldorado_server::app(shared_with(|_| {}, Arc::clone(&clock)));
    for server in [&app, &other] {
        for (i, token) in tokens.iter().enumerate() {
            let read = call(server, Method::GET, "/api/session", Some(token), None).await;
            if i < EXTRA {
                assert_ended(&read);
            } else {
                assert_eq!(read.status, StatusCode::OK, "{i}: {}", read.body);
                assert_eq!(read.body["player_id"], PLAYER);
            }
        }
    }
    // An ended session is refused everywhere, and nothing is sold.
    assert_ended(&play(&app, &tokens[0], 50, "cap-ann-1").await);
    let history = call(
        &app,
        Method::GET,
        "/api/history",
        Some(&tokens[EXTRA]),
        None,
    )
    .await;
    assert_eq!(history.status, StatusCode::OK, "{}", history.body);
    assert_eq!(history.body["items"], json!([]), "{}", history.body);

    // A launch link's session counts too: it ends the oldest live one.
    clock.advance(Duration::from_millis(1));
    let launch = call(
        &app,
        Method::POST,
        "/api/operator/launches",
        Some(&key),
        Some(&json!({ "player_id": PLAYER, "lang": "fr", "mode": "real" }).to_string()),
    )
    .await;
    assert_eq!(launch.status, StatusCode::CREATED, "{}", launch.body);
    let url = url::Url::parse(launch.body["url"].as_str().unwrap()).unwrap();
    let code = url
        .query_pairs()
        .find(|(name, _)| name == "launch")
        .unwrap()
        .1
        .into_owned();
    let launched = call(
        &app,
        Method::POST,
        "/api/launch",
        None,
        Some(&json!({ "code": code }).to_string()),
    )
    .await;
    assert_eq!(launched.status, StatusCode::CREATED, "{}", launched.body);
    let token = launched.body["token"].as_str().unwrap();
    assert_ended(
        &call(
            &app,
            Method::GET,
            "/api/session",
            Some(&tokens[EXTRA]),
            None,
        )
        .await,
    );
    for live in tokens[EXTRA + 1..]
        .iter()
        .map(String::as_str)
        .chain([token])
    {
        let read = call(&app, Method::GET, "/api/session", Some(live), None).await;
        assert_eq!(read.status, StatusCode::OK, "{}", read.body);
    }
    // The other server had that session in its cache: it asks the store
    // again once the entry is RECHECK_MS old, and refuses it too.
    clock.advance(Duration::from_millis(RECHECK_MS));
    let read = call(
        &other,
        Method::GET,
        "/api/session",
        Some(&tokens[EXTRA]),
        None,
    )
    .await;
    assert_ended(&read);
    let read = call(&other, Method::GET, "/api/session", Some(token), None).await;
    assert_eq!(read.status, StatusCode::OK, "{}", read.body);
}
