//! The sale desk: every sale goes through ONE writer thread that drains a
//! channel and commits whatever has queued up as one durable transaction
//! (group commit). The fsync is paid once per batch, not once per sale, and
//! one writer means no two sales can race for a ticket or a balance.
//!
//! The writer is supervised: a panic anywhere in its loop is logged and the
//! loop starts again on the same queue, so a dead writer never leaves the
//! server unable to sell. Sales of the batch that panicked are answered
//! `INTERNAL` (none of them committed); later ones are sold as usual.

use crate::blocks::BlockBook;
use crate::clock::Clock;
use crate::dealer::Dealer;
use crate::error::ApiError;
use crate::store::{SaleOutcome, SaleRequest, Store};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot};

/// Sales waiting for the writer before callers wait to queue.
const QUEUE: usize = 4_096;

struct Job {
    request: SaleRequest,
    reply: oneshot::Sender<Result<SaleOutcome, ApiError>>,
}

#[derive(Clone)]
pub struct SaleDesk {
    queue: mpsc::Sender<Job>,
    watch: Arc<Watch>,
}

/// What the supervisor tells the health check.
#[derive(Default)]
struct Watch {
    running: AtomicBool,
    restarts: AtomicU64,
}

impl SaleDesk {
    /// Starts the writer thread; it ends when the last desk is dropped.
    pub fn start(
        store: Arc<dyn Store>,
        book: Arc<BlockBook>,
        clock: Arc<dyn Clock>,
        max_batch: usize,
        dealer: Option<Arc<Dealer>>,
        log_kick: Arc<tokio::sync::Notify>,
    ) -> SaleDesk {
        let (queue, mut jobs) = mpsc::channel(QUEUE);
        let watch = Arc::new(Watch::default());
        watch.running.store(true, Ordering::SeqCst);
        let supervisor = Arc::clone(&watch);
        std::thread::Builder::new()
            .name("sale-writer".into())
            .spawn(move || {
                loop {
                    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        let desk = Writer {
                            store: &store,
                            book: &book,
                            clock: &*clock,
                            max_batch,
                            dealer: dealer.as_deref(),
                            log_kick: &log_kick,
                        };
                        desk.run(&mut jobs)
                    }));
                    match run {
                        // Every desk was dropped: the server is stopping.
                        Ok(()) => break,
                        Err(_) => {
                            let restarts = supervisor.restarts.fetch_add(1, Ordering::SeqCst) + 1;
                            tracing::error!(restarts, "the sale writer panicked; restarting it");
                        }
                    }
                }
                supervisor.running.store(false, Ordering::SeqCst);
            })
            .expect("the sale writer thread starts");
        SaleDesk { queue, watch }
    }

    /// The writer loop is running (restarted after any panic).
    pub fn is_running(&self) -> bool {
        self.watch.running.load(Ordering::SeqCst)
    }

    /// Times the writer panicked and was restarted.
    pub fn restarts(&self) -> u64 {
        self.watch.restarts.load(Ordering::SeqCst)
    }

    pub async fn sell(&self, request: SaleRequest) -> Result<SaleOutcome, ApiError> {
        let (reply, answer) = oneshot::channel();
        self.queue
            .send(Job { request, reply })
            .await
            .map_err(|_| ApiError::internal("the sale writer has stopped"))?;
        answer
            .await
            .map_err(|_| ApiError::internal("the sale writer dropped a sale"))?
    }
}

/// What the writer thread holds.
struct Writer<'a> {
    store: &'a Arc<dyn Store>,
    book: &'a Arc<BlockBook>,
    clock: &'a dyn Clock,
    max_batch: usize,
    /// With a beacon, sales are purchases its rounds deal.
    dealer: Option<&'a Dealer>,
    log_kick: &'a tokio::sync::Notify,
}

