//! Sales of real-money operator players when the operator holds the money
//! (`eldorado serve --wallet`), exactly once across both systems:
//!
//! 1. the ticket is reserved durably (`Store::reserve_round`), after the
//!    checks of any sale;
//! 2. the operator is asked for the stake (`POST {wallet}/debit`), outside
//!    any transaction;
//! 3. ok: the round becomes a signed sale, and a winning ticket's prize
//!    credit is queued in the outbox in the same transaction. Refused: the
//!    ticket is released for the next buyer. No answer: it is released and
//!    a rollback of the debit is queued in the same transaction.
//!
//! The outbox worker sends queued credits and rollbacks again with the same
//! transaction id until the operator answers ok, across restarts: up to
//! `--wallet-outbox-concurrency` calls at once, each item on its own
//! backoff (`outbox_backoff`: doubling from `--wallet-retry-ms` to
//! `--wallet-retry-max-ms`, with jitter), so one failing item or a wallet
//! that times out never holds up the others. It also releases rounds that a
//! crash or a lost request left reserved.

use crate::blocks::BlockBook;
use crate::clock::Clock;
use crate::config::WalletConfig;
use crate::dealer::Dealer;
use crate::error::ApiError;
use crate::keys::os_random;
use crate::outbox_backoff::{Backoff, Schedule};
use crate::store::sale_batch::Dealing;
use crate::store::seamless::{debit_id, OutboxItem, OutboxKind, Release, ReserveOutcome, Settled};
use crate::store::{QueuedOutboxItem, SaleOutcome, SaleRequest, Store, StoreResult};
use crate::wallet_client::{NoAnswer, WalletClient};
use eldorado_api::seamless::{CreditCall, DebitCall, DebitStatus, RollbackCall};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{Notify, Semaphore};

pub struct SeamlessWallet {
    client: WalletClient,
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    book: Arc<BlockBook>,
    config: WalletConfig,
    /// Wakes the outbox worker before its period: something was queued.
    wake: Notify,
    restarts: AtomicU64,
    /// When each item that failed may be sent again.
    schedule: Mutex<Schedule>,
    /// What the last pass saw of the outbox, for `/api/health`.
    backlog: Mutex<OutboxBacklog>,
    /// With `--beacon`: the dealer that names a purchase's round, and the
    /// public log's sequencer to wake for it.
    dealing: Option<(Arc<Dealer>, Arc<Notify>)>,
}

/// The outbox as the last pass left it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OutboxBacklog {
    /// Items not acknowledged (at most `--wallet-outbox-scan` counted).
    pub items: u64,
    /// When the oldest of them was queued (Unix ms), if any.
    pub oldest_queued_at_ms: Option<u64>,
    /// The most failed attempts of one of them.
    pub most_attempts: u32,
    /// Calls given up on (answered 409) and not acknowledged since.
    pub given_up: u64,
}

/// What one outbox pass did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Drained {
    pub released_rounds: u64,
    pub acknowledged: u64,
    pub failed: u64,
    /// Answered 409: never sent again (`Store::outbox_given_up`).
    pub given_up: u64,
}

/// What became of one call of a pass.
enum Sent {
    Acknowledged,
    Failed,
    GivenUp,
}

impl SeamlessWallet {
    pub fn new(
        config: WalletConfig,
        store: Arc<dyn Store>,
        clock: Arc<dyn Clock>,
        book: Arc<BlockBook>,
        dealing: Option<(Arc<Dealer>, Arc<Notify>)>,
    ) -> SeamlessWallet {
        SeamlessWallet {
            client: WalletClient::new(&config),
            store,
            clock,
            book,
            config,
            wake: Notify::new(),
            restarts: AtomicU64::new(0),
            schedule: Mutex::default(),
            backlog: Mutex::default(),
            dealing,
        }
    }

