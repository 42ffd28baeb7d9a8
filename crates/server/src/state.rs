//! What every request shares: the store, the clock, the operator key, the
//! block book, the sale desk and the sessions.

use crate::blocks::{BlockBook, BlockError, Seeding};
use crate::clock::{Clock, SystemClock};
use crate::config::Config;
use crate::dealer::Dealer;
use crate::error::ApiError;
use crate::exports::Exports;
use crate::keys::{self, KeyError};
use crate::public_log::{LogIdentity, Witnessed};
use crate::rate_limit::RateLimiter;
use crate::sales::SaleDesk;
use crate::seamless_wallet::SeamlessWallet;
use crate::seed_policy::{self, SeedPolicyError};
use crate::sessions::Sessions;
use crate::store::{Lease, LeaseKind, SaleRecord, Store, StoreError};
use eldorado_engine::commit::public_key_of;
use eldorado_engine::{PublicKeyBytes, Sale, SignedCommitment, SignedSale, SigningKey};
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, RwLock};

pub use crate::database::DATABASE_FILE;

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("data directory {path}: {source}")]
    DataDir {
        path: String,
        source: std::io::Error,
    },
    #[error(transparent)]
    Key(#[from] KeyError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Blocks(#[from] BlockError),
    #[error(transparent)]
    SeedPolicy(#[from] SeedPolicyError),
    #[error("startup task failed: {0}")]
    Task(String),
    #[error("the page (--web): {0}")]
    Page(#[from] crate::built_page::PageError),
    #[error(transparent)]
    Log(#[from] crate::public_log::IdentityError),
    #[error(transparent)]
    Witnessed(#[from] crate::public_log::WitnessedError),
    #[error("--beacon: {0}")]
    Beacon(#[from] crate::dealer::BeaconClientError),
    #[error(
        "{0} purchases of this database wait for their deal by the beacon: start with --beacon"
    )]
    Undealt(u64),
}

#[derive(Clone)]
pub struct AppState(Arc<Inner>);

pub struct Inner {
    pub config: Config,
    pub store: Arc<dyn Store>,
    /// The one source of the time for everything the server stamps.
    pub clock: Arc<dyn Clock>,
    pub book: Arc<BlockBook>,
    pub desk: SaleDesk,
    /// Fair dealing from the beacon (`--beacon`).
    pub dealer: Option<Arc<Dealer>>,
    /// Wakes the public log's sequencer before its interval (purchases
    /// wait for their record).
    pub log_kick: Arc<tokio::sync::Notify>,
    /// The size of the newest checkpoint this server signed: each change
    /// is pushed to the witnesses of `--witness-url` (`public_log::push`).
    pub checkpoint_signed: tokio::sync::watch::Sender<u64>,
    /// The operator's seamless wallet (`--wallet`), which then holds the
    /// money of operator players.
    pub wallet: Option<Arc<SeamlessWallet>>,
    pub sessions: Sessions,
    pub exports: Exports,
    /// Per-address limit on `POST /api/demo/players`.
    pub demo_player_limit: RateLimiter<IpAddr>,
    /// Per-player limit on `POST /api/sales`: many players share one
    /// address behind a carrier's or the operator's balancer.
    pub sale_limit: RateLimiter<Arc<str>>,
    /// Per-address limit on `POST /api/launch`.
    pub launch_limit: RateLimiter<IpAddr>,
    /// Per-address limit on the console's sign-in (`/operator/sign-in`).
    pub console_sign_in_limit: RateLimiter<IpAddr>,
    key: Arc<SigningKey>,
    pub public_key: PublicKeyBytes,
    /// The public record's identity and witnesses.
    pub log: LogIdentity,
    /// The newest checkpoint the witnesses cosigned, and whether the
    /// database holds it: nothing is sold or logged while it does not.
    pub witnessed: Witnessed,
    operator_key_digest: [u8; 32],
    /// The operator's console's signed-in sessions (`/operator/`).
    pub console: crate::console::ConsoleSessions,
    /// The console's first and last sale of finished blocks.
    pub console_spans: crate::console::SaleSpans,
    /// The page as the build made it, checked at start.
    pub page: Arc<crate::built_page::BuiltPage>,
    commitments: RwLock<HashMap<u64, SignedCommitment>>,
}

impl std::ops::Deref for AppState {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}

/// Rounds of the seamless wallet left reserved by a crash: their tickets go
/// back on sale and their debits are rolled back (queued in the outbox).
/// Alone on its database, a server starting has no live round; sharing
/// one, it leaves the rounds other servers may still be paying for to the
/// outbox worker, which releases them once they are old enough.
fn release_lost_rounds(
    store: &dyn Store,
    clock: &dyn Clock,
    shared: bool,
    config: &Config,
) -> Result<(), StartError> {
    if shared {
        return Ok(());
    }
    let now_ms = clock.now_ms();
    let released = store.release_stale_rounds(now_ms.saturating_add(1), now_ms)?;
    if released > 0 {
        tracing::warn!(
            rounds = released,
            "rounds left reserved by a crash were released and their debits queued for rollback"
        );
        if config.wallet.is_none() {
            tracing::warn!("start with --wallet to send the queued rollbacks to the operator");
        }
    }
    Ok(())
}

impl AppState {
    /// Opens the data directory (database, keys), applies migrations,
    /// refuses data that the seeding policy forbids (`seed_policy`) and
    /// makes sure each stake has an open and a pending committed block of
    /// each kind of money served.
    pub async fn start(config: Config) -> Result<AppState, StartError> {
        let dealer = match &config.dealing {
            Some(dealing) => Some(Arc::new(
                Dealer::connect_patiently(dealing, &config.data_dir).await?,
            )),
            None => None,
        };
        tokio::task::spawn_blocking(move || {
            AppState::start_blocking_with(config, Arc::new(SystemClock), dealer)
        })
        .await
        .map_err(|e| StartError::Task(e.to_string()))?
    }

    pub fn start_blocking(config: Config) -> Result<AppState, StartError> {
        AppState::start_blocking_with_clock(config, Arc::new(SystemClock))
    }

    /// Like [`AppState::start_blocking`] with a chosen clock, so that tests
    /// can pin or move the time the server sees.
    pub fn start_blocking_with_clock(
        config: Config,
        clock: Arc<dyn Clock>,
    ) -> Result<AppState, StartError> {
        AppState::start_blocking_with(config, clock, None)
    }

    /// The whole start, with the beacon's dealer already connected (it
    /// needs the network: [`AppState::start`] connects it).
    pub fn start_blocking_with(
        config: Config,
        clock: Arc<dyn Clock>,
        dealer: Option<Arc<Dealer>>,
    ) -> Result<AppState, StartError> {
        // First: a page that is not the build's refuses the start before
        // anything is written.
        let page = Arc::new(crate::built_page::BuiltPage::load(&config.web_dir)?);
        let dir = &config.data_dir;
        std::fs::create_dir_all(dir).map_err(|source| StartError::DataDir {
            path: dir.display().to_string(),
            source,
        })?;
        if let Some(dealer) = &dealer {
            dealer.keep_schedule(dir);
        }
        // Before anything is counted: what is recorded earlier is lost.
        crate::metrics::handle();
        let database = config.database();
        tracing::info!(database = %database.describe(), "opening the store");
        let store = database.open(config.pool_size, Arc::clone(&clock))?;
        store.set_protection_defaults(config.protection);
        let (key, operator_key_digest) =
            keys::operator_keys(config.key_file.as_deref(), &*store, dir)?;
        let key = Arc::new(key);
        // Before any block is generated: a refused start leaves the data
        // directory as it found it (bar migrations).
        seed_policy::check(&*store, &config, dir)?;
        let log = LogIdentity::new(&key, &config.log)?;
        // The build this server serves goes on the record (once per build,
        // whichever server starts with it first) before any sale it shows.
        if let Some(fingerprint) = page.fingerprint() {
            let recorded =
                store.log_record_page(&fingerprint, page.file_count(), clock.now_ms())?;
            tracing::info!(
                fingerprint = %hex::encode(fingerprint.0),
                new = recorded,
                "the page's build is stored for the public record"
            );
        }
        // Before the sequencer can log anything from an older copy.
        let witnessed = Witnessed::open(dir, &*store, log.key())?;
        let seeding = match config.demo_seed {
            Some(n) => {
                tracing::warn!(
                    seed = n,
                    "DEMO SEED IN USE: every ticket of every new block is predictable. \
                     NOT FOR PRODUCTION, tests and demos only."
                );
                Seeding::Demo(n)
            }
            None => Seeding::Os,
        };
        let book = BlockBook::new(
            Arc::clone(&store),
            Arc::clone(&key),
            seeding,
            config.moneys(),
            config.open_blocks_per_line,
        )?;
        book.prepare()?;
        if database.is_shared() {
            // Other servers change which blocks are on sale.
            BlockBook::watch(&book, config.block_poll);
        }
        release_lost_rounds(&*store, &*clock, database.is_shared(), &config)?;
        if dealer.is_none() {
            let undealt = store.undealt_purchases()?;
            if undealt > 0 {
                return Err(StartError::Undealt(undealt));
            }
            // Sold in order, a block the beacon dealt from would meet its
            // dealt positions on the way: it closes, and the next opens.
            let dealt = store.dealt_blocks_on_sale()?;
            for &block in &dealt {
                store.close_block(block)?;
                tracing::warn!(
                    block,
                    "closed: the beacon dealt from it, and this server sells in order"
                );
            }
            if !dealt.is_empty() {
                book.ensure_supply();
            }
        }
        let log_kick = Arc::new(tokio::sync::Notify::new());
        let wallet = config.wallet.clone().map(|wallet| {
            Arc::new(SeamlessWallet::new(
                wallet,
                Arc::clone(&store),
                Arc::clone(&clock),
                Arc::clone(&book),
                dealer.clone().map(|dealer| (dealer, Arc::clone(&log_kick))),
            ))
        });
        let desk = SaleDesk::start(
            Arc::clone(&store),
            Arc::clone(&book),
            Arc::clone(&clock),
            config.max_batch,
            dealer.clone(),
            Arc::clone(&log_kick),
        );
        let public_key = public_key_of(&key);
        tracing::info!(public_key = %public_key, demo = config.demo, "operator key loaded");
        tracing::info!(
            origin = log.origin(),
            witnesses = log.witnesses().len(),
            quorum = log.quorum(),
            "public log"
        );
        let console_session = config.limits.console_session;
        let limits = &config.limits;
        Ok(AppState(Arc::new(Inner {
            page,
            sessions: Sessions::new(
                Arc::clone(&store),
                Arc::clone(&clock),
                config.session_ttl,
                limits.session_cache,
                limits.max_sessions_per_player,
            ),
            exports: Exports::new(&config.data_dir),
            demo_player_limit: RateLimiter::new(
                "new demo players",
                limits.demo_players_per_minute,
                std::time::Duration::from_secs(60),
                Arc::clone(&clock),
            ),
            sale_limit: RateLimiter::new(
                "sales",
                limits.sales_per_second,
                std::time::Duration::from_secs(1),
                Arc::clone(&clock),
            ),
            launch_limit: RateLimiter::new(
                "launch code exchanges",
                limits.launches_per_minute,
                std::time::Duration::from_secs(60),
                Arc::clone(&clock),
            ),
            console_sign_in_limit: RateLimiter::new(
                "console sign-ins",
                limits.console_sign_ins_per_minute,
                std::time::Duration::from_secs(60),
                Arc::clone(&clock),
            ),
            config,
            store,
            clock,
            book,
            desk,
            dealer,
            log_kick,
            checkpoint_signed: tokio::sync::watch::channel(0).0,
            wallet,
            key,
            public_key,
            log,
            witnessed,
            console: crate::console::ConsoleSessions::new(
                // Every server with this operator key signs alike; a new key
                // signs everybody out.
                keys::digest(
                    &[
                        b"eldorado console sessions\0".as_slice(),
                        &operator_key_digest,
                    ]
                    .concat(),
                ),
                console_session,
            ),
            console_spans: crate::console::SaleSpans::default(),
            operator_key_digest,
            commitments: RwLock::new(HashMap::new()),
        })))
    }

    pub fn is_operator_key(&self, presented: &str) -> bool {
        keys::same_digest(
            &keys::digest(presented.as_bytes()),
            &self.operator_key_digest,
        )
    }

    /// The signed commitment of a block (commitments never change).
    pub fn commitment(&self, block: u64) -> Result<SignedCommitment, ApiError> {
        if let Some(c) = self
            .commitments
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(&block)
        {
            return Ok(c.clone());
        }
        let record = self
            .store
            .block(block)?
            .ok_or_else(|| ApiError::internal(format!("sale of unknown block {block}")))?;
        self.commitments
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .insert(block, record.signed.clone());
        Ok(record.signed)
    }

    /// Signs a recorded sale with its Merkle proof. Ed25519 signatures are
    /// deterministic, so signing a sale again gives the very same bytes.
    /// Blocking when the block's tree must be rebuilt.
    pub fn sign_sale(&self, record: &SaleRecord) -> Result<SignedSale, ApiError> {
        let tree = self
            .book
            .tree(record.block)
            .map_err(|e| ApiError::internal(e.to_string()))?;
        let proof = tree
            .proof(record.ticket.position)
            .map_err(ApiError::internal)?;
        Sale {
            sale_id: record.sale_id,
            block: record.block,
            tickets: record.block_tickets,
            ticket: record.ticket.clone(),
            proof,
            player: record.player_id.clone(),
            sold_at_ms: record.sold_at_ms,
            client_nonce: record.client_nonce,
            balance_before_cents: Some(record.balance_before_cents),
            balance_after_cents: Some(record.balance_after_cents),
        }
        .sign(&self.key)
        .map_err(ApiError::internal)
    }

    /// The lease to run the public log's sequencer on its interval: `held`
    /// while its session stands, else taken if no other server holds it.
    pub fn sequencing_lease(&self, held: Option<Lease>) -> Option<Lease> {
        if let Some(mut lease) = held {
            if lease.still_held() {
                return Some(lease);
            }
            tracing::warn!("the sequencing lease was lost with its database session");
        }
        match self.store.try_lease(LeaseKind::Sequencing) {
            Ok(Some(lease)) => {
                tracing::info!("this server now runs the public log's sequencer");
                Some(lease)
            }
            Ok(None) => None,
            Err(e) => {
                tracing::warn!(error = %e, "asking for the sequencing lease");
                None
            }
        }
    }

    /// One pass of the public log's sequencer (`public_log::sequence_once`).
    pub fn sequence_log(
        &self,
    ) -> Result<crate::public_log::Sequenced, crate::public_log::SequenceError> {
        // An older copy of the record logs nothing: its next record would
        // fork what the witnesses cosigned.
        if self.witnessed.behind().is_some() {
            return Ok(crate::public_log::Sequenced::Idle);
        }
        let now_ms = self.clock.now_ms();
        crate::public_log::sequence_once(
            &*self.store,
            &self.key,
            self.log.origin(),
            self.config.log.max_sales_per_pass,
            now_ms,
            self.dealer.as_ref().map(|dealer| dealer.round_for(now_ms)),
        )
    }

    /// Runs store work off the async threads.
    pub async fn blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce(&AppState) -> Result<T, ApiError> + Send + 'static,
    ) -> Result<T, ApiError> {
        let state = self.clone();
        tokio::task::spawn_blocking(move || f(&state)).await?
    }
}
