//! The SQLite schema, as numbered migrations in `migrations/sqlite/`.
//! `PRAGMA user_version` counts the migrations applied, so a data directory
//! from any earlier release opens and is brought up to date in place.

use crate::store::{corrupt, StoreResult};
use rusqlite::Connection;

/// Applied in order; never reorder or edit one that has shipped.
pub(crate) const MIGRATIONS: &[&str] = &[
    include_str!("../../../migrations/sqlite/0001_init.sql"),
    include_str!("../../../migrations/sqlite/0002_money_seeding_nonce.sql"),
    include_str!("../../../migrations/sqlite/0003_session_indexes.sql"),
    include_str!("../../../migrations/sqlite/0004_player_protection.sql"),
    include_str!("../../../migrations/sqlite/0005_launch_codes.sql"),
    include_str!("../../../migrations/sqlite/0006_seamless_wallet.sql"),
    include_str!("../../../migrations/sqlite/0007_wallet_outbox_given_up.sql"),
    include_str!("../../../migrations/sqlite/0008_public_log.sql"),
    include_str!("../../../migrations/sqlite/0009_purchases.sql"),
    include_str!("../../../migrations/sqlite/0010_wallet_purchases.sql"),
    include_str!("../../../migrations/sqlite/0011_evicted_sessions.sql"),
    include_str!("../../../migrations/sqlite/0012_page_builds.sql"),
    include_str!("../../../migrations/sqlite/0013_dealt_round.sql"),
];

pub(super) fn migrate(conn: &mut Connection) -> StoreResult<()> {
    let applied: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    let applied = usize::try_from(applied).map_err(|_| corrupt("negative schema version"))?;
    if applied > MIGRATIONS.len() {
        return Err(corrupt(format!(
            "schema version {applied} is newer than this server ({})",
            MIGRATIONS.len()
        )));
    }
    let applied = catch_up_out_of_order(conn, applied)?;
    for (index, sql) in MIGRATIONS.iter().enumerate().skip(applied) {
        let tx = conn.transaction()?;
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", (index + 1) as i64)?;
        tx.commit()?;
        tracing::info!(version = index + 1, "applied schema migration");
    }
    Ok(())
}

/// 0002 and 0003 were written on two branches at once, and for a while the
/// main line applied 0003 second: a database it made says version 2 but
/// holds 0001 and 0003, without 0002's columns. It gets 0002 now and counts
/// all three, so that 0003 is not run twice.
fn catch_up_out_of_order(conn: &mut Connection, applied: usize) -> StoreResult<usize> {
    let has_money: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM pragma_table_info('blocks') WHERE name = 'money')",
        [],
        |r| r.get(0),
    )?;
    if applied != 2 || has_money {
        return Ok(applied);
    }
    let tx = conn.transaction()?;
    tx.execute_batch(MIGRATIONS[1])?;
    tx.pragma_update(None, "user_version", 3)?;
    tx.commit()?;
    tracing::info!("applied schema migration 0002 after 0003");
    Ok(3)
}

#[cfg(test)]
mod tests {
    use super::MIGRATIONS;
    use crate::clock::ManualClock;
    use crate::store::sqlite::SqliteStore;
    use crate::store::{BlockSeeding, Store};
    use eldorado_engine::commit::signing_key_from_secret;
    use eldorado_engine::{ClientNonce, Commitment, Hash, Money};
    use rusqlite::{params, Connection};
    use std::sync::Arc;

    /// A database of 0001 and 0003 (version 2, as the main line made them
    /// before 0002 was merged) gets 0002 and ends at the latest version.
    #[test]
    fn a_database_migrated_out_of_order_catches_up() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out-of-order.sqlite3");
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(MIGRATIONS[0]).unwrap();
        conn.execute_batch(MIGRATIONS[2]).unwrap();
        conn.pragma_update(None, "user_version", 2).unwrap();
        drop(conn);
        let store = SqliteStore::open(&path, Arc::new(ManualClock::new(0))).unwrap();
        assert!(store.blocks().unwrap().is_empty());
        drop(store);
        let conn = Connection::open(&path).unwrap();
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version, MIGRATIONS.len() as i64);
        let columns: i64 = conn
            .query_row(
                "SELECT COUNT(*) FROM pragma_table_info('blocks') WHERE name IN ('money', 'seeding')",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(columns, 2);
    }

    /// A data directory of the first schema, with a block and a sale in it,
    /// opens under the current one: its block is real money seeded from
    /// the OS, and its sale keeps the zero nonce it was signed with.
    #[test]
    fn a_database_of_the_first_schema_opens_and_keeps_its_meaning() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.sqlite3");
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(MIGRATIONS[0]).unwrap();
        conn.pragma_update(None, "user_version", 1).unwrap();
        let signed = Commitment::new(1, 50, 1, Money::Real, Hash([7; 32]))
            .sign(&signing_key_from_secret([1; 32]));
        conn.execute(
            "INSERT INTO blocks (id, stake_cents, tickets, status, sold, commitment, params, created_at_ms) \
             VALUES (1, 50, 1, 'sold_out', 1, ?1, ?2, 0)",
            params![
                serde_json::to_string(&signed).unwrap(),
                serde_json::to_string(&eldorado_engine::Params::default()).unwrap()
            ],
        )
        .unwrap();
        conn.execute(
            "INSERT INTO tickets (block, position, grids, prize, extras, salt, leaf) \
             VALUES (1, 0, 'CSDRS/DRSCR/SDRMR', 0, 0, ?1, ?2)",
            params![&[0u8; 16][..], &[0u8; 32][..]],
        )
        .unwrap();
        conn.execute(
            "INSERT INTO players (id, kind, balance_cents, created_at_ms) VALUES ('p', 'demo', 50, 0)",
            [],
        )
        .unwrap();
        conn.execute(
            "INSERT INTO sales (player_id, idempotency_key, stake_cents, block, position, prize_cents, \
             grid_count, sold_at_ms, balance_before, balance_after) \
             VALUES ('p', 'key-0001', 50, 1, 0, 0, 1, 5, 100, 50)",
            [],
        )
        .unwrap();
        drop(conn);

        let store = SqliteStore::open(&path, Arc::new(ManualClock::new(0))).unwrap();
        let block = store.block(1).unwrap().unwrap();
        assert_eq!(block.money(), Money::Real);
        assert_eq!(block.seeding, BlockSeeding::Os);
        let sale = store.sale("p", 1).unwrap().unwrap();
        assert_eq!(sale.client_nonce, ClientNonce([0; 16]));
        assert_eq!(sale.balance_after_cents, 50);
        let version: i64 = Connection::open(&path)
            .unwrap()
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version, MIGRATIONS.len() as i64);
    }
}