    /// What the last outbox pass left queued.
    pub fn backlog(&self) -> OutboxBacklog {
        *self.backlog.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sends every queued call on the next pass, which starts now, instead
    /// of after each one's backoff. Calls given up on stay given up.
    pub fn retry_now(&self) {
        self.schedule
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .all_due();
        self.wake.notify_one();
    }

    fn backoff(&self) -> Backoff {
        Backoff {
            base_ms: self.config.retry.as_millis() as u64,
            cap_ms: self.config.outbox.retry_max.as_millis() as u64,
        }
    }

    /// How long a round may stay reserved before the worker deems its
    /// request lost: well past the longest a live request can take.
    fn stale_after(&self) -> Duration {
        self.config.timeout * 2 + Duration::from_secs(10)
    }

    /// The player's balance at the operator.
    pub async fn balance(&self, player_id: &str) -> Result<u64, ApiError> {
        self.client.balance(player_id).await.map_err(|e| {
            tracing::warn!(error = %e, player = player_id, "the operator's wallet gave no balance");
            ApiError::WalletUnavailable
        })
    }

    /// Sells one ticket paid from the operator's wallet. Runs to its end in
    /// a task of its own, so a client that hangs up or a request timeout
    /// never leaves a round half done.
    pub async fn sell(self: &Arc<Self>, request: SaleRequest) -> Result<SaleOutcome, ApiError> {
        let this = Arc::clone(self);
        tokio::spawn(async move { this.sell_to_end(request).await }).await?
    }

    async fn sell_to_end(&self, request: SaleRequest) -> Result<SaleOutcome, ApiError> {
        let round_id = hex::encode(os_random::<12>().map_err(ApiError::internal)?);
        let stake_cents = request.stake.cents();
        let reserved = {
            let store = Arc::clone(&self.store);
            let now_ms = self.clock.now_ms();
            let round_id = round_id.clone();
            let request = request.clone();
            blocking(move || store.reserve_round(&request, &round_id, now_ms)).await?
        };
        let round = match reserved {
            ReserveOutcome::Reserved(round) => round,
            ReserveOutcome::Answered(outcome) => return Ok(outcome),
            // The first request of this key is still being paid: its retry
            // gets the sale (or its refusal) once it is done.
            ReserveOutcome::InFlight => return Err(ApiError::Timeout),
        };
        let call = DebitCall {
            transaction_id: debit_id(&round.round_id),
            round_id: round.round_id.clone(),
            player_id: round.player_id.clone(),
            amount_cents: stake_cents,
        };
        match self.client.debit(&call).await {
            Ok(answer) if answer.status == DebitStatus::Ok => {
                self.settle(&round_id, answer.balance_cents).await
            }
            Ok(answer) => {
                self.release(&round_id, Release::Refused).await?;
                Err(match answer.status {
                    DebitStatus::InsufficientFunds => ApiError::InsufficientFunds {
                        balance_cents: answer.balance_cents,
                        needed_cents: stake_cents,
                    },
                    _ => ApiError::Forbidden("the operator's wallet refused this stake"),
                })
            }
            // The wallet holds this debit's id with another body: nothing
            // of ours was applied under it, and a rollback naming that id
            // could undo someone else's transaction. Released, never sent
            // again, and a person must look.
            Err(NoAnswer::Conflict) => {
                tracing::error!(round = %round_id, transaction = %call.transaction_id, "the operator's wallet answered 409 to a debit: the round is released without a rollback; reconcile this transaction by hand");
                self.release(&round_id, Release::Refused).await?;
                Err(ApiError::WalletUnavailable)
            }
            Err(e) => {
                tracing::warn!(error = %e, round = %round_id, "no answer to a debit: rolling it back");
                self.release(&round_id, Release::NoAnswer).await?;
                self.wake.notify_one();
                Err(ApiError::WalletUnavailable)
            }
        }
    }

    async fn settle(&self, round_id: &str, balance_cents: u64) -> Result<SaleOutcome, ApiError> {
        let store = Arc::clone(&self.store);
        let now_ms = self.clock.now_ms();
        let id = round_id.to_owned();
        // With fair dealing the paid round is a purchase, dealt by the
        // round after it is cosigned, as a purchase of the sale desk is.
        let dealing = match &self.dealing {
            Some((dealer, _)) => Dealing::Beacon {
                round: dealer.round_for(now_ms),
            },
            None => Dealing::InOrder,
        };
        match blocking(move || store.settle_round(&id, balance_cents, now_ms, dealing)).await? {
            Settled::Bought { purchase, sold_out } => {
                crate::metrics::bought(purchase.stake_cents);
                if let Some((_, log_kick)) = &self.dealing {
                    // Its round comes soon: it must be on the record first.
                    log_kick.notify_one();
                }
                if sold_out {
                    self.book.ensure_supply();
                }
                Ok(SaleOutcome::Bought(purchase))
            }
            Settled::Sold { record, sold_out } => {
                crate::metrics::sold(record.ticket.stake_cents, record.ticket.prize_cents);
                if sold_out || record.ticket.prize_cents > 0 {
                    self.wake.notify_one();
                }
                if sold_out {
                    self.book.ensure_supply();
                }
                Ok(SaleOutcome::Sold(record))
            }
            // Released meanwhile as lost: its rollback is queued.
            Settled::Gone => {
                tracing::warn!(
                    round = round_id,
                    "a debit was answered after its round was released"
                );
                self.wake.notify_one();
                Err(ApiError::WalletUnavailable)
            }
        }
    }

    async fn release(&self, round_id: &str, why: Release) -> Result<(), ApiError> {
        let store = Arc::clone(&self.store);
        let now_ms = self.clock.now_ms();
        let id = round_id.to_owned();
        blocking(move || store.release_round(&id, why, now_ms)).await?;
        Ok(())
    }

    /// One pass of the outbox worker: releases lost rounds, then sends each
    /// queued call whose wait is over, up to `--wallet-outbox-concurrency`
    /// at once. Every due item is tried: a timeout or a refusal of one
    /// only lengthens that item's own wait.
    pub async fn drain(self: &Arc<Self>) -> Result<Drained, ApiError> {
        let mut drained = Drained::default();
        let store = Arc::clone(&self.store);
        let now_ms = self.clock.now_ms();
        let before_ms = now_ms.saturating_sub(self.stale_after().as_millis() as u64);
        drained.released_rounds =
            blocking(move || store.release_stale_rounds(before_ms, now_ms)).await?;
        if drained.released_rounds > 0 {
            tracing::warn!(
                rounds = drained.released_rounds,
                "lost rounds released, their debits rolled back"
            );
        }
        let store = Arc::clone(&self.store);
        let scan = self.config.outbox.scan;
        let queued = blocking(move || store.outbox_due(scan)).await?;
        let now_ms = self.clock.now_ms();
        let due: Vec<QueuedOutboxItem> = {
            let mut schedule = self.schedule.lock().unwrap_or_else(|e| e.into_inner());
            schedule.keep_only(queued.iter().map(|q| q.item.transaction_id.as_str()));
            queued
                .iter()
                .filter(|q| schedule.is_due(&q.item.transaction_id, now_ms))
                .cloned()
                .collect()
        };
        let permits = Arc::new(Semaphore::new(self.config.outbox.concurrency));
        let mut sends = tokio::task::JoinSet::new();
        for queued in due {
            let permit = Arc::clone(&permits)
                .acquire_owned()
                .await
                .map_err(|e| ApiError::internal(e.to_string()))?;
            let this = Arc::clone(self);
            sends.spawn(async move {
                let acknowledged = this.send_and_record(&queued).await;
                drop(permit);
                acknowledged
            });
        }
        let mut settled_ids = std::collections::HashSet::new();
        let mut failed_ids = std::collections::HashSet::new();
        while let Some(joined) = sends.join_next().await {
            match joined.map_err(|e| ApiError::internal(e.to_string()))?? {
                (id, Sent::Acknowledged) => {
                    settled_ids.insert(id);
                    drained.acknowledged += 1;
                }
                (id, Sent::GivenUp) => {
                    settled_ids.insert(id);
                    drained.given_up += 1;
                }
                (id, Sent::Failed) => {
                    failed_ids.insert(id);
                    drained.failed += 1;
                }
            }
        }
        let left: Vec<&QueuedOutboxItem> = queued
            .iter()
            .filter(|q| !settled_ids.contains(&q.item.transaction_id))
            .collect();
        let store = Arc::clone(&self.store);
        let given_up = blocking(move || store.outbox_given_up_count()).await?;
        *self.backlog.lock().unwrap_or_else(|e| e.into_inner()) = OutboxBacklog {
            given_up,
            items: left.len() as u64,
            oldest_queued_at_ms: left.iter().map(|q| q.created_at_ms).min(),
            most_attempts: left
                .iter()
                .map(|q| q.attempts + u32::from(failed_ids.contains(&q.item.transaction_id)))
                .max()
                .unwrap_or(0),
        };
        Ok(drained)
    }

    /// Sends one queued call and records the outcome in the store and the
    /// schedule: its transaction id, and whether it was acknowledged (else
    /// it waits for its next attempt).
    async fn send_and_record(&self, queued: &QueuedOutboxItem) -> Result<(String, Sent), ApiError> {
        let result = self.send(&queued.item).await;
        let store = Arc::clone(&self.store);
        let now_ms = self.clock.now_ms();
        let id = queued.item.transaction_id.clone();
        match result {
            Ok(balance_cents) => {
                let ack = id.clone();
                blocking(move || store.outbox_acknowledged(&ack, balance_cents, now_ms)).await?;
                self.schedule
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .done(&id);
                Ok((id, Sent::Acknowledged))
            }
            Err(NoAnswer::Conflict) => {
                tracing::error!(transaction = %id, "the operator's wallet answered 409: this call is given up and never sent again; reconcile it by hand");
                let text = NoAnswer::Conflict.to_string();
                let failed = id.clone();
                blocking(move || store.outbox_given_up(&failed, &text, now_ms)).await?;
                self.schedule
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .done(&id);
                Ok((id, Sent::GivenUp))
            }
            Err(e) => {
                let jitter = f64::from(u32::from_be_bytes(os_random::<4>().unwrap_or([0; 4])))
                    / (f64::from(u32::MAX) + 1.0);
                self.schedule
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .failed(&id, now_ms, queued.attempts, &self.backoff(), jitter);
                tracing::warn!(error = %e, transaction = %id, attempts = queued.attempts + 1, "the operator's wallet did not acknowledge; will retry");
                let text = e.to_string();
                let failed = id.clone();
                blocking(move || store.outbox_attempt_failed(&failed, &text)).await?;
                Ok((id, Sent::Failed))
            }
        }
    }

    /// Sends one queued call; the operator's balance once it answers ok.
    async fn send(&self, item: &OutboxItem) -> Result<u64, NoAnswer> {
        let answer = match item.kind {
            OutboxKind::Credit => {
                self.client
                    .credit(&CreditCall {
                        transaction_id: item.transaction_id.clone(),
                        round_id: item.round_id.clone(),
                        player_id: item.player_id.clone(),
                        amount_cents: item.amount_cents,
                    })
                    .await?
            }
            OutboxKind::Rollback => {
                self.client
                    .rollback(&RollbackCall {
                        transaction_id: item.transaction_id.clone(),
                        original_transaction_id: item
                            .original_transaction_id
                            .clone()
                            .unwrap_or_else(|| debit_id(&item.round_id)),
                        round_id: item.round_id.clone(),
                        player_id: item.player_id.clone(),
                        amount_cents: item.amount_cents,
                    })
                    .await?
            }
        };
        if answer.status != DebitStatus::Ok {
            return Err(NoAnswer::BadAnswer(format!(
                "status {:?} to a call that must be acknowledged",
                answer.status
            )));
        }
        Ok(answer.balance_cents)
    }

    /// The outbox worker: a pass every half `--wallet-retry-ms` (sooner
    /// when a sale, or with `--beacon` a deal, queued something; each item
    /// waits its own backoff), each in a task of its own so that a panic
    /// ends that pass only. Runs until aborted.
    pub async fn run_outbox(self: Arc<Self>) {
        let mut deals = self.dealing.as_ref().map(|(dealer, _)| dealer.deals());
        loop {
            let this = Arc::clone(&self);
            match tokio::spawn(async move { this.drain().await }).await {
                Ok(Ok(_)) => {}
                Ok(Err(e)) => tracing::error!(error = %e, "an outbox pass failed"),
                Err(e) => {
                    let restarts = self.restarts.fetch_add(1, Ordering::SeqCst) + 1;
                    tracing::error!(error = %e, restarts, "an outbox pass panicked; the worker goes on");
                }
            }
            let dealt = async {
                match deals.as_mut() {
                    Some(deals) => deals.changed().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = tokio::time::sleep(self.config.retry / 2) => {}
                _ = self.wake.notified() => {}
                // A deal may have queued prize credits.
                Ok(()) = dealt => {}
            }
        }
    }

    /// Outbox passes that panicked.
    pub fn restarts(&self) -> u64 {
        self.restarts.load(Ordering::SeqCst)
    }
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> StoreResult<T> + Send + 'static,
) -> Result<T, ApiError> {
    Ok(tokio::task::spawn_blocking(f).await??)
}
