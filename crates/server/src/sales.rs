//! The sale desk: every sale goes through ONE writer thread that drains a
//! channel and commits whatever has queued up as one durable transaction
//! (group commit). The fsync is paid once per batch, not once per sale, and
//! one writer means no two sales can race for a ticket or a balance.

use crate::blocks::BlockBook;
use crate::clock::Clock;
use crate::error::ApiError;
use crate::store::{SaleOutcome, SaleRequest, Store};
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
}

impl SaleDesk {
    /// Starts the writer thread; it ends when the last desk is dropped.
    pub fn start(
        store: Arc<dyn Store>,
        book: Arc<BlockBook>,
        clock: Arc<dyn Clock>,
        max_batch: usize,
    ) -> SaleDesk {
        let (queue, jobs) = mpsc::channel(QUEUE);
        std::thread::Builder::new()
            .name("sale-writer".into())
            .spawn(move || writer(jobs, store, book, clock, max_batch))
            .expect("the sale writer thread starts");
        SaleDesk { queue }
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

fn writer(
    mut jobs: mpsc::Receiver<Job>,
    store: Arc<dyn Store>,
    book: Arc<BlockBook>,
    clock: Arc<dyn Clock>,
    max_batch: usize,
) {
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
        // One time for the whole batch: its sales commit together.
        let now_ms = clock.now_ms();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            store.sell_batch(&requests, now_ms)
        }));
        let mut sold_out = false;
        match result {
            Ok(Ok(outcomes)) => {
                for (job, outcome) in batch.drain(..).zip(outcomes) {
                    if let SaleOutcome::Sold(r) = &outcome {
                        let new_block = sold_from.insert(r.block);
                        sold_out |= r.sold_out_block() || new_block;
                    }
                    sold_out |= outcome == SaleOutcome::SoldOut;
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
        if sold_out {
            book.ensure_supply();
        }
    }
}
