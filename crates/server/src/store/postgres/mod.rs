//! The PostgreSQL backend: one database shared by every `eldorado serve`
//! process of a deployment. Each process still commits its sales in groups
//! (one transaction per batch of the sale desk); row locks taken once per
//! batch keep the batches of different processes from racing for a ticket
//! or a balance.
//!
//! Driver: the synchronous `postgres` crate (tokio-postgres underneath, one
//! small runtime per connection) with an `r2d2` pool. Every store call comes
//! from a blocking thread (the sale desk's writer, `spawn_blocking`, the
//! block book's threads) through the synchronous `store::tx` seam, so a sync
//! client fits it without carrying a runtime handle around, and a
//! transaction is a plain value lent to the rules like SQLite's.
//!
//! Only transactions, queries and schema live here: `schema` (migrations
//! from `migrations/postgres/*.sql`), `rows` (row mapping), `blocks`,
//! `sales` and `wallet` (the primitives of `store::tx` and each job's
//! reads), `shared` (the generation lease and the operator's secrets).

mod blocks;
mod launch;
mod protection;
mod rows;
mod sales;
mod schema;
mod seamless;
mod shared;
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
use postgres::error::SqlState;
use postgres::NoTls;
use r2d2_postgres::PostgresConnectionManager;
use std::sync::{Arc, RwLock};
use std::time::Duration;

type Pool = r2d2::Pool<PostgresConnectionManager<NoTls>>;
type PooledClient = r2d2::PooledConnection<PostgresConnectionManager<NoTls>>;

/// Times a transaction that PostgreSQL aborted as a deadlock or a
/// serialization failure is run again: such a transaction wrote nothing,
/// so running it again is safe.
const RETRIES: usize = 3;

/// How long a caller waits for a free connection before the request fails.
const CHECKOUT_TIMEOUT: Duration = Duration::from_secs(10);

impl From<postgres::Error> for StoreError {
    fn from(e: postgres::Error) -> StoreError {
        StoreError::Backend(e.to_string())
    }
}

impl From<r2d2::Error> for StoreError {
    fn from(e: r2d2::Error) -> StoreError {
        StoreError::Backend(format!("no PostgreSQL connection: {e}"))
    }
}

/// The rules' view of an open PostgreSQL transaction.
pub(super) struct PgTx<'a>(postgres::Transaction<'a>);

pub struct PostgresStore {
    pool: Pool,
    /// Stamps the rows whose time no caller passes in (players, blocks).
    clock: Arc<dyn Clock>,
    protection: RwLock<ProtectionDefaults>,
}

impl PostgresStore {
    /// Connects to `url` (a libpq-style URL; several hosts and
    /// `target_session_attrs=read-write` let a server follow a failover),
    /// keeps up to `pool_size` connections, and applies the migrations.
    pub fn open(url: &str, pool_size: u32, clock: Arc<dyn Clock>) -> StoreResult<PostgresStore> {
        let config: postgres::Config = url
            .parse()
            .map_err(|e| StoreError::Backend(format!("database URL: {e}")))?;
        let manager = PostgresConnectionManager::new(config, NoTls);
        let pool = r2d2::Pool::builder()
            .max_size(pool_size.max(1))
            // No idle connections kept open at start: a deployment of many
            // servers must not exhaust the database's connection slots.
            .min_idle(Some(0))
            .connection_timeout(CHECKOUT_TIMEOUT)
            // A connection broken by a restart or a failover is found out
            // when taken, and replaced by a fresh one.
            .test_on_check_out(true)
            .build(manager)?;
        schema::migrate(&mut *pool.get()?)?;
        Ok(PostgresStore {
            pool,
            clock,
            protection: RwLock::default(),
        })
    }

    fn protection_defaults(&self) -> ProtectionDefaults {
        *self.protection.read().unwrap_or_else(|p| p.into_inner())
    }

    fn client(&self) -> StoreResult<PooledClient> {
        Ok(self.pool.get()?)
    }

