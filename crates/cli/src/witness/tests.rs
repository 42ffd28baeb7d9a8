//! The witness against logs in memory: real checkpoints (`sign_checkpoint`)
//! and real proofs (`MemoryTree`), served honestly or not.

use super::*;
use eldorado_engine::commit::signing_key_from_secret;
use eldorado_engine::transparency::{sign_checkpoint, LogKey, MemoryTree, WitnessKey};
use eldorado_engine::SigningKey;
use std::cell::{Cell, RefCell};

const ORIGIN: &str = "eldorado.test/log";

fn operator() -> SigningKey {
    signing_key_from_secret([7; 32])
}

fn log_key() -> LogKey {
    LogKey::new(ORIGIN, operator().verifying_key()).unwrap()
}

fn cosigner() -> Cosigner {
    Cosigner::new("witness-test", signing_key_from_secret([9; 32])).unwrap()
}

fn witness_key() -> WitnessKey {
    cosigner().witness_key()
}

/// `size` records; `variant` changes record 1's bytes (another history).
fn tree_of(size: u64, variant: u8) -> MemoryTree {
    let mut tree = MemoryTree::default();
    for i in 0..size {
        let record = format!("record {i} {}", if i == 1 { variant } else { 0 });
        tree.append(record.as_bytes()).unwrap();
    }
    tree
}

/// The log as the witness sees it over HTTP.
struct FakeLog {
    tree: RefCell<MemoryTree>,
    /// The checkpoint served, as signed by the log.
    note: RefCell<String>,
    /// Cosignature lines the log took for `note`, appended when served.
    cosignatures: RefCell<Vec<String>>,
    announced_key: RefCell<String>,
    reachable: Cell<bool>,
    takes_cosignatures: Cell<bool>,
    tampered_proofs: Cell<bool>,
    submissions: Cell<usize>,
    last_submission: RefCell<Option<CosignatureSubmission>>,
    /// Every submission, taken or not.
    posted: RefCell<Vec<CosignatureSubmission>>,
    fetches: Cell<usize>,
}

impl FakeLog {
    fn new() -> FakeLog {
        FakeLog {
            tree: RefCell::new(MemoryTree::default()),
            note: RefCell::new(String::new()),
            cosignatures: RefCell::new(Vec::new()),
            announced_key: RefCell::new(log_key().vkey()),
            reachable: Cell::new(true),
            takes_cosignatures: Cell::new(true),
            tampered_proofs: Cell::new(false),
            submissions: Cell::new(0),
            last_submission: RefCell::new(None),
            posted: RefCell::new(Vec::new()),
            fetches: Cell::new(0),
        }
    }

    /// Serves the checkpoint of the first `size` records of `tree`.
    fn publish(&self, tree: MemoryTree, size: u64) {
        self.publish_signed_by(tree, size, &operator());
    }

    fn publish_signed_by(&self, tree: MemoryTree, size: u64, key: &SigningKey) {
        let note = sign_checkpoint(ORIGIN, size, &tree.root(size).unwrap(), key).unwrap();
        *self.note.borrow_mut() = String::from_utf8(note).unwrap();
        self.cosignatures.borrow_mut().clear();
        *self.tree.borrow_mut() = tree;
    }

    fn served(&self) -> String {
        let mut note = self.note.borrow().clone();
        for line in self.cosignatures.borrow().iter() {
            note.push_str(line);
        }
        note
    }

    fn reach(&self) -> Result<(), FetchError> {
        self.fetches.set(self.fetches.get() + 1);
        if self.reachable.get() {
            Ok(())
        } else {
            Err(FetchError("connection refused".to_owned()))
        }
    }
}

impl LogSource for FakeLog {
    fn announced_log_key(&self) -> Result<String, FetchError> {
        self.reach()?;
        Ok(self.announced_key.borrow().clone())
    }

    fn latest_checkpoint(&self) -> Result<String, FetchError> {
        self.reach()?;
        Ok(self.served())
    }

