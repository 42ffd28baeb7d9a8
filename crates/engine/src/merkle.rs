//! The Merkle tree over a block's leaves in sale order (docs/PROTOCOL.md).
//!
//! Shape: leaves are level 0; each level pairs nodes (0,1), (2,3), …; a last
//! node without a sibling is carried up unchanged. A proof lists the
//! siblings actually hashed, bottom up; which side each one is on follows
//! from the position and the leaf count, so the proof carries no side bits.

use crate::fixed_bytes::Hash;
use sha2::{Digest, Sha256};

/// Domain tag of an inner node; leaves use their own (see [`crate::commit`]).
pub const NODE_TAG: &[u8] = b"ELDORADO-NODE-V1";

pub fn node_hash(left: &Hash, right: &Hash) -> Hash {
    let mut hasher = Sha256::new();
    hasher.update([0x01]);
    hasher.update(NODE_TAG);
    hasher.update(left.0);
    hasher.update(right.0);
    Hash(hasher.finalize().into())
}

/// All levels of a tree, leaves first, root last.
#[derive(Clone, Debug)]
pub struct MerkleTree {
    levels: Vec<Vec<Hash>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProofError {
    #[error("position {position} is outside a tree of {leaves} leaves")]
    OutOfRange { position: u32, leaves: u32 },
    #[error("the proof has {found} hashes where the tree shape needs {expected}")]
    WrongLength { expected: usize, found: usize },
    #[error("the proof does not lead to the committed root")]
    RootMismatch,
}

impl MerkleTree {
    /// Builds the tree; `leaves` must not be empty.
    pub fn build(leaves: Vec<Hash>) -> MerkleTree {
        assert!(!leaves.is_empty(), "a Merkle tree needs at least one leaf");
        let mut levels = vec![leaves];
        while levels.last().map_or(0, Vec::len) > 1 {
            let below = levels.last().expect("levels is never empty");
            let above = below
                .chunks(2)
                .map(|pair| match pair {
                    [left, right] => node_hash(left, right),
                    [alone] => *alone,
                    _ => unreachable!("chunks(2) yields one or two nodes"),
                })
                .collect();
            levels.push(above);
        }
        MerkleTree { levels }
    }

    pub fn root(&self) -> Hash {
        self.levels.last().expect("levels is never empty")[0]
    }

    pub fn leaf_count(&self) -> u32 {
        self.levels[0].len() as u32
    }

    pub fn leaf(&self, position: u32) -> Option<Hash> {
        self.levels[0].get(position as usize).copied()
    }

    /// The inclusion proof of the leaf at `position`.
    pub fn proof(&self, position: u32) -> Result<Vec<Hash>, ProofError> {
        let leaves = self.leaf_count();
        if position >= leaves {
            return Err(ProofError::OutOfRange { position, leaves });
        }
        let mut index = position as usize;
        let mut proof = Vec::new();
        for level in &self.levels[..self.levels.len() - 1] {
            let sibling = index ^ 1;
            if sibling < level.len() {
                proof.push(level[sibling]);
            }
            index /= 2;
        }
        Ok(proof)
    }
}

/// Recomputes the root from a leaf and its proof.
pub fn root_from_proof(
    leaf: Hash,
    position: u32,
    leaves: u32,
    proof: &[Hash],
) -> Result<Hash, ProofError> {
    if position >= leaves {
        return Err(ProofError::OutOfRange { position, leaves });
    }
    let expected = proof_length(position, leaves);
    if proof.len() != expected {
        return Err(ProofError::WrongLength {
            expected,
            found: proof.len(),
        });
    }
    let (mut index, mut width, mut node) = (position, leaves, leaf);
    let mut siblings = proof.iter();
    while width > 1 {
        if index % 2 == 1 {
            node = node_hash(siblings.next().expect("length checked"), &node);
        } else if index + 1 < width {
            node = node_hash(&node, siblings.next().expect("length checked"));
        }
        index /= 2;
        width = width.div_ceil(2);
    }
    Ok(node)
}

/// Verifies that `leaf` sits at `position` of the tree with `root`.
pub fn verify_proof(
    leaf: Hash,
    position: u32,
    leaves: u32,
    proof: &[Hash],
    root: &Hash,
) -> Result<(), ProofError> {
    if root_from_proof(leaf, position, leaves, proof)? == *root {
        Ok(())
    } else {
        Err(ProofError::RootMismatch)
    }
}

/// How many siblings the proof of `position` holds in a tree of `leaves`.
pub fn proof_length(position: u32, leaves: u32) -> usize {
    let (mut index, mut width, mut length) = (position, leaves, 0);
    while width > 1 {
        if index % 2 == 1 || index + 1 < width {
            length += 1;
        }
        index /= 2;
        width = width.div_ceil(2);
    }
    length
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaf(i: u32) -> Hash {
        Hash(Sha256::digest(i.to_be_bytes()).into())
    }

    #[test]
    fn every_proof_verifies_for_every_size_up_to_33() {
        for size in 1..=33u32 {
            let tree = MerkleTree::build((0..size).map(leaf).collect());
            for position in 0..size {
                let proof = tree.proof(position).unwrap();
                assert_eq!(proof.len(), proof_length(position, size));
                verify_proof(leaf(position), position, size, &proof, &tree.root()).unwrap();
                if size > 1 {
                    let other = (position + 1) % size;
                    assert!(
                        verify_proof(leaf(other), position, size, &proof, &tree.root()).is_err()
                    );
                }
            }
        }
    }

    #[test]
    fn odd_node_is_carried_up_unchanged() {
        let tree = MerkleTree::build((0..3).map(leaf).collect());
        let expected = node_hash(&node_hash(&leaf(0), &leaf(1)), &leaf(2));
        assert_eq!(tree.root(), expected);
        assert!(tree.proof(3).is_err());
    }
}
