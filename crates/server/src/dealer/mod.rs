//! Fair dealing on the server (docs/PROTOCOL.md §10). With `--beacon`, the
//! sale desk records purchases that name the first beacon round published
//! after the second during which the witnesses will have cosigned them
//! (`--deal-lead-ms` after the purchase); the sequencer logs them; the
//! dealer, every `--deal-poll-ms`, settles which round deals each logged
//! purchase once a quorum of witnesses cosigned it (`proven`: the one it
//! names, or a later one if they cosigned it too late), fetches those
//! rounds once they are out, verifies them against the pinned key, and
//! deals (`store::deal`) in one transaction. Nothing is dealt before its
//! witnesses proved it on the record. Several servers on one database may
//! deal at once: the purchases are locked, so each is dealt once, in its
//! block's order.
//!
//! A sale request waits for its deal up to `--deal-wait-ms`, then answers
//! `DEAL_PENDING`; the same key answers the sale once dealt. A beacon that
//! is down only delays deals: no purchase is ever dealt from another round.

mod beacon_client;
pub mod known_schedule;
mod proven;
mod waiting;

pub use beacon_client::{BeaconClient, BeaconClientError};

use crate::clock::Clock;
use crate::config::DealingConfig;
use crate::error::ApiError;
use crate::public_log::LogIdentity;
use crate::store::deal::{Dealt, Randomness, Rounds, Trees};
use crate::store::{PurchaseRecord, SaleRecord, Store};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// Purchases dealt in one transaction at most.
const DEAL_BATCH: u32 = 4_096;
/// Rounds looked up per pass at most.
const ROUNDS_PER_PASS: u32 = 64;
/// How long a starting server waits for its beacon to answer.
pub const START_PATIENCE: Duration = Duration::from_secs(30);

/// Every relay of the beacon, the announced one first.
fn relays(config: &DealingConfig) -> Vec<String> {
    std::iter::once(&config.beacon_url)
        .chain(&config.beacon_relays)
        .cloned()
        .collect()
}

pub struct Dealer {
    beacon: BeaconClient,
    /// The pinned key, which the kept schedule is filed under.
    beacon_key: [u8; eldorado_engine::deal::BEACON_KEY_LEN],
    /// What `/api/config` says of the beacon; its `lead_ms` is the lead.
    announcement: eldorado_api::beacon::Dealing,
    wait: Duration,
    poll: Duration,
    /// Counts the purchases this server dealt (the seamless wallet's
    /// outbox then sends the prize credits they queued).
    dealt: watch::Sender<u64>,
    /// The sale requests waiting here for their deals.
    waiting: waiting::Waiting,
}

impl Dealer {
    /// Connects to the beacon and checks its key against the pinned one.
    pub async fn connect(config: &DealingConfig) -> Result<Dealer, BeaconClientError> {
        let beacon =
            BeaconClient::connect(&relays(config), &config.beacon_key, config.beacon_timeout)
                .await?;
        Ok(Dealer::with_beacon(config, beacon))
    }

    /// A dealer whose beacon has not answered yet, on the schedule this
    /// server last read from it ([`known_schedule`]).
    pub fn on_known_schedule(
        config: &DealingConfig,
        schedule: eldorado_engine::deal::BeaconClock,
    ) -> Result<Dealer, BeaconClientError> {
        let beacon = BeaconClient::with_schedule(
            &relays(config),
            &config.beacon_key,
            config.beacon_timeout,
            schedule,
        )?;
        Ok(Dealer::with_beacon(config, beacon))
    }

    fn with_beacon(config: &DealingConfig, beacon: BeaconClient) -> Dealer {
        let lead_ms = u64::try_from(config.lead.as_millis()).unwrap_or(u64::MAX);
        let schedule = beacon.schedule();
        let public_key = hex::encode(config.beacon_key);
        Dealer {
            announcement: eldorado_api::beacon::Dealing {
                beacon_url: config.beacon_url.clone(),
                demo: !eldorado_api::beacon::is_public_network(&public_key),
                public_key,
                genesis_time_ms: schedule.genesis_ms,
                period_ms: schedule.period_ms,
                lead_ms,
            },
            beacon,
            beacon_key: config.beacon_key,
            wait: config.wait,
            poll: config.poll,
            dealt: watch::channel(0).0,
            waiting: waiting::Waiting::default(),
        }
    }

