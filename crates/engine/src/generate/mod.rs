//! Generating a block of 400,000 tickets with the exact counts of SPEC §2.
//!
//! The block is first planned as one compact outcome per ticket (exact counts
//! per rank, direct or via Extras, teasers, Extras split), the plan is put in
//! a uniformly random order, and only then is each ticket drawn, salted and
//! hashed in sale order.

pub mod lines;

use crate::commit::{leaf_hash, Commitment, Money};
use crate::fixed_bytes::{Hash, Salt};
use crate::grid::{Grid, ROWS};
use crate::merkle::{MerkleTree, ProofError};
use crate::prize_table::{losing_tickets, Rank, BLOCK_TICKETS, RANKS};
use crate::stake::Stake;
use crate::ticket::{Ticket, MAX_EXTRAS};
use lines::{build_grid, LineKind, Palette};
use rand::distr::{weighted::WeightedIndex, Distribution};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand::{CryptoRng, Rng};
use rand_chacha::ChaCha20Rng as BlockRng;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The free choices of SPEC §5, with its defaults.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Params {
    /// Losing tickets that still get Extras.
    pub teasers: u32,
    /// Relative weights of 1, 2 and 3 Extras, applied exactly (largest
    /// remainder) within each group of tickets that get Extras.
    pub extras_split: [u32; 3],
    /// Per rank (rank 1 first), relative weights of its allowed decompositions,
    /// drawn per ticket.
    pub decomposition_weights: Vec<Vec<u32>>,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            teasers: RANKS.iter().map(|r| r.via_extras).sum(),
            extras_split: [70, 22, 8],
            decomposition_weights: RANKS
                .iter()
                .map(|r| vec![1; r.decompositions.len()])
                .collect(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParamsError {
    #[error("{teasers} teasers asked but a block has only {losers} losing tickets")]
    TooManyTeasers { teasers: u32, losers: u32 },
    #[error("the Extras split needs at least one non-zero weight")]
    EmptySplit,
    #[error("decomposition weights are needed for each of the 10 ranks, one per allowed decomposition, not all zero (rank {rank})")]
    BadDecompositionWeights { rank: u8 },
}

impl Params {
    pub fn check(&self) -> Result<(), ParamsError> {
        if self.teasers > losing_tickets() {
            return Err(ParamsError::TooManyTeasers {
                teasers: self.teasers,
                losers: losing_tickets(),
            });
        }
        if self.extras_split.iter().all(|&w| w == 0) {
            return Err(ParamsError::EmptySplit);
        }
        if self.decomposition_weights.len() != RANKS.len() {
            return Err(ParamsError::BadDecompositionWeights { rank: 0 });
        }
        for (rank, weights) in RANKS.iter().zip(&self.decomposition_weights) {
            if weights.len() != rank.decompositions.len() || weights.iter().all(|&w| w == 0) {
                return Err(ParamsError::BadDecompositionWeights { rank: rank.rank });
            }
        }
        Ok(())
    }
}

/// One ticket's outcome before it is drawn. `rank` indexes [`RANKS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Plan {
    Lose { extras: u8 },
    Win { rank: u8, extras: u8 },
}

/// Splits `total` by `weights` exactly: floors first, then the largest
/// remainders (ties to the earlier weight) get one more each.
pub fn apportion(total: u32, weights: &[u32]) -> Vec<u32> {
    let sum: u64 = weights.iter().map(|&w| u64::from(w)).sum();
    let mut shares: Vec<u32> = weights
        .iter()
        .map(|&w| (u64::from(total) * u64::from(w) / sum) as u32)
        .collect();
    let mut order: Vec<usize> = (0..weights.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(u64::from(total) * u64::from(weights[i]) % sum));
    let missing = total - shares.iter().sum::<u32>();
    for &i in order.iter().take(missing as usize) {
        shares[i] += 1;
    }
    shares
}

/// Extras counts (1..=3) for a group of `count` tickets, in split order.
fn extras_for_group(count: u32, split: &[u32; 3]) -> impl Iterator<Item = u8> {
    apportion(count, split)
        .into_iter()
        .zip(1..=MAX_EXTRAS)
        .flat_map(|(n, extras)| std::iter::repeat_n(extras, n as usize))
}

fn plan_block(params: &Params) -> Vec<Plan> {
    let mut plans = Vec::with_capacity(BLOCK_TICKETS as usize);
    for (index, rank) in RANKS.iter().enumerate() {
        let rank_index = index as u8;
        plans.extend(std::iter::repeat_n(
            Plan::Win {
                rank: rank_index,
                extras: 0,
            },
            rank.direct as usize,
        ));
        plans.extend(
            extras_for_group(rank.via_extras, &params.extras_split).map(|extras| Plan::Win {
                rank: rank_index,
                extras,
            }),
        );
    }
    plans.extend(
        extras_for_group(params.teasers, &params.extras_split).map(|extras| Plan::Lose { extras }),
    );
    plans.resize(BLOCK_TICKETS as usize, Plan::Lose { extras: 0 });
    plans
}

/// Draws the grids of planned tickets.
pub struct Drawer {
    palette: Palette,
    decompositions: Vec<WeightedIndex<u32>>,
}

impl Drawer {
    /// `params` must have passed [`Params::check`].
    pub fn new(params: &Params) -> Drawer {
        Drawer {
            palette: Palette::new(),
            decompositions: params
                .decomposition_weights
                .iter()
                .map(|w| WeightedIndex::new(w).expect("weights checked by Params::check"))
                .collect(),
        }
    }

    fn wins<R: Rng + ?Sized>(&self, rng: &mut R, rank: &Rank, rank_index: usize) -> Vec<LineKind> {
        let decomposition = rank.decompositions[self.decompositions[rank_index].sample(rng)];
        decomposition
            .iter()
            .map(|&amount| {
                self.palette
                    .win(rng, amount)
                    .expect("every table amount has a line")
            })
            .collect()
    }

    fn draw_grids<R: Rng + ?Sized>(&self, rng: &mut R, plan: Plan) -> Vec<Grid> {
        let (extras, wins) = match plan {
            Plan::Lose { extras } => (extras, Vec::new()),
            Plan::Win { rank, extras } => {
                let index = usize::from(rank);
                (extras, self.wins(rng, &RANKS[index], index))
            }
        };
        if extras == 0 {
            return vec![build_grid(rng, fill_rows(&wins))];
        }
        let mut main = [LineKind::Lose; ROWS];
        for row in main.iter_mut().take(usize::from(extras)) {
            *row = self.palette.extra(rng);
        }
        let mut per_grid: Vec<Vec<LineKind>> = vec![Vec::new(); usize::from(extras)];
        for line in wins {
            let open: Vec<usize> = (0..per_grid.len())
                .filter(|&g| per_grid[g].len() < ROWS)
                .collect();
            per_grid[open[rng.random_range(0..open.len())]].push(line);
        }
        let mut grids = Vec::with_capacity(1 + per_grid.len());
        grids.push(build_grid(rng, main));
        grids.extend(
            per_grid
                .iter()
                .map(|lines| build_grid(rng, fill_rows(lines))),
        );
        grids
    }
}

impl Drawer {
    /// Draws a whole ticket: grids as `plan` says, claims, and a fresh salt.
    pub fn draw<R: Rng + CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        position: u32,
        stake: Stake,
        plan: Plan,
    ) -> Ticket {
        let grids = self.draw_grids(rng, plan);
        let (extras, prize_cents) = match plan {
            Plan::Lose { extras } => (extras, 0),
            Plan::Win { rank, extras } => (
                extras,
                u64::from(RANKS[usize::from(rank)].multiple) * stake.cents(),
            ),
        };
        let mut salt = Salt([0; Salt::LEN]);
        rng.fill_bytes(&mut salt.0);
        Ticket {
            position,
            stake_cents: stake.cents(),
            grids,
            prize_cents,
            extras,
            salt,
        }
    }
}

