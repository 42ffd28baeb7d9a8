//! What the browser checks before it shows a sold ticket (SPEC §7).

use crate::commit::{SignedCommitment, SignedSale};
use crate::fixed_bytes::PublicKeyBytes;
use crate::merkle::verify_proof;
use crate::prize_table::prize_table_digest;
use crate::ticket::{validate_ticket, Evaluation};

/// One check of the verification, in the order they run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Check {
    /// The block commitment is signed by the operator key.
    CommitmentSignature,
    /// The commitment is to the prize table of these rules.
    PrizeTable,
    /// The sale is signed by the operator key.
    SaleSignature,
    /// The sale belongs to the committed block (id, size, stake).
    SameBlock,
    /// Grids are valid and pay exactly the claimed prize and Extras.
    Rules,
    /// The ticket's leaf is in the committed tree at its position.
    MerkleProof,
    /// The ticket's stake is the stake the player played.
    StakePlayed,
}

impl Check {
    pub const ALL: [Check; 7] = [
        Check::CommitmentSignature,
        Check::PrizeTable,
        Check::SaleSignature,
        Check::SameBlock,
        Check::Rules,
        Check::MerkleProof,
        Check::StakePlayed,
    ];

    /// A stable machine name, used by the UI and the tests.
    pub const fn code(self) -> &'static str {
        match self {
            Check::CommitmentSignature => "commitment_signature",
            Check::PrizeTable => "prize_table",
            Check::SaleSignature => "sale_signature",
            Check::SameBlock => "same_block",
            Check::Rules => "rules",
            Check::MerkleProof => "merkle_proof",
            Check::StakePlayed => "stake_played",
        }
    }
}

/// Every check with its result; a ticket may be shown only if all passed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    pub checks: Vec<(Check, Result<(), String>)>,
    /// The rules' reading of the ticket, when its grids are valid.
    pub evaluation: Option<Evaluation>,
}

impl Report {
    pub fn is_verified(&self) -> bool {
        self.checks.len() == Check::ALL.len() && self.checks.iter().all(|(_, r)| r.is_ok())
    }

    /// The first failed check and why.
    pub fn first_failure(&self) -> Option<(Check, &str)> {
        self.checks
            .iter()
            .find_map(|(check, result)| result.as_ref().err().map(|why| (*check, why.as_str())))
    }
}

/// Runs every check of a sale against its block's commitment, the operator
/// key from the game configuration and the stake the player chose.
pub fn verify_sale(
    sale: &SignedSale,
    commitment: &SignedCommitment,
    operator: &PublicKeyBytes,
    stake_played_cents: u64,
) -> Report {
    let committed = &commitment.commitment;
    let inner = &sale.sale;
    let ticket = &inner.ticket;
    let mut checks = Vec::with_capacity(Check::ALL.len());
    let mut evaluation = None;
    for check in Check::ALL {
        let result = match check {
            Check::CommitmentSignature => commitment.verify(operator).map_err(|e| e.to_string()),
            Check::PrizeTable => (committed.prize_table.0 == prize_table_digest())
                .then_some(())
                .ok_or_else(|| "the block commits to another prize table".to_owned()),
            Check::SaleSignature => sale.verify_signature(operator).map_err(|e| e.to_string()),
            Check::SameBlock => {
                if inner.block != committed.block {
                    Err(format!(
                        "sale of block {} checked against block {}",
                        inner.block, committed.block
                    ))
                } else if inner.tickets != committed.tickets {
                    Err(format!(
                        "sale says {} tickets, block has {}",
                        inner.tickets, committed.tickets
                    ))
                } else if ticket.stake_cents != committed.stake_cents {
                    Err(format!(
                        "ticket stake {} cents, block stake {} cents",
                        ticket.stake_cents, committed.stake_cents
                    ))
                } else {
                    Ok(())
                }
            }
            Check::Rules => validate_ticket(ticket)
                .map(|e| evaluation = Some(e))
                .map_err(|e| e.to_string()),
            Check::MerkleProof => verify_proof(
                inner.leaf(),
                ticket.position,
                committed.tickets,
                &inner.proof,
                &committed.root,
            )
            .map_err(|e| e.to_string()),
            Check::StakePlayed => (ticket.stake_cents == stake_played_cents)
                .then_some(())
                .ok_or_else(|| {
                    format!(
                        "ticket stake {} cents, played {} cents",
                        ticket.stake_cents, stake_played_cents
                    )
                }),
        };
        checks.push((check, result));
    }
    Report { checks, evaluation }
}
