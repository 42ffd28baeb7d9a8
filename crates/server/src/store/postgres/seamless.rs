//! The seamless wallet in PostgreSQL: rounds, released tickets and the
//! outbox (the primitives of `store::seamless` and the outbox worker's
//! reads), the same statements as SQLite's with row locks.

use super::PgTx;
use crate::store::seamless::{OutboxItem, OutboxKind, Round, RoundTx, TicketPoolTx};
use crate::store::sqlite::rows::{to_i64, to_u32, to_u64};
use crate::store::{corrupt, BlockStatus, StoreResult};
use eldorado_engine::ClientNonce;
use postgres::{GenericClient, Row};

const ROUND_COLUMNS: &str = "round_id, player_id, idempotency_key, stake_cents, block, position, \
                             client_nonce, reserved_at_ms";

fn round_from_row(r: &Row) -> StoreResult<Round> {
    let nonce: Vec<u8> = r.try_get(6)?;
    Ok(Round {
        round_id: r.try_get(0)?,
        player_id: r.try_get(1)?,
        idempotency_key: r.try_get(2)?,
        stake_cents: to_u64(r.try_get(3)?, "stake")?,
        block: to_u64(r.try_get(4)?, "block")?,
        position: to_u32(r.try_get(5)?, "position")?,
        client_nonce: ClientNonce(
            nonce
                .try_into()
                .map_err(|_| corrupt("stored nonce of wrong length"))?,
        ),
        reserved_at_ms: to_u64(r.try_get(7)?, "reservation time")?,
    })
}

impl TicketPoolTx for PgTx<'_> {
    fn take_free_ticket(&mut self, block: u64) -> StoreResult<Option<u32>> {
        let row = self.0.query_opt(
            "DELETE FROM wallet_free_tickets WHERE (block, position) = \
             (SELECT block, position FROM wallet_free_tickets WHERE block = $1 \
              ORDER BY position LIMIT 1 FOR UPDATE) RETURNING position",
            &[&to_i64(block)?],
        )?;
        row.map(|r| to_u32(r.try_get(0)?, "position")).transpose()
    }

    fn reserved_tickets(&mut self, block: u64) -> StoreResult<u32> {
        let count: i64 = self
            .0
            .query_one(
                "SELECT COUNT(*) FROM wallet_rounds WHERE block = $1 AND state = 'reserved'",
                &[&to_i64(block)?],
            )?
            .try_get(0)?;
        to_u32(count, "reserved tickets")
    }
}

