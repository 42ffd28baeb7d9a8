//! Durability across restarts and the switch-over when a real block of
//! 400,000 tickets sells out.

use crate::common::*;
use axum::http::{Method, StatusCode};
use eldorado_engine::export::{Audit, ExportHeader, ExportRow};
use eldorado_engine::Stake;
use eldorado_server::store::{PlayerKind, SaleOutcome, SaleRequest};
use eldorado_server::{app, AppState};
use serde_json::Value;
use std::time::{Duration, Instant};

fn start(dir: &std::path::Path) -> AppState {
    AppState::start_blocking(config(dir)).expect("server starts")
}

async fn block_of(router: &axum::Router, status: &str, stake: u64) -> Vec<u64> {
    let blocks = call(router, Method::GET, "/api/blocks", None, None).await;
    blocks.body["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["status"] == status && b["commitment"]["stake_cents"] == stake)
        .map(|b| b["commitment"]["block"].as_u64().unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restart_keeps_everything_and_a_sold_out_block_rolls_over() {
    let dir = fresh_data_dir("restart");
    let state = start(&dir);
    let public_key = state.public_key;
    let router = app(state.clone());
    let (token, player) = demo_player(&router).await;
    let mut last = Value::Null;
    for i in 0..5 {
        last = play(&router, &token, 50, &format!("restart-{i:03}"))
            .await
            .body;
    }
    let balance = last["balance_after_cents"].as_u64().unwrap();
    let history = call(&router, Method::GET, "/api/history", Some(&token), None)
        .await
        .body;
    let first_block = last["sale"]["block"].as_u64().unwrap();
    let sold_before = last["sale"]["ticket"]["position"].as_u64().unwrap() + 1;
    drop(router);
    drop(state);

    // Restart: same key, balances, history, session and block cursor.
    let state = tokio::task::spawn_blocking({
        let dir = dir.clone();
        move || start(&dir)
    })
    .await
    .unwrap();
    assert_eq!(state.public_key, public_key);
    let router = app(state.clone());
    let session = call(&router, Method::GET, "/api/session", Some(&token), None).await;
    assert_eq!(session.status, StatusCode::OK);
    assert_eq!(session.body["balance_cents"], balance);
    let again = call(&router, Method::GET, "/api/history", Some(&token), None)
        .await
        .body;
    assert_eq!(again, history);
    let next = play(&router, &token, 50, "restart-next").await.body;
    assert_eq!(next["sale"]["block"], first_block);
    assert_eq!(next["sale"]["ticket"]["position"], sold_before);
    assert_verified(&next, &public_key, 50, &player);

    // Sell the rest of the 50-cent block through the store, in big batches.
    let pending = block_of(&router, "pending", 50).await;
    assert_eq!(pending.len(), 1);
    let whale = "ext-whale";
    state
        .store
        .create_player(whale, PlayerKind::Operator, 50 * 400_000)
        .unwrap();
    let store = state.store.clone();
    let remaining = 400_000 - sold_before - 1;
    let sold = tokio::task::spawn_blocking(move || {
        let mut sold = 0u64;
        while sold < remaining {
            let batch: Vec<SaleRequest> = (sold..remaining.min(sold + 20_000))
                .map(|n| SaleRequest {
                    player_id: whale.to_owned(),
                    stake: Stake::HALF_EURO,
                    idempotency_key: format!("whale-{n:08}"),
                })
                .collect();
            for outcome in store.sell_batch(&batch, 1).unwrap() {
                let SaleOutcome::Sold(record) = outcome else {
                    panic!("{outcome:?}");
                };
                sold += 1;
                assert_eq!(record.block, first_block);
                assert_eq!(record.sold_out_block(), sold == remaining);
            }
        }
        sold
    })
    .await
    .unwrap();
    assert_eq!(sold + sold_before + 1, 400_000);

    // The next sale comes from the pending block, without a gap.
    let rolled = play(&router, &token, 50, "after-rollover").await.body;
    assert_eq!(rolled["sale"]["block"], pending[0]);
    assert_eq!(rolled["sale"]["ticket"]["position"], 0);
    assert_verified(&rolled, &public_key, 50, &player);
    // A new pending block is generated in the background.
    let deadline = Instant::now() + Duration::from_secs(300);
    loop {
        let pending_now = block_of(&router, "pending", 50).await;
        if pending_now.len() == 1 && pending_now[0] != pending[0] {
            break;
        }
        assert!(Instant::now() < deadline, "no new pending block");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    assert_eq!(block_of(&router, "sold_out", 50).await, vec![first_block]);

    // The sold-out block is disclosed in full and passes the engine's audit.
    let export = call(
        &router,
        Method::GET,
        &format!("/api/blocks/{first_block}/export"),
        None,
        None,
    )
    .await;
    assert_eq!(export.status, StatusCode::OK);
    let mut lines = export.raw.split(|b| *b == b'\n').filter(|l| !l.is_empty());
    let header: ExportHeader = serde_json::from_slice(lines.next().unwrap()).unwrap();
    assert_eq!(header.public_key, Some(public_key));
    let mut audit = Audit::new(header);
    for line in lines {
        audit.push(&serde_json::from_slice::<ExportRow>(line).unwrap());
    }
    let report = audit.finish();
    assert!(report.passed(), "{}", report.verdict());
    assert_eq!(report.tickets_read, 400_000);
    // It was written once to a file, and every download streams that file
    // (no store connection held at the client's pace).
    let file = state
        .config
        .data_dir
        .join(format!("exports/block-{first_block}.jsonl"));
    assert_eq!(std::fs::read(&file).unwrap(), export.raw);
    let again = call(
        &router,
        Method::GET,
        &format!("/api/blocks/{first_block}/export"),
        None,
        None,
    )
    .await;
    assert_eq!(again.raw, export.raw);

    // Money across the whole store is conserved to the cent.
    let totals = state.store.totals().unwrap();
    assert_eq!(
        totals.balances_cents + totals.stakes_cents,
        5000 + 50 * 400_000 + totals.prizes_cents
    );

    // An operator closes the open 100-cent block: its pending block opens.
    let key = operator_key(&state);
    let open100 = block_of(&router, "open", 100).await[0];
    let pending100 = block_of(&router, "pending", 100).await[0];
    let closed = call(
        &router,
        Method::POST,
        &format!("/api/operator/blocks/{open100}/close"),
        Some(&key),
        None,
    )
    .await;
    assert_eq!(
        closed.body["status"], "closed",
        "{} {}",
        closed.status, closed.body
    );
    let sale = play(&router, &token, 100, "after-close-1").await.body;
    assert_eq!(sale["sale"]["block"], pending100);
}
