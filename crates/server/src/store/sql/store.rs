//! `Store`, implemented once for every SQL database: each method borrows a
//! connection or a transaction from the [`Backend`] and runs the shared
//! statements (`access`) or rules (`sale_batch`, `wallet`, ...) on it.

use super::{access, decode, text, Conn};
use crate::clock::Clock;
use crate::store::deal;
use crate::store::launch::{self, LaunchRedeemed, NewLaunch};
use crate::store::protection::{self, ProtectionDefaults, ProtectionUpdate, UpdateRefusal};
use crate::store::public_log;
use crate::store::sale_batch::Dealing;
use crate::store::seamless::{self, Release, ReserveOutcome, Settled};
use crate::store::tx::ProtectionTx;
use crate::store::tx::QueuedOutboxItem;
use crate::store::{
    sale_batch, switch_over, wallet, BlockRecord, BlockSeeding, BlockStatus, DaySales, Lease,
    LeaseKind, NewPlayer, NewSession, OutboxFailure, PlayerKind, PlayerRecord, PurchaseRecord,
    SaleOutcome, SaleRecord, SaleRequest, SalesBucket, SessionOpened, SessionRecord, Store,
    StoreResult, Totals, Transfer, TransferOutcome,
};
use eldorado_api::{AuditActor, AuditEntry, Protection};
use eldorado_engine::{Block, Hash, SignedCommitment, Ticket};
use std::sync::{Arc, RwLock};

/// How one database hands out connections: everything of a backend that is
/// not a statement or a rule.
pub trait Backend: Send + Sync + 'static {
    /// Reads, on a connection that may run beside the writer.
    fn read<T>(&self, f: impl FnOnce(&mut dyn Conn) -> StoreResult<T>) -> StoreResult<T>;
    /// Several reads that must see one state of the database.
    fn snapshot<T>(&self, f: impl FnMut(&mut dyn Conn) -> StoreResult<T>) -> StoreResult<T>;
    /// One write statement, committed on its own.
    fn write<T>(&self, f: impl FnOnce(&mut dyn Conn) -> StoreResult<T>) -> StoreResult<T>;
    /// Runs `f` in one transaction, committed only if it returns `Ok`
    /// (and run again from the start if the database aborted it as a
    /// deadlock or a serialization failure, so `f` may run more than once).
    fn transaction<T>(&self, f: impl FnMut(&mut dyn Conn) -> StoreResult<T>) -> StoreResult<T>;
    /// The transaction of sales (or a reservation) for `requests`; a shared
    /// database locks their rows in one order first.
    fn sale_transaction<T>(
        &self,
        _requests: &[SaleRequest],
        f: impl FnMut(&mut dyn Conn) -> StoreResult<T>,
    ) -> StoreResult<T> {
        self.transaction(f)
    }
    /// Stores a generated block (`access::insert_block_row`, its tickets,
    /// `access::finish_block`) without holding sales up for long.
    fn insert_block(
        &self,
        block: &Block,
        signed: &SignedCommitment,
        seeding: BlockSeeding,
        open_per_line: u32,
        now_ms: u64,
    ) -> StoreResult<BlockStatus>;
    /// See [`Store::try_lease`].
    fn try_lease(&self, kind: LeaseKind) -> StoreResult<Option<Lease>>;
    /// (in use, idle) connections of a pool, if the backend has one.
    fn pool_state(&self) -> Option<(u32, u32)> {
        None
    }
    /// See [`Store::shared_secret`].
    fn shared_secret(&self, _name: &str, _fresh: [u8; 32]) -> StoreResult<Option<[u8; 32]>> {
        Ok(None)
    }
}

/// The store over one SQL backend.
pub struct SqlStore<B> {
    pub(crate) backend: B,
    /// Stamps the rows whose time no caller passes in (players, blocks).
    clock: Arc<dyn Clock>,
    protection: RwLock<ProtectionDefaults>,
}

impl<B: Backend> SqlStore<B> {
    pub fn new(backend: B, clock: Arc<dyn Clock>) -> SqlStore<B> {
        SqlStore {
            backend,
            clock,
            protection: RwLock::default(),
        }
    }

    fn protection_defaults(&self) -> ProtectionDefaults {
        *self.protection.read().unwrap_or_else(|p| p.into_inner())
    }
}

impl<B: Backend> Store for SqlStore<B> {
    fn blocks(&self) -> StoreResult<Vec<BlockRecord>> {
        self.backend.read(|c| access::blocks(c))
    }

    fn block(&self, id: u64) -> StoreResult<Option<BlockRecord>> {
        self.backend.read(|c| access::block_record(c, id))
    }

