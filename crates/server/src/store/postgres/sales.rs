//! Sales in PostgreSQL: the batch's row locks, the sale primitives of
//! `store::tx`, and the reads a player makes of its own sales.

use super::rows::query_sales;
use super::PgTx;
use crate::store::sqlite::rows::{parse_ticket, to_i64, to_u64};
use crate::store::tx::{NewSale, SaleTx};
use crate::store::{corrupt, BlockStatus, SaleRecord, SaleRequest, StoreResult, Totals};
use eldorado_engine::Ticket;
use postgres::GenericClient;

/// Locks, before the rules run, the open blocks of the batch's stakes and
/// the rows of its players, each set in id order. Every batch of every
/// server takes them in the same order, so batches wait for each other
/// instead of deadlocking; and a sale retried on another server while the
/// first try is still in flight waits here, then finds the first try's
/// sale under its idempotency key (a replay, not a second sale).
pub(super) fn lock_batch(tx: &mut PgTx<'_>, requests: &[SaleRequest]) -> StoreResult<()> {
    let mut stakes: Vec<i64> = requests
        .iter()
        .map(|r| to_i64(r.stake.cents()))
        .collect::<StoreResult<_>>()?;
    stakes.sort_unstable();
    stakes.dedup();
    let mut players: Vec<&str> = requests.iter().map(|r| r.player_id.as_str()).collect();
    players.sort_unstable();
    players.dedup();
    tx.0.execute(
        "SELECT id FROM blocks WHERE status = 'open' AND stake_cents = ANY($1) ORDER BY id FOR UPDATE",
        &[&stakes],
    )?;
    tx.0.execute(
        "SELECT id FROM players WHERE id = ANY($1) ORDER BY id FOR UPDATE",
        &[&players],
    )?;
    Ok(())
}

pub(super) fn sale(
    client: &mut impl GenericClient,
    player_id: &str,
    sale_id: u64,
) -> StoreResult<Option<SaleRecord>> {
    let Ok(sale_id) = i64::try_from(sale_id) else {
        return Ok(None);
    };
    Ok(query_sales(
        client,
        "WHERE s.sale_id = $1 AND s.player_id = $2",
        &[&sale_id, &player_id],
    )?
    .pop())
}

pub(super) fn history(
    client: &mut impl GenericClient,
    player_id: &str,
    before: Option<u64>,
    limit: u32,
) -> StoreResult<Vec<SaleRecord>> {
    let before = before.map_or(i64::MAX, |b| i64::try_from(b).unwrap_or(i64::MAX));
    query_sales(
        client,
        "WHERE s.player_id = $1 AND s.sale_id < $2 ORDER BY s.sale_id DESC LIMIT $3",
        &[&player_id, &before, &i64::from(limit)],
    )
}

pub(super) fn unrevealed(
    client: &mut impl GenericClient,
    player_id: &str,
) -> StoreResult<Option<SaleRecord>> {
    Ok(query_sales(
        client,
        "WHERE s.player_id = $1 AND s.revealed < s.grid_count ORDER BY s.sale_id LIMIT 1",
        &[&player_id],
    )?
    .pop())
}

pub(super) fn set_revealed(
    client: &mut impl GenericClient,
    player_id: &str,
    sale_id: i64,
    revealed: u8,
) -> StoreResult<Option<u8>> {
    let row = client.query_opt(
        "UPDATE sales SET revealed = LEAST(grid_count, GREATEST(revealed, $1)) \
         WHERE sale_id = $2 AND player_id = $3 RETURNING revealed",
        &[&i64::from(revealed), &sale_id, &player_id],
    )?;
    row.map(|r| u8::try_from(r.try_get::<_, i64>(0)?).map_err(|_| corrupt("revealed")))
        .transpose()
}

