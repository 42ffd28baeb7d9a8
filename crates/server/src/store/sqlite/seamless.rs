//! The seamless wallet in SQLite: rounds, released tickets and the outbox
//! (the primitives of `store::seamless` and the outbox worker's reads).

use super::rows::{to_i64, to_u32, to_u64};
use super::SqlTx;
use crate::store::seamless::{OutboxItem, OutboxKind, Round, RoundTx, TicketPoolTx};
use crate::store::{corrupt, BlockStatus, StoreResult};
use eldorado_engine::ClientNonce;
use rusqlite::{params, Connection, OptionalExtension, Row};

const ROUND_COLUMNS: &str = "round_id, player_id, idempotency_key, stake_cents, block, position, \
                             client_nonce, reserved_at_ms";

/// A round's columns as SQLite holds them, checked by [`round`].
type RawRound = (String, String, String, i64, i64, i64, Vec<u8>, i64);

fn raw_round(r: &Row<'_>) -> rusqlite::Result<RawRound> {
    Ok((
        r.get(0)?,
        r.get(1)?,
        r.get(2)?,
        r.get(3)?,
        r.get(4)?,
        r.get(5)?,
        r.get(6)?,
        r.get(7)?,
    ))
}

fn round(raw: RawRound) -> StoreResult<Round> {
    let (round_id, player_id, idempotency_key, stake, block, position, nonce, at) = raw;
    Ok(Round {
        round_id,
        player_id,
        idempotency_key,
        stake_cents: to_u64(stake, "stake")?,
        block: to_u64(block, "block")?,
        position: to_u32(position, "position")?,
        client_nonce: ClientNonce(
            nonce
                .try_into()
                .map_err(|_| corrupt("stored nonce of wrong length"))?,
        ),
        reserved_at_ms: to_u64(at, "reservation time")?,
    })
}

impl TicketPoolTx for SqlTx<'_> {
    fn take_free_ticket(&mut self, block: u64) -> StoreResult<Option<u32>> {
        let position = self
            .0
            .prepare_cached(
                "DELETE FROM wallet_free_tickets WHERE block = ?1 AND position = \
                 (SELECT MIN(position) FROM wallet_free_tickets WHERE block = ?1) RETURNING position",
            )?
            .query_row(params![to_i64(block)?], |r| r.get::<_, i64>(0))
            .optional()?;
        position.map(|p| to_u32(p, "position")).transpose()
    }

    fn reserved_tickets(&mut self, block: u64) -> StoreResult<u32> {
        let count: i64 = self
            .0
            .prepare_cached(
                "SELECT COUNT(*) FROM wallet_rounds WHERE block = ?1 AND state = 'reserved'",
            )?
            .query_row(params![to_i64(block)?], |r| r.get(0))?;
        to_u32(count, "reserved tickets")
    }
}

