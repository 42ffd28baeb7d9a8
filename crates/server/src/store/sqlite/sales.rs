//! Sales in SQLite: the sale primitives of `store::tx` and the reads a
//! player makes of its own sales.

use super::rows::{parse_ticket, query_sales, to_i64, to_u64};
use super::SqlTx;
use crate::store::tx::{NewSale, SaleTx};
use crate::store::{corrupt, BlockStatus, SaleRecord, StoreResult, Totals};
use eldorado_engine::Ticket;
use rusqlite::{params, Connection, OptionalExtension};

pub(super) fn sale(
    conn: &Connection,
    player_id: &str,
    sale_id: u64,
) -> StoreResult<Option<SaleRecord>> {
    let Ok(sale_id) = i64::try_from(sale_id) else {
        return Ok(None);
    };
    Ok(query_sales(
        conn,
        "WHERE s.sale_id = ?1 AND s.player_id = ?2",
        &[&sale_id, &player_id],
    )?
    .pop())
}

pub(super) fn history(
    conn: &Connection,
    player_id: &str,
    before: Option<u64>,
    limit: u32,
) -> StoreResult<Vec<SaleRecord>> {
    let before = before.map_or(i64::MAX, |b| i64::try_from(b).unwrap_or(i64::MAX));
    query_sales(
        conn,
        "WHERE s.player_id = ?1 AND s.sale_id < ?2 ORDER BY s.sale_id DESC LIMIT ?3",
        &[&player_id, &before, &limit],
    )
}

pub(super) fn unrevealed(conn: &Connection, player_id: &str) -> StoreResult<Option<SaleRecord>> {
    Ok(query_sales(
        conn,
        "WHERE s.player_id = ?1 AND s.revealed < s.grid_count ORDER BY s.sale_id LIMIT 1",
        &[&player_id],
    )?
    .pop())
}

pub(super) fn set_revealed(
    conn: &Connection,
    player_id: &str,
    sale_id: i64,
    revealed: u8,
) -> StoreResult<Option<u8>> {
    conn.prepare_cached(
        "UPDATE sales SET revealed = MIN(grid_count, MAX(revealed, ?1)) WHERE sale_id = ?2 AND player_id = ?3",
    )?
    .execute(params![revealed, sale_id, player_id])?;
    let stored = conn
        .prepare_cached("SELECT revealed FROM sales WHERE sale_id = ?1 AND player_id = ?2")?
        .query_row(params![sale_id, player_id], |r| r.get::<_, i64>(0))
        .optional()?;
    stored
        .map(|v| u8::try_from(v).map_err(|_| corrupt("revealed")))
        .transpose()
}

pub(super) fn totals(conn: &Connection) -> StoreResult<Totals> {
    let balances: i64 = conn.query_row(
        "SELECT COALESCE(SUM(balance_cents), 0) FROM players",
        [],
        |r| r.get(0),
    )?;
    let (stakes, prizes, sales): (i64, i64, i64) = conn.query_row(
        "SELECT COALESCE(SUM(stake_cents), 0), COALESCE(SUM(prize_cents), 0), COUNT(*) FROM sales",
        [],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )?;
    Ok(Totals {
        balances_cents: to_u64(balances, "balances")?,
        stakes_cents: to_u64(stakes, "stakes")?,
        prizes_cents: to_u64(prizes, "prizes")?,
        sales: to_u64(sales, "sales")?,
    })
}

impl SaleTx for SqlTx<'_> {
    fn sale_by_key(&mut self, player_id: &str, key: &str) -> StoreResult<Option<(u64, u64)>> {
        let row = self
            .0
            .prepare_cached(
                "SELECT sale_id, stake_cents FROM sales WHERE player_id = ?1 AND idempotency_key = ?2",
            )?
            .query_row(params![player_id, key], |r| {
                Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?))
            })
            .optional()?;
        row.map(|(sale_id, stake)| Ok((to_u64(sale_id, "sale id")?, to_u64(stake, "stake")?)))
            .transpose()
    }

    fn sale_by_id(&mut self, sale_id: u64) -> StoreResult<Option<SaleRecord>> {
        Ok(query_sales(self.0, "WHERE s.sale_id = ?1", &[&to_i64(sale_id)?])?.pop())
    }

    fn ticket(
        &mut self,
        block: u64,
        position: u32,
        stake_cents: u64,
    ) -> StoreResult<Option<Ticket>> {
        let row = self
            .0
            .prepare_cached(
                "SELECT grids, prize, extras, salt FROM tickets WHERE block = ?1 AND position = ?2",
            )?
            .query_row(params![to_i64(block)?, position], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, Vec<u8>>(3)?,
                ))
            })
            .optional()?;
        row.map(|(grids, prize, extras, salt)| {
            parse_ticket(position, stake_cents, &grids, prize, extras, &salt)
        })
        .transpose()
    }

    fn insert_sale(&mut self, sale: &NewSale<'_>) -> StoreResult<u64> {
        self.0
            .prepare_cached(
                "INSERT INTO sales (player_id, idempotency_key, stake_cents, block, position, prize_cents, \
                 grid_count, sold_at_ms, balance_before, balance_after) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)",
            )?
            .execute(params![
                sale.player_id,
                sale.idempotency_key,
                to_i64(sale.stake_cents)?,
                to_i64(sale.block)?,
                sale.position,
                to_i64(sale.prize_cents)?,
                sale.grid_count,
                to_i64(sale.sold_at_ms)?,
                to_i64(sale.balance_before_cents)?,
                to_i64(sale.balance_after_cents)?,
            ])?;
        to_u64(self.0.last_insert_rowid(), "sale id")
    }

    fn set_block_sold(&mut self, block: u64, sold: u32, status: BlockStatus) -> StoreResult<()> {
        self.0
            .prepare_cached("UPDATE blocks SET sold = ?1, status = ?2 WHERE id = ?3")?
            .execute(params![sold, status.as_str(), to_i64(block)?])?;
        Ok(())
    }

    fn take_prize(&mut self, block: u64, prize_cents: u64) -> StoreResult<()> {
        self.0
            .prepare_cached(
                "UPDATE block_prizes SET remaining = remaining - 1 WHERE block = ?1 AND prize_cents = ?2",
            )?
            .execute(params![to_i64(block)?, to_i64(prize_cents)?])?;
        Ok(())
    }

    fn savepoint(&mut self) -> StoreResult<()> {
        self.0.execute_batch("SAVEPOINT sale")?;
        Ok(())
    }

    fn release_savepoint(&mut self) -> StoreResult<()> {
        self.0.execute_batch("RELEASE sale")?;
        Ok(())
    }

    fn rollback_to_savepoint(&mut self) -> StoreResult<()> {
        // ROLLBACK TO keeps the savepoint open; RELEASE closes it.
        self.0.execute_batch("ROLLBACK TO sale; RELEASE sale")?;
        Ok(())
    }
}
