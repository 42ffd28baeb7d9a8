//! The API through `oneshot`: sales that verify, idempotency, funds, bad
//! input, reveal and resume, history, operator wallet, blocks, the page.
//! Tests that depend on which tickets they draw run on a server of their
//! own; the others share one.

use crate::common::*;
use axum::http::{Method, StatusCode};
use eldorado_server::AppState;
use serde_json::Value;

#[tokio::test]
async fn sales_at_each_stake_verify_with_the_engine() {
    let router = router();
    let state = shared();
    let (token, player) = demo_player(&router).await;
    let mut balance = 5000;
    for (i, stake) in [50u64, 100, 200, 50, 100, 200].into_iter().enumerate() {
        let reply = play(&router, &token, stake, &format!("each-stake-{i}")).await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
        assert_verified(&reply.body, &public_key(state), stake, &player);
        assert_eq!(reply.body["balance_before_cents"], balance);
        balance = reply.body["balance_after_cents"].as_u64().unwrap();
        assert_eq!(reply.body["revealed"], 0);
        // The stored sale is signed again to the very same bytes.
        let id = reply.body["sale"]["sale_id"].as_u64().unwrap();
        let again = call(
            &router,
            Method::GET,
            &format!("/api/sales/{id}"),
            Some(&token),
            None,
        )
        .await;
        assert_eq!(again.status, StatusCode::OK);
        assert_eq!(again.body["sale"], reply.body["sale"]);
    }
    let session = call(&router, Method::GET, "/api/session", Some(&token), None).await;
    assert_eq!(session.body["balance_cents"], balance);
}

#[tokio::test]
async fn retry_with_the_same_key_returns_the_same_sale_and_debits_once() {
    let router = router();
    let (token, _) = demo_player(&router).await;
    let first = play(&router, &token, 100, "retry-key-1").await;
    let second = play(&router, &token, 100, "retry-key-1").await;
    assert_eq!(first.status, StatusCode::OK);
    assert_eq!(second.status, StatusCode::OK);
    assert_eq!(first.body["sale"], second.body["sale"]);
    assert_eq!(
        first.body["balance_after_cents"],
        second.body["balance_after_cents"]
    );
    let session = call(&router, Method::GET, "/api/session", Some(&token), None).await;
    assert_eq!(
        session.body["balance_cents"],
        first.body["balance_after_cents"]
    );
    let history = call(&router, Method::GET, "/api/history", Some(&token), None).await;
    assert_eq!(history.body["items"].as_array().unwrap().len(), 1);
    // The same key at another stake is a conflict and changes nothing.
    let other = play(&router, &token, 200, "retry-key-1").await;
    assert_eq!(other.status, StatusCode::CONFLICT);
    assert_eq!(other.body["error"]["code"], "CONFLICT");
}

async fn balance(router: &axum::Router, token: &str) -> u64 {
    let session = call(router, Method::GET, "/api/session", Some(token), None).await;
    assert_eq!(session.status, StatusCode::OK, "{}", session.body);
    session.body["balance_cents"].as_u64().unwrap()
}

async fn history_len(router: &axum::Router, token: &str) -> usize {
    let history = call(router, Method::GET, "/api/history", Some(token), None).await;
    history.body["items"].as_array().unwrap().len()
}

/// Read from the store: the API no longer tells anyone how far an open
/// block has sold.
async fn sold_in_open_block(router: &axum::Router, state: &AppState, stake: u64) -> u64 {
    let id = open_block(router, stake).await["commitment"]["block"]
        .as_u64()
        .unwrap();
    u64::from(state.store.block(id).unwrap().unwrap().sold)
}

