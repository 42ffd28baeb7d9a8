//! Blocks and their tickets in PostgreSQL: storing a generated block,
//! reading it back, and the block primitives of `store::tx`.

use super::rows::block_record;
use super::PgTx;
use crate::store::sqlite::rows::{
    block_status, grids_text, hash_of, money_of, parse_ticket, to_i64, to_u32, to_u64,
};
use crate::store::tx::{BlockTx, OpenBlock};
use crate::store::{
    corrupt, switch_over, BlockRecord, BlockSeeding, BlockStatus, StoreError, StoreResult,
};
use eldorado_engine::{Block, Hash, Money, SignedCommitment, Ticket};
use postgres::binary_copy::BinaryCopyInWriter;
use postgres::fallible_iterator::FallibleIterator;
use postgres::types::Type;
use postgres::GenericClient;
use std::collections::HashMap;

pub(super) fn all(client: &mut impl GenericClient) -> StoreResult<Vec<BlockRecord>> {
    let ids: Vec<i64> = client
        .query(
            "SELECT id FROM blocks WHERE status <> 'generating' ORDER BY id",
            &[],
        )?
        .iter()
        .map(|r| r.try_get(0))
        .collect::<Result<_, _>>()?;
    ids.into_iter()
        .filter_map(|id| {
            to_u64(id, "block id")
                .and_then(|id| block_record(client, id))
                .transpose()
        })
        .collect()
}

pub(super) fn next_id(client: &mut impl GenericClient) -> StoreResult<u64> {
    let max: Option<i64> = client
        .query_one("SELECT MAX(id) FROM blocks", &[])?
        .try_get(0)?;
    Ok(max.map_or(Ok(0), |m| to_u64(m, "block id"))? + 1)
}

/// Stores a block in ONE transaction: its row, its tickets (a binary COPY,
/// which takes no lock that a sale waits for), its prize counts, and its
/// status last. A server that dies midway leaves nothing behind.
pub(super) fn insert(
    tx: &mut PgTx<'_>,
    block: &Block,
    signed: &SignedCommitment,
    seeding: BlockSeeding,
    now_ms: u64,
) -> StoreResult<BlockStatus> {
    let money = signed.commitment.money;
    let id = to_i64(block.id)?;
    let commitment = serde_json::to_string(signed)
        .map_err(|e| StoreError::Backend(format!("serializing a commitment: {e}")))?;
    let params = serde_json::to_string(&block.params)
        .map_err(|e| StoreError::Backend(format!("serializing params: {e}")))?;
    tx.0.execute(
        "INSERT INTO blocks (id, stake_cents, tickets, status, commitment, params, created_at_ms, \
         money, seeding) VALUES ($1, $2, $3, 'generating', $4, $5, $6, $7, $8)",
        &[
            &id,
            &to_i64(block.stake.cents())?,
            &(block.tickets.len() as i64),
            &commitment,
            &params,
            &to_i64(now_ms)?,
            &money.as_str(),
            &seeding.as_str(),
        ],
    )?;
    let sink = tx.0.copy_in(
        "COPY tickets (block, position, grids, prize, extras, salt, leaf) FROM STDIN (FORMAT binary)",
    )?;
    let mut writer = BinaryCopyInWriter::new(
        sink,
        &[
            Type::INT8,
            Type::INT8,
            Type::TEXT,
            Type::INT8,
            Type::INT8,
            Type::BYTEA,
            Type::BYTEA,
        ],
    );
    let mut prizes: HashMap<u64, i64> = HashMap::new();
    for ticket in &block.tickets {
        let leaf = block
            .tree
            .leaf(ticket.position)
            .ok_or_else(|| corrupt("a ticket without its leaf"))?;
        if ticket.prize_cents > 0 {
            *prizes.entry(ticket.prize_cents).or_default() += 1;
        }
        writer.write(&[
            &id,
            &i64::from(ticket.position),
            &grids_text(ticket),
            &to_i64(ticket.prize_cents)?,
            &i64::from(ticket.extras),
            &&ticket.salt.0[..],
            &&leaf.0[..],
        ])?;
    }
    writer.finish()?;
    for (prize, count) in &prizes {
        tx.0.execute(
            "INSERT INTO block_prizes (block, prize_cents, remaining) VALUES ($1, $2, $3)",
            &[&id, &to_i64(*prize)?, count],
        )?;
    }
    switch_over::admit_new_block(tx, block.id, block.stake.cents(), money)
}

