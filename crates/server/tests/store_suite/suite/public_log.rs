//! The public record in the store: what the sequencer logs, in which
//! order, and what is read back for proofs and checkpoints.

use super::*;
use eldorado_engine::transparency::{
    open_checkpoint, record_hash, tlog, verify_consistency, verify_inclusion, Cosigner, LogEntry,
    LogKey,
};
use eldorado_engine::{Hash, SigningKey};
use eldorado_server::public_log::{sequence_once, Sequenced, StoredHashes};

const ORIGIN: &str = "eldorado.test/store";

fn key() -> SigningKey {
    signing_key_from_secret([9; 32])
}

pub(crate) fn pass(store: &dyn Store, max_sales: u32) -> Sequenced {
    sequence_once(store, &key(), ORIGIN, max_sales, START_MS, None).unwrap()
}

/// A pass of a server dealing by the beacon: the purchases it logs name
/// `round`.
pub(crate) fn pass_naming(store: &dyn Store, round: u64) -> Sequenced {
    sequence_once(store, &key(), ORIGIN, 100, START_MS, Some(round)).unwrap()
}

fn log_key() -> LogKey {
    LogKey::new(ORIGIN, key().verifying_key()).unwrap()
}

/// The root of the leaves as RFC 6962 defines it, computed here from the
/// leaves alone (not from the hashes the store kept).
fn root_of(leaves: &[Vec<u8>]) -> Hash {
    fn root(hashes: &[Hash]) -> Hash {
        if hashes.len() == 1 {
            return hashes[0];
        }
        let split = hashes.len().next_power_of_two() / 2;
        let mut bytes = vec![1u8];
        bytes.extend_from_slice(&root(&hashes[..split]).0);
        bytes.extend_from_slice(&root(&hashes[split..]).0);
        Hash(sha2::Sha256::digest(&bytes).into())
    }
    use sha2::Digest;
    root(&leaves.iter().map(|l| record_hash(l)).collect::<Vec<_>>())
}

fn checkpoint_of(store: &dyn Store) -> (u64, Hash) {
    let served = store.log_checkpoint(0).unwrap().expect("a checkpoint");
    let opened = open_checkpoint(served.note.as_bytes(), &log_key(), &[], 0).unwrap();
    assert_eq!(opened.size, served.size);
    (opened.size, opened.root)
}

pub fn the_log_records_each_commitment_then_its_sales(backend: &impl Backend) {
    let store = backend.open();
    assert_eq!(pass(&*store, 100), Sequenced::Idle, "nothing stored yet");
    assert!(store.log_checkpoint(0).unwrap().is_none());
    insert(
        &*store,
        1,
        Stake::ONE_EURO,
        PLAY,
        &[LOSE, WIN_2, LOSE, LOSE, LOSE],
    );
    assert!(store.create_player("ann", PlayerKind::Demo, 500).unwrap());
    let now = backend.clock().now_ms();
    let first: Vec<SaleRecord> = ["a", "b", "c"]
        .iter()
        .map(|k| sold(sell_one(&*store, request("ann", Stake::ONE_EURO, k), now)))
        .collect();
    assert!(first.iter().all(|s| s.log_index.is_none()), "logged later");
    // Two sales per pass: the backlog takes two passes, blocks first.
    assert_eq!(
        pass(&*store, 2),
        Sequenced::Appended {
            size: 3,
            more: true
        }
    );
    assert_eq!(
        pass(&*store, 2),
        Sequenced::Appended {
            size: 4,
            more: false
        }
    );
    assert_eq!(pass(&*store, 2), Sequenced::Idle);

    let leaves = store.log_leaves(0, 10).unwrap();
    assert_eq!(leaves.len(), 4);
    let operator = key().verifying_key();
    let entries: Vec<LogEntry> = leaves.iter().map(|l| LogEntry::parse(l).unwrap()).collect();
    for entry in &entries {
        entry.verify(&operator).unwrap();
    }
    assert!(
        matches!(&entries[0], LogEntry::Commitment { commitment, .. } if commitment.block == 1)
    );
    for (i, sale) in first.iter().enumerate() {
        let LogEntry::Sale { sale: logged, .. } = &entries[i + 1] else {
            panic!("record {} is not a sale", i + 1);
        };
        assert_eq!(logged.sale_id, sale.sale_id);
        assert_eq!(logged.position, sale.ticket.position);
        assert_eq!(logged.balance_before_cents, sale.balance_before_cents);
        assert_eq!(logged.balance_after_cents, sale.balance_after_cents);
        let stored = store.sale("ann", sale.sale_id).unwrap().unwrap();
        assert_eq!(stored.log_index, Some(i as u64 + 1));
    }
    assert_eq!(store.block(1).unwrap().unwrap().log_index, Some(0));

    let (size, root) = checkpoint_of(&*store);
    assert_eq!((size, root), (4, root_of(&leaves)));
    let hashes = StoredHashes(&*store);
    for (index, leaf) in leaves.iter().enumerate() {
        let proof = tlog::prove_record(4, index as u64, &hashes).unwrap();
        let proof: Vec<Hash> = proof.into_iter().map(|h| Hash(h.0)).collect();
        verify_inclusion(leaf, index as u64, 4, &root, &proof).unwrap();
        assert!(
            verify_inclusion(&leaves[(index + 1) % 4], index as u64, 4, &root, &proof).is_err()
        );
    }

    sell_one(&*store, request("ann", Stake::ONE_EURO, "d"), now);
    assert!(matches!(
        pass(&*store, 100),
        Sequenced::Appended { size: 5, .. }
    ));
    let (new_size, new_root) = checkpoint_of(&*store);
    assert_eq!(new_root, root_of(&store.log_leaves(0, 5).unwrap()));
    let proof: Vec<Hash> = tlog::prove_tree(new_size, size, &hashes)
        .unwrap()
        .into_iter()
        .map(|h| Hash(h.0))
        .collect();
    verify_consistency(size, &root, new_size, &new_root, &proof).unwrap();
    // Every leaf keeps its bytes: the old prefix is unchanged.
    assert_eq!(store.log_leaves(0, 4).unwrap(), leaves);
}

