//! The seamless wallet's rounds, as every backend must keep them: a ticket
//! reserved while the operator is asked for the stake, then sold or given
//! back to the next buyer; and the outbox of calls the operator must
//! acknowledge.

use super::*;
use eldorado_server::store::sale_batch::Dealing;
use eldorado_server::store::seamless::{
    OutboxItem, OutboxKind, Release, ReserveOutcome, Round, Settled,
};

fn reserved(outcome: ReserveOutcome) -> Round {
    match outcome {
        ReserveOutcome::Reserved(round) => round,
        other => panic!("expected a reservation, got {other:?}"),
    }
}

fn reserve(store: &dyn Store, key: &str, round_id: &str) -> ReserveOutcome {
    store
        .reserve_round(&request("op", Stake::HALF_EURO, key), round_id, START_MS)
        .unwrap()
}

fn settled(outcome: Settled) -> (SaleRecord, bool) {
    match outcome {
        Settled::Sold { record, sold_out } => (record, sold_out),
        other => panic!("expected a sale, got {other:?}"),
    }
}

fn transaction_ids(store: &dyn Store) -> Vec<String> {
    let mut ids: Vec<String> = store
        .outbox_due(100)
        .unwrap()
        .into_iter()
        .map(|queued| queued.item.transaction_id)
        .collect();
    ids.sort();
    ids
}

pub fn seamless_rounds_sell_or_give_back_their_ticket(backend: &impl Backend) {
    let store = backend.open();
    let block = insert(&*store, 1, Stake::HALF_EURO, REAL, &[LOSE, WIN_2, LOSE]);
    store.create_player("op", PlayerKind::Operator, 0).unwrap();

    let r1 = reserved(reserve(&*store, "key-1", "r1"));
    assert_eq!((r1.block, r1.position, r1.stake_cents), (1, 0, 50));
    assert_eq!(r1.debit_id(), "debit:r1");
    let r2 = reserved(reserve(&*store, "key-2", "r2"));
    assert_eq!(r2.position, 1);
    // One attempt per key at a time.
    assert_eq!(
        reserve(&*store, "key-1", "r1-again"),
        ReserveOutcome::InFlight
    );
    // Reserving sells nothing: the block's count and prizes are untouched.
    let stored = store.block(1).unwrap().unwrap();
    assert_eq!((stored.sold, stored.status), (0, BlockStatus::Open));
    assert_eq!(store.totals().unwrap().sales, 0);

    // Refused by the operator: the ticket goes back, nothing is queued.
    assert!(store
        .release_round("r1", Release::Refused, START_MS)
        .unwrap());
    assert!(!store
        .release_round("r1", Release::NoAnswer, START_MS)
        .unwrap());
    assert!(transaction_ids(&*store).is_empty());
    // The next buyer gets the released ticket, and the key may try again.
    let r3 = reserved(reserve(&*store, "key-1", "r3"));
    assert_eq!(r3.position, 0);

    // The operator took the stake of r2 and holds 1000 cents after it.
    let (sale, sold_out) = settled(
        store
            .settle_round("r2", 1_000, START_MS + 5, Dealing::InOrder)
            .unwrap(),
    );
    assert!(!sold_out);
    assert_eq!(sale.ticket, block.tickets[1]);
    assert_eq!(sale.player_id, "op");
    assert_eq!(sale.client_nonce, nonce("key-2"));
    assert_eq!(sale.sold_at_ms, START_MS + 5);
    assert_eq!(
        (sale.balance_before_cents, sale.balance_after_cents),
        (1_050, 1_100)
    );
    assert_eq!(
        store
            .settle_round("r2", 1_000, START_MS, Dealing::InOrder)
            .unwrap(),
        Settled::Gone
    );
    assert_eq!(store.sale("op", sale.sale_id).unwrap(), Some(sale.clone()));
    // The same key now replays that sale.
    assert_eq!(
        reserve(&*store, "key-2", "r2-again"),
        ReserveOutcome::Answered(SaleOutcome::Replayed(sale.clone()))
    );
    // Its prize credit was queued with it.
    assert_eq!(
        store
            .outbox_due(10)
            .unwrap()
            .into_iter()
            .map(|queued| queued.item)
            .collect::<Vec<_>>(),
        vec![OutboxItem {
            transaction_id: "credit:r2".to_owned(),
            kind: OutboxKind::Credit,
            round_id: "r2".to_owned(),
            player_id: "op".to_owned(),
            amount_cents: 100,
            original_transaction_id: None,
        }]
    );

    // No answer: the ticket goes back and the debit's rollback is queued.
    assert!(store
        .release_round("r3", Release::NoAnswer, START_MS)
        .unwrap());
    let rollback = store
        .outbox_due(10)
        .unwrap()
        .into_iter()
        .map(|queued| queued.item)
        .find(|item| item.kind == OutboxKind::Rollback)
        .unwrap();
    assert_eq!(rollback.transaction_id, "rollback:r3");
    assert_eq!(
        rollback.original_transaction_id.as_deref(),
        Some("debit:r3")
    );
    assert_eq!(rollback.amount_cents, 50);

    // A sale of the internal wallet takes a released ticket first too.
    store
        .transfer(
            &Transfer {
                player_id: "op".to_owned(),
                kind: TransferKind::Credit,
                amount_cents: 50,
                reference: "t1".to_owned(),
            },
            START_MS,
        )
        .unwrap();
    let internal = sold(sell_one(
        &*store,
        request("op", Stake::HALF_EURO, "key-4"),
        START_MS,
    ));
    assert_eq!(internal.ticket, block.tickets[0]);

    // The last ticket sells the block out only once it is settled.
    let r5 = reserved(reserve(&*store, "key-5", "r5"));
    assert_eq!(r5.position, 2);
    assert_eq!(status(&*store, 1), BlockStatus::Open);
    let (last, sold_out) = settled(
        store
            .settle_round("r5", 0, START_MS, Dealing::InOrder)
            .unwrap(),
    );
    assert!(sold_out);
    assert_eq!(last.ticket, block.tickets[2]);
    let stored = store.block(1).unwrap().unwrap();
    assert_eq!((stored.sold, stored.status), (3, BlockStatus::SoldOut));
    assert_eq!(stored.remaining_by_prize, vec![(100, 0)]);

    // The outbox outlives the store; acknowledged calls leave it.
    drop(store);
    let store = backend.open();
    assert_eq!(transaction_ids(&*store), vec!["credit:r2", "rollback:r3"]);
    store
        .outbox_attempt_failed("credit:r2", "no answer within 3s")
        .unwrap();
    store
        .outbox_acknowledged("rollback:r3", 1_100, START_MS)
        .unwrap();
    assert_eq!(transaction_ids(&*store), vec!["credit:r2"]);
    store
        .outbox_acknowledged("credit:r2", 1_200, START_MS)
        .unwrap();
    assert!(transaction_ids(&*store).is_empty());
}

