//! Turning a sale response into a ticket the board may show, only after
//! every check of the engine has passed (SPEC §7).

use crate::api::SaleResponse;
use eldorado_engine::grid::{Grid, ROWS};
use eldorado_engine::verify::Check;
use eldorado_engine::{verify_sale, Expected, LineOutcome, PublicKeyBytes};

/// How a line is highlighted once its grid is revealed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LineMark {
    #[default]
    Plain,
    /// A winning line, paying this many cents.
    Win(u64),
    Extra,
}

/// A sale that passed every check, ready to reveal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifiedTicket {
    pub sale_id: u64,
    pub block: u64,
    pub position: u32,
    pub sold_at_ms: u64,
    pub stake_cents: u64,
    pub prize_cents: u64,
    pub extras: u8,
    /// Main grid first, then the Extra grids.
    pub grids: Vec<Grid>,
    /// One mark per line, per grid.
    pub marks: Vec<[LineMark; ROWS]>,
    pub checks: Vec<Check>,
}

impl VerifiedTicket {
    /// Cents won on grid `index` (zero for the main grid of a ticket with Extras).
    pub fn grid_win(&self, index: usize) -> u64 {
        self.marks.get(index).map_or(0, |marks| {
            marks
                .iter()
                .map(|m| match m {
                    LineMark::Win(c) => *c,
                    _ => 0,
                })
                .sum()
        })
    }
}

/// A failed verification: which check, and the engine's reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    pub check: Check,
    pub reason: String,
}

/// The key of the game configuration, or why it is unusable.
pub fn parse_public_key(hex: &str) -> Result<PublicKeyBytes, Rejection> {
    PublicKeyBytes::from_hex(hex).map_err(|e| Rejection {
        check: Check::CommitmentSignature,
        reason: e.to_string(),
    })
}

/// Runs every check; the ticket is returned only if all of them pass.
pub fn verify(
    response: &SaleResponse,
    operator: &PublicKeyBytes,
    stake_played_cents: u64,
) -> Result<VerifiedTicket, Rejection> {
    let report = verify_sale(
        &response.sale,
        &response.commitment,
        operator,
        &Expected {
            stake_cents: Some(stake_played_cents),
            ..Expected::default()
        },
    );
    if let Some((check, reason)) = report.first_failure() {
        return Err(Rejection {
            check,
            reason: reason.to_owned(),
        });
    }
    let evaluation = match (report.is_verified(), report.evaluation) {
        (true, Some(evaluation)) => evaluation,
        _ => {
            return Err(Rejection {
                check: Check::Rules,
                reason: "incomplete verification".to_owned(),
            })
        }
    };
    let sale = &response.sale.sale;
    let ticket = &sale.ticket;
    let mut marks = vec![[LineMark::Plain; ROWS]; ticket.grids.len()];
    for line in &evaluation.lines {
        let mark = match line.outcome {
            LineOutcome::Win { multiple, .. } => {
                LineMark::Win(u64::from(multiple) * ticket.stake_cents)
            }
            LineOutcome::Extra { .. } => LineMark::Extra,
            LineOutcome::Lose => LineMark::Plain,
        };
        if let Some(grid) = marks.get_mut(line.grid) {
            grid[line.row] = mark;
        }
    }
    Ok(VerifiedTicket {
        sale_id: sale.sale_id,
        block: sale.block,
        position: ticket.position,
        sold_at_ms: sale.sold_at_ms,
        stake_cents: ticket.stake_cents,
        prize_cents: ticket.prize_cents,
        extras: ticket.extras,
        grids: ticket.grids.clone(),
        marks,
        checks: report.checks.iter().map(|(c, _)| *c).collect(),
    })
}
