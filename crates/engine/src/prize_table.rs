//! The prize table of SPEC §2 as data, and what follows from it.

use crate::stake::Stake;
use sha2::{Digest, Sha256};

/// Tickets in every block (SPEC §1).
pub const BLOCK_TICKETS: u32 = 400_000;

/// One rank of the prize table. Amounts are multiples of the stake.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rank {
    /// 1 is the top prize.
    pub rank: u8,
    pub multiple: u32,
    /// Tickets of this rank per block.
    pub count: u32,
    /// Of which shown directly on the main grid.
    pub direct: u32,
    /// Of which shown on Extra grids.
    pub via_extras: u32,
    /// Allowed line decompositions, each sorted from the largest line down.
    pub decompositions: &'static [&'static [u32]],
}

/// SPEC §2, row by row.
pub const RANKS: [Rank; 10] = [
    Rank {
        rank: 1,
        multiple: 7000,
        count: 2,
        direct: 2,
        via_extras: 0,
        decompositions: &[&[7000]],
    },
    Rank {
        rank: 2,
        multiple: 450,
        count: 4,
        direct: 4,
        via_extras: 0,
        decompositions: &[&[450], &[150, 150, 150]],
    },
    Rank {
        rank: 3,
        multiple: 150,
        count: 40,
        direct: 28,
        via_extras: 12,
        decompositions: &[&[150], &[50, 50, 50]],
    },
    Rank {
        rank: 4,
        multiple: 50,
        count: 94,
        direct: 52,
        via_extras: 42,
        decompositions: &[&[50], &[25, 25]],
    },
    Rank {
        rank: 5,
        multiple: 25,
        count: 300,
        direct: 120,
        via_extras: 180,
        decompositions: &[&[25], &[10, 10, 5]],
    },
    Rank {
        rank: 6,
        multiple: 10,
        count: 2_000,
        direct: 1_000,
        via_extras: 1_000,
        decompositions: &[&[10], &[5, 5]],
    },
    Rank {
        rank: 7,
        multiple: 7,
        count: 8_000,
        direct: 6_400,
        via_extras: 1_600,
        decompositions: &[&[5, 2]],
    },
    Rank {
        rank: 8,
        multiple: 5,
        count: 10_000,
        direct: 6_000,
        via_extras: 4_000,
        decompositions: &[&[5]],
    },
    Rank {
        rank: 9,
        multiple: 4,
        count: 20_000,
        direct: 16_000,
        via_extras: 4_000,
        decompositions: &[&[2, 2]],
    },
    Rank {
        rank: 10,
        multiple: 2,
        count: 20_000,
        direct: 16_000,
        via_extras: 4_000,
        decompositions: &[&[2]],
    },
];

/// The rank whose prize is `multiple` stakes, if any.
pub fn rank_of_multiple(multiple: u64) -> Option<&'static Rank> {
    RANKS.iter().find(|r| u64::from(r.multiple) == multiple)
}

pub fn winning_tickets() -> u32 {
    RANKS.iter().map(|r| r.count).sum()
}

pub fn losing_tickets() -> u32 {
    BLOCK_TICKETS - winning_tickets()
}

/// Sum of all prizes of a block, in stakes.
pub fn total_multiple() -> u64 {
    RANKS
        .iter()
        .map(|r| u64::from(r.multiple) * u64::from(r.count))
        .sum()
}

/// Sum of all prizes of a block at `stake`, in cents.
pub fn total_prizes_cents(stake: Stake) -> u64 {
    total_multiple() * stake.cents()
}

/// Return to player as an exact fraction (numerator, denominator) of stakes.
pub fn rtp_fraction() -> (u64, u64) {
    (total_multiple(), u64::from(BLOCK_TICKETS))
}

/// Return to player in basis points (7000 = 70.00 %), rounded down.
pub fn rtp_basis_points() -> u64 {
    let (num, den) = rtp_fraction();
    num * 10_000 / den
}

/// The largest prize at `stake`, in cents.
pub fn max_win_cents(stake: Stake) -> u64 {
    let top = RANKS.iter().map(|r| r.multiple).max().unwrap_or(0);
    u64::from(top) * stake.cents()
}

/// "1 in N wins", as an exact fraction (tickets, winners).
pub fn odds_fraction() -> (u64, u64) {
    (u64::from(BLOCK_TICKETS), u64::from(winning_tickets()))
}

/// SHA-256 over the canonical bytes of the table (docs/PROTOCOL.md §Prize
/// table digest), committed with every block.
pub fn prize_table_digest() -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(b"ELDORADO-PRIZES-V1");
    hasher.update(BLOCK_TICKETS.to_be_bytes());
    hasher.update([RANKS.len() as u8]);
    for rank in &RANKS {
        hasher.update([rank.rank]);
        hasher.update(rank.multiple.to_be_bytes());
        hasher.update(rank.count.to_be_bytes());
        hasher.update(rank.direct.to_be_bytes());
        hasher.update(rank.via_extras.to_be_bytes());
        hasher.update([rank.decompositions.len() as u8]);
        for decomposition in rank.decompositions {
            hasher.update([decomposition.len() as u8]);
            for amount in *decomposition {
                hasher.update(amount.to_be_bytes());
            }
        }
    }
    hasher.finalize().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_matches_spec_totals() {
        assert_eq!(winning_tickets(), 60_440);
        assert_eq!(losing_tickets(), 339_560);
        assert_eq!(total_multiple(), 280_000);
        assert_eq!(RANKS.iter().map(|r| r.direct).sum::<u32>(), 45_606);
        assert_eq!(RANKS.iter().map(|r| r.via_extras).sum::<u32>(), 14_834);
        assert_eq!(total_prizes_cents(Stake::HALF_EURO), 14_000_000);
        assert_eq!(total_prizes_cents(Stake::ONE_EURO), 28_000_000);
        assert_eq!(total_prizes_cents(Stake::TWO_EUROS), 56_000_000);
        assert_eq!(rtp_basis_points(), 7_000);
        assert_eq!(max_win_cents(Stake::TWO_EUROS), 1_400_000);
        let (tickets, winners) = odds_fraction();
        assert_eq!(tickets * 100 / winners, 661); // 1 in 6.62, rounded from 6.618
    }

    #[test]
    fn every_rank_is_consistent() {
        for rank in &RANKS {
            assert_eq!(
                rank.direct + rank.via_extras,
                rank.count,
                "rank {}",
                rank.rank
            );
            for decomposition in rank.decompositions {
                assert_eq!(decomposition.iter().sum::<u32>(), rank.multiple);
                assert!(decomposition.len() <= 3);
                assert!(decomposition.windows(2).all(|w| w[0] >= w[1]));
            }
        }
    }
}
