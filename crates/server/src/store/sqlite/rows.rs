//! Between SQLite rows and the store's records. SQLite integers are signed,
//! so every conversion is checked: a value that does not fit is corruption,
//! never a silent wrap.

use crate::store::{corrupt, BlockRecord, BlockSeeding, BlockStatus, SaleRecord, StoreResult};
use eldorado_engine::{ClientNonce, Grid, Hash, Money, Salt, SignedCommitment, Ticket};
use rusqlite::{Connection, OptionalExtension};

pub(in crate::store) fn to_u64(value: i64, what: &str) -> StoreResult<u64> {
    u64::try_from(value).map_err(|_| corrupt(format!("negative {what}")))
}

pub(in crate::store) fn to_u32(value: i64, what: &str) -> StoreResult<u32> {
    u32::try_from(value).map_err(|_| corrupt(format!("{what} out of range")))
}

pub(in crate::store) fn to_i64(value: u64) -> StoreResult<i64> {
    i64::try_from(value).map_err(|_| corrupt("amount out of range"))
}

pub(in crate::store) fn grids_text(ticket: &Ticket) -> String {
    ticket
        .grids
        .iter()
        .map(|g| g.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

pub(in crate::store) fn parse_ticket(
    position: u32,
    stake_cents: u64,
    grids: &str,
    prize: i64,
    extras: i64,
    salt: &[u8],
) -> StoreResult<Ticket> {
    let grids = grids
        .split(' ')
        .map(|g| g.parse::<Grid>())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| corrupt(format!("stored grid: {e}")))?;
    let salt = Salt(
        salt.try_into()
            .map_err(|_| corrupt("stored salt of wrong length"))?,
    );
    Ok(Ticket {
        position,
        stake_cents,
        grids,
        prize_cents: to_u64(prize, "prize")?,
        extras: u8::try_from(extras).map_err(|_| corrupt("stored extras"))?,
        salt,
    })
}

pub(in crate::store) fn hash_of(bytes: &[u8]) -> StoreResult<Hash> {
    Ok(Hash(
        bytes
            .try_into()
            .map_err(|_| corrupt("stored hash of wrong length"))?,
    ))
}

pub(in crate::store) fn block_status(text: &str) -> StoreResult<BlockStatus> {
    BlockStatus::parse(text).ok_or_else(|| corrupt(format!("block status {text:?}")))
}

pub(in crate::store) fn money_of(text: &str) -> StoreResult<Money> {
    match text {
        "real" => Ok(Money::Real),
        "play" => Ok(Money::Play),
        _ => Err(corrupt(format!("block money {text:?}"))),
    }
}

pub(super) fn block_record(conn: &Connection, id: u64) -> StoreResult<Option<BlockRecord>> {
    let row = conn
        .prepare_cached(
            "SELECT status, sold, commitment, params, money, seeding FROM blocks \
             WHERE id = ?1 AND status <> 'generating'",
        )?
        .query_row([to_i64(id)?], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, String>(5)?,
            ))
        })
        .optional()?;
    let Some((status, sold, commitment, params, money, seeding)) = row else {
        return Ok(None);
    };
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
    let remaining_by_prize = conn
        .prepare_cached(
            "SELECT prize_cents, remaining FROM block_prizes WHERE block = ?1 ORDER BY prize_cents DESC",
        )?
        .query_map([to_i64(id)?], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))?
        .map(|row| {
            let (prize, remaining) = row?;
            Ok((to_u64(prize, "prize")?, to_u32(remaining, "remaining prizes")?))
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

/// A sale joined with its block and ticket; the outer error is SQLite's,
/// the inner one a value that does not fit.
fn sale_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<StoreResult<SaleRecord>> {
    let position: i64 = r.get(4)?;
    let grids: String = r.get(6)?;
    let salt: Vec<u8> = r.get(9)?;
    let (sale_id, block, tickets, stake): (i64, i64, i64, i64) =
        (r.get(0)?, r.get(2)?, r.get(3)?, r.get(5)?);
    let (prize, extras): (i64, i64) = (r.get(7)?, r.get(8)?);
    let (sold_at, before, after, revealed): (i64, i64, i64, i64) =
        (r.get(10)?, r.get(11)?, r.get(12)?, r.get(13)?);
    let player_id: String = r.get(1)?;
    let nonce: Vec<u8> = r.get(14)?;
    Ok((|| {
        Ok(SaleRecord {
            sale_id: to_u64(sale_id, "sale id")?,
            player_id,
            block: to_u64(block, "block")?,
            block_tickets: to_u32(tickets, "tickets")?,
            ticket: parse_ticket(
                to_u32(position, "position")?,
                to_u64(stake, "stake")?,
                &grids,
                prize,
                extras,
                &salt,
            )?,
            sold_at_ms: to_u64(sold_at, "time")?,
            client_nonce: ClientNonce(
                nonce
                    .try_into()
                    .map_err(|_| corrupt("stored client nonce of wrong length"))?,
            ),
            balance_before_cents: to_u64(before, "balance")?,
            balance_after_cents: to_u64(after, "balance")?,
            revealed: u8::try_from(revealed).map_err(|_| corrupt("revealed"))?,
        })
    })())
}

/// Sales matching `filter` (a `WHERE` clause and what follows it).
pub(super) fn query_sales(
    conn: &Connection,
    filter: &str,
    params: &[&dyn rusqlite::ToSql],
) -> StoreResult<Vec<SaleRecord>> {
    let sql = format!(
        "SELECT {SALE_COLUMNS} FROM sales s JOIN blocks b ON b.id = s.block \
         JOIN tickets t ON t.block = s.block AND t.position = s.position {filter}"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(params, sale_from_row)?;
    let mut out = Vec::new();
    for row in rows {
        out.push(row??);
    }
    Ok(out)
}
