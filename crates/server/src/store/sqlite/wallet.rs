//! Players, wallets and sessions in SQLite: the wallet primitives of
//! `store::tx` and the single-statement writes and reads around them.

use super::rows::{to_i64, to_u64};
use super::SqlTx;
use crate::store::tx::{WalletOp, WalletTx};
use crate::store::{corrupt, PlayerKind, PlayerRecord, SessionRecord, StoreResult, TransferKind};
use rusqlite::{params, Connection, OptionalExtension};

fn player_kind(text: &str) -> StoreResult<PlayerKind> {
    PlayerKind::parse(text).ok_or_else(|| corrupt(format!("player kind {text:?}")))
}

fn kind_and_balance(conn: &Connection, id: &str) -> StoreResult<Option<(PlayerKind, u64)>> {
    let row = conn
        .prepare_cached("SELECT kind, balance_cents FROM players WHERE id = ?1")?
        .query_row([id], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))
        .optional()?;
    row.map(|(kind, balance)| Ok((player_kind(&kind)?, to_u64(balance, "balance")?)))
        .transpose()
}

/// An existing player is left as it is: creating is idempotent.
pub(super) fn create_player(
    conn: &Connection,
    id: &str,
    kind: PlayerKind,
    balance_cents: u64,
    now_ms: u64,
) -> StoreResult<bool> {
    let inserted = conn
        .prepare_cached(
            "INSERT OR IGNORE INTO players (id, kind, balance_cents, created_at_ms) VALUES (?1, ?2, ?3, ?4)",
        )?
        .execute(params![id, kind.as_str(), to_i64(balance_cents)?, to_i64(now_ms)?])?;
    Ok(inserted == 1)
}

pub(super) fn player(conn: &Connection, id: &str) -> StoreResult<Option<PlayerRecord>> {
    Ok(
        kind_and_balance(conn, id)?.map(|(kind, balance_cents)| PlayerRecord {
            id: id.to_owned(),
            kind,
            balance_cents,
        }),
    )
}

pub(super) fn has_players(conn: &Connection, kind: PlayerKind) -> StoreResult<bool> {
    Ok(conn
        .prepare_cached("SELECT EXISTS (SELECT 1 FROM players WHERE kind = ?1)")?
        .query_row([kind.as_str()], |r| r.get::<_, bool>(0))?)
}

pub(super) fn create_session(
    conn: &Connection,
    token_hash: &[u8; 32],
    player_id: &str,
    now_ms: u64,
    expires_at_ms: u64,
) -> StoreResult<()> {
    conn.prepare_cached(
        "INSERT INTO sessions (token_hash, player_id, created_at_ms, expires_at_ms) VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![
        &token_hash[..],
        player_id,
        to_i64(now_ms)?,
        to_i64(expires_at_ms)?
    ])?;
    Ok(())
}

pub(super) fn delete_session(conn: &Connection, token_hash: &[u8; 32]) -> StoreResult<bool> {
    let deleted = conn
        .prepare_cached("DELETE FROM sessions WHERE token_hash = ?1")?
        .execute([&token_hash[..]])?;
    Ok(deleted > 0)
}

pub(super) fn delete_player_sessions(conn: &Connection, player_id: &str) -> StoreResult<u64> {
    let deleted = conn
        .prepare_cached("DELETE FROM sessions WHERE player_id = ?1")?
        .execute([player_id])?;
    Ok(deleted as u64)
}

pub(super) fn delete_expired_sessions(conn: &Connection, now_ms: u64) -> StoreResult<u64> {
    let deleted = conn
        .prepare_cached("DELETE FROM sessions WHERE expires_at_ms <= ?1")?
        .execute([to_i64(now_ms)?])?;
    Ok(deleted as u64)
}

pub(super) fn session(
    conn: &Connection,
    token_hash: &[u8; 32],
) -> StoreResult<Option<SessionRecord>> {
    let row = conn
        .prepare_cached(
            "SELECT player_id, expires_at_ms, lobby_url FROM sessions WHERE token_hash = ?1",
        )?
        .query_row([&token_hash[..]], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, Option<String>>(2)?,
            ))
        })
        .optional()?;
    row.map(|(player_id, expires, lobby_url)| {
        Ok(SessionRecord {
            player_id,
            expires_at_ms: to_u64(expires, "expiry")?,
            lobby_url,
        })
    })
    .transpose()
}

impl WalletTx for SqlTx<'_> {
    fn player_for_update(&mut self, player_id: &str) -> StoreResult<Option<(PlayerKind, u64)>> {
        kind_and_balance(self.0, player_id)
    }

    fn insert_player(
        &mut self,
        player_id: &str,
        kind: PlayerKind,
        balance_cents: u64,
        now_ms: u64,
    ) -> StoreResult<()> {
        self.0
            .prepare_cached(
                "INSERT INTO players (id, kind, balance_cents, created_at_ms) VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![player_id, kind.as_str(), to_i64(balance_cents)?, to_i64(now_ms)?])?;
        Ok(())
    }

    fn set_balance(&mut self, player_id: &str, balance_cents: u64) -> StoreResult<()> {
        self.0
            .prepare_cached("UPDATE players SET balance_cents = ?1 WHERE id = ?2")?
            .execute(params![to_i64(balance_cents)?, player_id])?;
        Ok(())
    }

    fn insert_session(
        &mut self,
        token_hash: &[u8; 32],
        player_id: &str,
        now_ms: u64,
        expires_at_ms: u64,
    ) -> StoreResult<()> {
        create_session(self.0, token_hash, player_id, now_ms, expires_at_ms)
    }

    fn wallet_op(&mut self, player_id: &str, reference: &str) -> StoreResult<Option<WalletOp>> {
        let row = self
            .0
            .prepare_cached(
                "SELECT kind, amount_cents FROM wallet_ops WHERE player_id = ?1 AND reference = ?2",
            )?
            .query_row(params![player_id, reference], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?))
            })
            .optional()?;
        row.map(|(kind, amount)| {
            Ok(WalletOp {
                kind: TransferKind::parse(&kind)
                    .ok_or_else(|| corrupt(format!("wallet operation kind {kind:?}")))?,
                amount_cents: to_u64(amount, "amount")?,
            })
        })
        .transpose()
    }

    fn insert_wallet_op(
        &mut self,
        player_id: &str,
        reference: &str,
        op: WalletOp,
        balance_after_cents: u64,
        now_ms: u64,
    ) -> StoreResult<()> {
        self.0
            .prepare_cached(
                "INSERT INTO wallet_ops (player_id, reference, kind, amount_cents, balance_after, at_ms) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![
                player_id,
                reference,
                op.kind.as_str(),
                to_i64(op.amount_cents)?,
                to_i64(balance_after_cents)?,
                to_i64(now_ms)?
            ])?;
        Ok(())
    }
}
