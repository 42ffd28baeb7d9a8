//! The HTTP API of docs/PROTOCOL.md (Part II) as Rust types: the one
//! definition that the server sends, the page reads and the end-to-end test
//! checks. Plain data and serde only, so it builds for wasm32 and does no I/O.
//!
//! The signed objects (`SignedSale`, `SignedCommitment`) are the engine's own
//! serde types, never re-declared here. With the `openapi` feature every type
//! also describes itself for the generated OpenAPI document.

pub mod beacon;
mod block;
mod config;
mod error;
mod health;
mod history;
mod launch;
pub mod log;
mod page_policy;
mod portal;
mod protection;
mod report;
mod sale;
pub mod seamless;
mod session;
mod wallet;

#[cfg(feature = "openapi")]
pub mod examples;
#[cfg(feature = "openapi")]
pub mod schema;

pub use block::{BlockInfo, BlockList, BlockStatus, RankRemaining};
pub use config::{Config, Odds, PrizeRow, StakeAmounts};
pub use error::{ErrorBody, ErrorCode, ErrorDetail};
pub use health::{Health, OutboxHealth};
pub use history::{HistoryItem, HistoryPage, SaleStatus};
pub use launch::{Launch, LaunchCodeRequest, LaunchMode, LaunchRequest};
pub use log::{
    ConsistencyProof, CosignatureSubmission, InclusionProof, LogConfig, LogLeaves, LoggedReceipt,
    PageListing, PurchaseOnRecord, WitnessCosignatures,
};
pub use page_policy::{BeaconPin, PagePolicy, PAGE_POLICY_PATH};
pub use portal::{PageMessage, ParentMessage};
pub use protection::{
    AuditActor, AuditEntry, ExclusionRequest, LimitKind, LimitReached, LimitsRequest,
    OperatorExclusionRequest, PendingLimit, Protection, ProtectionAudit, ProtectionChange,
    RealityCheckRequest, DEFAULT_REALITY_CHECK_MINUTES, REALITY_CHECK_MINUTES,
};
pub use report::{BlockPayout, DailyReport, DailyRow, RankPayout};
pub use sale::{BuyRequest, DealEvidence, RevealAck, RevealRequest, SaleResponse, UnsoldNode};
pub use session::{DemoPlayerRequest, OperatorSessionRequest, Session, SessionsEnded};
pub use wallet::{Balance, TransferRequest};
