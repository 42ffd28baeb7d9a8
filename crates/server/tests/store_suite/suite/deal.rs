//! Fair dealing in the store: purchases are paid at once, logged, then
//! dealt by the rule from their round, in their block's order, exactly
//! once even with two dealers, and the log replays to the same deals.

use super::public_log::{pass, pass_naming};
use super::*;
use eldorado_engine::deal::{DealReplay, Dealt as Replayed};
use eldorado_engine::transparency::{record_hash, LogEntry};
use eldorado_server::store::deal::{BeaconValue, Dealt, Randomness, Rounds, Trees};
use eldorado_server::store::PurchaseRecord;

const TICKETS: &[&[&str]] = &[LOSE, WIN_2, LOSE, WIN_2, LOSE, LOSE, WIN_2, LOSE];

fn bought(outcome: SaleOutcome) -> PurchaseRecord {
    match outcome {
        SaleOutcome::Bought(purchase) => purchase,
        other => panic!("expected a purchase, got {other:?}"),
    }
}

fn buy(store: &dyn Store, key: &str, now_ms: u64, round: u64) -> PurchaseRecord {
    let mut outcomes = store
        .buy_batch(&[request("ann", Stake::HALF_EURO, key)], now_ms, round)
        .unwrap();
    bought(outcomes.pop().unwrap())
}

fn value(round: u64) -> [u8; 32] {
    let mut value = [0x5a; 32];
    value[..8].copy_from_slice(&round.to_be_bytes());
    value
}

/// Deals the logged purchases by the rounds they name, with the values of
/// `rounds` out.
fn deal(store: &dyn Store, rounds: &[u64], trees: &mut Trees) -> Vec<Dealt> {
    let named: Rounds = store
        .undealt_logged(100)
        .unwrap()
        .iter()
        .map(|u| (u.purchase_id, u.round))
        .collect();
    deal_by(store, &named, rounds, trees)
}

/// Deals the logged purchases by the rounds `dealing` gives them.
fn deal_by(store: &dyn Store, dealing: &Rounds, rounds: &[u64], trees: &mut Trees) -> Vec<Dealt> {
    let randomness: Randomness = rounds
        .iter()
        .map(|&r| {
            let value = BeaconValue {
                randomness: value(r),
                signature: [r as u8; 48],
            };
            (r, value)
        })
        .collect();
    store
        .deal(dealing, &randomness, trees, 100, START_MS)
        .unwrap()
}

/// Every record of the log replayed by the engine, as the auditor does:
/// the deals by the rule it saw.
fn replay_log(store: &dyn Store) -> u64 {
    let mut replay = DealReplay::default();
    let mut by_rule = 0;
    for leaf in store.log_leaves(0, 1_000).unwrap() {
        match LogEntry::parse(&leaf).unwrap() {
            LogEntry::Commitment { commitment, .. } => {
                replay
                    .commitment(commitment.block, commitment.tickets)
                    .unwrap();
            }
            LogEntry::Purchase { purchase, .. } => {
                replay
                    .purchase(record_hash(&leaf), &purchase, Some(purchase.round))
                    .unwrap();
            }
            LogEntry::Sale { sale, .. } => {
                let dealt = replay.sale(&sale, |r| Some(value(r))).unwrap();
                assert!(matches!(dealt, Replayed::ByRule { .. }));
                by_rule += 1;
            }
            LogEntry::Page { .. } => panic!("no page in this store"),
        }
    }
    assert_eq!(replay.waiting().count(), 0);
    by_rule
}

