//! `GET /api/config`: what the page needs before the first sale. Every figure
//! is computed by the engine on the server; the page only displays it.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(examples(crate::examples::config)))]
pub struct Config {
    pub stakes_cents: Vec<u64>,
    /// The operator's Ed25519 key (64 hex digits) that signs commitments and sales.
    pub public_key: String,
    pub rtp_basis_points: u64,
    pub odds: Odds,
    /// Keyed by the stake in cents written as a decimal string (JSON keys are strings).
    pub max_win_cents: BTreeMap<String, u64>,
    /// SPEC §2, rank 1 first.
    pub prize_table: Vec<PrizeRow>,
    pub demo: bool,
    pub starting_balance_cents: u64,
    /// The http(s) origins of `--frame-ancestors`: the only windows the page
    /// posts its events to, and the only ones whose messages it accepts.
    #[serde(default)]
    pub portal_origins: Vec<String>,
}

impl Config {
    pub fn max_win_for(&self, stake_cents: u64) -> Option<u64> {
        self.max_win_cents.get(&stake_cents.to_string()).copied()
    }
}

/// One winning ticket in `tickets / winners`, as an exact fraction.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Odds {
    pub tickets: u64,
    pub winners: u64,
}

/// One rank of the prize table; `multiple` and the line amounts are in stakes.
// Wider than the engine's u32 so the page multiplies by a stake in cents
// without a conversion at each use.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PrizeRow {
    pub rank: u8,
    pub multiple: u64,
    pub count: u64,
    pub direct: u64,
    pub via_extras: u64,
    /// The allowed winning-line amounts of this rank, each largest first.
    pub decompositions: Vec<Vec<u64>>,
}
