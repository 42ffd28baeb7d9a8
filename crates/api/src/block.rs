//! `GET /api/blocks` and `GET /api/blocks/{block}`: committed blocks, and,
//! for finished blocks only, how many prizes of each rank were left. A block
//! still on sale (or pending) says nothing of what it holds: near its end,
//! the count of prizes left would tell a buyer when its tail pays more than
//! it costs, and with one ticket left, exactly what that ticket wins.

use eldorado_engine::SignedCommitment;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum BlockStatus {
    /// On sale now (one per stake).
    Open,
    /// Committed, next in line.
    Pending,
    SoldOut,
    /// Closed by the operator before selling out.
    Closed,
}

impl BlockStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            BlockStatus::Open => "open",
            BlockStatus::Pending => "pending",
            BlockStatus::SoldOut => "sold_out",
            BlockStatus::Closed => "closed",
        }
    }
}

/// Code written against the wire names (`status == "open"`) keeps working.
impl PartialEq<&str> for BlockStatus {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(examples(crate::examples::block_info)))]
pub struct BlockInfo {
    #[cfg_attr(feature = "openapi", schema(value_type = crate::schema::SignedCommitmentSchema))]
    pub commitment: SignedCommitment,
    pub status: BlockStatus,
    /// The commitment's record in the public log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_index: Option<u64>,
    /// Tickets sold: only for a sold-out or closed block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sold: Option<u32>,
    /// Prizes left unsold, one entry per rank, rank 1 first: only for a
    /// sold-out or closed block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remaining_by_rank: Option<Vec<RankRemaining>>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RankRemaining {
    pub rank: u8,
    pub remaining: u32,
}

/// Every open and pending block, and the most recent finished ones per stake.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(examples(crate::examples::block_list)))]
pub struct BlockList {
    pub blocks: Vec<BlockInfo>,
}
