//! The cases, each generic over the backend. They speak only through the
//! `Store` trait, so they pin down the behaviour every backend must share.

use crate::{Backend, START_MS};
use eldorado_api::LaunchMode;
use eldorado_engine::commit::{leaf_hash, signing_key_from_secret};
use eldorado_engine::merkle::MerkleTree;
use eldorado_engine::{
    evaluate_grids, Block, ClientNonce, Grid, Money, Params, Salt, SignedCommitment, Stake, Ticket,
};
use eldorado_server::clock::Clock;
use eldorado_server::store::launch::{LaunchRedeemed, NewLaunch};
use eldorado_server::store::{
    BlockSeeding, BlockStatus, NewPlayer, NewSession, PlayerKind, SaleOutcome, SaleRecord,
    SaleRequest, Store, Totals, Transfer, TransferKind, TransferOutcome,
};
use std::time::Duration;

mod console;
mod deal;
mod public_log;
mod seamless;
pub use console::*;
pub use deal::*;
pub use public_log::*;
pub use seamless::*;

pub(crate) const LOSE: &[&str] = &["CSDRS/DRSCR/SDRMR"];
/// Two stakes on the top line.
pub(crate) const WIN_2: &[&str] = &["PPSDR/DRSCR/SDRMR"];
/// One Extra grid, which wins two stakes.
const EXTRA_WIN_2: &[&str] = &["PCSDR/DRSCR/SDRMR", "PPSDR/DRSCR/RDSCD"];

/// A tiny committed block: the store stores whatever it is given, so a
/// handful of tickets exercise every path a real 400,000-ticket block does.
fn block(id: u64, stake: Stake, money: Money, grids: &[&[&str]]) -> (Block, SignedCommitment) {
    let tickets: Vec<Ticket> = grids
        .iter()
        .enumerate()
        .map(|(i, texts)| {
            let grids: Vec<Grid> = texts.iter().map(|t| t.parse().unwrap()).collect();
            let evaluation = evaluate_grids(stake.cents(), &grids).unwrap();
            Ticket {
                position: i as u32,
                stake_cents: stake.cents(),
                prize_cents: evaluation.prize_cents(),
                extras: evaluation.extras,
                grids,
                salt: Salt([i as u8 ^ id as u8; 16]),
            }
        })
        .collect();
    let tree = MerkleTree::build(tickets.iter().map(|t| leaf_hash(id, t)).collect());
    let block = Block {
        id,
        stake,
        params: Params::default(),
        tickets,
        tree,
    };
    let signed = block
        .commitment(money)
        .sign(&signing_key_from_secret([9; 32]));
    (block, signed)
}

/// Demo players buy from play-money blocks, operator players from real ones.
pub(crate) const PLAY: Money = Money::Play;
pub(crate) const REAL: Money = Money::Real;

pub(crate) fn insert(
    store: &dyn Store,
    id: u64,
    stake: Stake,
    money: Money,
    grids: &[&[&str]],
) -> Block {
    insert_with_open_blocks(store, id, stake, money, grids, 1)
}

/// `insert` for a deployment that keeps `open_per_line` blocks on sale.
pub(crate) fn insert_with_open_blocks(
    store: &dyn Store,
    id: u64,
    stake: Stake,
    money: Money,
    grids: &[&[&str]],
    open_per_line: u32,
) -> Block {
    let (block, signed) = block(id, stake, money, grids);
    store
        .insert_block(&block, &signed, BlockSeeding::Os, open_per_line)
        .unwrap();
    block
}

/// A nonce told apart by the key it is sent with.
fn nonce(key: &str) -> ClientNonce {
    let mut bytes = [0xee; 16];
    for (byte, k) in bytes.iter_mut().zip(key.bytes()) {
        *byte = k;
    }
    ClientNonce(bytes)
}

pub(crate) fn request(player: &str, stake: Stake, key: &str) -> SaleRequest {
    SaleRequest {
        player_id: player.to_owned(),
        stake,
        idempotency_key: key.to_owned(),
        client_nonce: nonce(key),
    }
}

/// Ann's 0.50 € sales under the keys `k{from}`, `k{from + 1}`… up to `to`.
pub(crate) fn ann_half_euro(keys: std::ops::Range<usize>) -> Vec<SaleRequest> {
    keys.map(|i| request("ann", Stake::HALF_EURO, &format!("k{i}")))
        .collect()
}

pub(crate) fn sold(outcome: SaleOutcome) -> SaleRecord {
    match outcome {
        SaleOutcome::Sold(record) => record,
        other => panic!("expected a sale, got {other:?}"),
    }
}

/// (block, position) of each sale of a batch that must all be sold.
pub(crate) fn sell_places(store: &dyn Store, requests: &[SaleRequest]) -> Vec<(u64, u32)> {
    store
        .sell_batch(requests, START_MS)
        .unwrap()
        .into_iter()
        .map(|o| {
            let r = sold(o);
            (r.block, r.ticket.position)
        })
        .collect()
}

