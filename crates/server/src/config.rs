//! What `eldorado serve` is told on its command line.

use crate::database::Database;
use crate::store::protection::{ProtectionDefaults, MAX_LIMIT_CENTS};
use eldorado_api::REALITY_CHECK_MINUTES;
use eldorado_engine::Money;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

pub const DEFAULT_STARTING_BALANCE_CENTS: u64 = 5_000;
/// Each open block keeps a Merkle tree of 400,000 leaves in every server's
/// memory, and a new one is generated whenever one sells out.
pub const MAX_OPEN_BLOCKS_PER_LINE: u32 = 8;

#[derive(Clone, Debug)]
pub struct Config {
    pub addr: SocketAddr,
    /// Holds the SQLite file and the operator keys.
    pub data_dir: PathBuf,
    /// Holds `index.html` and `www/`.
    pub web_dir: PathBuf,
    /// Demo mode (`--demo`): the page may create play-money players, who
    /// play from play-money blocks of their own. Off by default.
    pub demo: bool,
    /// Tests and demos only (`--demo-seed`, needs demo mode): blocks drawn
    /// from seeds derived from this number, and no real-money blocks at all.
    pub demo_seed: Option<u64>,
    pub starting_balance_cents: u64,
    pub session_ttl: Duration,
    /// Most sales committed in one transaction.
    pub max_batch: usize,
    /// Largest request body accepted, in bytes.
    pub body_limit: usize,
    /// CSP `frame-ancestors` sources: who may embed the game in an iframe.
    /// Its http(s) origins are also the portal origins of launch links and
    /// of the page's messages (`portal_origins`).
    pub frame_ancestors: String,
    /// Balancers whose `X-Forwarded-For` is believed (`--trusted-proxy`):
    /// behind them, the per-address limits count the client's address.
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// The game page's address as players reach it, the base of launch
    /// URLs; `None`: `http://<addr>`.
    pub public_url: Option<String>,
    /// The store; `None` is SQLite in the data directory.
    pub database: Option<Database>,
    /// Most connections a server keeps to a shared database.
    pub pool_size: u32,
    /// The operator's Ed25519 key file; `None`: the data directory's, or
    /// the shared database's when there is one.
    pub key_file: Option<PathBuf>,
    /// How often the block book re-reads which blocks are on sale (another
    /// server of the deployment may have changed them).
    pub block_poll: Duration,
    /// Blocks of each stake and money on sale at once
    /// (`--open-blocks-per-line`): each sale batch takes one that no other
    /// batch holds, so the servers of a deployment sell side by side
    /// instead of taking turns on one block.
    pub open_blocks_per_line: u32,
    /// Resource limits: every one has a flag of `eldorado serve`.
    pub limits: Limits,
    /// The operator's seamless wallet (`--wallet`): it holds the money of
    /// operator players. `None`: the transfer wallet.
    pub wallet: Option<WalletConfig>,
    /// Player protection for players without settings of their own
    /// (`--default-weekly-stake-limit`, `--reality-check-minutes`).
    pub protection: ProtectionDefaults,
    /// `--strict-permissions`: refuse to start while a file of the data
    /// directory can be read by other users (otherwise each is warned of).
    pub strict_permissions: bool,
    /// The public record: its witnesses and how it is published.
    pub log: LogSettings,
    /// Fair dealing from a beacon (`--beacon`); `None`: sales take their
    /// block's next ticket.
    pub dealing: Option<DealingConfig>,
}

/// `--beacon URL --beacon-key HEX` and how sales wait for their round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DealingConfig {
    /// The beacon's base URL: drand's `/info` and `/public/{round}` under
    /// it (the one `/api/config` names).
    pub beacon_url: String,
    /// Other relays of the same beacon, raced with it (`--beacon` again).
    pub beacon_relays: Vec<String>,
    /// The beacon's public key the operator pins (96 bytes, G2 compressed).
    pub beacon_key: [u8; eldorado_engine::deal::BEACON_KEY_LEN],
    /// How long the witnesses take to cosign a purchase (`--deal-lead-ms`):
    /// it is dealt by the first round published after the second during
    /// which they will have (`Dealer::round_for`).
    pub lead: Duration,
    /// How long `POST /api/sales` waits for the deal before answering
    /// `DEAL_PENDING` (`--deal-wait-ms`).
    pub wait: Duration,
    /// How often the dealer looks for purchases whose round is out
    /// (`--deal-poll-ms`).
    pub poll: Duration,
    /// Each request to the beacon (`--beacon-timeout-ms`).
    pub beacon_timeout: Duration,
}

