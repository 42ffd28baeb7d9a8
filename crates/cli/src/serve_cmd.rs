//! `eldorado serve`: the game server.

use clap::Args;
use eldorado_server::config::{DealingConfig, Limits, OutboxConfig, WalletConfig};
use eldorado_server::database::Database;
use eldorado_server::store::protection::ProtectionDefaults;
use eldorado_server::Config;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Args)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// Directory of the SQLite database and the operator keys (created
    /// mode 0700, its files 0600; it must not be served by --web).
    #[arg(long, default_value = "./data")]
    data: PathBuf,
    /// Refuse to start while a file or directory of --data can be reached
    /// by other users (without it, each one is named in a warning).
    #[arg(long)]
    strict_permissions: bool,
    /// The store: sqlite:PATH (default: DATA/eldorado.sqlite3, one server)
    /// or postgres://USER[:PASSWORD]@HOST[:PORT][,HOST2[:PORT2]]/DB, shared
    /// by every server of a deployment (add ?target_session_attrs=read-write
    /// with several hosts to follow a failover).
    #[arg(long, value_parser = Database::parse)]
    database: Option<Database>,
    /// Most connections this server keeps to a PostgreSQL database.
    #[arg(long, default_value_t = 16)]
    pool_size: u32,
    /// The operator's Ed25519 key file (64 hex digits, mode 0600; created
    /// if missing). Give every server of a deployment the same file, or
    /// none with PostgreSQL: the key is then kept in the database.
    #[arg(long)]
    key_file: Option<PathBuf>,
    /// With PostgreSQL: how often (ms) to re-read which blocks are on sale,
    /// which other servers change.
    #[arg(long, default_value_t = 1000)]
    block_poll_ms: u64,
    /// Blocks of each stake and money on sale at once. Each sale batch
    /// takes one no other batch holds: give a deployment of N servers on
    /// PostgreSQL N, so that they sell side by side. Refused above 1 with
    /// --beacon.
    #[arg(long, default_value_t = 1)]
    open_blocks_per_line: u32,
    /// The web root the page was built in (the repository root): only the
    /// files its www/pkg/page-manifest.json lists are served, checked
    /// against their hashes at start; without it, the API only.
    #[arg(long, default_value = ".")]
    web: PathBuf,
    /// Demo mode: the page may create play-money players, who play from
    /// play-money blocks of their own. Without it the server sells real
    /// money only.
    #[arg(long)]
    demo: bool,
    /// TESTS AND DEMOS ONLY: derive every block from this number, so that
    /// the ticket sequence is known in advance. Needs --demo or --wallet.
    /// Without --wallet no real-money block is generated, and a data
    /// directory holding operator players or real-money blocks is refused;
    /// with --wallet (to test an operator's integration) real-money blocks
    /// are drawn from the seed too, and a data directory holding real-money
    /// blocks from OS randomness is refused.
    #[arg(long)]
    demo_seed: Option<u64>,
    /// Most sales committed in one transaction (group commit).
    #[arg(long, default_value_t = 512)]
    max_batch: usize,
    /// Who may embed the game in an iframe: CSP frame-ancestors sources,
    /// e.g. "'self' https://portal.example".
    #[arg(long, default_value = "'self'")]
    frame_ancestors: String,
    /// A balancer (address or CIDR block, e.g. 127.0.0.1/32 or 10.0.0.0/8)
    /// whose X-Forwarded-For names the client for the per-address limits;
    /// repeat for several. Default: none, the peer is the client.
    #[arg(long = "trusted-proxy", value_name = "CIDR", value_parser = parse_trusted_proxy)]
    trusted_proxies: Vec<ipnet::IpNet>,
    /// The game page's address as players reach it (e.g.
    /// https://games.example): the base of the launch URLs of
    /// POST /api/operator/launches. Default: http://<--addr>.
    #[arg(long)]
    public_url: Option<String>,
    /// Milliseconds from accepting a connection (or from the end of its
    /// last answer) to a complete request head, on HTTP/1 and h2c alike;
    /// then the connection is closed.
    #[arg(long, default_value_t = 10_000)]
    header_timeout_ms: u64,
    /// Milliseconds to receive a request's body before 408 REQUEST_TIMEOUT.
    #[arg(long, default_value_t = 10_000)]
    body_timeout_ms: u64,
    /// Milliseconds to answer a request before 503 TIMEOUT.
    #[arg(long, default_value_t = 30_000)]
    request_timeout_ms: u64,
    /// Requests handled at once; more are refused with 503 OVERLOADED.
    #[arg(long, default_value_t = 512)]
    max_in_flight: usize,
    /// Connections open at once; beyond it the connection idle the longest
    /// is closed, and if none is idle new ones wait in the listen backlog.
    #[arg(long, default_value_t = 4_096)]
    max_connections: usize,
    /// Connections open at once from one peer address; beyond it a new one
    /// closes that address's connection idle the longest, or is closed at
    /// once if all of them are busy. Behind a reverse proxy every
    /// connection comes from the proxy: raise it there (up to
    /// --max-connections).
    #[arg(long, default_value_t = 512)]
    max_connections_per_address: usize,
    /// Demo players one IP address may create per minute (429 RATE_LIMITED).
    #[arg(long, default_value_t = 10)]
    demo_players_per_minute: u32,
    /// Sales one player may ask for per second (429 RATE_LIMITED).
    #[arg(long, default_value_t = 20)]
    sales_per_second: u32,
    /// Launch codes one IP address may exchange per minute (POST
    /// /api/launch; 429 RATE_LIMITED).
    #[arg(long, default_value_t = 30)]
    launches_per_minute: u32,
    /// Sessions kept in memory (the database holds them all).
    #[arg(long, default_value_t = 100_000)]
    session_cache: usize,
    /// Live sessions one player may hold; opening one more ends the player's
    /// oldest (its page is then told TOO_MANY_SESSIONS).
    #[arg(long, default_value_t = 20)]
    max_sessions_per_player: u32,
    /// Seconds between deletions of expired sessions.
    #[arg(long, default_value_t = 600)]
    session_sweep_secs: u64,
    /// Seconds a block export download may take before it is cut off.
    #[arg(long, default_value_t = 600)]
    export_deadline_secs: u64,
    /// Most days one daily report (GET /api/operator/reports/daily) covers.
    #[arg(long, default_value_t = 366)]
    report_max_days: u32,
    /// Minutes a sign-in to the operator's console (/operator/) lasts.
    #[arg(long, default_value_t = 480)]
    console_session_minutes: u64,
    /// Sign-ins to the operator's console one IP address may try per minute.
    #[arg(long, default_value_t = 10)]
    console_sign_ins_per_minute: u32,
    /// The operator's seamless wallet API (https:// base URL; http:// only
    /// to this machine, or with --wallet-insecure-http): it then holds
    /// the money of operator players, and each sale calls URL/debit (and
    /// URL/credit, URL/rollback, URL/balance). Needs --wallet-secret-file.
    #[arg(long, requires = "wallet_secret_file")]
    wallet: Option<String>,
    /// File holding the secret shared with the operator's wallet: every
    /// call is signed with HMAC-SHA-256 under it (X-Eldorado-Signature).
    #[arg(long, requires = "wallet")]
    wallet_secret_file: Option<PathBuf>,
    /// Milliseconds to wait for one answer of the operator's wallet; a debit
    /// without an answer is rolled back and the sale answered WALLET_UNAVAILABLE.
    #[arg(long, default_value_t = 3_000)]
    wallet_timeout_ms: u64,
    /// Milliseconds between two sends of a prize credit or rollback the
    /// operator has not acknowledged yet.
    #[arg(long, default_value_t = 2_000)]
    wallet_retry_ms: u64,
    /// Longest wait, in milliseconds, before a queued credit or rollback is
    /// sent again: each failure of one item doubles its wait from
    /// --wallet-retry-ms up to this (with jitter).
    #[arg(long, default_value_t = 8_000)]
    wallet_retry_max_ms: u64,
    /// Queued credits and rollbacks sent to the wallet at once.
    #[arg(long, default_value_t = 16)]
    wallet_outbox_concurrency: usize,
    /// Queued credits and rollbacks read per pass of the outbox worker.
    #[arg(long, default_value_t = 10_000)]
    wallet_outbox_scan: u32,
    /// PEM file of certificates to trust for the wallet's TLS besides the
    /// system's roots (the operator's own CA).
    #[arg(long, requires = "wallet")]
    wallet_ca_file: Option<PathBuf>,
    /// Allows a plain http:// wallet URL to another machine: the calls and
    /// their signatures then cross the network in clear.
    #[arg(long, requires = "wallet")]
    wallet_insecure_http: bool,
    /// Weekly stake limit, in cents, given to each new real-money player at
    /// its first sale (it may lower it at once, raise it 48 h later). None
    /// unless given.
    #[arg(long, value_name = "CENTS")]
    default_weekly_stake_limit: Option<u64>,
    /// Minutes of play between reality checks for players who chose none
    /// (15, 30 or 60).
    #[arg(long, default_value_t = 60)]
    reality_check_minutes: u32,
    /// A witness of the public log, by its cosignature verifier key
    /// (`eldorado witness` prints it); repeat for each witness. The page
    /// trusts only checkpoints they cosigned.
    #[arg(long = "witness", value_name = "VKEY")]
    witnesses: Vec<String>,
    /// How many of the witnesses must cosign a checkpoint before
    /// /api/log/checkpoint serves it (default: all of them).
    #[arg(long)]
    witness_quorum: Option<u32>,
    /// Push each checkpoint to this witness (C2SP tlog-witness
    /// `add-checkpoint`; `eldorado witness --listen` serves it) and keep
    /// the cosignature it answers; repeat for each. A witness not named
    /// here still cosigns by polling.
    #[arg(long = "witness-url", value_name = "URL")]
    witness_urls: Vec<String>,
    /// Milliseconds between two passes of the public log's sequencer, each
    /// logging what was sold meanwhile and signing a checkpoint.
    #[arg(long, default_value_t = 500)]
    checkpoint_interval_ms: u64,
    /// Most leaves in one answer of GET /api/log/leaves.
    #[arg(long, default_value_t = 1_000)]
    log_leaves_per_page: u32,
    /// How the server's log lines are written on stderr.
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
    /// Most sales one pass of the sequencer logs (one transaction); a
    /// larger backlog takes passes back to back.
    #[arg(long, default_value_t = 10_000)]
    log_max_sales_per_pass: u32,
    /// Deal every sale from this randomness beacon (drand's HTTP API,
    /// scheme bls-unchained-g1-rfc9380; `eldorado beacon`): a sale is
    /// bought and logged first, and a later round picks its ticket.
    /// Repeat for several relays of the same beacon: each round is asked
    /// of all of them at once, and the first that verifies is taken.
    #[arg(long, value_name = "URL", requires = "beacon_key")]
    beacon: Vec<String>,
    /// The beacon's public key (96 bytes in hex, as `eldorado beacon`
    /// prints it): rounds under any other key are refused.
    #[arg(long, value_name = "HEX", requires = "beacon", value_parser = parse_beacon_key)]
    beacon_key: Option<BeaconKeyArg>,
    /// How long the witnesses take to cosign a purchase (the log's pass
    /// and their poll): a purchase is dealt by the first beacon round
    /// published after the second during which they will have cosigned it
    /// (cosignatures are dated to the second), so that it is provably on
    /// the record before its round exists.
    #[arg(long, default_value_t = 500, requires = "beacon")]
    deal_lead_ms: u64,
    /// How long a sale request waits for its deal before answering
    /// DEAL_PENDING (the ticket is bought; the same key answers the sale).
    #[arg(long, default_value_t = 5_000, requires = "beacon")]
    deal_wait_ms: u64,
    /// Milliseconds between two looks of the dealer for purchases whose
    /// round is out.
    #[arg(long, default_value_t = 50, requires = "beacon")]
    deal_poll_ms: u64,
    /// Each request to the beacon, in milliseconds.
    #[arg(long, default_value_t = 2_000, requires = "beacon")]
    beacon_timeout_ms: u64,
}