pub(crate) fn sell_one(store: &dyn Store, request: SaleRequest, now_ms: u64) -> SaleOutcome {
    let mut outcomes = store.sell_batch(&[request], now_ms).unwrap();
    assert_eq!(outcomes.len(), 1);
    outcomes.pop().unwrap()
}

pub(crate) fn balance(store: &dyn Store, player: &str) -> u64 {
    store.player(player).unwrap().unwrap().balance_cents
}

fn status(store: &dyn Store, id: u64) -> BlockStatus {
    store.block(id).unwrap().unwrap().status
}

/// Money is neither made nor lost: what the wallets hold plus the stakes
/// paid equals what was put in plus the prizes paid.
fn assert_conserved(totals: Totals, put_in: u64) {
    assert_eq!(
        totals.balances_cents + totals.stakes_cents,
        put_in + totals.prizes_cents,
        "{totals:?}"
    );
}

pub fn sales_take_tickets_in_order_and_move_money(backend: &impl Backend) {
    let store = backend.open();
    let block = insert(
        &*store,
        1,
        Stake::HALF_EURO,
        PLAY,
        &[LOSE, WIN_2, EXTRA_WIN_2, LOSE],
    );
    assert!(store.create_player("ann", PlayerKind::Demo, 500).unwrap());
    assert!(!store.create_player("ann", PlayerKind::Demo, 9_999).unwrap());
    let now = backend.clock().now_ms();
    let outcomes = store
        .sell_batch(
            &[
                request("ann", Stake::HALF_EURO, "a"),
                request("ann", Stake::HALF_EURO, "b"),
                request("ann", Stake::HALF_EURO, "c"),
            ],
            now,
        )
        .unwrap();
    let records: Vec<SaleRecord> = outcomes.into_iter().map(sold).collect();
    let mut balance_before = 500;
    for (i, record) in records.iter().enumerate() {
        assert_eq!(record.ticket, block.tickets[i]);
        assert_eq!(record.block, 1);
        assert_eq!(record.block_tickets, 4);
        assert_eq!(record.player_id, "ann");
        assert_eq!(record.sold_at_ms, now);
        assert_eq!(record.client_nonce, nonce(["a", "b", "c"][i]));
        assert_eq!(record.revealed, 0);
        assert_eq!(record.balance_before_cents, balance_before);
        assert_eq!(
            record.balance_after_cents,
            balance_before - 50 + block.tickets[i].prize_cents
        );
        assert!(!record.sold_out_block());
        balance_before = record.balance_after_cents;
    }
    assert!(records.windows(2).all(|w| w[0].sale_id < w[1].sale_id));
    assert_eq!(balance(&*store, "ann"), 500 - 150 + 100 + 100);
    let stored = store.block(1).unwrap().unwrap();
    assert_eq!(stored.sold, 3);
    assert_eq!(stored.status, BlockStatus::Open);
    // The two winning tickets of 100 cents are gone; none is left.
    assert_eq!(stored.remaining_by_prize, vec![(100, 0)]);
    for record in &records {
        assert_eq!(
            store.sale("ann", record.sale_id).unwrap().as_ref(),
            Some(record)
        );
        assert_eq!(store.sale("bob", record.sale_id).unwrap(), None);
    }
    let history = store.history("ann", None, 10).unwrap();
    let newest_first: Vec<SaleRecord> = records.iter().rev().cloned().collect();
    assert_eq!(history, newest_first);
    let page = store.history("ann", Some(records[2].sale_id), 1).unwrap();
    assert_eq!(page, vec![records[1].clone()]);
    let totals = store.totals().unwrap();
    assert_eq!(totals.sales, 3);
    assert_eq!(totals.stakes_cents, 150);
    assert_eq!(totals.prizes_cents, 200);
    assert_conserved(totals, 500);
}

