//! What a batch of sales reads once for all its sales instead of once per
//! sale, and what it writes once at its end: on PostgreSQL, where every
//! statement is a round trip, a sale costs one statement (its row) instead
//! of about thirteen (docs/BENCHMARKS.md, Deployment).
//! SQLite reads in process and keeps no cache (`Conn::batch_cache` is
//! `None` there).
//!
//! Read ahead, in two statements after its blocks are locked: the batch's
//! players (locked) with their protection settings, and the sales and
//! purchases already made under its idempotency keys. Then, as the
//! sales run, once per block: its released and reserved tickets counted in
//! one statement, and the tickets from the first one taken, as many as the
//! batch has sales. The cache answers only what this
//! transaction alone can change, since the batch holds its players' and
//! its blocks' rows locked: each write of the batch keeps it true, or makes
//! it forget the entry (a new sale or purchase under a key, a seamless
//! round reserved or given back).
//!
//! Held back to the end of the batch: what each sale writes to rows that
//! only this batch reads meanwhile (its players' balances, its open blocks'
//! sold counts, the prizes taken from them), sent in one statement. A
//! block's change of status is written at once: the next open block is
//! chosen by it. When a sale is undone to its savepoint, its own held
//! writes are dropped, those of the sales before it are sent, and the cache
//! forgets what it read: the rest of the batch reads the database again.
//!
//! Blocks: a batch first locks, for each line (stake and money) of its
//! stakes, the first open block that no other batch holds, and sells that
//! line from it; batches of several servers thus sell side by side when a
//! line has several open blocks (`--open-blocks-per-line`). A line whose
//! every open block is held answers `StoreError::RunLockingEveryOpenBlock`,
//! and the batch runs again waiting for every open block of its stakes in
//! id order, so that two such batches wait for each other, never deadlock.
//!
//! Savepoints: a batch first runs without any. A sale that fails then
//! (`rollback_to_savepoint`) answers `StoreError::RunWithSavepoints`, and
//! the backend rolls the batch back and runs it again, each sale under its
//! savepoint, so that the failing one is undone alone.

use super::{decode, query, text as q, Conn, Param};
use crate::store::tx::{OpenBlock, ProtectionRow};
use crate::store::{PlayerKind, PurchaseRecord, SaleRequest, StoreError, StoreResult};
use eldorado_engine::{Money, Ticket};
use std::collections::{HashMap, HashSet};

/// A player and one of its idempotency keys.
type Key = (String, String);

/// How a batch runs; each failure of a run makes the next one stricter.
#[derive(Clone, Copy, Debug, Default)]
pub struct BatchRun {
    /// Each sale under its savepoint (`StoreError::RunWithSavepoints`).
    pub savepoints: bool,
    /// Waiting for every open block of the batch's stakes instead of taking
    /// a free one per line (`StoreError::RunLockingEveryOpenBlock`).
    pub every_open_block: bool,
}

#[derive(Default)]
pub struct BatchCache {
    /// Every player of the batch: its kind and balance, `None` if unknown.
    players: HashMap<String, Option<(PlayerKind, u64)>>,
    /// Every key of the batch: the sale (id, stake) made under it, if any.
    sales: HashMap<Key, Option<(u64, u64)>>,
    /// Every key of the batch: the purchase made under it, if any.
    purchases: HashMap<Key, Option<PurchaseRecord>>,
    /// Every player of the batch: its protection settings, if stored.
    protection: HashMap<String, Option<ProtectionRow>>,
    /// Blocks found with no released ticket.
    no_free_ticket: HashSet<u64>,
    /// Blocks' counts of tickets reserved by seamless-wallet rounds.
    reserved: HashMap<u64, u32>,
    /// Tickets read ahead: a ticket never changes once stored.
    tickets: HashMap<(u64, u32), Ticket>,
    /// The open block locked for each line (stake, money), until a sale
    /// asks for it.
    locked_blocks: HashMap<(u64, Money), OpenBlock>,
    /// How many sales the batch holds: how many tickets to read ahead.
    batch_len: usize,
    run: BatchRun,
    writes: Writes,
    /// How to undo the current sale's held-back writes: each entry's
    /// previous value, newest last.
    undo: Vec<Undo>,
}

