//! The embedded SQLite backend: one file in the data directory, WAL with
//! `synchronous=FULL` so that every acknowledged commit survives a crash or
//! a power cut. One writer connection (SQLite has one writer anyway) behind
//! a mutex, and a few read-only connections that WAL lets run beside it.
//!
//! Only transactions, queries and schema live here: `schema` (migrations
//! from `migrations/sqlite/*.sql`), `rows` (row mapping), `blocks`, `sales`
//! and `wallet` (the transaction primitives of `store::tx` and the reads of
//! each job). The rules they serve are in `store::{sale_batch, wallet,
//! switch_over}`.

mod blocks;
mod launch;
mod protection;
pub(in crate::store) mod rows;
mod sales;
mod schema;
mod seamless;
mod wallet;

use super::protection::{ProtectionDefaults, ProtectionTx, ProtectionUpdate, UpdateRefusal};
use super::{
    BlockRecord, BlockSeeding, BlockStatus, GenerationLease, NewPlayer, NewSession, PlayerKind,
    PlayerRecord, SaleOutcome, SaleRecord, SaleRequest, SessionOpened, SessionRecord, Store,
    StoreError, StoreResult, Totals, Transfer, TransferOutcome,
};
use crate::clock::Clock;
use eldorado_api::{AuditActor, AuditEntry, Protection};
use eldorado_engine::{Block, Hash, SignedCommitment, Ticket};
use rusqlite::{Connection, OpenFlags};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

/// Kept so that code written before the clock module still builds; new code
/// takes its time from the `Clock` in the state.
pub use crate::clock::system_now_ms as now_ms;

const READERS: usize = 4;

/// Database files whose generation lease a store of this process holds.
/// One process may open a file twice (a second server on a data directory
/// in the tests): without this, both books would read the same next block
/// id and generate it twice.
static LEASED: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());

/// Gives a file's lease back when the `GenerationLease` holding it drops.
struct LeasedFile(PathBuf);

impl Drop for LeasedFile {
    fn drop(&mut self) {
        LEASED
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&self.0);
    }
}

pub struct SqliteStore {
    writer: Mutex<Connection>,
    readers: Vec<Mutex<Connection>>,
    next_reader: AtomicUsize,
    /// Stamps the rows whose time no caller passes in (players, blocks).
    clock: Arc<dyn Clock>,
    /// The database file, resolved, as the key of its generation lease.
    file: PathBuf,
    protection: RwLock<ProtectionDefaults>,
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> StoreError {
        StoreError::Backend(e.to_string())
    }
}

/// The rules' view of an open SQLite transaction (a `Transaction` derefs to
/// its `Connection`, so any statement run here is inside it).
pub(super) struct SqlTx<'a>(&'a Connection);

fn configure(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    // FULL: in WAL mode, NORMAL may lose the last commits on power loss;
    // a sale acknowledged to a player must not be lost.
    conn.pragma_update(None, "synchronous", "FULL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.pragma_update(None, "cache_size", -32_000)?;
    Ok(())
}

impl SqliteStore {
    /// Opens (creating if needed) the database file, applies migrations and
    /// drops blocks whose generation was interrupted.
    pub fn open(path: &Path, clock: Arc<dyn Clock>) -> StoreResult<SqliteStore> {
        let mut writer = Connection::open(path)?;
        let mode: String = writer.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(StoreError::Backend(format!(
                "the database refused WAL mode ({mode})"
            )));
        }
        configure(&writer)?;
        schema::migrate(&mut writer)?;
        blocks::drop_interrupted(&mut writer)?;
        let mut readers = Vec::with_capacity(READERS);
        for _ in 0..READERS {
            let reader = Connection::open_with_flags(
                path,
                OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )?;
            configure(&reader)?;
            readers.push(Mutex::new(reader));
        }
        Ok(SqliteStore {
            writer: Mutex::new(writer),
            readers,
            next_reader: AtomicUsize::new(0),
            clock,
            // The file exists now: its resolved path names it however it
            // was reached.
            file: std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned()),
            protection: RwLock::default(),
        })
    }

    fn protection_defaults(&self) -> ProtectionDefaults {
        *self.protection.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self) -> MutexGuard<'_, Connection> {
        // A panic while holding the writer rolled its transaction back
        // (rusqlite drops it), so the connection is still consistent.
        self.writer.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn read(&self) -> MutexGuard<'_, Connection> {
        let start = self.next_reader.fetch_add(1, Ordering::Relaxed);
        for i in 0..self.readers.len() {
            if let Ok(guard) = self.readers[(start + i) % self.readers.len()].try_lock() {
                return guard;
            }
        }
        self.readers[start % self.readers.len()]
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }

    /// Runs `f` in one write transaction, committed only if `f` succeeds.
    fn in_transaction<T>(
        &self,
        f: impl FnOnce(&mut SqlTx<'_>) -> StoreResult<T>,
    ) -> StoreResult<T> {
        let mut conn = self.write();
        // IMMEDIATE: take the write lock before the first read, so that a
        // read-then-write never fails on a snapshot another connection (an
        // operator tool, a second process) has moved meanwhile.
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let value = f(&mut SqlTx(&tx))?;
        tx.commit()?;
        Ok(value)
    }
}