/// A sale that fails midway through a batch (here its ticket's row is
/// taken already, so its insert breaks a unique key after its balance was
/// computed) is undone alone: the sales before it and after it in the same
/// batch keep their tickets and their money, to the cent, and the next
/// sales of its player and of its block read what the earlier ones wrote.
pub fn a_faulted_sale_leaves_the_batchs_other_sales_whole(backend: &impl Backend) {
    let store = backend.open();
    insert(
        &*store,
        1,
        Stake::HALF_EURO,
        PLAY,
        &[WIN_2, LOSE, WIN_2, LOSE],
    );
    insert(&*store, 2, Stake::ONE_EURO, PLAY, &[LOSE, LOSE]);
    assert!(store.create_player("ann", PlayerKind::Demo, 500).unwrap());
    assert!(store.create_player("bob", PlayerKind::Demo, 500).unwrap());
    backend.tamper(
        "INSERT INTO sales (player_id, idempotency_key, stake_cents, block, position, \
         prize_cents, grid_count, sold_at_ms, balance_before, balance_after, client_nonce) \
         VALUES ('zed', 'taken', 100, 2, 0, 0, 1, 0, 0, 0, '0123456789abcdef')",
    );
    let now = backend.clock().now_ms();
    let mut outcomes = store
        .sell_batch(
            &[
                request("ann", Stake::HALF_EURO, "a"),
                request("bob", Stake::ONE_EURO, "b"),
                request("ann", Stake::HALF_EURO, "c"),
                request("bob", Stake::HALF_EURO, "d"),
            ],
            now,
        )
        .unwrap()
        .into_iter();
    let a = sold(outcomes.next().unwrap());
    assert!(matches!(outcomes.next(), Some(SaleOutcome::Faulted(_))));
    let (c, d) = (
        sold(outcomes.next().unwrap()),
        sold(outcomes.next().unwrap()),
    );
    assert_eq!(
        (a.ticket.position, c.ticket.position, d.ticket.position),
        (0, 1, 2)
    );
    assert_eq!((a.balance_before_cents, a.balance_after_cents), (500, 550));
    assert_eq!((c.balance_before_cents, c.balance_after_cents), (550, 500));
    assert_eq!((d.balance_before_cents, d.balance_after_cents), (500, 550));
    // Opened again: what was committed, not what a cache remembers.
    drop(store);
    let store = backend.open();
    assert_eq!(
        (balance(&*store, "ann"), balance(&*store, "bob")),
        (500, 550)
    );
    let one = store.block(1).unwrap().unwrap();
    assert_eq!(
        (one.sold, one.remaining_by_prize.clone()),
        (3, vec![(100, 0)])
    );
    assert_eq!(store.block(2).unwrap().unwrap().sold, 0);
    assert_eq!(store.history("bob", None, 10).unwrap(), vec![d]);
    let totals = store.totals().unwrap();
    // zed's row, written behind the store's back, holds no money.
    assert_eq!(
        (totals.sales, totals.stakes_cents, totals.prizes_cents),
        (4, 250, 200)
    );
}

pub fn refusals_write_nothing(backend: &impl Backend) {
    let store = backend.open();
    insert(&*store, 1, Stake::ONE_EURO, REAL, &[WIN_2, LOSE, LOSE]);
    store
        .create_player("poor", PlayerKind::Operator, 99)
        .unwrap();
    store
        .create_player("rich", PlayerKind::Operator, 1_000)
        .unwrap();
    let outcomes = store
        .sell_batch(
            &[
                request("nobody", Stake::ONE_EURO, "k"),
                request("poor", Stake::ONE_EURO, "k"),
                // No 2-euro block exists: sold out.
                request("rich", Stake::TWO_EUROS, "k"),
                // A refusal does not stop the rest of its batch.
                request("rich", Stake::ONE_EURO, "ok"),
            ],
            START_MS,
        )
        .unwrap();
    assert_eq!(outcomes[0], SaleOutcome::UnknownPlayer);
    assert_eq!(
        outcomes[1],
        SaleOutcome::InsufficientFunds { balance_cents: 99 }
    );
    assert_eq!(outcomes[2], SaleOutcome::SoldOut);
    let record = sold(outcomes[3].clone());
    assert_eq!(record.ticket.position, 0);
    assert!(store.player("nobody").unwrap().is_none());
    assert_eq!(balance(&*store, "poor"), 99);
    assert_eq!(balance(&*store, "rich"), 1_000 - 100 + 200);
    assert!(store.history("poor", None, 10).unwrap().is_empty());
    assert_eq!(store.block(1).unwrap().unwrap().sold, 1);
    // Refused keys stay free: the same key sells once the money is there.
    store
        .create_player("poor", PlayerKind::Operator, 0)
        .unwrap();
    let credit = Transfer {
        player_id: "poor".into(),
        kind: TransferKind::Credit,
        amount_cents: 1,
        reference: "top-up".into(),
    };
    store.transfer(&credit, START_MS).unwrap();
    let later = sold(sell_one(
        &*store,
        request("poor", Stake::ONE_EURO, "k"),
        START_MS,
    ));
    assert_eq!(later.ticket.position, 1);
    assert_conserved(store.totals().unwrap(), 99 + 1_000 + 1);
}

