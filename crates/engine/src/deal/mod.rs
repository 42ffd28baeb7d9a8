//! Fair dealing: which position of a block a bought ticket receives, fixed
//! by a public rule from values nobody knows when the sale is made.
//!
//! A sale is bought first; a beacon value published afterwards picks its
//! rank among the block's unsold positions ([`deal_rank`]), and the
//! [`UnsoldTree`] — a Merkle tree whose nodes also commit to how many
//! unsold positions lie under them — turns that rank into a position with
//! a proof of logarithmic size ([`verify_take`]). Anyone holding the tree's
//! root before a deal can check, from the proof alone, that the position
//! was unsold, that it is the rank the rule picked, and what the root is
//! after it.

mod beacon;
mod evidence;
mod purchase;
mod rank;
mod replay;
mod timing;
mod unsold_tree;
mod window;

pub use beacon::{
    BeaconClock, BeaconError, BeaconKey, VerifyRound, BEACON_KEY_LEN, BEACON_SCHEME,
    BEACON_SIGNATURE_LEN,
};
pub use evidence::{verify_evidence, DealParts, EvidenceError};
pub use purchase::{Purchase, PURCHASE_TAG};
pub use rank::{deal_rank, DEAL_TAG};
pub use replay::{DealReplay, Dealt, ReplayError};
pub use timing::{dealing_round, quorum_time};
pub use unsold_tree::{verify_take, Node, TakeError, Taken, UnsoldTree, MAX_LEAVES};
pub use window::{deal_one, verify_deal, DealError, DealProof};
