//! `GET /api/health`: whether the server can sell right now.

use serde::{Deserialize, Serialize};

/// 200 with `status: "ok"` only while the sale writer and the block
/// generator run and the store answers; 503 with `status: "unavailable"`
/// and the failing part(s) `false` otherwise.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(examples(crate::examples::health)))]
pub struct Health {
    #[cfg_attr(feature = "openapi", schema(pattern = "^(ok|unavailable)$"))]
    pub status: String,
    /// The sale writer thread is running.
    pub sale_writer: bool,
    /// The block generator has not failed since its last success.
    pub block_generator: bool,
    /// The store answered a query just now.
    pub store: bool,
}
