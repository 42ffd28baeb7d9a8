//! A ticket and its evaluation under SPEC §5.

use crate::fixed_bytes::Salt;
use crate::grid::{Grid, ROWS};
use crate::line::{evaluate_line, LineError, LineOutcome};
use crate::prize_table::{rank_of_multiple, Rank};
use crate::stake::Stake;
use serde::{Deserialize, Serialize};

/// Most Extra grids a ticket can have: one per line of the main grid.
pub const MAX_EXTRAS: u8 = ROWS as u8;

/// A ticket as sold and disclosed: its place in the block, what it shows and
/// what it claims, and the salt that hides it until sale.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ticket {
    /// 0-based place in the block's sale order.
    pub position: u32,
    pub stake_cents: u64,
    /// Main grid first, then the Extra grids in reveal order.
    pub grids: Vec<Grid>,
    pub prize_cents: u64,
    pub extras: u8,
    pub salt: Salt,
}

/// Why a ticket breaks the rules. `grid` is 0 for the main grid, 1..=3 for
/// the Extra grids; `row` is 0..=2 from the top.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TicketError {
    #[error("stake of {0} cents is not 50, 100 or 200")]
    BadStake(u64),
    #[error("a ticket has a main grid")]
    NoGrid,
    #[error("grid {grid}, line {row}: two or more Chance symbols on one line")]
    SeveralChance { grid: usize, row: usize },
    #[error("grid {grid}, line {row}: two combinations on one line")]
    TwoCombinations { grid: usize, row: usize },
    #[error("grid {grid} holds both winning lines and Extra lines")]
    WinsAndExtras { grid: usize },
    #[error("Extra grid {grid}, line {row}: Extra grids hold no Extra lines")]
    ExtraLineOnExtraGrid { grid: usize, row: usize },
    #[error(
        "the main grid gives {extra_lines} Extras but the ticket has {extra_grids} Extra grids"
    )]
    WrongExtraGridCount { extra_lines: u8, extra_grids: usize },
    #[error("the ticket claims {claimed} Extras but its main grid gives {actual}")]
    ExtrasMismatch { claimed: u8, actual: u8 },
    #[error("the ticket claims {claimed_cents} cents but its lines pay {lines_cents} cents")]
    PrizeMismatch {
        claimed_cents: u64,
        lines_cents: u64,
    },
    #[error(
        "winning lines {} (in stakes) are not an allowed decomposition of any rank",
        Bracketed(lines)
    )]
    DecompositionNotAllowed { lines: Vec<u32> },
}

/// Writes `[1, 2, 5]`, the text `{:?}` gives a list, without bringing the
/// generic `Debug` list machinery into the browser bundle.
struct Bracketed<'a>(&'a [u32]);

impl std::fmt::Display for Bracketed<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("[")?;
        for (i, n) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{n}")?;
        }
        f.write_str("]")
    }
}

/// One line of a ticket that wins or gives an Extra.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScoredLine {
    pub grid: usize,
    pub row: usize,
    pub outcome: LineOutcome,
}

/// What a valid ticket pays and shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Evaluation {
    pub stake: Stake,
    /// Winning and Extra lines, grid by grid, top to bottom.
    pub lines: Vec<ScoredLine>,
    pub extras: u8,
    /// Sum of the winning lines, in stakes.
    pub prize_multiple: u64,
    /// The prize rank, `None` for a losing ticket.
    pub rank: Option<&'static Rank>,
}

impl Evaluation {
    pub fn prize_cents(&self) -> u64 {
        self.prize_multiple * self.stake.cents()
    }

    /// A winning ticket whose win is shown on Extra grids.
    pub fn wins_via_extras(&self) -> bool {
        self.rank.is_some() && self.extras > 0
    }

    /// Line amounts in stakes, largest first.
    pub fn win_amounts(&self) -> Vec<u32> {
        // An insertion sort of a handful of numbers: the slice sort's
        // machinery would cost the browser bundle about 5 KB, a binary heap
        // a few hundred bytes, for the same result.
        let mut amounts: Vec<u32> = Vec::new();
        for line in &self.lines {
            if let LineOutcome::Win { multiple, .. } = line.outcome {
                let at = amounts
                    .iter()
                    .position(|&a| a < multiple)
                    .unwrap_or(amounts.len());
                amounts.insert(at, multiple);
            }
        }
        amounts
    }
}

/// Evaluates grids under the rules, independently of any claim.
pub fn evaluate_grids(stake_cents: u64, grids: &[Grid]) -> Result<Evaluation, TicketError> {
    let stake = Stake::from_cents(stake_cents).map_err(|_| TicketError::BadStake(stake_cents))?;
    if grids.is_empty() {
        return Err(TicketError::NoGrid);
    }
    let mut lines = Vec::new();
    let mut extras = 0u8;
    for (g, grid) in grids.iter().enumerate() {
        let (mut wins, mut extra_lines) = (false, false);
        for (row, cells) in grid.rows().iter().enumerate() {
            let outcome = evaluate_line(cells).map_err(|error| match error {
                LineError::SeveralChance(_) => TicketError::SeveralChance { grid: g, row },
                LineError::TwoCombinations(..) => TicketError::TwoCombinations { grid: g, row },
            })?;
            match outcome {
                LineOutcome::Lose => continue,
                LineOutcome::Win { .. } => wins = true,
                LineOutcome::Extra { .. } if g > 0 => {
                    return Err(TicketError::ExtraLineOnExtraGrid { grid: g, row })
                }
                LineOutcome::Extra { .. } => {
                    extra_lines = true;
                    extras += 1;
                }
            }
            lines.push(ScoredLine {
                grid: g,
                row,
                outcome,
            });
        }
        if wins && extra_lines {
            return Err(TicketError::WinsAndExtras { grid: g });
        }
    }
    if grids.len() - 1 != usize::from(extras) {
        return Err(TicketError::WrongExtraGridCount {
            extra_lines: extras,
            extra_grids: grids.len() - 1,
        });
    }
    let mut evaluation = Evaluation {
        stake,
        lines,
        extras,
        prize_multiple: 0,
        rank: None,
    };
    let amounts = evaluation.win_amounts();
    let total: u64 = amounts.iter().map(|&a| u64::from(a)).sum();
    if total > 0 {
        let rank = rank_of_multiple(total)
            .filter(|rank| rank.decompositions.contains(&amounts.as_slice()))
            .ok_or(TicketError::DecompositionNotAllowed { lines: amounts })?;
        evaluation.rank = Some(rank);
        evaluation.prize_multiple = total;
    }
    Ok(evaluation)
}

/// Validates a ticket: its grids under the rules, and its claims against them.
pub fn validate_ticket(ticket: &Ticket) -> Result<Evaluation, TicketError> {
    let evaluation = evaluate_grids(ticket.stake_cents, &ticket.grids)?;
    if ticket.extras != evaluation.extras {
        return Err(TicketError::ExtrasMismatch {
            claimed: ticket.extras,
            actual: evaluation.extras,
        });
    }
    if ticket.prize_cents != evaluation.prize_cents() {
        return Err(TicketError::PrizeMismatch {
            claimed_cents: ticket.prize_cents,
            lines_cents: evaluation.prize_cents(),
        });
    }
    Ok(evaluation)
}
