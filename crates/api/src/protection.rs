//! Player protection (issue 12): weekly stake and loss limits, self-exclusion,
//! the reality-check period, and the operator's audit of every change.
//!
//! Limits count over a rolling 7 days and are enforced by the server inside
//! the sale itself; the page only shows them.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

/// A field that must be present but may be `null`: serde would otherwise
/// read a missing limit as "no limit" and quietly schedule its removal.
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    Option::<T>::deserialize(d)
}

/// A limit change that is not in force yet: a higher limit, or the removal
/// of one, waits 48 hours.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PendingLimit {
    /// The limit it will set; `null` removes the limit.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub limit_cents: Option<u64>,
    pub effective_at_ms: u64,
}

/// A player's protection settings and how much of the limits is used. The
/// answer of `GET /api/limits`, `PUT /api/limits`, `POST /api/exclusion`,
/// `PUT /api/reality-check` and the operator's `PUT .../limits` and
/// `PUT .../exclusion`; also `Session.protection`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(examples(crate::examples::protection)))]
pub struct Protection {
    /// Stakes allowed over any rolling 7 days; `null`: no limit.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub weekly_stake_limit_cents: Option<u64>,
    /// Stakes minus prizes allowed over any rolling 7 days; `null`: no limit.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub weekly_loss_limit_cents: Option<u64>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub pending_weekly_stake_limit: Option<PendingLimit>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub pending_weekly_loss_limit: Option<PendingLimit>,
    /// Stakes of the last 7 days.
    pub stake_used_cents: u64,
    /// `max(0, stakes - prizes)` of the last 7 days.
    pub loss_used_cents: u64,
    /// While in the future, every sale is refused (`SELF_EXCLUDED`).
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub excluded_until_ms: Option<u64>,
    /// Excluded until the operator lifts it (`excluded_until_ms` is then null).
    pub excluded_indefinitely: bool,
    /// How often the page pauses play for a reality check: 15, 30 or 60.
    pub reality_check_minutes: u32,
}

/// The reality check's period when nobody chose one.
pub const DEFAULT_REALITY_CHECK_MINUTES: u32 = 60;

/// The periods a player may choose.
pub const REALITY_CHECK_MINUTES: [u32; 3] = [15, 30, 60];

/// No limit, no exclusion, nothing used.
impl Default for Protection {
    fn default() -> Protection {
        Protection {
            weekly_stake_limit_cents: None,
            weekly_loss_limit_cents: None,
            pending_weekly_stake_limit: None,
            pending_weekly_loss_limit: None,
            stake_used_cents: 0,
            loss_used_cents: 0,
            excluded_until_ms: None,
            excluded_indefinitely: false,
            reality_check_minutes: DEFAULT_REALITY_CHECK_MINUTES,
        }
    }
}

impl Protection {
    /// Whether a sale at `now_ms` is refused for an exclusion.
    pub fn is_excluded(&self, now_ms: u64) -> bool {
        self.excluded_indefinitely || self.excluded_until_ms.is_some_and(|until| until > now_ms)
    }
}

/// `PUT /api/limits` (player) and `PUT /api/operator/players/{player_id}/limits`.
/// Both fields must be present; `null` asks for no limit. A lower or first
/// limit applies at once; a higher one or a removal 48 hours later.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(examples(crate::examples::limits_request)))]
pub struct LimitsRequest {
    #[serde(deserialize_with = "present")]
    #[cfg_attr(
        feature = "openapi",
        schema(required = true, minimum = 1, maximum = 100_000_000)
    )]
    pub weekly_stake_limit_cents: Option<u64>,
    #[serde(deserialize_with = "present")]
    #[cfg_attr(
        feature = "openapi",
        schema(required = true, minimum = 1, maximum = 100_000_000)
    )]
    pub weekly_loss_limit_cents: Option<u64>,
}

/// `POST /api/exclusion`: the player excludes themselves for 1, 7 or 30
/// days, or (`null`) until the operator lifts it. It can lengthen a running
/// exclusion, never shorten it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "openapi",
    schema(examples(crate::examples::exclusion_request))
)]
pub struct ExclusionRequest {
    /// 1, 7 or 30; `null`: until the operator lifts it.
    #[serde(deserialize_with = "present")]
    #[cfg_attr(
        feature = "openapi",
        schema(required = true, schema_with = crate::schema::exclusion_days)
    )]
    pub days: Option<u32>,
}

/// `PUT /api/operator/players/{player_id}/exclusion`: sets the end of the
/// exclusion (any time, e.g. from the national exclusion list); `null` lifts it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "openapi",
    schema(examples(crate::examples::operator_exclusion_request))
)]
pub struct OperatorExclusionRequest {
    #[serde(deserialize_with = "present")]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub until_ms: Option<u64>,
}

