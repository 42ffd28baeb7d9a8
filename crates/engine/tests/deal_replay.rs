//! Purchases as log records, and the auditor's replay of a log's deals:
//! deals by the rule pass; a deal off the rule, out of its purchases'
//! order, from another round or for another buyer is refused.

use eldorado_engine::deal::{
    deal_rank, DealReplay, Dealt, Purchase, ReplayError, UnsoldTree, PURCHASE_TAG,
};
use eldorado_engine::transparency::{record_hash, LogEntry};
use eldorado_engine::{ClientNonce, Hash, LoggedSale, SigningKey};

const BLOCK: u64 = 4;
const TICKETS: u32 = 50;

fn operator() -> SigningKey {
    SigningKey::from_bytes(&[7; 32])
}

fn purchase(purchase_id: u64, round: u64) -> Purchase {
    Purchase {
        purchase_id,
        block: BLOCK,
        tickets: TICKETS,
        player: format!("p{purchase_id}"),
        bought_at_ms: 1_796_200_000_000 + purchase_id,
        client_nonce: ClientNonce([purchase_id as u8; 16]),
        round,
        balance_before_cents: 1_000,
        balance_after_cents: 900,
    }
}

fn record_of(purchase: &Purchase) -> Hash {
    let leaf = LogEntry::sign_purchase(purchase.clone(), &operator())
        .unwrap()
        .to_leaf()
        .unwrap();
    record_hash(&leaf)
}

fn randomness(round: u64) -> Option<[u8; 32]> {
    (round < 100).then_some([round as u8; 32])
}

/// The sale of `purchase` at `position`, as the dealer signs it.
fn sale_of(purchase: &Purchase, position: u32) -> LoggedSale {
    LoggedSale {
        sale_id: 1_000 + purchase.purchase_id,
        block: purchase.block,
        tickets: purchase.tickets,
        position,
        ticket_leaf: Hash([0x44; 32]),
        player: purchase.player.clone(),
        sold_at_ms: purchase.bought_at_ms,
        client_nonce: purchase.client_nonce,
        balance_before_cents: purchase.balance_before_cents,
        balance_after_cents: purchase.balance_after_cents + 500,
    }
}

/// Where the rule deals each purchase, dealt in order from a full block.
fn dealt_by_the_rule(purchases: &[Purchase]) -> Vec<u32> {
    let mut tree = UnsoldTree::new(TICKETS).unwrap();
    purchases
        .iter()
        .map(|p| {
            let rank = deal_rank(&randomness(p.round).unwrap(), &record_of(p), tree.unsold());
            let position = tree.select(rank).unwrap();
            tree.take(position).unwrap();
            position
        })
        .collect()
}

fn replay_with(purchases: &[Purchase]) -> DealReplay {
    let mut replay = DealReplay::default();
    replay.commitment(BLOCK, TICKETS).unwrap();
    for p in purchases {
        replay.purchase(record_of(p), p, Some(p.round)).unwrap();
    }
    replay
}

#[test]
fn a_purchase_is_a_signed_leaf_that_reads_back() {
    let bought = purchase(17, 9);
    let leaf = LogEntry::sign_purchase(bought.clone(), &operator())
        .unwrap()
        .to_leaf()
        .unwrap();
    assert!(leaf.starts_with(PURCHASE_TAG));
    let entry = LogEntry::parse(&leaf).unwrap();
    assert_eq!(
        entry,
        LogEntry::Purchase {
            purchase: bought.clone(),
            signature: bought.sign(&operator()).unwrap(),
        }
    );
    entry.verify(&operator().verifying_key()).unwrap();
    assert_eq!(entry.block(), Some(BLOCK));
    assert_eq!(bought.stake_cents(), Some(100));
    // Another round is another message: the signature no longer verifies.
    let LogEntry::Purchase { signature, .. } = entry else {
        unreachable!()
    };
    let moved = purchase(17, 10);
    assert!(moved
        .verify(&operator().verifying_key(), &signature)
        .is_err());
    // A byte more or less is not a purchase.
    let message = &leaf[..leaf.len() - 64];
    assert!(Purchase::parse(message).is_some());
    assert!(Purchase::parse(&message[..message.len() - 1]).is_none());
    assert!(Purchase::parse(&[message, &[0]].concat()).is_none());
}