    fn next_block_id(&self) -> StoreResult<u64> {
        // On the writer: the latest commit, not a reader's snapshot.
        self.backend.write(|c| access::next_block_id(c))
    }

    fn insert_block(
        &self,
        block: &Block,
        signed: &SignedCommitment,
        seeding: BlockSeeding,
        open_per_line: u32,
    ) -> StoreResult<BlockStatus> {
        self.backend
            .insert_block(block, signed, seeding, open_per_line, self.clock.now_ms())
    }

    fn block_leaves(&self, id: u64) -> StoreResult<Vec<Hash>> {
        self.backend.read(|c| access::leaves(c, id))
    }

    fn for_each_ticket(&self, id: u64, f: &mut dyn FnMut(Ticket, Hash) -> bool) -> StoreResult<()> {
        self.backend.read(|c| access::for_each_ticket(c, id, f))
    }

    fn close_block(&self, id: u64) -> StoreResult<Option<BlockRecord>> {
        self.backend.transaction(|c| {
            if !switch_over::close(c, id)? {
                return Ok(None);
            }
            access::block_record(c, id)
        })
    }

    fn create_player(&self, id: &str, kind: PlayerKind, balance_cents: u64) -> StoreResult<bool> {
        let now_ms = self.clock.now_ms();
        self.backend
            .write(|c| access::create_player(c, id, kind, balance_cents, now_ms))
    }

    fn player(&self, id: &str) -> StoreResult<Option<PlayerRecord>> {
        self.backend.read(|c| access::player(c, id))
    }

    fn has_players(&self, kind: PlayerKind) -> StoreResult<bool> {
        self.backend.read(|c| access::has_players(c, kind))
    }

    fn transfer(&self, transfer: &Transfer, now_ms: u64) -> StoreResult<TransferOutcome> {
        self.backend
            .transaction(|c| wallet::transfer(c, transfer, now_ms))
    }

    fn create_session(
        &self,
        token_hash: &[u8; 32],
        player_id: &str,
        now_ms: u64,
        expires_at_ms: u64,
    ) -> StoreResult<()> {
        use crate::store::tx::WalletTx;
        self.backend
            .write(|c| c.insert_session(token_hash, player_id, now_ms, expires_at_ms))
    }

    fn session(&self, token_hash: &[u8; 32]) -> StoreResult<Option<SessionRecord>> {
        self.backend.read(|c| access::session(c, token_hash))
    }

    fn open_session(
        &self,
        player: &NewPlayer<'_>,
        session: &NewSession,
    ) -> StoreResult<SessionOpened> {
        self.backend
            .transaction(|c| wallet::open_session(c, player, session))
    }

    fn delete_session(&self, token_hash: &[u8; 32]) -> StoreResult<bool> {
        let deleted = self
            .backend
            .write(|c| c.execute(&super::text::DELETE_SESSION, &[token_hash[..].into()]))?;
        Ok(deleted > 0)
    }

    fn delete_player_sessions(&self, player_id: &str) -> StoreResult<u64> {
        self.backend
            .write(|c| c.execute(&super::text::DELETE_PLAYER_SESSIONS, &[player_id.into()]))
    }

    fn delete_expired_sessions(&self, now_ms: u64) -> StoreResult<u64> {
        self.backend.write(|c| {
            c.execute(
                &super::text::DELETE_EXPIRED_EVICTED_SESSIONS,
                &[decode::int(now_ms)?],
            )?;
            c.execute(
                &super::text::DELETE_EXPIRED_SESSIONS,
                &[decode::int(now_ms)?],
            )
        })
    }

    fn evicted_session(&self, token_hash: &[u8; 32]) -> StoreResult<Option<u64>> {
        self.backend
            .read(|c| access::evicted_session(c, token_hash))
    }

    fn insert_launch(&self, new: &NewLaunch) -> StoreResult<()> {
        self.backend.write(|c| {
            c.execute(
                &super::text::INSERT_LAUNCH,
                &[
                    new.code_hash[..].into(),
                    (&new.player_id).into(),
                    new.mode.as_str().into(),
                    (&new.lang).into(),
                    new.lobby_url.as_ref().into(),
                    decode::int(new.created_at_ms)?,
                    decode::int(new.expires_at_ms)?,
                ],
            )
        })?;
        Ok(())
    }

    fn redeem_launch(
        &self,
        code_hash: &[u8; 32],
        session: &NewSession,
        demo_player: Option<&NewPlayer<'_>>,
    ) -> StoreResult<LaunchRedeemed> {
        self.backend
            .transaction(|c| launch::redeem(c, code_hash, session, demo_player))
    }

