//! The seamless wallet's sale rules, for every backend. The operator holds
//! the money, so one sale spans two systems and three steps:
//!
//! 1. `reserve`: the checks of any sale (`sale_batch::admit`), then the next
//!    ticket of the line is taken and recorded as a reserved round. Nothing
//!    is shown or answered yet.
//! 2. The debit at the operator, outside any transaction (`wallet_client`).
//! 3. `settle` (debit ok): the round becomes a sale, and a winning ticket's
//!    prize credit goes into the outbox in the same transaction. Or
//!    `release` (debit refused, or no answer): the ticket goes back to the
//!    block for the next buyer, and for no answer a rollback goes into the
//!    outbox in the same transaction.
//!
//! A block sells out only when every ticket is sold: its count of sold
//! tickets moves at `settle`, so it cannot switch over while a round holds
//! one of its tickets.
//!
//! With fair dealing (`Dealing::Beacon`), the ticket a round reserves only
//! holds a place in its block: `settle` turns the paid round into a
//! purchase of that block, which the beacon deals like any other
//! (`deal`), and the deal queues the prize credit under the round's id.

use super::protection::ProtectionDefaults;
use super::sale_batch::{admit, Admission, Dealing};
use super::tx::{NewPurchase, NewSale, RoundEnd};
pub use super::tx::{OutboxItem, OutboxKind, Round, RoundTx, TicketPoolTx};
use super::{
    corrupt, storable, BlockStatus, PlayerKind, PurchaseRecord, SaleOutcome, SaleRecord,
    SaleRequest, StoreResult,
};
use std::collections::HashMap;

impl Round {
    pub fn debit_id(&self) -> String {
        debit_id(&self.round_id)
    }
}

pub fn debit_id(round_id: &str) -> String {
    format!("debit:{round_id}")
}

pub fn credit_id(round_id: &str) -> String {
    format!("credit:{round_id}")
}