#[test]
fn deals_by_the_rule_replay_and_leave_nothing_waiting() {
    let purchases: Vec<Purchase> = (1..=20).map(|i| purchase(i, 3 + i / 7)).collect();
    let positions = dealt_by_the_rule(&purchases);
    let mut replay = replay_with(&purchases);
    for (p, position) in purchases.iter().zip(&positions) {
        assert_eq!(
            replay.sale(&sale_of(p, *position), randomness),
            Ok(Dealt::ByRule { round: p.round })
        );
    }
    assert_eq!(replay.waiting().count(), 0);
}

#[test]
fn a_deal_off_the_rule_is_refused() {
    let purchases = vec![purchase(1, 5), purchase(2, 5)];
    let positions = dealt_by_the_rule(&purchases);
    let mut replay = replay_with(&purchases);
    let other = (positions[0] + 1) % TICKETS;
    assert!(matches!(
        replay.sale(&sale_of(&purchases[0], other), randomness),
        Err(ReplayError::NotTheRule { position, expected, .. })
            if position == other && expected == positions[0]
    ));
    // Dealt from another round's value: another position.
    let mut replay = replay_with(&purchases);
    let forged = |_| Some([0xee; 32]);
    let rank = deal_rank(&[0xee; 32], &record_of(&purchases[0]), TICKETS);
    assert_ne!(rank, positions[0], "the forged value must deal elsewhere");
    assert!(matches!(
        replay.sale(&sale_of(&purchases[0], positions[0]), forged),
        Err(ReplayError::NotTheRule { .. })
    ));
    // No value for the round: nothing can be checked.
    let mut replay = replay_with(&[purchase(1, 500)]);
    assert_eq!(
        replay.sale(&sale_of(&purchase(1, 500), 0), randomness),
        Err(ReplayError::MissingRound { round: 500 })
    );
}

#[test]
fn after_a_deal_off_the_rule_the_next_deals_replay_from_the_block_as_it_is() {
    let purchases = vec![purchase(1, 5), purchase(2, 6), purchase(3, 7)];
    let positions = dealt_by_the_rule(&purchases);
    let mut replay = replay_with(&purchases);
    let other = (0..TICKETS)
        .find(|p| !positions.contains(p))
        .expect("a position the rule deals to none of them");
    assert!(matches!(
        replay.sale(&sale_of(&purchases[0], other), randomness),
        Err(ReplayError::NotTheRule { .. })
    ));
    // The next purchases, dealt by the rule from the block with `other`
    // sold: each replays, one finding in all.
    let mut tree = UnsoldTree::new(TICKETS).unwrap();
    tree.take(other).unwrap();
    for p in &purchases[1..] {
        let rank = deal_rank(&randomness(p.round).unwrap(), &record_of(p), tree.unsold());
        let position = tree.select(rank).unwrap();
        tree.take(position).unwrap();
        assert_eq!(
            replay.sale(&sale_of(p, position), randomness),
            Ok(Dealt::ByRule { round: p.round })
        );
    }
    assert_eq!(replay.waiting().count(), 0);
}

#[test]
fn deals_follow_the_order_of_their_purchases() {
    let purchases = vec![purchase(1, 5), purchase(2, 5)];
    let positions = dealt_by_the_rule(&purchases);
    let mut replay = replay_with(&purchases);
    assert_eq!(
        replay.sale(&sale_of(&purchases[1], positions[1]), randomness),
        Err(ReplayError::NotItsPurchase {
            purchase_id: 1,
            field: "player"
        })
    );
}

#[test]
fn a_sale_must_be_its_purchases_and_bought_once_the_block_deals_by_the_rule() {
    let bought = purchase(1, 5);
    let position = dealt_by_the_rule(std::slice::from_ref(&bought))[0];
    let mut replay = replay_with(std::slice::from_ref(&bought));
    let mut sale = sale_of(&bought, position);
    sale.player = "someone else".into();
    assert_eq!(
        replay.sale(&sale, randomness),
        Err(ReplayError::NotItsPurchase {
            purchase_id: 1,
            field: "player"
        })
    );
    let mut sale = sale_of(&bought, position);
    sale.balance_before_cents += 1;
    assert_eq!(
        replay.sale(&sale, randomness),
        Err(ReplayError::NotItsPurchase {
            purchase_id: 1,
            field: "balance before"
        })
    );
    // Once its one purchase is dealt, a block sells nothing more unbought.
    replay
        .sale(&sale_of(&bought, position), randomness)
        .unwrap();
    let stray = sale_of(&purchase(9, 5), (position + 1) % TICKETS);
    assert_eq!(replay.sale(&stray, randomness), Err(ReplayError::NotBought));
    // Before any purchase, sales in order take their positions.
    let mut replay = DealReplay::default();
    replay.commitment(BLOCK, TICKETS).unwrap();
    assert_eq!(replay.sale(&stray, randomness), Ok(Dealt::InOrder));
    assert!(replay.sale(&stray, randomness).is_err(), "sold twice");
}