pub fn idempotency_keys_replay_or_conflict(backend: &impl Backend) {
    let store = backend.open();
    insert(
        &*store,
        1,
        Stake::HALF_EURO,
        PLAY,
        &[WIN_2, LOSE, LOSE, LOSE],
    );
    insert(&*store, 2, Stake::ONE_EURO, PLAY, &[LOSE, LOSE]);
    store.create_player("ann", PlayerKind::Demo, 500).unwrap();
    store.create_player("bob", PlayerKind::Demo, 500).unwrap();
    let outcomes = store
        .sell_batch(
            &[
                request("ann", Stake::HALF_EURO, "same"),
                // A retry inside the very batch that sold it.
                request("ann", Stake::HALF_EURO, "same"),
            ],
            START_MS,
        )
        .unwrap();
    let first = sold(outcomes[0].clone());
    assert_eq!(outcomes[1], SaleOutcome::Replayed(first.clone()));
    // A retry in a later batch, even after time has passed and with another
    // nonce, is the same sale: the nonce stored is the first request's.
    backend.clock().advance(Duration::from_secs(3600));
    let again = sell_one(
        &*store,
        SaleRequest {
            client_nonce: nonce("another"),
            ..request("ann", Stake::HALF_EURO, "same")
        },
        backend.clock().now_ms(),
    );
    assert_eq!(again, SaleOutcome::Replayed(first.clone()));
    assert_eq!(first.client_nonce, nonce("same"));
    assert_eq!(
        sell_one(&*store, request("ann", Stake::ONE_EURO, "same"), START_MS),
        SaleOutcome::KeyConflict
    );
    assert_eq!(balance(&*store, "ann"), 500 - 50 + 100);
    assert_eq!(store.history("ann", None, 10).unwrap(), vec![first.clone()]);
    // Keys belong to a player: another player's same key is a new sale.
    let other = sold(sell_one(
        &*store,
        request("bob", Stake::HALF_EURO, "same"),
        START_MS,
    ));
    assert_eq!(other.ticket.position, 1);
    assert_ne!(other.sale_id, first.sale_id);
    assert_eq!(store.block(1).unwrap().unwrap().sold, 2);
    assert_eq!(store.block(2).unwrap().unwrap().sold, 0);
}

pub fn transfers_apply_once_per_reference(backend: &impl Backend) {
    let store = backend.open();
    let transfer = |kind, amount_cents, reference: &str| Transfer {
        player_id: "op-1".into(),
        kind,
        amount_cents,
        reference: reference.into(),
    };
    let now = START_MS;
    // A debit cannot create a player; a credit can.
    assert_eq!(
        store
            .transfer(&transfer(TransferKind::Debit, 10, "d0"), now)
            .unwrap(),
        TransferOutcome::UnknownPlayer
    );
    assert!(store.player("op-1").unwrap().is_none());
    let credit = transfer(TransferKind::Credit, 1_000, "c1");
    assert_eq!(
        store.transfer(&credit, now).unwrap(),
        TransferOutcome::Applied {
            balance_cents: 1_000
        }
    );
    let player = store.player("op-1").unwrap().unwrap();
    assert_eq!(player.kind, PlayerKind::Operator);
    assert_eq!(
        store
            .transfer(&transfer(TransferKind::Debit, 300, "d1"), now)
            .unwrap(),
        TransferOutcome::Applied { balance_cents: 700 }
    );
    // The replay answers the balance of now, not of then.
    assert_eq!(
        store.transfer(&credit, now).unwrap(),
        TransferOutcome::Replayed { balance_cents: 700 }
    );
    for conflicting in [
        transfer(TransferKind::Credit, 999, "c1"),
        transfer(TransferKind::Debit, 1_000, "c1"),
    ] {
        assert_eq!(
            store.transfer(&conflicting, now).unwrap(),
            TransferOutcome::ReferenceConflict
        );
    }
    assert_eq!(
        store
            .transfer(&transfer(TransferKind::Debit, 701, "d2"), now)
            .unwrap(),
        TransferOutcome::InsufficientFunds { balance_cents: 700 }
    );
    // The refused reference stays free.
    assert_eq!(
        store
            .transfer(&transfer(TransferKind::Debit, 700, "d2"), now)
            .unwrap(),
        TransferOutcome::Applied { balance_cents: 0 }
    );
    store
        .create_player("demo-1", PlayerKind::Demo, 5_000)
        .unwrap();
    let to_demo = Transfer {
        player_id: "demo-1".into(),
        kind: TransferKind::Credit,
        amount_cents: 1,
        reference: "x".into(),
    };
    assert_eq!(
        store.transfer(&to_demo, now).unwrap(),
        TransferOutcome::DemoPlayer
    );
    assert_eq!(balance(&*store, "demo-1"), 5_000);
    assert_eq!(store.totals().unwrap().balances_cents, 5_000);
}

