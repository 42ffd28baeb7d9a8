//! The public record as the page trusts it (docs/PROTOCOL.md §9): which log
//! key and witnesses a checkpoint must be signed by, the latest checkpoint
//! this browser verified and what a newer one must prove to replace it,
//! and a record's inclusion in a checkpoint. No DOM, no network: the glue
//! (`app/record.rs`) fetches, this module decides.

use crate::api::{ConsistencyProof, InclusionProof, LogConfig};
use eldorado_engine::transparency::{
    verify_consistency, verify_inclusion, CheckedCheckpoint, LogKey, WitnessKey,
};
use eldorado_engine::{Hash, PublicKeyBytes};
use serde::{Deserialize, Serialize};

/// Witnesses pinned into this bundle when it was built: their cosignature
/// verifier keys, separated by commas (`ELDORADO_WITNESSES`), and how many
/// of them must cosign (`ELDORADO_WITNESS_QUORUM`; default: all).
pub const BUILD_WITNESSES: Option<&str> = option_env!("ELDORADO_WITNESSES");
pub const BUILD_QUORUM: Option<&str> = option_env!("ELDORADO_WITNESS_QUORUM");

/// How long the page waits for a record to be provable on a cosigned
/// checkpoint: the sequencer logs within a second, a witness cosigns soon
/// after. A block commitment not proved by then is refused; a sale not
/// proved by then fails its check.
pub const RECORD_DEADLINE_MS: f64 = 10_000.0;
/// Between two looks at the log while waiting.
pub const RECORD_POLL_MS: i32 = 200;

/// Witness pins as given (build time or launch address), unparsed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WitnessPins<'a> {
    pub witnesses: Option<&'a str>,
    pub quorum: Option<&'a str>,
}

/// Where the witnesses the page requires come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WitnessSource {
    Build,
    Launch,
    Server,
}

/// Why the page cannot trust any checkpoint: the game stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrustProblem {
    /// The log's key is unreadable, or is not the operator key.
    LogKey,
    /// A witness key or quorum given is unreadable or impossible.
    Witnesses(WitnessSource),
    /// The build's and the launch address's pins differ.
    Mismatch,
}

/// Whose signatures a checkpoint needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordTrust {
    pub log: LogKey,
    pub witnesses: Vec<WitnessKey>,
    pub quorum: usize,
    pub source: WitnessSource,
}

