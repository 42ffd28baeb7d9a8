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
//! transaction id every `--wallet-retry-ms` until the operator answers ok,
//! across restarts; it also releases rounds that a crash or a lost request
//! left reserved.

use crate::blocks::BlockBook;
use crate::clock::Clock;
use crate::config::WalletConfig;
use crate::error::ApiError;
use crate::keys::os_random;
use crate::store::seamless::{debit_id, OutboxItem, OutboxKind, Release, ReserveOutcome, Settled};
use crate::store::{SaleOutcome, SaleRequest, Store, StoreResult};
use crate::wallet_client::{NoAnswer, WalletClient};
use eldorado_api::seamless::{CreditCall, DebitCall, DebitStatus, RollbackCall};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;

/// Outbox calls sent per pass.
const OUTBOX_PASS: u32 = 256;

pub struct SeamlessWallet {
    client: WalletClient,
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    book: Arc<BlockBook>,
    config: WalletConfig,
    /// Wakes the outbox worker before its period: something was queued.
    wake: Notify,
    restarts: AtomicU64,
}

/// What one outbox pass did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Drained {
    pub released_rounds: u64,
    pub acknowledged: u64,
    pub failed: u64,
}

impl SeamlessWallet {
    pub fn new(
        config: WalletConfig,
        store: Arc<dyn Store>,
        clock: Arc<dyn Clock>,
        book: Arc<BlockBook>,
    ) -> SeamlessWallet {
        SeamlessWallet {
            client: WalletClient::new(&config),
            store,
            clock,
            book,
            config,
            wake: Notify::new(),
            restarts: AtomicU64::new(0),
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
        match blocking(move || store.settle_round(&id, balance_cents, now_ms)).await? {
            Settled::Sold { record, sold_out } => {
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

    /// One pass of the outbox worker: releases lost rounds, then sends every
    /// queued call once. Stops early when the wallet cannot be reached (the
    /// rest waits for the next pass); a call the wallet answers badly does
    /// not hold up the others.
    pub async fn drain(&self) -> Result<Drained, ApiError> {
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
        let due = blocking(move || store.outbox_due(OUTBOX_PASS)).await?;
        for item in due {
            let result = self.send(&item).await;
            let store = Arc::clone(&self.store);
            let now_ms = self.clock.now_ms();
            let id = item.transaction_id.clone();
            match result {
                Ok(balance_cents) => {
                    blocking(move || store.outbox_acknowledged(&id, balance_cents, now_ms)).await?;
                    drained.acknowledged += 1;
                }
                Err(e) => {
                    tracing::warn!(error = %e, transaction = %item.transaction_id, "the operator's wallet did not acknowledge; will retry");
                    let unreachable = matches!(e, NoAnswer::Timeout(_) | NoAnswer::Transport(_));
                    let text = e.to_string();
                    blocking(move || store.outbox_attempt_failed(&id, &text)).await?;
                    drained.failed += 1;
                    if unreachable {
                        break;
                    }
                }
            }
        }
        Ok(drained)
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

    /// The outbox worker: a pass every `--wallet-retry-ms` (sooner when a
    /// sale queued something), each in a task of its own so that a panic
    /// ends that pass only. Runs until aborted.
    pub async fn run_outbox(self: Arc<Self>) {
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
            tokio::select! {
                _ = tokio::time::sleep(self.config.retry) => {}
                _ = self.wake.notified() => {}
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
