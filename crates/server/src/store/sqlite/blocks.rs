//! Blocks and their tickets in SQLite: storing a generated block without
//! stalling sales, reading it back, and the block primitives of `store::tx`.

use super::rows::{
    block_record, block_status, grids_text, hash_of, money_of, parse_ticket, to_i64, to_u32, to_u64,
};
use super::{SqlTx, SqliteStore};
use crate::store::tx::{BlockTx, OpenBlock};
use crate::store::{
    corrupt, switch_over, BlockRecord, BlockSeeding, BlockStatus, StoreError, StoreResult,
};
use eldorado_engine::{Block, Hash, Money, SignedCommitment, Ticket};
use rusqlite::{params, Connection, OptionalExtension};
use std::collections::HashMap;

/// Tickets inserted per transaction while a block is stored, so that sales
/// wait at most one chunk for the writer.
const TICKET_CHUNK: usize = 25_000;

/// A block still `generating` at start-up was cut off mid-insert: it was
/// never on sale, so it goes, and the book generates a fresh one.
pub(super) fn drop_interrupted(conn: &mut Connection) -> StoreResult<()> {
    let tx = conn.transaction()?;
    let ids: Vec<i64> = tx
        .prepare("SELECT id FROM blocks WHERE status = 'generating'")?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    for id in ids {
        tracing::warn!(
            block = id,
            "dropping a block whose generation was interrupted"
        );
        tx.execute("DELETE FROM tickets WHERE block = ?1", [id])?;
        tx.execute("DELETE FROM block_prizes WHERE block = ?1", [id])?;
        tx.execute("DELETE FROM blocks WHERE id = ?1", [id])?;
    }
    tx.commit()?;
    Ok(())
}

pub(super) fn all(conn: &Connection) -> StoreResult<Vec<BlockRecord>> {
    let ids: Vec<i64> = conn
        .prepare_cached("SELECT id FROM blocks WHERE status <> 'generating' ORDER BY id")?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    ids.into_iter()
        .filter_map(|id| {
            to_u64(id, "block id")
                .and_then(|id| block_record(conn, id))
                .transpose()
        })
        .collect()
}

pub(super) fn next_id(conn: &Connection) -> StoreResult<u64> {
    let max: Option<i64> = conn.query_row("SELECT MAX(id) FROM blocks", [], |r| r.get(0))?;
    Ok(max.map_or(Ok(0), |m| to_u64(m, "block id"))? + 1)
}

