//! The public record as the page trusts it (docs/PROTOCOL.md §9): which log
//! key and witnesses a checkpoint must be signed by, the latest checkpoint
//! this browser verified and what a newer one must prove to replace it,
//! and a record's inclusion in a checkpoint. No DOM, no network: the glue
//! (`app/record.rs`) fetches, this module decides.

use crate::api::{ConsistencyProof, InclusionProof, LogConfig, PagePolicy};
use eldorado_engine::transparency::{
    verify_consistency, verify_inclusion, CheckedCheckpoint, LogKey, WitnessKey,
};
use eldorado_engine::{Hash, PublicKeyBytes};
use serde::{Deserialize, Serialize};

/// How long the page waits for a record to be provable on a cosigned
/// checkpoint: the sequencer logs within a second, a witness cosigns soon
/// after. A block commitment not proved by then is refused; a sale not
/// proved by then fails its check.
pub const RECORD_DEADLINE_MS: f64 = 10_000.0;
/// Between two looks at the log while waiting.
pub const RECORD_POLL_MS: i32 = 200;

/// Why the page cannot trust any checkpoint: the game stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrustProblem {
    /// The built page carries no policy (`www/pkg/page-policy.json`).
    NoPolicy,
    /// The log's key is unreadable, or is not the operator key.
    LogKey,
    /// A witness key or the quorum of the policy is unreadable or impossible.
    Witnesses,
    /// The server announces other witnesses, or another quorum, than the
    /// page's policy: its checkpoints would never carry the cosignatures
    /// the page requires.
    Mismatch,
}

/// Whose signatures a checkpoint needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordTrust {
    pub log: LogKey,
    pub witnesses: Vec<WitnessKey>,
    pub quorum: usize,
}

fn parse_witnesses(keys: &[String]) -> Result<Vec<WitnessKey>, TrustProblem> {
    let mut parsed = Vec::new();
    for vkey in keys {
        let key = WitnessKey::parse(vkey.trim()).map_err(|_| TrustProblem::Witnesses)?;
        if !parsed.contains(&key) {
            parsed.push(key);
        }
    }
    Ok(parsed)
}

/// The witnesses and quorum are the built page's policy, never the
/// server's: `/api/config` must announce the same ones (in any order), or
/// the game stops. The log key is the server's, and must be the operator
/// key the page verifies with.
pub fn choose_trust(
    policy: Option<&PagePolicy>,
    served: &LogConfig,
    operator: &PublicKeyBytes,
) -> Result<RecordTrust, TrustProblem> {
    let policy = policy.ok_or(TrustProblem::NoPolicy)?;
    let log = LogKey::parse(&served.key).map_err(|_| TrustProblem::LogKey)?;
    if log.key().as_bytes() != &operator.0 || log.origin() != served.origin {
        return Err(TrustProblem::LogKey);
    }
    let witnesses = parse_witnesses(&policy.witnesses)?;
    let quorum = policy.quorum as usize;
    if quorum == 0 || quorum > witnesses.len() {
        return Err(TrustProblem::Witnesses);
    }
    let announced = parse_witnesses(&served.witnesses).map_err(|_| TrustProblem::Mismatch)?;
    let same = served.quorum == policy.quorum
        && announced.len() == witnesses.len()
        && witnesses.iter().all(|k| announced.contains(k));
    if !same {
        return Err(TrustProblem::Mismatch);
    }
    Ok(RecordTrust {
        log,
        witnesses,
        quorum,
    })
}

/// A checkpoint this browser verified: its tree's size and root.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kept {
    pub size: u64,
    pub root: Hash,
}

/// Why a checkpoint was refused although its signatures verified: the log
/// showed this browser a history that is not an extension of the one it
/// had verified.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fork {
    /// A smaller tree than the one kept.
    Rollback,
    /// A tree of the same size with another root.
    OtherRoot,
    /// A larger tree whose consistency proof with the kept one fails.
    BadProof,
    /// This browser saw a fork of this log before: it trusts it no more.
    SeenBefore,
}

/// The latest checkpoint verified, kept in `localStorage` per log so that
/// a reload still refuses a rollback or a fork. A fork once seen is kept
/// too: the log showed two histories, both signed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckpointKeeper {
    pub kept: Option<Kept>,
    #[serde(default)]
    pub forked: bool,
}

impl CheckpointKeeper {
    /// The consistency proof `offered` needs, as (from, size): only a tree
    /// larger than the one kept needs one.
    pub fn proof_needed(&self, offered: &CheckedCheckpoint) -> Option<(u64, u64)> {
        match self.kept {
            Some(kept) if kept.size > 0 && kept.size < offered.size && !self.forked => {
                Some((kept.size, offered.size))
            }
            _ => None,
        }
    }