impl DealingConfig {
    pub fn new(beacon_url: String, beacon_key: [u8; 96]) -> DealingConfig {
        DealingConfig {
            beacon_url,
            beacon_relays: Vec::new(),
            beacon_key,
            lead: Duration::from_millis(500),
            wait: Duration::from_millis(5_000),
            poll: Duration::from_millis(50),
            beacon_timeout: Duration::from_millis(2_000),
        }
    }
}

/// `--witness VKEY... --witness-quorum N --checkpoint-interval-ms
/// --log-leaves-per-page --log-max-sales-per-pass`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogSettings {
    /// The witnesses' cosignature verifier keys (`<name>+<id>+<base64>`).
    pub witnesses: Vec<String>,
    /// How many of them must cosign a checkpoint before it is served as
    /// `/api/log/checkpoint`; `None`: all of them.
    pub quorum: Option<u32>,
    /// Witnesses each new checkpoint is pushed to (C2SP tlog-witness
    /// `add-checkpoint`), by their base URL.
    pub witness_urls: Vec<String>,
    /// How often the sequencer logs what was stored and signs a checkpoint.
    pub checkpoint_interval: Duration,
    /// Most leaves in one answer of `/api/log/leaves`.
    pub leaves_per_page: u32,
    /// Most sales one sequencer pass logs (one transaction).
    pub max_sales_per_pass: u32,
}

impl Default for LogSettings {
    fn default() -> LogSettings {
        LogSettings {
            witnesses: Vec::new(),
            quorum: None,
            witness_urls: Vec::new(),
            checkpoint_interval: Duration::from_millis(500),
            leaves_per_page: 1000,
            max_sales_per_pass: 10_000,
        }
    }
}

/// `--wallet URL --wallet-secret-file F --wallet-timeout-ms --wallet-retry-ms
/// [--wallet-ca-file PEM] [--wallet-insecure-http]`.
#[derive(Clone)]
pub struct WalletConfig {
    /// The base URL: calls go to `{url}/debit` and so on. `https://`, or
    /// `http://` to a loopback address (a TLS proxy beside the server), or
    /// to any address with `insecure_http`.
    pub url: String,
    /// The HMAC key shared with the operator (the secret file's content).
    pub secret: Vec<u8>,
    /// Longest wait for one answer of the operator's wallet.
    pub timeout: Duration,
    /// How often unacknowledged credits and rollbacks are sent again.
    pub retry: Duration,
    /// `--wallet-ca-file`: PEM certificates trusted for the wallet's TLS
    /// besides the system's roots (an operator's own CA).
    pub ca_pem: Option<Vec<u8>>,
    /// `--wallet-insecure-http`: plain HTTP to a wallet that is not on
    /// this machine (a private network the operator vouches for).
    pub insecure_http: bool,
    /// How the outbox worker sends queued credits and rollbacks again.
    pub outbox: OutboxConfig,
}

/// `--wallet-retry-max-ms --wallet-outbox-concurrency --wallet-outbox-scan`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutboxConfig {
    /// Longest wait between two attempts of one item: each failure doubles
    /// the item's wait from `--wallet-retry-ms` up to this.
    pub retry_max: Duration,
    /// Calls in flight at once.
    pub concurrency: usize,
    /// Queued items read per pass (the oldest first).
    pub scan: u32,
}

impl Default for OutboxConfig {
    fn default() -> OutboxConfig {
        OutboxConfig {
            retry_max: Duration::from_millis(8_000),
            concurrency: 16,
            scan: 10_000,
        }
    }
}

impl std::fmt::Debug for WalletConfig {
    /// Never the secret.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WalletConfig")
            .field("url", &self.url)
            .field("timeout", &self.timeout)
            .field("retry", &self.retry)
            .field("ca_pem", &self.ca_pem.is_some())
            .field("insecure_http", &self.insecure_http)
            .finish_non_exhaustive()
    }
}

