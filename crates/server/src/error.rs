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
    /// The database is an older copy than the public record its witnesses
    /// cosigned (`public_log::Witnessed`): selling from it would fork the
    /// record, so nothing is sold until the operator restores a newer one.
    #[error(
        "this server's database does not hold the public record its witnesses cosigned \
         ({cosigned} records; it holds {held}): it sells nothing until the operator \
         restores a newer copy"
    )]
    RecordBehind { cosigned: u64, held: u64 },
    #[error("this method is not allowed here")]
    MethodNotAllowed,
    /// The cause is logged, never shown.
    #[error("internal error")]
    Internal(String),
}

/// `Retry-After` of `RECORD_BEHIND`.
pub const RECORD_BEHIND_RETRY_SECS: u64 = 300;

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
            ApiError::RecordBehind { .. } => ErrorCode::RecordBehind,
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
            | ApiError::DealPending
            | ApiError::RecordBehind { .. } => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
            ApiError::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    pub fn internal(cause: impl std::fmt::Display) -> ApiError {
        ApiError::Internal(cause.to_string())
    }

    /// Seconds a client should wait before retrying (`Retry-After`): every
    /// 429 and 503 has them, and nothing else (decided by the status, so a
    /// new kind of refusal cannot come without them).
    pub fn retry_after_secs(&self) -> Option<u64> {
        if !needs_retry_after(self.status()) {
            return None;
        }
        Some(match self {
            ApiError::RateLimited {
                retry_after_secs, ..
            }
            | ApiError::Overloaded { retry_after_secs } => *retry_after_secs,
            // A new block is generated in the background.
            ApiError::SoldOut => SOLD_OUT_RETRY_SECS,
            // Only a person can restore a newer copy: minutes, not seconds.
            ApiError::RecordBehind { .. } => RECORD_BEHIND_RETRY_SECS,
            // The work may still finish, the wallet answer, the log be
            // cosigned, a moment later.
            _ => DEFAULT_RETRY_SECS,
        })
    }

    pub fn not_found(what: &str) -> ApiError {
        ApiError::NotFound(format!("{what} not found"))
    }
}

/// What a refusal that passes asks a client to wait, unless it knows better.
pub const DEFAULT_RETRY_SECS: u64 = 1;
/// After SOLD_OUT: about the time a new block of 400,000 tickets takes.
const SOLD_OUT_RETRY_SECS: u64 = 5;

/// The statuses that say "later" (429 Too Many Requests, 503 Service
/// Unavailable): docs/PROTOCOL.md promises `Retry-After` on each.
pub fn needs_retry_after(status: StatusCode) -> bool {
    matches!(
        status,
        StatusCode::TOO_MANY_REQUESTS | StatusCode::SERVICE_UNAVAILABLE
    )
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

#[cfg(test)]
mod tests {
    use super::*;

    /// One of each kind. The match below has no wildcard: a new kind does
    /// not compile until it is added here.
    fn every_kind() -> Vec<ApiError> {
        let kinds = vec![
            ApiError::InvalidStake("stake".to_owned()),
            ApiError::InsufficientFunds {
                balance_cents: 0,
                needed_cents: 50,
            },
            ApiError::Unauthorized("token"),
            ApiError::TooManySessions,
            ApiError::Forbidden("forbidden"),
            ApiError::NotFound("sale".to_owned()),
            ApiError::BadRequest("body".to_owned()),
            ApiError::PayloadTooLarge,
            ApiError::Conflict("key".to_owned()),
            ApiError::DemoDisabled,
            ApiError::SoldOut,
            ApiError::LimitReached(LimitReached {
                kind: LimitKind::WeeklyStake,
                limit_cents: 100,
                used_cents: 100,
                frees_at_ms: 0,
            }),
            ApiError::SelfExcluded { until_ms: None },
            ApiError::LaunchInvalid,
            ApiError::RequestTimeout,
            ApiError::RateLimited {
                what: "sales",
                retry_after_secs: 3,
            },
            ApiError::Overloaded {
                retry_after_secs: 2,
            },
            ApiError::Timeout,
            ApiError::WalletUnavailable,
            ApiError::LogUnavailable,
            ApiError::DealPending,
            ApiError::RecordBehind {
                cosigned: 10,
                held: 9,
            },
            ApiError::MethodNotAllowed,
            ApiError::Internal("cause".to_owned()),
        ];
        for kind in &kinds {
            match kind {
                ApiError::InvalidStake(_)
                | ApiError::InsufficientFunds { .. }
                | ApiError::Unauthorized(_)
                | ApiError::TooManySessions
                | ApiError::Forbidden(_)
                | ApiError::NotFound(_)
                | ApiError::BadRequest(_)
                | ApiError::PayloadTooLarge
                | ApiError::Conflict(_)
                | ApiError::DemoDisabled
                | ApiError::SoldOut
                | ApiError::LimitReached(_)
                | ApiError::SelfExcluded { .. }
                | ApiError::LaunchInvalid
                | ApiError::RequestTimeout
                | ApiError::RateLimited { .. }
                | ApiError::Overloaded { .. }
                | ApiError::Timeout
                | ApiError::WalletUnavailable
                | ApiError::LogUnavailable
                | ApiError::DealPending
                | ApiError::RecordBehind { .. }
                | ApiError::MethodNotAllowed
                | ApiError::Internal(_) => {}
            }
        }
        kinds
    }

    #[test]
    fn every_429_and_503_says_when_to_retry_and_nothing_else_does() {
        for kind in every_kind() {
            let code = kind.code();
            let expected = kind.retry_after_secs();
            let response = kind.into_response();
            let later = needs_retry_after(response.status());
            let header = response
                .headers()
                .get(axum::http::header::RETRY_AFTER)
                .map(|v| v.to_str().unwrap().parse::<u64>().unwrap());
            assert_eq!(header.is_some(), later, "{code:?}: {}", response.status());
            assert_eq!(header, expected, "{code:?}");
            assert!(header.is_none_or(|secs| secs >= 1), "{code:?}");
        }
    }

    #[test]
    fn a_refusal_says_its_own_wait() {
        let limited = ApiError::RateLimited {
            what: "sales",
            retry_after_secs: 7,
        };
        assert_eq!(limited.retry_after_secs(), Some(7));
        assert_eq!(
            ApiError::SoldOut.retry_after_secs(),
            Some(SOLD_OUT_RETRY_SECS)
        );
    }
}
