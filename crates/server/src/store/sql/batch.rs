//! What a batch of sales reads once for all its sales, instead of once per
//! sale: its players (locked), the sales and purchases already made under
//! its idempotency keys, and its players' protection settings; then, as the
//! sales run, each block's released and reserved tickets. On PostgreSQL,
//! where every statement is a round trip, that is four statements a batch
//! instead of about six a sale (docs/BENCHMARKS.md). SQLite reads in
//! process and keeps no cache.
//!
//! The cache answers only what this transaction alone can change, since
//! the batch holds its players' rows and its blocks' rows locked: each
//! write of the batch keeps it true (`set_balance`, `put_protection_row`),
//! or makes it forget the entry so that the next read goes to the database
//! (a new sale or purchase under a key). A sale undone to its savepoint
//! empties it: the rest of the batch reads the database again.

use super::{decode, query, text as q, Conn, Param};
use crate::store::tx::ProtectionRow;
use crate::store::{PlayerKind, PurchaseRecord, SaleRequest, StoreResult};
use std::collections::{HashMap, HashSet};

/// A player and one of its idempotency keys.
type Key = (String, String);

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
}

impl BatchCache {
    /// Locks the players of `requests` in id order and reads what their
    /// sales will ask: four statements, whatever the batch's size.
    pub fn read_ahead<C: Conn + ?Sized>(
        conn: &mut C,
        requests: &[SaleRequest],
    ) -> StoreResult<BatchCache> {
        let mut ids: Vec<&str> = requests.iter().map(|r| r.player_id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        let key_players: Vec<&str> = requests.iter().map(|r| r.player_id.as_str()).collect();
        let keys: Vec<&str> = requests.iter().map(|r| r.idempotency_key.as_str()).collect();
        let (ids, key_players, keys) = (&ids[..], &key_players[..], &keys[..]);

        let mut cache = BatchCache::default();
        for id in ids {
            cache.players.insert((*id).to_owned(), None);
            cache.protection.insert((*id).to_owned(), None);
        }
        for request in requests {
            let key = (request.player_id.clone(), request.idempotency_key.clone());
            cache.sales.insert(key.clone(), None);
            cache.purchases.insert(key, None);
        }
        for (id, player) in query(conn, &q::BATCH_PLAYERS, &[Param::Texts(ids)], |r| {
            Ok((r.text(2)?, decode::kind_and_balance(r)?))
        })? {
            cache.players.insert(id, Some(player));
        }
        let by_key = [Param::Texts(key_players), Param::Texts(keys)];
        for (key, sale) in query(conn, &q::BATCH_SALES_BY_KEY, &by_key, |r| {
            Ok((
                (r.text(2)?, r.text(3)?),
                (r.u64(0, "sale id")?, r.u64(1, "stake")?),
            ))
        })? {
            cache.sales.insert(key, Some(sale));
        }
        for purchase in query(conn, &q::BATCH_PURCHASES_BY_KEY, &by_key, decode::purchase)? {
            let key = (purchase.player_id.clone(), purchase.idempotency_key.clone());
            cache.purchases.insert(key, Some(purchase));
        }
        for (id, row) in query(conn, &q::BATCH_PROTECTION, &[Param::Texts(ids)], |r| {
            Ok((r.text(9)?, decode::protection(r)?))
        })? {
            cache.protection.insert(id, Some(row));
        }
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
        self.protection.get(player_id).cloned()
    }

    pub fn put_protection(&mut self, player_id: &str, row: &ProtectionRow) {
        self.protection
            .insert(player_id.to_owned(), Some(row.clone()));
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

    /// A sale was undone: nothing read ahead is trusted any more.
    pub fn clear(&mut self) {
        *self = BatchCache::default();
    }
}