impl RoundTx for PgTx<'_> {
    fn reserved_round_by_key(&mut self, player_id: &str, key: &str) -> StoreResult<Option<Round>> {
        self.0
            .query_opt(
                &format!(
                    "SELECT {ROUND_COLUMNS} FROM wallet_rounds \
                     WHERE player_id = $1 AND idempotency_key = $2 AND state = 'reserved'"
                ),
                &[&player_id, &key],
            )?
            .map(|r| round_from_row(&r))
            .transpose()
    }

    fn insert_round(&mut self, round: &Round) -> StoreResult<()> {
        self.0.execute(
            &format!(
                "INSERT INTO wallet_rounds ({ROUND_COLUMNS}, state) \
                 VALUES ($1,$2,$3,$4,$5,$6,$7,$8,'reserved')"
            ),
            &[
                &round.round_id,
                &round.player_id,
                &round.idempotency_key,
                &to_i64(round.stake_cents)?,
                &to_i64(round.block)?,
                &i64::from(round.position),
                &&round.client_nonce.0[..],
                &to_i64(round.reserved_at_ms)?,
            ],
        )?;
        Ok(())
    }

    fn reserved_round_for_update(&mut self, round_id: &str) -> StoreResult<Option<Round>> {
        self.0
            .query_opt(
                &format!(
                    "SELECT {ROUND_COLUMNS} FROM wallet_rounds \
                     WHERE round_id = $1 AND state = 'reserved' FOR UPDATE"
                ),
                &[&round_id],
            )?
            .map(|r| round_from_row(&r))
            .transpose()
    }

    fn end_round(&mut self, round_id: &str, sale_id: Option<u64>, now_ms: u64) -> StoreResult<()> {
        let state = if sale_id.is_some() {
            "sold"
        } else {
            "released"
        };
        let sale_id = sale_id.map(to_i64).transpose()?;
        self.0.execute(
            "UPDATE wallet_rounds SET state = $1, sale_id = $2, ended_at_ms = $3 \
             WHERE round_id = $4 AND state = 'reserved'",
            &[&state, &sale_id, &to_i64(now_ms)?, &round_id],
        )?;
        Ok(())
    }

    fn free_ticket(&mut self, block: u64, position: u32) -> StoreResult<()> {
        self.0.execute(
            "INSERT INTO wallet_free_tickets (block, position) VALUES ($1, $2)",
            &[&to_i64(block)?, &i64::from(position)],
        )?;
        Ok(())
    }

    fn block_counts_for_update(
        &mut self,
        block: u64,
    ) -> StoreResult<Option<(BlockStatus, u32, u32)>> {
        let row = self.0.query_opt(
            "SELECT status, sold, tickets FROM blocks WHERE id = $1 FOR UPDATE",
            &[&to_i64(block)?],
        )?;
        row.map(|r| {
            let status: String = r.try_get(0)?;
            Ok((
                BlockStatus::parse(&status).ok_or_else(|| corrupt("block status"))?,
                to_u32(r.try_get(1)?, "sold")?,
                to_u32(r.try_get(2)?, "tickets")?,
            ))
        })
        .transpose()
    }

    fn insert_outbox(&mut self, item: &OutboxItem, now_ms: u64) -> StoreResult<()> {
        self.0.execute(
            "INSERT INTO wallet_outbox (transaction_id, kind, round_id, player_id, amount_cents, \
             original_transaction_id, created_at_ms) VALUES ($1,$2,$3,$4,$5,$6,$7)",
            &[
                &item.transaction_id,
                &item.kind.as_str(),
                &item.round_id,
                &item.player_id,
                &to_i64(item.amount_cents)?,
                &item.original_transaction_id,
                &to_i64(now_ms)?,
            ],
        )?;
        Ok(())
    }

    fn rounds_reserved_before(&mut self, before_ms: u64) -> StoreResult<Vec<String>> {
        self.0
            .query(
                "SELECT round_id FROM wallet_rounds WHERE state = 'reserved' AND reserved_at_ms < $1 \
                 ORDER BY reserved_at_ms",
                &[&to_i64(before_ms)?],
            )?
            .iter()
            .map(|r| Ok(r.try_get(0)?))
            .collect()
    }
}

pub(super) fn outbox_due(
    client: &mut impl GenericClient,
    limit: u32,
) -> StoreResult<Vec<OutboxItem>> {
    client
        .query(
            "SELECT transaction_id, kind, round_id, player_id, amount_cents, original_transaction_id \
             FROM wallet_outbox WHERE acknowledged_at_ms IS NULL \
             ORDER BY created_at_ms, transaction_id LIMIT $1",
            &[&i64::from(limit)],
        )?
        .iter()
        .map(|r| {
            let kind: String = r.try_get(1)?;
            Ok(OutboxItem {
                transaction_id: r.try_get(0)?,
                kind: OutboxKind::parse(&kind).ok_or_else(|| corrupt("outbox kind"))?,
                round_id: r.try_get(2)?,
                player_id: r.try_get(3)?,
                amount_cents: to_u64(r.try_get(4)?, "amount")?,
                original_transaction_id: r.try_get(5)?,
            })
        })
        .collect()
}

pub(super) fn outbox_acknowledged(
    client: &mut impl GenericClient,
    transaction_id: &str,
    balance_cents: u64,
    now_ms: u64,
) -> StoreResult<()> {
    client.execute(
        "UPDATE wallet_outbox SET acknowledged_at_ms = $1, balance_cents = $2, \
         attempts = attempts + 1 WHERE transaction_id = $3 AND acknowledged_at_ms IS NULL",
        &[&to_i64(now_ms)?, &to_i64(balance_cents)?, &transaction_id],
    )?;
    Ok(())
}

pub(super) fn outbox_attempt_failed(
    client: &mut impl GenericClient,
    transaction_id: &str,
    error: &str,
) -> StoreResult<()> {
    client.execute(
        "UPDATE wallet_outbox SET attempts = attempts + 1, last_error = $1 WHERE transaction_id = $2",
        &[&error, &transaction_id],
    )?;
    Ok(())
}
