//! What `eldorado serve` is told on its command line.

use crate::database::Database;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

pub const DEFAULT_STARTING_BALANCE_CENTS: u64 = 5_000;

#[derive(Clone, Debug)]
pub struct Config {
    pub addr: SocketAddr,
    /// Holds the SQLite file and the operator keys.
    pub data_dir: PathBuf,
    /// Holds `index.html` and `www/`.
    pub web_dir: PathBuf,
    /// Lets the page create play-money players.
    pub demo: bool,
    /// Test only: blocks drawn from seeds derived from this number.
    pub demo_seed: Option<u64>,
    pub starting_balance_cents: u64,
    pub session_ttl: Duration,
    /// Most sales committed in one transaction.
    pub max_batch: usize,
    /// Largest request body accepted, in bytes.
    pub body_limit: usize,
    /// CSP `frame-ancestors` sources: who may embed the game in an iframe.
    pub frame_ancestors: String,
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
            demo: true,
            demo_seed: None,
            starting_balance_cents: DEFAULT_STARTING_BALANCE_CENTS,
            session_ttl: Duration::from_secs(24 * 3600),
            max_batch: 512,
            body_limit: 16 * 1024,
            frame_ancestors: "'self'".to_owned(),
            database: None,
            pool_size: 16,
            key_file: None,
            block_poll: Duration::from_secs(1),
        }
    }

    /// Refuses combinations that must never run.
    pub fn check(&self) -> Result<(), String> {
        if self.demo_seed.is_some() && !self.demo {
            return Err(
                "--demo-seed makes every ticket predictable: it is refused unless demo mode is on"
                    .to_owned(),
            );
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
        if self.max_batch == 0 {
            return Err("the sale batch size must be at least 1".to_owned());
        }
        if self.pool_size == 0 {
            return Err("--pool-size must be at least 1".to_owned());
        }
        if self.block_poll.is_zero() {
            return Err("--block-poll-ms must be at least 1".to_owned());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
