//! The `as_str` names are the serde names: one spelling on the wire.

use eldorado_api::{BlockStatus, ErrorCode, SaleStatus};
use serde::Serialize;
use strum::IntoEnumIterator;

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

/// Every code, from the enum itself: a code added tomorrow is checked too.
#[test]
fn error_codes() {
    let codes: Vec<ErrorCode> = ErrorCode::iter().collect();
    assert!(codes.contains(&ErrorCode::WalletUnavailable));
    for code in &codes {
        assert_eq!(wire(code), code.as_str());
        let read: ErrorCode = serde_json::from_value(code.as_str().into()).unwrap();
        assert_eq!(read, *code);
    }
    let names: std::collections::HashSet<_> = codes.iter().map(|c| c.as_str()).collect();
    assert_eq!(names.len(), codes.len(), "two codes share a name");
}

#[test]
fn an_unknown_error_code_still_reads() {
    let body: eldorado_api::ErrorBody =
        serde_json::from_str(r#"{"error":{"code":"SOMETHING_NEW","message":"m"}}"#).unwrap();
    assert_eq!(body.error.code, "SOMETHING_NEW");
}