    /// Runs `f` in one transaction, committed only if `f` succeeds; run
    /// again (from scratch) if PostgreSQL aborted it as a deadlock or a
    /// serialization failure.
    fn in_transaction<T>(
        &self,
        mut f: impl FnMut(&mut PgTx<'_>) -> StoreResult<T>,
    ) -> StoreResult<T> {
        let mut client = self.client()?;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let result = (|| {
                let mut tx = PgTx(client.transaction()?);
                let value = f(&mut tx)?;
                tx.0.commit()?;
                Ok(value)
            })();
            match result {
                Err(Transient(e)) if attempt < RETRIES => {
                    tracing::warn!(error = %e, attempt, "transaction aborted by PostgreSQL, running it again");
                }
                Err(Transient(e)) | Err(Other(e)) => return Err(e),
                Ok(value) => return Ok(value),
            }
        }
    }
}

/// Runs `f` where the blocking client may block. The `postgres` client
/// drives its connection with a runtime of its own, which must not be
/// started on a thread that drives async tasks: a caller on a tokio worker
/// (a handler reading the store without `spawn_blocking`, as SQLite allows)
/// is moved off it for the call.
fn off_async<T>(f: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(f)
        }
        _ => f(),
    }
}

/// A failed transaction, sorted by whether running it again may succeed.
enum TxError {
    Transient(StoreError),
    Other(StoreError),
}
use TxError::{Other, Transient};

impl From<postgres::Error> for TxError {
    fn from(e: postgres::Error) -> TxError {
        let transient = matches!(
            e.code(),
            Some(&SqlState::T_R_DEADLOCK_DETECTED) | Some(&SqlState::T_R_SERIALIZATION_FAILURE)
        );
        if transient {
            Transient(e.into())
        } else {
            Other(e.into())
        }
    }
}

impl From<StoreError> for TxError {
    fn from(e: StoreError) -> TxError {
        // The rules' errors carry PostgreSQL's as text: a deadlock met in
        // the middle of the rules is transient too.
        match &e {
            StoreError::Backend(text) if text.contains("deadlock detected") => Transient(e),
            _ => Other(e),
        }
    }
}

impl Store for PostgresStore {
    fn blocks(&self) -> StoreResult<Vec<BlockRecord>> {
        off_async(|| blocks::all(&mut *self.client()?))
    }

    fn block(&self, id: u64) -> StoreResult<Option<BlockRecord>> {
        off_async(|| rows::block_record(&mut *self.client()?, id))
    }

    fn next_block_id(&self) -> StoreResult<u64> {
        off_async(|| blocks::next_id(&mut *self.client()?))
    }

    fn insert_block(
        &self,
        block: &Block,
        signed: &SignedCommitment,
        seeding: BlockSeeding,
    ) -> StoreResult<BlockStatus> {
        off_async(|| {
            let now = self.clock.now_ms();
            self.in_transaction(|tx| blocks::insert(tx, block, signed, seeding, now))
        })
    }

    fn block_leaves(&self, id: u64) -> StoreResult<Vec<Hash>> {
        off_async(|| blocks::leaves(&mut *self.client()?, id))
    }

    fn for_each_ticket(&self, id: u64, f: &mut dyn FnMut(Ticket, Hash) -> bool) -> StoreResult<()> {
        off_async(|| blocks::for_each_ticket(&mut *self.client()?, id, f))
    }

    fn close_block(&self, id: u64) -> StoreResult<Option<BlockRecord>> {
        off_async(|| {
            self.in_transaction(|tx| {
                if !super::switch_over::close(tx, id)? {
                    return Ok(None);
                }
                rows::block_record(&mut tx.0, id)
            })
        })
    }

    fn create_player(&self, id: &str, kind: PlayerKind, balance_cents: u64) -> StoreResult<bool> {
        off_async(|| {
            wallet::create_player(
                &mut *self.client()?,
                id,
                kind,
                balance_cents,
                self.clock.now_ms(),
            )
        })
    }