pub fn concurrent_sequencers_log_every_sale_once(backend: &impl Backend) {
    let stores = [backend.open(), backend.open()];
    insert(&*stores[0], 1, Stake::ONE_EURO, PLAY, &[LOSE; 40]);
    assert!(stores[0]
        .create_player("ann", PlayerKind::Demo, 10_000)
        .unwrap());
    let now = backend.clock().now_ms();
    std::thread::scope(|scope| {
        for store in &stores {
            scope.spawn(move || {
                for _ in 0..30 {
                    pass(&**store, 3);
                }
            });
        }
        for i in 0..30 {
            sold(sell_one(
                &*stores[0],
                request("ann", Stake::ONE_EURO, &format!("k{i}")),
                now,
            ));
        }
    });
    while pass(&*stores[1], 100) != Sequenced::Idle {}
    let leaves = stores[0].log_leaves(0, 100).unwrap();
    assert_eq!(leaves.len(), 31, "one commitment and 30 sales, each once");
    let mut sale_ids: Vec<u64> = leaves[1..]
        .iter()
        .map(|l| match LogEntry::parse(l).unwrap() {
            LogEntry::Sale { sale, .. } => sale.sale_id,
            other => panic!("not a sale: {other:?}"),
        })
        .collect();
    sale_ids.dedup();
    assert_eq!(sale_ids.len(), 30);
    assert_eq!(checkpoint_of(&*stores[0]), (31, root_of(&leaves)));
}

pub fn cosignatures_are_served_with_their_checkpoint(backend: &impl Backend) {
    let store = backend.open();
    insert(&*store, 1, Stake::ONE_EURO, PLAY, &[LOSE, LOSE]);
    pass(&*store, 100);
    let note = store.log_checkpoint_at(1).unwrap().expect("signed");
    assert!(
        store.log_checkpoint(1).unwrap().is_none(),
        "not cosigned yet"
    );
    let witness = Cosigner::new("witness.test", signing_key_from_secret([1; 32])).unwrap();
    let line = witness.cosign(note.as_bytes(), 1_700_000_000).unwrap();
    store
        .log_add_cosignature(1, "witness.test", &line, START_MS)
        .unwrap();
    // Only the first line of a witness for a size is kept.
    let again = witness.cosign(note.as_bytes(), 1_700_000_001).unwrap();
    store
        .log_add_cosignature(1, "witness.test", &again, START_MS)
        .unwrap();
    let served = store.log_checkpoint(1).unwrap().expect("cosigned");
    assert_eq!(served.note, format!("{note}{line}"));
    let checked = open_checkpoint(
        served.note.as_bytes(),
        &log_key(),
        &[witness.witness_key()],
        1,
    )
    .unwrap();
    assert_eq!(checked.witnesses, ["witness.test"]);
}

pub fn each_build_of_the_page_is_logged_once(backend: &impl Backend) {
    use eldorado_engine::transparency::PageBuild;
    let store = backend.open();
    let first = Hash([1; 32]);
    let second = Hash([2; 32]);
    assert!(store.log_record_page(&first, 21, START_MS).unwrap());
    // A server starting again with the same build, or a second server
    // with it, adds nothing.
    assert!(!store.log_record_page(&first, 21, START_MS + 1).unwrap());
    assert_eq!(
        pass(&*store, 100),
        Sequenced::Appended {
            size: 1,
            more: false
        }
    );
    assert!(!store.log_record_page(&first, 21, START_MS + 2).unwrap());
    assert_eq!(pass(&*store, 100), Sequenced::Idle);
    // Another build is logged; going back to the first one is too, since
    // it is not the newest any more.
    assert!(store.log_record_page(&second, 22, START_MS + 3).unwrap());
    assert!(store.log_record_page(&first, 21, START_MS + 4).unwrap());
    assert_eq!(
        pass(&*store, 100),
        Sequenced::Appended {
            size: 3,
            more: false
        }
    );
    let pages: Vec<PageBuild> = store
        .log_leaves(0, 3)
        .unwrap()
        .iter()
        .map(|leaf| {
            let entry = LogEntry::parse(leaf).unwrap();
            entry.verify(&key().verifying_key()).unwrap();
            match entry {
                LogEntry::Page { page, .. } => page,
                other => panic!("a page record, not {other:?}"),
            }
        })
        .collect();
    let seen: Vec<_> = pages
        .iter()
        .map(|p| (p.fingerprint, p.files, p.published_at_ms))
        .collect();
    assert_eq!(
        seen,
        vec![
            (first, 21, START_MS),
            (second, 22, START_MS + 3),
            (first, 21, START_MS + 4)
        ]
    );
}