pub fn rollback_id(round_id: &str) -> String {
    format!("rollback:{round_id}")
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReserveOutcome {
    /// Ask the operator for the stake now.
    Reserved(Round),
    /// Another request with the same idempotency key holds a round now.
    InFlight,
    /// Answered like a sale of the internal wallet: a replay of the sale
    /// already made under this key, or a refusal (nothing was written).
    Answered(SaleOutcome),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Settled {
    /// The round is a sale; `sold_out` if it sold its block's last ticket.
    Sold { record: SaleRecord, sold_out: bool },
    /// The round is a purchase, for the beacon's round to deal;
    /// `sold_out` if it took its block's last place.
    Bought {
        purchase: PurchaseRecord,
        sold_out: bool,
    },
    /// The round was no longer reserved (a recovery released it meanwhile
    /// and queued its rollback): nothing was sold.
    Gone,
}

/// Why a round ends without a sale.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Release {
    /// The operator refused the debit: nothing moved there.
    Refused,
    /// The operator did not answer: the debit may have been applied, so a
    /// rollback is queued.
    NoAnswer,
}

/// Step 1: checks the sale as `sale_batch` would and reserves its ticket.
/// Refusals write nothing.
pub fn reserve<T: RoundTx + ?Sized>(
    tx: &mut T,
    request: &SaleRequest,
    round_id: &str,
    now_ms: u64,
    protection: &ProtectionDefaults,
) -> StoreResult<ReserveOutcome> {
    // Settling a round ends it in the sale's own transaction: a reserved
    // round means no sale under this key yet, and one request still paying.
    if tx
        .reserved_round_by_key(&request.player_id, &request.idempotency_key)?
        .is_some()
    {
        return Ok(ReserveOutcome::InFlight);
    }
    // The balance is the operator's: the debit checks it there.
    // The player's protection applies as to any sale; a reserved round
    // counts toward its limits like a sale (`ProtectionTx::window_totals`).
    let admission = admit(tx, &mut HashMap::new(), request, now_ms, protection, false)?;
    let (block, position) = match admission {
        // Play money never leaves the game: the caller sends only operator
        // players here, and an error undoes the ticket taken.
        Admission::Admitted { kind, .. } if kind != PlayerKind::Operator => {
            return Err(corrupt(
                "a demo player cannot pay from the operator's wallet",
            ))
        }
        Admission::Admitted {
            block, position, ..
        } => (block, position),
        Admission::Refused(outcome) => return Ok(ReserveOutcome::Answered(outcome)),
    };
    let round = Round {
        round_id: round_id.to_owned(),
        player_id: request.player_id.clone(),
        idempotency_key: request.idempotency_key.clone(),
        stake_cents: request.stake.cents(),
        block: block.block,
        position,
        client_nonce: request.client_nonce,
        reserved_at_ms: now_ms,
    };
    tx.insert_round(&round)?;
    Ok(ReserveOutcome::Reserved(round))
}

/// Step 3 after a debit the operator applied: the round becomes a sale.
/// `balance_after_debit_cents` is the operator's balance in its answer; the
/// sale records it plus the stake as the balance before, and that plus the
/// prize as the balance after (once the prize credit is applied).
pub fn settle<T: RoundTx + ?Sized>(
    tx: &mut T,
    round_id: &str,
    balance_after_debit_cents: u64,
    now_ms: u64,
    dealing: Dealing,
) -> StoreResult<Settled> {
    let Some(round) = tx.reserved_round_for_update(round_id)? else {
        return Ok(Settled::Gone);
    };
    if let Dealing::Beacon {
        round: beacon_round,
    } = dealing
    {
        return settle_purchase(tx, round, balance_after_debit_cents, now_ms, beacon_round);
    }
    let ticket = tx
        .ticket(round.block, round.position, round.stake_cents)?
        .ok_or_else(|| corrupt(format!("round {round_id} holds a missing ticket")))?;
    let before = storable(balance_after_debit_cents.checked_add(round.stake_cents))?;
    let after = storable(balance_after_debit_cents.checked_add(ticket.prize_cents))?;
    let sale_id = tx.insert_sale(&NewSale {
        player_id: &round.player_id,
        idempotency_key: &round.idempotency_key,
        stake_cents: round.stake_cents,
        block: round.block,
        position: round.position,
        prize_cents: ticket.prize_cents,
        grid_count: 1 + ticket.extras,
        sold_at_ms: now_ms,
        client_nonce: round.client_nonce,
        balance_before_cents: before,
        balance_after_cents: after,
    })?;
    tx.end_round(round_id, RoundEnd::Sold(sale_id), now_ms)?;
    let (sold_out, tickets) = count_sold(tx, &round)?;
    if ticket.prize_cents > 0 {
        tx.take_prize(round.block, ticket.prize_cents)?;
        queue_credit(tx, round_id, &round.player_id, ticket.prize_cents, now_ms)?;
    }
    Ok(Settled::Sold {
        record: SaleRecord {
            sale_id,
            player_id: round.player_id,
            block: round.block,
            block_tickets: tickets,
            ticket,
            sold_at_ms: now_ms,
            client_nonce: round.client_nonce,
            balance_before_cents: before,
            balance_after_cents: after,
            revealed: 0,
            // The sequencer logs it after this transaction commits.
            log_index: None,
        },
        sold_out,
    })
}

/// One more ticket of the round's block is sold (or bought): whether that
/// sold it out (then the next block of its line opens), and its tickets.
fn count_sold<T: RoundTx + ?Sized>(tx: &mut T, round: &Round) -> StoreResult<(bool, u32)> {
    let (status, sold, tickets) = tx
        .block_counts_for_update(round.block)?
        .ok_or_else(|| corrupt(format!("round {} of a missing block", round.round_id)))?;
    let sold = sold + 1;
    let sold_out = sold == tickets && status == BlockStatus::Open;
    if sold_out {
        tx.set_block_sold(round.block, sold, BlockStatus::SoldOut)?;
        let (_, stake, money) = tx
            .block_status_for_update(round.block)?
            .ok_or_else(|| corrupt("a block vanished"))?;
        super::switch_over::open_next(tx, stake, money)?;
    } else {
        tx.set_block_sold(round.block, sold, status)?;
    }
    Ok((sold_out, tickets))
}

/// Queues a round's prize credit at the operator's wallet (at its sale, or
/// at its purchase's deal).
pub fn queue_credit<T: RoundTx + ?Sized>(
    tx: &mut T,
    round_id: &str,
    player_id: &str,
    prize_cents: u64,
    now_ms: u64,
) -> StoreResult<()> {
    tx.insert_outbox(
        &OutboxItem {
            transaction_id: credit_id(round_id),
            kind: OutboxKind::Credit,
            round_id: round_id.to_owned(),
            player_id: player_id.to_owned(),
            amount_cents: prize_cents,
            original_transaction_id: None,
        },
        now_ms,
    )
}

/// Step 3 with fair dealing: the paid round becomes a purchase of the
/// block where it held a place, for `beacon_round` to deal. Its balances
/// are the operator's, around the debit.
fn settle_purchase<T: RoundTx + ?Sized>(
    tx: &mut T,
    round: Round,
    balance_after_debit_cents: u64,
    now_ms: u64,
    beacon_round: u64,
) -> StoreResult<Settled> {
    let before = storable(balance_after_debit_cents.checked_add(round.stake_cents))?;
    let purchase_id = tx.insert_purchase(&NewPurchase {
        player_id: &round.player_id,
        idempotency_key: &round.idempotency_key,
        stake_cents: round.stake_cents,
        block: round.block,
        bought_at_ms: now_ms,
        client_nonce: round.client_nonce,
        round: beacon_round,
        balance_before_cents: before,
        balance_after_cents: balance_after_debit_cents,
    })?;
    tx.end_round(&round.round_id, RoundEnd::Bought, now_ms)?;
    let (sold_out, tickets) = count_sold(tx, &round)?;
    Ok(Settled::Bought {
        purchase: PurchaseRecord {
            purchase_id,
            player_id: round.player_id,
            idempotency_key: round.idempotency_key,
            block: round.block,
            block_tickets: tickets,
            stake_cents: round.stake_cents,
            bought_at_ms: now_ms,
            client_nonce: round.client_nonce,
            round: beacon_round,
            balance_before_cents: before,
            balance_after_cents: balance_after_debit_cents,
            // The sequencer logs it after this transaction commits.
            log_index: None,
            sale_id: None,
            deal_proof: None,
            round_signature: None,
            dealt_round: None,
        },
        sold_out,
    })
}

/// Step 3 without a sale: the ticket goes back to its block, and for a
/// debit without answer a rollback is queued. False if the round was not
/// reserved (already settled or released): nothing changes then.
pub fn release<T: RoundTx + ?Sized>(
    tx: &mut T,
    round_id: &str,
    why: Release,
    now_ms: u64,
) -> StoreResult<bool> {
    let Some(round) = tx.reserved_round_for_update(round_id)? else {
        return Ok(false);
    };
    tx.end_round(round_id, RoundEnd::Released, now_ms)?;
    tx.free_ticket(round.block, round.position)?;
    if why == Release::NoAnswer {
        tx.insert_outbox(
            &OutboxItem {
                transaction_id: rollback_id(round_id),
                kind: OutboxKind::Rollback,
                round_id: round_id.to_owned(),
                player_id: round.player_id.clone(),
                amount_cents: round.stake_cents,
                original_transaction_id: Some(round.debit_id()),
            },
            now_ms,
        )?;
    }
    Ok(true)
}

/// Releases, as unanswered, every round reserved before `before_ms`: rounds
/// a crash or a lost request left behind. Their rollbacks are queued.
pub fn release_stale<T: RoundTx + ?Sized>(
    tx: &mut T,
    before_ms: u64,
    now_ms: u64,
) -> StoreResult<u64> {
    let mut released = 0;
    for round_id in tx.rounds_reserved_before(before_ms)? {
        if release(tx, &round_id, Release::NoAnswer, now_ms)? {
            released += 1;
        }
    }
    Ok(released)
}
