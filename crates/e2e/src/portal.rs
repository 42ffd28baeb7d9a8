//! The example operator (`examples/portal`, binary `eldorado-portal`) as a
//! child process with a database of its own, and its books read straight
//! from that database: what the test compares the page with.

use crate::api::Api;
use crate::paths;
use crate::process::ChildGuard;
use crate::POLL;
use rusqlite::{Connection, OpenFlags};
use std::fs::File;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tempfile::TempDir;

const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);

/// How the portal is started.
pub struct PortalSetup<'a> {
    /// The loopback port it listens on, given to the game server beforehand
    /// (its wallet URL and frame ancestors).
    pub port: u16,
    /// The game server's URL for the portal's back end.
    pub game_url: &'a str,
    /// The game server's URL as the browser reaches it.
    pub game_public_url: &'a str,
    pub operator_api_key: &'a str,
    pub wallet_secret: &'a str,
    pub starting_balance_cents: u64,
}

pub struct Portal {
    pub base: String,
    pub log: PathBuf,
    database: PathBuf,
    // Dropped in this order: the process first, then its directory.
    _child: ChildGuard,
    _dir: TempDir,
}

/// One row of the portal's ledger.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LedgerRow {
    pub kind: String,
    pub amount_cents: i64,
    pub balance_after_cents: i64,
    pub round_id: Option<String>,
}

/// One wallet transaction id as the portal answered it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WalletRow {
    pub transaction_id: String,
    pub kind: String,
    pub round_id: String,
    pub amount_cents: i64,
    pub applied: bool,
    pub status: String,
}

/// A player's money at the operator.
#[derive(Clone, Debug)]
pub struct Books {
    pub balance_cents: u64,
    pub ledger: Vec<LedgerRow>,
    pub wallet: Vec<WalletRow>,
}

impl Portal {
    pub async fn start(tag: &str, setup: PortalSetup<'_>) -> Portal {
        let dir = tempfile::Builder::new()
            .prefix("eldorado-e2e-portal-")
            .tempdir()
            .expect("temporary portal directory");
        let key_file = dir.path().join("operator-api.key");
        let secret_file = dir.path().join("wallet.secret");
        std::fs::write(&key_file, setup.operator_api_key).expect("write the operator key");
        std::fs::write(&secret_file, setup.wallet_secret).expect("write the wallet secret");
        let database = dir.path().join("portal.sqlite3");
        let base = format!("http://127.0.0.1:{}", setup.port);
        let log = paths::out_dir().join(format!("portal-{tag}.log"));
        let stderr =
            File::create(&log).unwrap_or_else(|e| panic!("cannot create {}: {e}", log.display()));
        let mut command = Command::new(paths::portal_bin());
        command
            .arg("--addr")
            .arg(format!("127.0.0.1:{}", setup.port))
            .arg("--public-url")
            .arg(&base)
            .arg("--game-url")
            .arg(setup.game_url)
            .arg("--game-public-url")
            .arg(setup.game_public_url)
            .arg("--operator-key-file")
            .arg(&key_file)
            .arg("--wallet-secret-file")
            .arg(&secret_file)
            .arg("--database")
            .arg(&database)
            .arg("--starting-balance-cents")
            .arg(setup.starting_balance_cents.to_string())
            .env("RUST_LOG", "info")
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr);
        let mut child = ChildGuard::spawn("eldorado-portal", command);
        let api = Api::new(&base);
        let started = Instant::now();
        loop {
            if let Some(status) = child.exited() {
                let text = std::fs::read_to_string(&log).unwrap_or_default();
                panic!("eldorado-portal exited with {status}:\n{text}");
            }
            if let Ok((status, _)) = api.get_raw("/", None).await {
                if status.is_success() {
                    return Portal {
                        base,
                        log,
                        database,
                        _child: child,
                        _dir: dir,
                    };
                }
            }
            assert!(
                started.elapsed() < STARTUP_TIMEOUT,
                "eldorado-portal did not answer within {STARTUP_TIMEOUT:?}; log: {}",
                log.display()
            );
            tokio::time::sleep(POLL * 5).await;
        }
    }

    /// The player's balance, ledger and wallet transactions, oldest first,
    /// read from the portal's database (read-only, beside the running portal).
    pub fn books(&self, player_id: &str) -> Books {
        let db = Connection::open_with_flags(&self.database, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap_or_else(|e| panic!("open {}: {e}", self.database.display()));
        let balance: i64 = db
            .query_row(
                "SELECT balance_cents FROM players WHERE player_id = ?1",
                [player_id],
                |row| row.get(0),
            )
            .unwrap_or_else(|e| panic!("balance of {player_id}: {e}"));
        let mut ledger = db
            .prepare(
                "SELECT kind, amount_cents, balance_after_cents, round_id FROM ledger
                 WHERE player_id = ?1 ORDER BY entry_id",
            )
            .expect("ledger query");
        let ledger = ledger
            .query_map([player_id], |row| {
                Ok(LedgerRow {
                    kind: row.get(0)?,
                    amount_cents: row.get(1)?,
                    balance_after_cents: row.get(2)?,
                    round_id: row.get(3)?,
                })
            })
            .and_then(Iterator::collect)
            .expect("ledger rows");
        let mut wallet = db
            .prepare(
                "SELECT transaction_id, kind, round_id, amount_cents, applied, status
                 FROM wallet_transactions WHERE player_id = ?1 ORDER BY at_ms, rowid",
            )
            .expect("wallet query");
        let wallet = wallet
            .query_map([player_id], |row| {
                Ok(WalletRow {
                    transaction_id: row.get(0)?,
                    kind: row.get(1)?,
                    round_id: row.get(2)?,
                    amount_cents: row.get(3)?,
                    applied: row.get(4)?,
                    status: row.get(5)?,
                })
            })
            .and_then(Iterator::collect)
            .expect("wallet rows");
        Books {
            balance_cents: u64::try_from(balance).expect("a balance is never negative"),
            ledger,
            wallet,
        }
    }
}