pub fn purchases_are_paid_logged_then_dealt_by_the_rule(backend: &impl Backend) {
    let store = backend.open();
    insert(&*store, 1, Stake::HALF_EURO, PLAY, TICKETS);
    assert!(store.create_player("ann", PlayerKind::Demo, 1_000).unwrap());
    let now = backend.clock().now_ms();
    let purchases: Vec<PurchaseRecord> = (0..5)
        .map(|i| buy(&*store, &format!("buy-{i}"), now, 7))
        .collect();
    assert_eq!(balance(&*store, "ann"), 1_000 - 5 * 50, "paid at once");
    assert_eq!(store.undealt_purchases().unwrap(), 5);
    assert_eq!(store.dealt_blocks_on_sale().unwrap(), [1]);
    let block = store.block(1).unwrap().unwrap();
    assert_eq!((block.sold, block.undealt), (5, 5));
    // A replay is the same purchase, not a second one.
    assert_eq!(buy(&*store, "buy-0", now, 8), purchases[0]);
    assert_eq!(balance(&*store, "ann"), 750);

    let mut trees = Trees::new();
    assert!(deal(&*store, &[7], &mut trees).is_empty(), "not logged yet");
    pass(&*store, 100);
    let undealt = store.undealt_logged(10).unwrap();
    assert_eq!(
        undealt.iter().map(|u| u.purchase_id).collect::<Vec<_>>(),
        purchases.iter().map(|p| p.purchase_id).collect::<Vec<_>>(),
        "in log order"
    );
    assert!(undealt.iter().all(|u| u.round == 7));
    assert!(deal(&*store, &[6], &mut trees).is_empty(), "not its round");
    let dealt = deal(&*store, &[7], &mut trees);
    assert_eq!(
        dealt.iter().map(|d| d.purchase_id).collect::<Vec<_>>(),
        purchases.iter().map(|p| p.purchase_id).collect::<Vec<_>>()
    );
    assert_eq!(store.undealt_purchases().unwrap(), 0);
    assert_eq!(store.block(1).unwrap().unwrap().undealt, 0);
    let prizes: u64 = dealt.iter().map(|d| d.prize_cents).sum();
    assert_eq!(balance(&*store, "ann"), 750 + prizes);
    assert_conserved(store.totals().unwrap(), 1_000);
    for (purchase, deal) in purchases.iter().zip(&dealt) {
        let sale = store.sale("ann", deal.sale_id).unwrap().unwrap();
        assert_eq!(sale.ticket.position, deal.position);
        assert_eq!(sale.client_nonce, purchase.client_nonce);
        assert_eq!(sale.balance_before_cents, purchase.balance_before_cents);
        assert_eq!(
            sale.balance_after_cents,
            purchase.balance_after_cents + sale.ticket.prize_cents
        );
        assert_eq!(
            store
                .purchase(purchase.purchase_id)
                .unwrap()
                .unwrap()
                .sale_id,
            Some(deal.sale_id)
        );
    }
    // Once dealt, the key answers the sale.
    let replayed = store
        .buy_batch(&[request("ann", Stake::HALF_EURO, "buy-3")], now, 9)
        .unwrap();
    assert!(matches!(&replayed[0], SaleOutcome::Replayed(s) if s.sale_id == dealt[3].sale_id));

    pass(&*store, 100);
    assert_eq!(replay_log(&*store), 5);
}

pub fn a_purchase_waiting_for_its_round_holds_back_its_block(backend: &impl Backend) {
    let store = backend.open();
    insert(&*store, 1, Stake::HALF_EURO, PLAY, TICKETS);
    assert!(store.create_player("ann", PlayerKind::Demo, 1_000).unwrap());
    let now = backend.clock().now_ms();
    let first = buy(&*store, "early-1", now, 5);
    let second = buy(&*store, "later-1", now, 4);
    pass(&*store, 100);
    let mut trees = Trees::new();
    assert!(
        deal(&*store, &[4], &mut trees).is_empty(),
        "the block's first purchase waits for round 5"
    );
    let dealt = deal(&*store, &[4, 5], &mut trees);
    assert_eq!(
        dealt.iter().map(|d| d.purchase_id).collect::<Vec<_>>(),
        vec![first.purchase_id, second.purchase_id]
    );
    pass(&*store, 100);
    assert_eq!(replay_log(&*store), 2);
}