    fn player(&self, id: &str) -> StoreResult<Option<PlayerRecord>> {
        off_async(|| wallet::player(&mut *self.client()?, id))
    }

    fn has_players(&self, kind: PlayerKind) -> StoreResult<bool> {
        off_async(|| wallet::has_players(&mut *self.client()?, kind))
    }

    fn transfer(&self, transfer: &Transfer, now_ms: u64) -> StoreResult<TransferOutcome> {
        off_async(|| self.in_transaction(|tx| super::wallet::transfer(tx, transfer, now_ms)))
    }

    fn create_session(
        &self,
        token_hash: &[u8; 32],
        player_id: &str,
        now_ms: u64,
        expires_at_ms: u64,
    ) -> StoreResult<()> {
        off_async(|| {
            wallet::create_session(
                &mut *self.client()?,
                token_hash,
                player_id,
                now_ms,
                expires_at_ms,
            )
        })
    }

    fn session(&self, token_hash: &[u8; 32]) -> StoreResult<Option<SessionRecord>> {
        off_async(|| wallet::session(&mut *self.client()?, token_hash))
    }

    fn open_session(
        &self,
        player: &NewPlayer<'_>,
        session: &NewSession,
    ) -> StoreResult<SessionOpened> {
        off_async(|| self.in_transaction(|tx| super::wallet::open_session(tx, player, session)))
    }

    fn delete_session(&self, token_hash: &[u8; 32]) -> StoreResult<bool> {
        off_async(|| wallet::delete_session(&mut *self.client()?, token_hash))
    }

    fn delete_player_sessions(&self, player_id: &str) -> StoreResult<u64> {
        off_async(|| wallet::delete_player_sessions(&mut *self.client()?, player_id))
    }

    fn delete_expired_sessions(&self, now_ms: u64) -> StoreResult<u64> {
        off_async(|| wallet::delete_expired_sessions(&mut *self.client()?, now_ms))
    }

    fn insert_launch(&self, new: &super::launch::NewLaunch) -> StoreResult<()> {
        off_async(|| launch::insert(&mut *self.client()?, new))
    }

    fn redeem_launch(
        &self,
        code_hash: &[u8; 32],
        session: &NewSession,
        demo_player: Option<&NewPlayer<'_>>,
    ) -> StoreResult<super::launch::LaunchRedeemed> {
        off_async(|| {
            self.in_transaction(|tx| super::launch::redeem(tx, code_hash, session, demo_player))
        })
    }

    fn delete_expired_launches(&self, now_ms: u64) -> StoreResult<u64> {
        off_async(|| launch::delete_expired(&mut *self.client()?, now_ms))
    }

    fn sell_batch(&self, requests: &[SaleRequest], now_ms: u64) -> StoreResult<Vec<SaleOutcome>> {
        let defaults = self.protection_defaults();
        off_async(|| {
            self.in_transaction(|tx| {
                sales::lock_batch(tx, requests)?;
                super::sale_batch::sell_batch(tx, requests, now_ms, &defaults)
            })
        })
    }

    fn sale(&self, player_id: &str, sale_id: u64) -> StoreResult<Option<SaleRecord>> {
        off_async(|| sales::sale(&mut *self.client()?, player_id, sale_id))
    }

    fn history(
        &self,
        player_id: &str,
        before: Option<u64>,
        limit: u32,
    ) -> StoreResult<Vec<SaleRecord>> {
        off_async(|| sales::history(&mut *self.client()?, player_id, before, limit))
    }

    fn unrevealed(&self, player_id: &str) -> StoreResult<Option<SaleRecord>> {
        off_async(|| sales::unrevealed(&mut *self.client()?, player_id))
    }

    fn set_revealed(&self, player_id: &str, sale_id: u64, revealed: u8) -> StoreResult<Option<u8>> {
        off_async(|| {
            let Ok(sale_id) = i64::try_from(sale_id) else {
                return Ok(None);
            };
            sales::set_revealed(&mut *self.client()?, player_id, sale_id, revealed)
        })
    }

