//! The player-protection rules, for every backend (issue 12): weekly stake
//! and loss limits over a rolling 7 days, self-exclusion, the reality-check
//! period, and the audit of every change.
//!
//! The sale calls [`check_sale`] inside its own transaction, after the
//! player's row is locked: two sales of one player never both see room for
//! one stake, so concurrency cannot overshoot a limit. Any other debit of a
//! stake (a wallet reservation) must call the same check the same way.
//!
//! Times come from the caller's clock: a pending limit is in force from its
//! effective time on, without any write ([`LimitSetting::at`]).

use super::tx::WalletTx;
pub use super::tx::{LimitSetting, ProtectionRow, ProtectionTx, WindowSale, WindowTotals};
use super::{PlayerKind, StoreResult};
use eldorado_api::{
    AuditActor, AuditEntry, LimitKind, LimitReached, PendingLimit, Protection, ProtectionChange,
    DEFAULT_REALITY_CHECK_MINUTES, REALITY_CHECK_MINUTES,
};
use serde_json::{json, Value};

/// The rolling window of both limits.
pub const WEEK_MS: u64 = 7 * 24 * 3600 * 1000;
/// How long a raised or removed limit waits.
pub const RAISE_DELAY_MS: u64 = 48 * 3600 * 1000;
pub const DAY_MS: u64 = 24 * 3600 * 1000;
/// The largest limit a player or operator may set.
pub const MAX_LIMIT_CENTS: u64 = 100_000_000;
/// The exclusions a player may choose, in days (or until lifted).
pub const EXCLUSION_DAYS: [u32; 3] = [1, 7, 30];

/// What the server applies to players that have no settings of their own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProtectionDefaults {
    /// For real-money players; stored with the player at its first sale or
    /// change, so that a later default changes no existing player's limit.
    pub weekly_stake_limit_cents: Option<u64>,
    pub reality_check_minutes: u32,
}

impl Default for ProtectionDefaults {
    fn default() -> ProtectionDefaults {
        ProtectionDefaults {
            weekly_stake_limit_cents: None,
            reality_check_minutes: DEFAULT_REALITY_CHECK_MINUTES,
        }
    }
}

impl LimitSetting {
    /// The setting at `now_ms`: a pending change whose time has come is in force.
    pub fn at(self, now_ms: u64) -> LimitSetting {
        match self.pending {
            Some(p) if p.effective_at_ms <= now_ms => LimitSetting {
                current: p.limit_cents,
                pending: None,
            },
            _ => self,
        }
    }

    /// Asks for `wanted` at `now_ms`: the new setting and when `wanted`
    /// applies. A stricter (or equal, or first) limit applies at once and
    /// drops any pending change; a looser one or a removal waits 48 hours.
    fn request(self, wanted: Option<u64>, now_ms: u64) -> (LimitSetting, u64) {
        let now = self.at(now_ms);
        let at_once = match (wanted, now.current) {
            (Some(w), Some(c)) => w <= c,
            (Some(_), None) | (None, None) => true,
            (None, Some(_)) => false,
        };
        if at_once {
            return (
                LimitSetting {
                    current: wanted,
                    pending: None,
                },
                now_ms,
            );
        }
        let effective_at_ms = now_ms.saturating_add(RAISE_DELAY_MS);
        (
            LimitSetting {
                current: now.current,
                pending: Some(PendingLimit {
                    limit_cents: wanted,
                    effective_at_ms,
                }),
            },
            effective_at_ms,
        )
    }
}

impl ProtectionRow {
    /// The settings of a player that has none stored.
    fn defaults(kind: PlayerKind, defaults: &ProtectionDefaults) -> ProtectionRow {
        ProtectionRow {
            stake: LimitSetting {
                current: match kind {
                    PlayerKind::Operator => defaults.weekly_stake_limit_cents,
                    PlayerKind::Demo => None,
                },
                pending: None,
            },
            ..ProtectionRow::default()
        }
    }

    /// The exclusion in force at `now_ms`: `Some(None)` until lifted.
    fn exclusion(&self, now_ms: u64) -> Option<Option<u64>> {
        if self.excluded_indefinitely {
            return Some(None);
        }
        self.excluded_until_ms
            .filter(|until| *until > now_ms)
            .map(Some)
    }
}

impl WindowTotals {
    pub fn loss_cents(self) -> u64 {
        self.stakes_cents.saturating_sub(self.prizes_cents)
    }
}

/// The start (exclusive) of the window that ends at `now_ms`; before the
/// epoch's first week it is negative, so no sale is left out.
fn window_start(now_ms: u64) -> i64 {
    i64::try_from(now_ms).unwrap_or(i64::MAX) - WEEK_MS as i64
}

/// What a limit counts of a window's sales.
type Measure = fn(WindowTotals) -> u64;