    fn consistency(&self, from: u64, size: u64) -> Result<ConsistencyProof, FetchError> {
        self.reach()?;
        let mut hashes = self.tree.borrow().consistency(from, size).unwrap();
        if self.tampered_proofs.get() {
            if let Some(first) = hashes.first_mut() {
                first.0[0] ^= 1;
            }
        }
        Ok(ConsistencyProof { from, size, hashes })
    }

    fn submit(&self, submission: &CosignatureSubmission) -> Result<(), FetchError> {
        self.reach()?;
        self.submissions.set(self.submissions.get() + 1);
        *self.last_submission.borrow_mut() = Some(submission.clone());
        self.posted.borrow_mut().push(submission.clone());
        if !self.takes_cosignatures.get() {
            return Err(FetchError("HTTP 400 Bad Request".to_owned()));
        }
        if submission.checkpoint == self.served() {
            self.cosignatures
                .borrow_mut()
                .push(submission.cosignature.clone());
        }
        Ok(())
    }
}

fn witness_in(dir: &std::path::Path) -> Witness {
    Witness::open(StateDir::open(dir).unwrap(), log_key(), cosigner()).unwrap()
}

const NOW_MS: u64 = 1_796_200_000_000;

fn cosigned_size(pass: Pass) -> u64 {
    match pass {
        Pass::Cosigned { size, posted } => {
            posted.unwrap();
            size
        }
        other => panic!("expected a cosignature, got {other:?}"),
    }
}

fn fork_of(pass: Pass) -> Fork {
    match pass {
        Pass::ForkDetected(fork, told) => {
            told.unwrap();
            fork
        }
        other => panic!("expected a fork, got {other:?}"),
    }
}

/// A witness that cosigned the first `size` records of history `variant`.
fn cosigned_at(dir: &std::path::Path, log: &FakeLog, size: u64, variant: u8) -> Witness {
    let mut witness = witness_in(dir);
    log.publish(tree_of(size, variant), size);
    assert_eq!(cosigned_size(witness.pass(log, NOW_MS).unwrap()), size);
    witness
}

#[test]
fn a_grown_consistent_log_is_cosigned_and_remembered() {
    let dir = tempfile::tempdir().unwrap();
    let log = FakeLog::new();
    let mut witness = cosigned_at(dir.path(), &log, 3, 0);
    // The log took a cosignature that verifies as this witness's.
    let served = log.served();
    let opened = open_checkpoint(served.as_bytes(), &log_key(), &[witness_key()], 1).unwrap();
    assert_eq!(opened.witnesses, vec!["witness-test".to_owned()]);
    let saved = StateDir::open(dir.path())
        .unwrap()
        .cosigned()
        .unwrap()
        .unwrap();
    assert_eq!(
        (saved.size, saved.root),
        (3, tree_of(3, 0).root(3).unwrap())
    );
    assert_eq!(saved.note, *log.note.borrow());
    assert_eq!(saved.cosigned_at_ms, NOW_MS);

    // Nothing new: nothing signed, nothing posted.
    let posted = log.submissions.get();
    assert!(matches!(
        witness.pass(&log, NOW_MS + 500).unwrap(),
        Pass::Unchanged { size: 3 }
    ));
    assert_eq!(log.submissions.get(), posted);

    // Grown, with an honest consistency proof.
    log.publish(tree_of(10, 0), 10);
    assert_eq!(
        cosigned_size(witness.pass(&log, NOW_MS + 1000).unwrap()),
        10
    );
    let status = witness.status();
    assert_eq!(
        (status.log.as_str(), status.size, status.fork.is_none()),
        (ORIGIN, Some(10), true)
    );
    assert_eq!(status.http_status(), axum::http::StatusCode::OK);

    // A restarted witness remembers the newest tree it vouched for.
    let restarted = witness_in(dir.path());
    assert_eq!(restarted.last().map(|c| c.size), Some(10));
    assert!(restarted.status().fork.is_none());
}