/// A beacon key read from hex.
#[derive(Clone, Copy, Debug)]
struct BeaconKeyArg([u8; eldorado_engine::deal::BEACON_KEY_LEN]);

fn parse_beacon_key(text: &str) -> Result<BeaconKeyArg, String> {
    hex::decode(text.trim())
        .ok()
        .and_then(|bytes| bytes.try_into().ok())
        .map(BeaconKeyArg)
        .ok_or_else(|| "give the beacon's 96-byte public key in hex (192 digits)".to_owned())
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum LogFormat {
    Text,
    Json,
}

pub fn run(args: ServeArgs) -> Result<ExitCode, String> {
    let logs = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr);
    match args.log_format {
        LogFormat::Text => logs.init(),
        // One JSON object per line, for the operator's log collector.
        LogFormat::Json => logs.json().init(),
    }
    let mut config = Config::new(args.data);
    config.addr = args.addr;
    config.web_dir = args.web;
    config.demo = args.demo;
    config.demo_seed = args.demo_seed;
    config.max_batch = args.max_batch;
    config.frame_ancestors = args.frame_ancestors;
    config.trusted_proxies = args.trusted_proxies;
    config.public_url = args.public_url;
    config.database = args.database;
    config.pool_size = args.pool_size;
    config.key_file = args.key_file;
    config.strict_permissions = args.strict_permissions;
    config.log = eldorado_server::config::LogSettings {
        witnesses: args.witnesses,
        quorum: args.witness_quorum,
        witness_urls: args.witness_urls,
        checkpoint_interval: Duration::from_millis(args.checkpoint_interval_ms),
        leaves_per_page: args.log_leaves_per_page,
        max_sales_per_pass: args.log_max_sales_per_pass,
    };
    config.block_poll = std::time::Duration::from_millis(args.block_poll_ms);
    config.open_blocks_per_line = args.open_blocks_per_line;
    if let (Some((url, relays)), Some(key)) = (args.beacon.split_first(), args.beacon_key) {
        config.dealing = Some(DealingConfig {
            lead: Duration::from_millis(args.deal_lead_ms),
            wait: Duration::from_millis(args.deal_wait_ms),
            poll: Duration::from_millis(args.deal_poll_ms),
            beacon_timeout: Duration::from_millis(args.beacon_timeout_ms),
            beacon_relays: relays.to_vec(),
            ..DealingConfig::new(url.clone(), key.0)
        });
    }
    config.limits = Limits {
        header_timeout: Duration::from_millis(args.header_timeout_ms),
        body_timeout: Duration::from_millis(args.body_timeout_ms),
        request_timeout: Duration::from_millis(args.request_timeout_ms),
        max_in_flight: args.max_in_flight,
        max_connections: args.max_connections,
        max_connections_per_address: args.max_connections_per_address,
        demo_players_per_minute: args.demo_players_per_minute,
        sales_per_second: args.sales_per_second,
        launches_per_minute: args.launches_per_minute,
        session_cache: args.session_cache,
        max_sessions_per_player: args.max_sessions_per_player,
        session_sweep: Duration::from_secs(args.session_sweep_secs),
        export_deadline: Duration::from_secs(args.export_deadline_secs),
        report_max_days: args.report_max_days,
        console_session: Duration::from_secs(args.console_session_minutes.saturating_mul(60)),
        console_sign_ins_per_minute: args.console_sign_ins_per_minute,
    };
    if let (Some(url), Some(file)) = (args.wallet, args.wallet_secret_file) {
        config.wallet = Some(WalletConfig {
            url,
            secret: WalletConfig::read_secret(&file)?,
            timeout: Duration::from_millis(args.wallet_timeout_ms),
            retry: Duration::from_millis(args.wallet_retry_ms),
            ca_pem: args
                .wallet_ca_file
                .as_deref()
                .map(WalletConfig::read_ca_file)
                .transpose()?,
            insecure_http: args.wallet_insecure_http,
            outbox: OutboxConfig {
                retry_max: Duration::from_millis(args.wallet_retry_max_ms),
                concurrency: args.wallet_outbox_concurrency,
                scan: args.wallet_outbox_scan,
            },
        });
    }
    config.protection = ProtectionDefaults {
        weekly_stake_limit_cents: args.default_weekly_stake_limit,
        reality_check_minutes: args.reality_check_minutes,
    };
    config.check()?;
    if let Some(seed) = config.demo_seed {
        eprintln!(
            "eldorado: WARNING: --demo-seed {seed}: every ticket is predictable. \
             NOT FOR PRODUCTION: tests and demos only."
        );
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    runtime
        .block_on(eldorado_server::serve(config, async {
            let _ = tokio::signal::ctrl_c().await;
            tracing::info!("shutting down");
        }))
        .map_err(|e| e.to_string())?;
    Ok(ExitCode::SUCCESS)
}

/// A CIDR block, or one address (a block of one).
fn parse_trusted_proxy(text: &str) -> Result<ipnet::IpNet, String> {
    text.parse::<ipnet::IpNet>()
        .or_else(|_| text.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
        .map_err(|_| format!("{text:?} is neither an address nor a CIDR block"))
}