/// Why a sale is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// `None`: until the operator lifts it.
    Excluded {
        until_ms: Option<u64>,
    },
    Limit(LimitReached),
}

/// Whether the player (its row locked by the caller) may stake
/// `stake_cents` now. The loss limit counts the stake as lost: the ticket
/// may lose, and its prize must not decide whether it is sold.
pub fn check_sale<T: ProtectionTx + ?Sized>(
    tx: &mut T,
    player_id: &str,
    kind: PlayerKind,
    stake_cents: u64,
    now_ms: u64,
    defaults: &ProtectionDefaults,
) -> StoreResult<Option<Refusal>> {
    let row = match tx.protection_row(player_id)? {
        Some(row) => row,
        None => {
            let row = ProtectionRow::defaults(kind, defaults);
            if row != ProtectionRow::default() {
                tx.put_protection_row(player_id, &row)?;
            }
            row
        }
    };
    if let Some(until_ms) = row.exclusion(now_ms) {
        return Ok(Some(Refusal::Excluded { until_ms }));
    }
    let stake_limit = row.stake.at(now_ms).current;
    let loss_limit = row.loss.at(now_ms).current;
    if stake_limit.is_none() && loss_limit.is_none() {
        return Ok(None);
    }
    let after_ms = window_start(now_ms);
    let used = tx.window_totals(player_id, after_ms)?;
    let measures: [(LimitKind, Option<u64>, Measure); 2] = [
        (LimitKind::WeeklyStake, stake_limit, |t| t.stakes_cents),
        (LimitKind::WeeklyLoss, loss_limit, WindowTotals::loss_cents),
    ];
    for (kind, limit, measure) in measures {
        let Some(limit) = limit else { continue };
        if measure(used).saturating_add(stake_cents) <= limit {
            continue;
        }
        let sales = tx.window_sales(player_id, after_ms)?;
        return Ok(Some(Refusal::Limit(LimitReached {
            kind,
            limit_cents: limit,
            used_cents: measure(used),
            frees_at_ms: frees_at(&sales, stake_cents, limit, now_ms, measure),
        })));
    }
    Ok(None)
}

/// When enough of `sales` (oldest first) has left the window for the stake
/// to fit under `limit`, if nothing else is sold meanwhile. A sale leaves
/// the window a week after it was sold; sales of one instant leave together.
/// If even an empty window cannot hold the stake: when it is empty.
fn frees_at(
    sales: &[WindowSale],
    stake_cents: u64,
    limit: u64,
    now_ms: u64,
    measure: Measure,
) -> u64 {
    let mut left = sales
        .iter()
        .fold(WindowTotals::default(), |t, s| WindowTotals {
            stakes_cents: t.stakes_cents + s.stake_cents,
            prizes_cents: t.prizes_cents + s.prize_cents,
        });
    let mut i = 0;
    while i < sales.len() {
        let instant = sales[i].sold_at_ms;
        while i < sales.len() && sales[i].sold_at_ms == instant {
            left.stakes_cents -= sales[i].stake_cents;
            left.prizes_cents -= sales[i].prize_cents;
            i += 1;
        }
        if measure(left).saturating_add(stake_cents) <= limit {
            return instant.saturating_add(WEEK_MS);
        }
    }
    sales
        .last()
        .map_or(now_ms, |s| s.sold_at_ms.saturating_add(WEEK_MS))
}

/// A change asked for by a player or the operator, already validated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProtectionUpdate {
    Limits {
        weekly_stake_limit_cents: Option<u64>,
        weekly_loss_limit_cents: Option<u64>,
    },
    /// The player's own: lengthens only. `None`: until the operator lifts it.
    SelfExclusion {
        days: Option<u32>,
    },
    /// The operator's: any end, `None` lifts it.
    SetExclusion {
        until_ms: Option<u64>,
    },
    RealityCheck {
        minutes: u32,
    },
}

/// Why a change was not made (nothing was written).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UpdateRefusal {
    UnknownPlayer,
    /// A value out of range; the text says which.
    Invalid(String),
    /// The player asked for an exclusion that ends before the current one.
    WouldShorten,
}

impl ProtectionUpdate {
    /// The ranges of docs/PROTOCOL.md; checked before any write.
    pub fn validate(&self) -> Result<(), String> {
        let limit_ok = |l: Option<u64>| l.is_none_or(|c| (1..=MAX_LIMIT_CENTS).contains(&c));
        match *self {
            ProtectionUpdate::Limits {
                weekly_stake_limit_cents,
                weekly_loss_limit_cents,
            } => {
                if !limit_ok(weekly_stake_limit_cents) || !limit_ok(weekly_loss_limit_cents) {
                    return Err(format!("a limit is null or 1..={MAX_LIMIT_CENTS} cents"));
                }
            }
            ProtectionUpdate::SelfExclusion { days } => {
                if days.is_some_and(|d| !EXCLUSION_DAYS.contains(&d)) {
                    return Err("days is 1, 7, 30 or null".to_owned());
                }
            }
            ProtectionUpdate::SetExclusion { until_ms } => {
                if until_ms.is_some_and(|u| i64::try_from(u).is_err()) {
                    return Err("until_ms is out of range".to_owned());
                }
            }
            ProtectionUpdate::RealityCheck { minutes } => {
                if !REALITY_CHECK_MINUTES.contains(&minutes) {
                    return Err("minutes is 15, 30 or 60".to_owned());
                }
            }
        }
        Ok(())
    }
}

