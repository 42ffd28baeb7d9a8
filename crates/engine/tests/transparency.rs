//! The public record's primitives: leaves, RFC 6962 proofs, checkpoints and
//! cosignatures, and that tampering with any of them is caught.

use eldorado_engine::commit::{public_key_of, signing_key_from_secret};
use eldorado_engine::transparency::{
    open_checkpoint, record_hash, sign_checkpoint, verify_consistency, verify_inclusion,
    CheckpointError, Cosigner, LeafError, LogEntry, LogKey, MemoryTree, ProofError, WitnessKey,
};
use eldorado_engine::{ClientNonce, Commitment, Hash, LoggedSale, Money, SigningKey};

const ORIGIN: &str = "eldorado.test/log";

fn operator() -> SigningKey {
    signing_key_from_secret([7; 32])
}

/// A log in memory: its records, and its tree as the server builds its
/// own (`MemoryTree`: tlog's stored hashes, appended record by record).
#[derive(Default)]
struct MemLog {
    leaves: Vec<Vec<u8>>,
    tree: MemoryTree,
}

impl MemLog {
    fn append(&mut self, leaf: Vec<u8>) {
        self.tree.append(&leaf).unwrap();
        self.leaves.push(leaf);
    }
    fn size(&self) -> u64 {
        self.tree.size()
    }
    fn root(&self, size: u64) -> Hash {
        self.tree.root(size).unwrap()
    }
    fn inclusion(&self, index: u64, size: u64) -> Vec<Hash> {
        self.tree.inclusion(index, size).unwrap()
    }
    fn consistency(&self, old: u64, new: u64) -> Vec<Hash> {
        self.tree.consistency(old, new).unwrap()
    }
}

fn commitment(block: u64) -> Commitment {
    Commitment::new(block, 100, 400_000, Money::Real, Hash([block as u8; 32]))
}

fn logged_sale(sale_id: u64, block: u64, position: u32) -> LoggedSale {
    LoggedSale {
        sale_id,
        block,
        tickets: 400_000,
        position,
        ticket_leaf: Hash([0x44; 32]),
        player: "alice".to_owned(),
        sold_at_ms: 1_796_200_000_000,
        client_nonce: ClientNonce([0x5a; 16]),
        balance_before_cents: 1_000,
        balance_after_cents: 900,
    }
}

fn commitment_leaf(block: u64) -> Vec<u8> {
    LogEntry::of_commitment(&commitment(block).sign(&operator()))
        .to_leaf()
        .unwrap()
}

fn sale_leaf(sale: LoggedSale) -> Vec<u8> {
    LogEntry::sign_sale(sale, &operator())
        .unwrap()
        .to_leaf()
        .unwrap()
}

fn log_of(size: usize) -> MemLog {
    let mut log = MemLog::default();
    for i in 0..size {
        log.append(if i % 5 == 0 {
            commitment_leaf(i as u64)
        } else {
            sale_leaf(logged_sale(i as u64, 0, i as u32))
        });
    }
    log
}

#[test]
fn leaves_read_back_as_what_was_signed_and_verify() {
    let key = operator().verifying_key();
    let c = commitment_leaf(3);
    match LogEntry::parse(&c).unwrap() {
        LogEntry::Commitment {
            commitment: read, ..
        } => assert_eq!(read, commitment(3)),
        other => panic!("{other:?}"),
    }
    LogEntry::parse(&c).unwrap().verify(&key).unwrap();
    let s = sale_leaf(logged_sale(17, 3, 1234));
    let entry = LogEntry::parse(&s).unwrap();
    assert_eq!(entry.block(), Some(3));
    match &entry {
        LogEntry::Sale { sale, .. } => assert_eq!(*sale, logged_sale(17, 3, 1234)),
        other => panic!("{other:?}"),
    }
    entry.verify(&key).unwrap();
}

#[test]
fn a_changed_byte_or_a_cut_leaf_never_passes() {
    let key = operator().verifying_key();
    let leaf = sale_leaf(logged_sale(17, 3, 1234));
    for i in 0..leaf.len() {
        let mut bad = leaf.clone();
        bad[i] ^= 0x01;
        let refused = match LogEntry::parse(&bad) {
            Err(_) => true,
            Ok(entry) => entry.verify(&key).is_err(),
        };
        assert!(refused, "byte {i} changed and still verified");
    }
    for len in 0..leaf.len() {
        assert!(LogEntry::parse(&leaf[..len]).is_err(), "cut at {len}");
    }
}