pub(super) fn leaves(client: &mut impl GenericClient, id: u64) -> StoreResult<Vec<Hash>> {
    let rows = client.query(
        "SELECT leaf FROM tickets WHERE block = $1 ORDER BY position",
        &[&to_i64(id)?],
    )?;
    rows.iter()
        .map(|r| hash_of(&r.try_get::<_, Vec<u8>>(0)?))
        .collect()
}

pub(super) fn for_each_ticket(
    client: &mut postgres::Client,
    id: u64,
    f: &mut dyn FnMut(Ticket, Hash) -> bool,
) -> StoreResult<()> {
    let Some(stake) = client.query_opt(
        "SELECT stake_cents FROM blocks WHERE id = $1",
        &[&to_i64(id)?],
    )?
    else {
        return Err(corrupt(format!("no block {id}")));
    };
    let stake = to_u64(stake.try_get(0)?, "stake")?;
    // Streamed row by row: a whole block is never held in memory.
    let mut rows = client.query_raw(
        "SELECT position, grids, prize, extras, salt, leaf FROM tickets WHERE block = $1 ORDER BY position",
        [to_i64(id)?],
    )?;
    while let Some(r) = rows.next()? {
        let grids: String = r.try_get(1)?;
        let salt: Vec<u8> = r.try_get(4)?;
        let leaf: Vec<u8> = r.try_get(5)?;
        let ticket = parse_ticket(
            to_u32(r.try_get(0)?, "position")?,
            stake,
            &grids,
            r.try_get(2)?,
            r.try_get(3)?,
            &salt,
        )?;
        if !f(ticket, hash_of(&leaf)?) {
            break;
        }
    }
    Ok(())
}

impl BlockTx for PgTx<'_> {
    fn block_status_for_update(
        &mut self,
        block: u64,
    ) -> StoreResult<Option<(BlockStatus, u64, Money)>> {
        let row = self.0.query_opt(
            "SELECT status, stake_cents, money FROM blocks WHERE id = $1 AND status <> 'generating' \
             FOR UPDATE",
            &[&to_i64(block)?],
        )?;
        row.map(|r| {
            Ok((
                block_status(&r.try_get::<_, String>(0)?)?,
                to_u64(r.try_get(1)?, "stake")?,
                money_of(&r.try_get::<_, String>(2)?)?,
            ))
        })
        .transpose()
    }

    fn set_block_status(&mut self, block: u64, status: BlockStatus) -> StoreResult<()> {
        self.0.execute(
            "UPDATE blocks SET status = $1 WHERE id = $2",
            &[&status.as_str(), &to_i64(block)?],
        )?;
        Ok(())
    }

    fn oldest_pending_block(&mut self, stake_cents: u64, money: Money) -> StoreResult<Option<u64>> {
        let row = self.0.query_opt(
            "SELECT id FROM blocks WHERE stake_cents = $1 AND money = $2 AND status = 'pending' \
             ORDER BY id LIMIT 1",
            &[&to_i64(stake_cents)?, &money.as_str()],
        )?;
        row.map(|r| to_u64(r.try_get(0)?, "block id")).transpose()
    }

    fn open_block_for_update(
        &mut self,
        stake_cents: u64,
        money: Money,
    ) -> StoreResult<Option<OpenBlock>> {
        // Locked, so that the sales of another server's batch wait here and
        // then read the count this batch leaves (READ COMMITTED re-reads a
        // locked row once its holder commits).
        const OPEN: &str = "SELECT id, tickets, sold FROM blocks WHERE stake_cents = $1 \
             AND money = $2 AND status = 'open' ORDER BY id LIMIT 1 FOR UPDATE";
        let stake = to_i64(stake_cents)?;
        let money = money.as_str();
        let mut row = self.0.query_opt(OPEN, &[&stake, &money])?;
        if row.is_none() {
            // The open block we waited for may have sold out meanwhile, and
            // its successor opened in the same commit: this statement's
            // snapshot predates it, a new statement sees it.
            row = self.0.query_opt(OPEN, &[&stake, &money])?;
        }
        row.map(|r| {
            Ok(OpenBlock {
                block: to_u64(r.try_get(0)?, "block")?,
                tickets: to_u32(r.try_get(1)?, "tickets")?,
                sold: to_u32(r.try_get(2)?, "sold")?,
            })
        })
        .transpose()
    }
}
