//! Turning a sale response into a ticket the board may show, only after
//! every check of the engine has passed (SPEC §7).

use crate::api::SaleResponse;
use crate::beacon_check::RoundCheck;
use crate::record::{RecordProblem, RecordState};
use eldorado_engine::deal::BEACON_KEY_LEN;
use eldorado_engine::grid::{Grid, ROWS};
use eldorado_engine::verify::{BalanceChange, Check, CommitmentSeen, ExpectedDeal};
use eldorado_engine::{
    verify_sale_remembering, ClientNonce, Expected, LineOutcome, Money, PublicKeyBytes,
    VerifiedCommitments,
};
use std::cell::RefCell;

thread_local! {
    /// The block commitments whose signature this page has verified: each
    /// ticket of a block is then verified without its block's signature
    /// again (budget: 0.3 ms a sale). Exact bytes only, so any other
    /// commitment is verified in full.
    static VERIFIED: RefCell<VerifiedCommitments> = RefCell::new(VerifiedCommitments::default());
}

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
    /// Real or play money, as the block's commitment says.
    pub money: Money,
    /// Main grid first, then the Extra grids.
    pub grids: Vec<Grid>,
    /// One mark per line, per grid.
    pub marks: Vec<[LineMark; ROWS]>,
    pub checks: Vec<Check>,
    /// Where the sale stands on the public record (checked after the sale).
    pub record: RecordState,
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
    /// The operator signed two different commitments for one block: the
    /// player is told so in those words, not only which check failed.
    pub equivocation: bool,
    /// The record the page requires on the public log is not proved there.
    pub record: Option<OffRecord>,
}

/// What is missing from the public record, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OffRecord {
    /// The sale shown (else the commitment of a block about to be bought from).
    pub sale: bool,
    pub problem: RecordProblem,
}

impl Rejection {
    pub fn new(check: Check, reason: impl Into<String>) -> Rejection {
        Rejection {
            check,
            reason: reason.into(),
            equivocation: false,
            record: None,
        }
    }

    /// A commitment (`sale` false) or a sale (`sale` true) not proved on
    /// the public record; the reason names the check that failed.
    pub fn off_record(sale: bool, problem: RecordProblem) -> Rejection {
        let what = if sale { "sale" } else { "commitment" };
        let why = match problem {
            RecordProblem::Missing => "not proved on the public record in time",
            RecordProblem::BadProof => {
                "its inclusion proof does not lead to the cosigned checkpoint"
            }
            RecordProblem::BadCheckpoint => {
                "the checkpoint is not signed by the log and cosigned by the pinned witnesses"
            }
            RecordProblem::Fork(_) => "the public record showed a fork or a rollback",
            RecordProblem::DealtEarly => {
                "dealt by a round published before its purchase was cosigned"
            }
        };
        Rejection {
            record: Some(OffRecord { sale, problem }),
            ..Rejection::new(Check::CommitmentSeen, format!("{what}: {why}"))
        }
    }

    /// Two signed commitments for `block` that differ.
    pub fn equivocation(block: u64) -> Rejection {
        Rejection {
            check: Check::CommitmentSeen,
            reason: crate::text::around("two different commitments for block ", block, ""),
            equivocation: true,
            record: None,
        }
    }
}

/// The buyer's side of a sale: what this page knows without the server.
/// Every field that is known is checked; the balance is always checked,
/// from the before/after pair the response itself states.
#[derive(Clone, Copy, Debug)]
pub struct Buyer<'a> {
    /// The stake the player played.
    pub stake_cents: u64,
    /// The session's player id.
    pub player: &'a str,
    /// The session's kind of money.
    pub money: Money,
    /// The nonce sent with the purchase; `None` when the page did not send
    /// it (a ticket reopened from the history, bought elsewhere).
    pub client_nonce: Option<ClientNonce>,
    /// The commitment of the sale's block seen before the purchase.
    pub commitment_seen: CommitmentSeen<'a>,
    /// The beacon the server deals by (`/api/config` `.dealing`, or the
    /// build's pin): every sale must show how it dealt it.
    pub beacon: Option<&'a [u8; BEACON_KEY_LEN]>,
}

/// The key of the game configuration, or why it is unusable.
pub fn parse_public_key(hex: &str) -> Result<PublicKeyBytes, Rejection> {
    PublicKeyBytes::from_hex(hex)
        .map_err(|e| Rejection::new(Check::CommitmentSignature, e.to_string()))
}

/// Runs every check; the ticket is returned only if all of them pass.
pub fn verify(
    response: &SaleResponse,
    operator: &PublicKeyBytes,
    buyer: &Buyer<'_>,
) -> Result<VerifiedTicket, Rejection> {
    let evidence = match (buyer.beacon, &response.deal) {
        (Some(_), Some(deal)) => {
            let sale = &response.sale.sale;
            let parts = deal
                .parts(sale.tickets, sale.ticket.position)
                .ok_or_else(|| {
                    Rejection::new(Check::FairDeal, "the deal's evidence does not read")
                })?;
            Some(parts)
        }
        _ => None,
    };
    let rounds = buyer.beacon.map(|key| RoundCheck { key });
    let deal = rounds.as_ref().map(|beacon| ExpectedDeal {
        beacon,
        evidence: evidence.as_ref(),
    });
    let expected = Expected {
        stake_cents: Some(buyer.stake_cents),
        player: Some(buyer.player),
        client_nonce: buyer.client_nonce,
        money: Some(buyer.money),
        commitment_seen: buyer.commitment_seen,
        balance: Some(BalanceChange {
            before_cents: response.balance_before_cents,
            after_cents: response.balance_after_cents,
        }),
        deal,
    };
    let report = VERIFIED.with_borrow_mut(|verified| {
        verify_sale_remembering(
            &response.sale,
            &response.commitment,
            operator,
            &expected,
            verified,
        )
    });
    if let Some((check, reason)) = report.first_failure() {
        // A commitment that differs from one seen before is the operator
        // speaking with two voices, which the player must hear as such.
        let equivocation = check == Check::CommitmentSeen
            && matches!(buyer.commitment_seen, CommitmentSeen::Seen(_));
        return Err(Rejection {
            check,
            reason: reason.to_owned(),
            equivocation,
            record: None,
        });
    }
    let evaluation = match (report.is_verified(), report.evaluation) {
        (true, Some(evaluation)) => evaluation,
        _ => return Err(Rejection::new(Check::Rules, "incomplete verification")),
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
        money: response.commitment.commitment.money,
        grids: ticket.grids.clone(),
        marks,
        checks: report.checks.iter().map(|(c, _)| *c).collect(),
        record: RecordState::Pending,
    })
}