#[test]
fn a_shifted_balance_breaks_the_sale_signature() {
    let key = operator().verifying_key();
    let LogEntry::Sale { sale, signature } =
        LogEntry::sign_sale(logged_sale(1, 1, 1), &operator()).unwrap()
    else {
        unreachable!()
    };
    sale.verify(&key, &signature).unwrap();
    for shift in [
        |s: &mut LoggedSale| s.balance_before_cents += 1_000_000,
        |s: &mut LoggedSale| s.balance_after_cents += 1_000_000,
    ] {
        let mut shifted = sale.clone();
        shift(&mut shifted);
        assert!(shifted.verify(&key, &signature).is_err());
    }
}

#[test]
fn a_v2_sale_cannot_be_logged() {
    let ticket = eldorado_engine::Ticket {
        position: 0,
        stake_cents: 100,
        grids: vec!["SDRCD/PPSDR/RSDCM".parse().unwrap()],
        prize_cents: 0,
        extras: 0,
        salt: eldorado_engine::Salt([0; 16]),
    };
    let v2 = eldorado_engine::Sale {
        sale_id: 1,
        block: 1,
        tickets: 400_000,
        ticket,
        proof: vec![],
        player: "p".to_owned(),
        sold_at_ms: 0,
        client_nonce: ClientNonce([0; 16]),
        balance_before_cents: None,
        balance_after_cents: None,
    }
    .sign(&operator())
    .unwrap();
    assert_eq!(LogEntry::of_sale(&v2), Err(LeafError::NotLoggable));
    let mut half = v2.clone();
    half.sale.balance_before_cents = Some(5);
    assert!(LogEntry::of_sale(&half).is_err());
}

#[test]
fn every_record_of_every_small_tree_proves_its_inclusion() {
    let log = log_of(21);
    for size in 1..=log.size() {
        let root = log.root(size);
        for index in 0..size {
            let leaf = &log.leaves[index as usize];
            let proof = log.inclusion(index, size);
            verify_inclusion(leaf, index, size, &root, &proof).unwrap();
            // Another record's leaf, another index or a changed hash fails.
            let other = &log.leaves[((index + 1) % size) as usize];
            if other != leaf {
                assert!(verify_inclusion(other, index, size, &root, &proof).is_err());
            }
            if size > 1 {
                let moved = (index + 1) % size;
                assert!(verify_inclusion(leaf, moved, size, &root, &proof).is_err());
            }
            for k in 0..proof.len() {
                let mut bad = proof.clone();
                bad[k].0[0] ^= 1;
                assert!(verify_inclusion(leaf, index, size, &root, &bad).is_err());
            }
        }
        assert_eq!(
            verify_inclusion(&log.leaves[0], size, size, &root, &[]),
            Err(ProofError::OutOfRange)
        );
    }
}

#[test]
fn every_prefix_of_every_small_tree_proves_consistency_and_a_fork_fails() {
    let log = log_of(21);
    let mut fork = MemLog::default();
    for (i, leaf) in log.leaves.iter().enumerate() {
        // The fork differs from record 7 on.
        let mut leaf = leaf.clone();
        if i >= 7 {
            leaf = commitment_leaf(1_000 + i as u64);
        }
        fork.append(leaf);
    }
    for new in 1..=log.size() {
        for old in 0..=new {
            let old_root = if old == 0 {
                Hash([0; 32])
            } else {
                log.root(old)
            };
            let proof = if old == 0 || old == new {
                vec![]
            } else {
                log.consistency(old, new)
            };
            verify_consistency(old, &old_root, new, &log.root(new), &proof).unwrap();
            if old >= 8 && old < new {
                // The same sizes, but the old checkpoint is of the fork.
                assert!(
                    verify_consistency(old, &fork.root(old), new, &log.root(new), &proof).is_err()
                );
            }
        }
    }
    // Same size, two roots: a fork, never consistent.
    assert_eq!(
        verify_consistency(9, &log.root(9), 9, &fork.root(9), &[]),
        Err(ProofError::Mismatch)
    );
    // A smaller tree is never consistent with a bigger one's past.
    assert_eq!(
        verify_consistency(9, &log.root(9), 8, &log.root(8), &[]),
        Err(ProofError::OutOfRange)
    );
}

fn witness(n: u8) -> Cosigner {
    Cosigner::new(
        &format!("witness-{n}.test"),
        signing_key_from_secret([n; 32]),
    )
    .unwrap()
}

fn log_key() -> LogKey {
    LogKey::new(ORIGIN, operator().verifying_key()).unwrap()
}