    fn reserve_round(
        &self,
        request: &SaleRequest,
        round_id: &str,
        now_ms: u64,
    ) -> StoreResult<crate::store::seamless::ReserveOutcome> {
        let defaults = self.protection_defaults();
        off_async(|| {
            self.in_transaction(|tx| {
                // The locks of a sale, in the same order, so that a
                // reservation and a batch never wait for each other in a cycle.
                sales::lock_batch(tx, std::slice::from_ref(request))?;
                crate::store::seamless::reserve(tx, request, round_id, now_ms, &defaults)
            })
        })
    }

    fn settle_round(
        &self,
        round_id: &str,
        balance_after_debit_cents: u64,
        now_ms: u64,
    ) -> StoreResult<crate::store::seamless::Settled> {
        off_async(|| {
            self.in_transaction(|tx| {
                crate::store::seamless::settle(tx, round_id, balance_after_debit_cents, now_ms)
            })
        })
    }

    fn release_round(
        &self,
        round_id: &str,
        why: crate::store::seamless::Release,
        now_ms: u64,
    ) -> StoreResult<bool> {
        off_async(|| {
            self.in_transaction(|tx| crate::store::seamless::release(tx, round_id, why, now_ms))
        })
    }

    fn release_stale_rounds(&self, before_ms: u64, now_ms: u64) -> StoreResult<u64> {
        off_async(|| {
            self.in_transaction(|tx| crate::store::seamless::release_stale(tx, before_ms, now_ms))
        })
    }

    fn outbox_due(&self, limit: u32) -> StoreResult<Vec<crate::store::seamless::OutboxItem>> {
        off_async(|| seamless::outbox_due(&mut *self.client()?, limit))
    }

    fn outbox_acknowledged(
        &self,
        transaction_id: &str,
        balance_cents: u64,
        now_ms: u64,
    ) -> StoreResult<()> {
        off_async(|| {
            seamless::outbox_acknowledged(
                &mut *self.client()?,
                transaction_id,
                balance_cents,
                now_ms,
            )
        })
    }

    fn outbox_attempt_failed(&self, transaction_id: &str, error: &str) -> StoreResult<()> {
        off_async(|| seamless::outbox_attempt_failed(&mut *self.client()?, transaction_id, error))
    }

    fn totals(&self) -> StoreResult<Totals> {
        off_async(|| sales::totals(&mut *self.client()?))
    }

    fn set_protection_defaults(&self, defaults: ProtectionDefaults) {
        *self.protection.write().unwrap_or_else(|p| p.into_inner()) = defaults;
    }

    fn protection(&self, player_id: &str, now_ms: u64) -> StoreResult<Option<Protection>> {
        let defaults = self.protection_defaults();
        off_async(|| {
            self.in_transaction(|tx| {
                let Some(player) = wallet::player(&mut tx.0, player_id)? else {
                    return Ok(None);
                };
                super::protection::view(tx, player_id, player.kind, now_ms, &defaults).map(Some)
            })
        })
    }

    fn update_protection(
        &self,
        player_id: &str,
        update: &ProtectionUpdate,
        actor: AuditActor,
        now_ms: u64,
    ) -> StoreResult<Result<Protection, UpdateRefusal>> {
        let defaults = self.protection_defaults();
        off_async(|| {
            self.in_transaction(|tx| {
                super::protection::update(tx, player_id, update, actor, now_ms, &defaults)
            })
        })
    }

    fn protection_audit(&self, player_id: &str) -> StoreResult<Vec<AuditEntry>> {
        off_async(|| self.in_transaction(|tx| tx.audit(player_id)))
    }

    fn try_generation_lease(&self) -> StoreResult<Option<GenerationLease>> {
        off_async(|| shared::try_generation_lease(self.client()?))
    }

    fn shared_secret(&self, name: &str, fresh: [u8; 32]) -> StoreResult<Option<[u8; 32]>> {
        off_async(|| shared::secret(&mut *self.client()?, name, fresh).map(Some))
    }
}