impl Writer<'_> {
    fn run(&self, jobs: &mut mpsc::Receiver<Job>) {
        let Writer {
            store,
            book,
            clock,
            max_batch,
            dealer,
            log_kick,
        } = *self;
        let mut batch = Vec::with_capacity(max_batch);
        // Blocks this desk has sold from: a new one means a switch-over (also
        // one made outside the desk), so the supply must be topped up. A set,
        // not the last block per stake: play and real money sell side by side
        // from two blocks of one stake.
        let mut sold_from = std::collections::HashSet::new();
        while let Some(job) = jobs.blocking_recv() {
            batch.push(job);
            while batch.len() < max_batch {
                match jobs.try_recv() {
                    Ok(job) => batch.push(job),
                    Err(_) => break,
                }
            }
            let requests: Vec<SaleRequest> = batch.iter().map(|j| j.request.clone()).collect();
            metrics::histogram!(crate::metrics::SALE_BATCH).record(requests.len() as f64);
            // One time for the whole batch: its sales commit together.
            let now_ms = clock.now_ms();
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match dealer {
                Some(dealer) => store.buy_batch(&requests, now_ms, dealer.round_for(now_ms)),
                None => store.sell_batch(&requests, now_ms),
            }));
            let mut bought = false;
            let mut sold_out = false;
            match result {
                Ok(Ok(outcomes)) => {
                    for (job, outcome) in batch.drain(..).zip(outcomes) {
                        if let SaleOutcome::Sold(r) = &outcome {
                            crate::metrics::sold(r.ticket.stake_cents, r.ticket.prize_cents);
                            let new_block = sold_from.insert(r.block);
                            sold_out |= r.sold_out_block() || new_block;
                        }
                        // A purchase of this batch (a replayed one is older).
                        if let SaleOutcome::Bought(p) = &outcome {
                            if p.bought_at_ms == now_ms {
                                crate::metrics::bought(p.stake_cents);
                                sold_out |= sold_from.insert(p.block);
                                bought = true;
                            }
                        }
                        sold_out |= outcome == SaleOutcome::SoldOut;
                        // A reply nobody waits for (the client left) changes nothing.
                        let _ = job.reply.send(Ok(outcome));
                    }
                }
                Ok(Err(e)) => {
                    tracing::error!(error = %e, sales = batch.len(), "a sale batch was rolled back");
                    for job in batch.drain(..) {
                        let _ = job.reply.send(Err(ApiError::internal(&e)));
                    }
                }
                Err(_) => {
                    tracing::error!(
                        sales = batch.len(),
                        "a sale batch panicked and was rolled back"
                    );
                    for job in batch.drain(..) {
                        let _ = job
                            .reply
                            .send(Err(ApiError::internal("sale batch panicked")));
                    }
                }
            }
            if bought {
                // Its round comes soon: it must be on the record first.
                log_kick.notify_one();
            }
            if sold_out {
                book.ensure_supply();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    //! The desk over a store that fails on demand, and a clock that panics
    //! once in the writer loop itself (outside any batch).
    use super::*;
    use crate::blocks::Seeding;
    use crate::clock::ManualClock;
    use crate::store::failing::Fault;
    use crate::store::sqlite::SqliteStore;
    use crate::store::*;
    use eldorado_engine::Stake;

    /// Panics once when armed: a fault in the writer loop, not in a batch.
    #[derive(Default)]
    struct ArmedClock(AtomicBool);

    impl Clock for ArmedClock {
        fn now_ms(&self) -> u64 {
            if self.0.swap(false, Ordering::SeqCst) {
                panic!("the clock broke");
            }
            1_700_000_000_000
        }
    }

    fn request() -> SaleRequest {
        SaleRequest {
            player_id: "ann".to_owned(),
            stake: Stake::from_cents(50).unwrap(),
            idempotency_key: "desk-fault-1".to_owned(),
            client_nonce: eldorado_engine::ClientNonce([0; 16]),
        }
    }

    #[tokio::test]
    async fn the_desk_survives_a_failing_store_and_a_panicking_writer() {
        let dir = tempfile::tempdir().unwrap();
        let clock = Arc::new(ManualClock::new(1_700_000_000_000));
        let store = Arc::new(SqliteStore::open(&dir.path().join("db"), clock).unwrap());
        // A player who cannot pay: a working store answers without any block.
        store.create_player("ann", PlayerKind::Demo, 10).unwrap();
        let key = Arc::new(eldorado_engine::commit::signing_key_from_secret([7; 32]));
        let book = BlockBook::new(
            store.clone(),
            key,
            Seeding::Demo(1),
            vec![eldorado_engine::Money::Play],
            1,
        )
        .unwrap();
        let armed = Arc::new(ArmedClock::default());
        let desk = SaleDesk::start(
            store.clone(),
            book,
            armed.clone(),
            8,
            None,
            Arc::new(tokio::sync::Notify::new()),
        );
        let refused = SaleOutcome::InsufficientFunds { balance_cents: 10 };

        assert_eq!(desk.sell(request()).await.unwrap(), refused);
        // Every batch starts with its first sale's savepoint.
        for fault in [Fault::Fail, Fault::Panic] {
            store.faults().arm("SAVEPOINT", Some(fault));
            let failed = desk.sell(request()).await.unwrap_err();
            assert_eq!(failed.code(), eldorado_api::ErrorCode::Internal);
            store.faults().arm("SAVEPOINT", None);
            assert_eq!(desk.sell(request()).await.unwrap(), refused);
        }
        assert_eq!(desk.restarts(), 0);

        armed.0.store(true, Ordering::SeqCst);
        let dropped = desk.sell(request()).await.unwrap_err();
        assert_eq!(dropped.code(), eldorado_api::ErrorCode::Internal);
        // The restarted writer sells again (and counted its restart first).
        assert_eq!(desk.sell(request()).await.unwrap(), refused);
        assert_eq!(desk.restarts(), 1);
        assert!(desk.is_running());
    }
}
