//! Players, wallets and sessions in PostgreSQL: the wallet primitives of
//! `store::tx` and the single-statement writes and reads around them.

use super::PgTx;
use crate::store::sqlite::rows::{to_i64, to_u64};
use crate::store::tx::{WalletOp, WalletTx};
use crate::store::{corrupt, PlayerKind, PlayerRecord, SessionRecord, StoreResult, TransferKind};
use postgres::GenericClient;

fn player_kind(text: &str) -> StoreResult<PlayerKind> {
    PlayerKind::parse(text).ok_or_else(|| corrupt(format!("player kind {text:?}")))
}

fn kind_and_balance(
    client: &mut impl GenericClient,
    id: &str,
    lock: &str,
) -> StoreResult<Option<(PlayerKind, u64)>> {
    let row = client.query_opt(
        &format!("SELECT kind, balance_cents FROM players WHERE id = $1 {lock}"),
        &[&id],
    )?;
    row.map(|r| {
        Ok((
            player_kind(&r.try_get::<_, String>(0)?)?,
            to_u64(r.try_get(1)?, "balance")?,
        ))
    })
    .transpose()
}

/// An existing player is left as it is: creating is idempotent.
pub(super) fn create_player(
    client: &mut impl GenericClient,
    id: &str,
    kind: PlayerKind,
    balance_cents: u64,
    now_ms: u64,
) -> StoreResult<bool> {
    let inserted = client.execute(
        "INSERT INTO players (id, kind, balance_cents, created_at_ms) VALUES ($1, $2, $3, $4) \
         ON CONFLICT (id) DO NOTHING",
        &[
            &id,
            &kind.as_str(),
            &to_i64(balance_cents)?,
            &to_i64(now_ms)?,
        ],
    )?;
    Ok(inserted == 1)
}

pub(super) fn player(
    client: &mut impl GenericClient,
    id: &str,
) -> StoreResult<Option<PlayerRecord>> {
    Ok(
        kind_and_balance(client, id, "")?.map(|(kind, balance_cents)| PlayerRecord {
            id: id.to_owned(),
            kind,
            balance_cents,
        }),
    )
}

pub(super) fn has_players(client: &mut impl GenericClient, kind: PlayerKind) -> StoreResult<bool> {
    Ok(client
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM players WHERE kind = $1)",
            &[&kind.as_str()],
        )?
        .try_get(0)?)
}

pub(super) fn create_session(
    client: &mut impl GenericClient,
    token_hash: &[u8; 32],
    player_id: &str,
    now_ms: u64,
    expires_at_ms: u64,
) -> StoreResult<()> {
    client.execute(
        "INSERT INTO sessions (token_hash, player_id, created_at_ms, expires_at_ms) VALUES ($1, $2, $3, $4)",
        &[
            &&token_hash[..],
            &player_id,
            &to_i64(now_ms)?,
            &to_i64(expires_at_ms)?,
        ],
    )?;
    Ok(())
}

pub(super) fn delete_session(
    client: &mut impl GenericClient,
    token_hash: &[u8; 32],
) -> StoreResult<bool> {
    let deleted = client.execute(
        "DELETE FROM sessions WHERE token_hash = $1",
        &[&&token_hash[..]],
    )?;
    Ok(deleted > 0)
}

pub(super) fn delete_player_sessions(
    client: &mut impl GenericClient,
    player_id: &str,
) -> StoreResult<u64> {
    Ok(client.execute("DELETE FROM sessions WHERE player_id = $1", &[&player_id])?)
}

pub(super) fn delete_expired_sessions(
    client: &mut impl GenericClient,
    now_ms: u64,
) -> StoreResult<u64> {
    Ok(client.execute(
        "DELETE FROM sessions WHERE expires_at_ms <= $1",
        &[&to_i64(now_ms)?],
    )?)
}

pub(super) fn session(
    client: &mut impl GenericClient,
    token_hash: &[u8; 32],
) -> StoreResult<Option<SessionRecord>> {
    let row = client.query_opt(
        "SELECT player_id, expires_at_ms, lobby_url FROM sessions WHERE token_hash = $1",
        &[&&token_hash[..]],
    )?;
    row.map(|r| {
        Ok(SessionRecord {
            player_id: r.try_get(0)?,
            expires_at_ms: to_u64(r.try_get(1)?, "expiry")?,
            lobby_url: r.try_get(2)?,
        })
    })
    .transpose()
}

impl WalletTx for PgTx<'_> {
    fn player_for_update(&mut self, player_id: &str) -> StoreResult<Option<(PlayerKind, u64)>> {
        kind_and_balance(&mut self.0, player_id, "FOR UPDATE")
    }

    fn insert_player(
        &mut self,
        player_id: &str,
        kind: PlayerKind,
        balance_cents: u64,
        now_ms: u64,
    ) -> StoreResult<()> {
        self.0.execute(
            "INSERT INTO players (id, kind, balance_cents, created_at_ms) VALUES ($1, $2, $3, $4)",
            &[
                &player_id,
                &kind.as_str(),
                &to_i64(balance_cents)?,
                &to_i64(now_ms)?,
            ],
        )?;
        Ok(())
    }

    fn set_balance(&mut self, player_id: &str, balance_cents: u64) -> StoreResult<()> {
        self.0.execute(
            "UPDATE players SET balance_cents = $1 WHERE id = $2",
            &[&to_i64(balance_cents)?, &player_id],
        )?;
        Ok(())
    }

    fn insert_session(
        &mut self,
        token_hash: &[u8; 32],
        player_id: &str,
        now_ms: u64,
        expires_at_ms: u64,
    ) -> StoreResult<()> {
        create_session(&mut self.0, token_hash, player_id, now_ms, expires_at_ms)
    }

    fn wallet_op(&mut self, player_id: &str, reference: &str) -> StoreResult<Option<WalletOp>> {
        let row = self.0.query_opt(
            "SELECT kind, amount_cents FROM wallet_ops WHERE player_id = $1 AND reference = $2",
            &[&player_id, &reference],
        )?;
        row.map(|r| {
            let kind: String = r.try_get(0)?;
            Ok(WalletOp {
                kind: TransferKind::parse(&kind)
                    .ok_or_else(|| corrupt(format!("wallet operation kind {kind:?}")))?,
                amount_cents: to_u64(r.try_get(1)?, "amount")?,
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
        self.0.execute(
            "INSERT INTO wallet_ops (player_id, reference, kind, amount_cents, balance_after, at_ms) \
             VALUES ($1, $2, $3, $4, $5, $6)",
            &[
                &player_id,
                &reference,
                &op.kind.as_str(),
                &to_i64(op.amount_cents)?,
                &to_i64(balance_after_cents)?,
                &to_i64(now_ms)?,
            ],
        )?;
        Ok(())
    }
}
