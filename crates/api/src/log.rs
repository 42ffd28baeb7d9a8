//! The public record (docs/PROTOCOL.md, "The public record"): the log's
//! proofs and leaves, the witnesses' cosignatures, and a receipt that
//! carries its own proof. Checkpoints themselves travel as C2SP signed
//! notes (`text/plain`), not JSON.

use crate::sale::SaleResponse;
use eldorado_engine::Hash;
use serde::{Deserialize, Serialize};

/// How the page and the witnesses find and check the log: announced by
/// `GET /api/config`, pinned by the page like the operator key.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LogConfig {
    /// The checkpoints' origin line.
    pub origin: String,
    /// The log's signed-note verifier key (`<origin>+<id>+<base64>`,
    /// algorithm 0x01: the operator key).
    pub key: String,
    /// The witnesses' cosignature verifier keys (algorithm 0x04).
    pub witnesses: Vec<String>,
    /// How many of `witnesses` must cosign a checkpoint the page trusts.
    pub quorum: u32,
}

/// `GET /api/log/proof/inclusion?index=I&size=N`: record `index` is in the
/// tree of `size` records (RFC 9162 audit path, leaf's sibling first).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "openapi",
    schema(examples(crate::examples::inclusion_proof))
)]
pub struct InclusionProof {
    pub index: u64,
    pub size: u64,
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<String>))]
    pub hashes: Vec<Hash>,
}

/// `GET /api/log/proof/consistency?from=M&size=N`: the tree of `from`
/// records is a prefix of the tree of `size` records.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "openapi",
    schema(examples(crate::examples::consistency_proof))
)]
pub struct ConsistencyProof {
    pub from: u64,
    pub size: u64,
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<String>))]
    pub hashes: Vec<Hash>,
}

/// `GET /api/log/leaves?start=S&end=E`: records `start..end` of the log,
/// each the leaf's bytes in lowercase hex (at most `--log-leaves-per-page`
/// per answer; fewer when the tree is smaller).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(examples(crate::examples::log_leaves)))]
pub struct LogLeaves {
    pub start: u64,
    pub leaves: Vec<String>,
}

/// `GET /api/log/page`: the page this server serves, file by file, and
/// the build's fingerprint (docs/PROTOCOL.md §9, "The page on the
/// record"), which a page record of the log must hold.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(examples(crate::examples::page_listing)))]
pub struct PageListing {
    /// SHA-256 of the listing, in lowercase hex.
    pub fingerprint: String,
    /// Each served file's path under the web root (`/` serves
    /// `www/pkg/index.html`) and the SHA-256 of its bytes, in lowercase hex.
    pub files: std::collections::BTreeMap<String, String>,
}

/// `POST /api/log/cosignatures`: a witness hands the log its cosignature
/// of a checkpoint it fetched.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "openapi",
    schema(examples(crate::examples::cosignature_submission))
)]
pub struct CosignatureSubmission {
    /// The signed note exactly as the witness fetched it.
    pub checkpoint: String,
    /// The witness's signature line (`— <name> <base64>\n`).
    pub cosignature: String,
}

/// `GET /cosignatures?after=N` of `eldorado witness --listen`: what the
/// witness cosigned, oldest first, from the first checkpoint larger than
/// `N` records, at most 256 of them. Each is the checkpoint as the log
/// signed it and the witness's line, as it first made it: anyone can
/// tell from them when the witness first vouched for a record, whatever
/// the log serves.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WitnessCosignatures {
    /// The size the witness had cosigned when it began publishing: the
    /// first cosignature of a record below it is not published.
    #[serde(default)]
    pub since: u64,
    pub cosignatures: Vec<CosignatureSubmission>,
}

/// A receipt that proves itself: the sale as answered, its record's
/// inclusion proof, and the cosigned checkpoint the proof leads to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LoggedReceipt {
    pub sale: SaleResponse,
    pub inclusion: InclusionProof,
    /// The signed note the proof leads to.
    pub checkpoint: String,
    /// For a sale dealt by the beacon: when its purchase was proved on
    /// the record, which settles the round that dealt it
    /// (docs/PROTOCOL.md §10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub purchase: Option<PurchaseOnRecord>,
}

/// The first checkpoint the quorum of witnesses cosigned holding a
/// purchase (its cosignatures dated), and the purchase's proof in it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PurchaseOnRecord {
    pub inclusion: InclusionProof,
    /// The signed note, with the witnesses' cosignatures.
    pub checkpoint: String,
}
