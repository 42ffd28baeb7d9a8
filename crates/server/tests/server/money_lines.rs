//! Play money never touches a real-money block (issue 9.1): demo players
//! buy from play-money blocks, operator players from real-money ones, each
//! signed as such in its commitment.

use crate::common::*;
use axum::http::{Method, StatusCode};
use eldorado_engine::{verify_sale, Expected, Money, SignedCommitment, SignedSale};
use eldorado_server::store::PlayerKind;
use eldorado_server::AppState;
use serde_json::Value;

fn verify_money(body: &Value, key: &eldorado_engine::PublicKeyBytes, money: Money, stake: u64) {
    let sale: SignedSale = serde_json::from_value(body["sale"].clone()).unwrap();
    let commitment: SignedCommitment = serde_json::from_value(body["commitment"].clone()).unwrap();
    let report = verify_sale(
        &sale,
        &commitment,
        key,
        &Expected {
            stake_cents: Some(stake),
            money: Some(money),
            ..Expected::default()
        },
    );
    assert!(report.is_verified(), "{:?}", report.first_failure());
}

async fn blocks(router: &axum::Router) -> Vec<Value> {
    let reply = call(router, Method::GET, "/api/blocks", None, None).await;
    reply.body["blocks"].as_array().unwrap().clone()
}

#[tokio::test]
async fn demo_players_buy_play_money_blocks_and_operator_players_real_ones_only() {
    // Its own server: it closes blocks, which other servers opened on the
    // shared data directory must not find missing.
    let state = &fresh_mixed_server("money-lines");
    let router = eldorado_server::app(state.clone());
    let (demo, _) = demo_player(&router).await;
    let operator = operator_player(&router, state, "ext-money-lines", 1_000).await;
    let session = call(&router, Method::GET, "/api/session", Some(&demo), None).await;
    assert_eq!(session.body["money"], "play");
    let session = call(&router, Method::GET, "/api/session", Some(&operator), None).await;
    assert_eq!(session.body["money"], "real");

    // Every stake has an open block of each kind of money, listed with it.
    let listed = blocks(&router).await;
    for stake in [50, 100, 200] {
        for money in ["real", "play"] {
            let open = listed.iter().filter(|b| {
                b["status"] == "open"
                    && b["commitment"]["stake_cents"] == stake
                    && b["commitment"]["money"] == money
            });
            assert_eq!(open.count(), 1, "{stake} {money}");
        }
    }
    for stake in [50, 100, 200] {
        let for_play = play(&router, &demo, stake, &format!("lines-demo-{stake}")).await;
        assert_eq!(for_play.status, StatusCode::OK, "{}", for_play.body);
        assert_eq!(for_play.body["commitment"]["money"], "play");
        verify_money(&for_play.body, &state.public_key, Money::Play, stake);
        let real = play(&router, &operator, stake, &format!("lines-op-{stake}")).await;
        assert_eq!(real.status, StatusCode::OK, "{}", real.body);
        assert_eq!(real.body["commitment"]["money"], "real");
        verify_money(&real.body, &state.public_key, Money::Real, stake);
        assert_ne!(for_play.body["sale"]["block"], real.body["sale"]["block"]);
        // The block each sale came from is listed as that money.
        let block = listed
            .iter()
            .find(|b| b["commitment"]["block"] == real.body["sale"]["block"])
            .unwrap();
        assert_eq!(block["commitment"]["money"], "real");
    }

    // When the real-money line of a stake runs dry, real money is sold
    // nothing rather than a play-money ticket. (In this one test, so that
    // no other test sees the line dry.)
    let key = operator_key(state);
    // Both 200-cent real-money blocks (open and pending) closed: the real
    // line has nothing on sale until the book generates the next block.
    let real_200: Vec<u64> = blocks(&router)
        .await
        .iter()
        .filter(|b| {
            b["commitment"]["stake_cents"] == 200
                && b["commitment"]["money"] == "real"
                && (b["status"] == "open" || b["status"] == "pending")
        })
        .map(|b| b["commitment"]["block"].as_u64().unwrap())
        .collect();
    assert_eq!(real_200.len(), 2, "{real_200:?}");
    for id in &real_200 {
        let closed = call(
            &router,
            Method::POST,
            &format!("/api/operator/blocks/{id}/close"),
            Some(&key),
            None,
        )
        .await;
        assert_eq!(closed.body["status"], "closed", "{}", closed.body);
    }
    let real = play(&router, &operator, 200, "dry-op-1").await;
    // Sold out, or a fresh real-money block: never the open play block.
    match real.status {
        StatusCode::SERVICE_UNAVAILABLE => assert_eq!(real.body["error"]["code"], "SOLD_OUT"),
        StatusCode::OK => {
            assert_eq!(real.body["commitment"]["money"], "real");
            assert!(!real_200.contains(&real.body["sale"]["block"].as_u64().unwrap()));
        }
        other => panic!("{other}: {}", real.body),
    }
    // Play money keeps its own line on sale meanwhile.
    let play_sale = play(&router, &demo, 200, "dry-demo-1").await;
    assert_eq!(play_sale.status, StatusCode::OK, "{}", play_sale.body);
    assert_eq!(play_sale.body["commitment"]["money"], "play");
}

/// `eldorado serve` without `--demo`: real money only. (The mixed
/// template's blocks are copied, so its real-money blocks are on hand and
/// nothing needs generating; its play-money blocks are simply never sold.)
#[tokio::test]
async fn without_demo_mode_the_server_sells_real_money_only() {
    let dir = fresh_mixed_data_dir("real-only");
    let mut config = mixed_config(&dir);
    config.demo = false;
    let state = tokio::task::spawn_blocking(move || AppState::start_blocking(config))
        .await
        .unwrap()
        .expect("a real-money server starts");
    let router = eldorado_server::app(state.clone());
    let config = call(&router, Method::GET, "/api/config", None, None).await;
    assert_eq!(config.body["demo"], false);
    let refused = call(&router, Method::POST, "/api/demo/players", None, Some("{}")).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    assert_eq!(refused.body["error"]["code"], "DEMO_DISABLED");
    assert!(!state.store.has_players(PlayerKind::Demo).unwrap());
    let operator = operator_player(&router, &state, "ext-real-only", 500).await;
    let sale = play(&router, &operator, 100, "real-only-1").await;
    assert_eq!(sale.status, StatusCode::OK, "{}", sale.body);
    assert_eq!(sale.body["commitment"]["money"], "real");
}
