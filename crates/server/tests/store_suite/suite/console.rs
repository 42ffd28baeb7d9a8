//! The reads of the operator's console, on every backend: sales per time
//! bucket, live sessions, players by the start of their id, a block's first
//! and last sale, and the wallet calls that failed, by reason.

use super::{insert, request, sell_one, sold, LOSE, PLAY, REAL, WIN_2};
use crate::{Backend, START_MS};
use eldorado_engine::Stake;
use eldorado_server::store::{OutboxFailure, PlayerKind, SalesBucket};

pub fn the_consoles_reads_agree_with_the_sales(backend: &impl Backend) {
    let store = backend.open();
    for id in ["anna", "ann", "bob", "an_x"] {
        store.create_player(id, PlayerKind::Demo, 1_000).unwrap();
    }
    let ids = |prefix: &str, limit: u32| -> Vec<String> {
        let found = store.players_with_prefix(prefix, limit).unwrap();
        found.into_iter().map(|p| p.id).collect()
    };
    assert_eq!(ids("ann", 10), ["ann", "anna"]);
    // `_` is a character of ids, not a wildcard; case counts.
    assert_eq!(ids("an_", 10), ["an_x"]);
    assert_eq!(ids("ANN", 10), Vec::<String>::new());
    assert_eq!(ids("", 2).len(), 2);
    assert_eq!(
        store.players_with_prefix("bob", 1).unwrap()[0].balance_cents,
        1_000
    );

    insert(&*store, 1, Stake::HALF_EURO, PLAY, &[WIN_2, LOSE, LOSE]);
    assert_eq!(store.block_sale_span(1).unwrap(), None);
    let minute = 60_000;
    let times = [START_MS, START_MS + 30_000, START_MS + 3 * minute];
    for (i, at) in times.iter().enumerate() {
        sold(sell_one(
            &*store,
            request("ann", Stake::HALF_EURO, &format!("k{i}")),
            *at,
        ));
    }
    assert_eq!(
        store.block_sale_span(1).unwrap(),
        Some((START_MS, START_MS + 3 * minute))
    );
    let first = START_MS / minute * minute;
    let per_minute = store
        .sales_buckets(first, START_MS + 10 * minute, minute)
        .unwrap();
    let expected: Vec<SalesBucket> = {
        let mut buckets: Vec<SalesBucket> = Vec::new();
        for (i, at) in times.iter().enumerate() {
            let start_ms = at / minute * minute;
            let prize = if i == 0 { 100 } else { 0 };
            match buckets.iter_mut().find(|b| b.start_ms == start_ms) {
                Some(b) => {
                    b.tickets += 1;
                    b.stakes_cents += 50;
                    b.prizes_cents += prize;
                }
                None => buckets.push(SalesBucket {
                    start_ms,
                    tickets: 1,
                    stakes_cents: 50,
                    prizes_cents: prize,
                }),
            }
        }
        buckets
    };
    assert_eq!(per_minute, expected);
    // The window is half open: the last sale at its end is left out.
    let before_last = store
        .sales_buckets(first, START_MS + 3 * minute, 3_600_000)
        .unwrap();
    assert_eq!(before_last.iter().map(|b| b.tickets).sum::<u64>(), 2);

    let expires = START_MS + minute;
    store
        .create_session(&[1; 32], "ann", START_MS, expires)
        .unwrap();
    store
        .create_session(&[2; 32], "ann", START_MS, expires)
        .unwrap();
    store
        .create_session(&[3; 32], "bob", START_MS, expires + minute)
        .unwrap();
    assert_eq!(store.live_sessions(None, START_MS).unwrap(), 3);
    assert_eq!(store.live_sessions(Some("ann"), START_MS).unwrap(), 2);
    assert_eq!(store.live_sessions(Some("anna"), START_MS).unwrap(), 0);
    assert_eq!(store.live_sessions(None, expires).unwrap(), 1);
}

pub fn failed_wallet_calls_are_counted_by_reason(backend: &impl Backend) {
    let store = backend.open();
    insert(&*store, 1, Stake::HALF_EURO, REAL, &[LOSE, LOSE, LOSE]);
    store.create_player("op", PlayerKind::Operator, 0).unwrap();
    for (key, round) in [("k1", "r1"), ("k2", "r2"), ("k3", "r3")] {
        store
            .reserve_round(&request("op", Stake::HALF_EURO, key), round, START_MS)
            .unwrap();
    }
    // Lost rounds: each queues a rollback.
    assert_eq!(
        store
            .release_stale_rounds(START_MS + 1, START_MS + 5)
            .unwrap(),
        3
    );
    assert_eq!(store.outbox_failures().unwrap(), []);
    store
        .outbox_attempt_failed("rollback:r1", "timed out")
        .unwrap();
    store
        .outbox_attempt_failed("rollback:r2", "timed out")
        .unwrap();
    store
        .outbox_attempt_failed("rollback:r3", "HTTP 500")
        .unwrap();
    let failure = |error: &str, items| OutboxFailure {
        error: error.to_owned(),
        items,
        oldest_queued_at_ms: START_MS + 5,
    };
    assert_eq!(
        store.outbox_failures().unwrap(),
        [failure("timed out", 2), failure("HTTP 500", 1)]
    );
    // Acknowledged calls are no longer failures.
    store
        .outbox_acknowledged("rollback:r1", 50, START_MS + 9)
        .unwrap();
    assert_eq!(
        store.outbox_failures().unwrap(),
        [failure("HTTP 500", 1), failure("timed out", 1)]
    );
}