/// Writes held back, the newest value per row.
#[derive(Default)]
pub struct Writes {
    pub balances: HashMap<String, u64>,
    /// Sold counts of blocks that stay open.
    pub sold: HashMap<u64, u32>,
    /// Prizes taken: (block, prize) and how many.
    pub prizes: HashMap<(u64, u64), u32>,
}

enum Undo {
    Balance(String, Option<u64>),
    Sold(u64, Option<u32>),
    Prize(u64, u64),
}

impl BatchCache {
    /// Locks the open blocks the batch sells from, then the players of
    /// `requests` in id order, and reads what their sales will ask: three
    /// statements, whatever the batch's size.
    pub fn read_ahead<C: Conn + ?Sized>(
        conn: &mut C,
        requests: &[SaleRequest],
        run: BatchRun,
    ) -> StoreResult<BatchCache> {
        let locked_blocks = lock_blocks(conn, requests, run)?;
        let mut ids: Vec<&str> = requests.iter().map(|r| r.player_id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        let key_players: Vec<&str> = requests.iter().map(|r| r.player_id.as_str()).collect();
        let keys: Vec<&str> = requests
            .iter()
            .map(|r| r.idempotency_key.as_str())
            .collect();
        let (ids, key_players, keys) = (&ids[..], &key_players[..], &keys[..]);

        let mut cache = BatchCache {
            locked_blocks,
            batch_len: requests.len(),
            run,
            ..BatchCache::default()
        };
        for id in ids {
            cache.players.insert((*id).to_owned(), None);
            cache.protection.insert((*id).to_owned(), None);
        }
        for request in requests {
            let key = (request.player_id.clone(), request.idempotency_key.clone());
            cache.sales.insert(key.clone(), None);
            cache.purchases.insert(key, None);
        }
        for (id, player, protection) in query(conn, &q::BATCH_PLAYERS, &[Param::Texts(ids)], |r| {
            let player = (r.parse(10, "player kind")?, r.u64(11, "balance")?);
            let protection = if r.bool(9)? {
                Some(decode::protection(r)?)
            } else {
                None
            };
            Ok((r.text(12)?, player, protection))
        })? {
            cache.players.insert(id.clone(), Some(player));
            cache.protection.insert(id, protection);
        }
        let by_key = [Param::Texts(key_players), Param::Texts(keys)];
        // A sale's row (TRUE last): its id, key and stake; else a purchase.
        query(conn, &q::BATCH_BY_KEY, &by_key, |r| {
            if r.bool(16)? {
                let key = (r.text(1)?, r.text(2)?);
                let sale = (r.u64(0, "sale id")?, r.u64(5, "stake")?);
                cache.sales.insert(key, Some(sale));
            } else {
                let purchase = decode::purchase(r)?;
                let key = (purchase.player_id.clone(), purchase.idempotency_key.clone());
                cache.purchases.insert(key, Some(purchase));
            }
            Ok(())
        })?;
        Ok(cache)
    }

    pub fn player(&self, id: &str) -> Option<Option<(PlayerKind, u64)>> {
        self.players.get(id).copied()
    }

    pub fn set_balance(&mut self, id: &str, balance_cents: u64) {
        if let Some(Some((_, balance))) = self.players.get_mut(id) {
            *balance = balance_cents;
        }
    }

    pub fn sale_by_key(&self, player_id: &str, key: &str) -> Option<Option<(u64, u64)>> {
        self.sales
            .get(&(player_id.to_owned(), key.to_owned()))
            .copied()
    }

    pub fn purchase_by_key(&self, player_id: &str, key: &str) -> Option<Option<PurchaseRecord>> {
        self.purchases
            .get(&(player_id.to_owned(), key.to_owned()))
            .cloned()
    }

    /// A sale or purchase was just made under `key`: its next read goes to
    /// the database, which has it.
    pub fn forget_key(&mut self, player_id: &str, key: &str) {
        let key = (player_id.to_owned(), key.to_owned());
        self.sales.remove(&key);
        self.purchases.remove(&key);
    }

    pub fn protection(&self, player_id: &str) -> Option<Option<ProtectionRow>> {
        self.protection.get(player_id).copied()
    }

    pub fn put_protection(&mut self, player_id: &str, row: &ProtectionRow) {
        self.protection.insert(player_id.to_owned(), Some(*row));
    }

    /// How many tickets from a position to read at once.
    pub fn ticket_span(&self) -> u32 {
        u32::try_from(self.batch_len).unwrap_or(u32::MAX).max(1)
    }

    pub fn ticket(&self, block: u64, position: u32) -> Option<Ticket> {
        self.tickets.get(&(block, position)).cloned()
    }

    pub fn hold_tickets(&mut self, block: u64, tickets: Vec<Ticket>) {
        for ticket in tickets {
            self.tickets.insert((block, ticket.position), ticket);
        }
    }

    pub fn has_no_free_ticket(&self, block: u64) -> bool {
        self.no_free_ticket.contains(&block)
    }

    pub fn found_no_free_ticket(&mut self, block: u64) {
        self.no_free_ticket.insert(block);
    }

    pub fn reserved(&self, block: u64) -> Option<u32> {
        self.reserved.get(&block).copied()
    }

    pub fn set_reserved(&mut self, block: u64, count: u32) {
        self.reserved.insert(block, count);
    }

    pub fn savepoints(&self) -> bool {
        self.run.savepoints
    }

    pub fn every_open_block_locked(&self) -> bool {
        self.run.every_open_block
    }

    /// The open block the batch locked for the line, the first time the
    /// line's sales ask for one.
    pub fn take_locked_block(&mut self, stake_cents: u64, money: Money) -> Option<OpenBlock> {
        self.locked_blocks.remove(&(stake_cents, money))
    }

    /// A new sale starts: what came before it is kept whatever happens.
    pub fn start_sale(&mut self) {
        self.undo.clear();
    }

    pub fn hold_balance(&mut self, id: &str, balance_cents: u64) {
        let before = self.writes.balances.insert(id.to_owned(), balance_cents);
        self.undo.push(Undo::Balance(id.to_owned(), before));
        self.set_balance(id, balance_cents);
    }

    pub fn hold_sold(&mut self, block: u64, sold: u32) {
        let before = self.writes.sold.insert(block, sold);
        self.undo.push(Undo::Sold(block, before));
    }

    /// The block's sold count is written now (its status changes): a held
    /// count would write an older one later.
    pub fn drop_sold(&mut self, block: u64) {
        if let Some(before) = self.writes.sold.remove(&block) {
            self.undo.push(Undo::Sold(block, Some(before)));
        }
    }

    pub fn hold_prize(&mut self, block: u64, prize_cents: u64) {
        *self.writes.prizes.entry((block, prize_cents)).or_default() += 1;
        self.undo.push(Undo::Prize(block, prize_cents));
    }

    /// The current sale is undone: its held-back writes are dropped.
    pub fn undo_sale(&mut self) {
        while let Some(undo) = self.undo.pop() {
            match undo {
                Undo::Balance(id, Some(before)) => {
                    self.writes.balances.insert(id, before);
                }
                Undo::Balance(id, None) => {
                    self.writes.balances.remove(&id);
                }
                Undo::Sold(block, Some(before)) => {
                    self.writes.sold.insert(block, before);
                }
                Undo::Sold(block, None) => {
                    self.writes.sold.remove(&block);
                }
                Undo::Prize(block, prize) => {
                    if let Some(taken) = self.writes.prizes.get_mut(&(block, prize)) {
                        *taken -= 1;
                        if *taken == 0 {
                            self.writes.prizes.remove(&(block, prize));
                        }
                    }
                }
            }
        }
    }

    /// The writes held back, to be sent now.
    pub fn take_writes(&mut self) -> Writes {
        self.undo.clear();
        std::mem::take(&mut self.writes)
    }

    /// A sale was undone and the writes held before it were sent: the
    /// next reads go to the database. Tickets, which never change, stay.
    pub fn forget_reads(&mut self) {
        debug_assert!(self.writes.is_empty(), "held writes are sent first");
        *self = BatchCache {
            tickets: std::mem::take(&mut self.tickets),
            batch_len: self.batch_len,
            run: self.run,
            ..BatchCache::default()
        };
    }

    /// A seamless round reserved or gave back a ticket: the blocks' counts
    /// of released and reserved tickets are read again.
    pub fn forget_ticket_pool(&mut self) {
        self.no_free_ticket.clear();
        self.reserved.clear();
    }
}

/// The open blocks of the batch's stakes: one free block per line, locked
/// and kept for its sales, or, in a run that waits for them all, every one
/// (the sales then find theirs as SQLite's do).
fn lock_blocks<C: Conn + ?Sized>(
    conn: &mut C,
    requests: &[SaleRequest],
    run: BatchRun,
) -> StoreResult<HashMap<(u64, Money), OpenBlock>> {
    let mut stakes: Vec<i64> = requests
        .iter()
        .map(|r| decode::to_i64(r.stake.cents()))
        .collect::<StoreResult<_>>()?;
    stakes.sort_unstable();
    stakes.dedup();
    let stakes = [Param::Ints(&stakes)];
    if run.every_open_block {
        query(conn, &q::BATCH_LOCK_EVERY_OPEN_BLOCK, &stakes, |_| Ok(()))?;
        return Ok(HashMap::new());
    }
    let lines = query(conn, &q::BATCH_LOCK_FREE_OPEN_BLOCKS, &stakes, |r| {
        let line = (r.u64(0, "stake")?, decode::money(r.str(1)?)?);
        let block = match r.opt_u64(2, "block")? {
            Some(block) => Some(OpenBlock {
                block,
                tickets: r.u32(3, "tickets")?,
                sold: r.u32(4, "sold")?,
            }),
            None => None,
        };
        Ok((line, block))
    })?;
    lines
        .into_iter()
        .map(|(line, block)| block.map(|b| (line, b)))
        .collect::<Option<_>>()
        .ok_or(StoreError::RunLockingEveryOpenBlock)
}

impl Writes {
    pub fn is_empty(&self) -> bool {
        self.balances.is_empty() && self.sold.is_empty() && self.prizes.is_empty()
    }
}

/// Sends the writes the batch held back: three statements at most.
pub fn send_writes<C: Conn + ?Sized>(conn: &mut C) -> StoreResult<()> {
    let Some(writes) = conn.batch_cache().map(BatchCache::take_writes) else {
        return Ok(());
    };
    if writes.is_empty() {
        return Ok(());
    }
    let players: Vec<&str> = writes.balances.keys().map(String::as_str).collect();
    let balances = ints(writes.balances.values().copied())?;
    let blocks = ints(writes.sold.keys().copied())?;
    let sold: Vec<i64> = writes.sold.values().map(|s| i64::from(*s)).collect();
    let (mut prize_blocks, mut prizes, mut taken) = (Vec::new(), Vec::new(), Vec::new());
    for (&(block, prize), &count) in &writes.prizes {
        prize_blocks.push(decode::to_i64(block)?);
        prizes.push(decode::to_i64(prize)?);
        taken.push(i64::from(count));
    }
    let params = [
        Param::Texts(&players),
        Param::Ints(&balances),
        Param::Ints(&blocks),
        Param::Ints(&sold),
        Param::Ints(&prize_blocks),
        Param::Ints(&prizes),
        Param::Ints(&taken),
    ];
    let written = super::query_one(conn, &q::BATCH_WRITES, &params, |r| {
        Ok([
            r.u64(0, "balances")?,
            r.u64(1, "sold")?,
            r.u64(2, "prizes")?,
        ])
    })?;
    expect_rows(written[0], players.len(), "balances")?;
    expect_rows(written[1], blocks.len(), "sold counts")?;
    expect_rows(written[2], prize_blocks.len(), "prizes taken")
}

/// The column values of an array parameter, each checked to fit.
fn ints(values: impl Iterator<Item = u64>) -> StoreResult<Vec<i64>> {
    values.map(decode::to_i64).collect()
}

/// Every held row must have been written: one missing means corrupt data,
/// and the batch is undone.
fn expect_rows(changed: u64, expected: usize, what: &str) -> StoreResult<()> {
    if changed == expected as u64 {
        Ok(())
    } else {
        Err(crate::store::corrupt(format!(
            "{what}: {changed} rows written of {expected}"
        )))
    }
}