pub fn a_late_purchase_is_dealt_by_the_round_the_dealer_gives_it(backend: &impl Backend) {
    let store = backend.open();
    insert(&*store, 1, Stake::HALF_EURO, PLAY, TICKETS);
    assert!(store.create_player("ann", PlayerKind::Demo, 1_000).unwrap());
    let now = backend.clock().now_ms();
    let late = buy(&*store, "late-1", now, 5);
    let next = buy(&*store, "next-1", now, 5);
    pass(&*store, 100);
    let mut trees = Trees::new();
    // Only the first is proven, and too late for round 5: it waits for
    // round 9, and the block's next purchase waits behind it.
    let dealing: Rounds = [(late.purchase_id, 9)].into();
    assert!(deal_by(&*store, &dealing, &[5], &mut trees).is_empty());
    let dealt = deal_by(&*store, &dealing, &[5, 9], &mut trees);
    assert_eq!(
        dealt.iter().map(|d| d.purchase_id).collect::<Vec<_>>(),
        vec![late.purchase_id]
    );
    let kept = store.purchase(late.purchase_id).unwrap().unwrap();
    assert_eq!((kept.round, kept.dealt_round), (5, Some(9)));
    assert_eq!(kept.round_signature.as_deref(), Some(&[9u8; 48][..]));
    let dealing: Rounds = [(next.purchase_id, 5)].into();
    let dealt = deal_by(&*store, &dealing, &[5], &mut trees);
    assert_eq!(dealt.len(), 1);
    assert_eq!(
        store
            .purchase(next.purchase_id)
            .unwrap()
            .unwrap()
            .dealt_round,
        Some(5)
    );
}

pub fn two_dealers_deal_each_purchase_once(backend: &impl Backend) {
    let stores = [backend.open(), backend.open()];
    insert(&*stores[0], 1, Stake::HALF_EURO, PLAY, TICKETS);
    assert!(stores[0]
        .create_player("ann", PlayerKind::Demo, 1_000)
        .unwrap());
    let now = backend.clock().now_ms();
    for i in 0..8 {
        buy(&*stores[0], &format!("both-{i}"), now, 3);
    }
    pass(&*stores[0], 100);
    let dealt: Vec<Vec<Dealt>> = std::thread::scope(|scope| {
        let dealers: Vec<_> = stores
            .iter()
            .map(|store| scope.spawn(move || deal(&**store, &[3], &mut Trees::new())))
            .collect();
        dealers.into_iter().map(|d| d.join().unwrap()).collect()
    });
    let mut purchases: Vec<u64> = dealt.iter().flatten().map(|d| d.purchase_id).collect();
    purchases.sort_unstable();
    purchases.dedup();
    assert_eq!(
        (purchases.len(), dealt.iter().map(Vec::len).sum::<usize>()),
        (8, 8),
        "each purchase dealt once"
    );
    let mut positions: Vec<u32> = dealt.iter().flatten().map(|d| d.position).collect();
    positions.sort_unstable();
    assert_eq!(positions, (0..8).collect::<Vec<_>>(), "the whole block");
    assert_eq!(stores[1].undealt_purchases().unwrap(), 0);
    assert_conserved(stores[1].totals().unwrap(), 1_000);
    pass(&*stores[1], 100);
    assert_eq!(replay_log(&*stores[1]), 8);
}

