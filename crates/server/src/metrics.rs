//! `GET /metrics`: the server's figures in the Prometheus text format, for
//! the operator's monitoring (docs/DEPLOYMENT.md, "Metrics"). Counters and
//! histograms are recorded where things happen (the `metrics` crate's
//! macros); gauges of state (tickets left, backlogs, the log's size) are
//! read when scraped. Nothing here tells anyone which unsold ticket wins:
//! tickets left are counts per stake and money line, never prizes.

use crate::state::AppState;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use std::sync::OnceLock;
use std::time::Duration;

pub const SALES: &str = "eldorado_sales_total";
pub const SALE_SECONDS: &str = "eldorado_sale_seconds";
pub const SALE_BATCH: &str = "eldorado_sale_batch_size";
pub const STAKES: &str = "eldorado_stakes_cents_total";
pub const PRIZES: &str = "eldorado_prizes_cents_total";
pub const ERRORS: &str = "eldorado_http_errors_total";
pub const BLOCK_SECONDS: &str = "eldorado_block_generation_seconds";
pub const WALLET_CALLS: &str = "eldorado_wallet_calls_total";
pub const WALLET_SECONDS: &str = "eldorado_wallet_call_seconds";
pub const POOL_WAIT: &str = "eldorado_db_pool_wait_seconds";
pub const PURCHASES: &str = "eldorado_purchases_total";
pub const DEALS: &str = "eldorado_deals_total";

const LATENCY_BUCKETS: [f64; 12] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
];
const BATCH_BUCKETS: [f64; 10] = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0];
const GENERATION_BUCKETS: [f64; 8] = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0];

static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();

/// The process's recorder, installed on first use. One per process: every
/// `AppState` of a process (tests start several) records into it.
pub fn handle() -> &'static PrometheusHandle {
    HANDLE.get_or_init(|| {
        let recorder = PrometheusBuilder::new()
            .set_buckets_for_metric(Matcher::Full(SALE_SECONDS.into()), &LATENCY_BUCKETS)
            .and_then(|b| {
                b.set_buckets_for_metric(Matcher::Full(WALLET_SECONDS.into()), &LATENCY_BUCKETS)
            })
            .and_then(|b| {
                b.set_buckets_for_metric(Matcher::Full(POOL_WAIT.into()), &LATENCY_BUCKETS)
            })
            .and_then(|b| {
                b.set_buckets_for_metric(Matcher::Full(SALE_BATCH.into()), &BATCH_BUCKETS)
            })
            .and_then(|b| {
                b.set_buckets_for_metric(Matcher::Full(BLOCK_SECONDS.into()), &GENERATION_BUCKETS)
            })
            .map(PrometheusBuilder::build_recorder)
            .unwrap_or_else(|e| {
                tracing::error!(error = %e, "metrics buckets refused; summaries instead");
                PrometheusBuilder::new().build_recorder()
            });
        let handle = recorder.handle();
        if metrics::set_global_recorder(recorder).is_err() {
            tracing::warn!("another metrics recorder is installed: /metrics shows gauges only");
        }
        handle
    })
}

/// Records how a sale request ended: `outcome` is `sold` or the error code.
pub fn sale(outcome: &'static str, stake: &str, money: &'static str, took: Duration) {
    metrics::counter!(SALES, "outcome" => outcome, "stake_cents" => stake.to_owned(), "money" => money)
        .increment(1);
    metrics::histogram!(SALE_SECONDS, "stake_cents" => stake.to_owned()).record(took);
}

/// Money moved by a new sale (stake in, prize out; a replay moves none).
pub fn sold(stake_cents: u64, prize_cents: u64) {
    metrics::counter!(STAKES).increment(stake_cents);
    metrics::counter!(PRIZES).increment(prize_cents);
}

/// A ticket bought to be dealt by the beacon: its stake is in.
pub fn bought(stake_cents: u64) {
    metrics::counter!(PURCHASES).increment(1);
    metrics::counter!(STAKES).increment(stake_cents);
}

/// Whether this server runs the public log's sequencer on its interval.
pub fn sequencing_lease(held: bool) {
    metrics::gauge!("eldorado_sequencing_lease_held").set(f64::from(u8::from(held)));
}

/// Purchases dealt: their prizes are out.
pub fn dealt(deals: &[crate::store::deal::Dealt]) {
    metrics::counter!(DEALS).increment(deals.len() as u64);
    metrics::counter!(PRIZES).increment(deals.iter().map(|d| d.prize_cents).sum());
}

/// The whole text: what was recorded, then the state read now (blocking).
pub fn render(state: &AppState) -> String {
    let handle = handle();
    record_state(state);
    handle.render()
}

fn record_state(state: &AppState) {
    let now_ms = state.clock.now_ms();
    match state.store.blocks() {
        Ok(blocks) => {
            let mut left = std::collections::BTreeMap::<(u64, &'static str), u64>::new();
            for block in blocks.iter().filter(|b| !b.status.is_finished()) {
                let tickets = u64::from(block.signed.commitment.tickets);
                *left
                    .entry((block.stake_cents(), block.money().as_str()))
                    .or_default() += tickets.saturating_sub(u64::from(block.sold));
            }
            for ((stake, money), count) in left {
                metrics::gauge!("eldorado_tickets_left", "stake_cents" => stake.to_string(), "money" => money)
                    .set(count as f64);
            }
        }
        Err(e) => tracing::warn!(error = %e, "metrics: reading the blocks"),
    }
    metrics::gauge!("eldorado_sessions_cached").set(state.sessions.cached() as f64);
    metrics::gauge!("eldorado_sale_writer_up").set(f64::from(u8::from(state.desk.is_running())));
    metrics::gauge!("eldorado_block_generator_ok")
        .set(f64::from(u8::from(state.book.generator_ok())));
    metrics::gauge!("eldorado_generation_lease_held")
        .set(f64::from(u8::from(state.book.holds_lease())));
    if let Some(wallet) = &state.wallet {
        let backlog = wallet.backlog();
        metrics::gauge!("eldorado_wallet_outbox_backlog").set(backlog.items as f64);
        metrics::gauge!("eldorado_wallet_outbox_given_up").set(backlog.given_up as f64);
        let age_ms = backlog
            .oldest_queued_at_ms
            .map_or(0, |at| now_ms.saturating_sub(at));
        metrics::gauge!("eldorado_wallet_outbox_oldest_age_seconds").set(age_ms as f64 / 1000.0);
        metrics::gauge!("eldorado_wallet_outbox_most_attempts").set(backlog.most_attempts as f64);
    }
    if let Some((in_use, idle)) = state.store.pool_state() {
        metrics::gauge!("eldorado_db_pool_connections", "state" => "in_use").set(f64::from(in_use));
        metrics::gauge!("eldorado_db_pool_connections", "state" => "idle").set(f64::from(idle));
    }
    match state.store.log_checkpoint(0) {
        Ok(newest) => metrics::gauge!("eldorado_log_size").set(newest.map_or(0, |c| c.size) as f64),
        Err(e) => tracing::warn!(error = %e, "metrics: reading the log"),
    }
    match state.store.log_checkpoint(state.log.quorum()) {
        Ok(cosigned) => {
            metrics::gauge!("eldorado_log_cosigned_size").set(cosigned.map_or(0, |c| c.size) as f64)
        }
        Err(e) => tracing::warn!(error = %e, "metrics: reading the log"),
    }
}
