//! Launch links: the operator asks for a short-lived, single-use URL of the
//! game page; the page trades the code it carries for a session, so no
//! long-lived bearer token ever travels in a URL.

use serde::{Deserialize, Serialize};

/// `POST /api/operator/launches`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(examples(crate::examples::launch_request)))]
pub struct LaunchRequest {
    #[cfg_attr(feature = "openapi", schema(pattern = "^[A-Za-z0-9_.-]{1,64}$"))]
    pub player_id: String,
    /// The page's language.
    #[cfg_attr(feature = "openapi", schema(pattern = "^(fr|en)$"))]
    pub lang: String,
    /// Where the page's « Lobby » link leads: an http(s) URL on one of the
    /// portal origins the server allows (`--frame-ancestors`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "openapi",
        schema(
            pattern = r"^https?://[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*(:[0-9]{1,4})?([/?#][A-Za-z0-9._~/?#=&%+:@!$'()*,;-]*)?$",
            max_length = 2048
        )
    )]
    pub lobby_url: Option<String>,
    pub mode: LaunchMode,
}

/// `real`: the operator's player, with its real-money balance. `demo`: a
/// fresh play-money demo player (only on a server started with `--demo`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum LaunchMode {
    Real,
    Demo,
}

impl LaunchMode {
    pub fn as_str(self) -> &'static str {
        match self {
            LaunchMode::Real => "real",
            LaunchMode::Demo => "demo",
        }
    }
}

/// The answer of `POST /api/operator/launches`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(examples(crate::examples::launch)))]
pub struct Launch {
    /// The game page with the code: `<public url>/?launch=<code>&lang=<lang>`.
    /// Put it in the iframe's `src` at once: it works once, within 60 s.
    pub url: String,
    pub expires_at_ms: u64,
}

/// `POST /api/launch`: the page trades its launch code for a session.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "openapi",
    schema(examples(crate::examples::launch_code_request))
)]
pub struct LaunchCodeRequest {
    /// The `launch` parameter of the launch URL (64 hex digits).
    #[cfg_attr(feature = "openapi", schema(pattern = "^[0-9a-f]{64}$"))]
    pub code: String,
}