pub fn a_line_keeps_its_open_blocks_on_sale_and_the_pending_one_behind(backend: &impl Backend) {
    let store = backend.open();
    for id in 1..=3 {
        insert_with_open_blocks(&*store, id, Stake::HALF_EURO, REAL, &[LOSE, WIN_2], 2);
    }
    // Another line counts its own open blocks.
    insert_with_open_blocks(&*store, 4, Stake::ONE_EURO, REAL, &[LOSE], 2);
    let statuses = |store: &dyn Store| (1..=4).map(|id| status(store, id)).collect::<Vec<_>>();
    use BlockStatus::{Open, Pending, SoldOut};
    assert_eq!(statuses(&*store), [Open, Open, Pending, Open]);
    store
        .create_player("ann", PlayerKind::Operator, 1_000)
        .unwrap();
    // Alone, a batch sells from the line's first open block; the pending
    // block takes the place of the one that sells out.
    assert_eq!(
        sell_places(&*store, &ann_half_euro(0..3)),
        [(1, 0), (1, 1), (2, 0)]
    );
    assert_eq!(statuses(&*store), [SoldOut, Open, Open, Open]);
    // Closing one of them leaves the other on sale, nothing waits behind.
    let closed = store.close_block(2).unwrap().unwrap();
    assert_eq!(closed.status, BlockStatus::Closed);
    assert_eq!(status(&*store, 3), Open);
    assert_eq!(sell_places(&*store, &ann_half_euro(3..4)), [(3, 0)]);
    // Four stakes of 50, one prize of two stakes (position 1 of block 1).
    assert_eq!(balance(&*store, "ann"), 1_000 - 4 * 50 + 100);
    assert_conserved(store.totals().unwrap(), 1_000);
}

pub fn a_sold_out_block_rolls_over_to_the_pending_one(backend: &impl Backend) {
    let store = backend.open();
    let first = insert(&*store, 1, Stake::HALF_EURO, REAL, &[LOSE, WIN_2, LOSE]);
    let second = insert(&*store, 2, Stake::HALF_EURO, REAL, &[WIN_2, LOSE]);
    assert_eq!(status(&*store, 1), BlockStatus::Open);
    assert_eq!(status(&*store, 2), BlockStatus::Pending);
    store
        .create_player("ann", PlayerKind::Operator, 1_000)
        .unwrap();
    // One batch crosses the boundary and then runs the second block dry.
    let outcomes = store.sell_batch(&ann_half_euro(0..6), START_MS).unwrap();
    let records: Vec<SaleRecord> = outcomes[..5].iter().cloned().map(sold).collect();
    let taken: Vec<(u64, u32, bool)> = records
        .iter()
        .map(|r| (r.block, r.ticket.position, r.sold_out_block()))
        .collect();
    assert_eq!(
        taken,
        vec![
            (1, 0, false),
            (1, 1, false),
            (1, 2, true),
            (2, 0, false),
            (2, 1, true),
        ]
    );
    assert_eq!(records[2].ticket, first.tickets[2]);
    assert_eq!(records[3].ticket, second.tickets[0]);
    assert_eq!(outcomes[5], SaleOutcome::SoldOut);
    for id in [1, 2] {
        let block = store.block(id).unwrap().unwrap();
        assert_eq!(block.status, BlockStatus::SoldOut);
        assert_eq!(block.sold, block.signed.commitment.tickets);
        assert!(block.remaining_by_prize.iter().all(|&(_, left)| left == 0));
    }
    // A new block of a stake with nothing on sale opens at once.
    insert(&*store, 3, Stake::HALF_EURO, REAL, &[LOSE]);
    assert_eq!(status(&*store, 3), BlockStatus::Open);
    let next = sold(sell_one(
        &*store,
        request("ann", Stake::HALF_EURO, "k5"),
        START_MS,
    ));
    assert_eq!((next.block, next.ticket.position), (3, 0));
    assert_conserved(store.totals().unwrap(), 1_000);
}

/// Play money and real money are two lines of blocks per stake that never
/// stand in for each other: not when one runs dry, not when a block opens,
/// not when one is closed.
pub fn play_and_real_money_never_cross(backend: &impl Backend) {
    let store = backend.open();
    insert(&*store, 1, Stake::HALF_EURO, REAL, &[LOSE]);
    // The stake has a real-money block open; the play line has none yet.
    insert(&*store, 2, Stake::HALF_EURO, PLAY, &[WIN_2]);
    insert(&*store, 3, Stake::HALF_EURO, REAL, &[LOSE, WIN_2]);
    assert_eq!(status(&*store, 1), BlockStatus::Open);
    assert_eq!(status(&*store, 2), BlockStatus::Open);
    assert_eq!(status(&*store, 3), BlockStatus::Pending);
    store
        .create_player("op", PlayerKind::Operator, 1_000)
        .unwrap();
    store
        .create_player("demo", PlayerKind::Demo, 1_000)
        .unwrap();
    let outcomes = store
        .sell_batch(
            &[
                request("demo", Stake::HALF_EURO, "d1"),
                // The play block sold out: a real-money ticket is on sale
                // (block 1) and another waits (block 3), yet none is sold.
                request("demo", Stake::HALF_EURO, "d2"),
                request("op", Stake::HALF_EURO, "o1"),
                // The real block sold out: its own pending block opens.
                request("op", Stake::HALF_EURO, "o2"),
            ],
            START_MS,
        )
        .unwrap();
    let d1 = sold(outcomes[0].clone());
    assert_eq!((d1.block, d1.sold_out_block()), (2, true));
    assert_eq!(outcomes[1], SaleOutcome::SoldOut);
    let o1 = sold(outcomes[2].clone());
    assert_eq!((o1.block, o1.sold_out_block()), (1, true));
    let o2 = sold(outcomes[3].clone());
    assert_eq!((o2.block, o2.ticket.position), (3, 0));
    assert_eq!(status(&*store, 3), BlockStatus::Open);
    assert_eq!(balance(&*store, "demo"), 1_000 - 50 + 100);

    // A new play block opens at once beside the open real one, and the
    // play line's next block waits for it, not for the real line.
    insert(&*store, 4, Stake::HALF_EURO, PLAY, &[LOSE, LOSE]);
    insert(&*store, 5, Stake::HALF_EURO, PLAY, &[LOSE]);
    assert_eq!(status(&*store, 4), BlockStatus::Open);
    assert_eq!(status(&*store, 5), BlockStatus::Pending);
    let d3 = sold(sell_one(
        &*store,
        request("demo", Stake::HALF_EURO, "d3"),
        START_MS,
    ));
    assert_eq!(d3.block, 4);
    // Closing the open real block opens no play block in its place.
    store.close_block(3).unwrap();
    assert_eq!(status(&*store, 5), BlockStatus::Pending);
    assert_eq!(
        sell_one(&*store, request("op", Stake::HALF_EURO, "o3"), START_MS),
        SaleOutcome::SoldOut
    );
    for (id, money) in [(1, REAL), (2, PLAY), (3, REAL), (4, PLAY), (5, PLAY)] {
        assert_eq!(store.block(id).unwrap().unwrap().money(), money, "{id}");
    }
    assert!(store.has_players(PlayerKind::Operator).unwrap());
    assert_conserved(store.totals().unwrap(), 2_000);
}

