//! `GET /api/operator/reports/daily?from=YYYY-MM-DD&to=YYYY-MM-DD`: what
//! was sold per day (UTC), stake and money, and how each block that
//! finished in those days paid out against the rules' prize table.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(examples(crate::examples::daily_report)))]
pub struct DailyReport {
    /// The first day, `YYYY-MM-DD` (UTC).
    pub from: String,
    /// The last day, included.
    pub to: String,
    /// One row per day, stake and money that sold at least one ticket.
    pub days: Vec<DailyRow>,
    /// Every sold-out or closed block whose last sale fell in these days.
    pub blocks: Vec<BlockPayout>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DailyRow {
    pub day: String,
    pub stake_cents: u64,
    /// `real` or `play`.
    pub money: String,
    pub tickets: u64,
    pub stakes_cents: u64,
    pub prizes_cents: u64,
    /// Gross gaming revenue: stakes less prizes (negative on a lucky day).
    pub ggr_cents: i64,
    /// Prizes per stake, in basis points (the rules: 7,000 over a block).
    pub rtp_basis_points: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BlockPayout {
    pub block: u64,
    pub stake_cents: u64,
    pub money: String,
    /// `sold_out` or `closed`.
    pub status: String,
    pub sold: u32,
    /// Per rank of the rules, rank 1 first.
    pub ranks: Vec<RankPayout>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RankPayout {
    pub rank: u8,
    pub prize_cents: u64,
    /// Winning tickets of this rank in a block, as the rules say.
    pub in_rules: u32,
    /// Winning tickets of this rank sold from the block (all of them once
    /// it is sold out; fewer if it was closed early).
    pub sold: u32,
}
