//! A randomness beacon's HTTP answers (`eldorado beacon`), in the shape of
//! drand's v1 HTTP API so that a client reads a drand relay the same way:
//! `GET /info` and `GET /public/latest` or `/public/{round}`.

use serde::{Deserialize, Serialize};

/// `GET /info`: what a verifier pins.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BeaconInfo {
    /// The compressed G2 public key, 96 bytes in lowercase hex.
    pub public_key: String,
    /// Always `bls-unchained-g1-rfc9380`.
    #[serde(rename = "schemeID")]
    pub scheme_id: String,
    /// When round 1 is published, in milliseconds since the Unix epoch
    /// (drand's `genesis_time` is in seconds; this beacon's periods are
    /// shorter than one).
    pub genesis_time_ms: u64,
    /// Milliseconds between two rounds.
    pub period_ms: u64,
}

/// `GET /public/{round}`: one published round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BeaconRound {
    pub round: u64,
    /// `SHA-256(signature)`, 32 bytes in lowercase hex.
    pub randomness: String,
    /// The compressed G1 signature, 48 bytes in lowercase hex.
    pub signature: String,
}

/// `GET /api/config` `.dealing`: the beacon a server deals every sale
/// from (`eldorado serve --beacon`), for the page and the auditor.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Dealing {
    /// The beacon's base URL as the server reaches it.
    pub beacon_url: String,
    /// The beacon's public key the operator pinned (96 bytes in hex).
    pub public_key: String,
    pub genesis_time_ms: u64,
    pub period_ms: u64,
    /// A purchase is dealt by the first round published at least this many
    /// milliseconds after it.
    pub lead_ms: u64,
}
