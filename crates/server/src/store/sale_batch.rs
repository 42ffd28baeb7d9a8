//! The sale rules, for every backend: a batch of sales runs in order inside
//! one transaction that the backend commits once (group commit). Each sale
//! is replayed, refused without any write, or checked, debited, and then
//! either given the next ticket of the open block of its stake and of its
//! player's money, credited and recorded (dealing in order), or recorded as
//! a purchase of that block that a beacon round will deal (`Dealing::Beacon`,
//! docs/PROTOCOL.md §10; the deal is `store::deal`).
//!
//! The money is the buyer's kind's (`PlayerKind::money`), read inside the
//! transaction with the balance: play money never takes a ticket of a
//! real-money block, and real money never one of a play-money block.
//!
//! Each sale runs under its own savepoint: a sale that fails (a store error,
//! corrupt data, even a panic) is undone alone and answered `Faulted`, and
//! the other sales of the batch still commit.

use super::protection::{check_sale, ProtectionDefaults, Refusal};
use super::switch_over::open_next;
use super::tx::{NewPurchase, NewSale, OpenBlock, PurchaseTx, SaleTx};
use super::{
    corrupt, storable, BlockStatus, PlayerKind, PurchaseRecord, SaleOutcome, SaleRecord,
    SaleRequest, StoreResult,
};
use eldorado_engine::Money;
use std::collections::HashMap;

/// The open block of each (stake, money) line, as far as this batch knows.
pub(super) type OpenBlocks = HashMap<(u64, Money), Option<OpenBlock>>;

/// How the sales of a batch get their tickets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dealing {
    /// The next ticket of the open block, at once: the operator, who
    /// generated the block, knows what each sale gets.
    InOrder,
    /// Bought now; the beacon's `round`, published later, deals them.
    Beacon { round: u64 },
}

/// Runs `requests` in order against `tx`. An `Err` means a savepoint itself
/// failed and the backend must roll the whole batch back: no sale of it
/// happened.
pub fn sell_batch<T: PurchaseTx + ?Sized>(
    tx: &mut T,
    requests: &[SaleRequest],
    now_ms: u64,
    protection: &ProtectionDefaults,
    dealing: Dealing,
) -> StoreResult<Vec<SaleOutcome>> {
    // The open block per stake and money, read once per batch rather than
    // once per sale; `None` is remembered too, so a sold-out line costs no
    // queries.
    let mut open = OpenBlocks::new();
    let mut outcomes = Vec::with_capacity(requests.len());
    for request in requests {
        tx.savepoint()?;
        // A panic is a fault of this sale like an error: the transaction
        // is still usable once its writes are rolled back to the savepoint.
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match dealing {
            Dealing::InOrder => sell_one(tx, &mut open, request, now_ms, protection),
            Dealing::Beacon { round } => buy_one(tx, &mut open, request, now_ms, protection, round),
        }))
        .unwrap_or_else(|_| Err(corrupt("a sale panicked")));
        match result {
            Ok(outcome) => {
                tx.release_savepoint()?;
                outcomes.push(outcome);
            }
            Err(e) => {
                tx.rollback_to_savepoint()?;
                // The cache may hold what the undone sale moved.
                open.clear();
                tracing::error!(error = %e, player = %request.player_id, "one sale failed and was undone");
                outcomes.push(SaleOutcome::Faulted(e.to_string()));
            }
        }
    }
    Ok(outcomes)
}

/// A sale that passed every check, with the ticket it takes.
pub(super) enum Admission {
    /// Answer this without any write.
    Refused(SaleOutcome),
    Admitted {
        kind: PlayerKind,
        balance: u64,
        block: OpenBlock,
        position: u32,
    },
}