/// Stores a block in three steps so the writer is never held for long: the
/// block row as `generating` (invisible to sales and reads), its tickets in
/// chunks, then its prize counts and its status in one last transaction.
pub(super) fn insert(
    store: &SqliteStore,
    block: &Block,
    signed: &SignedCommitment,
    seeding: BlockSeeding,
) -> StoreResult<BlockStatus> {
    let money = signed.commitment.money;
    let id = to_i64(block.id)?;
    let stake = to_i64(block.stake.cents())?;
    let commitment = serde_json::to_string(signed)
        .map_err(|e| StoreError::Backend(format!("serializing a commitment: {e}")))?;
    let params = serde_json::to_string(&block.params)
        .map_err(|e| StoreError::Backend(format!("serializing params: {e}")))?;
    let now = to_i64(store.clock.now_ms())?;
    store.in_transaction(|tx| {
        tx.0.execute(
            "INSERT INTO blocks (id, stake_cents, tickets, status, commitment, params, created_at_ms, \
             money, seeding) VALUES (?1, ?2, ?3, 'generating', ?4, ?5, ?6, ?7, ?8)",
            params![
                id,
                stake,
                block.tickets.len() as i64,
                commitment,
                params,
                now,
                money.as_str(),
                seeding.as_str()
            ],
        )?;
        Ok(())
    })?;
    let mut prizes: HashMap<u64, i64> = HashMap::new();
    for chunk in block.tickets.chunks(TICKET_CHUNK) {
        store.in_transaction(|tx| {
            let mut insert = tx.0.prepare_cached(
                "INSERT INTO tickets (block, position, grids, prize, extras, salt, leaf) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?;
            for ticket in chunk {
                let leaf = block
                    .tree
                    .leaf(ticket.position)
                    .ok_or_else(|| corrupt("a ticket without its leaf"))?;
                if ticket.prize_cents > 0 {
                    *prizes.entry(ticket.prize_cents).or_default() += 1;
                }
                insert.execute(params![
                    id,
                    ticket.position,
                    grids_text(ticket),
                    to_i64(ticket.prize_cents)?,
                    ticket.extras,
                    &ticket.salt.0[..],
                    &leaf.0[..],
                ])?;
            }
            Ok(())
        })?;
    }
    store.in_transaction(|tx| {
        for (prize, count) in &prizes {
            tx.0.execute(
                "INSERT INTO block_prizes (block, prize_cents, remaining) VALUES (?1, ?2, ?3)",
                params![id, to_i64(*prize)?, count],
            )?;
        }
        switch_over::admit_new_block(tx, block.id, block.stake.cents(), money)
    })
}

pub(super) fn leaves(conn: &Connection, id: u64) -> StoreResult<Vec<Hash>> {
    let mut stmt =
        conn.prepare_cached("SELECT leaf FROM tickets WHERE block = ?1 ORDER BY position")?;
    let rows = stmt.query_map([to_i64(id)?], |r| r.get::<_, Vec<u8>>(0))?;
    let mut leaves = Vec::with_capacity(400_000);
    for row in rows {
        leaves.push(hash_of(&row?)?);
    }
    Ok(leaves)
}

pub(super) fn for_each_ticket(
    conn: &Connection,
    id: u64,
    f: &mut dyn FnMut(Ticket, Hash) -> bool,
) -> StoreResult<()> {
    let stake: i64 = conn.query_row(
        "SELECT stake_cents FROM blocks WHERE id = ?1",
        [to_i64(id)?],
        |r| r.get(0),
    )?;
    let mut stmt = conn.prepare_cached(
        "SELECT position, grids, prize, extras, salt, leaf FROM tickets WHERE block = ?1 ORDER BY position",
    )?;
    let mut rows = stmt.query([to_i64(id)?])?;
    while let Some(r) = rows.next()? {
        let position: i64 = r.get(0)?;
        let grids: String = r.get(1)?;
        let salt: Vec<u8> = r.get(4)?;
        let leaf: Vec<u8> = r.get(5)?;
        let ticket = parse_ticket(
            to_u32(position, "position")?,
            to_u64(stake, "stake")?,
            &grids,
            r.get(2)?,
            r.get(3)?,
            &salt,
        )?;
        if !f(ticket, hash_of(&leaf)?) {
            break;
        }
    }
    Ok(())
}

impl BlockTx for SqlTx<'_> {
    fn block_status_for_update(
        &mut self,
        block: u64,
    ) -> StoreResult<Option<(BlockStatus, u64, Money)>> {
        let row = self
            .0
            .prepare_cached(
                "SELECT status, stake_cents, money FROM blocks WHERE id = ?1 AND status <> 'generating'",
            )?
            .query_row([to_i64(block)?], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, String>(2)?,
                ))
            })
            .optional()?;
        row.map(|(status, stake, money)| {
            Ok((
                block_status(&status)?,
                to_u64(stake, "stake")?,
                money_of(&money)?,
            ))
        })
        .transpose()
    }

    fn set_block_status(&mut self, block: u64, status: BlockStatus) -> StoreResult<()> {
        self.0
            .prepare_cached("UPDATE blocks SET status = ?1 WHERE id = ?2")?
            .execute(params![status.as_str(), to_i64(block)?])?;
        Ok(())
    }

    fn oldest_pending_block(&mut self, stake_cents: u64, money: Money) -> StoreResult<Option<u64>> {
        let id = self
            .0
            .prepare_cached(
                "SELECT id FROM blocks WHERE stake_cents = ?1 AND money = ?2 AND status = 'pending' \
                 ORDER BY id LIMIT 1",
            )?
            .query_row(params![to_i64(stake_cents)?, money.as_str()], |r| {
                r.get::<_, i64>(0)
            })
            .optional()?;
        id.map(|id| to_u64(id, "block id")).transpose()
    }

    fn open_block_for_update(
        &mut self,
        stake_cents: u64,
        money: Money,
    ) -> StoreResult<Option<OpenBlock>> {
        let row = self
            .0
            .prepare_cached(
                "SELECT id, tickets, sold FROM blocks WHERE stake_cents = ?1 AND money = ?2 \
                 AND status = 'open' ORDER BY id LIMIT 1",
            )?
            .query_row(params![to_i64(stake_cents)?, money.as_str()], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, i64>(2)?,
                ))
            })
            .optional()?;
        row.map(|(id, tickets, sold)| {
            Ok(OpenBlock {
                block: to_u64(id, "block")?,
                tickets: to_u32(tickets, "tickets")?,
                sold: to_u32(sold, "sold")?,
            })
        })
        .transpose()
    }
}
