//! The JSON shapes of docs/PROTOCOL.md (Part II). Signed objects are the engine's
//! own serde types, never re-declared here.

use eldorado_engine::{SignedCommitment, SignedSale};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Config {
    pub stakes_cents: Vec<u64>,
    pub public_key: String,
    pub rtp_basis_points: u64,
    pub odds: Odds,
    pub max_win_cents: BTreeMap<String, u64>,
    pub prize_table: Vec<PrizeRow>,
    #[serde(default)]
    pub demo: bool,
    #[serde(default)]
    pub starting_balance_cents: u64,
}

impl Config {
    pub fn max_win_for(&self, stake_cents: u64) -> Option<u64> {
        self.max_win_cents.get(&stake_cents.to_string()).copied()
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Odds {
    pub tickets: u64,
    pub winners: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrizeRow {
    pub rank: u8,
    pub multiple: u64,
    pub count: u64,
    pub direct: u64,
    pub via_extras: u64,
    #[serde(default)]
    pub decompositions: Vec<Vec<u64>>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Session {
    pub token: String,
    pub player_id: String,
    pub balance_cents: u64,
    #[serde(default)]
    pub expires_at_ms: u64,
    #[serde(default)]
    pub unrevealed: Option<SaleResponse>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SaleResponse {
    pub sale: SignedSale,
    pub commitment: SignedCommitment,
    pub balance_before_cents: u64,
    pub balance_after_cents: u64,
    #[serde(default)]
    pub revealed: u32,
}

impl SaleResponse {
    pub fn sale_id(&self) -> u64 {
        self.sale.sale.sale_id
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuyRequest {
    pub stake_cents: u64,
    pub idempotency_key: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RevealRequest {
    pub revealed: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RevealAck {
    pub sale_id: u64,
    pub revealed: u32,
    pub complete: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryItem {
    pub sale_id: u64,
    pub block: u64,
    pub position: u32,
    pub sold_at_ms: u64,
    pub stake_cents: u64,
    pub prize_cents: u64,
    pub extras: u8,
    pub status: String,
}

impl HistoryItem {
    pub fn is_revealed(&self) -> bool {
        self.status == "revealed"
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryPage {
    pub items: Vec<HistoryItem>,
    #[serde(default)]
    pub next_before: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockInfo {
    pub commitment: SignedCommitment,
    pub status: String,
    pub sold: u64,
    #[serde(default)]
    pub remaining_by_rank: Vec<RankRemaining>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RankRemaining {
    pub rank: u8,
    pub remaining: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockList {
    pub blocks: Vec<BlockInfo>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorDetail {
    pub code: String,
    #[serde(default)]
    pub message: String,
}

/// Why a request gave no usable answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetError {
    /// No answer within the time limit; the request may or may not have landed.
    Timeout,
    /// The request never completed (offline, refused, CORS).
    Network,
    /// The server answered with an error of the contract.
    Api { status: u16, code: String },
    /// The server answered something that is not the contract's shape.
    Decode,
}

impl NetError {
    /// Whether the purchase certainly did not happen, so its idempotency key
    /// can be dropped: a definite refusal of the request itself.
    pub fn is_definite_refusal(&self) -> bool {
        matches!(self, NetError::Api { status, .. } if (400..500).contains(status) && *status != 408 && *status != 429)
    }
}
