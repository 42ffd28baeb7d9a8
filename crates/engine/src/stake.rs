//! The three stakes of SPEC §1, in cents.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A valid stake. Anything else than 50, 100 or 200 cents cannot be built.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "u64", into = "u64")]
pub struct Stake(u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid stake {0} cents: the stakes are 50, 100 and 200 cents")]
pub struct InvalidStake(pub u64);

impl Stake {
    pub const HALF_EURO: Stake = Stake(50);
    pub const ONE_EURO: Stake = Stake(100);
    pub const TWO_EUROS: Stake = Stake(200);
    pub const ALL: [Stake; 3] = [Stake::HALF_EURO, Stake::ONE_EURO, Stake::TWO_EUROS];

    pub fn from_cents(cents: u64) -> Result<Stake, InvalidStake> {
        match cents {
            50 | 100 | 200 => Ok(Stake(cents as u32)),
            _ => Err(InvalidStake(cents)),
        }
    }

    pub const fn cents(self) -> u64 {
        self.0 as u64
    }
}

impl TryFrom<u64> for Stake {
    type Error = InvalidStake;
    fn try_from(cents: u64) -> Result<Self, Self::Error> {
        Stake::from_cents(cents)
    }
}

impl From<Stake> for u64 {
    fn from(stake: Stake) -> u64 {
        stake.cents()
    }
}

impl fmt::Display for Stake {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} cents", self.0)
    }
}