impl WalletConfig {
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(3_000);
    pub const DEFAULT_RETRY: Duration = Duration::from_millis(2_000);

    /// Reads the shared secret from `file` (its trailing line break is not
    /// part of it); an unreadable or empty file is refused.
    pub fn read_secret(file: &std::path::Path) -> Result<Vec<u8>, String> {
        let content = std::fs::read(file)
            .map_err(|e| format!("--wallet-secret-file {}: {e}", file.display()))?;
        let secret = eldorado_api::seamless::secret_from_file_content(&content);
        if secret.is_empty() {
            return Err(format!(
                "--wallet-secret-file {}: the file is empty; put the secret shared with the operator's wallet in it",
                file.display()
            ));
        }
        Ok(secret.to_vec())
    }

    /// Reads `--wallet-ca-file`: one or more PEM certificates, refused at
    /// start when unreadable or holding none.
    pub fn read_ca_file(file: &std::path::Path) -> Result<Vec<u8>, String> {
        let pem =
            std::fs::read(file).map_err(|e| format!("--wallet-ca-file {}: {e}", file.display()))?;
        match reqwest::Certificate::from_pem_bundle(&pem) {
            Ok(certificates) if !certificates.is_empty() => Ok(pem),
            Ok(_) => Err(format!(
                "--wallet-ca-file {}: no PEM certificate in it",
                file.display()
            )),
            Err(e) => Err(format!("--wallet-ca-file {}: {e}", file.display())),
        }
    }

    /// Why `url` may not be the wallet's, if it may not: only `https://`,
    /// or `http://` to this machine, or with `insecure_http` anywhere.
    fn url_problem(&self) -> Option<String> {
        let parsed = match reqwest::Url::parse(&self.url) {
            Ok(url) if url.host().is_some() && !self.url.contains(char::is_whitespace) => url,
            _ => {
                return Some(format!(
                    "--wallet {:?}: give the https:// base URL of the operator's wallet API",
                    self.url
                ))
            }
        };
        match parsed.scheme() {
            "https" => None,
            "http" if self.insecure_http || is_loopback(&parsed) => None,
            "http" => Some(format!(
                "--wallet {:?}: plain http:// to another machine would send the wallet calls \
                 and their signatures in clear; use https:// (--wallet-ca-file for an own CA), \
                 or --wallet-insecure-http on a network you trust",
                self.url
            )),
            _ => Some(format!(
                "--wallet {:?}: give the https:// base URL of the operator's wallet API",
                self.url
            )),
        }
    }
}

fn is_loopback(url: &reqwest::Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// What one client, or all of them together, may hold of the server.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Time from accepting a connection, or from the end of its last
    /// answer, to a complete request head (HTTP/1 or h2c); then the
    /// connection is closed (slowloris, idle connections).
    pub header_timeout: Duration,
    /// Time to receive a request's body; then 408 `REQUEST_TIMEOUT`.
    pub body_timeout: Duration,
    /// Time to answer a request (up to its first byte); then 503 `TIMEOUT`.
    pub request_timeout: Duration,
    /// Requests handled at once; more are shed with 503 `OVERLOADED`.
    pub max_in_flight: usize,
    /// Open connections; when all are open, the one idle the longest is
    /// closed for the next, and if none is idle the next waits in the
    /// listen backlog.
    pub max_connections: usize,
    /// Open connections from one peer address; further ones are closed at
    /// once. Keyed by the TCP peer: behind a reverse proxy, the proxy's.
    pub max_connections_per_address: usize,
    /// Demo players one IP address may create per minute (429 `RATE_LIMITED`).
    pub demo_players_per_minute: u32,
    /// Sales one IP address may ask for per second (429 `RATE_LIMITED`).
    pub sales_per_second: u32,
    /// Launch codes one IP address may exchange per minute (429 `RATE_LIMITED`).
    pub launches_per_minute: u32,
    /// Sessions kept in memory; the store holds all of them.
    pub session_cache: usize,
    /// Live sessions one player may hold; opening one more ends the oldest
    /// (`--max-sessions-per-player`).
    pub max_sessions_per_player: u32,
    /// How often expired sessions are deleted from the store.
    pub session_sweep: Duration,
    /// Longest time a block export may take to send.
    pub export_deadline: Duration,
    /// Most days one daily report covers (`--report-max-days`).
    pub report_max_days: u32,
    /// How long a sign-in to the operator's console lasts
    /// (`--console-session-minutes`).
    pub console_session: Duration,
    /// Sign-ins to the console one IP address may try per minute
    /// (`--console-sign-ins-per-minute`; 429 page).
    pub console_sign_ins_per_minute: u32,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
            max_in_flight: 512,
            max_connections: 4_096,
            max_connections_per_address: 512,
            demo_players_per_minute: 10,
            sales_per_second: 20,
            launches_per_minute: 30,
            session_cache: 100_000,
            max_sessions_per_player: 20,
            session_sweep: Duration::from_secs(600),
            export_deadline: Duration::from_secs(600),
            report_max_days: 366,
            console_session: Duration::from_secs(8 * 3600),
            console_sign_ins_per_minute: 10,
        }
    }
}