#[test]
fn a_first_checkpoint_of_an_empty_log_then_growth_is_cosigned() {
    let dir = tempfile::tempdir().unwrap();
    let log = FakeLog::new();
    let mut witness = cosigned_at(dir.path(), &log, 0, 0);
    log.publish(tree_of(1, 0), 1);
    assert_eq!(cosigned_size(witness.pass(&log, NOW_MS).unwrap()), 1);
}

/// What the witness last showed the log: the checkpoint it cosigned, with
/// a valid cosignature of its own (as the server checks it).
fn shown(log: &FakeLog) -> CheckedCheckpoint {
    let shown = log.last_submission.borrow().clone().expect("a submission");
    let evidence = format!("{}{}", shown.checkpoint, shown.cosignature);
    open_checkpoint(evidence.as_bytes(), &log_key(), &[witness_key()], 1).unwrap()
}

#[test]
fn a_rolled_back_log_is_not_cosigned_and_is_shown_what_was() {
    let dir = tempfile::tempdir().unwrap();
    let log = FakeLog::new();
    let mut witness = cosigned_at(dir.path(), &log, 10, 0);
    log.publish(tree_of(10, 0), 6);
    match witness.pass(&log, NOW_MS).unwrap() {
        Pass::Behind {
            cosigned: 10,
            offered: 6,
            told: Ok(()),
        } => {}
        other => panic!("expected the log behind, got {other:?}"),
    }
    assert_eq!(shown(&log).size, 10);
    assert!(log.cosignatures.borrow().is_empty(), "nothing cosigned");
    // An older copy is no fork yet: nothing recorded, the status healthy.
    assert_eq!(StateDir::open(dir.path()).unwrap().fork().unwrap(), None);
    assert_eq!(witness.status().size, Some(10));
    assert_eq!(witness.status().http_status(), axum::http::StatusCode::OK);

    // The log back with the tree cosigned, grown: cosigned again.
    log.publish(tree_of(12, 0), 12);
    assert_eq!(cosigned_size(witness.pass(&log, NOW_MS).unwrap()), 12);

    // An older copy that went on logging on its own is a fork, and the
    // log is shown the checkpoint cosigned last all the same.
    log.publish(tree_of(14, 1), 14);
    let fork = fork_of(witness.pass(&log, NOW_MS).unwrap());
    assert_eq!((fork.cosigned.size, fork.offered.size), (12, 14));
    assert_eq!(shown(&log).size, 12);
    assert!(matches!(
        witness.pass(&log, NOW_MS).unwrap(),
        Pass::Refusing
    ));
}

#[test]
fn the_same_size_with_another_root_is_a_fork() {
    let dir = tempfile::tempdir().unwrap();
    let log = FakeLog::new();
    let mut witness = cosigned_at(dir.path(), &log, 5, 0);
    log.publish(tree_of(5, 1), 5);
    let fork = fork_of(witness.pass(&log, NOW_MS).unwrap());
    assert!(fork.reason.contains("another root"), "{}", fork.reason);
    assert_ne!(fork.cosigned.root, fork.offered.root);
    assert_eq!(fork.offered.note, log.served());
}

#[test]
fn a_grown_tree_of_another_history_fails_its_consistency_proof() {
    let dir = tempfile::tempdir().unwrap();
    let log = FakeLog::new();
    let mut witness = cosigned_at(dir.path(), &log, 4, 0);
    // Record 1 rewritten, then grown: the log's own proof cannot link them.
    log.publish(tree_of(9, 1), 9);
    let fork = fork_of(witness.pass(&log, NOW_MS).unwrap());
    assert!(fork.reason.contains("consistency proof"), "{}", fork.reason);
    assert_eq!((fork.cosigned.size, fork.offered.size), (4, 9));
}

