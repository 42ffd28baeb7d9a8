//! What `eldorado serve` is told on its command line.

use eldorado_engine::Money;
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
    pub frame_ancestors: String,
}

impl Config {
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
        }
    }

    /// The kinds of money the server keeps blocks on sale for: real money
    /// unless blocks are drawn from a fixed seed, play money in demo mode.
    pub fn moneys(&self) -> Vec<Money> {
        let mut moneys = Vec::new();
        if self.demo_seed.is_none() {
            moneys.push(Money::Real);
        }
        if self.demo {
            moneys.push(Money::Play);
        }
        moneys
    }

    /// Refuses combinations that must never run.
    pub fn check(&self) -> Result<(), String> {
        if self.demo_seed.is_some() && !self.demo {
            return Err(
                "--demo-seed makes every ticket predictable: it is refused unless --demo is given"
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
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