fn parse_witnesses(
    pins: WitnessPins<'_>,
    source: WitnessSource,
) -> Result<Option<(Vec<WitnessKey>, usize)>, TrustProblem> {
    let bad = TrustProblem::Witnesses(source);
    let text = pins.witnesses.filter(|w| !w.trim().is_empty());
    let quorum = pins.quorum.filter(|q| !q.trim().is_empty());
    let Some(text) = text else {
        // A quorum without witnesses pins nothing it could be checked on.
        return match quorum {
            Some(_) => Err(bad),
            None => Ok(None),
        };
    };
    let mut keys = Vec::new();
    for vkey in text.split(',') {
        // A launch address turns `+` into a space; a key has no space.
        let vkey = vkey.trim().replace(' ', "+");
        let key = WitnessKey::parse(&vkey).map_err(|_| bad)?;
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    let quorum = match quorum {
        Some(q) => crate::text::parse_decimal(q.trim()).ok_or(bad)? as usize,
        None => keys.len(),
    };
    if quorum == 0 || quorum > keys.len() {
        return Err(bad);
    }
    Ok(Some((keys, quorum)))
}

/// The log key is the server's (it must be the operator key the page
/// verifies with); the witnesses are the pinned ones if any (the build's
/// and the launch address's must then agree), else the server's.
pub fn choose_trust(
    build: WitnessPins<'_>,
    launch: WitnessPins<'_>,
    served: &LogConfig,
    operator: &PublicKeyBytes,
) -> Result<RecordTrust, TrustProblem> {
    let log = LogKey::parse(&served.key).map_err(|_| TrustProblem::LogKey)?;
    if log.key().as_bytes() != &operator.0 || log.origin() != served.origin {
        return Err(TrustProblem::LogKey);
    }
    let build = parse_witnesses(build, WitnessSource::Build)?;
    let launch = parse_witnesses(launch, WitnessSource::Launch)?;
    let (witnesses, quorum, source) = match (build, launch) {
        (Some(b), Some(l)) => {
            let same = b.1 == l.1 && b.0.len() == l.0.len() && b.0.iter().all(|k| l.0.contains(k));
            if !same {
                return Err(TrustProblem::Mismatch);
            }
            (b.0, b.1, WitnessSource::Build)
        }
        (Some((keys, quorum)), None) => (keys, quorum, WitnessSource::Build),
        (None, Some((keys, quorum))) => (keys, quorum, WitnessSource::Launch),
        (None, None) => {
            let bad = TrustProblem::Witnesses(WitnessSource::Server);
            let keys = served
                .witnesses
                .iter()
                .map(|w| WitnessKey::parse(w).map_err(|_| bad))
                .collect::<Result<Vec<_>, _>>()?;
            let quorum = served.quorum as usize;
            if quorum > keys.len() {
                return Err(bad);
            }
            (keys, quorum, WitnessSource::Server)
        }
    };
    Ok(RecordTrust {
        log,
        witnesses,
        quorum,
        source,
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

    #[test]
    fn witnesses_pinned_else_announced() {
        let w = fixtures::witness_vkey();
        let other = fixtures::other_witness_vkey();
        let none = WitnessPins::default();
        let op = operator();
        let trust = choose_trust(none, none, &served(std::slice::from_ref(&w), 1), &op).unwrap();
        assert_eq!((trust.quorum, trust.source), (1, WitnessSource::Server));
        let pin = WitnessPins {
            witnesses: Some(&other),
            quorum: None,
        };
        let trust = choose_trust(none, pin, &served(std::slice::from_ref(&w), 1), &op).unwrap();
        assert_eq!(trust.source, WitnessSource::Launch);
        assert_eq!(trust.witnesses[0].vkey(), other);
        // A launch address's `+` arrive as spaces.
        let spaced = other.replace('+', " ");
        let pin_spaced = WitnessPins {
            witnesses: Some(&spaced),
            quorum: Some("1"),
        };
        assert_eq!(
            choose_trust(pin, pin_spaced, &served(&[], 0), &op)
                .unwrap()
                .source,
            WitnessSource::Build
        );
        let both = format!("{w},{other}");
        let pin_both = WitnessPins {
            witnesses: Some(&both),
            quorum: Some("2"),
        };
        assert_eq!(
            choose_trust(pin, pin_both, &served(&[], 0), &op),
            Err(TrustProblem::Mismatch)
        );
        let too_many = WitnessPins {
            witnesses: Some(&other),
            quorum: Some("2"),
        };
        assert_eq!(
            choose_trust(none, too_many, &served(&[], 0), &op),
            Err(TrustProblem::Witnesses(WitnessSource::Launch))
        );
        let garbage = WitnessPins {
            witnesses: Some("nope"),
            quorum: None,
        };
        assert_eq!(
            choose_trust(garbage, none, &served(&[], 0), &op),
            Err(TrustProblem::Witnesses(WitnessSource::Build))
        );
        assert_eq!(
            choose_trust(none, none, &served(std::slice::from_ref(&w), 2), &op),
            Err(TrustProblem::Witnesses(WitnessSource::Server))
        );
    }

    #[test]
    fn the_log_key_must_be_the_operator_key() {
        let none = WitnessPins::default();
        let mut config = served(&[], 0);
        let other = eldorado_engine::commit::signing_key_from_secret([9; 32]);
        let other = eldorado_engine::commit::public_key_of(&other);
        assert_eq!(
            choose_trust(none, none, &config, &other),
            Err(TrustProblem::LogKey)
        );
        config.origin = "elsewhere".to_owned();
        assert_eq!(
            choose_trust(none, none, &config, &operator()),
            Err(TrustProblem::LogKey)
        );
    }
}