/// Each refusal is checked whatever the ticket sold in between pays: the
/// balances are set so that the stake is out of reach, and after each
/// refusal the balance, the history and the block's cursor are unchanged.
#[tokio::test]
async fn insufficient_funds_refuses_and_changes_nothing() {
    // Its own server: "nothing sold" is checked on the open blocks.
    let state = fresh_server("funds");
    let router = eldorado_server::app(state.clone());
    let key = operator_key(&state);
    let created = call(
        &router,
        Method::POST,
        "/api/operator/sessions",
        Some(&key),
        Some(r#"{"player_id":"ext-funds"}"#),
    )
    .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.body);
    let token = created.body["token"].as_str().unwrap().to_owned();
    assert_eq!(created.body["balance_cents"], 0);

    let refused_is_a_no_op = |stake: u64, key: &'static str, balance_then: u64, sales_then| {
        let (router, token, state) = (router.clone(), token.clone(), state.clone());
        async move {
            let sold_then = sold_in_open_block(&router, &state, stake).await;
            let refused = play(&router, &token, stake, key).await;
            assert_eq!(
                refused.status,
                StatusCode::PAYMENT_REQUIRED,
                "{}",
                refused.body
            );
            assert_eq!(refused.body["error"]["code"], "INSUFFICIENT_FUNDS");
            assert!(refused.body["error"]["message"].is_string());
            assert_eq!(balance(&router, &token).await, balance_then);
            assert_eq!(history_len(&router, &token).await, sales_then);
            assert_eq!(sold_in_open_block(&router, &state, stake).await, sold_then);
        }
    };

    // Nothing at all: 0.50 € is refused.
    refused_is_a_no_op(50, "no-money-1", 0, 0).await;

    // 1.20 €: 2 € is refused, 1 € is sold.
    let credit = call(
        &router,
        Method::POST,
        "/api/operator/players/ext-funds/credit",
        Some(&key),
        Some(r#"{"amount_cents":120,"reference":"dep-1"}"#),
    )
    .await;
    assert_eq!(credit.body["balance_cents"], 120);
    refused_is_a_no_op(200, "money-2x", 120, 0).await;
    let sale = play(&router, &token, 100, "money-1x").await;
    assert_eq!(sale.status, StatusCode::OK, "{}", sale.body);
    assert_verified(&sale.body, &state.public_key, 100, "ext-funds");
    let prize = sale.body["sale"]["ticket"]["prize_cents"].as_u64().unwrap();
    // The first sale of a fresh server is the first ticket of the block.
    assert_eq!(sale.body["sale"]["ticket"]["position"], 0);
    let left = 120 - 100 + prize;
    assert_eq!(sale.body["balance_after_cents"], left);
    assert_eq!(balance(&router, &token).await, left);

    // Down to 0.30 €, whatever the ticket paid: 0.50 € is refused.
    let credit = call(
        &router,
        Method::POST,
        "/api/operator/players/ext-funds/credit",
        Some(&key),
        Some(r#"{"amount_cents":100,"reference":"dep-2"}"#),
    )
    .await;
    assert_eq!(credit.body["balance_cents"], left + 100);
    let body = format!(
        r#"{{"amount_cents":{},"reference":"wd-1"}}"#,
        left + 100 - 30
    );
    let debit = call(
        &router,
        Method::POST,
        "/api/operator/players/ext-funds/debit",
        Some(&key),
        Some(&body),
    )
    .await;
    assert_eq!(debit.body["balance_cents"], 30, "{}", debit.body);
    refused_is_a_no_op(50, "no-money-2", 30, 1).await;
}

#[tokio::test]
async fn operator_wallet_credit_debit_and_auth() {
    let router = router();
    let state = shared();
    let key = operator_key(state);
    let path = "/api/operator/players/ext-42/credit";
    for token in [None, Some("nope"), Some(&key[1..])] {
        let reply = call(
            &router,
            Method::POST,
            path,
            token,
            Some(r#"{"amount_cents":1000,"reference":"r1"}"#),
        )
        .await;
        assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
        assert_eq!(reply.body["error"]["code"], "UNAUTHORIZED");
    }
    let credit = call(
        &router,
        Method::POST,
        path,
        Some(&key),
        Some(r#"{"amount_cents":1000,"reference":"r1"}"#),
    )
    .await;
    assert_eq!(credit.status, StatusCode::OK, "{}", credit.body);
    assert_eq!(
        credit.body,
        serde_json::json!({"player_id":"ext-42","balance_cents":1000})
    );
    // A replayed reference is applied once; reused for another amount: conflict.
    let again = call(
        &router,
        Method::POST,
        path,
        Some(&key),
        Some(r#"{"amount_cents":1000,"reference":"r1"}"#),
    )
    .await;
    assert_eq!(again.body["balance_cents"], 1000);
    let clash = call(
        &router,
        Method::POST,
        path,
        Some(&key),
        Some(r#"{"amount_cents":5,"reference":"r1"}"#),
    )
    .await;
    assert_eq!(clash.body["error"]["code"], "CONFLICT");
    let debit = call(
        &router,
        Method::POST,
        "/api/operator/players/ext-42/debit",
        Some(&key),
        Some(r#"{"amount_cents":1001,"reference":"w1"}"#),
    )
    .await;
    assert_eq!(debit.status, StatusCode::PAYMENT_REQUIRED);
    let debit = call(
        &router,
        Method::POST,
        "/api/operator/players/ext-42/debit",
        Some(&key),
        Some(r#"{"amount_cents":400,"reference":"w2"}"#),
    )
    .await;
    assert_eq!(debit.body["balance_cents"], 600);
    let unknown = call(
        &router,
        Method::POST,
        "/api/operator/players/ext-nobody/debit",
        Some(&key),
        Some(r#"{"amount_cents":1,"reference":"w3"}"#),
    )
    .await;
    assert_eq!(unknown.body["error"]["code"], "NOT_FOUND");
    for body in [
        r#"{"amount_cents":0,"reference":"z"}"#,
        r#"{"amount_cents":-5,"reference":"z"}"#,
        r#"{"amount_cents":5}"#,
        r#"{"amount_cents":5,"reference":"bad ref"}"#,
    ] {
        let bad = call(&router, Method::POST, path, Some(&key), Some(body)).await;
        assert_eq!(bad.status, StatusCode::BAD_REQUEST, "{body}");
    }
    // A demo player's play money cannot be topped up.
    let (_, demo) = demo_player(&router).await;
    let demo_credit = call(
        &router,
        Method::POST,
        &format!("/api/operator/players/{demo}/credit"),
        Some(&key),
        Some(r#"{"amount_cents":5,"reference":"d1"}"#),
    )
    .await;
    assert_eq!(demo_credit.body["error"]["code"], "FORBIDDEN");
    let bad_session = call(
        &router,
        Method::POST,
        "/api/operator/sessions",
        Some(&key),
        Some(r#"{"player_id":"bad id!"}"#),
    )
    .await;
    assert_eq!(bad_session.body["error"]["code"], "BAD_REQUEST");
}

#[tokio::test]
async fn bad_input_gets_a_4xx_and_changes_nothing() {
    let router = router();
    let (token, _) = demo_player(&router).await;
    let cases: &[(&str, &str)] = &[
        (
            r#"{"stake_cents":75,"idempotency_key":"badinput1"}"#,
            "INVALID_STAKE",
        ),
        (
            r#"{"stake_cents":0,"idempotency_key":"badinput2"}"#,
            "INVALID_STAKE",
        ),
        (
            r#"{"stake_cents":-100,"idempotency_key":"badinput3"}"#,
            "INVALID_STAKE",
        ),
        (
            r#"{"stake_cents":100.5,"idempotency_key":"badinput3b"}"#,
            "INVALID_STAKE",
        ),
        (
            r#"{"stake_cents":"100","idempotency_key":"badinput4"}"#,
            "BAD_REQUEST",
        ),
        (r#"{"stake_cents":100}"#, "BAD_REQUEST"),
        (
            r#"{"stake_cents":100,"idempotency_key":"short"}"#,
            "BAD_REQUEST",
        ),
        (
            r#"{"stake_cents":100,"idempotency_key":"has space in it"}"#,
            "BAD_REQUEST",
        ),
        (
            r#"{"stake_cents":100,"idempotency_key":12345678}"#,
            "BAD_REQUEST",
        ),
        (r#"{"stake_cents":100,"#, "BAD_REQUEST"),
        ("not json", "BAD_REQUEST"),
        ("[]", "BAD_REQUEST"),
        ("", "BAD_REQUEST"),
    ];
    for (body, code) in cases {
        let reply = call(
            &router,
            Method::POST,
            "/api/sales",
            Some(&token),
            Some(body),
        )
        .await;
        assert!(reply.status.is_client_error(), "{body}: {}", reply.status);
        assert_eq!(reply.body["error"]["code"], *code, "{body}");
        assert!(reply.body["error"]["message"].is_string());
    }
    let huge = format!(
        r#"{{"stake_cents":100,"idempotency_key":"{}"}}"#,
        "a".repeat(100_000)
    );
    let reply = call(
        &router,
        Method::POST,
        "/api/sales",
        Some(&token),
        Some(&huge),
    )
    .await;
    assert_eq!(reply.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(reply.body["error"]["code"], "PAYLOAD_TOO_LARGE");
    // Missing, malformed and forged tokens.
    let forged = "0".repeat(64);
    for token in [None, Some("garbage"), Some(forged.as_str())] {
        let reply = play(&router, token.unwrap_or(""), 100, "forged-01").await;
        assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
        let reply = call(&router, Method::GET, "/api/history", token, None).await;
        assert_eq!(reply.body["error"]["code"], "UNAUTHORIZED");
    }
    for path in [
        "/api/sales/abc",
        "/api/sales/99999999999",
        "/api/sales/-1",
        "/api/sales/184467440737095516160",
    ] {
        let reply = call(&router, Method::GET, path, Some(&token), None).await;
        assert_eq!(reply.body["error"]["code"], "NOT_FOUND", "{path}");
    }
    for query in ["limit=0", "limit=101", "limit=x", "before=-3"] {
        let reply = call(
            &router,
            Method::GET,
            &format!("/api/history?{query}"),
            Some(&token),
            None,
        )
        .await;
        assert_eq!(reply.body["error"]["code"], "BAD_REQUEST", "{query}");
    }
    for path in [
        "/api/blocks/x",
        "/api/blocks/999999",
        "/api/nothing",
        "/nothing",
    ] {
        let reply = call(&router, Method::GET, path, None, None).await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{path}");
        assert_eq!(reply.body["error"]["code"], "NOT_FOUND", "{path}");
    }
    let reply = call(&router, Method::DELETE, "/api/sales", Some(&token), None).await;
    assert_eq!(reply.status, StatusCode::METHOD_NOT_ALLOWED);
    // Nothing was debited or recorded.
    let session = call(&router, Method::GET, "/api/session", Some(&token), None).await;
    assert_eq!(session.body["balance_cents"], 5000);
    let history = call(&router, Method::GET, "/api/history", Some(&token), None).await;
    assert_eq!(history.body["items"], Value::Array(vec![]));
}

/// The seeded server sells its block in the seeded order, so the test knows
/// which ticket comes next: it sells up to the first ticket with an Extra
/// and reveals that one grid by grid.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reveal_progress_and_resume() {
    let state = fresh_server("reveal");
    let router = eldorado_server::app(state.clone());
    let open = open_block(&router, 50).await;
    let id = open["commitment"]["block"].as_u64().unwrap();
    let block = tokio::task::spawn_blocking(move || seeded_block(id, 50))
        .await
        .unwrap();
    assert_eq!(
        open["commitment"]["root"],
        block.tree.root().to_hex(),
        "the server's block is the seeded one"
    );
    let target = block.tickets.iter().position(|t| t.extras >= 1).unwrap();
    // A demo player can afford 100 tickets at 0.50 € before any win.
    assert!(target < 100, "seed {DEMO_SEED}: first Extra at {target}");

    // Someone else buys the tickets before it.
    let (filler, _) = demo_player(&router).await;
    for i in 0..target {
        let sale = play(&router, &filler, 50, &format!("filler-{i:04}")).await;
        assert_eq!(sale.status, StatusCode::OK, "{}", sale.body);
        assert_eq!(sale.body["sale"]["ticket"]["position"], i);
    }
    let (token, player) = demo_player(&router).await;
    let sale = play(&router, &token, 50, "reveal-0001").await;
    assert_verified(&sale.body, &state.public_key, 50, &player);
    assert_eq!(
        sale.body["sale"]["ticket"],
        serde_json::to_value(&block.tickets[target]).unwrap()
    );
    let id = sale.body["sale"]["sale_id"].as_u64().unwrap();
    let grids = 1 + u64::from(block.tickets[target].extras);
    assert!(grids >= 2);
    assert_eq!(sale.body["revealed"], 0);

    // A new session (same token here) offers the unrevealed ticket.
    let session = call(&router, Method::GET, "/api/session", Some(&token), None).await;
    assert_eq!(session.body["unrevealed"]["sale"], sale.body["sale"]);
    let path = format!("/api/sales/{id}/reveal");
    let reveal = |body: String| {
        let (router, token, path) = (router.clone(), token.clone(), path.clone());
        async move { call(&router, Method::POST, &path, Some(&token), Some(&body)).await }
    };
    for bad in [
        format!(r#"{{"revealed":{}}}"#, grids + 1),
        r#"{"revealed":"all"}"#.to_owned(),
    ] {
        let reply = reveal(bad.clone()).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{bad}");
        assert_eq!(reply.body["error"]["code"], "BAD_REQUEST", "{bad}");
    }
    // The main grid only: still offered on resume, at that point.
    let partial = reveal(r#"{"revealed":1}"#.to_owned()).await;
    assert_eq!(
        partial.body,
        serde_json::json!({"sale_id": id, "revealed": 1, "complete": false})
    );
    let session = call(&router, Method::GET, "/api/session", Some(&token), None).await;
    assert_eq!(session.body["unrevealed"]["sale"], sale.body["sale"]);
    assert_eq!(session.body["unrevealed"]["revealed"], 1);
    let done = reveal(format!(r#"{{"revealed":{grids}}}"#)).await;
    assert_eq!(
        done.body,
        serde_json::json!({"sale_id": id, "revealed": grids, "complete": true})
    );
    // Never decreases.
    let back = reveal(r#"{"revealed":0}"#.to_owned()).await;
    assert_eq!(back.body["revealed"], grids);
    let session = call(&router, Method::GET, "/api/session", Some(&token), None).await;
    assert_eq!(session.body["unrevealed"], Value::Null);
    // Another player sees nothing of it.
    let hidden = call(
        &router,
        Method::GET,
        &format!("/api/sales/{id}"),
        Some(&filler),
        None,
    )
    .await;
    assert_eq!(hidden.status, StatusCode::NOT_FOUND);
    let hidden = call(
        &router,
        Method::POST,
        &path,
        Some(&filler),
        Some(r#"{"revealed":1}"#),
    )
    .await;
    assert_eq!(hidden.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn history_is_newest_first_and_paginated() {
    let router = router();
    let (token, _) = demo_player(&router).await;
    let mut ids = Vec::new();
    for i in 0..7 {
        let sale = play(&router, &token, 50, &format!("history-{i:03}")).await;
        ids.push(sale.body["sale"]["sale_id"].as_u64().unwrap());
    }
    ids.reverse();
    let mut seen = Vec::new();
    let mut path = "/api/history?limit=3".to_owned();
    loop {
        let page = call(&router, Method::GET, &path, Some(&token), None).await;
        assert_eq!(page.status, StatusCode::OK);
        for item in page.body["items"].as_array().unwrap() {
            seen.push(item["sale_id"].as_u64().unwrap());
            assert_eq!(item["stake_cents"], 50);
            assert_eq!(item["status"], "unrevealed");
            assert!(item["prize_cents"].is_u64() && item["extras"].is_u64());
        }
        match page.body["next_before"].as_u64() {
            Some(before) => path = format!("/api/history?limit=3&before={before}"),
            None => break,
        }
    }
    assert_eq!(seen, ids);
}

/// On a server of its own nothing is sold yet, so each block's counts are
/// exactly those of SPEC §2.
#[tokio::test]
async fn config_blocks_and_disclosure_rules() {
    let state = fresh_server("config");
    let router = eldorado_server::app(state.clone());
    let config = call(&router, Method::GET, "/api/config", None, None).await;
    assert_eq!(
        config.body["stakes_cents"],
        serde_json::json!([50, 100, 200])
    );
    assert_eq!(config.body["rtp_basis_points"], 7000);
    assert_eq!(config.body["max_win_cents"]["200"], 1_400_000);
    assert_eq!(config.body["odds"]["winners"], 60_440);
    assert_eq!(config.body["prize_table"].as_array().unwrap().len(), 10);
    assert_eq!(config.body["demo"], true);
    assert_eq!(config.body["public_key"], state.public_key.to_hex());
    // SPEC §2, tickets per rank.
    let per_rank = [2, 4, 40, 94, 300, 2_000, 8_000, 10_000, 20_000, 20_000];
    for stake in [50, 100, 200] {
        let open = open_block(&router, stake).await;
        assert_eq!(
            blocks_of(&router, "pending", stake).await.len(),
            1,
            "{stake}"
        );
        assert_eq!(open["commitment"]["tickets"], 400_000);
    }
    // Nothing of what an unfinished block holds is served: neither its sales
    // nor its prizes left (they would price its unsold tail).
    let blocks = call(&router, Method::GET, "/api/blocks", None, None).await;
    let unfinished: Vec<&Value> = blocks.body["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["status"] == "open" || b["status"] == "pending")
        .collect();
    assert_eq!(unfinished.len(), 6);
    for block in unfinished {
        assert!(block.get("remaining_by_rank").is_none(), "{block}");
        assert!(block.get("sold").is_none(), "{block}");
    }
    let open = open_block(&router, 100).await;
    let id = open["commitment"]["block"].as_u64().unwrap();
    let one = call(
        &router,
        Method::GET,
        &format!("/api/blocks/{id}"),
        None,
        None,
    )
    .await;
    assert_eq!(one.body["commitment"], open["commitment"]);
    let export = call(
        &router,
        Method::GET,
        &format!("/api/blocks/{id}/export"),
        None,
        None,
    )
    .await;
    assert_eq!(export.status, StatusCode::CONFLICT);
    assert_eq!(export.body["error"]["code"], "CONFLICT");
    // Once closed, the block discloses what it sold and what was left.
    let key = operator_key(&state);
    let closed = call(
        &router,
        Method::POST,
        &format!("/api/operator/blocks/{id}/close"),
        Some(&key),
        None,
    )
    .await;
    assert_eq!(closed.body["status"], "closed", "{:?}", closed.body);
    let one = call(
        &router,
        Method::GET,
        &format!("/api/blocks/{id}"),
        None,
        None,
    )
    .await;
    assert_eq!(one.body["sold"], 0);
    let remaining: Vec<(u64, u64)> = one.body["remaining_by_rank"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["rank"].as_u64().unwrap(),
                r["remaining"].as_u64().unwrap(),
            )
        })
        .collect();
    let expected: Vec<(u64, u64)> = (1..=10).zip(per_rank).collect();
    assert_eq!(remaining, expected);
    let openapi = call(&router, Method::GET, "/api/openapi.json", None, None).await;
    assert!(openapi.body["openapi"].as_str().unwrap().starts_with("3."));
    for path in [
        "/api/sales",
        "/api/history",
        "/api/blocks/{block}/export",
        "/api/operator/sessions",
    ] {
        assert!(openapi.body["paths"][path].is_object(), "{path}");
    }
}

#[tokio::test]
async fn the_page_is_served_with_a_strict_policy() {
    let router = router();
    let page = call(&router, Method::GET, "/", None, None).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(String::from_utf8_lossy(&page.raw).contains("Eldorado"));
    let csp = page.headers["content-security-policy"].to_str().unwrap();
    assert!(csp.contains("script-src 'self' 'wasm-unsafe-eval'"));
    assert!(!csp.contains("unsafe-inline"));
    // Embeddable by the operator's own origins only, and no header that
    // would forbid framing outright.
    assert!(csp.contains("frame-ancestors 'self'"), "{csp}");
    assert!(!page.headers.contains_key("x-frame-options"));
    let wasm = call(&router, Method::GET, "/www/pkg/game_bg.wasm", None, None).await;
    assert_eq!(wasm.status, StatusCode::OK);
    assert_eq!(wasm.headers["content-type"], "application/wasm");
    let escape = call(
        &router,
        Method::GET,
        "/www/../../operator-api.key",
        None,
        None,
    )
    .await;
    assert!(escape.status.is_client_error());
    assert!(!String::from_utf8_lossy(&escape.raw).contains(&operator_key(shared())));
}

#[tokio::test]
async fn demo_seed_needs_demo_mode() {
    let mut config = eldorado_server::Config::new("/nonexistent");
    config.demo = false;
    config.demo_seed = Some(1);
    assert!(config.check().unwrap_err().contains("demo"));
}