pub fn a_reserved_ticket_keeps_its_block_on_sale(backend: &impl Backend) {
    let store = backend.open();
    insert(&*store, 1, Stake::HALF_EURO, REAL, &[WIN_2]);
    insert(&*store, 2, Stake::HALF_EURO, REAL, &[LOSE]);
    store.create_player("op", PlayerKind::Operator, 0).unwrap();
    reserved(reserve(&*store, "key-1", "r1"));
    // Its only ticket is held: nothing to sell, and no switch-over either.
    assert_eq!(
        reserve(&*store, "key-2", "r2"),
        ReserveOutcome::Answered(SaleOutcome::SoldOut)
    );
    assert_eq!(status(&*store, 1), BlockStatus::Open);
    assert_eq!(status(&*store, 2), BlockStatus::Pending);
    // Nor may it be closed (and disclosed) while a sale of it may complete.
    let kept = store.close_block(1).unwrap().unwrap();
    assert_eq!(kept.status, BlockStatus::Open);
    assert_eq!(status(&*store, 2), BlockStatus::Pending);
    assert!(store
        .release_round("r1", Release::Refused, START_MS)
        .unwrap());
    let again = reserved(reserve(&*store, "key-2", "r2"));
    assert_eq!((again.block, again.position), (1, 0));
    let (sale, sold_out) = settled(
        store
            .settle_round("r2", 500, START_MS, Dealing::InOrder)
            .unwrap(),
    );
    assert!(sold_out);
    assert_eq!(sale.ticket.prize_cents, 100);
    assert_eq!(status(&*store, 1), BlockStatus::SoldOut);
    assert_eq!(status(&*store, 2), BlockStatus::Open);
    let next = reserved(reserve(&*store, "key-3", "r3"));
    assert_eq!((next.block, next.position), (2, 0));
}

