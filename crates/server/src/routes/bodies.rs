//! Store records into the response types of `eldorado_api`. The types
//! themselves live in that crate, shared with the page and the tests.

use crate::store::{self, BlockRecord, SaleRecord};
use eldorado_api::{BlockInfo, BlockStatus, HistoryItem, RankRemaining, SaleStatus};
use eldorado_engine::prize_table::RANKS;

pub fn history_item(r: &SaleRecord) -> HistoryItem {
    HistoryItem {
        sale_id: r.sale_id,
        block: r.block,
        position: r.ticket.position,
        sold_at_ms: r.sold_at_ms,
        stake_cents: r.ticket.stake_cents,
        prize_cents: r.ticket.prize_cents,
        extras: r.ticket.extras,
        status: if r.is_complete() {
            SaleStatus::Revealed
        } else {
            SaleStatus::Unrevealed
        },
        revealed: r.revealed,
    }
}

pub fn block_status(status: store::BlockStatus) -> BlockStatus {
    match status {
        store::BlockStatus::Open => BlockStatus::Open,
        store::BlockStatus::Pending => BlockStatus::Pending,
        store::BlockStatus::SoldOut => BlockStatus::SoldOut,
        store::BlockStatus::Closed => BlockStatus::Closed,
    }
}

pub fn block_info(record: BlockRecord) -> BlockInfo {
    let stake = record.stake_cents();
    // The store counts by prize; the page shows ranks, each with its own prize.
    // Only a finished block says what was sold and what is left: on a block
    // still selling, those counts would price its unsold tail.
    let finished = record.is_disclosable();
    let remaining_by_rank: Vec<RankRemaining> = RANKS
        .iter()
        .map(|rank| RankRemaining {
            rank: rank.rank,
            remaining: record
                .remaining_by_prize
                .iter()
                .find(|(prize, _)| *prize == u64::from(rank.multiple) * stake)
                .map_or(0, |(_, n)| *n),
        })
        .collect();
    BlockInfo {
        commitment: record.signed,
        status: block_status(record.status),
        log_index: record.log_index,
        sold: finished.then_some(record.sold),
        remaining_by_rank: finished.then_some(remaining_by_rank),
    }
}