#[test]
fn a_tampered_consistency_proof_is_a_fork() {
    let dir = tempfile::tempdir().unwrap();
    let log = FakeLog::new();
    let mut witness = cosigned_at(dir.path(), &log, 5, 0);
    log.tampered_proofs.set(true);
    log.publish(tree_of(11, 0), 11);
    let fork = fork_of(witness.pass(&log, NOW_MS).unwrap());
    assert!(fork.reason.contains("consistency proof"), "{}", fork.reason);
}

#[test]
fn a_witness_that_saw_a_fork_refuses_from_then_on_and_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let log = FakeLog::new();
    let mut witness = cosigned_at(dir.path(), &log, 8, 0);
    log.publish(tree_of(8, 1), 8);
    let fork = fork_of(witness.pass(&log, NOW_MS).unwrap());
    let submissions = log.submissions.get();

    // Even an honest-looking continuation of what it cosigned is refused.
    log.publish(tree_of(12, 0), 12);
    assert!(matches!(
        witness.pass(&log, NOW_MS).unwrap(),
        Pass::Refusing
    ));

    let mut restarted = witness_in(dir.path());
    assert_eq!(restarted.status().fork, Some(fork));
    let fetches = log.fetches.get();
    assert!(matches!(
        restarted.pass(&log, NOW_MS).unwrap(),
        Pass::Refusing
    ));
    assert_eq!(
        log.fetches.get(),
        fetches,
        "a refusing witness asks nothing"
    );
    assert_eq!(log.submissions.get(), submissions);
    // What it cosigned last is still the tree before the fork.
    assert_eq!(restarted.last().map(|c| c.size), Some(8));
}

#[test]
fn an_unreachable_log_or_a_forged_checkpoint_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let log = FakeLog::new();
    let mut witness = cosigned_at(dir.path(), &log, 3, 0);
    log.reachable.set(false);
    assert!(matches!(
        witness.pass(&log, NOW_MS),
        Err(PassError::Fetch(_))
    ));
    log.reachable.set(true);
    // Signed by someone else: proves nothing against the log.
    log.publish_signed_by(tree_of(2, 1), 2, &signing_key_from_secret([8; 32]));
    assert!(matches!(
        witness.pass(&log, NOW_MS),
        Err(PassError::Checkpoint(_))
    ));
    assert!(witness.status().fork.is_none());
    assert_eq!(witness.last().map(|c| c.size), Some(3));
    log.publish(tree_of(6, 0), 6);
    assert_eq!(cosigned_size(witness.pass(&log, NOW_MS).unwrap()), 6);
}

#[test]
fn a_cosignature_the_log_did_not_take_is_posted_again() {
    let dir = tempfile::tempdir().unwrap();
    let log = FakeLog::new();
    let mut witness = witness_in(dir.path());
    log.publish(tree_of(4, 0), 4);
    log.takes_cosignatures.set(false);
    match witness.pass(&log, NOW_MS).unwrap() {
        Pass::Cosigned { size: 4, posted } => assert!(posted.is_err()),
        other => panic!("{other:?}"),
    }
    // Saved before posting, even though the post failed.
    let saved = StateDir::open(dir.path()).unwrap().cosigned().unwrap();
    assert_eq!(saved.map(|c| c.size), Some(4));
    let lost = log.last_submission.borrow().clone().unwrap();
    log.takes_cosignatures.set(true);
    // Posted again as it was made: the log's copy is dated when the
    // witness first vouched for these records, not at the repost.
    assert!(matches!(
        witness.pass(&log, NOW_MS + 5_000).unwrap(),
        Pass::Unchanged { size: 4 }
    ));
    assert_eq!(log.last_submission.borrow().as_ref(), Some(&lost));
    assert!(log.served().ends_with(&lost.cosignature));
    // One cosignature made, one published.
    assert_eq!(
        witness.publication().lock().unwrap().after(0).cosignatures,
        [lost]
    );
}

