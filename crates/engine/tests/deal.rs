//! The unsold tree against a reference computed from its definition, and
//! every take's proof against tampering.

use eldorado_engine::deal::{
    deal_one, deal_rank, verify_deal, verify_take, DealError, DealProof, Node, TakeError,
    UnsoldTree,
};
use eldorado_engine::Hash;
use proptest::prelude::*;
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;

/// The node over positions `[start, start + width)` straight from the
/// definition in docs/PROTOCOL.md, recursively.
fn reference(leaves: u32, sold: &BTreeSet<u32>, start: u32, width: u32) -> Node {
    if width == 1 {
        let count = u8::from(start < leaves && !sold.contains(&start));
        let mut hasher = Sha256::new();
        hasher.update([0x00]);
        hasher.update(b"ELDORADO-UNSOLD-V1");
        hasher.update([count]);
        return Node {
            hash: Hash(hasher.finalize().into()),
            count: u32::from(count),
        };
    }
    let left = reference(leaves, sold, start, width / 2);
    let right = reference(leaves, sold, start + width / 2, width / 2);
    let mut hasher = Sha256::new();
    hasher.update([0x01]);
    hasher.update(b"ELDORADO-UNSOLD-V1");
    hasher.update(left.count.to_be_bytes());
    hasher.update(right.count.to_be_bytes());
    hasher.update(left.hash.0);
    hasher.update(right.hash.0);
    Node {
        hash: Hash(hasher.finalize().into()),
        count: left.count + right.count,
    }
}

fn reference_root(leaves: u32, sold: &BTreeSet<u32>) -> Node {
    reference(leaves, sold, 0, leaves.next_power_of_two())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_take_proves_its_rank_and_the_next_root(
        leaves in 1u32..300,
        ranks in proptest::collection::vec(any::<u32>(), 0..300),
    ) {
        let mut tree = UnsoldTree::new(leaves).unwrap();
        let mut sold = BTreeSet::new();
        prop_assert_eq!(tree.root(), reference_root(leaves, &sold));
        for seed in ranks {
            if tree.unsold() == 0 {
                break;
            }
            let rank = seed % tree.unsold();
            let position = tree.select(rank).unwrap();
            let unsold: Vec<u32> = (0..leaves).filter(|p| !sold.contains(p)).collect();
            prop_assert_eq!(position, unsold[rank as usize]);
            let before = tree.root();
            let (proof, taken) = tree.take(position).unwrap();
            sold.insert(position);
            let verified = verify_take(&before.hash, leaves, position, &proof).unwrap();
            prop_assert_eq!(verified, taken);
            prop_assert_eq!(verified.rank, rank);
            prop_assert_eq!(verified.unsold, before.count);
            prop_assert_eq!(verified.after, reference_root(leaves, &sold));
            prop_assert_eq!(tree.root(), verified.after);
            prop_assert_eq!(tree.take(position).unwrap_err(), TakeError::AlreadySold { position });
        }
    }
}

#[test]
fn the_initial_root_from_the_count_alone_is_the_trees() {
    for leaves in (1..=300).chain([511, 512, 513, 1 << 16, (1 << 16) + 1]) {
        assert_eq!(
            UnsoldTree::initial_root(leaves).unwrap(),
            UnsoldTree::new(leaves).unwrap().root(),
            "{leaves} tickets"
        );
    }
    assert_eq!(
        UnsoldTree::initial_root(0).unwrap_err(),
        TakeError::BadSize { leaves: 0 }
    );
}

#[test]
fn a_block_of_400000_starts_from_a_root_anyone_can_compute() {
    let tree = UnsoldTree::new(400_000).unwrap();
    assert_eq!(tree.unsold(), 400_000);
    assert_eq!(tree.root(), UnsoldTree::initial_root(400_000).unwrap());
    assert_eq!(tree.prove(0).unwrap().len(), 19);
    assert_eq!(tree.select(399_999), Some(399_999));
    assert_eq!(tree.select(400_000), None);
    assert_ne!(tree.root(), UnsoldTree::initial_root(399_999).unwrap());
}

/// A tree of 12 with positions 2, 5 and 6 sold, and the proof of taking 7.
fn sample() -> (UnsoldTree, Node, Vec<Node>) {
    let mut tree = UnsoldTree::new(12).unwrap();
    for position in [2, 5, 6] {
        tree.take(position).unwrap();
    }
    let before = tree.root();
    let proof = tree.prove(7).unwrap();
    (tree, before, proof)
}