#[test]
fn a_checkpoint_opens_with_the_log_key_and_the_quorum_of_witnesses() {
    let log = log_of(6);
    let note = sign_checkpoint(ORIGIN, 6, &log.root(6), &operator()).unwrap();
    let opened = open_checkpoint(&note, &log_key(), &[], 0).unwrap();
    assert_eq!((opened.size, opened.root), (6, log.root(6)));

    let (a, b) = (witness(1), witness(2));
    let keys = [a.witness_key(), b.witness_key()];
    assert_eq!(
        open_checkpoint(&note, &log_key(), &keys, 1),
        Err(CheckpointError::TooFewCosignatures {
            found: 0,
            quorum: 1
        })
    );
    let mut cosigned = note.clone();
    cosigned.extend_from_slice(a.cosign(&note, 1_796_200_000).unwrap().as_bytes());
    let opened = open_checkpoint(&cosigned, &log_key(), &keys, 1).unwrap();
    assert_eq!(opened.witnesses, vec!["witness-1.test".to_owned()]);
    assert!(matches!(
        open_checkpoint(&cosigned, &log_key(), &keys, 2),
        Err(CheckpointError::TooFewCosignatures { found: 1, .. })
    ));
    cosigned.extend_from_slice(b.cosign(&note, 1_796_200_001).unwrap().as_bytes());
    let both = open_checkpoint(&cosigned, &log_key(), &keys, 2).unwrap();
    assert_eq!(both.witnesses.len(), 2);
    // Each cosignature's second: made before the next second began.
    let mut times = both.cosigned_at.clone();
    times.sort_unstable();
    assert_eq!(times, [1_796_200_000, 1_796_200_001]);
    // The quorum's time is its latest cosignature's.
    assert_eq!(both.quorum_cosigned_at(1), Some(1_796_200_000));
    assert_eq!(both.quorum_cosigned_at(2), Some(1_796_200_001));
    assert_eq!(both.quorum_cosigned_at(3), None);
    assert_eq!(both.quorum_cosigned_at(0), None, "no quorum proves nothing");
    // A witness the page does not know counts for nothing.
    let stranger = witness(3);
    let mut by_stranger = note.clone();
    by_stranger.extend_from_slice(stranger.cosign(&note, 5).unwrap().as_bytes());
    assert!(open_checkpoint(&by_stranger, &log_key(), &keys, 1).is_err());
}

#[test]
fn a_forged_checkpoint_or_cosignature_is_refused() {
    let log = log_of(6);
    let note = sign_checkpoint(ORIGIN, 6, &log.root(6), &operator()).unwrap();
    // Another size under the log's signature.
    let text = String::from_utf8(note.clone()).unwrap();
    let forged = text.replacen("\n6\n", "\n7\n", 1);
    assert_eq!(
        open_checkpoint(forged.as_bytes(), &log_key(), &[], 0),
        Err(CheckpointError::LogSignature)
    );
    // Signed by another key.
    let other =
        sign_checkpoint(ORIGIN, 6, &log.root(6), &signing_key_from_secret([8; 32])).unwrap();
    assert_eq!(
        open_checkpoint(&other, &log_key(), &[], 0),
        Err(CheckpointError::LogSignature)
    );
    // Another log's checkpoint.
    let elsewhere = sign_checkpoint("elsewhere.test/log", 6, &log.root(6), &operator()).unwrap();
    assert!(matches!(
        open_checkpoint(&elsewhere, &log_key(), &[], 0),
        Err(CheckpointError::WrongOrigin { .. })
    ));
    // A witness's cosignature of another checkpoint, pasted under this one.
    let a = witness(1);
    let smaller = sign_checkpoint(ORIGIN, 5, &log.root(5), &operator()).unwrap();
    let mut pasted = note.clone();
    pasted.extend_from_slice(a.cosign(&smaller, 9).unwrap().as_bytes());
    assert_eq!(
        open_checkpoint(&pasted, &log_key(), &[a.witness_key()], 1),
        Err(CheckpointError::BadCosignature("witness-1.test".to_owned()))
    );
}

#[test]
fn verifier_keys_read_back_and_refuse_the_wrong_algorithm() {
    let key = log_key();
    assert_eq!(LogKey::parse(&key.vkey()).unwrap(), key);
    let w = witness(1).witness_key();
    assert_eq!(WitnessKey::parse(&w.vkey()).unwrap(), w);
    assert!(WitnessKey::parse(&key.vkey()).is_err());
    assert!(LogKey::parse(&w.vkey()).is_err());
    let mut bad_id = key.vkey();
    bad_id.replace_range(ORIGIN.len() + 1..ORIGIN.len() + 2, "z");
    assert!(LogKey::parse(&bad_id).is_err());
    assert!(LogKey::parse("no-plus-signs").is_err());
}