#[test]
fn cosignatures_the_log_lost_are_posted_again_in_order_before_a_newer_one() {
    let dir = tempfile::tempdir().unwrap();
    let log = FakeLog::new();
    let mut witness = witness_in(dir.path());
    log.takes_cosignatures.set(false);
    for (i, size) in [3, 5].into_iter().enumerate() {
        log.publish(tree_of(size, 0), size);
        match witness.pass(&log, NOW_MS + 1_000 * i as u64).unwrap() {
            Pass::Cosigned { posted, .. } => assert!(posted.is_err()),
            other => panic!("{other:?}"),
        }
    }
    let made = witness.publication().lock().unwrap().after(0).cosignatures;
    assert_eq!(made.len(), 2);
    // The log is back, and has grown: the lost ones first, as they were
    // made, then the newest.
    log.takes_cosignatures.set(true);
    log.posted.borrow_mut().clear();
    log.publish(tree_of(8, 0), 8);
    assert_eq!(
        cosigned_size(witness.pass(&log, NOW_MS + 9_000).unwrap()),
        8
    );
    let posted = log.posted.borrow().clone();
    assert_eq!(posted.len(), 3, "{posted:?}");
    assert_eq!(posted[..2], made[..]);
    // A restarted witness whose last post the log lost (either side
    // crashed) posts that line again, as first made.
    log.takes_cosignatures.set(false);
    log.publish(tree_of(11, 0), 11);
    match witness.pass(&log, NOW_MS + 10_000).unwrap() {
        Pass::Cosigned { posted, .. } => assert!(posted.is_err()),
        other => panic!("{other:?}"),
    }
    let lost = log.last_submission.borrow().clone().unwrap();
    drop(witness);
    log.takes_cosignatures.set(true);
    log.posted.borrow_mut().clear();
    let mut witness = witness_in(dir.path());
    assert_eq!(
        cosigned_size(witness.pass(&log, NOW_MS + 20_000).unwrap()),
        11
    );
    assert_eq!(log.posted.borrow()[..], [lost]);
    assert!(matches!(
        witness.pass(&log, NOW_MS + 21_000).unwrap(),
        Pass::Unchanged { size: 11 }
    ));
}

#[test]
fn every_cosignature_is_published_in_order_and_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let log = FakeLog::new();
    let mut witness = witness_in(dir.path());
    let mut made = Vec::new();
    for (i, size) in [3, 5, 9].into_iter().enumerate() {
        log.publish(tree_of(size, 0), size);
        assert_eq!(
            cosigned_size(witness.pass(&log, NOW_MS + 1_000 * i as u64).unwrap()),
            size
        );
        made.push(log.last_submission.borrow().clone().unwrap());
    }
    let shown = |witness: &Witness, after| {
        witness
            .publication()
            .lock()
            .unwrap()
            .after(after)
            .cosignatures
    };
    assert_eq!(shown(&witness, 0), made);
    // The first cosignature holding record 4 is that of size 5.
    assert_eq!(shown(&witness, 4), made[1..]);
    assert_eq!(shown(&witness, 5), made[2..]);
    assert!(shown(&witness, 9).is_empty());
    // Each line is the witness's, dated when it cosigned.
    let opened = open_checkpoint(
        format!("{}{}", made[1].checkpoint, made[1].cosignature).as_bytes(),
        &log_key(),
        &[witness_key()],
        1,
    )
    .unwrap();
    assert_eq!(
        (opened.size, opened.cosigned_at),
        (5, vec![NOW_MS / 1000 + 1])
    );
    // A restart reads them back; a line cut by a crash is dropped, and
    // the next cosignature follows the whole ones.
    drop(witness);
    let file = dir.path().join(state::PUBLISHED_FILE);
    let mut bytes = std::fs::read(&file).unwrap();
    bytes.extend_from_slice(b"{\"size\": 11, \"checkp");
    std::fs::write(&file, bytes).unwrap();
    let mut witness = witness_in(dir.path());
    assert_eq!(shown(&witness, 0), made);
    log.publish(tree_of(12, 0), 12);
    assert_eq!(
        cosigned_size(witness.pass(&log, NOW_MS + 9_000).unwrap()),
        12
    );
    made.push(log.last_submission.borrow().clone().unwrap());
    drop(witness);
    assert_eq!(shown(&witness_in(dir.path()), 0), made);
    std::fs::write(&file, "not json\n").unwrap();
    assert!(matches!(
        Witness::open(StateDir::open(dir.path()).unwrap(), log_key(), cosigner()),
        Err(StateError::Corrupt { .. })
    ));
}