impl Config {
    /// The store this server opens.
    pub fn database(&self) -> Database {
        self.database
            .clone()
            .unwrap_or_else(|| Database::in_data_dir(&self.data_dir))
    }

    pub fn new(data_dir: impl Into<PathBuf>) -> Config {
        Config {
            addr: SocketAddr::from(([127, 0, 0, 1], 8080)),
            data_dir: data_dir.into(),
            web_dir: PathBuf::from("."),
            demo: false,
            demo_seed: None,
            starting_balance_cents: DEFAULT_STARTING_BALANCE_CENTS,
            session_ttl: Duration::from_secs(24 * 3600),
            max_batch: 512,
            body_limit: 16 * 1024,
            frame_ancestors: "'self'".to_owned(),
            trusted_proxies: Vec::new(),
            public_url: None,
            database: None,
            pool_size: 16,
            key_file: None,
            block_poll: Duration::from_secs(1),
            open_blocks_per_line: 1,
            limits: Limits::default(),
            wallet: None,
            protection: ProtectionDefaults::default(),
            strict_permissions: false,
            log: LogSettings::default(),
            dealing: None,
        }
    }

    /// The kinds of money the server keeps blocks on sale for: real money
    /// unless blocks are drawn from a fixed seed (but with a seamless wallet,
    /// whose tests need known tickets), play money in demo mode.
    pub fn moneys(&self) -> Vec<Money> {
        let mut moneys = Vec::new();
        if self.demo_seed.is_none() || self.wallet.is_some() {
            moneys.push(Money::Real);
        }
        if self.demo {
            moneys.push(Money::Play);
        }
        moneys
    }