pub fn play_money_never_reserves_a_round(backend: &impl Backend) {
    let store = backend.open();
    insert(&*store, 1, Stake::HALF_EURO, PLAY, &[LOSE]);
    store.create_player("demo", PlayerKind::Demo, 500).unwrap();
    let refused = store.reserve_round(&request("demo", Stake::HALF_EURO, "key-1"), "r1", START_MS);
    assert!(refused.is_err());
    // Nothing was taken: the demo player still buys the block's only ticket.
    let sale = sold(sell_one(
        &*store,
        request("demo", Stake::HALF_EURO, "key-1"),
        START_MS,
    ));
    assert_eq!(sale.ticket.position, 0);
}

pub fn lost_rounds_are_released_with_a_rollback(backend: &impl Backend) {
    let store = backend.open();
    insert(&*store, 1, Stake::HALF_EURO, REAL, &[LOSE, LOSE]);
    store.create_player("op", PlayerKind::Operator, 0).unwrap();
    let old = store
        .reserve_round(&request("op", Stake::HALF_EURO, "key-1"), "old", START_MS)
        .unwrap();
    reserved(old);
    let young = store
        .reserve_round(
            &request("op", Stake::HALF_EURO, "key-2"),
            "young",
            START_MS + 10_000,
        )
        .unwrap();
    reserved(young);
    // A restart: only the rounds older than the bound are released.
    drop(store);
    let store = backend.open();
    assert_eq!(
        store
            .release_stale_rounds(START_MS + 1, START_MS + 20_000)
            .unwrap(),
        1
    );
    assert_eq!(transaction_ids(&*store), vec!["rollback:old"]);
    // Its debit arriving now finds no round: nothing is sold.
    assert_eq!(
        store
            .settle_round("old", 100, START_MS, Dealing::InOrder)
            .unwrap(),
        Settled::Gone
    );
    assert_eq!(store.totals().unwrap().sales, 0);
    let retry = reserved(reserve(&*store, "key-1", "retry"));
    assert_eq!(retry.position, 0);
    assert_eq!(
        store
            .release_stale_rounds(START_MS + 20_001, START_MS + 20_001)
            .unwrap(),
        2
    );
    assert_eq!(
        transaction_ids(&*store),
        vec!["rollback:old", "rollback:retry", "rollback:young"]
    );
}

pub fn reserved_rounds_count_toward_the_stake_limit(backend: &impl Backend) {
    use eldorado_api::{AuditActor, LimitKind};
    use eldorado_server::store::protection::ProtectionUpdate;
    let store = backend.open();
    insert(&*store, 1, Stake::HALF_EURO, REAL, &[LOSE, LOSE, LOSE]);
    store.create_player("op", PlayerKind::Operator, 0).unwrap();
    let limit = ProtectionUpdate::Limits {
        weekly_stake_limit_cents: Some(100),
        weekly_loss_limit_cents: None,
    };
    store
        .update_protection("op", &limit, AuditActor::Player, START_MS)
        .unwrap()
        .unwrap();
    reserved(reserve(&*store, "key-1", "r1"));
    settled(
        store
            .settle_round("r1", 950, START_MS, Dealing::InOrder)
            .unwrap(),
    );
    reserved(reserve(&*store, "key-2", "r2"));
    // One sold and one being paid: a third stake would exceed 100 cents.
    match reserve(&*store, "key-3", "r3") {
        ReserveOutcome::Answered(SaleOutcome::LimitReached(limit)) => {
            assert_eq!(limit.kind, LimitKind::WeeklyStake);
            assert_eq!((limit.limit_cents, limit.used_cents), (100, 100));
        }
        other => panic!("expected the stake limit, got {other:?}"),
    }
    let shown = store.protection("op", START_MS).unwrap().unwrap();
    assert_eq!(shown.stake_used_cents, 100);
    // A refused debit frees its room again.
    assert!(store
        .release_round("r2", Release::Refused, START_MS)
        .unwrap());
    reserved(reserve(&*store, "key-3", "r3"));
}