/// The worked example of docs/PROTOCOL.md ("The public record"): if the
/// document and the engine ever disagree, this fails.
#[test]
fn the_protocol_worked_example_of_the_log() {
    let key = operator();
    assert_eq!(
        public_key_of(&key).to_hex(),
        "ea4a6c63e29c520abef5507b132ec5f9954776aebebe7b92421eea691446d22c"
    );
    let c = LogEntry::of_commitment(
        &Commitment::new(3, 100, 400_000, Money::Real, Hash([0x33; 32])).sign(&key),
    )
    .to_leaf()
    .unwrap();
    let mut sale = logged_sale(17, 3, 1234);
    sale.ticket_leaf =
        Hash::from_hex("76aef579b354c6757926c303f04562641fb9d96e692d40e520f46cd159876cbe").unwrap();
    sale.client_nonce = ClientNonce::from_hex("00112233445566778899aabbccddeeff").unwrap();
    let s = sale_leaf(sale);
    let mut log = MemLog::default();
    log.append(c.clone());
    log.append(s.clone());
    let root = log.root(2);
    let note = sign_checkpoint(ORIGIN, 2, &root, &key).unwrap();
    let cosigner = witness(1);
    let line = cosigner.cosign(&note, 1_796_200_000).unwrap();
    let printed = format!(
        "commitment leaf {}\nsale leaf {}\nrecord 0 {}\nrecord 1 {}\nroot {}\nlog key {}\nwitness key {}\n{}{}",
        hex::encode(&c),
        hex::encode(&s),
        record_hash(&c).to_hex(),
        record_hash(&s).to_hex(),
        root.to_hex(),
        log_key().vkey(),
        cosigner.witness_key().vkey(),
        String::from_utf8(note.clone()).unwrap(),
        line
    );
    assert_eq!(printed, WORKED_EXAMPLE);
}

const WORKED_EXAMPLE: &str = concat!(
    "commitment leaf ",
    "454c444f5241444f2d434f4d4d49542d5632",
    "0000000000000003",
    "0000000000000064",
    "00061a80",
    "00",
    "138b9fc540bd8a4b9f27679f7779d0f4b226a229e3592c04a8a366aacf2eb997",
    "3333333333333333333333333333333333333333333333333333333333333333",
    "3be9c7360a243a43ccd7e99ab73b31fda48128f6069ae525d4df7d8d6c6e1508",
    "92e414cfd8c32ed4125fa7926ba346d71ab5c2086eb395c55bdef3680a0f1d05\n",
    "sale leaf ",
    "454c444f5241444f2d53414c452d5633",
    "0000000000000011",
    "0000000000000003",
    "00061a80",
    "000004d2",
    "76aef579b354c6757926c303f04562641fb9d96e692d40e520f46cd159876cbe",
    "05",
    "616c696365",
    "000001a235dcea00",
    "00112233445566778899aabbccddeeff",
    "00000000000003e8",
    "0000000000000384",
    "473636e73fd1c440639d34d7224b5e6a3be80ff3e8fb00f67d9b51ce66121535",
    "efef16a457a9f37aa3564fefd374ebaa695cdc6367b0747725688d5dac865c0b\n",
    "record 0 2bfef536130a3ed493d20ec8a7a31e8db1e1c016ce8a41a1430326ba4767e254\n",
    "record 1 371bd8f4c628a44b4ace1d1488c3678954f12f2c341ce169ddacedb8d6150d6a\n",
    "root 85dc9d20e8ce8e7856beb5b952a5f3487f271317620169841fb0ede79c6f8c2c\n",
    "log key eldorado.test/log+60e6431e+AepKbGPinFIKvvVQexMuxfmVR3auvr57kkIe6mkURtIs\n",
    "witness key witness-1.test+a29d40e3+BIqI4910CfGV/VLbLTy6XXLKZwm/HZQSG/N0iAG0D29c\n",
    "eldorado.test/log\n",
    "2\n",
    "hdydIOjOjnhWvrW5UqXzSH8nExdiAWmEH7Dt55xvjCw=\n",
    "\n",
    "— eldorado.test/log YOZDHmODn/ziaW8SeUQFNSVdAU/1dSLUjX4GXOdbL+uC2c6ESdP1YBn1UbK3f7zKY1MYrI9sATqo/AY1Ftf6wf6rPww=\n",
    "— witness-1.test op1A4wAAAABrD9ZApM01aOFa3QpYIyO9jFgLYFSVlqLy5lXxvSz9Iwkr2GUhqd4289czX+HOl6Rpyn/ILQGI/zHKmx97cVe92HThCQ==\n",
);