#[test]
fn a_proof_verifies_only_for_its_own_position_and_root() {
    let (tree, before, proof) = sample();
    let taken = verify_take(&before.hash, 12, 7, &proof).unwrap();
    assert_eq!((taken.unsold, taken.rank), (9, 4));
    // Another position on the same path's proof, a sold position, the
    // same position under a fresh block's root, another block size.
    for position in [4, 6, 3, 15] {
        assert!(
            verify_take(&before.hash, 12, position, &proof).is_err(),
            "position {position}"
        );
    }
    let fresh = UnsoldTree::initial_root(12).unwrap();
    assert_eq!(
        verify_take(&fresh.hash, 12, 7, &proof),
        Err(TakeError::RootMismatch)
    );
    // The ticket count only bounds the position (the padding is bound by
    // the chain of roots from the block's initial one); a count of another
    // depth needs another proof length.
    assert_eq!(
        verify_take(&before.hash, 20, 7, &proof),
        Err(TakeError::WrongLength {
            expected: 5,
            found: 4
        })
    );
    assert_eq!(
        verify_take(&before.hash, 12, 12, &proof),
        Err(TakeError::OutOfRange {
            position: 12,
            leaves: 12
        })
    );
    assert_eq!(
        verify_take(&before.hash, 12, 7, &proof[..3]),
        Err(TakeError::WrongLength {
            expected: 4,
            found: 3
        })
    );
    // The sold position 6's own proof does not pass as unsold.
    let sold = tree.prove(6).unwrap();
    assert_eq!(
        verify_take(&before.hash, 12, 6, &sold),
        Err(TakeError::RootMismatch)
    );
}

#[test]
fn a_sibling_count_cannot_be_shifted_to_change_the_rank() {
    let (_, before, proof) = sample();
    for level in 0..proof.len() {
        for delta in [1i64, -1] {
            let mut forged = proof.clone();
            let count = i64::from(forged[level].count) + delta;
            let Ok(count) = u32::try_from(count) else {
                continue;
            };
            forged[level].count = count;
            assert!(
                verify_take(&before.hash, 12, 7, &forged).is_err(),
                "level {level} shifted by {delta}"
            );
        }
        let mut forged = proof.clone();
        forged[level].count = u32::MAX;
        assert_eq!(
            verify_take(&before.hash, 12, 7, &forged),
            Err(TakeError::BadCount)
        );
    }
}

#[test]
fn the_sizes_a_tree_refuses() {
    assert_eq!(
        UnsoldTree::new(0).unwrap_err(),
        TakeError::BadSize { leaves: 0 }
    );
    assert!(UnsoldTree::new((1 << 24) + 1).is_err());
    let one = UnsoldTree::new(1).unwrap();
    assert!(one.prove(0).unwrap().is_empty());
    let mut one = one;
    let (proof, taken) = one.take(0).unwrap();
    assert_eq!((taken.unsold, taken.rank, taken.after.count), (1, 0, 0));
    let fresh = UnsoldTree::initial_root(1).unwrap();
    assert_eq!(verify_take(&fresh.hash, 1, 0, &proof).unwrap(), taken);
}

/// Dealing a whole block by the rule: every position exactly once, and
/// the ranks the rule draws spread evenly (a chi-square over 16 bins of the
/// dealt order, seeded so it is the same on every run).
#[test]
fn dealing_a_block_by_the_rule_hands_out_every_position_once() {
    let leaves = 4_096u32;
    let mut tree = UnsoldTree::new(leaves).unwrap();
    let mut order = Vec::new();
    for sale in 0..leaves {
        let record = Hash(Sha256::digest(sale.to_be_bytes()).into());
        let randomness: [u8; 32] = Sha256::digest(b"round").into();
        let rank = deal_rank(&randomness, &record, tree.unsold());
        let position = tree.select(rank).unwrap();
        tree.take(position).unwrap();
        order.push(position);
    }
    assert_eq!(tree.unsold(), 0);
    let mut all = order.clone();
    all.sort_unstable();
    assert_eq!(all, (0..leaves).collect::<Vec<_>>());
    // The first quarter of the sales should land evenly over the block.
    let mut bins = [0u32; 16];
    for &position in &order[..1_024] {
        bins[(position / 256) as usize] += 1;
    }
    let expected = 64.0;
    let chi2: f64 = bins
        .iter()
        .map(|&b| (f64::from(b) - expected).powi(2) / expected)
        .sum();
    // 15 degrees of freedom: 37.7 is the 0.999 quantile.
    assert!(chi2 < 37.7, "chi2 {chi2} over {bins:?}");
}

