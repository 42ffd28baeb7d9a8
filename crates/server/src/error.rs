//! The one error type of the HTTP API: `{"error": {"code", "message"}}`.
//!
//! Codes are stable (docs/PROTOCOL.md, Part II); messages are for humans. Internal causes
//! are logged and never sent: the client only sees `INTERNAL`.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use eldorado_api::{ErrorBody, ErrorCode, LimitKind, LimitReached};

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{0}")]
    InvalidStake(String),
    #[error("your balance of {balance_cents} cents does not cover {needed_cents} cents")]
    InsufficientFunds {
        balance_cents: u64,
        needed_cents: u64,
    },
    #[error("{0}")]
    Unauthorized(&'static str),
    #[error("{0}")]
    Forbidden(&'static str),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    BadRequest(String),
    #[error("the request body is too large")]
    PayloadTooLarge,
    #[error("{0}")]
    Conflict(String),
    #[error("demo mode is off on this server (it is turned on by `eldorado serve --demo`)")]
    DemoDisabled,
    #[error("no block of this stake is on sale right now; try again shortly")]
    SoldOut,
    #[error("{}", limit_message(.0))]
    LimitReached(LimitReached),
    /// `until_ms` None: until the operator lifts it.
    #[error("{}", match .until_ms {
        Some(until) => format!("you are excluded from play until {until} (Unix ms)"),
        None => "you are excluded from play until the operator lifts it".to_owned(),
    })]
    SelfExcluded { until_ms: Option<u64> },
    #[error(
        "this launch link is unknown, already used or expired: open the game again from the portal"
    )]
    LaunchInvalid,
    /// The session was ended when its player opened more newer ones than
    /// `--max-sessions-per-player` allows.
    #[error(
        "this session was ended: its player opened too many newer sessions, and the oldest is ended first"
    )]
    TooManySessions,
    #[error("the request body did not arrive in time")]
    RequestTimeout,
    #[error("too many {what} from your address; retry in {retry_after_secs} s")]
    RateLimited {
        what: &'static str,
        retry_after_secs: u64,
    },
    #[error("the server is busy; retry in {retry_after_secs} s")]
    Overloaded { retry_after_secs: u64 },
    /// The work may still complete: a sale retried with the same key is
    /// answered once, never sold twice.
    #[error("the server did not answer in time; retry (a sale with the same idempotency key)")]
    Timeout,
    /// Nothing was sold; the operator's wallet may have taken the stake, and
    /// a rollback then gives it back.
    #[error("the operator's wallet did not answer; nothing was sold, retry")]
    WalletUnavailable,
    /// The public log has no checkpoint to serve yet (or none cosigned by
    /// enough witnesses).
    #[error("the public log has no checkpoint to serve yet, retry")]
    LogUnavailable,
    /// Bought and paid; its beacon round is not out yet (or the beacon is
    /// down). The same key answers the dealt sale once it is dealt.
    #[error("the ticket is bought and waits for its draw (tirage en attente); retry with the same idempotency key")]
    DealPending,
    #[error("this method is not allowed here")]
    MethodNotAllowed,
    /// The cause is logged, never shown.
    #[error("internal error")]
    Internal(String),
}