    fn delete_expired_launches(&self, now_ms: u64) -> StoreResult<u64> {
        self.backend.write(|c| {
            c.execute(
                &super::text::DELETE_EXPIRED_LAUNCHES,
                &[decode::int(now_ms)?],
            )
        })
    }

    fn sell_batch(&self, requests: &[SaleRequest], now_ms: u64) -> StoreResult<Vec<SaleOutcome>> {
        let defaults = self.protection_defaults();
        self.backend.sale_transaction(requests, |c| {
            sale_batch::sell_batch(c, requests, now_ms, &defaults, Dealing::InOrder)
        })
    }

    fn buy_batch(
        &self,
        requests: &[SaleRequest],
        now_ms: u64,
        round: u64,
    ) -> StoreResult<Vec<SaleOutcome>> {
        let defaults = self.protection_defaults();
        self.backend.sale_transaction(requests, |c| {
            sale_batch::sell_batch(c, requests, now_ms, &defaults, Dealing::Beacon { round })
        })
    }

    fn purchase(&self, purchase_id: u64) -> StoreResult<Option<PurchaseRecord>> {
        self.backend.read(|c| {
            super::query_opt(
                c,
                &text::PURCHASE,
                &[decode::int(purchase_id)?],
                decode::purchase,
            )
        })
    }

    fn purchase_of_sale(&self, sale_id: u64) -> StoreResult<Option<PurchaseRecord>> {
        self.backend.read(|c| {
            super::query_opt(
                c,
                &text::PURCHASE_OF_SALE,
                &[decode::int(sale_id)?],
                decode::purchase,
            )
        })
    }

    fn undealt_purchases(&self) -> StoreResult<u64> {
        self.backend
            .read(|c| super::query_one(c, &text::UNDEALT_COUNT, &[], |r| r.u64(0, "purchases")))
    }

    fn undealt_logged(&self, limit: u32) -> StoreResult<Vec<deal::Undealt>> {
        self.backend.read(|c| {
            super::query(c, &text::UNDEALT_LOGGED, &[limit.into()], |r| {
                Ok(deal::Undealt {
                    purchase_id: r.u64(0, "purchase id")?,
                    log_index: r.u64(1, "log index")?,
                    round: r.u64(2, "beacon round")?,
                })
            })
        })
    }

    fn deal(
        &self,
        rounds: &deal::Rounds,
        randomness: &deal::Randomness,
        trees: &mut deal::Trees,
        limit: u32,
        now_ms: u64,
    ) -> StoreResult<Vec<deal::Dealt>> {
        let dealt = self
            .backend
            .transaction(|c| deal::deal_waiting(c, trees, rounds, randomness, limit, now_ms));
        if dealt.is_err() {
            // The trees took positions the rollback gave back.
            trees.clear();
        }
        dealt
    }

    fn sale(&self, player_id: &str, sale_id: u64) -> StoreResult<Option<SaleRecord>> {
        self.backend.read(|c| access::sale(c, player_id, sale_id))
    }

    fn history(
        &self,
        player_id: &str,
        before: Option<u64>,
        limit: u32,
    ) -> StoreResult<Vec<SaleRecord>> {
        self.backend
            .read(|c| access::history(c, player_id, before, limit))
    }

    fn unrevealed(&self, player_id: &str) -> StoreResult<Option<SaleRecord>> {
        self.backend.read(|c| access::unrevealed(c, player_id))
    }

    fn set_revealed(&self, player_id: &str, sale_id: u64, revealed: u8) -> StoreResult<Option<u8>> {
        self.backend
            .write(|c| access::set_revealed(c, player_id, sale_id, revealed))
    }

    fn totals(&self) -> StoreResult<Totals> {
        self.backend.read(|c| access::totals(c))
    }

    fn reserve_round(
        &self,
        request: &SaleRequest,
        round_id: &str,
        now_ms: u64,
    ) -> StoreResult<ReserveOutcome> {
        let defaults = self.protection_defaults();
        // The locks of a sale, in the same order, so that a reservation and
        // a batch never wait for each other in a cycle.
        self.backend
            .sale_transaction(std::slice::from_ref(request), |c| {
                seamless::reserve(c, request, round_id, now_ms, &defaults)
            })
    }

    fn settle_round(
        &self,
        round_id: &str,
        balance_after_debit_cents: u64,
        now_ms: u64,
        dealing: Dealing,
    ) -> StoreResult<Settled> {
        self.backend.transaction(|c| {
            seamless::settle(c, round_id, balance_after_debit_cents, now_ms, dealing)
        })
    }