fn exclusion_value(row: &ProtectionRow, now_ms: u64) -> Value {
    match row.exclusion(now_ms) {
        None => Value::Null,
        Some(None) => json!("indefinite"),
        Some(Some(until)) => json!(until),
    }
}

/// Applies `update` for `player_id` in the caller's transaction, auditing
/// each setting it changes (a request that changes nothing is not
/// audited), and answers the protection after it.
pub fn update<T: ProtectionTx + WalletTx + ?Sized>(
    tx: &mut T,
    player_id: &str,
    update: &ProtectionUpdate,
    actor: AuditActor,
    now_ms: u64,
    defaults: &ProtectionDefaults,
) -> StoreResult<Result<Protection, UpdateRefusal>> {
    if let Err(text) = update.validate() {
        return Ok(Err(UpdateRefusal::Invalid(text)));
    }
    // The player's lock orders this change with its sales.
    let Some((kind, _)) = tx.player_for_update(player_id)? else {
        return Ok(Err(UpdateRefusal::UnknownPlayer));
    };
    let stored = tx.protection_row(player_id)?;
    let old = stored.unwrap_or_else(|| ProtectionRow::defaults(kind, defaults));
    let mut row = ProtectionRow {
        stake: old.stake.at(now_ms),
        loss: old.loss.at(now_ms),
        ..old
    };
    let mut audit = Vec::new();
    let entry = |change, old: Value, new: Value, effective_at_ms| AuditEntry {
        at_ms: now_ms,
        actor,
        change,
        old,
        new,
        effective_at_ms,
    };
    match *update {
        ProtectionUpdate::Limits {
            weekly_stake_limit_cents,
            weekly_loss_limit_cents,
        } => {
            for (change, setting, wanted) in [
                (
                    ProtectionChange::WeeklyStakeLimit,
                    &mut row.stake,
                    weekly_stake_limit_cents,
                ),
                (
                    ProtectionChange::WeeklyLossLimit,
                    &mut row.loss,
                    weekly_loss_limit_cents,
                ),
            ] {
                let (next, effective_at_ms) = setting.request(wanted, now_ms);
                if next != *setting {
                    audit.push(entry(
                        change,
                        json!(setting.current),
                        json!(wanted),
                        effective_at_ms,
                    ));
                    *setting = next;
                }
            }
        }
        ProtectionUpdate::SelfExclusion { days } => {
            let before = exclusion_value(&row, now_ms);
            match (days, row.exclusion(now_ms)) {
                (None, _) => {
                    row.excluded_until_ms = None;
                    row.excluded_indefinitely = true;
                }
                (Some(_), Some(None)) => return Ok(Err(UpdateRefusal::WouldShorten)),
                (Some(days), current) => {
                    let until = now_ms.saturating_add(u64::from(days) * DAY_MS);
                    if current.flatten().is_some_and(|c| c > until) {
                        return Ok(Err(UpdateRefusal::WouldShorten));
                    }
                    row.excluded_until_ms = Some(until);
                }
            }
            let after = exclusion_value(&row, now_ms);
            if after != before {
                audit.push(entry(ProtectionChange::Exclusion, before, after, now_ms));
            }
        }
        ProtectionUpdate::SetExclusion { until_ms } => {
            let before = exclusion_value(&row, now_ms);
            row.excluded_until_ms = until_ms;
            row.excluded_indefinitely = false;
            let after = exclusion_value(&row, now_ms);
            if after != before {
                audit.push(entry(ProtectionChange::Exclusion, before, after, now_ms));
            }
        }
        ProtectionUpdate::RealityCheck { minutes } => {
            let before = row
                .reality_check_minutes
                .unwrap_or(defaults.reality_check_minutes);
            row.reality_check_minutes = Some(minutes);
            if before != minutes {
                audit.push(entry(
                    ProtectionChange::RealityCheck,
                    json!(before),
                    json!(minutes),
                    now_ms,
                ));
            }
        }
    }
    // A first change stores the defaults too, as a first sale does.
    if stored.is_none() || !audit.is_empty() || old != row {
        tx.put_protection_row(player_id, &row)?;
        for entry in &audit {
            tx.insert_audit(player_id, entry)?;
        }
    }
    view(tx, player_id, kind, now_ms, defaults).map(Ok)
}