pub fn closing_a_block_switches_over(backend: &impl Backend) {
    let store = backend.open();
    insert(&*store, 1, Stake::TWO_EUROS, PLAY, &[LOSE, LOSE]);
    insert(&*store, 2, Stake::TWO_EUROS, PLAY, &[LOSE, LOSE]);
    insert(&*store, 3, Stake::TWO_EUROS, PLAY, &[LOSE, LOSE]);
    assert!(store.close_block(99).unwrap().is_none());
    // Closing a pending block leaves the open one on sale.
    let closed = store.close_block(2).unwrap().unwrap();
    assert_eq!(closed.status, BlockStatus::Closed);
    assert_eq!(status(&*store, 1), BlockStatus::Open);
    // Closing the open one puts the oldest remaining pending block on sale.
    assert_eq!(
        store.close_block(1).unwrap().unwrap().status,
        BlockStatus::Closed
    );
    assert_eq!(status(&*store, 3), BlockStatus::Open);
    store.create_player("ann", PlayerKind::Demo, 1_000).unwrap();
    let sale = sold(sell_one(
        &*store,
        request("ann", Stake::TWO_EUROS, "k"),
        START_MS,
    ));
    assert_eq!(sale.block, 3);
    // A finished block stays finished, and closing it again changes nothing.
    assert_eq!(
        store.close_block(1).unwrap().unwrap().status,
        BlockStatus::Closed
    );
    assert_eq!(status(&*store, 3), BlockStatus::Open);
    store.close_block(3).unwrap();
    assert_eq!(
        sell_one(&*store, request("ann", Stake::TWO_EUROS, "k2"), START_MS),
        SaleOutcome::SoldOut
    );
}

pub fn blocks_and_tickets_round_trip(backend: &impl Backend) {
    let store = backend.open();
    assert_eq!(store.next_block_id().unwrap(), 1);
    assert!(store.blocks().unwrap().is_empty());
    assert!(!store.has_players(PlayerKind::Operator).unwrap());
    let (block, signed) = block(7, Stake::ONE_EURO, REAL, &[EXTRA_WIN_2, LOSE, WIN_2]);
    assert_eq!(
        store
            .insert_block(&block, &signed, BlockSeeding::Os, 1)
            .unwrap(),
        BlockStatus::Open
    );
    assert_eq!(store.next_block_id().unwrap(), 8);
    let stored = store.block(7).unwrap().unwrap();
    assert_eq!(stored.signed, signed);
    assert_eq!(stored.params, block.params);
    assert_eq!(stored.sold, 0);
    assert_eq!(stored.id(), 7);
    assert_eq!(stored.stake_cents(), 100);
    assert_eq!(stored.remaining_by_prize, vec![(200, 2)]);
    assert_eq!(stored.money(), Money::Real);
    assert_eq!(stored.seeding, BlockSeeding::Os);
    assert!(store.block(8).unwrap().is_none());
    let ids: Vec<u64> = store.blocks().unwrap().iter().map(|b| b.id()).collect();
    assert_eq!(ids, vec![7]);
    let leaves: Vec<_> = (0..3).map(|p| block.tree.leaf(p).unwrap()).collect();
    assert_eq!(store.block_leaves(7).unwrap(), leaves);
    let mut seen = Vec::new();
    store
        .for_each_ticket(7, &mut |ticket, leaf| {
            seen.push((ticket, leaf));
            true
        })
        .unwrap();
    let expected: Vec<_> = block.tickets.iter().cloned().zip(leaves).collect();
    assert_eq!(seen, expected);
    let mut first_only = 0;
    store
        .for_each_ticket(7, &mut |_, _| {
            first_only += 1;
            false
        })
        .unwrap();
    assert_eq!(first_only, 1);
    // How a block was seeded is kept with it.
    let (seeded, signed) = crate::suite::block(8, Stake::ONE_EURO, PLAY, &[LOSE]);
    store
        .insert_block(&seeded, &signed, BlockSeeding::Demo, 1)
        .unwrap();
    let stored = store.block(8).unwrap().unwrap();
    assert_eq!(stored.seeding, BlockSeeding::Demo);
    assert_eq!(stored.money(), Money::Play);
    assert_eq!(stored.status, BlockStatus::Open);
}

