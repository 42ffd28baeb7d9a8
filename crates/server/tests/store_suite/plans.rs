//! PostgreSQL only: a batch finds the earlier sales under its keys by
//! index, not by reading the whole sales table, on a database too new for
//! autovacuum to have analysed it. Left to itself, PostgreSQL settles after
//! five executions of a prepared statement on one plan for any values; made
//! while the table was empty, that plan reads the whole table, batch after
//! batch, as it grows.

use crate::suite::{ann_half_euro, insert, sell_places, LOSE, REAL};
use crate::{eventually, Backend, Postgres};
use eldorado_engine::Stake;
use eldorado_server::store::PlayerKind;
use std::time::Duration;

/// Sales stored before the batch that is watched: far more than a batch
/// of a few keys would read through the index.
const SOLD_BEFORE: usize = 2_000;
const BATCH: usize = 50;
/// The watched batch: few keys, for which no plan reads the whole table.
const WATCHED: usize = 5;
/// Only keeps the run from hanging if the statistics never come: a
/// backend reports its own within a second or so of going idle.
const LIMIT: Duration = Duration::from_secs(60);

#[test]
fn a_batch_looks_up_its_keys_by_index_on_a_new_database() {
    let Some(backend) = Postgres::new() else {
        return;
    };
    let store = backend.open();
    let tickets = vec![LOSE; SOLD_BEFORE + WATCHED];
    insert(&*store, 1, Stake::HALF_EURO, REAL, &tickets);
    store
        .create_player("ann", PlayerKind::Operator, 100 * tickets.len() as u64)
        .unwrap();
    for first in (0..SOLD_BEFORE).step_by(BATCH) {
        sell_places(&*store, &ann_half_euro(first..first + BATCH));
    }
    let mut watcher = postgres::Client::connect(&backend.database.url, postgres::NoTls).unwrap();
    let before = rows_scanned_once_counted(&mut watcher, SOLD_BEFORE);
    sell_places(&*store, &ann_half_euro(SOLD_BEFORE..SOLD_BEFORE + WATCHED));
    let read = rows_scanned_once_counted(&mut watcher, SOLD_BEFORE + WATCHED) - before;
    assert!(
        read < SOLD_BEFORE as i64,
        "a batch of {WATCHED} keys read {read} sales by sequential scans, of {SOLD_BEFORE}"
    );
}

/// The sales rows read by sequential scans so far, once the statistics
/// count `inserted` sales: the store's connection reports both at once.
fn rows_scanned_once_counted(watcher: &mut postgres::Client, inserted: usize) -> i64 {
    let what = format!("the statistics never counted {inserted} sales");
    eventually(LIMIT, &what, || {
        // Each query is a transaction of its own: it reads them afresh.
        let row = watcher
            .query_one(
                "SELECT n_tup_ins, seq_tup_read FROM pg_stat_user_tables WHERE relname = 'sales'",
                &[],
            )
            .unwrap();
        (row.get::<_, i64>(0) == inserted as i64).then(|| row.get(1))
    })
}
