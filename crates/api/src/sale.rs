//! Buying a ticket and reporting how far its reveal went.

use eldorado_engine::{ClientNonce, Hash, SignedCommitment, SignedSale};
use serde::{Deserialize, Serialize};

/// A signed sale with the commitment of its block: all the page needs to
/// verify the ticket before showing it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(examples(crate::examples::sale_response)))]
pub struct SaleResponse {
    #[cfg_attr(feature = "openapi", schema(value_type = crate::schema::SignedSaleSchema))]
    pub sale: SignedSale,
    #[cfg_attr(feature = "openapi", schema(value_type = crate::schema::SignedCommitmentSchema))]
    pub commitment: SignedCommitment,
    pub balance_before_cents: u64,
    /// `balance_before_cents - stake + prize`: the sale is settled at once.
    pub balance_after_cents: u64,
    /// Grids fully revealed so far (0..=1+extras).
    pub revealed: u8,
    /// Whether every grid, main and Extras, is revealed.
    pub complete: bool,
    /// The sale's record in the public log (`None` on receipts from before
    /// the log).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_index: Option<u64>,
    /// How the beacon dealt it, on a server that deals by a beacon.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deal: Option<DealEvidence>,
}

/// How a sale dealt by the beacon got its position (docs/PROTOCOL.md §10):
/// with the beacon's key, everything its buyer needs to check the deal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DealEvidence {
    /// The purchase's record in the public log: its signed message, then
    /// the operator's signature, in lowercase hex. It names the round.
    pub purchase: String,
    pub purchase_log_index: u64,
    /// The round that dealt it: the one the purchase names, or a later
    /// one when the witnesses proved the purchase on the record too late
    /// for it (docs/PROTOCOL.md §10). Absent on evidence from before late
    /// purchases were dealt so: the purchase's round.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<u64>,
    /// The round's BLS signature (48 bytes, hex); the round's randomness
    /// is its SHA-256.
    pub round_signature: String,
    /// The unsold tree's root before the deal.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub unsold_root: Hash,
    /// The dealt position's siblings, leaf level first.
    pub siblings: Vec<UnsoldNode>,
}

impl DealEvidence {
    /// The purchase's leaf, the round that dealt it, the round's
    /// signature and the proof of `position` in a block of `tickets`, as
    /// the engine checks them (`eldorado_engine::deal::verify_evidence`);
    /// `None` unless the hex reads.
    pub fn parts(&self, tickets: u32, position: u32) -> Option<eldorado_engine::deal::DealParts> {
        let leaf = hex::decode(&self.purchase).ok()?;
        let signature = hex::decode(&self.round_signature).ok()?.try_into().ok()?;
        let proof = eldorado_engine::deal::DealProof {
            leaves: tickets,
            before: self.unsold_root,
            position,
            siblings: self
                .siblings
                .iter()
                .map(|n| eldorado_engine::deal::Node {
                    hash: n.hash,
                    count: n.count,
                })
                .collect(),
        };
        Some(eldorado_engine::deal::DealParts {
            purchase_leaf: leaf,
            round: self.round,
            round_signature: signature,
            proof,
        })
    }
}

/// One node of the unsold tree: its hash and how many unsold positions
/// lie under it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct UnsoldNode {
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub hash: Hash,
    pub count: u32,
}

impl SaleResponse {
    pub fn sale_id(&self) -> u64 {
        self.sale.sale.sale_id
    }
}

/// `POST /api/sales`. Retrying with the same key returns the same sale.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(examples(crate::examples::buy_request)))]
pub struct BuyRequest {
    /// 50, 100 or 200; any other number is `INVALID_STAKE`.
    #[cfg_attr(feature = "openapi", schema(schema_with = crate::schema::stake_cents))]
    pub stake_cents: u64,
    /// Scoped to the player.
    #[cfg_attr(feature = "openapi", schema(pattern = "^[A-Za-z0-9_-]{8,64}$"))]
    pub idempotency_key: String,
    /// A fresh 128-bit random number (32 lowercase hex digits), signed back
    /// into the sale so that no other sale can pass for this purchase's
    /// answer. Optional for API clients, who then get 16 zero bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "openapi",
        schema(value_type = Option<String>, pattern = "^[0-9a-f]{32}$")
    )]
    pub client_nonce: Option<ClientNonce>,
}

/// `POST /api/sales/{sale_id}/reveal`: grids fully revealed, `0..=1+extras`.
/// Progress never decreases: a lower count keeps the stored one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(examples(crate::examples::reveal_request)))]
pub struct RevealRequest {
    #[cfg_attr(feature = "openapi", schema(maximum = 4))]
    pub revealed: u8,
}

/// The progress the server stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(examples(crate::examples::reveal_ack)))]
pub struct RevealAck {
    pub sale_id: u64,
    pub revealed: u8,
    pub complete: bool,
}
