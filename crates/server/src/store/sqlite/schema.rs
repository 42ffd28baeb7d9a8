//! The SQLite schema, as numbered migrations in `migrations/sqlite/`.
//! `PRAGMA user_version` counts the migrations applied, so a data directory
//! from any earlier release opens and is brought up to date in place.

use crate::store::{corrupt, StoreResult};
use rusqlite::Connection;

/// Applied in order; never reorder or edit one that has shipped.
/// (0002 is the client nonce of the sales, on another branch: 0003 follows
/// it once both are merged.)
const MIGRATIONS: &[&str] = &[
    include_str!("../../../migrations/sqlite/0001_init.sql"),
    include_str!("../../../migrations/sqlite/0003_session_indexes.sql"),
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
    for (index, sql) in MIGRATIONS.iter().enumerate().skip(applied) {
        let tx = conn.transaction()?;
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", (index + 1) as i64)?;
        tx.commit()?;
        tracing::info!(version = index + 1, "applied schema migration");
    }
    Ok(())
}