/// The given lines, then losing lines up to a full grid.
fn fill_rows(lines: &[LineKind]) -> [LineKind; ROWS] {
    let mut rows = [LineKind::Lose; ROWS];
    rows[..lines.len()].copy_from_slice(lines);
    rows
}

/// A generated block: its tickets in sale order and their Merkle tree.
#[derive(Clone, Debug)]
pub struct Block {
    pub id: u64,
    pub stake: Stake,
    pub params: Params,
    pub tickets: Vec<Ticket>,
    pub tree: MerkleTree,
}

impl Block {
    pub fn root(&self) -> Hash {
        self.tree.root()
    }

    /// The commitment to this block, for tickets sold for `money`.
    pub fn commitment(&self, money: Money) -> Commitment {
        Commitment::new(
            self.id,
            self.stake.cents(),
            self.tickets.len() as u32,
            money,
            self.root(),
        )
    }

    pub fn proof(&self, position: u32) -> Result<Vec<Hash>, ProofError> {
        self.tree.proof(position)
    }
}

/// The generator for block `block` of a demo run seeded with `seed`
/// (`eldorado serve --demo-seed`): SHA-256 of `"ELDORADO-DEMO-SEED-V1" ||
/// seed u64 || block u64` seeds ChaCha20. Every ticket is then predictable,
/// which is the point for tests and the danger anywhere else.
pub fn demo_rng(seed: u64, block: u64) -> BlockRng {
    let mut hasher = Sha256::new();
    hasher.update(b"ELDORADO-DEMO-SEED-V1");
    hasher.update(seed.to_be_bytes());
    hasher.update(block.to_be_bytes());
    BlockRng::from_seed(hasher.finalize().into())
}