/// The protection of a player of `kind` as the API shows it at `now_ms`.
pub fn view<T: ProtectionTx + ?Sized>(
    tx: &mut T,
    player_id: &str,
    kind: PlayerKind,
    now_ms: u64,
    defaults: &ProtectionDefaults,
) -> StoreResult<Protection> {
    let row = match tx.protection_row(player_id)? {
        Some(row) => row,
        None => ProtectionRow::defaults(kind, defaults),
    };
    let used = tx.window_totals(player_id, window_start(now_ms))?;
    Ok(protection_body(&row, used, now_ms, defaults))
}

pub fn protection_body(
    row: &ProtectionRow,
    used: WindowTotals,
    now_ms: u64,
    defaults: &ProtectionDefaults,
) -> Protection {
    let stake = row.stake.at(now_ms);
    let loss = row.loss.at(now_ms);
    let exclusion = row.exclusion(now_ms);
    Protection {
        weekly_stake_limit_cents: stake.current,
        weekly_loss_limit_cents: loss.current,
        pending_weekly_stake_limit: stake.pending,
        pending_weekly_loss_limit: loss.pending,
        stake_used_cents: used.stakes_cents,
        loss_used_cents: used.loss_cents(),
        excluded_until_ms: exclusion.flatten(),
        excluded_indefinitely: exclusion == Some(None),
        reality_check_minutes: row
            .reality_check_minutes
            .unwrap_or(defaults.reality_check_minutes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: u64 = 1_800_000_000_000;

    fn sale(sold_at_ms: u64, stake_cents: u64, prize_cents: u64) -> WindowSale {
        WindowSale {
            sold_at_ms,
            stake_cents,
            prize_cents,
        }
    }

    #[test]
    fn a_lower_or_first_limit_applies_at_once_a_higher_one_in_48_hours() {
        let none = LimitSetting::default();
        let (first, at) = none.request(Some(1000), NOW);
        assert_eq!((first.current, first.pending, at), (Some(1000), None, NOW));
        let (higher, at) = first.request(Some(2000), NOW);
        assert_eq!(higher.current, Some(1000));
        assert_eq!(at, NOW + RAISE_DELAY_MS);
        assert_eq!(higher.at(NOW + RAISE_DELAY_MS - 1).current, Some(1000));
        assert_eq!(higher.at(NOW + RAISE_DELAY_MS).current, Some(2000));
        // A lower request cancels the pending raise.
        let (lower, _) = higher.request(Some(500), NOW + 1);
        assert_eq!((lower.current, lower.pending), (Some(500), None));
        let (removed, at) = lower.request(None, NOW);
        assert_eq!(removed.current, Some(500));
        assert_eq!(
            removed.pending,
            Some(PendingLimit {
                limit_cents: None,
                effective_at_ms: at
            })
        );
    }

    #[test]
    fn room_frees_when_enough_old_sales_leave_the_window() {
        let sales = [
            sale(NOW - 5000, 200, 0),
            sale(NOW - 4000, 200, 0),
            sale(NOW - 10, 100, 0),
        ];
        // 500 used, limit 450, stake 200: the first two must leave.
        let at = frees_at(&sales, 200, 450, NOW, |t| t.stakes_cents);
        assert_eq!(at, NOW - 4000 + WEEK_MS);
        // Stake 100: the first leaving is enough.
        let at = frees_at(&sales, 100, 450, NOW, |t| t.stakes_cents);
        assert_eq!(at, NOW - 5000 + WEEK_MS);
    }

    #[test]
    fn a_win_leaving_the_window_does_not_free_loss_room() {
        // Loss 300 - 150 = 150, limit 100: a stake of 100 fits only once
        // all three have left; the win leaving first makes the loss worse.
        let sales = [
            sale(NOW - 9000, 100, 150),
            sale(NOW - 8000, 100, 0),
            sale(NOW - 7000, 100, 0),
        ];
        let loss = |t: WindowTotals| t.loss_cents();
        assert_eq!(frees_at(&sales, 100, 100, NOW, loss), NOW - 7000 + WEEK_MS);
        // The stake limit alone would free at the first one's leaving.
        let stakes = |t: WindowTotals| t.stakes_cents;
        assert_eq!(
            frees_at(&sales, 100, 300, NOW, stakes),
            NOW - 9000 + WEEK_MS
        );
    }

    #[test]
    fn a_stake_above_the_limit_frees_when_the_window_is_empty() {
        let sales = [sale(NOW - 10, 50, 0)];
        assert_eq!(
            frees_at(&sales, 200, 100, NOW, |t| t.stakes_cents),
            NOW - 10 + WEEK_MS
        );
        assert_eq!(frees_at(&[], 200, 100, NOW, |t| t.stakes_cents), NOW);
    }
}
