//! Inclusion and consistency proofs of RFC 6962 / RFC 9162 (§2.1): a
//! leaf's hash is SHA-256(0x00 ‖ leaf), a node's SHA-256(0x01 ‖ left ‖
//! right). The proof shapes are `tlog_tiles`' (the Go checksum
//! database's), which are RFC 9162's audit paths.

use crate::fixed_bytes::Hash;
use tlog_tiles::tlog;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProofError {
    #[error("the proof does not lead to the checkpoint's root")]
    Mismatch,
    #[error("the proof asks for an index or size outside the tree")]
    OutOfRange,
}

pub fn record_hash(leaf: &[u8]) -> Hash {
    Hash(tlog::record_hash(leaf).0)
}

/// A tree of 2^64 records needs at most 64 hashes in either proof; a longer
/// one is refused before any work.
const MAX_PROOF_LEN: usize = 64;

fn hashes(proof: &[Hash]) -> Vec<tlog::Hash> {
    proof.iter().map(|h| tlog::Hash(h.0)).collect()
}

fn error(e: tlog::Error) -> ProofError {
    match e {
        tlog::Error::InvalidProof => ProofError::Mismatch,
        _ => ProofError::OutOfRange,
    }
}

/// Checks that `leaf` is record `index` of the tree of `size` records whose
/// root is `root`.
pub fn verify_inclusion(
    leaf: &[u8],
    index: u64,
    size: u64,
    root: &Hash,
    proof: &[Hash],
) -> Result<(), ProofError> {
    if index >= size {
        return Err(ProofError::OutOfRange);
    }
    if proof.len() > MAX_PROOF_LEN {
        return Err(ProofError::Mismatch);
    }
    tlog::check_record(
        &hashes(proof),
        size,
        tlog::Hash(root.0),
        index,
        tlog::record_hash(leaf),
    )
    .map_err(error)
}

/// Checks that the tree of `old_size` records with root `old_root` is a
/// prefix of the tree of `new_size` records with root `new_root`.
pub fn verify_consistency(
    old_size: u64,
    old_root: &Hash,
    new_size: u64,
    new_root: &Hash,
    proof: &[Hash],
) -> Result<(), ProofError> {
    if old_size > new_size {
        return Err(ProofError::OutOfRange);
    }
    if proof.len() > MAX_PROOF_LEN {
        return Err(ProofError::Mismatch);
    }
    if old_size == 0 {
        // The empty tree is a prefix of every tree.
        return if proof.is_empty() {
            Ok(())
        } else {
            Err(ProofError::Mismatch)
        };
    }
    if old_size == new_size {
        return if old_root == new_root && proof.is_empty() {
            Ok(())
        } else {
            Err(ProofError::Mismatch)
        };
    }
    tlog::check_tree(
        &hashes(proof),
        new_size,
        tlog::Hash(new_root.0),
        old_size,
        tlog::Hash(old_root.0),
    )
    .map_err(error)
}