    /// The http(s) origins among the `--frame-ancestors` sources (keywords
    /// such as `'self'`, schemes alone and wildcards left out): the portals
    /// that may frame the page, receive its messages and send it theirs.
    pub fn portal_origins(&self) -> Vec<String> {
        let mut origins: Vec<String> = Vec::new();
        for source in self.frame_ancestors.split_ascii_whitespace() {
            if source.contains('*') || !source.contains("://") {
                continue;
            }
            let Ok(url) = url::Url::parse(source) else {
                continue;
            };
            if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
                continue;
            }
            let origin = url.origin().ascii_serialization();
            if !origins.contains(&origin) {
                origins.push(origin);
            }
        }
        origins
    }

    /// The base of launch URLs, without a trailing slash.
    pub fn public_url(&self) -> String {
        match &self.public_url {
            Some(url) => url.trim_end_matches('/').to_owned(),
            None => format!("http://{}", self.addr),
        }
    }

    /// Refuses combinations that must never run.
    pub fn check(&self) -> Result<(), String> {
        if self.log.checkpoint_interval.is_zero()
            || self.log.leaves_per_page == 0
            || self.log.max_sales_per_pass == 0
        {
            return Err(
                "--checkpoint-interval-ms, --log-leaves-per-page and --log-max-sales-per-pass \
                 must be above 0"
                    .to_owned(),
            );
        }
        if self.demo_seed.is_some() && !self.demo && self.wallet.is_none() {
            return Err(
                "--demo-seed makes every ticket predictable: it is refused unless --demo is given \
                 (or --wallet, to test an operator's wallet)"
                    .to_owned(),
            );
        }
        if let Some(wallet) = &self.wallet {
            if let Some(problem) = wallet.url_problem() {
                return Err(problem);
            }
            if wallet.secret.is_empty() {
                return Err("--wallet-secret-file: the secret is empty".to_owned());
            }
            if wallet.timeout.is_zero() || wallet.retry.is_zero() {
                return Err("--wallet-timeout-ms and --wallet-retry-ms must be above 0".to_owned());
            }
            if wallet.outbox.retry_max < wallet.retry {
                return Err("--wallet-retry-max-ms must be at least --wallet-retry-ms".to_owned());
            }
            if wallet.outbox.concurrency == 0 || wallet.outbox.scan == 0 {
                return Err(
                    "--wallet-outbox-concurrency and --wallet-outbox-scan must be above 0"
                        .to_owned(),
                );
            }
        }
        let ancestors_ok = !self.frame_ancestors.trim().is_empty()
            && self
                .frame_ancestors
                .chars()
                .all(|c| c.is_ascii_graphic() && c != ';' && c != ',' || c == ' ');
        if !ancestors_ok {
            return Err(format!(
                "--frame-ancestors {:?}: give CSP sources separated by spaces, e.g. \"'self' https://portal.example\"",
                self.frame_ancestors
            ));
        }
        if self
            .protection
            .weekly_stake_limit_cents
            .is_some_and(|l| !(1..=MAX_LIMIT_CENTS).contains(&l))
        {
            return Err(format!(
                "--default-weekly-stake-limit must be 1..={MAX_LIMIT_CENTS} cents"
            ));
        }
        if !REALITY_CHECK_MINUTES.contains(&self.protection.reality_check_minutes) {
            return Err("--reality-check-minutes must be 15, 30 or 60".to_owned());
        }
        if let Some(url) = &self.public_url {
            check_public_url(url)?;
        }
        if self.max_batch == 0 {
            return Err("the sale batch size must be at least 1".to_owned());
        }
        if let Some(dealing) = &self.dealing {
            for url in std::iter::once(&dealing.beacon_url).chain(&dealing.beacon_relays) {
                if url::Url::parse(url).map_or(true, |u| !matches!(u.scheme(), "http" | "https")) {
                    return Err(format!(
                        "--beacon {url:?}: give the beacon's http(s) base URL"
                    ));
                }
            }
            let durations = [
                ("--deal-wait-ms", dealing.wait),
                ("--deal-poll-ms", dealing.poll),
                ("--beacon-timeout-ms", dealing.beacon_timeout),
            ];
            if let Some((flag, _)) = durations.iter().find(|(_, d)| d.is_zero()) {
                return Err(format!("{flag} must be above 0"));
            }
            if dealing.wait >= self.limits.request_timeout {
                return Err("--deal-wait-ms must be below --request-timeout-ms".to_owned());
            }
        }
        if self.pool_size == 0 {
            return Err("--pool-size must be at least 1".to_owned());
        }
        if !(1..=MAX_OPEN_BLOCKS_PER_LINE).contains(&self.open_blocks_per_line) {
            return Err(format!(
                "--open-blocks-per-line must be 1..={MAX_OPEN_BLOCKS_PER_LINE}"
            ));
        }
        // Purchases are bound to their block when bought: with a choice of
        // blocks, whoever runs the server could send a friend's purchase to
        // the block with the most prize money left per unsold ticket.
        if self.dealing.is_some() && self.open_blocks_per_line > 1 {
            return Err(
                "--open-blocks-per-line above 1 is refused with --beacon: the block a \
                 purchase is bought from would be the operator's choice"
                    .to_owned(),
            );
        }
        if self.block_poll.is_zero() {
            return Err("--block-poll-ms must be at least 1".to_owned());
        }
        let l = &self.limits;
        let durations = [
            ("--header-timeout-ms", l.header_timeout),
            ("--body-timeout-ms", l.body_timeout),
            ("--request-timeout-ms", l.request_timeout),
            ("--session-sweep-secs", l.session_sweep),
            ("--export-deadline-secs", l.export_deadline),
        ];
        for (flag, value) in durations {
            if value.is_zero() {
                return Err(format!("{flag} must be above 0"));
            }
        }
        let counts = [
            ("--max-in-flight", l.max_in_flight as u64),
            ("--max-connections", l.max_connections as u64),
            (
                "--max-connections-per-address",
                l.max_connections_per_address as u64,
            ),
            (
                "--demo-players-per-minute",
                l.demo_players_per_minute.into(),
            ),
            ("--sales-per-second", l.sales_per_second.into()),
            ("--launches-per-minute", l.launches_per_minute.into()),
            ("--session-cache", l.session_cache as u64),
            (
                "--max-sessions-per-player",
                l.max_sessions_per_player.into(),
            ),
            ("--report-max-days", l.report_max_days.into()),
            (
                "--console-session-minutes",
                l.console_session.as_secs() / 60,
            ),
            (
                "--console-sign-ins-per-minute",
                l.console_sign_ins_per_minute.into(),
            ),
        ];
        for (flag, value) in counts {
            if value == 0 {
                return Err(format!("{flag} must be at least 1"));
            }
        }
        Ok(())
    }
}