pub fn sessions_and_reveals(backend: &impl Backend) {
    let store = backend.open();
    let token = [3u8; 32];
    assert!(store.session(&token).unwrap().is_none());
    store.create_player("ann", PlayerKind::Demo, 500).unwrap();
    store
        .create_session(&token, "ann", START_MS, START_MS + 60_000)
        .unwrap();
    let session = store.session(&token).unwrap().unwrap();
    assert_eq!(session.player_id, "ann");
    assert_eq!(session.expires_at_ms, START_MS + 60_000);

    insert(&*store, 1, Stake::HALF_EURO, PLAY, &[EXTRA_WIN_2, LOSE]);
    let extra = sold(sell_one(
        &*store,
        request("ann", Stake::HALF_EURO, "a"),
        START_MS,
    ));
    let plain = sold(sell_one(
        &*store,
        request("ann", Stake::HALF_EURO, "b"),
        START_MS,
    ));
    assert_eq!(extra.grid_count(), 2);
    assert_eq!(store.unrevealed("ann").unwrap(), Some(extra.clone()));
    assert_eq!(
        store.set_revealed("ann", extra.sale_id, 1).unwrap(),
        Some(1)
    );
    // Progress never goes back, and never past the last grid.
    assert_eq!(
        store.set_revealed("ann", extra.sale_id, 0).unwrap(),
        Some(1)
    );
    assert_eq!(
        store.set_revealed("ann", extra.sale_id, 9).unwrap(),
        Some(2)
    );
    assert_eq!(store.set_revealed("bob", extra.sale_id, 2).unwrap(), None);
    assert_eq!(store.set_revealed("ann", u64::MAX, 1).unwrap(), None);
    assert_eq!(store.unrevealed("ann").unwrap(), Some(plain.clone()));
    assert_eq!(
        store.set_revealed("ann", plain.sale_id, 1).unwrap(),
        Some(1)
    );
    assert_eq!(store.unrevealed("ann").unwrap(), None);
    assert!(store
        .sale("ann", extra.sale_id)
        .unwrap()
        .unwrap()
        .is_complete());
}

pub fn everything_survives_a_reopen(backend: &impl Backend) {
    let store = backend.open();
    insert(&*store, 1, Stake::HALF_EURO, PLAY, &[LOSE, WIN_2, LOSE]);
    insert(&*store, 2, Stake::HALF_EURO, PLAY, &[LOSE]);
    store.create_player("ann", PlayerKind::Demo, 500).unwrap();
    store
        .create_session(&[1; 32], "ann", START_MS, START_MS + 1)
        .unwrap();
    let credit = Transfer {
        player_id: "op".into(),
        kind: TransferKind::Credit,
        amount_cents: 70,
        reference: "r".into(),
    };
    store.transfer(&credit, START_MS).unwrap();
    let first = sold(sell_one(
        &*store,
        request("ann", Stake::HALF_EURO, "a"),
        START_MS,
    ));
    let totals = store.totals().unwrap();
    drop(store);

    let store = backend.open();
    assert_eq!(store.totals().unwrap(), totals);
    assert_eq!(store.history("ann", None, 10).unwrap(), vec![first.clone()]);
    assert_eq!(store.session(&[1; 32]).unwrap().unwrap().player_id, "ann");
    assert_eq!(
        store.transfer(&credit, START_MS).unwrap(),
        TransferOutcome::Replayed { balance_cents: 70 }
    );
    assert_eq!(
        sell_one(&*store, request("ann", Stake::HALF_EURO, "a"), START_MS),
        SaleOutcome::Replayed(first)
    );
    // The cursor of the open block is where it was left.
    let next = sold(sell_one(
        &*store,
        request("ann", Stake::HALF_EURO, "b"),
        START_MS,
    ));
    assert_eq!((next.block, next.ticket.position), (1, 1));
    assert_eq!(status(&*store, 2), BlockStatus::Pending);
    assert_eq!(store.next_block_id().unwrap(), 3);
}