#[test]
fn the_log_key_is_pinned_on_first_use_and_a_change_refused() {
    let dir = tempfile::tempdir().unwrap();
    let state = StateDir::open(dir.path()).unwrap();
    let log = FakeLog::new();
    log.reachable.set(false);
    assert!(matches!(
        settle_log_key(&state, None, &log),
        Err(LogKeyError::Fetch(_))
    ));
    log.reachable.set(true);
    assert_eq!(settle_log_key(&state, None, &log).unwrap(), log_key());
    assert_eq!(state.pinned_log_key().unwrap(), Some(log_key().vkey()));
    // Pinned: an unreachable log does not stop the witness.
    log.reachable.set(false);
    assert_eq!(settle_log_key(&state, None, &log).unwrap(), log_key());
    log.reachable.set(true);

    let other = LogKey::new(ORIGIN, signing_key_from_secret([8; 32]).verifying_key())
        .unwrap()
        .vkey();
    *log.announced_key.borrow_mut() = other.clone();
    assert!(matches!(
        settle_log_key(&state, None, &log),
        Err(LogKeyError::Mismatch { .. })
    ));
    assert!(matches!(
        settle_log_key(&state, Some(&other), &log),
        Err(LogKeyError::Mismatch { .. })
    ));
    assert!(matches!(
        settle_log_key(&state, Some("not a key"), &log),
        Err(LogKeyError::Malformed { .. })
    ));
    // The flag alone pins a fresh directory.
    let fresh = tempfile::tempdir().unwrap();
    let fresh = StateDir::open(fresh.path()).unwrap();
    log.reachable.set(false);
    let key = settle_log_key(&fresh, Some(&other), &log).unwrap();
    assert_eq!(key.vkey(), other);
    assert_eq!(fresh.pinned_log_key().unwrap(), Some(other));
}

/// The body pushing the checkpoint of the first `size` records of
/// history `variant`, from `old` (with the honest proof).
fn push_body(size: u64, variant: u8, old: u64) -> String {
    let tree = tree_of(size, variant);
    let note = sign_checkpoint(ORIGIN, size, &tree.root(size).unwrap(), &operator()).unwrap();
    let proof = if old == 0 {
        Vec::new()
    } else {
        tree.consistency(old, size).unwrap()
    };
    eldorado_engine::transparency::add_checkpoint_body(
        old,
        &proof,
        std::str::from_utf8(&note).unwrap(),
    )
}

