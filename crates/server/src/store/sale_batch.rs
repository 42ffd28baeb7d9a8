//! The sale rules, for every backend: a batch of sales runs in order inside
//! one transaction that the backend commits once (group commit). Each sale
//! is replayed, refused without any write, or checked, debited, given the
//! next ticket of its stake's open block, credited and recorded.
//!
//! Each sale runs under its own savepoint: a sale that fails (a store error,
//! corrupt data, even a panic) is undone alone and answered `Faulted`, and
//! the other sales of the batch still commit.

use super::switch_over::open_next;
use super::tx::{NewSale, OpenBlock, SaleTx};
use super::{corrupt, BlockStatus, SaleOutcome, SaleRecord, SaleRequest, StoreResult};
use std::collections::HashMap;

/// Runs `requests` in order against `tx`. An `Err` means a savepoint itself
/// failed and the backend must roll the whole batch back: no sale of it
/// happened.
pub fn sell_batch<T: SaleTx + ?Sized>(
    tx: &mut T,
    requests: &[SaleRequest],
    now_ms: u64,
) -> StoreResult<Vec<SaleOutcome>> {
    // The open block per stake, read once per batch rather than once per
    // sale; `None` is remembered too, so a sold-out stake costs no queries.
    let mut open: HashMap<u64, Option<OpenBlock>> = HashMap::new();
    let mut outcomes = Vec::with_capacity(requests.len());
    for request in requests {
        tx.savepoint()?;
        // A panic is a fault of this sale like an error: the transaction
        // is still usable once its writes are rolled back to the savepoint.
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            sell_one(tx, &mut open, request, now_ms)
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

fn sell_one<T: SaleTx + ?Sized>(
    tx: &mut T,
    open: &mut HashMap<u64, Option<OpenBlock>>,
    request: &SaleRequest,
    now_ms: u64,
) -> StoreResult<SaleOutcome> {
    let stake = request.stake.cents();
    if let Some((sale_id, sale_stake)) =
        tx.sale_by_key(&request.player_id, &request.idempotency_key)?
    {
        if sale_stake != stake {
            return Ok(SaleOutcome::KeyConflict);
        }
        return tx
            .sale_by_id(sale_id)?
            .map(SaleOutcome::Replayed)
            .ok_or_else(|| corrupt("sale without its ticket"));
    }
    let Some((_, balance)) = tx.player_for_update(&request.player_id)? else {
        return Ok(SaleOutcome::UnknownPlayer);
    };
    if balance < stake {
        return Ok(SaleOutcome::InsufficientFunds {
            balance_cents: balance,
        });
    }
    let block = match open.get(&stake) {
        Some(block) => *block,
        None => {
            let block = tx.open_block_for_update(stake)?;
            open.insert(stake, block);
            block
        }
    };
    let Some(block) = block else {
        return Ok(SaleOutcome::SoldOut);
    };
    let position = block.sold;
    let ticket = tx
        .ticket(block.block, position, stake)?
        .ok_or_else(|| corrupt(format!("block {} has no ticket {position}", block.block)))?;
    // No underflow: balance >= stake. The cap keeps every balance storable
    // in a signed 64-bit column, which is what SQL databases offer.
    let after = (balance - stake)
        .checked_add(ticket.prize_cents)
        .filter(|b| i64::try_from(*b).is_ok())
        .ok_or_else(|| corrupt("balance overflow"))?;
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
        balance_before_cents: balance,
        balance_after_cents: after,
    })?;
    let sold = position + 1;
    if sold == block.tickets {
        tx.set_block_sold(block.block, sold, BlockStatus::SoldOut)?;
        open_next(tx, stake)?;
        // The next sale of this stake reads whichever block opened.
        open.remove(&stake);
    } else {
        tx.set_block_sold(block.block, sold, BlockStatus::Open)?;
        open.insert(stake, Some(OpenBlock { sold, ..block }));
    }
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
        balance_before_cents: balance,
        balance_after_cents: after,
        revealed: 0,
    }))
}