    /// What `/api/config` says of the beacon.
    pub fn announcement(&self) -> &eldorado_api::beacon::Dealing {
        &self.announcement
    }

    /// [`Dealer::connect`]; while the beacon does not answer, a server
    /// that read its schedule before (`data_dir`'s [`known_schedule`])
    /// starts on it at once, and one that never did asks again every half
    /// second for up to [`START_PATIENCE`] (the beacon may be starting
    /// beside it). A beacon that answers with another key or scheme is
    /// refused at once.
    pub async fn connect_patiently(
        config: &DealingConfig,
        data_dir: &std::path::Path,
    ) -> Result<Dealer, BeaconClientError> {
        let deadline = tokio::time::Instant::now() + START_PATIENCE;
        let known = known_schedule::load(data_dir, &config.beacon_key);
        loop {
            match Dealer::connect(config).await {
                Err(e @ (BeaconClientError::Http(_) | BeaconClientError::Status(_))) => {
                    if let Some(schedule) = known {
                        tracing::warn!(
                            error = %e,
                            "the beacon does not answer: starting on its schedule as last read \
                             ({}); purchases are dealt once it answers",
                            known_schedule::FILE
                        );
                        return Dealer::on_known_schedule(config, schedule);
                    }
                    if tokio::time::Instant::now() >= deadline {
                        return Err(e);
                    }
                    tracing::warn!(error = %e, "the beacon does not answer yet; asking again");
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
                answer => return answer,
            }
        }
    }

    /// Keeps the beacon's schedule in `data_dir` for a start while it is
    /// down; a failure to write it only loses that.
    pub fn keep_schedule(&self, data_dir: &std::path::Path) {
        let schedule = self.beacon.schedule();
        if let Err(e) = known_schedule::save(data_dir, &self.beacon_key, schedule) {
            tracing::warn!(error = %e, "the beacon's schedule could not be kept");
        }
    }

    /// The round that deals a purchase made at `now_ms`: the first one
    /// published once the second during which the witnesses will have
    /// cosigned it (by `now_ms` + the lead) is over. Cosignatures are dated
    /// to the second: a cosignature of second `t` proves the purchase
    /// older than `(t + 1) × 1000` ms, and no sooner.
    pub fn round_for(&self, now_ms: u64) -> u64 {
        let cosigned_by = now_ms.saturating_add(self.announcement.lead_ms);
        let second_over = (cosigned_by / 1000).saturating_add(1).saturating_mul(1000);
        // The first round published at `second_over` or later.
        self.beacon.schedule().first_round_after(second_over - 1)
    }

    /// Deals whatever can be dealt, every `--deal-poll-ms`, for good.
    pub async fn run(
        self: Arc<Self>,
        store: Arc<dyn Store>,
        clock: Arc<dyn Clock>,
        log: LogIdentity,
        log_kick: Arc<tokio::sync::Notify>,
    ) {
        let log = Arc::new(log);
        let mut every = tokio::time::interval(self.poll);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut trees = Trees::new();
        let mut beacon_down = false;
        loop {
            every.tick().await;
            let pass = self
                .pass(&store, &*clock, &log, trees, &mut beacon_down)
                .await;
            trees = pass.0;
            match pass.1 {
                Ok(dealt) if dealt.is_empty() => {}
                Ok(dealt) => {
                    tracing::debug!(dealt = dealt.len(), "purchases dealt");
                    self.waiting.dealt(dealt.iter().map(|d| d.purchase_id));
                    self.dealt.send_modify(|n| *n += dealt.len() as u64);
                    // Their buyers wait for the sales' records next.
                    log_kick.notify_one();
                }
                Err(e) => tracing::error!(error = %e, "the dealer failed; retrying"),
            }
        }
    }

    async fn pass(
        &self,
        store: &Arc<dyn Store>,
        clock: &dyn Clock,
        log: &Arc<LogIdentity>,
        trees: Trees,
        beacon_down: &mut bool,
    ) -> (Trees, Result<Vec<Dealt>, String>) {
        let schedule = self.beacon.schedule();
        let dealing = {
            let (store, log) = (Arc::clone(store), Arc::clone(log));
            tokio::task::spawn_blocking(move || {
                let undealt = store.undealt_logged(DEAL_BATCH)?;
                proven::dealing_rounds(&*store, &log, &schedule, &undealt)
            })
            .await
        };
        let dealing: Rounds = match dealing {
            Ok(Ok(dealing)) => dealing,
            Ok(Err(e)) => return (trees, Err(e.to_string())),
            Err(e) => return (trees, Err(e.to_string())),
        };
        let mut rounds: Vec<u64> = dealing.values().copied().collect();
        rounds.sort_unstable();
        rounds.dedup();
        rounds.truncate(ROUNDS_PER_PASS as usize);
        let now_ms = clock.now_ms();
        let mut randomness = Randomness::new();
        for round in rounds {
            if schedule.time_of(round) > now_ms {
                break;
            }
            match self.beacon.round(round).await {
                Ok(Some(value)) => {
                    randomness.insert(round, value);
                }
                // Due by the clock but not served yet: the next pass.
                Ok(None) => break,
                Err(e) => {
                    if !std::mem::replace(beacon_down, true) {
                        tracing::error!(error = %e, round, "the beacon fails: purchases wait for it");
                    }
                    break;
                }
            }
        }
        if randomness.is_empty() {
            return (trees, Ok(Vec::new()));
        }
        if std::mem::replace(beacon_down, false) {
            tracing::info!("the beacon answers again: dealing");
        }
        let store = Arc::clone(store);
        let dealt = tokio::task::spawn_blocking(move || {
            let mut trees = trees;
            let dealt = store.deal(&dealing, &randomness, &mut trees, DEAL_BATCH, now_ms);
            (trees, dealt)
        })
        .await;
        match dealt {
            Ok((trees, Ok(dealt))) => {
                crate::metrics::dealt(&dealt);
                (trees, Ok(dealt))
            }
            Ok((_, Err(e))) => (Trees::new(), Err(e.to_string())),
            Err(e) => (Trees::new(), Err(e.to_string())),
        }
    }

    /// Changes whenever this server deals: the seamless wallet's outbox
    /// then sends the prize credits the deals queued.
    pub fn deals(&self) -> watch::Receiver<u64> {
        self.dealt.subscribe()
    }

    /// The sale of `purchase` once dealt, waiting up to `--deal-wait-ms`;
    /// `DEAL_PENDING` after that (the purchase stands and is dealt later).
    /// With the sale comes the purchase as dealt, with its evidence. The
    /// store is looked at when this server deals the purchase, and from two
    /// polls after its round is out (no server can deal it sooner) every
    /// two polls, in case another server on the database dealt it; at once
    /// if the round is out already (a retry).
    pub async fn dealt_sale(
        &self,
        store: &Arc<dyn Store>,
        clock: &dyn Clock,
        purchase: &PurchaseRecord,
    ) -> Result<(SaleRecord, PurchaseRecord), ApiError> {
        let start = tokio::time::Instant::now();
        let deadline = start + self.wait;
        // Entered before the first look: a deal committed after that look
        // still wakes it.
        let mut entry = self.waiting.enter(purchase.purchase_id);
        let round_out_ms = self
            .beacon
            .schedule()
            .time_of(purchase.round)
            .saturating_sub(clock.now_ms());
        // By then this server has dealt it and woken this request, unless
        // another server dealt it first.
        let mut look_at = match round_out_ms {
            0 => start,
            ms => start + Duration::from_millis(ms) + self.poll * 2,
        };
        loop {
            tokio::select! {
                () = entry.woken() => {}
                () = tokio::time::sleep_until(look_at.min(deadline)) => {}
            }
            let found = {
                let store = Arc::clone(store);
                let (purchase_id, player) = (purchase.purchase_id, purchase.player_id.clone());
                tokio::task::spawn_blocking(move || -> crate::store::StoreResult<_> {
                    let Some(dealt) = store.purchase(purchase_id)? else {
                        return Ok(None);
                    };
                    match dealt.sale_id {
                        Some(sale_id) => Ok(store.sale(&player, sale_id)?.map(|s| (s, dealt))),
                        None => Ok(None),
                    }
                })
                .await??
            };
            if let Some(sale) = found {
                return Ok(sale);
            }
            let now = tokio::time::Instant::now();
            if now >= deadline {
                return Err(ApiError::DealPending);
            }
            look_at = now + self.poll * 2;
        }
    }
}