/// With the seamless wallet: a paid round becomes a purchase of the block
/// where it held a place, dealt like any other; its prize is queued as the
/// round's credit at the operator, never added to a balance kept here.
pub fn paid_wallet_rounds_are_dealt_and_their_prizes_credited_at_the_wallet(
    backend: &impl Backend,
) {
    use eldorado_server::store::sale_batch::Dealing;
    use eldorado_server::store::seamless::{Release, ReserveOutcome, Settled};
    let store = backend.open();
    insert(&*store, 1, Stake::HALF_EURO, REAL, TICKETS);
    store.create_player("op", PlayerKind::Operator, 0).unwrap();
    let now = backend.clock().now_ms();
    for (key, round) in [("k1", "r1"), ("k2", "r2"), ("k3", "r3")] {
        let reserved = store
            .reserve_round(&request("op", Stake::HALF_EURO, key), round, now)
            .unwrap();
        assert!(
            matches!(reserved, ReserveOutcome::Reserved(_)),
            "{reserved:?}"
        );
    }
    let beacon = Dealing::Beacon { round: 7 };
    let mut purchases = Vec::new();
    for (round, after_debit) in [("r1", 950), ("r2", 900)] {
        match store.settle_round(round, after_debit, now, beacon).unwrap() {
            Settled::Bought { purchase, sold_out } => {
                assert!(!sold_out);
                assert_eq!(purchase.balance_before_cents, after_debit + 50);
                assert_eq!(purchase.balance_after_cents, after_debit);
                assert_eq!((purchase.block, purchase.round), (1, 7));
                purchases.push(purchase);
            }
            other => panic!("expected a purchase, got {other:?}"),
        }
    }
    assert!(store.release_round("r3", Release::NoAnswer, now).unwrap());
    let block = store.block(1).unwrap().unwrap();
    assert_eq!((block.sold, block.undealt), (2, 2));
    // A retry of a paid key is its purchase, not a second round.
    let replay = store
        .reserve_round(&request("op", Stake::HALF_EURO, "k1"), "r1-again", now)
        .unwrap();
    assert_eq!(
        replay,
        ReserveOutcome::Answered(SaleOutcome::Bought(purchases[0].clone()))
    );

    pass(&*store, 100);
    let dealt = deal(&*store, &[7], &mut Trees::new());
    assert_eq!(dealt.len(), 2);
    pass(&*store, 100);
    assert_eq!(replay_log(&*store), 2);
    // The operator's wallet gets each prize under its round's credit id;
    // nothing was credited here.
    assert_eq!(balance(&*store, "op"), 0);
    let mut queued: Vec<(String, u64)> = store
        .outbox_due(10)
        .unwrap()
        .into_iter()
        .map(|q| (q.item.transaction_id, q.item.amount_cents))
        .collect();
    queued.sort();
    let mut expected = vec![("rollback:r3".to_owned(), 50)];
    for (deal, round) in dealt.iter().zip(["r1", "r2"]) {
        if deal.prize_cents > 0 {
            expected.push((format!("credit:{round}"), deal.prize_cents));
        }
        let sale = store.sale("op", deal.sale_id).unwrap().unwrap();
        let purchase = &purchases[if round == "r1" { 0 } else { 1 }];
        assert_eq!(sale.balance_before_cents, purchase.balance_before_cents);
        assert_eq!(
            sale.balance_after_cents,
            purchase.balance_after_cents + deal.prize_cents
        );
    }
    expected.sort();
    assert_eq!(queued, expected);
}

/// The round that deals a purchase is named as it is logged: a purchase a
/// crash kept off the record past the round it was bought with gets a
/// later one, which the witnesses can cosign it before.
pub fn a_purchase_names_the_round_of_its_logging(backend: &impl Backend) {
    let store = backend.open();
    insert(&*store, 1, Stake::HALF_EURO, PLAY, TICKETS);
    assert!(store.create_player("ann", PlayerKind::Demo, 1_000).unwrap());
    let now = backend.clock().now_ms();
    let bought = buy(&*store, "late", now, 7);
    assert_eq!(
        bought.round, 7,
        "the round of its purchase, until it is logged"
    );
    pass_naming(&*store, 9);
    let logged = store.purchase(bought.purchase_id).unwrap().unwrap();
    assert_eq!(logged.round, 9);
    let leaf = store
        .log_leaves(logged.log_index.unwrap(), logged.log_index.unwrap() + 1)
        .unwrap()
        .remove(0);
    match LogEntry::parse(&leaf).unwrap() {
        LogEntry::Purchase { purchase, .. } => assert_eq!(purchase, logged.message()),
        other => panic!("expected the purchase, got {other:?}"),
    }
    let mut trees = Trees::new();
    assert!(
        deal(&*store, &[7], &mut trees).is_empty(),
        "not its round any more"
    );
    assert_eq!(deal(&*store, &[9], &mut trees).len(), 1);
    pass(&*store, 100);
    assert_eq!(replay_log(&*store), 1);
}