    /// Accepts `offered` (its signatures already checked) if it extends the
    /// kept checkpoint, `proof` proving so when it is larger; it is then
    /// the one kept. The first checkpoint is taken as it comes.
    pub fn accept(&mut self, offered: &CheckedCheckpoint, proof: &[Hash]) -> Result<(), Fork> {
        if self.forked {
            return Err(Fork::SeenBefore);
        }
        let new = Kept {
            size: offered.size,
            root: offered.root,
        };
        let verdict = match self.kept {
            None => Ok(()),
            Some(kept) if new.size < kept.size => Err(Fork::Rollback),
            Some(kept) if new.size == kept.size => {
                if new.root == kept.root {
                    Ok(())
                } else {
                    Err(Fork::OtherRoot)
                }
            }
            Some(kept) => verify_consistency(kept.size, &kept.root, new.size, &new.root, proof)
                .map_err(|_| Fork::BadProof),
        };
        match verdict {
            Ok(()) => self.kept = Some(new),
            Err(_) => self.forked = true,
        }
        verdict
    }
}

/// Whether `leaf` is record `index` of `checkpoint`'s tree, by `proof`
/// (which must be for that very record and tree).
pub fn included(
    leaf: &[u8],
    index: u64,
    checkpoint: &CheckedCheckpoint,
    proof: &InclusionProof,
) -> bool {
    proof.index == index
        && proof.size == checkpoint.size
        && verify_inclusion(
            leaf,
            index,
            checkpoint.size,
            &checkpoint.root,
            &proof.hashes,
        )
        .is_ok()
}

/// Whether `older`'s tree is a prefix of `newer`'s, by `proof` (which must
/// be for those very sizes).
pub fn extends(
    newer: &CheckedCheckpoint,
    older: &CheckedCheckpoint,
    proof: &ConsistencyProof,
) -> bool {
    proof.from == older.size
        && proof.size == newer.size
        && verify_consistency(
            older.size,
            &older.root,
            newer.size,
            &newer.root,
            &proof.hashes,
        )
        .is_ok()
}

/// Why a record could not be shown to be on the public record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordProblem {
    /// No proof within [`RECORD_DEADLINE_MS`] (no record index, no
    /// cosigned checkpoint covering it, or no answer).
    Missing,
    /// The proof given does not lead to the cosigned checkpoint.
    BadProof,
    /// A checkpoint served is signed wrongly or lacks cosignatures.
    BadCheckpoint,
    /// The log showed this browser two histories.
    Fork(Fork),
    /// The ticket's purchase was not cosigned by the witnesses before the
    /// beacon round that dealt it (docs/PROTOCOL.md §10).
    DealtEarly,
}

