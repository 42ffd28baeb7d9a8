//! Every block commitment this page has seen, per block id: a sale is shown
//! only if its block was announced (and signed) before the purchase, and
//! only with the commitment announced then (docs/PROTOCOL.md, issue 8).
//! The glue keeps the book in memory and in `localStorage`.

use eldorado_engine::verify::CommitmentSeen;
use eldorado_engine::{PublicKeyBytes, SignedCommitment};

/// Blocks remembered at most: a block holds 400,000 tickets, so a player
/// meets few of them; the oldest ids are forgotten first.
pub const CAPACITY: usize = 64;

/// The operator signed two different commitments for this block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Equivocation {
    pub block: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CommitmentBook {
    /// Ordered by block id, one per block. A sorted `Vec` rather than a
    /// `BTreeMap`: at most 64 entries, and the map's code costs the bundle.
    seen: Vec<SignedCommitment>,
}

impl CommitmentBook {
    /// The book as saved, keeping only commitments signed by `operator`.
    pub fn from_saved(saved: Vec<SignedCommitment>, operator: &PublicKeyBytes) -> CommitmentBook {
        let mut book = CommitmentBook::default();
        for commitment in saved {
            // A saved list that disagrees with itself is not ours to trust:
            // keep the first entry, as `remember` would.
            book.remember(&commitment, operator).ok();
        }
        book
    }

    /// What to save, oldest block first.
    pub fn saved(&self) -> Vec<SignedCommitment> {
        self.seen.clone()
    }

    /// Records a commitment seen from the server. Only commitments signed by
    /// the operator count (an unsigned one proves nothing, and must not make
    /// a later genuine one look like an equivocation); one that differs from
    /// a remembered one for the same block is an equivocation.
    pub fn remember(
        &mut self,
        commitment: &SignedCommitment,
        operator: &PublicKeyBytes,
    ) -> Result<(), Equivocation> {
        if commitment.verify(operator).is_err() {
            return Ok(());
        }
        let block = commitment.commitment.block;
        match self.position(block) {
            Ok(at) if self.seen[at] == *commitment => Ok(()),
            Ok(_) => Err(Equivocation { block }),
            Err(at) => {
                self.seen.insert(at, commitment.clone());
                if self.seen.len() > CAPACITY {
                    self.seen.remove(0);
                }
                Ok(())
            }
        }
    }

    /// Records every commitment of a list; the first equivocation found
    /// stops nothing else from being recorded, and is returned.
    pub fn remember_all<'a>(
        &mut self,
        commitments: impl IntoIterator<Item = &'a SignedCommitment>,
        operator: &PublicKeyBytes,
    ) -> Result<(), Equivocation> {
        let mut first = Ok(());
        for commitment in commitments {
            if let Err(e) = self.remember(commitment, operator) {
                first = first.and(Err(e));
            }
        }
        first
    }

    fn position(&self, block: u64) -> Result<usize, usize> {
        self.seen
            .binary_search_by_key(&block, |c| c.commitment.block)
    }

    fn get(&self, block: u64) -> Option<&SignedCommitment> {
        self.position(block).ok().map(|at| &self.seen[at])
    }

    /// What the engine's `CommitmentSeen` check compares a sale of `block` with.
    pub fn seen(&self, block: u64) -> CommitmentSeen<'_> {
        match self.get(block) {
            Some(commitment) => CommitmentSeen::Seen(commitment),
            None => CommitmentSeen::Unseen,
        }
    }

    /// Like [`CommitmentBook::seen`], for a ticket that may have been bought
    /// elsewhere: an unknown block is not checked, a known one still is.
    pub fn seen_if_known(&self, block: u64) -> CommitmentSeen<'_> {
        match self.get(block) {
            Some(commitment) => CommitmentSeen::Seen(commitment),
            None => CommitmentSeen::NotChecked,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{self, FixtureBlock};

    fn key(block: &FixtureBlock) -> PublicKeyBytes {
        PublicKeyBytes::from_hex(&block.public_key_hex()).unwrap()
    }

    #[test]
    fn a_second_commitment_for_a_block_is_an_equivocation() {
        let first = FixtureBlock::new(3, 100, &[fixtures::LOSE]);
        let other = FixtureBlock::new(3, 100, &[fixtures::WIN_2]);
        let operator = key(&first);
        let mut book = CommitmentBook::default();
        assert!(matches!(book.seen(3), CommitmentSeen::Unseen));
        assert_eq!(book.remember(&first.commitment, &operator), Ok(()));
        assert_eq!(book.remember(&first.commitment, &operator), Ok(()));
        assert_eq!(
            book.remember(&other.commitment, &operator),
            Err(Equivocation { block: 3 })
        );
        assert!(matches!(book.seen(3), CommitmentSeen::Seen(c) if *c == first.commitment));
        assert!(matches!(book.seen_if_known(4), CommitmentSeen::NotChecked));
    }

    #[test]
    fn unsigned_commitments_are_not_remembered() {
        let block = FixtureBlock::new(3, 100, &[fixtures::LOSE]);
        let operator = key(&block);
        let mut forged = block.commitment.clone();
        forged.signature.0[0] ^= 1;
        let mut book = CommitmentBook::default();
        assert_eq!(book.remember(&forged, &operator), Ok(()));
        assert!(matches!(book.seen(3), CommitmentSeen::Unseen));
        assert_eq!(book.remember(&block.commitment, &operator), Ok(()));
    }

    #[test]
    fn saved_and_restored_and_bounded() {
        let block = FixtureBlock::new(3, 100, &[fixtures::LOSE]);
        let operator = key(&block);
        let mut book = CommitmentBook::default();
        book.remember(&block.commitment, &operator).unwrap();
        let restored = CommitmentBook::from_saved(book.saved(), &operator);
        assert_eq!(restored, book);
        // Re-signed under other ids, so each is a genuine commitment.
        let secret = eldorado_engine::commit::signing_key_from_secret(fixtures::SECRET);
        for id in 10..10 + CAPACITY as u64 {
            let mut commitment = block.commitment.commitment.clone();
            commitment.block = id;
            book.remember(&commitment.sign(&secret), &operator).unwrap();
        }
        assert_eq!(book.saved().len(), CAPACITY);
        assert!(
            matches!(book.seen(3), CommitmentSeen::Unseen),
            "oldest dropped"
        );
    }
}
