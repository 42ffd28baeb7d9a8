//! Response bodies of docs/PROTOCOL.md (Part II). Engine types keep their engine
//! serde form; nothing is serialized by hand.

use crate::store::{BlockRecord, BlockStatus, SaleRecord};
use eldorado_engine::prize_table::RANKS;
use eldorado_engine::{SignedCommitment, SignedSale};
use serde::Serialize;

#[derive(Serialize)]
pub struct SessionBody {
    pub token: String,
    pub player_id: String,
    pub balance_cents: u64,
    pub expires_at_ms: u64,
    pub unrevealed: Option<SaleBody>,
}

#[derive(Serialize)]
pub struct SaleBody {
    pub sale: SignedSale,
    pub commitment: SignedCommitment,
    pub balance_before_cents: u64,
    pub balance_after_cents: u64,
    pub revealed: u8,
    /// Added: true once every grid (main and Extras) is revealed.
    pub complete: bool,
}

#[derive(Serialize)]
pub struct RevealBody {
    pub sale_id: u64,
    pub revealed: u8,
    pub complete: bool,
}

#[derive(Serialize)]
pub struct HistoryItem {
    pub sale_id: u64,
    pub block: u64,
    pub position: u32,
    pub sold_at_ms: u64,
    pub stake_cents: u64,
    pub prize_cents: u64,
    pub extras: u8,
    pub status: &'static str,
    /// Added: grids revealed so far.
    pub revealed: u8,
}

impl From<&SaleRecord> for HistoryItem {
    fn from(r: &SaleRecord) -> HistoryItem {
        HistoryItem {
            sale_id: r.sale_id,
            block: r.block,
            position: r.ticket.position,
            sold_at_ms: r.sold_at_ms,
            stake_cents: r.ticket.stake_cents,
            prize_cents: r.ticket.prize_cents,
            extras: r.ticket.extras,
            status: if r.is_complete() {
                "revealed"
            } else {
                "unrevealed"
            },
            revealed: r.revealed,
        }
    }
}

#[derive(Serialize)]
pub struct HistoryBody {
    pub items: Vec<HistoryItem>,
    pub next_before: Option<u64>,
}

#[derive(Serialize)]
pub struct RankRemaining {
    pub rank: u8,
    pub remaining: u32,
}

#[derive(Serialize)]
pub struct BlockInfo {
    pub commitment: SignedCommitment,
    pub status: BlockStatus,
    pub sold: u32,
    pub remaining_by_rank: Vec<RankRemaining>,
}

impl From<BlockRecord> for BlockInfo {
    fn from(record: BlockRecord) -> BlockInfo {
        let stake = record.stake_cents();
        let remaining_by_rank = RANKS
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
            status: record.status,
            sold: record.sold,
            remaining_by_rank,
        }
    }
}

#[derive(Serialize)]
pub struct BlocksBody {
    pub blocks: Vec<BlockInfo>,
}

#[derive(Serialize)]
pub struct BalanceBody {
    pub player_id: String,
    pub balance_cents: u64,
}