/// Where a sale shown stands on the public record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RecordState {
    /// Its proof is awaited.
    #[default]
    Pending,
    /// Proved on a cosigned checkpoint (before it was shown).
    OnRecord,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{self, FixtureLog};

    fn checked(log: &FixtureLog, size: u64) -> CheckedCheckpoint {
        CheckedCheckpoint {
            size,
            root: log.root(size),
            witnesses: Vec::new(),
            cosigned_at: Vec::new(),
        }
    }

    #[test]
    fn the_keeper_accepts_growth_and_refuses_forks() {
        let mut log = FixtureLog::new();
        for i in 0..5u8 {
            log.append(vec![i; 10]);
        }
        let mut keeper = CheckpointKeeper::default();
        assert_eq!(keeper.proof_needed(&checked(&log, 3)), None);
        keeper.accept(&checked(&log, 3), &[]).unwrap();
        assert_eq!(keeper.proof_needed(&checked(&log, 5)), Some((3, 5)));
        keeper
            .accept(&checked(&log, 5), &log.consistency(3, 5))
            .unwrap();
        keeper.accept(&checked(&log, 5), &[]).unwrap();
        assert_eq!(keeper.kept.unwrap().size, 5);

        let mut rollback = keeper.clone();
        assert_eq!(rollback.accept(&checked(&log, 4), &[]), Err(Fork::Rollback));
        assert!(rollback.forked);
        assert_eq!(
            rollback.accept(&checked(&log, 5), &[]),
            Err(Fork::SeenBefore)
        );

        let mut other = keeper.clone();
        let mut forged = checked(&log, 5);
        forged.root.0[0] ^= 1;
        assert_eq!(other.accept(&forged, &[]), Err(Fork::OtherRoot));

        let mut bad = keeper.clone();
        log.append(vec![9; 10]);
        let mut proof = log.consistency(5, 6);
        assert_eq!(bad.accept(&checked(&log, 6), &[]), Err(Fork::BadProof));
        let mut good = keeper.clone();
        good.accept(&checked(&log, 6), &proof).unwrap();
        proof[0].0[0] ^= 1;
        assert_eq!(
            keeper.accept(&checked(&log, 6), &proof),
            Err(Fork::BadProof)
        );
    }

    #[test]
    fn inclusion_is_checked_for_that_record_and_tree() {
        let mut log = FixtureLog::new();
        for i in 0..4u8 {
            log.append(vec![i; 3]);
        }
        let cp = checked(&log, 4);
        let proof = log.inclusion(2, 4);
        assert!(included(&[2; 3], 2, &cp, &proof));
        assert!(!included(&[1; 3], 2, &cp, &proof));
        assert!(!included(&[2; 3], 1, &cp, &proof));
        let mut wrong_size = proof.clone();
        wrong_size.size = 3;
        assert!(!included(&[2; 3], 2, &cp, &wrong_size));
    }

    #[test]
    fn an_older_checkpoint_is_extended_only_by_its_own_proof() {
        let mut log = FixtureLog::new();
        for i in 0..7u8 {
            log.append(vec![i; 3]);
        }
        let (older, newer) = (checked(&log, 3), checked(&log, 7));
        let proof = ConsistencyProof {
            from: 3,
            size: 7,
            hashes: log.consistency(3, 7),
        };
        assert!(extends(&newer, &older, &proof));
        let mut other_sizes = proof.clone();
        other_sizes.from = 2;
        assert!(!extends(&newer, &older, &other_sizes));
        let mut forked = older.clone();
        forked.root = Hash([9; 32]);
        assert!(!extends(&newer, &forked, &proof));
    }

    fn served(witnesses: &[String], quorum: u32) -> LogConfig {
        let block = fixtures::FixtureBlock::new(1, 100, &[fixtures::LOSE]);
        let mut config = fixtures::config(&block.public_key_hex()).log;
        config.witnesses = witnesses.to_vec();
        config.quorum = quorum;
        config
    }

    fn operator() -> PublicKeyBytes {
        let block = fixtures::FixtureBlock::new(1, 100, &[fixtures::LOSE]);
        PublicKeyBytes::from_hex(&block.public_key_hex()).unwrap()
    }

    fn policy(witnesses: &[String], quorum: u32) -> PagePolicy {
        PagePolicy {
            witnesses: witnesses.to_vec(),
            quorum,
            beacon: None,
        }
    }

    #[test]
    fn the_witnesses_are_the_policys_and_the_server_only_agrees() {
        let w = fixtures::witness_vkey();
        let other = fixtures::other_witness_vkey();
        let both = [w.clone(), other.clone()];
        let op = operator();
        let trust = choose_trust(Some(&policy(&both, 1)), &served(&both, 1), &op).unwrap();
        assert_eq!((trust.quorum, trust.witnesses.len()), (1, 2));
        // The same set in another order is the same set.
        let swapped = [other.clone(), w.clone()];
        assert!(choose_trust(Some(&policy(&both, 2)), &served(&swapped, 2), &op).is_ok());
        // No policy: nothing the server says is taken instead.
        assert_eq!(
            choose_trust(None, &served(&both, 1), &op),
            Err(TrustProblem::NoPolicy)
        );
        // The server naming a witness of its own, one fewer, another
        // quorum or none at all: the game stops.
        let mismatches = [
            served(std::slice::from_ref(&other), 1),
            served(std::slice::from_ref(&w), 1),
            served(&both, 2),
            served(&[], 0),
        ];
        for served in &mismatches {
            assert_eq!(
                choose_trust(Some(&policy(&both, 1)), served, &op),
                Err(TrustProblem::Mismatch),
                "{served:?}"
            );
        }
        for bad in [
            policy(&both, 0),
            policy(&both, 3),
            policy(&[], 0),
            policy(&["nope".to_owned()], 1),
        ] {
            assert_eq!(
                choose_trust(Some(&bad), &served(&both, 1), &op),
                Err(TrustProblem::Witnesses),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn the_log_key_must_be_the_operator_key() {
        let w = [fixtures::witness_vkey()];
        let pinned = policy(&w, 1);
        let mut config = served(&w, 1);
        let other = eldorado_engine::commit::signing_key_from_secret([9; 32]);
        let other = eldorado_engine::commit::public_key_of(&other);
        assert_eq!(
            choose_trust(Some(&pinned), &config, &other),
            Err(TrustProblem::LogKey)
        );
        config.origin = "elsewhere".to_owned();
        assert_eq!(
            choose_trust(Some(&pinned), &config, &operator()),
            Err(TrustProblem::LogKey)
        );
    }
}