    fn release_round(&self, round_id: &str, why: Release, now_ms: u64) -> StoreResult<bool> {
        self.backend
            .transaction(|c| seamless::release(c, round_id, why, now_ms))
    }

    fn release_stale_rounds(&self, before_ms: u64, now_ms: u64) -> StoreResult<u64> {
        self.backend
            .transaction(|c| seamless::release_stale(c, before_ms, now_ms))
    }

    fn outbox_due(&self, limit: u32) -> StoreResult<Vec<QueuedOutboxItem>> {
        self.backend.read(|c| access::outbox_due(c, limit))
    }

    fn outbox_acknowledged(
        &self,
        transaction_id: &str,
        balance_cents: u64,
        now_ms: u64,
    ) -> StoreResult<()> {
        self.backend.write(|c| {
            c.execute(
                &super::text::OUTBOX_ACKNOWLEDGED,
                &[
                    decode::int(now_ms)?,
                    decode::int(balance_cents)?,
                    transaction_id.into(),
                ],
            )
        })?;
        Ok(())
    }

    fn outbox_attempt_failed(&self, transaction_id: &str, error: &str) -> StoreResult<()> {
        self.backend.write(|c| {
            c.execute(
                &super::text::OUTBOX_ATTEMPT_FAILED,
                &[error.into(), transaction_id.into()],
            )
        })?;
        Ok(())
    }

    fn outbox_given_up(&self, transaction_id: &str, error: &str, now_ms: u64) -> StoreResult<()> {
        self.backend.write(|c| {
            c.execute(
                &super::text::OUTBOX_GIVEN_UP,
                &[error.into(), decode::int(now_ms)?, transaction_id.into()],
            )
        })?;
        Ok(())
    }

    fn outbox_given_up_count(&self) -> StoreResult<u64> {
        self.backend.read(|c| {
            super::query_one(c, &super::text::OUTBOX_GIVEN_UP_COUNT, &[], |r| {
                r.u64(0, "given-up outbox items")
            })
        })
    }

    fn pool_state(&self) -> Option<(u32, u32)> {
        self.backend.pool_state()
    }

    fn daily_sales(&self, from_ms: u64, to_ms: u64) -> StoreResult<Vec<DaySales>> {
        self.backend.read(|c| {
            super::query(
                c,
                &super::text::DAILY_SALES,
                &[decode::int(from_ms)?, decode::int(to_ms)?],
                |r| {
                    Ok(DaySales {
                        day: r.i64(0)?,
                        stake_cents: r.u64(1, "stake")?,
                        money: decode::money(r.str(2)?)?,
                        tickets: r.u64(3, "tickets")?,
                        stakes_cents: r.u64(4, "stakes")?,
                        prizes_cents: r.u64(5, "prizes")?,
                    })
                },
            )
        })
    }

    fn sales_buckets(
        &self,
        from_ms: u64,
        to_ms: u64,
        bucket_ms: u64,
    ) -> StoreResult<Vec<SalesBucket>> {
        let bucket = bucket_ms.max(1);
        self.backend.read(|c| {
            super::query(
                c,
                &super::text::SALES_BUCKETS,
                &[
                    decode::int(bucket)?,
                    decode::int(from_ms)?,
                    decode::int(to_ms)?,
                ],
                |r| {
                    Ok(SalesBucket {
                        start_ms: r.u64(0, "bucket")? * bucket,
                        tickets: r.u64(1, "tickets")?,
                        stakes_cents: r.u64(2, "stakes")?,
                        prizes_cents: r.u64(3, "prizes")?,
                    })
                },
            )
        })
    }

    fn live_sessions(&self, player_id: Option<&str>, now_ms: u64) -> StoreResult<u64> {
        self.backend.read(|c| match player_id {
            Some(id) => super::query_one(
                c,
                &super::text::PLAYER_LIVE_SESSIONS,
                &[id.into(), decode::int(now_ms)?],
                |r| r.u64(0, "sessions"),
            ),
            None => super::query_one(
                c,
                &super::text::LIVE_SESSIONS,
                &[decode::int(now_ms)?],
                |r| r.u64(0, "sessions"),
            ),
        })
    }

    fn players_with_prefix(&self, prefix: &str, limit: u32) -> StoreResult<Vec<PlayerRecord>> {
        let length = decode::int(prefix.len() as u64)?;
        self.backend.read(|c| {
            super::query(
                c,
                &super::text::PLAYERS_WITH_PREFIX,
                &[length, prefix.into(), limit.into()],
                |r| {
                    Ok(PlayerRecord {
                        id: r.text(0)?,
                        kind: r.parse(1, "player kind")?,
                        balance_cents: r.u64(2, "balance")?,
                    })
                },
            )
        })
    }

