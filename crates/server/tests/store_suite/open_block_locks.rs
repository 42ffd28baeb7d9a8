//! PostgreSQL only: how sale batches share a line's open blocks when another
//! transaction (another server's batch) holds some of them. SQLite has one
//! writer at a time, so it has nothing to share.

use crate::suite::{ann_half_euro, insert_with_open_blocks, sell_places, LOSE, REAL};
use crate::{eventually, Backend, Postgres};
use eldorado_engine::Stake;
use eldorado_server::store::{BlockStatus, PlayerKind, SaleRequest, Store};
use std::sync::{mpsc, Arc};
use std::time::Duration;

/// Only keeps a batch stuck on a lock from hanging the run: a batch that
/// sells from a free block never waits at all.
const LIMIT: Duration = Duration::from_secs(120);

/// (block, position) of each sale of a batch sold on another thread.
fn sell_apart(
    store: &Arc<dyn Store>,
    requests: Vec<SaleRequest>,
) -> mpsc::Receiver<Vec<(u64, u32)>> {
    let (sent, received) = mpsc::channel();
    let store = Arc::clone(store);
    std::thread::spawn(move || {
        let _ = sent.send(sell_places(&*store, &requests));
    });
    received
}

#[test]
fn a_batch_sells_from_the_open_blocks_no_other_batch_holds_and_waits_only_when_all_are_held() {
    let Some(backend) = Postgres::new() else {
        return;
    };
    let store = backend.open();
    for id in 1..=3 {
        insert_with_open_blocks(&*store, id, Stake::HALF_EURO, REAL, &[LOSE, LOSE], 2);
    }
    store
        .create_player("ann", PlayerKind::Operator, 1_000)
        .unwrap();
    let url = &backend.database.url;
    let mut other = postgres::Client::connect(url, postgres::NoTls).unwrap();
    let mut other = other.transaction().unwrap();
    other
        .execute("SELECT id FROM blocks WHERE id = 1 FOR UPDATE", &[])
        .unwrap();

    // Block 1 is held: the batch sells block 2 dry, then the pending block
    // 3 it opened, never waiting for block 1.
    let taken = sell_apart(&store, ann_half_euro(0..3))
        .recv_timeout(LIMIT)
        .expect("the batch waited for the held block");
    assert_eq!(taken, [(2, 0), (2, 1), (3, 0)]);

    // Every open block (1 and 3) held: the batch runs again waiting for
    // all of them, in id order, and sells once they are let go.
    other
        .execute("SELECT id FROM blocks WHERE id = 3 FOR UPDATE", &[])
        .unwrap();
    let waiting = sell_apart(&store, ann_half_euro(3..4));
    let mut watcher = postgres::Client::connect(url, postgres::NoTls).unwrap();
    eventually(LIMIT, "the batch never waited for every open block", || {
        let row = watcher
            .query_one(
                "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' \
                 AND query LIKE '%stake_cents = ANY($1) ORDER BY id FOR UPDATE'",
                &[],
            )
            .unwrap();
        (row.get::<_, i64>(0) == 1).then_some(())
    });
    other.commit().unwrap();
    let taken = waiting.recv_timeout(LIMIT).expect("the batch never sold");
    assert_eq!(taken, [(1, 0)]);

    let status = |id| store.block(id).unwrap().unwrap().status;
    assert_eq!(
        [status(1), status(2), status(3)],
        [BlockStatus::Open, BlockStatus::SoldOut, BlockStatus::Open]
    );
    assert_eq!(
        store.player("ann").unwrap().unwrap().balance_cents,
        1_000 - 4 * 50
    );
}
