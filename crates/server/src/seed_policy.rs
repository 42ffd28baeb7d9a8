//! Which data directories a server may open, given how it seeds blocks.
//!
//! A block drawn from a fixed `--demo-seed` is predictable to anyone who
//! knows the seed, so such blocks live only on a server started with that
//! seed, and a seeded server never shares a data directory with real money:
//! a seed given for a test must not outlive its run and end up on sale.

use crate::config::Config;
use crate::store::{BlockSeeding, BlockStatus, PlayerKind, Store, StoreError};
use eldorado_engine::Money;
use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum SeedPolicyError {
    #[error(
        "data directory {dir} holds open or pending blocks drawn from a fixed --demo-seed \
         (blocks {blocks}): anyone who knows the seed knows their tickets, so a server without \
         --demo-seed will not sell them. Start with a fresh data directory (--data DIR), or run \
         this one again with --demo --demo-seed N for tests and demos only"
    )]
    SeededBlocksOnHand { dir: String, blocks: String },
    #[error(
        "--demo-seed {seed} is refused on data directory {dir}: it holds {holds}, and a fixed \
         seed makes every ticket predictable. Give the seeded server a fresh data directory of \
         its own (--data DIR)"
    )]
    DemoSeedOnRealMoney {
        seed: u64,
        dir: String,
        holds: String,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Refuses to start `config` on the data of `store` (at `dir`) when that
/// would put seeded blocks on sale without the seed, or a seed beside real
/// money. Reads only.
pub fn check(store: &dyn Store, config: &Config, dir: &Path) -> Result<(), SeedPolicyError> {
    let blocks = store.blocks()?;
    let dir = dir.display().to_string();
    match config.demo_seed {
        None => {
            let seeded: Vec<String> = blocks
                .iter()
                .filter(|b| {
                    b.seeding == BlockSeeding::Demo
                        && matches!(b.status, BlockStatus::Open | BlockStatus::Pending)
                })
                .map(|b| b.id().to_string())
                .collect();
            if !seeded.is_empty() {
                return Err(SeedPolicyError::SeededBlocksOnHand {
                    dir,
                    blocks: seeded.join(", "),
                });
            }
        }
        // With --wallet, real-money blocks are seeded too, to test an
        // operator's integration; only blocks from OS randomness (a real
        // deployment's) are refused, and its operator players with them.
        Some(seed) if config.wallet.is_some() => {
            let real = blocks
                .iter()
                .filter(|b| b.money() == Money::Real && b.seeding == BlockSeeding::Os)
                .count();
            if real > 0 {
                return Err(SeedPolicyError::DemoSeedOnRealMoney {
                    seed,
                    dir,
                    holds: format!("{real} real-money blocks drawn from OS randomness"),
                });
            }
        }
        Some(seed) => {
            let mut holds = Vec::new();
            if store.has_players(PlayerKind::Operator)? {
                holds.push("operator players".to_owned());
            }
            let real = blocks.iter().filter(|b| b.money() == Money::Real).count();
            if real > 0 {
                holds.push(format!("{real} real-money blocks"));
            }
            if !holds.is_empty() {
                return Err(SeedPolicyError::DemoSeedOnRealMoney {
                    seed,
                    dir,
                    holds: holds.join(" and "),
                });
            }
        }
    }
    Ok(())
}