#[test]
fn a_purchase_must_pay_and_name_its_committed_block() {
    let mut replay = DealReplay::default();
    assert_eq!(
        replay.purchase(Hash([1; 32]), &purchase(1, 5), Some(5)),
        Err(ReplayError::Uncommitted { block: BLOCK })
    );
    replay.commitment(BLOCK, TICKETS).unwrap();
    let mut free = purchase(1, 5);
    free.balance_after_cents = free.balance_before_cents;
    assert!(matches!(
        replay.purchase(Hash([1; 32]), &free, Some(5)),
        Err(ReplayError::NoStake { .. })
    ));
    let mut wrong = purchase(1, 5);
    wrong.tickets = TICKETS + 1;
    assert!(matches!(
        replay.purchase(Hash([1; 32]), &wrong, Some(5)),
        Err(ReplayError::WrongSize { .. })
    ));
    replay
        .purchase(Hash([1; 32]), &purchase(1, 5), Some(5))
        .unwrap();
    assert_eq!(
        replay.purchase(Hash([1; 32]), &purchase(1, 5), Some(5)),
        Err(ReplayError::BoughtTwice { purchase_id: 1 })
    );
}

#[test]
fn a_tree_rebuilt_from_its_sold_positions_is_the_tree_of_its_takes() {
    let mut taken = UnsoldTree::new(TICKETS).unwrap();
    for p in [3, 0, 49, 17] {
        taken.take(p).unwrap();
    }
    let rebuilt = UnsoldTree::with_sold(TICKETS, [17, 3, 49, 0]).unwrap();
    assert_eq!(rebuilt.root(), taken.root());
    assert!(UnsoldTree::with_sold(TICKETS, [3, 3]).is_err());
    assert!(UnsoldTree::with_sold(TICKETS, [TICKETS]).is_err());
}

#[test]
fn a_late_purchase_is_replayed_from_the_round_that_deals_it() {
    // Named round 5, but proven on the record only in time for round 9.
    let late = purchase(1, 5);
    let mut replay = DealReplay::default();
    replay.commitment(BLOCK, TICKETS).unwrap();
    // The record hash is the logged purchase's, naming round 5.
    let record = record_of(&late);
    let dealt_by = |round| {
        let tree = UnsoldTree::new(TICKETS).unwrap();
        tree.select(deal_rank(&randomness(round).unwrap(), &record, TICKETS))
            .unwrap()
    };
    assert_ne!(
        dealt_by(5),
        dealt_by(9),
        "the test needs rounds that differ"
    );
    replay.purchase(record, &late, Some(9)).unwrap();
    // Dealt by the round it names, as a late purchase may not be: a finding.
    let mut again = DealReplay::default();
    again.commitment(BLOCK, TICKETS).unwrap();
    again.purchase(record, &late, Some(9)).unwrap();
    assert!(matches!(
        again.sale(&sale_of(&late, dealt_by(5)), randomness),
        Err(ReplayError::NotTheRule { .. })
    ));
    assert_eq!(
        replay.sale(&sale_of(&late, dealt_by(9)), randomness),
        Ok(Dealt::ByRule { round: 9 })
    );
}

#[test]
fn a_purchase_dealt_before_the_witnesses_proved_it_is_a_finding_once() {
    let purchases = vec![purchase(1, 5), purchase(2, 5)];
    let positions = dealt_by_the_rule(&purchases);
    let mut replay = DealReplay::default();
    replay.commitment(BLOCK, TICKETS).unwrap();
    replay
        .purchase(record_of(&purchases[0]), &purchases[0], None)
        .unwrap();
    replay
        .purchase(record_of(&purchases[1]), &purchases[1], Some(5))
        .unwrap();
    assert_eq!(
        replay.sale(&sale_of(&purchases[0], positions[0]), randomness),
        Err(ReplayError::Unproven { purchase_id: 1 })
    );
    // The block goes on from the position the log sold: the next deal
    // is checked, and passes.
    assert_eq!(
        replay.sale(&sale_of(&purchases[1], positions[1]), randomness),
        Ok(Dealt::ByRule { round: 5 })
    );
    assert_eq!(replay.waiting().count(), 0);
}