/// Generates block `id` at `stake`. `rng` must be a CSPRNG seeded from the
/// OS in production; a fixed seed is for tests and demos only.
pub fn generate_block<R: Rng + CryptoRng + ?Sized>(
    id: u64,
    stake: Stake,
    params: &Params,
    rng: &mut R,
) -> Result<Block, ParamsError> {
    params.check()?;
    let mut plans = plan_block(params);
    plans.shuffle(rng);
    let drawer = Drawer::new(params);
    let mut tickets = Vec::with_capacity(plans.len());
    let mut leaves = Vec::with_capacity(plans.len());
    for (position, plan) in plans.into_iter().enumerate() {
        let ticket = drawer.draw(rng, position as u32, stake, plan);
        leaves.push(leaf_hash(id, &ticket));
        tickets.push(ticket);
    }
    Ok(Block {
        id,
        stake,
        params: params.clone(),
        tickets,
        tree: MerkleTree::build(leaves),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apportion_is_exact_and_proportional() {
        assert_eq!(apportion(100, &[70, 22, 8]), vec![70, 22, 8]);
        assert_eq!(apportion(12, &[70, 22, 8]), vec![8, 3, 1]);
        assert_eq!(apportion(14_834, &[70, 22, 8]).iter().sum::<u32>(), 14_834);
        assert_eq!(apportion(1, &[0, 0, 5]), vec![0, 0, 1]);
        assert_eq!(apportion(0, &[70, 22, 8]), vec![0, 0, 0]);
    }

    #[test]
    fn plan_has_exact_counts() {
        let plans = plan_block(&Params::default());
        assert_eq!(plans.len(), 400_000);
        for (index, rank) in RANKS.iter().enumerate() {
            let direct = plans
                .iter()
                .filter(|p| {
                    **p == Plan::Win {
                        rank: index as u8,
                        extras: 0,
                    }
                })
                .count();
            let via = plans
                .iter()
                .filter(|p| matches!(p, Plan::Win { rank, extras } if usize::from(*rank) == index && *extras > 0))
                .count();
            assert_eq!(
                (direct as u32, via as u32),
                (rank.direct, rank.via_extras),
                "rank {}",
                rank.rank
            );
        }
        let teasers = plans
            .iter()
            .filter(|p| matches!(p, Plan::Lose { extras } if *extras > 0))
            .count();
        assert_eq!(teasers, 14_834);
    }

    #[test]
    fn bad_params_are_refused() {
        let mut params = Params {
            teasers: 339_561,
            ..Params::default()
        };
        assert!(matches!(
            params.check(),
            Err(ParamsError::TooManyTeasers { .. })
        ));
        params.teasers = 0;
        params.extras_split = [0, 0, 0];
        assert_eq!(params.check(), Err(ParamsError::EmptySplit));
        params.extras_split = [1, 0, 0];
        params.decomposition_weights[1] = vec![0, 0];
        assert_eq!(
            params.check(),
            Err(ParamsError::BadDecompositionWeights { rank: 2 })
        );
        params.decomposition_weights.pop();
        assert_eq!(
            params.check(),
            Err(ParamsError::BadDecompositionWeights { rank: 0 })
        );
    }
}
