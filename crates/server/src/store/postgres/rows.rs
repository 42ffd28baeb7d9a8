//! Between PostgreSQL rows and the store's records. Every number is a
//! BIGINT, so each conversion is checked the same way as SQLite's (the
//! shared helpers of `sqlite::rows`): a value that does not fit is
//! corruption, never a silent wrap.

use crate::store::sqlite::rows::{block_status, money_of, parse_ticket, to_i64, to_u32, to_u64};
use crate::store::{corrupt, BlockRecord, BlockSeeding, SaleRecord, StoreResult};
use eldorado_engine::{ClientNonce, SignedCommitment};
use postgres::types::ToSql;
use postgres::{GenericClient, Row};

pub(super) fn block_record(
    client: &mut impl GenericClient,
    id: u64,
) -> StoreResult<Option<BlockRecord>> {
    let Some(row) = client.query_opt(
        "SELECT status, sold, commitment, params, money, seeding FROM blocks \
         WHERE id = $1 AND status <> 'generating'",
        &[&to_i64(id)?],
    )?
    else {
        return Ok(None);
    };
    let (status, sold, commitment, params, money, seeding): (
        String,
        i64,
        String,
        String,
        String,
        String,
    ) = (
        row.try_get(0)?,
        row.try_get(1)?,
        row.try_get(2)?,
        row.try_get(3)?,
        row.try_get(4)?,
        row.try_get(5)?,
    );
    let signed: SignedCommitment = serde_json::from_str(&commitment)
        .map_err(|e| corrupt(format!("stored commitment: {e}")))?;
    // Sales pick blocks by the column, buyers check the signed kind: they
    // must agree, or a play-money sale could come from a real-money block.
    if money_of(&money)? != signed.commitment.money {
        return Err(corrupt(format!(
            "block {id} is stored as {money} money but committed as {}",
            signed.commitment.money.as_str()
        )));
    }
    let remaining_by_prize = client
        .query(
            "SELECT prize_cents, remaining FROM block_prizes WHERE block = $1 ORDER BY prize_cents DESC",
            &[&to_i64(id)?],
        )?
        .iter()
        .map(|r| {
            Ok((
                to_u64(r.try_get(0)?, "prize")?,
                to_u32(r.try_get(1)?, "remaining prizes")?,
            ))
        })
        .collect::<StoreResult<Vec<_>>>()?;
    Ok(Some(BlockRecord {
        signed,
        params: serde_json::from_str(&params)
            .map_err(|e| corrupt(format!("stored params: {e}")))?,
        status: block_status(&status)?,
        seeding: BlockSeeding::parse(&seeding)
            .ok_or_else(|| corrupt(format!("block seeding {seeding:?}")))?,
        sold: to_u32(sold, "sold count")?,
        remaining_by_prize,
    }))
}

const SALE_COLUMNS: &str = "s.sale_id, s.player_id, s.block, b.tickets, s.position, s.stake_cents, \
     t.grids, t.prize, t.extras, t.salt, s.sold_at_ms, s.balance_before, s.balance_after, s.revealed, \
     s.client_nonce";

fn sale_from_row(r: &Row) -> StoreResult<SaleRecord> {
    let salt: Vec<u8> = r.try_get(9)?;
    let grids: String = r.try_get(6)?;
    let nonce: Vec<u8> = r.try_get(14)?;
    Ok(SaleRecord {
        sale_id: to_u64(r.try_get(0)?, "sale id")?,
        player_id: r.try_get(1)?,
        block: to_u64(r.try_get(2)?, "block")?,
        block_tickets: to_u32(r.try_get(3)?, "tickets")?,
        ticket: parse_ticket(
            to_u32(r.try_get(4)?, "position")?,
            to_u64(r.try_get(5)?, "stake")?,
            &grids,
            r.try_get(7)?,
            r.try_get(8)?,
            &salt,
        )?,
        sold_at_ms: to_u64(r.try_get(10)?, "time")?,
        client_nonce: ClientNonce(
            nonce
                .try_into()
                .map_err(|_| corrupt("stored client nonce of wrong length"))?,
        ),
        balance_before_cents: to_u64(r.try_get(11)?, "balance")?,
        balance_after_cents: to_u64(r.try_get(12)?, "balance")?,
        revealed: u8::try_from(r.try_get::<_, i64>(13)?).map_err(|_| corrupt("revealed"))?,
    })
}

/// Sales matching `filter` (a `WHERE` clause and what follows it).
pub(super) fn query_sales(
    client: &mut impl GenericClient,
    filter: &str,
    params: &[&(dyn ToSql + Sync)],
) -> StoreResult<Vec<SaleRecord>> {
    let sql = format!(
        "SELECT {SALE_COLUMNS} FROM sales s JOIN blocks b ON b.id = s.block \
         JOIN tickets t ON t.block = s.block AND t.position = s.position {filter}"
    );
    client
        .query(&sql, params)?
        .iter()
        .map(sale_from_row)
        .collect()
}
