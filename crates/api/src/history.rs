//! `GET /api/history`: the player's tickets, newest first, without the
//! signed sale (that is `GET /api/sales/{sale_id}`).

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum SaleStatus {
    Revealed,
    Unrevealed,
}

impl SaleStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            SaleStatus::Revealed => "revealed",
            SaleStatus::Unrevealed => "unrevealed",
        }
    }
}

/// Code written against the wire names (`status == "revealed"`) keeps working.
impl PartialEq<&str> for SaleStatus {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(examples(crate::examples::history_item)))]
pub struct HistoryItem {
    pub sale_id: u64,
    pub block: u64,
    pub position: u32,
    pub sold_at_ms: u64,
    pub stake_cents: u64,
    pub prize_cents: u64,
    pub extras: u8,
    /// `revealed` once every grid is revealed.
    pub status: SaleStatus,
    /// Grids revealed so far.
    pub revealed: u8,
}

impl HistoryItem {
    pub fn is_revealed(&self) -> bool {
        self.status == SaleStatus::Revealed
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(examples(crate::examples::history_page)))]
pub struct HistoryPage {
    pub items: Vec<HistoryItem>,
    /// The `before` of the next page; null on the last page.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub next_before: Option<u64>,
}