impl RoundTx for SqlTx<'_> {
    fn reserved_round_by_key(&mut self, player_id: &str, key: &str) -> StoreResult<Option<Round>> {
        self.0
            .prepare_cached(&format!(
                "SELECT {ROUND_COLUMNS} FROM wallet_rounds \
                 WHERE player_id = ?1 AND idempotency_key = ?2 AND state = 'reserved'"
            ))?
            .query_row(params![player_id, key], raw_round)
            .optional()?
            .map(round)
            .transpose()
    }

    fn insert_round(&mut self, round: &Round) -> StoreResult<()> {
        self.0
            .prepare_cached(&format!(
                "INSERT INTO wallet_rounds ({ROUND_COLUMNS}, state) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,'reserved')"
            ))?
            .execute(params![
                round.round_id,
                round.player_id,
                round.idempotency_key,
                to_i64(round.stake_cents)?,
                to_i64(round.block)?,
                round.position,
                &round.client_nonce.0[..],
                to_i64(round.reserved_at_ms)?,
            ])?;
        Ok(())
    }

    fn reserved_round_for_update(&mut self, round_id: &str) -> StoreResult<Option<Round>> {
        self.0
            .prepare_cached(&format!(
                "SELECT {ROUND_COLUMNS} FROM wallet_rounds WHERE round_id = ?1 AND state = 'reserved'"
            ))?
            .query_row(params![round_id], raw_round)
            .optional()?
            .map(round)
            .transpose()
    }

    fn end_round(&mut self, round_id: &str, sale_id: Option<u64>, now_ms: u64) -> StoreResult<()> {
        let state = if sale_id.is_some() {
            "sold"
        } else {
            "released"
        };
        let sale_id = sale_id.map(to_i64).transpose()?;
        self.0
            .prepare_cached(
                "UPDATE wallet_rounds SET state = ?1, sale_id = ?2, ended_at_ms = ?3 \
                 WHERE round_id = ?4 AND state = 'reserved'",
            )?
            .execute(params![state, sale_id, to_i64(now_ms)?, round_id])?;
        Ok(())
    }

    fn free_ticket(&mut self, block: u64, position: u32) -> StoreResult<()> {
        self.0
            .prepare_cached("INSERT INTO wallet_free_tickets (block, position) VALUES (?1, ?2)")?
            .execute(params![to_i64(block)?, position])?;
        Ok(())
    }

    fn block_counts_for_update(
        &mut self,
        block: u64,
    ) -> StoreResult<Option<(BlockStatus, u32, u32)>> {
        let row = self
            .0
            .prepare_cached("SELECT status, sold, tickets FROM blocks WHERE id = ?1")?
            .query_row(params![to_i64(block)?], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, i64>(2)?,
                ))
            })
            .optional()?;
        row.map(|(status, sold, tickets)| {
            Ok((
                BlockStatus::parse(&status).ok_or_else(|| corrupt("block status"))?,
                to_u32(sold, "sold")?,
                to_u32(tickets, "tickets")?,
            ))
        })
        .transpose()
    }

    fn insert_outbox(&mut self, item: &OutboxItem, now_ms: u64) -> StoreResult<()> {
        self.0
            .prepare_cached(
                "INSERT INTO wallet_outbox (transaction_id, kind, round_id, player_id, amount_cents, \
                 original_transaction_id, created_at_ms) VALUES (?1,?2,?3,?4,?5,?6,?7)",
            )?
            .execute(params![
                item.transaction_id,
                item.kind.as_str(),
                item.round_id,
                item.player_id,
                to_i64(item.amount_cents)?,
                item.original_transaction_id,
                to_i64(now_ms)?,
            ])?;
        Ok(())
    }

    fn rounds_reserved_before(&mut self, before_ms: u64) -> StoreResult<Vec<String>> {
        let mut statement = self.0.prepare_cached(
            "SELECT round_id FROM wallet_rounds WHERE state = 'reserved' AND reserved_at_ms < ?1 \
             ORDER BY reserved_at_ms",
        )?;
        let ids = statement
            .query_map(params![to_i64(before_ms)?], |r| r.get(0))?
            .collect::<Result<Vec<String>, _>>()?;
        Ok(ids)
    }
}

pub(super) fn outbox_due(conn: &Connection, limit: u32) -> StoreResult<Vec<OutboxItem>> {
    let mut statement = conn.prepare_cached(
        "SELECT transaction_id, kind, round_id, player_id, amount_cents, original_transaction_id \
         FROM wallet_outbox WHERE acknowledged_at_ms IS NULL ORDER BY created_at_ms, transaction_id \
         LIMIT ?1",
    )?;
    let rows = statement
        .query_map(params![limit], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, i64>(4)?,
                r.get::<_, Option<String>>(5)?,
            ))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    rows.into_iter()
        .map(
            |(transaction_id, kind, round_id, player_id, amount, original)| {
                Ok(OutboxItem {
                    transaction_id,
                    kind: OutboxKind::parse(&kind).ok_or_else(|| corrupt("outbox kind"))?,
                    round_id,
                    player_id,
                    amount_cents: to_u64(amount, "amount")?,
                    original_transaction_id: original,
                })
            },
        )
        .collect()
}

pub(super) fn outbox_acknowledged(
    conn: &Connection,
    transaction_id: &str,
    balance_cents: u64,
    now_ms: u64,
) -> StoreResult<()> {
    conn.prepare_cached(
        "UPDATE wallet_outbox SET acknowledged_at_ms = ?1, balance_cents = ?2, \
         attempts = attempts + 1 WHERE transaction_id = ?3 AND acknowledged_at_ms IS NULL",
    )?
    .execute(params![
        to_i64(now_ms)?,
        to_i64(balance_cents)?,
        transaction_id
    ])?;
    Ok(())
}

pub(super) fn outbox_attempt_failed(
    conn: &Connection,
    transaction_id: &str,
    error: &str,
) -> StoreResult<()> {
    conn.prepare_cached(
        "UPDATE wallet_outbox SET attempts = attempts + 1, last_error = ?1 WHERE transaction_id = ?2",
    )?
    .execute(params![error, transaction_id])?;
    Ok(())
}