impl Store for SqliteStore {
    /// One store of this process at a time per database file; another
    /// process must not open the file while a server runs on it.
    fn try_generation_lease(&self) -> StoreResult<Option<GenerationLease>> {
        let mut leased = LEASED.lock().unwrap_or_else(|p| p.into_inner());
        if !leased.insert(self.file.clone()) {
            return Ok(None);
        }
        Ok(Some(GenerationLease::new(LeasedFile(self.file.clone()))))
    }

    fn blocks(&self) -> StoreResult<Vec<BlockRecord>> {
        blocks::all(&self.read())
    }

    fn block(&self, id: u64) -> StoreResult<Option<BlockRecord>> {
        rows::block_record(&self.read(), id)
    }

    fn next_block_id(&self) -> StoreResult<u64> {
        blocks::next_id(&self.write())
    }

    fn insert_block(
        &self,
        block: &Block,
        signed: &SignedCommitment,
        seeding: BlockSeeding,
    ) -> StoreResult<BlockStatus> {
        blocks::insert(self, block, signed, seeding)
    }

    fn block_leaves(&self, id: u64) -> StoreResult<Vec<Hash>> {
        blocks::leaves(&self.read(), id)
    }

    fn for_each_ticket(&self, id: u64, f: &mut dyn FnMut(Ticket, Hash) -> bool) -> StoreResult<()> {
        blocks::for_each_ticket(&self.read(), id, f)
    }

    fn close_block(&self, id: u64) -> StoreResult<Option<BlockRecord>> {
        self.in_transaction(|tx| {
            if !super::switch_over::close(tx, id)? {
                return Ok(None);
            }
            rows::block_record(tx.0, id)
        })
    }

    fn create_player(&self, id: &str, kind: PlayerKind, balance_cents: u64) -> StoreResult<bool> {
        wallet::create_player(&self.write(), id, kind, balance_cents, self.clock.now_ms())
    }

    fn player(&self, id: &str) -> StoreResult<Option<PlayerRecord>> {
        wallet::player(&self.read(), id)
    }

    fn has_players(&self, kind: PlayerKind) -> StoreResult<bool> {
        wallet::has_players(&self.read(), kind)
    }

    fn transfer(&self, transfer: &Transfer, now_ms: u64) -> StoreResult<TransferOutcome> {
        self.in_transaction(|tx| super::wallet::transfer(tx, transfer, now_ms))
    }

    fn create_session(
        &self,
        token_hash: &[u8; 32],
        player_id: &str,
        now_ms: u64,
        expires_at_ms: u64,
    ) -> StoreResult<()> {
        wallet::create_session(&self.write(), token_hash, player_id, now_ms, expires_at_ms)
    }

    fn session(&self, token_hash: &[u8; 32]) -> StoreResult<Option<SessionRecord>> {
        wallet::session(&self.read(), token_hash)
    }

    fn open_session(
        &self,
        player: &NewPlayer<'_>,
        session: &NewSession,
    ) -> StoreResult<SessionOpened> {
        self.in_transaction(|tx| super::wallet::open_session(tx, player, session))
    }

    fn delete_session(&self, token_hash: &[u8; 32]) -> StoreResult<bool> {
        wallet::delete_session(&self.write(), token_hash)
    }

    fn delete_player_sessions(&self, player_id: &str) -> StoreResult<u64> {
        wallet::delete_player_sessions(&self.write(), player_id)
    }

    fn delete_expired_sessions(&self, now_ms: u64) -> StoreResult<u64> {
        wallet::delete_expired_sessions(&self.write(), now_ms)
    }

    fn insert_launch(&self, new: &super::launch::NewLaunch) -> StoreResult<()> {
        launch::insert(&self.write(), new)
    }

    fn redeem_launch(
        &self,
        code_hash: &[u8; 32],
        session: &NewSession,
        demo_player: Option<&NewPlayer<'_>>,
    ) -> StoreResult<super::launch::LaunchRedeemed> {
        self.in_transaction(|tx| super::launch::redeem(tx, code_hash, session, demo_player))
    }

