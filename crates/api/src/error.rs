//! The one error shape: `{"error": {"code", "message"}}`.

use crate::protection::LimitReached;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(examples(crate::examples::error_body)))]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ErrorDetail {
    /// One of the `ErrorCode` names. Kept as text so that a client still reads an
    /// error whose code a newer server added.
    #[cfg_attr(feature = "openapi", schema(value_type = ErrorCode))]
    pub code: String,
    /// For humans; never parsed.
    pub message: String,
    /// `LIMIT_REACHED`: which limit, how much of it is used, when room frees up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<LimitReached>,
    /// `SELF_EXCLUDED`: the end of the exclusion.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub excluded_until_ms: Option<u64>,
    /// `SELF_EXCLUDED`: `true` when excluded until the operator lifts it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub excluded_indefinitely: Option<bool>,
}

/// The stable error codes; the HTTP status of each is fixed (docs/PROTOCOL.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "strum", derive(strum::EnumIter))]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    BadRequest,
    InvalidStake,
    Unauthorized,
    InsufficientFunds,
    Forbidden,
    DemoDisabled,
    NotFound,
    MethodNotAllowed,
    Conflict,
    PayloadTooLarge,
    /// 408: the client did not send its request body in time.
    RequestTimeout,
    /// 429: too many requests of this kind from one address; see `Retry-After`.
    RateLimited,
    SoldOut,
    /// 403: the sale would exceed a weekly stake or loss limit; see `limit`.
    LimitReached,
    /// 403: the player is excluded from play; see `excluded_until_ms`.
    SelfExcluded,
    /// 410: the launch code is unknown, already used or expired.
    LaunchInvalid,
    /// 401: the session was ended because its player opened
    /// `--max-sessions-per-player` newer ones (the oldest is ended first).
    /// Apart from `UNAUTHORIZED` so that the page can say why: a player who
    /// opened the game in another tab or device needs to know, not to be
    /// told the session expired.
    TooManySessions,
    /// 503: the server is at its limit of requests in flight; see `Retry-After`.
    Overloaded,
    /// 503: the server did not answer in time. A sale may still have been
    /// made: retry it with the same idempotency key.
    Timeout,
    /// 503: the operator's wallet did not answer; nothing was sold. Retry.
    WalletUnavailable,
    /// 503: the public log has no checkpoint to serve yet (none cosigned
    /// by enough witnesses). Retry.
    LogUnavailable,
    /// 503: the ticket is bought and paid, and waits for the beacon round
    /// that deals it (« tirage en attente »). Retry with the same
    /// idempotency key: the answer is then the dealt sale.
    DealPending,
    /// 503: this server's database does not hold the public record its
    /// witnesses cosigned (a copy older than that was restored): it sells
    /// nothing until the operator restores a newer one. See `Retry-After`.
    RecordBehind,
    Internal,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadRequest => "BAD_REQUEST",
            ErrorCode::InvalidStake => "INVALID_STAKE",
            ErrorCode::Unauthorized => "UNAUTHORIZED",
            ErrorCode::InsufficientFunds => "INSUFFICIENT_FUNDS",
            ErrorCode::Forbidden => "FORBIDDEN",
            ErrorCode::DemoDisabled => "DEMO_DISABLED",
            ErrorCode::NotFound => "NOT_FOUND",
            ErrorCode::MethodNotAllowed => "METHOD_NOT_ALLOWED",
            ErrorCode::Conflict => "CONFLICT",
            ErrorCode::PayloadTooLarge => "PAYLOAD_TOO_LARGE",
            ErrorCode::RequestTimeout => "REQUEST_TIMEOUT",
            ErrorCode::RateLimited => "RATE_LIMITED",
            ErrorCode::SoldOut => "SOLD_OUT",
            ErrorCode::LimitReached => "LIMIT_REACHED",
            ErrorCode::SelfExcluded => "SELF_EXCLUDED",
            ErrorCode::LaunchInvalid => "LAUNCH_INVALID",
            ErrorCode::TooManySessions => "TOO_MANY_SESSIONS",
            ErrorCode::Overloaded => "OVERLOADED",
            ErrorCode::Timeout => "TIMEOUT",
            ErrorCode::WalletUnavailable => "WALLET_UNAVAILABLE",
            ErrorCode::LogUnavailable => "LOG_UNAVAILABLE",
            ErrorCode::DealPending => "DEAL_PENDING",
            ErrorCode::RecordBehind => "RECORD_BEHIND",
            ErrorCode::Internal => "INTERNAL",
        }
    }
}

impl ErrorBody {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ErrorBody {
        ErrorBody {
            error: ErrorDetail {
                code: code.as_str().to_owned(),
                message: message.into(),
                limit: None,
                excluded_until_ms: None,
                excluded_indefinitely: None,
            },
        }
    }
}