    fn dealt_blocks_on_sale(&self) -> StoreResult<Vec<u64>> {
        self.backend.read(|c| {
            super::query(c, &super::text::DEALT_BLOCKS_ON_SALE, &[], |r| {
                r.u64(0, "block id")
            })
        })
    }

    fn block_sale_span(&self, id: u64) -> StoreResult<Option<(u64, u64)>> {
        self.backend.read(|c| {
            super::query_one(c, &super::text::BLOCK_SALE_SPAN, &[decode::int(id)?], |r| {
                Ok(r.opt_u64(0, "first sale")?.zip(r.opt_u64(1, "last sale")?))
            })
        })
    }

    fn outbox_failures(&self) -> StoreResult<Vec<OutboxFailure>> {
        self.backend.read(|c| {
            super::query(c, &super::text::OUTBOX_FAILURES, &[], |r| {
                Ok(OutboxFailure {
                    error: r.text(0)?,
                    items: r.u64(1, "items")?,
                    oldest_queued_at_ms: r.u64(2, "queued at")?,
                })
            })
        })
    }

    fn blocks_finished_between(&self, from_ms: u64, to_ms: u64) -> StoreResult<Vec<u64>> {
        self.backend.read(|c| {
            super::query(
                c,
                &super::text::FINISHED_BLOCKS_BETWEEN,
                &[decode::int(from_ms)?, decode::int(to_ms)?],
                |r| r.u64(0, "block id"),
            )
        })
    }

    fn log_unlogged(&self, max_sales: u32) -> StoreResult<public_log::Unlogged> {
        self.backend
            .snapshot(|c| super::public_log::unlogged(c, max_sales))
    }

    fn log_append(&self, append: &public_log::LogAppend<'_>, now_ms: u64) -> StoreResult<bool> {
        self.backend
            .transaction(|c| super::public_log::append(c, append, now_ms))
    }

    fn log_record_page(&self, fingerprint: &Hash, files: u32, now_ms: u64) -> StoreResult<bool> {
        self.backend
            .transaction(|c| super::public_log::record_page(c, fingerprint, files, now_ms))
    }

    fn log_hashes(&self, indexes: &[u64]) -> StoreResult<Vec<Hash>> {
        self.backend.read(|c| super::public_log::hashes(c, indexes))
    }

    fn log_leaves(&self, start: u64, end: u64) -> StoreResult<Vec<Vec<u8>>> {
        self.backend
            .read(|c| super::public_log::leaves(c, start, end))
    }

    fn log_checkpoint(
        &self,
        min_cosignatures: u32,
    ) -> StoreResult<Option<public_log::ServedCheckpoint>> {
        self.backend
            .snapshot(|c| super::public_log::checkpoint(c, min_cosignatures))
    }

    fn log_checkpoint_covering(
        &self,
        index: u64,
        min_cosignatures: u32,
    ) -> StoreResult<Option<public_log::ServedCheckpoint>> {
        self.backend
            .snapshot(|c| super::public_log::covering(c, index, min_cosignatures))
    }

    fn log_checkpoint_at(&self, size: u64) -> StoreResult<Option<String>> {
        self.backend
            .read(|c| super::public_log::checkpoint_at(c, size))
    }

    fn log_add_cosignature(
        &self,
        size: u64,
        witness: &str,
        line: &str,
        now_ms: u64,
    ) -> StoreResult<()> {
        self.backend
            .write(|c| super::public_log::add_cosignature(c, size, witness, line, now_ms))
    }

    fn set_protection_defaults(&self, defaults: ProtectionDefaults) {
        *self.protection.write().unwrap_or_else(|p| p.into_inner()) = defaults;
    }

    fn protection(&self, player_id: &str, now_ms: u64) -> StoreResult<Option<Protection>> {
        let defaults = self.protection_defaults();
        self.backend.snapshot(|c| {
            let Some(player) = access::player(c, player_id)? else {
                return Ok(None);
            };
            protection::view(c, player_id, player.kind, now_ms, &defaults).map(Some)
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
        self.backend
            .transaction(|c| protection::update(c, player_id, update, actor, now_ms, &defaults))
    }

    fn protection_audit(&self, player_id: &str) -> StoreResult<Vec<AuditEntry>> {
        self.backend.read(|c| c.audit(player_id))
    }

    fn try_lease(&self, kind: LeaseKind) -> StoreResult<Option<Lease>> {
        self.backend.try_lease(kind)
    }

    fn shared_secret(&self, name: &str, fresh: [u8; 32]) -> StoreResult<Option<[u8; 32]>> {
        self.backend.shared_secret(name, fresh)
    }
}