#[test]
fn a_pushed_checkpoint_that_extends_the_last_is_cosigned_at_once() {
    use super::push::Refusal;
    let dir = tempfile::tempdir().unwrap();
    let mut witness = witness_in(dir.path());
    let line = witness.add_checkpoint(&push_body(4, 0, 0), NOW_MS).unwrap();
    let note = format!(
        "{}{line}",
        String::from_utf8(
            sign_checkpoint(ORIGIN, 4, &tree_of(4, 0).root(4).unwrap(), &operator()).unwrap()
        )
        .unwrap()
    );
    let opened = open_checkpoint(note.as_bytes(), &log_key(), &[witness_key()], 1).unwrap();
    assert_eq!((opened.size, opened.cosigned_at), (4, vec![NOW_MS / 1000]));
    // The old size must be the one cosigned last; the answer says which.
    assert!(matches!(
        witness.add_checkpoint(&push_body(9, 0, 0), NOW_MS),
        Err(Refusal::Conflict { latest: 4 })
    ));
    let grown = witness
        .add_checkpoint(&push_body(9, 0, 4), NOW_MS + 2_000)
        .unwrap();
    assert_ne!(grown, line);
    // The same checkpoint again: the line first made for it.
    assert_eq!(
        witness
            .add_checkpoint(&push_body(9, 0, 9), NOW_MS + 9_000)
            .unwrap(),
        grown
    );
    assert_eq!(
        witness
            .publication()
            .lock()
            .unwrap()
            .after(0)
            .cosignatures
            .len(),
        2,
        "each checkpoint published once"
    );
    // A proof that does not lead there, another log, another key.
    let mut tampered = push_body(12, 0, 9);
    tampered.replace_range(7..8, if &tampered[7..8] == "A" { "B" } else { "A" });
    assert!(matches!(
        witness.add_checkpoint(&tampered, NOW_MS),
        Err(Refusal::BadProof(_) | Refusal::Malformed(_))
    ));
    let elsewhere = push_body(12, 0, 9).replace(ORIGIN, "elsewhere.test/log");
    assert!(matches!(
        witness.add_checkpoint(&elsewhere, NOW_MS),
        Err(Refusal::UnknownOrigin(_))
    ));
    let tree = tree_of(12, 0);
    let forged = sign_checkpoint(
        ORIGIN,
        12,
        &tree.root(12).unwrap(),
        &signing_key_from_secret([8; 32]),
    )
    .unwrap();
    let forged = eldorado_engine::transparency::add_checkpoint_body(
        9,
        &tree.consistency(9, 12).unwrap(),
        std::str::from_utf8(&forged).unwrap(),
    );
    assert!(matches!(
        witness.add_checkpoint(&forged, NOW_MS),
        Err(Refusal::NotSigned)
    ));
    assert!(matches!(
        witness.add_checkpoint("old 9\n", NOW_MS),
        Err(Refusal::Malformed(_))
    ));
    assert_eq!(
        witness.last().unwrap().size,
        9,
        "nothing refused was cosigned"
    );
}

#[test]
fn a_pushed_fork_is_refused_for_good() {
    use super::push::Refusal;
    let dir = tempfile::tempdir().unwrap();
    let mut witness = witness_in(dir.path());
    witness.add_checkpoint(&push_body(5, 0, 0), NOW_MS).unwrap();
    assert!(matches!(
        witness.add_checkpoint(&push_body(5, 1, 5), NOW_MS),
        Err(Refusal::Conflict { latest: 5 })
    ));
    assert!(StateDir::open(dir.path())
        .unwrap()
        .fork()
        .unwrap()
        .is_some());
    assert!(matches!(
        witness.add_checkpoint(&push_body(7, 0, 5), NOW_MS),
        Err(Refusal::Refusing)
    ));
    drop(witness);
    assert!(matches!(
        witness_in(dir.path()).add_checkpoint(&push_body(7, 0, 5), NOW_MS),
        Err(Refusal::Refusing)
    ));
}

#[test]
fn a_witness_that_cosigned_before_it_published_says_from_where() {
    let dir = tempfile::tempdir().unwrap();
    let log = FakeLog::new();
    let witness = cosigned_at(dir.path(), &log, 4, 0);
    assert_eq!(witness.publication().lock().unwrap().after(0).since, 0);
    drop(witness);
    // As an older witness left it: its state, no publication.
    std::fs::remove_file(dir.path().join(state::PUBLISHED_FILE)).unwrap();
    let mut witness = witness_in(dir.path());
    log.publish(tree_of(6, 0), 6);
    assert_eq!(cosigned_size(witness.pass(&log, NOW_MS).unwrap()), 6);
    let published = witness.publication().lock().unwrap().after(0);
    assert_eq!((published.since, published.cosignatures.len()), (4, 1));
    drop(witness);
    // Read back the same after a restart.
    let published = witness_in(dir.path())
        .publication()
        .lock()
        .unwrap()
        .after(0);
    assert_eq!((published.since, published.cosignatures.len()), (4, 1));
}
