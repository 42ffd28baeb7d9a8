//! Test only: a store that fails or panics on demand, over SQLite, to test
//! how the sale desk and the block generator live through store faults.

use super::sqlite::SqliteStore;
use super::*;
use eldorado_engine::{Block, Hash, SignedCommitment, Ticket};
use std::sync::atomic::{AtomicU8, Ordering};

pub const WORK: u8 = 0;
pub const FAIL: u8 = 1;
pub const PANIC: u8 = 2;

pub struct FailingStore {
    inner: SqliteStore,
    /// What `sell_batch` does.
    pub sales: AtomicU8,
    /// What `insert_block` does.
    pub blocks: AtomicU8,
}

impl FailingStore {
    pub fn new(inner: SqliteStore) -> FailingStore {
        FailingStore {
            inner,
            sales: AtomicU8::new(WORK),
            blocks: AtomicU8::new(WORK),
        }
    }
}

fn fault(mode: &AtomicU8, what: &str) -> StoreResult<()> {
    match mode.load(Ordering::SeqCst) {
        FAIL => Err(StoreError::Backend(format!("{what}: disk on fire"))),
        PANIC => panic!("{what}: a bug in the store"),
        _ => Ok(()),
    }
}

impl Store for FailingStore {
    fn blocks(&self) -> StoreResult<Vec<BlockRecord>> {
        self.inner.blocks()
    }
    fn block(&self, id: u64) -> StoreResult<Option<BlockRecord>> {
        self.inner.block(id)
    }
    fn next_block_id(&self) -> StoreResult<u64> {
        self.inner.next_block_id()
    }
    fn insert_block(
        &self,
        b: &Block,
        s: &SignedCommitment,
        seeding: BlockSeeding,
    ) -> StoreResult<BlockStatus> {
        fault(&self.blocks, "insert_block")?;
        self.inner.insert_block(b, s, seeding)
    }
    fn block_leaves(&self, id: u64) -> StoreResult<Vec<Hash>> {
        self.inner.block_leaves(id)
    }
    fn for_each_ticket(&self, id: u64, f: &mut dyn FnMut(Ticket, Hash) -> bool) -> StoreResult<()> {
        self.inner.for_each_ticket(id, f)
    }
    fn close_block(&self, id: u64) -> StoreResult<Option<BlockRecord>> {
        self.inner.close_block(id)
    }
    fn create_player(&self, id: &str, kind: PlayerKind, cents: u64) -> StoreResult<bool> {
        self.inner.create_player(id, kind, cents)
    }
    fn player(&self, id: &str) -> StoreResult<Option<PlayerRecord>> {
        self.inner.player(id)
    }
    fn has_players(&self, kind: PlayerKind) -> StoreResult<bool> {
        self.inner.has_players(kind)
    }
    fn transfer(&self, t: &Transfer, now_ms: u64) -> StoreResult<TransferOutcome> {
        self.inner.transfer(t, now_ms)
    }
    fn create_session(&self, h: &[u8; 32], p: &str, n: u64, e: u64) -> StoreResult<()> {
        self.inner.create_session(h, p, n, e)
    }
    fn session(&self, h: &[u8; 32]) -> StoreResult<Option<SessionRecord>> {
        self.inner.session(h)
    }
    fn open_session(&self, p: &NewPlayer<'_>, s: &NewSession) -> StoreResult<SessionOpened> {
        self.inner.open_session(p, s)
    }
    fn delete_session(&self, h: &[u8; 32]) -> StoreResult<bool> {
        self.inner.delete_session(h)
    }
    fn delete_player_sessions(&self, p: &str) -> StoreResult<u64> {
        self.inner.delete_player_sessions(p)
    }
    fn delete_expired_sessions(&self, now_ms: u64) -> StoreResult<u64> {
        self.inner.delete_expired_sessions(now_ms)
    }
    fn insert_launch(&self, l: &launch::NewLaunch) -> StoreResult<()> {
        self.inner.insert_launch(l)
    }
    fn redeem_launch(
        &self,
        h: &[u8; 32],
        s: &NewSession,
        d: Option<&NewPlayer<'_>>,
    ) -> StoreResult<launch::LaunchRedeemed> {
        self.inner.redeem_launch(h, s, d)
    }
    fn delete_expired_launches(&self, now_ms: u64) -> StoreResult<u64> {
        self.inner.delete_expired_launches(now_ms)
    }
    fn sell_batch(&self, r: &[SaleRequest], now_ms: u64) -> StoreResult<Vec<SaleOutcome>> {
        fault(&self.sales, "sell_batch")?;
        self.inner.sell_batch(r, now_ms)
    }
    fn sale(&self, p: &str, id: u64) -> StoreResult<Option<SaleRecord>> {
        self.inner.sale(p, id)
    }
    fn history(&self, p: &str, b: Option<u64>, l: u32) -> StoreResult<Vec<SaleRecord>> {
        self.inner.history(p, b, l)
    }
    fn unrevealed(&self, p: &str) -> StoreResult<Option<SaleRecord>> {
        self.inner.unrevealed(p)
    }
    fn set_revealed(&self, p: &str, id: u64, r: u8) -> StoreResult<Option<u8>> {
        self.inner.set_revealed(p, id, r)
    }
    fn totals(&self) -> StoreResult<Totals> {
        self.inner.totals()
    }
    fn reserve_round(&self, r: &SaleRequest, id: &str, now_ms: u64) -> StoreResult<ReserveOutcome> {
        self.inner.reserve_round(r, id, now_ms)
    }
    fn settle_round(&self, id: &str, balance: u64, now_ms: u64) -> StoreResult<Settled> {
        self.inner.settle_round(id, balance, now_ms)
    }
    fn release_round(&self, id: &str, why: Release, now_ms: u64) -> StoreResult<bool> {
        self.inner.release_round(id, why, now_ms)
    }
    fn release_stale_rounds(&self, before_ms: u64, now_ms: u64) -> StoreResult<u64> {
        self.inner.release_stale_rounds(before_ms, now_ms)
    }
    fn outbox_due(&self, limit: u32) -> StoreResult<Vec<OutboxItem>> {
        self.inner.outbox_due(limit)
    }
    fn outbox_acknowledged(&self, id: &str, balance: u64, now_ms: u64) -> StoreResult<()> {
        self.inner.outbox_acknowledged(id, balance, now_ms)
    }
    fn outbox_attempt_failed(&self, id: &str, error: &str) -> StoreResult<()> {
        self.inner.outbox_attempt_failed(id, error)
    }
    fn set_protection_defaults(&self, defaults: protection::ProtectionDefaults) {
        self.inner.set_protection_defaults(defaults)
    }
    fn protection(&self, id: &str, now_ms: u64) -> StoreResult<Option<eldorado_api::Protection>> {
        self.inner.protection(id, now_ms)
    }
    fn update_protection(
        &self,
        id: &str,
        update: &protection::ProtectionUpdate,
        actor: eldorado_api::AuditActor,
        now_ms: u64,
    ) -> StoreResult<Result<eldorado_api::Protection, protection::UpdateRefusal>> {
        self.inner.update_protection(id, update, actor, now_ms)
    }
    fn protection_audit(&self, id: &str) -> StoreResult<Vec<eldorado_api::AuditEntry>> {
        self.inner.protection_audit(id)
    }
}
