//! Which blocks of a stake are on sale: at most `--open-blocks-per-line`
//! open blocks per stake and money (play or real), and when one sells out
//! or is closed the oldest pending one of the same stake and money takes
//! its place. A play-money block never stands in for a real-money one, nor
//! the other way round.

use super::tx::{BlockTx, TicketPoolTx};
use super::{BlockStatus, StoreResult};
use eldorado_engine::Money;

/// Opens the oldest pending block of the stake and money, if there is one.
pub fn open_next<T: BlockTx + ?Sized>(
    tx: &mut T,
    stake_cents: u64,
    money: Money,
) -> StoreResult<()> {
    if let Some(next) = tx.oldest_pending_block(stake_cents, money)? {
        tx.set_block_status(next, BlockStatus::Open)?;
    }
    Ok(())
}

/// A block whose tickets are all stored goes on sale at once when its stake
/// has fewer than `open_per_line` blocks of its money on sale, else it
/// waits its turn.
pub fn admit_new_block<T: BlockTx + ?Sized>(
    tx: &mut T,
    block: u64,
    stake_cents: u64,
    money: Money,
    open_per_line: u32,
) -> StoreResult<BlockStatus> {
    let status = if tx.open_blocks_for_update(stake_cents, money)? < open_per_line {
        BlockStatus::Open
    } else {
        BlockStatus::Pending
    };
    tx.set_block_status(block, status)?;
    Ok(status)
}

/// Closes an open or pending block; a finished block stays as it is, and
/// so does a block whose tickets a seamless-wallet round holds (its sale
/// may still complete: the block must not be disclosed before). False if
/// there is no such committed block.
pub fn close<T: BlockTx + TicketPoolTx + ?Sized>(tx: &mut T, block: u64) -> StoreResult<bool> {
    let Some((status, stake_cents, money)) = tx.block_status_for_update(block)? else {
        return Ok(false);
    };
    if tx.reserved_tickets(block)? > 0 {
        return Ok(true);
    }
    match status {
        BlockStatus::Open => {
            tx.set_block_status(block, BlockStatus::Closed)?;
            open_next(tx, stake_cents, money)?;
        }
        BlockStatus::Pending => tx.set_block_status(block, BlockStatus::Closed)?,
        BlockStatus::SoldOut | BlockStatus::Closed => {}
    }
    Ok(true)
}
