//! The PostgreSQL schema, as numbered migrations in `migrations/postgres/`.
//! `schema_migrations` lists those applied. Several servers may start at
//! once on a fresh database: a transaction-scoped advisory lock lets one
//! of them migrate while the others wait, then find nothing left to do.

use crate::store::{corrupt, StoreResult};
use postgres::Client;

/// Applied in order; never reorder or edit one that has shipped.
const MIGRATIONS: &[&str] = &[
    include_str!("../../../migrations/postgres/0001_init.sql"),
    include_str!("../../../migrations/postgres/0002_session_indexes.sql"),
    include_str!("../../../migrations/postgres/0003_money_seeding_nonce.sql"),
    include_str!("../../../migrations/postgres/0004_player_protection.sql"),
    include_str!("../../../migrations/postgres/0005_launch_codes.sql"),
    include_str!("../../../migrations/postgres/0006_seamless_wallet.sql"),
    include_str!("../../../migrations/postgres/0007_wallet_outbox_given_up.sql"),
    include_str!("../../../migrations/postgres/0008_public_log.sql"),
    include_str!("../../../migrations/postgres/0009_purchases.sql"),
    include_str!("../../../migrations/postgres/0010_wallet_purchases.sql"),
    include_str!("../../../migrations/postgres/0011_evicted_sessions.sql"),
    include_str!("../../../migrations/postgres/0012_page_builds.sql"),
    include_str!("../../../migrations/postgres/0013_dealt_round.sql"),
];

/// The advisory lock key of migrations (any constant shared by all servers).
const MIGRATION_LOCK: i64 = 0x0e1d_0001;

pub(super) fn migrate(client: &mut Client) -> StoreResult<()> {
    let mut tx = client.transaction()?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
    // Checked rather than `CREATE TABLE IF NOT EXISTS`, whose notice every
    // later start would log.
    let known: bool = tx
        .query_one("SELECT to_regclass('schema_migrations') IS NOT NULL", &[])?
        .try_get(0)?;
    if !known {
        tx.batch_execute(
            "CREATE TABLE schema_migrations (
                 version    BIGINT PRIMARY KEY,
                 applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
             )",
        )?;
    }
    let applied: i64 = tx
        .query_one("SELECT COUNT(*) FROM schema_migrations", &[])?
        .try_get(0)?;
    let applied = usize::try_from(applied).map_err(|_| corrupt("negative schema version"))?;
    if applied > MIGRATIONS.len() {
        return Err(corrupt(format!(
            "schema version {applied} is newer than this server ({})",
            MIGRATIONS.len()
        )));
    }
    for (index, sql) in MIGRATIONS.iter().enumerate().skip(applied) {
        tx.batch_execute(sql)?;
        tx.execute(
            "INSERT INTO schema_migrations (version) VALUES ($1)",
            &[&((index + 1) as i64)],
        )?;
        tracing::info!(version = index + 1, "applied schema migration");
    }
    tx.commit()?;
    Ok(())
}
