//! A log's tree held in memory, with `tlog`'s stored hashes appended
//! record by record as the server stores its own: what the auditor
//! rebuilds from downloaded records, and what tests serve as a log.

use super::ProofError;
use crate::fixed_bytes::Hash;
use tlog_tiles::tlog::{self, HashReader};

#[derive(Clone, Debug, Default)]
pub struct MemoryTree {
    hashes: Vec<tlog::Hash>,
    size: u64,
}

impl HashReader for MemoryTree {
    fn read_hashes(&self, indexes: &[u64]) -> Result<Vec<tlog::Hash>, tlog::Error> {
        indexes
            .iter()
            .map(|&i| {
                usize::try_from(i)
                    .ok()
                    .and_then(|i| self.hashes.get(i))
                    .copied()
                    .ok_or(tlog::Error::IndexesNotInTree)
            })
            .collect()
    }
}

fn hashes(proof: Vec<tlog::Hash>) -> Vec<Hash> {
    proof.into_iter().map(|h| Hash(h.0)).collect()
}

impl MemoryTree {
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Appends record `size()`.
    pub fn append(&mut self, leaf: &[u8]) -> Result<(), ProofError> {
        let new = tlog::stored_hashes(self.size, leaf, self).map_err(|_| ProofError::OutOfRange)?;
        self.hashes.extend(new);
        self.size += 1;
        Ok(())
    }

    /// The root of the first `size` records; `None` beyond the records held.
    pub fn root(&self, size: u64) -> Option<Hash> {
        if size > self.size {
            return None;
        }
        tlog::tree_hash(size, self).ok().map(|h| Hash(h.0))
    }

    /// The audit path of record `index` in the tree of `size` records.
    pub fn inclusion(&self, index: u64, size: u64) -> Option<Vec<Hash>> {
        if size > self.size {
            return None;
        }
        tlog::prove_record(size, index, self).ok().map(hashes)
    }

    /// The proof that the tree of `from` records is a prefix of the tree of
    /// `size` (empty when `from` is 0 or `size`, as `verify_consistency`
    /// expects).
    pub fn consistency(&self, from: u64, size: u64) -> Option<Vec<Hash>> {
        if from > size || size > self.size {
            return None;
        }
        if from == 0 || from == size {
            return Some(Vec::new());
        }
        tlog::prove_tree(size, from, self).ok().map(hashes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transparency::{record_hash, verify_consistency, verify_inclusion};
    use sha2::{Digest, Sha256};

    /// RFC 6962 §2.1 straight from its definition, as an independent check.
    fn reference_root(leaves: &[Vec<u8>]) -> Hash {
        match leaves.len() {
            0 => Hash(Sha256::digest([]).into()),
            1 => record_hash(&leaves[0]),
            n => {
                let k = n.next_power_of_two() / 2;
                let mut node = vec![0x01];
                node.extend_from_slice(&reference_root(&leaves[..k]).0);
                node.extend_from_slice(&reference_root(&leaves[k..]).0);
                Hash(Sha256::digest(&node).into())
            }
        }
    }

    #[test]
    fn every_prefix_root_is_rfc_6962_and_every_proof_checks() {
        let leaves: Vec<Vec<u8>> = (0..40u32).map(|i| i.to_be_bytes().to_vec()).collect();
        let mut tree = MemoryTree::default();
        for leaf in &leaves {
            tree.append(leaf).unwrap();
        }
        for size in 0..=leaves.len() as u64 {
            let root = tree.root(size).unwrap();
            assert_eq!(
                root,
                reference_root(&leaves[..size as usize]),
                "size {size}"
            );
            for index in 0..size {
                let proof = tree.inclusion(index, size).unwrap();
                verify_inclusion(&leaves[index as usize], index, size, &root, &proof).unwrap();
            }
            for from in 0..=size {
                let proof = tree.consistency(from, size).unwrap();
                let old = tree.root(from).unwrap();
                verify_consistency(from, &old, size, &root, &proof).unwrap();
            }
        }
        assert_eq!(tree.root(41), None);
        assert_eq!(tree.inclusion(0, 41), None);
        assert_eq!(tree.consistency(3, 41), None);
    }
}
