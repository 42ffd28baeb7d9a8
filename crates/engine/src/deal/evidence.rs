//! A buyer's check of its own deal: the purchase it paid for is the one
//! the operator signed and logged, the beacon's round it names verifies
//! under the pinned beacon key, and the sale's position is the one the
//! rule picks from that round among the block's unsold positions.

use super::beacon::{BeaconError, VerifyRound, BEACON_SIGNATURE_LEN};
use super::purchase::Purchase;
use super::window::{verify_deal, DealError, DealProof};
use crate::commit::{Sale, SignatureError};
use crate::transparency::{record_hash, LogEntry};
use ed25519_dalek::VerifyingKey;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EvidenceError {
    #[error("the purchase record is not a purchase")]
    NotAPurchase,
    #[error("the purchase's signature: {0}")]
    Signature(#[from] SignatureError),
    #[error("the purchase's {0} is not the sale's")]
    OtherSale(&'static str),
    #[error("the beacon round: {0}")]
    Beacon(#[from] BeaconError),
    #[error("the proof is for position {proved} of {leaves}, the sale is position {position}")]
    OtherPosition {
        proved: u32,
        leaves: u32,
        position: u32,
    },
    #[error("the deal: {0}")]
    Deal(#[from] DealError),
}

/// A deal's evidence as read from the server's answer: the purchase's
/// leaf, the round that dealt it (`None`: the one the purchase names), the
/// round's signature and the position's proof.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DealParts {
    pub purchase_leaf: Vec<u8>,
    pub round: Option<u64>,
    pub round_signature: [u8; BEACON_SIGNATURE_LEN],
    pub proof: DealProof,
}

impl DealParts {
    /// The round that dealt the purchase `named` names.
    pub fn dealing_round(&self, named: u64) -> u64 {
        self.round.unwrap_or(named)
    }
}

/// Checks that `sale` was dealt by the rule from the purchase logged as
/// `parts.purchase_leaf` and the round `parts` names, not earlier than the
/// purchase's own; returns the purchase. Whether that round is the one
/// the witnesses' cosignatures give (`dealing_round`) is the record's
/// check: it needs the checkpoint that first held the purchase.
pub fn verify_evidence(
    operator: &VerifyingKey,
    beacon: &dyn VerifyRound,
    sale: &Sale,
    parts: &DealParts,
) -> Result<Purchase, EvidenceError> {
    let DealParts {
        purchase_leaf,
        round_signature,
        proof,
        ..
    } = parts;
    let entry = LogEntry::parse(purchase_leaf).map_err(|_| EvidenceError::NotAPurchase)?;
    entry.verify(operator)?;
    let LogEntry::Purchase { purchase, .. } = entry else {
        return Err(EvidenceError::NotAPurchase);
    };
    let ticket = &sale.ticket;
    let same = |equal: bool, field| equal.then_some(()).ok_or(EvidenceError::OtherSale(field));
    same(purchase.block == sale.block, "block")?;
    same(purchase.tickets == sale.tickets, "block size")?;
    same(purchase.player == sale.player, "player")?;
    same(purchase.client_nonce == sale.client_nonce, "nonce")?;
    same(purchase.stake_cents() == Some(ticket.stake_cents), "stake")?;
    same(
        sale.balance_before_cents == Some(purchase.balance_before_cents),
        "balance before",
    )?;
    same(
        sale.balance_after_cents == purchase.balance_after_cents.checked_add(ticket.prize_cents),
        "balance after",
    )?;
    if proof.position != ticket.position || proof.leaves != sale.tickets {
        return Err(EvidenceError::OtherPosition {
            proved: proof.position,
            leaves: proof.leaves,
            position: ticket.position,
        });
    }
    let round = parts.dealing_round(purchase.round);
    // Never before the round the purchase names.
    same(round >= purchase.round, "round")?;
    let randomness = beacon.randomness(round, round_signature)?;
    verify_deal(&randomness, &record_hash(purchase_leaf), proof)?;
    Ok(purchase)
}