    fn delete_expired_launches(&self, now_ms: u64) -> StoreResult<u64> {
        launch::delete_expired(&self.write(), now_ms)
    }

    fn sell_batch(&self, requests: &[SaleRequest], now_ms: u64) -> StoreResult<Vec<SaleOutcome>> {
        let defaults = self.protection_defaults();
        self.in_transaction(|tx| super::sale_batch::sell_batch(tx, requests, now_ms, &defaults))
    }

    fn sale(&self, player_id: &str, sale_id: u64) -> StoreResult<Option<SaleRecord>> {
        sales::sale(&self.read(), player_id, sale_id)
    }

    fn history(
        &self,
        player_id: &str,
        before: Option<u64>,
        limit: u32,
    ) -> StoreResult<Vec<SaleRecord>> {
        sales::history(&self.read(), player_id, before, limit)
    }

    fn unrevealed(&self, player_id: &str) -> StoreResult<Option<SaleRecord>> {
        sales::unrevealed(&self.read(), player_id)
    }

    fn set_revealed(&self, player_id: &str, sale_id: u64, revealed: u8) -> StoreResult<Option<u8>> {
        let Ok(sale_id) = i64::try_from(sale_id) else {
            return Ok(None);
        };
        self.in_transaction(|tx| sales::set_revealed(tx.0, player_id, sale_id, revealed))
    }

    fn totals(&self) -> StoreResult<Totals> {
        sales::totals(&self.read())
    }

    fn reserve_round(
        &self,
        request: &SaleRequest,
        round_id: &str,
        now_ms: u64,
    ) -> StoreResult<crate::store::seamless::ReserveOutcome> {
        let defaults = self.protection_defaults();
        self.in_transaction(|tx| {
            crate::store::seamless::reserve(tx, request, round_id, now_ms, &defaults)
        })
    }

    fn settle_round(
        &self,
        round_id: &str,
        balance_after_debit_cents: u64,
        now_ms: u64,
    ) -> StoreResult<crate::store::seamless::Settled> {
        self.in_transaction(|tx| {
            crate::store::seamless::settle(tx, round_id, balance_after_debit_cents, now_ms)
        })
    }

    fn release_round(
        &self,
        round_id: &str,
        why: crate::store::seamless::Release,
        now_ms: u64,
    ) -> StoreResult<bool> {
        self.in_transaction(|tx| crate::store::seamless::release(tx, round_id, why, now_ms))
    }

    fn release_stale_rounds(&self, before_ms: u64, now_ms: u64) -> StoreResult<u64> {
        self.in_transaction(|tx| crate::store::seamless::release_stale(tx, before_ms, now_ms))
    }

    fn outbox_due(&self, limit: u32) -> StoreResult<Vec<crate::store::seamless::OutboxItem>> {
        seamless::outbox_due(&self.read(), limit)
    }

    fn outbox_acknowledged(
        &self,
        transaction_id: &str,
        balance_cents: u64,
        now_ms: u64,
    ) -> StoreResult<()> {
        seamless::outbox_acknowledged(&self.write(), transaction_id, balance_cents, now_ms)
    }

    fn outbox_attempt_failed(&self, transaction_id: &str, error: &str) -> StoreResult<()> {
        seamless::outbox_attempt_failed(&self.write(), transaction_id, error)
    }

    fn set_protection_defaults(&self, defaults: ProtectionDefaults) {
        *self.protection.write().unwrap_or_else(|p| p.into_inner()) = defaults;
    }

    fn protection(&self, player_id: &str, now_ms: u64) -> StoreResult<Option<Protection>> {
        let conn = self.read();
        let Some(player) = wallet::player(&conn, player_id)? else {
            return Ok(None);
        };
        let defaults = self.protection_defaults();
        super::protection::view(&mut SqlTx(&conn), player_id, player.kind, now_ms, &defaults)
            .map(Some)
    }

    fn update_protection(
        &self,
        player_id: &str,
        update: &ProtectionUpdate,
        actor: AuditActor,
        now_ms: u64,
    ) -> StoreResult<Result<Protection, UpdateRefusal>> {
        let defaults = self.protection_defaults();
        self.in_transaction(|tx| {
            super::protection::update(tx, player_id, update, actor, now_ms, &defaults)
        })
    }

    fn protection_audit(&self, player_id: &str) -> StoreResult<Vec<AuditEntry>> {
        SqlTx(&self.read()).audit(player_id)
    }
}