impl ApiError {
    pub fn code(&self) -> ErrorCode {
        match self {
            ApiError::InvalidStake(_) => ErrorCode::InvalidStake,
            ApiError::InsufficientFunds { .. } => ErrorCode::InsufficientFunds,
            ApiError::Unauthorized(_) => ErrorCode::Unauthorized,
            ApiError::Forbidden(_) => ErrorCode::Forbidden,
            ApiError::NotFound(_) => ErrorCode::NotFound,
            ApiError::BadRequest(_) => ErrorCode::BadRequest,
            ApiError::PayloadTooLarge => ErrorCode::PayloadTooLarge,
            ApiError::Conflict(_) => ErrorCode::Conflict,
            ApiError::DemoDisabled => ErrorCode::DemoDisabled,
            ApiError::SoldOut => ErrorCode::SoldOut,
            ApiError::LimitReached(_) => ErrorCode::LimitReached,
            ApiError::SelfExcluded { .. } => ErrorCode::SelfExcluded,
            ApiError::LaunchInvalid => ErrorCode::LaunchInvalid,
            ApiError::TooManySessions => ErrorCode::TooManySessions,
            ApiError::RequestTimeout => ErrorCode::RequestTimeout,
            ApiError::RateLimited { .. } => ErrorCode::RateLimited,
            ApiError::Overloaded { .. } => ErrorCode::Overloaded,
            ApiError::Timeout => ErrorCode::Timeout,
            ApiError::WalletUnavailable => ErrorCode::WalletUnavailable,
            ApiError::LogUnavailable => ErrorCode::LogUnavailable,
            ApiError::DealPending => ErrorCode::DealPending,
            ApiError::MethodNotAllowed => ErrorCode::MethodNotAllowed,
            ApiError::Internal(_) => ErrorCode::Internal,
        }
    }

    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::InvalidStake(_) | ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::InsufficientFunds { .. } => StatusCode::PAYMENT_REQUIRED,
            ApiError::Unauthorized(_) | ApiError::TooManySessions => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_)
            | ApiError::DemoDisabled
            | ApiError::LimitReached(_)
            | ApiError::SelfExcluded { .. } => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::Conflict(_) => StatusCode::CONFLICT,
            ApiError::LaunchInvalid => StatusCode::GONE,
            ApiError::SoldOut
            | ApiError::Overloaded { .. }
            | ApiError::Timeout
            | ApiError::WalletUnavailable
            | ApiError::LogUnavailable
            | ApiError::DealPending => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
            ApiError::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    pub fn internal(cause: impl std::fmt::Display) -> ApiError {
        ApiError::Internal(cause.to_string())
    }

    /// Seconds a client should wait before retrying (`Retry-After`).
    pub fn retry_after_secs(&self) -> Option<u64> {
        match self {
            ApiError::RateLimited {
                retry_after_secs, ..
            }
            | ApiError::Overloaded { retry_after_secs } => Some(*retry_after_secs),
            // The work may still finish, or the wallet answer, a moment later.
            ApiError::DealPending | ApiError::Timeout | ApiError::WalletUnavailable => Some(1),
            _ => None,
        }
    }

    pub fn not_found(what: &str) -> ApiError {
        ApiError::NotFound(format!("{what} not found"))
    }
}

fn limit_message(limit: &LimitReached) -> String {
    let what = match limit.kind {
        LimitKind::WeeklyStake => "weekly stake",
        LimitKind::WeeklyLoss => "weekly loss",
    };
    format!(
        "this ticket would exceed your {what} limit of {} cents ({} cents used in the last 7 days)",
        limit.limit_cents, limit.used_cents
    )
}

impl From<crate::store::StoreError> for ApiError {
    fn from(e: crate::store::StoreError) -> ApiError {
        ApiError::Internal(e.to_string())
    }
}

impl From<tokio::task::JoinError> for ApiError {
    fn from(e: tokio::task::JoinError) -> ApiError {
        ApiError::Internal(format!("a blocking task failed: {e}"))
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if let ApiError::Internal(cause) = &self {
            tracing::error!(%cause, "internal error answered as INTERNAL");
        }
        metrics::counter!(crate::metrics::ERRORS, "code" => self.code().as_str()).increment(1);
        let mut body = ErrorBody::new(self.code(), self.to_string());
        match &self {
            ApiError::LimitReached(limit) => body.error.limit = Some(*limit),
            ApiError::SelfExcluded { until_ms } => {
                body.error.excluded_until_ms = *until_ms;
                body.error.excluded_indefinitely = until_ms.is_none().then_some(true);
            }
            _ => {}
        }
        let mut response = (self.status(), Json(body)).into_response();
        if let Some(secs) = self.retry_after_secs() {
            response
                .headers_mut()
                .insert(axum::http::header::RETRY_AFTER, secs.into());
        }
        response
    }
}
