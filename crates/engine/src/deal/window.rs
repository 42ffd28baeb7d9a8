//! One sale dealt by the rule, and its check: the two halves that the
//! dealer and every verifier (the page, the auditor) share.

use super::rank::deal_rank;
use super::unsold_tree::{verify_take, Node, TakeError, Taken, UnsoldTree};
use crate::fixed_bytes::Hash;

/// What a verifier needs, besides the beacon value and the sale, to check
/// one deal: the block's ticket count, the unsold tree's root before the
/// deal, the position dealt and its proof.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DealProof {
    pub leaves: u32,
    pub before: Hash,
    pub position: u32,
    pub siblings: Vec<Node>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DealError {
    #[error("the block has no unsold position left")]
    SoldOut,
    #[error(transparent)]
    Take(#[from] TakeError),
    #[error(
        "position {position} has rank {rank} among the unsold, but the rule gives rank {expected}"
    )]
    NotTheRule {
        position: u32,
        rank: u32,
        expected: u32,
    },
}

/// Deals the sale whose log record hash is `sale_record` from the beacon
/// value `randomness`: takes the position of the rule's rank.
pub fn deal_one(
    tree: &mut UnsoldTree,
    randomness: &[u8; 32],
    sale_record: &Hash,
) -> Result<(DealProof, Taken), DealError> {
    if tree.unsold() == 0 {
        return Err(DealError::SoldOut);
    }
    let rank = deal_rank(randomness, sale_record, tree.unsold());
    let position = tree
        .select(rank)
        .expect("a rank below the unsold count selects a position");
    let before = tree.root().hash;
    let (siblings, taken) = tree.take(position)?;
    let proof = DealProof {
        leaves: tree.leaves(),
        before,
        position,
        siblings,
    };
    Ok((proof, taken))
}

/// Checks that `proof` deals the sale `sale_record` by the rule from
/// `randomness`: the position was unsold under `proof.before`, and its
/// rank is the rule's. Returns the take, whose `after` is the next root.
pub fn verify_deal(
    randomness: &[u8; 32],
    sale_record: &Hash,
    proof: &DealProof,
) -> Result<Taken, DealError> {
    let taken = verify_take(&proof.before, proof.leaves, proof.position, &proof.siblings)?;
    let expected = deal_rank(randomness, sale_record, taken.unsold);
    if taken.rank != expected {
        return Err(DealError::NotTheRule {
            position: proof.position,
            rank: taken.rank,
            expected,
        });
    }
    Ok(taken)
}
