//! Sessions: a demo player's, or one the operator opens for its player.

use crate::protection::Protection;
use crate::sale::SaleResponse;
use eldorado_engine::Money;
use serde::{Deserialize, Serialize};

/// The answer of `POST /api/demo/players`, `GET /api/session` and
/// `POST /api/operator/sessions`
/// and `POST /api/launch`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(examples(crate::examples::session)))]
pub struct Session {
    /// Bearer token: 64 hex digits, valid 24 h.
    pub token: String,
    pub player_id: String,
    pub balance_cents: u64,
    /// When the session was opened (ms since the Unix epoch): the page's
    /// session clock and reality check count from here, across reloads.
    pub started_at_ms: u64,
    pub expires_at_ms: u64,
    /// `"play"` for a demo player (play-money blocks only), `"real"` for an
    /// operator's player.
    #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = "^(real|play)$"))]
    pub money: Money,
    /// The player's oldest ticket not fully revealed, so the page can offer to finish it.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub unrevealed: Option<SaleResponse>,
    /// The player's limits, exclusion and reality-check period.
    pub protection: Protection,
    /// The portal's lobby, for the page's « Lobby » link: set when the
    /// session came from a launch link that named one, absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lobby_url: Option<String>,
}

/// `POST /api/demo/players` takes `{}` (or an empty body).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "openapi",
    schema(examples(crate::examples::demo_player_request))
)]
#[serde(deny_unknown_fields)]
pub struct DemoPlayerRequest {}

/// `POST /api/operator/sessions`: the player is created (balance 0) if new.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "openapi",
    schema(examples(crate::examples::operator_session_request))
)]
pub struct OperatorSessionRequest {
    #[cfg_attr(feature = "openapi", schema(pattern = "^[A-Za-z0-9_.-]{1,64}$"))]
    pub player_id: String,
}

/// `DELETE /api/operator/players/{player_id}/sessions`: every session of the
/// player ended at once (a lost device, a closed account).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(examples(crate::examples::sessions_ended)))]
pub struct SessionsEnded {
    pub player_id: String,
    /// Sessions that were live or expired and are now gone.
    pub sessions_ended: u64,
}
