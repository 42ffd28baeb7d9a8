//! The `as_str` names are the serde names: one spelling on the wire.

use eldorado_api::{BlockStatus, ErrorCode, SaleStatus};
use serde::Serialize;

fn wire<T: Serialize>(value: T) -> String {
    serde_json::to_value(value)
        .unwrap()
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn block_statuses() {
    for status in [
        BlockStatus::Open,
        BlockStatus::Pending,
        BlockStatus::SoldOut,
        BlockStatus::Closed,
    ] {
        assert_eq!(wire(status), status.as_str());
        assert!(status == status.as_str());
    }
}

#[test]
fn sale_statuses() {
    for status in [SaleStatus::Revealed, SaleStatus::Unrevealed] {
        assert_eq!(wire(status), status.as_str());
        assert!(status == status.as_str());
    }
    assert!(SaleStatus::Revealed != "unrevealed");
}

#[test]
fn error_codes() {
    for code in [
        ErrorCode::BadRequest,
        ErrorCode::InvalidStake,
        ErrorCode::Unauthorized,
        ErrorCode::InsufficientFunds,
        ErrorCode::Forbidden,
        ErrorCode::DemoDisabled,
        ErrorCode::NotFound,
        ErrorCode::MethodNotAllowed,
        ErrorCode::Conflict,
        ErrorCode::PayloadTooLarge,
        ErrorCode::RequestTimeout,
        ErrorCode::RateLimited,
        ErrorCode::SoldOut,
        ErrorCode::LimitReached,
        ErrorCode::SelfExcluded,
        ErrorCode::LaunchInvalid,
        ErrorCode::Overloaded,
        ErrorCode::Timeout,
        ErrorCode::Internal,
    ] {
        assert_eq!(wire(code), code.as_str());
    }
}

#[test]
fn an_unknown_error_code_still_reads() {
    let body: eldorado_api::ErrorBody =
        serde_json::from_str(r#"{"error":{"code":"SOMETHING_NEW","message":"m"}}"#).unwrap();
    assert_eq!(body.error.code, "SOMETHING_NEW");
}