/// The checks of every sale (idempotency key, player, balance when the
/// money is held here, a ticket on sale) and the ticket it takes: shared by
/// the internal wallet's sales and the seamless wallet's reservations
/// (`seamless::reserve`, `check_balance` false: the operator checks it).
pub(super) fn admit<T: PurchaseTx + ?Sized>(
    tx: &mut T,
    open: &mut OpenBlocks,
    request: &SaleRequest,
    now_ms: u64,
    protection: &ProtectionDefaults,
    check_balance: bool,
) -> StoreResult<Admission> {
    let stake = request.stake.cents();
    if let Some((sale_id, sale_stake)) =
        tx.sale_by_key(&request.player_id, &request.idempotency_key)?
    {
        if sale_stake != stake {
            return Ok(Admission::Refused(SaleOutcome::KeyConflict));
        }
        return tx
            .sale_by_id(sale_id)?
            .map(|sale| Admission::Refused(SaleOutcome::Replayed(sale)))
            .ok_or_else(|| corrupt("sale without its ticket"));
    }
    // A dealt purchase has its sale, found above under the same key.
    if let Some(purchase) = tx.purchase_by_key(&request.player_id, &request.idempotency_key)? {
        if purchase.stake_cents != stake {
            return Ok(Admission::Refused(SaleOutcome::KeyConflict));
        }
        return Ok(Admission::Refused(SaleOutcome::Bought(purchase)));
    }
    let Some((kind, balance)) = tx.player_for_update(&request.player_id)? else {
        return Ok(Admission::Refused(SaleOutcome::UnknownPlayer));
    };
    // Under the player's lock: the sales of this batch before this one are
    // in the window already, and no other transaction can add one.
    match check_sale(tx, &request.player_id, kind, stake, now_ms, protection)? {
        Some(Refusal::Excluded { until_ms }) => {
            return Ok(Admission::Refused(SaleOutcome::SelfExcluded { until_ms }))
        }
        Some(Refusal::Limit(limit)) => {
            return Ok(Admission::Refused(SaleOutcome::LimitReached(limit)))
        }
        None => {}
    }
    let line = (stake, kind.money());
    if check_balance && balance < stake {
        return Ok(Admission::Refused(SaleOutcome::InsufficientFunds {
            balance_cents: balance,
        }));
    }
    let block = match open.get(&line) {
        Some(block) => *block,
        None => {
            let block = tx.open_block_for_update(stake, kind.money())?;
            open.insert(line, block);
            block
        }
    };
    let Some(block) = block else {
        return Ok(Admission::Refused(SaleOutcome::SoldOut));
    };
    // Every unsold ticket may be held by a seamless-wallet round being paid.
    let Some(position) = next_position(tx, block.block, block.sold, block.tickets)? else {
        return Ok(Admission::Refused(SaleOutcome::SoldOut));
    };
    Ok(Admission::Admitted {
        kind,
        balance,
        block,
        position,
    })
}

fn sell_one<T: PurchaseTx + ?Sized>(
    tx: &mut T,
    open: &mut OpenBlocks,
    request: &SaleRequest,
    now_ms: u64,
    protection: &ProtectionDefaults,
) -> StoreResult<SaleOutcome> {
    let stake = request.stake.cents();
    let admission = admit(tx, open, request, now_ms, protection, true)?;
    let (kind, balance, block, position) = match admission {
        Admission::Refused(outcome) => return Ok(outcome),
        Admission::Admitted {
            kind,
            balance,
            block,
            position,
        } => (kind, balance, block, position),
    };
    let ticket = tx
        .ticket(block.block, position, stake)?
        .ok_or_else(|| corrupt(format!("block {} has no ticket {position}", block.block)))?;
    // No underflow: balance >= stake. The cap keeps every balance storable
    // in a signed 64-bit column, which is what SQL databases offer.
    let after = storable((balance - stake).checked_add(ticket.prize_cents))?;
    tx.set_balance(&request.player_id, after)?;
    let sale_id = tx.insert_sale(&NewSale {
        player_id: &request.player_id,
        idempotency_key: &request.idempotency_key,
        stake_cents: stake,
        block: block.block,
        position,
        prize_cents: ticket.prize_cents,
        grid_count: 1 + ticket.extras,
        sold_at_ms: now_ms,
        client_nonce: request.client_nonce,
        balance_before_cents: balance,
        balance_after_cents: after,
    })?;
    count_sold(tx, open, block, stake, kind)?;
    if ticket.prize_cents > 0 {
        tx.take_prize(block.block, ticket.prize_cents)?;
    }
    Ok(SaleOutcome::Sold(SaleRecord {
        sale_id,
        player_id: request.player_id.clone(),
        block: block.block,
        block_tickets: block.tickets,
        ticket,
        sold_at_ms: now_ms,
        client_nonce: request.client_nonce,
        balance_before_cents: balance,
        balance_after_cents: after,
        revealed: 0,
        // The sequencer logs it after this transaction commits.
        log_index: None,
    }))
}

