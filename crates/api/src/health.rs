//! `GET /api/health`: whether the server can sell right now.

use serde::{Deserialize, Serialize};

/// 200 with `status: "ok"` only while the sale writer and the block
/// generator run, the store answers and holds the public record its
/// witnesses cosigned; 503 with `status: "unavailable"`
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
    /// With a seamless wallet (`--wallet`): the prize credits and rollbacks
    /// the operator has not acknowledged yet, as the outbox worker's last
    /// pass left them. A backlog does not make the server unavailable: sales
    /// go on while the outbox retries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wallet_outbox: Option<OutboxHealth>,
    /// Present when this server's database does not hold the public
    /// record its witnesses cosigned: the size they cosigned. The server
    /// is then unavailable and sells nothing (`RECORD_BEHIND`) until the
    /// operator restores a newer copy of its database.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record_behind: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct OutboxHealth {
    /// Items waiting (at most `--wallet-outbox-scan` counted).
    pub backlog: u64,
    /// Age of the oldest of them, in milliseconds (0 when none).
    pub oldest_age_ms: u64,
    /// The most failed attempts of one of them.
    pub most_attempts: u32,
    /// Calls the wallet answered 409 (a transaction id it holds with
    /// another body): never sent again, each waits for a person. Alert on
    /// any.
    pub given_up: u64,
}
