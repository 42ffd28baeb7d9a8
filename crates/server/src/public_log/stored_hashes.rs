//! The tree's stored hashes (tlog numbering) as `tlog_tiles` reads them:
//! from the store, and during a sequencer pass also the hashes the pass
//! computed but has not written yet.

use crate::store::Store;
use eldorado_engine::transparency::tlog;
use eldorado_engine::Hash;

/// The hashes the store holds.
pub struct StoredHashes<'a>(pub &'a dyn Store);

impl tlog::HashReader for StoredHashes<'_> {
    fn read_hashes(&self, indexes: &[u64]) -> Result<Vec<tlog::Hash>, tlog::Error> {
        let hashes = self.0.log_hashes(indexes).map_err(|e| {
            tracing::error!(error = %e, "reading the log's stored hashes");
            tlog::Error::IndexesNotInTree
        })?;
        Ok(hashes.into_iter().map(|h| tlog::Hash(h.0)).collect())
    }
}

impl StoredHashes<'_> {
    /// Record `index`'s inclusion proof in the tree of `size` records.
    pub fn record_proof(&self, index: u64, size: u64) -> Result<Vec<Hash>, tlog::Error> {
        Ok(hashes(tlog::prove_record(size, index, self)?))
    }

    /// The consistency proof from the tree of `from` records to that of
    /// `size`: empty when `from` is 0 or `size` (RFC 9162 §2.1.4).
    pub fn tree_proof(&self, from: u64, size: u64) -> Result<Vec<Hash>, tlog::Error> {
        if from == 0 || from == size {
            return Ok(Vec::new());
        }
        Ok(hashes(tlog::prove_tree(size, from, self)?))
    }
}

fn hashes(proof: Vec<tlog::Hash>) -> Vec<Hash> {
    proof.into_iter().map(|h| Hash(h.0)).collect()
}

/// The stored hashes plus those of a pass, from stored index `first` on.
pub(super) struct WithPending<'a> {
    pub stored: StoredHashes<'a>,
    pub first: u64,
    pub pending: &'a [tlog::Hash],
}

impl tlog::HashReader for WithPending<'_> {
    fn read_hashes(&self, indexes: &[u64]) -> Result<Vec<tlog::Hash>, tlog::Error> {
        indexes
            .iter()
            .map(|&index| match index.checked_sub(self.first) {
                Some(offset) => self
                    .pending
                    .get(offset as usize)
                    .copied()
                    .ok_or(tlog::Error::IndexesNotInTree),
                None => Ok(self.stored.read_hashes(&[index])?[0]),
            })
            .collect()
    }
}