/// One more ticket of `block` sold or bought; the line switches over to
/// its next block when this was the last.
fn count_sold<T: SaleTx + ?Sized>(
    tx: &mut T,
    open: &mut OpenBlocks,
    block: OpenBlock,
    stake: u64,
    kind: PlayerKind,
) -> StoreResult<()> {
    let line = (stake, kind.money());
    // A count, not a position: a released ticket may be sold after later ones.
    let sold = block.sold + 1;
    if sold == block.tickets {
        tx.set_block_sold(block.block, sold, BlockStatus::SoldOut)?;
        open_next(tx, stake, kind.money())?;
        // The next sale of this line reads whichever block opened.
        open.remove(&line);
    } else {
        tx.set_block_sold(block.block, sold, BlockStatus::Open)?;
        open.insert(line, Some(OpenBlock { sold, ..block }));
    }
    Ok(())
}

/// A purchase: checked and debited like a sale, counted against its
/// block, but with no position yet: `round` will deal it.
fn buy_one<T: PurchaseTx + ?Sized>(
    tx: &mut T,
    open: &mut OpenBlocks,
    request: &SaleRequest,
    now_ms: u64,
    protection: &ProtectionDefaults,
    round: u64,
) -> StoreResult<SaleOutcome> {
    let stake = request.stake.cents();
    let (kind, balance, block) = match admit(tx, open, request, now_ms, protection, true)? {
        Admission::Refused(outcome) => return Ok(outcome),
        Admission::Admitted {
            kind,
            balance,
            block,
            ..
        } => (kind, balance, block),
    };
    // No underflow: admitted, so balance >= stake.
    let after = balance - stake;
    tx.set_balance(&request.player_id, after)?;
    let purchase = NewPurchase {
        player_id: &request.player_id,
        idempotency_key: &request.idempotency_key,
        stake_cents: stake,
        block: block.block,
        bought_at_ms: now_ms,
        client_nonce: request.client_nonce,
        round,
        balance_before_cents: balance,
        balance_after_cents: after,
    };
    let purchase_id = tx.insert_purchase(&purchase)?;
    count_sold(tx, open, block, stake, kind)?;
    Ok(SaleOutcome::Bought(PurchaseRecord {
        purchase_id,
        player_id: request.player_id.clone(),
        idempotency_key: request.idempotency_key.clone(),
        block: block.block,
        block_tickets: block.tickets,
        stake_cents: stake,
        bought_at_ms: now_ms,
        client_nonce: request.client_nonce,
        round,
        balance_before_cents: balance,
        balance_after_cents: after,
        log_index: None,
        sale_id: None,
        deal_proof: None,
        round_signature: None,
        dealt_round: None,
    }))
}

/// The ticket a sale of `block` takes: the lowest released one (a seamless
/// round given back), else the first never reserved; `None` while every
/// unsold ticket is reserved.
pub fn next_position<T: SaleTx + ?Sized>(
    tx: &mut T,
    block: u64,
    sold: u32,
    tickets: u32,
) -> StoreResult<Option<u32>> {
    if let Some(position) = tx.take_free_ticket(block)? {
        return Ok(Some(position));
    }
    // With no released ticket, the taken ones are exactly the sold and the
    // reserved: the first free position follows them.
    let taken = sold
        .checked_add(tx.reserved_tickets(block)?)
        .ok_or_else(|| corrupt("ticket count overflow"))?;
    Ok((taken < tickets).then_some(taken))
}