/// docs/PROTOCOL.md §10's worked example, computed there independently.
#[test]
fn the_protocol_worked_example() {
    let hex = |node: Node| (node.hash.to_hex(), node.count);
    assert_eq!(
        hex(UnsoldTree::initial_root(5).unwrap()),
        (
            "f1405ec0b77d85e45141f4355c9033139e97642422a264f7026911e7313c66af".to_owned(),
            5
        )
    );
    let mut tree = UnsoldTree::new(5).unwrap();
    tree.take(1).unwrap();
    let before = tree.root();
    assert_eq!(
        before.hash.to_hex(),
        "df767d905c082001ac98c5a49732ad8caf2ea4bc314c464cf24f662dffefcb44"
    );
    let randomness: [u8; 32] =
        hex::decode("fc1873a13f3545aeade8401532ef5519920652eee6b0d2b19ca12643b87b3587")
            .unwrap()
            .try_into()
            .unwrap();
    let sale = eldorado_engine::transparency::record_hash(b"sale 2");
    assert_eq!(
        sale.to_hex(),
        "d27184f2b400238d1631cbfdef630a2b64a459799674e77f83ff54729cc1d475"
    );
    let rank = deal_rank(&randomness, &sale, tree.unsold());
    assert_eq!(rank, 2);
    let position = tree.select(rank).unwrap();
    assert_eq!(position, 3);
    let (proof, taken) = tree.take(position).unwrap();
    let proof: Vec<_> = proof.into_iter().map(hex).collect();
    assert_eq!(
        proof,
        [
            (
                "84f986159d621e9336ce203e2ab5ec56358d7eee9faf291c666f10384e2b740e".to_owned(),
                1
            ),
            (
                "980b42c8765072c51eb09007941f3391e118b72a9af8f4190ca2cb26b7d9b2de".to_owned(),
                1
            ),
            (
                "288e55f0d0b0a2f669b1a1824476386b8372d2ac76310380730327bdd8bba1e7".to_owned(),
                1
            ),
        ]
    );
    assert_eq!(
        hex(taken.after),
        (
            "15e899039d6390ae51bf013d0095bf80552967d7385d96fd013720f2332a5f1b".to_owned(),
            3
        )
    );
}

fn randomness(round: u8) -> [u8; 32] {
    Sha256::digest([round]).into()
}

fn sale(n: u32) -> Hash {
    eldorado_engine::transparency::record_hash(&n.to_be_bytes())
}

#[test]
fn a_deal_by_the_rule_verifies_and_chains_to_the_next_root() {
    let mut tree = UnsoldTree::new(1_000).unwrap();
    let mut root = tree.root().hash;
    for n in 0..50 {
        let (proof, taken) = deal_one(&mut tree, &randomness(1), &sale(n)).unwrap();
        assert_eq!(proof.before, root);
        let verified = verify_deal(&randomness(1), &sale(n), &proof).unwrap();
        assert_eq!(verified, taken);
        root = verified.after.hash;
        assert_eq!(root, tree.root().hash);
    }
    assert_eq!(tree.unsold(), 950);
}

#[test]
fn a_deal_off_the_rule_is_refused() {
    let mut tree = UnsoldTree::new(1_000).unwrap();
    let before = tree.clone();
    let (proof, taken) = deal_one(&mut tree, &randomness(1), &sale(7)).unwrap();
    // Another beacon value or another sale gives another rank.
    for (randomness, sale) in [(randomness(2), sale(7)), (randomness(1), sale(8))] {
        assert!(matches!(
            verify_deal(&randomness, &sale, &proof),
            Err(DealError::NotTheRule { .. })
        ));
    }
    // The operator deals the position it prefers, with a genuine proof that
    // it was unsold: the rank is not the rule's.
    let chosen = (taken.rank + 1) % 1_000;
    let mut forged_tree = before.clone();
    let position = forged_tree.select(chosen).unwrap();
    let (siblings, _) = forged_tree.take(position).unwrap();
    let forged = DealProof {
        leaves: 1_000,
        before: before.root().hash,
        position,
        siblings,
    };
    assert_eq!(
        verify_deal(&randomness(1), &sale(7), &forged),
        Err(DealError::NotTheRule {
            position,
            rank: chosen,
            expected: taken.rank
        })
    );
    // A position already sold is refused whatever its rank.
    let sold_tree = tree.clone();
    let again = DealProof {
        before: sold_tree.root().hash,
        siblings: sold_tree.prove(proof.position).unwrap(),
        ..proof.clone()
    };
    assert!(matches!(
        verify_deal(&randomness(1), &sale(7), &again),
        Err(DealError::Take(TakeError::RootMismatch))
    ));
    // A sold-out block deals nothing.
    let mut one = UnsoldTree::new(1).unwrap();
    deal_one(&mut one, &randomness(1), &sale(1)).unwrap();
    assert_eq!(
        deal_one(&mut one, &randomness(1), &sale(2)).unwrap_err(),
        DealError::SoldOut
    );
}