fn check_public_url(text: &str) -> Result<(), String> {
    let refused = || {
        format!("--public-url {text:?}: give the http(s) address of the game page, e.g. https://games.example")
    };
    let url = url::Url::parse(text).map_err(|_| refused())?;
    let plain = matches!(url.scheme(), "http" | "https")
        && url.host().is_some()
        && url.query().is_none()
        && url.fragment().is_none()
        && url.username().is_empty()
        && url.password().is_none();
    if plain {
        Ok(())
    } else {
        Err(refused())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_player_holds_twenty_sessions_by_default_and_never_none() {
        let mut config = Config::new("/tmp/unused");
        assert_eq!(config.limits.max_sessions_per_player, 20);
        config.check().unwrap();
        config.limits.max_sessions_per_player = 0;
        assert_eq!(
            config.check().unwrap_err(),
            "--max-sessions-per-player must be at least 1"
        );
        config.limits.max_sessions_per_player = 1;
        config.check().unwrap();
    }

    #[test]
    fn real_money_unless_seeded_and_play_money_only_in_demo_mode() {
        let mut config = Config::new("/tmp/unused");
        assert!(!config.demo, "demo mode is off unless asked for");
        assert_eq!(config.moneys(), vec![Money::Real]);
        config.demo = true;
        assert_eq!(config.moneys(), vec![Money::Real, Money::Play]);
        config.demo_seed = Some(7);
        assert_eq!(config.moneys(), vec![Money::Play]);
        config.demo = false;
        assert!(config.check().unwrap_err().contains("--demo"));
    }

    #[test]
    fn a_seed_with_a_seamless_wallet_draws_real_money_blocks() {
        let mut config = Config::new("/tmp/unused");
        config.demo_seed = Some(7);
        config.wallet = Some(WalletConfig {
            url: "http://wallet.internal:9000/eldorado".to_owned(),
            secret: b"s3cret".to_vec(),
            timeout: WalletConfig::DEFAULT_TIMEOUT,
            retry: WalletConfig::DEFAULT_RETRY,
            ca_pem: None,
            insecure_http: true,
            outbox: OutboxConfig::default(),
        });
        assert_eq!(config.moneys(), vec![Money::Real]);
        assert!(config.check().is_ok(), "no --demo needed with --wallet");
        assert!(
            !format!("{config:?}").contains("s3cret"),
            "the secret is never logged"
        );
        for url in [
            "wallet.internal",
            "http://",
            "http://a b",
            "ftp://wallet.example",
        ] {
            config.wallet.as_mut().unwrap().url = url.to_owned();
            assert!(config.check().unwrap_err().contains("--wallet"), "{url}");
        }
    }

    #[test]
    fn plain_http_reaches_only_this_machine_unless_the_operator_says_otherwise() {
        let mut config = Config::new("/tmp/unused");
        config.demo = true;
        let wallet = |url: &str, insecure_http: bool| WalletConfig {
            url: url.to_owned(),
            secret: b"s3cret".to_vec(),
            timeout: WalletConfig::DEFAULT_TIMEOUT,
            retry: WalletConfig::DEFAULT_RETRY,
            ca_pem: None,
            insecure_http,
            outbox: OutboxConfig::default(),
        };
        for url in [
            "https://wallet.example/eldorado",
            "https://10.0.0.7:8443",
            "http://127.0.0.1:9000/wallet",
            "http://127.8.9.10",
            "http://[::1]:9000",
            "http://localhost:9000",
        ] {
            config.wallet = Some(wallet(url, false));
            assert!(config.check().is_ok(), "{url}");
        }
        for url in [
            "http://wallet.internal:9000",
            "http://10.0.0.7",
            "http://[2001:db8::1]",
        ] {
            config.wallet = Some(wallet(url, false));
            let refused = config.check().unwrap_err();
            assert!(
                refused.contains("--wallet-insecure-http"),
                "{url}: {refused}"
            );
            config.wallet = Some(wallet(url, true));
            assert!(config.check().is_ok(), "{url} with --wallet-insecure-http");
        }
    }

    #[test]
    fn a_ca_file_without_a_certificate_is_refused_at_start() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("ca.pem");
        std::fs::write(&file, "not a certificate\n").unwrap();
        assert!(WalletConfig::read_ca_file(&file)
            .unwrap_err()
            .contains("no PEM certificate"));
        assert!(WalletConfig::read_ca_file(&dir.path().join("missing.pem")).is_err());
    }

    #[test]
    fn open_blocks_per_line_are_bounded_and_one_when_dealing_from_a_beacon() {
        let mut config = Config::new("/tmp/unused");
        for (open, ok) in [(0, false), (1, true), (3, true), (8, true), (9, false)] {
            config.open_blocks_per_line = open;
            assert_eq!(config.check().is_ok(), ok, "{open}");
        }
        config.dealing = Some(DealingConfig::new("http://127.0.0.1:1".into(), [0; 96]));
        config.open_blocks_per_line = 1;
        assert!(config.check().is_ok());
        config.open_blocks_per_line = 2;
        let refused = config.check().unwrap_err();
        assert!(refused.contains("--beacon"), "{refused}");
    }

    #[test]
    fn portal_origins_are_the_http_origins_of_frame_ancestors() {
        let mut config = Config::new("/tmp/unused");
        assert!(config.portal_origins().is_empty());
        config.frame_ancestors = "'self' https://portal.example http://localhost:9090/lobby \
             https://*.wild.example https: data: 'none' ftp://files.example HTTPS://Portal.Example:443"
            .to_owned();
        assert_eq!(
            config.portal_origins(),
            ["https://portal.example", "http://localhost:9090"]
        );
    }

    #[test]
    fn the_public_url_defaults_to_the_address_and_must_be_plain_http() {
        let mut config = Config::new("/tmp/unused");
        assert_eq!(config.public_url(), "http://127.0.0.1:8080");
        config.public_url = Some("https://games.example/eldorado/".to_owned());
        assert_eq!(config.public_url(), "https://games.example/eldorado");
        assert!(config.check().is_ok());
        for bad in [
            "games.example",
            "ftp://games.example",
            "https://games.example/?x=1",
            "https://games.example/#top",
            "https://user:pw@games.example",
        ] {
            config.public_url = Some(bad.to_owned());
            assert!(config.check().is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn the_wallet_secret_file_must_hold_a_secret() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("wallet.secret");
        std::fs::write(&file, "s3cret\n").unwrap();
        assert_eq!(WalletConfig::read_secret(&file).unwrap(), b"s3cret");
        std::fs::write(&file, "\n").unwrap();
        assert!(WalletConfig::read_secret(&file)
            .unwrap_err()
            .contains("empty"));
        let missing = WalletConfig::read_secret(&dir.path().join("nope")).unwrap_err();
        assert!(missing.contains("--wallet-secret-file"), "{missing}");
    }

    #[test]
    fn frame_ancestors_cannot_inject_other_directives() {
        let mut config = Config::new("/tmp/unused");
        config.frame_ancestors = "'self' https://portal.example".to_owned();
        assert!(config.check().is_ok());
        for bad in [
            "",
            "   ",
            "'self'; script-src *",
            "https://a.example,https://b.example",
            "x\ny",
        ] {
            config.frame_ancestors = bad.to_owned();
            assert!(config.check().is_err(), "{bad:?} accepted");
        }
    }
}