/// `PUT /api/reality-check`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "openapi",
    schema(examples(crate::examples::reality_check_request))
)]
pub struct RealityCheckRequest {
    /// 15, 30 or 60.
    #[cfg_attr(
        feature = "openapi",
        schema(schema_with = crate::schema::reality_check_minutes)
    )]
    pub minutes: u32,
}

/// Who made a change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum AuditActor {
    Player,
    Operator,
}

impl AuditActor {
    pub fn as_str(self) -> &'static str {
        match self {
            AuditActor::Player => "player",
            AuditActor::Operator => "operator",
        }
    }

    pub fn parse(text: &str) -> Option<AuditActor> {
        [AuditActor::Player, AuditActor::Operator]
            .into_iter()
            .find(|a| a.as_str() == text)
    }
}

/// What a change was about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ProtectionChange {
    WeeklyStakeLimit,
    WeeklyLossLimit,
    Exclusion,
    RealityCheck,
}

impl ProtectionChange {
    pub fn as_str(self) -> &'static str {
        match self {
            ProtectionChange::WeeklyStakeLimit => "weekly_stake_limit",
            ProtectionChange::WeeklyLossLimit => "weekly_loss_limit",
            ProtectionChange::Exclusion => "exclusion",
            ProtectionChange::RealityCheck => "reality_check",
        }
    }

    pub fn parse(text: &str) -> Option<ProtectionChange> {
        [
            ProtectionChange::WeeklyStakeLimit,
            ProtectionChange::WeeklyLossLimit,
            ProtectionChange::Exclusion,
            ProtectionChange::RealityCheck,
        ]
        .into_iter()
        .find(|c| c.as_str() == text)
    }
}

/// One recorded change. `old` and `new` by `change`: a limit in cents or
/// `null` (no limit); an exclusion's end in Unix ms, `null` (none) or
/// `"indefinite"` (until the operator lifts it); reality-check minutes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(examples(crate::examples::audit_entry)))]
pub struct AuditEntry {
    pub at_ms: u64,
    pub actor: AuditActor,
    pub change: ProtectionChange,
    #[cfg_attr(feature = "openapi", schema(value_type = Value, required = true))]
    pub old: Value,
    #[cfg_attr(feature = "openapi", schema(value_type = Value, required = true))]
    pub new: Value,
    /// When `new` applies: `at_ms`, or 48 hours later for a raised or
    /// removed limit.
    pub effective_at_ms: u64,
}

/// `GET /api/operator/players/{player_id}/protection`: the settings and
/// every change, newest first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "openapi",
    schema(examples(crate::examples::protection_audit))
)]
pub struct ProtectionAudit {
    pub player_id: String,
    pub protection: Protection,
    pub audit: Vec<AuditEntry>,
}

/// The two limits of `LIMIT_REACHED`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum LimitKind {
    WeeklyStake,
    WeeklyLoss,
}

/// `ErrorDetail.limit` of `LIMIT_REACHED`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LimitReached {
    pub kind: LimitKind,
    pub limit_cents: u64,
    /// Used over the last 7 days when the sale was refused.
    pub used_cents: u64,
    /// When enough of the rolling window has expired for the refused stake
    /// to fit (if nothing else is sold or won meanwhile).
    pub frees_at_ms: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_limits_request_must_name_both_limits() {
        let both: LimitsRequest = serde_json::from_value(
            json!({"weekly_stake_limit_cents": 1000, "weekly_loss_limit_cents": null}),
        )
        .unwrap();
        assert_eq!(both.weekly_stake_limit_cents, Some(1000));
        assert_eq!(both.weekly_loss_limit_cents, None);
        assert!(
            serde_json::from_value::<LimitsRequest>(json!({"weekly_stake_limit_cents": 1000}))
                .is_err()
        );
    }

    #[test]
    fn an_exclusion_request_must_say_its_days_even_when_null() {
        let until_lifted: ExclusionRequest = serde_json::from_value(json!({"days": null})).unwrap();
        assert_eq!(until_lifted.days, None);
        assert!(serde_json::from_value::<ExclusionRequest>(json!({})).is_err());
        assert!(serde_json::from_value::<OperatorExclusionRequest>(json!({})).is_err());
    }

    #[test]
    fn an_exclusion_ends_at_its_time_unless_indefinite() {
        let mut p = Protection {
            excluded_until_ms: Some(1000),
            ..Protection::default()
        };
        assert!(p.is_excluded(999));
        assert!(!p.is_excluded(1000));
        p.excluded_until_ms = None;
        p.excluded_indefinitely = true;
        assert!(p.is_excluded(u64::MAX));
    }
}
