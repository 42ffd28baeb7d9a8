//! The operator's own database (SQLite): players and their balances, log-in
//! sessions, the answer given to every wallet transaction id, and a ledger
//! with one row per movement of money.
//!
//! Every change runs in one `BEGIN IMMEDIATE` transaction, so a movement,
//! its ledger row and the stored answer are written together or not at all.

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS players (
    player_id     TEXT PRIMARY KEY,
    balance_cents INTEGER NOT NULL CHECK (balance_cents >= 0),
    created_at_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
    token_sha256  TEXT PRIMARY KEY,
    player_id     TEXT NOT NULL REFERENCES players(player_id),
    expires_at_ms INTEGER NOT NULL
);
-- One row per wallet transaction id: what was asked, whether money moved,
-- and the answer given, which a retry of the same id gets again.
CREATE TABLE IF NOT EXISTS wallet_transactions (
    transaction_id          TEXT PRIMARY KEY,
    kind                    TEXT NOT NULL CHECK (kind IN ('debit', 'credit', 'rollback')),
    round_id                TEXT NOT NULL,
    player_id               TEXT NOT NULL,
    amount_cents            INTEGER NOT NULL,
    original_transaction_id TEXT,
    applied                 INTEGER NOT NULL CHECK (applied IN (0, 1)),
    status                  TEXT NOT NULL,
    balance_cents           INTEGER NOT NULL,
    at_ms                   INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS wallet_transactions_original
    ON wallet_transactions (original_transaction_id);
-- Every movement of a player's money, signed: + to the player.
CREATE TABLE IF NOT EXISTS ledger (
    entry_id            INTEGER PRIMARY KEY AUTOINCREMENT,
    player_id           TEXT NOT NULL REFERENCES players(player_id),
    kind                TEXT NOT NULL
                        CHECK (kind IN ('opening', 'cashier', 'debit', 'credit', 'rollback')),
    amount_cents        INTEGER NOT NULL,
    balance_after_cents INTEGER NOT NULL,
    transaction_id      TEXT,
    round_id            TEXT,
    at_ms               INTEGER NOT NULL
);
";

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("the database worker stopped: {0}")]
    Join(String),
}

/// The one connection, shared; every call runs on a blocking thread.
#[derive(Clone)]
pub struct Db {
    conn: Arc<Mutex<Connection>>,
}

impl Db {
    pub fn open(path: &Path) -> Result<Db, DbError> {
        let conn = Connection::open(path)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        conn.execute_batch(SCHEMA)?;
        Ok(Db {
            conn: Arc::new(Mutex::new(conn)),
        })
    }

    /// Runs `job` in one immediate transaction on a blocking thread; commits
    /// only if it returns `Ok`.
    pub async fn write<T, E>(
        &self,
        job: impl FnOnce(&rusqlite::Transaction<'_>) -> Result<T, E> + Send + 'static,
    ) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<DbError> + Send + 'static,
    {
        let conn = self.conn.clone();
        tokio::task::spawn_blocking(move || {
            // A panic while holding the lock poisons it; the connection itself
            // is still sound (SQLite rolled the open transaction back).
            let mut conn = conn.lock().unwrap_or_else(|p| p.into_inner());
            let tx = conn
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(DbError::from)?;
            let value = job(&tx)?;
            tx.commit().map_err(DbError::from)?;
            Ok(value)
        })
        .await
        .map_err(|e| E::from(DbError::Join(e.to_string())))?
    }
}

pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// A player's balance, `None` if unknown.
pub fn balance(tx: &Connection, player_id: &str) -> rusqlite::Result<Option<u64>> {
    tx.query_row(
        "SELECT balance_cents FROM players WHERE player_id = ?1",
        params![player_id],
        |row| row.get::<_, i64>(0),
    )
    .optional()
    .map(|b| b.map(cents))
}

/// Moves `delta` cents into (or, negative, out of) a known player's balance
/// and writes its ledger row; returns the new balance. The caller has
/// checked that the balance covers a debit.
pub fn move_money(
    tx: &Connection,
    player_id: &str,
    kind: &str,
    delta: i64,
    transaction: Option<(&str, &str)>,
) -> rusqlite::Result<u64> {
    let after: i64 = tx.query_row(
        "UPDATE players SET balance_cents = balance_cents + ?2 WHERE player_id = ?1
         RETURNING balance_cents",
        params![player_id, delta],
        |row| row.get(0),
    )?;
    let (transaction_id, round_id) = transaction.unzip();
    tx.execute(
        "INSERT INTO ledger (player_id, kind, amount_cents, balance_after_cents,
                             transaction_id, round_id, at_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![
            player_id,
            kind,
            delta,
            after,
            transaction_id,
            round_id,
            now_ms()
        ],
    )?;
    Ok(cents(after))
}

/// Creates a player with its opening balance (and its ledger row) unless it
/// exists.
pub fn ensure_player(tx: &Connection, player_id: &str, opening: u64) -> rusqlite::Result<()> {
    let created = tx.execute(
        "INSERT INTO players (player_id, balance_cents, created_at_ms) VALUES (?1, 0, ?2)
         ON CONFLICT (player_id) DO NOTHING",
        params![player_id, now_ms()],
    )?;
    if created == 1 && opening > 0 {
        move_money(tx, player_id, "opening", signed(opening), None)?;
    }
    Ok(())
}

/// Balances are never negative (a CHECK constraint), so the conversion
/// cannot fail on data this program wrote.
pub fn cents(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

/// Amounts are validated at the edge to fit in an i64.
pub fn signed(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}
