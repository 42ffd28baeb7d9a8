//! The JSON shapes of docs/PROTOCOL.md (Part II), from `eldorado_api`: the
//! same types the server sends, so the two cannot drift. Only what a failed
//! exchange means to the page is defined here.

pub use eldorado_api::{
    BeaconPin, BlockInfo, BlockList, BlockStatus, BuyRequest, Config, ConsistencyProof, ErrorBody,
    ErrorDetail, ExclusionRequest, HistoryItem, HistoryPage, InclusionProof, LaunchCodeRequest,
    LimitKind, LimitReached, LimitsRequest, LogConfig, Odds, PageMessage, PagePolicy,
    ParentMessage, PendingLimit, PrizeRow, Protection, RankRemaining, RealityCheckRequest,
    RevealAck, RevealRequest, SaleResponse, SaleStatus, Session, StakeAmounts, PAGE_POLICY_PATH,
};

/// Why a request gave no usable answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetError {
    /// No answer within the time limit; the request may or may not have landed.
    Timeout,
    /// The request never completed (offline, refused, CORS).
    Network,
    /// The server answered with an error of the contract.
    Api { status: u16, code: String },
    /// The server answered something that is not the contract's shape.
    Decode,
    /// The server refused for a play limit or a self-exclusion, and said
    /// which (`LIMIT_REACHED`, `SELF_EXCLUDED`, 403).
    Protection(crate::protection::Refusal),
}

/// What the console shows of a failed exchange (`console::LogFailure`):
/// written out here rather than derived `Debug` text, which the bundle
/// would otherwise carry.
impl From<NetError> for wasm_bindgen::JsValue {
    fn from(error: NetError) -> Self {
        let text = match error {
            NetError::Timeout => "timeout".to_owned(),
            NetError::Network => "network".to_owned(),
            NetError::Api { status, code } => {
                crate::text::around("HTTP ", status.into(), " ") + &code
            }
            NetError::Decode => "an answer not of the contract's shape".to_owned(),
            NetError::Protection(_) => "refused by a play limit or self-exclusion".to_owned(),
        };
        Self::from_str(&text)
    }
}

impl NetError {
    /// Whether the purchase certainly did not happen, so its idempotency key
    /// can be dropped: a definite refusal of the request itself.
    pub fn is_definite_refusal(&self) -> bool {
        matches!(self, NetError::Api { status, .. } if (400..500).contains(status) && *status != 408 && *status != 429)
            || matches!(self, NetError::Protection(_))
    }
}