pub(super) fn totals(client: &mut impl GenericClient) -> StoreResult<Totals> {
    // SUM of BIGINT is NUMERIC in PostgreSQL: cast back, exactly.
    let balances: i64 = client
        .query_one(
            "SELECT COALESCE(SUM(balance_cents), 0)::BIGINT FROM players",
            &[],
        )?
        .try_get(0)?;
    let row = client.query_one(
        "SELECT COALESCE(SUM(stake_cents), 0)::BIGINT, COALESCE(SUM(prize_cents), 0)::BIGINT, \
         COUNT(*) FROM sales",
        &[],
    )?;
    Ok(Totals {
        balances_cents: to_u64(balances, "balances")?,
        stakes_cents: to_u64(row.try_get(0)?, "stakes")?,
        prizes_cents: to_u64(row.try_get(1)?, "prizes")?,
        sales: to_u64(row.try_get(2)?, "sales")?,
    })
}

impl SaleTx for PgTx<'_> {
    fn sale_by_key(&mut self, player_id: &str, key: &str) -> StoreResult<Option<(u64, u64)>> {
        let row = self.0.query_opt(
            "SELECT sale_id, stake_cents FROM sales WHERE player_id = $1 AND idempotency_key = $2",
            &[&player_id, &key],
        )?;
        row.map(|r| {
            Ok((
                to_u64(r.try_get(0)?, "sale id")?,
                to_u64(r.try_get(1)?, "stake")?,
            ))
        })
        .transpose()
    }

    fn sale_by_id(&mut self, sale_id: u64) -> StoreResult<Option<SaleRecord>> {
        Ok(query_sales(&mut self.0, "WHERE s.sale_id = $1", &[&to_i64(sale_id)?])?.pop())
    }

    fn ticket(
        &mut self,
        block: u64,
        position: u32,
        stake_cents: u64,
    ) -> StoreResult<Option<Ticket>> {
        let row = self.0.query_opt(
            "SELECT grids, prize, extras, salt FROM tickets WHERE block = $1 AND position = $2",
            &[&to_i64(block)?, &i64::from(position)],
        )?;
        row.map(|r| {
            let grids: String = r.try_get(0)?;
            let salt: Vec<u8> = r.try_get(3)?;
            parse_ticket(
                position,
                stake_cents,
                &grids,
                r.try_get(1)?,
                r.try_get(2)?,
                &salt,
            )
        })
        .transpose()
    }

    fn insert_sale(&mut self, sale: &NewSale<'_>) -> StoreResult<u64> {
        let row = self.0.query_one(
            "INSERT INTO sales (player_id, idempotency_key, stake_cents, block, position, prize_cents, \
             grid_count, sold_at_ms, balance_before, balance_after, client_nonce) \
             VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11) RETURNING sale_id",
            &[
                &sale.player_id,
                &sale.idempotency_key,
                &to_i64(sale.stake_cents)?,
                &to_i64(sale.block)?,
                &i64::from(sale.position),
                &to_i64(sale.prize_cents)?,
                &i64::from(sale.grid_count),
                &to_i64(sale.sold_at_ms)?,
                &to_i64(sale.balance_before_cents)?,
                &to_i64(sale.balance_after_cents)?,
                &&sale.client_nonce.0[..],
            ],
        )?;
        to_u64(row.try_get(0)?, "sale id")
    }

    fn set_block_sold(&mut self, block: u64, sold: u32, status: BlockStatus) -> StoreResult<()> {
        self.0.execute(
            "UPDATE blocks SET sold = $1, status = $2 WHERE id = $3",
            &[&i64::from(sold), &status.as_str(), &to_i64(block)?],
        )?;
        Ok(())
    }

    fn take_prize(&mut self, block: u64, prize_cents: u64) -> StoreResult<()> {
        self.0.execute(
            "UPDATE block_prizes SET remaining = remaining - 1 WHERE block = $1 AND prize_cents = $2",
            &[&to_i64(block)?, &to_i64(prize_cents)?],
        )?;
        Ok(())
    }

    fn savepoint(&mut self) -> StoreResult<()> {
        self.0.batch_execute("SAVEPOINT sale")?;
        Ok(())
    }

    fn release_savepoint(&mut self) -> StoreResult<()> {
        self.0.batch_execute("RELEASE SAVEPOINT sale")?;
        Ok(())
    }

    fn rollback_to_savepoint(&mut self) -> StoreResult<()> {
        // ROLLBACK TO keeps the savepoint open; RELEASE closes it.
        self.0
            .batch_execute("ROLLBACK TO SAVEPOINT sale; RELEASE SAVEPOINT sale")?;
        Ok(())
    }
}