fn new_launch(code: u8, player: &str, mode: LaunchMode, lobby: Option<&str>) -> NewLaunch {
    NewLaunch {
        code_hash: [code; 32],
        player_id: player.to_owned(),
        mode,
        lang: "fr".to_owned(),
        lobby_url: lobby.map(str::to_owned),
        created_at_ms: START_MS,
        expires_at_ms: START_MS + 60_000,
    }
}

fn new_session(token: u8, now_ms: u64) -> NewSession {
    NewSession {
        token_hash: [token; 32],
        created_at_ms: now_ms,
        expires_at_ms: now_ms + 3_600_000,
        max_per_player: 20,
    }
}

/// A launch code opens one session, once, before it expires; the session
/// keeps the launch's lobby; a demo code needs a demo player to give.
pub fn launch_codes_open_one_session_once(backend: &impl Backend) {
    let store = backend.open();
    let lobby = Some("https://casino.example/lobby");
    store
        .insert_launch(&new_launch(1, "ann", LaunchMode::Real, lobby))
        .unwrap();
    let opened = store
        .redeem_launch(&[1; 32], &new_session(10, START_MS + 59_999), None)
        .unwrap();
    let LaunchRedeemed::Opened {
        player, lobby_url, ..
    } = opened
    else {
        panic!("{opened:?}");
    };
    assert_eq!(
        (player.id.as_str(), player.kind),
        ("ann", PlayerKind::Operator)
    );
    assert_eq!(lobby_url.as_deref(), lobby);
    let session = store.session(&[10; 32]).unwrap().unwrap();
    assert_eq!(session.player_id, "ann");
    assert_eq!(session.lobby_url.as_deref(), lobby);
    // Used: refused, and no second session.
    assert_eq!(
        store
            .redeem_launch(&[1; 32], &new_session(11, START_MS + 1), None)
            .unwrap(),
        LaunchRedeemed::Invalid
    );
    assert!(store.session(&[11; 32]).unwrap().is_none());
    // Unknown.
    assert_eq!(
        store
            .redeem_launch(&[2; 32], &new_session(12, START_MS), None)
            .unwrap(),
        LaunchRedeemed::Invalid
    );
    // Expired at exactly 60 s.
    store
        .insert_launch(&new_launch(3, "ann", LaunchMode::Real, None))
        .unwrap();
    assert_eq!(
        store
            .redeem_launch(&[3; 32], &new_session(13, START_MS + 60_000), None)
            .unwrap(),
        LaunchRedeemed::Invalid
    );
    assert!(store.session(&[13; 32]).unwrap().is_none());
    // A demo code: the demo player given, or nothing without one.
    store
        .insert_launch(&new_launch(4, "ann", LaunchMode::Demo, None))
        .unwrap();
    store
        .insert_launch(&new_launch(5, "ann", LaunchMode::Demo, None))
        .unwrap();
    assert_eq!(
        store
            .redeem_launch(&[4; 32], &new_session(14, START_MS), None)
            .unwrap(),
        LaunchRedeemed::Invalid
    );
    let demo = NewPlayer {
        id: "demo-0001",
        kind: PlayerKind::Demo,
        balance_cents: 5_000,
        reuse: false,
    };
    let opened = store
        .redeem_launch(&[5; 32], &new_session(15, START_MS), Some(&demo))
        .unwrap();
    assert!(
        matches!(&opened, LaunchRedeemed::Opened { player, lobby_url: None, .. }
            if player.id == "demo-0001" && player.balance_cents == 5_000),
        "{opened:?}"
    );
    let session = store.session(&[15; 32]).unwrap().unwrap();
    assert_eq!(session.lobby_url, None);
    // The sweep takes expired codes, used or not.
    assert_eq!(store.delete_expired_launches(START_MS + 60_000).unwrap(), 4);
}

/// Threads racing to trade one code: exactly one session opens.
pub fn a_launch_code_raced_by_threads_opens_one_session(backend: &impl Backend) {
    let store = backend.open();
    for round in 0..4u8 {
        store
            .insert_launch(&new_launch(100 + round, "race", LaunchMode::Real, None))
            .unwrap();
        let barrier = std::sync::Barrier::new(6);
        let won: usize = std::thread::scope(|scope| {
            let tries: Vec<_> = (0..6u8)
                .map(|t| {
                    let (store, barrier) = (&store, &barrier);
                    scope.spawn(move || {
                        barrier.wait();
                        let session = new_session(round * 10 + t + 1, START_MS);
                        store
                            .redeem_launch(&[100 + round; 32], &session, None)
                            .unwrap()
                    })
                })
                .collect();
            tries
                .into_iter()
                .map(|t| t.join().unwrap())
                .filter(|r| matches!(r, LaunchRedeemed::Opened { .. }))
                .count()
        });
        assert_eq!(won, 1, "round {round}");
    }
}
