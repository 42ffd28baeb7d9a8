//! The operator's transfer wallet: credits and debits of its players.

use serde::{Deserialize, Serialize};

/// `POST /api/operator/players/{player_id}/credit|debit`. A reference is
/// applied once per player: the same transfer again changes nothing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "openapi",
    schema(examples(crate::examples::transfer_request))
)]
pub struct TransferRequest {
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 100_000_000))]
    pub amount_cents: u64,
    /// The operator's id of this transfer.
    #[cfg_attr(feature = "openapi", schema(pattern = "^[A-Za-z0-9_.:-]{1,64}$"))]
    pub reference: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(examples(crate::examples::balance)))]
pub struct Balance {
    pub player_id: String,
    pub balance_cents: u64,
}
