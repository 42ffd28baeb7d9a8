//! Player protection in SQLite: the primitives of `store::protection`.

use super::rows::{to_i64, to_u32, to_u64};
use super::SqlTx;
use crate::store::protection::{
    parse_audit_value, LimitSetting, ProtectionRow, ProtectionTx, WindowSale, WindowTotals,
};
use crate::store::{corrupt, StoreResult};
use eldorado_api::{AuditActor, AuditEntry, PendingLimit, ProtectionChange};
use rusqlite::{params, OptionalExtension, Row};

fn opt_u64(value: Option<i64>, what: &str) -> StoreResult<Option<u64>> {
    value.map(|v| to_u64(v, what)).transpose()
}

fn opt_i64(value: Option<u64>) -> StoreResult<Option<i64>> {
    value.map(to_i64).transpose()
}

fn setting(limit: Option<i64>, pending: Option<i64>, at: Option<i64>) -> StoreResult<LimitSetting> {
    Ok(LimitSetting {
        current: opt_u64(limit, "limit")?,
        pending: match at {
            None => None,
            Some(at) => Some(PendingLimit {
                limit_cents: opt_u64(pending, "pending limit")?,
                effective_at_ms: to_u64(at, "pending limit time")?,
            }),
        },
    })
}

type Columns = (
    Option<i64>,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    bool,
    Option<i64>,
);

fn columns(r: &Row<'_>) -> rusqlite::Result<Columns> {
    Ok((
        r.get(0)?,
        r.get(1)?,
        r.get(2)?,
        r.get(3)?,
        r.get(4)?,
        r.get(5)?,
        r.get(6)?,
        r.get(7)?,
        r.get(8)?,
    ))
}

fn audit_entry(
    (at, actor, change, old, new, effective): (i64, String, String, String, String, i64),
) -> StoreResult<AuditEntry> {
    Ok(AuditEntry {
        at_ms: to_u64(at, "audit time")?,
        actor: AuditActor::parse(&actor).ok_or_else(|| corrupt("audit actor"))?,
        change: ProtectionChange::parse(&change).ok_or_else(|| corrupt("audit change"))?,
        old: parse_audit_value(&old)?,
        new: parse_audit_value(&new)?,
        effective_at_ms: to_u64(effective, "audit effective time")?,
    })
}

impl ProtectionTx for SqlTx<'_> {
    fn protection_row(&mut self, player_id: &str) -> StoreResult<Option<ProtectionRow>> {
        let row = self
            .0
            .prepare_cached(
                "SELECT weekly_stake_limit_cents, pending_stake_limit_cents, pending_stake_effective_ms, \
                 weekly_loss_limit_cents, pending_loss_limit_cents, pending_loss_effective_ms, \
                 excluded_until_ms, excluded_indefinitely, reality_check_minutes \
                 FROM player_protection WHERE player_id = ?1",
            )?
            .query_row(params![player_id], columns)
            .optional()?;
        let Some((sl, sp, sa, ll, lp, la, until, indefinitely, minutes)) = row else {
            return Ok(None);
        };
        Ok(Some(ProtectionRow {
            stake: setting(sl, sp, sa)?,
            loss: setting(ll, lp, la)?,
            excluded_until_ms: opt_u64(until, "exclusion end")?,
            excluded_indefinitely: indefinitely,
            reality_check_minutes: minutes
                .map(|m| to_u32(m, "reality check minutes"))
                .transpose()?,
        }))
    }

    fn put_protection_row(&mut self, player_id: &str, row: &ProtectionRow) -> StoreResult<()> {
        let pending = |s: &LimitSetting| -> StoreResult<(Option<i64>, Option<i64>)> {
            Ok(match s.pending {
                None => (None, None),
                Some(p) => (opt_i64(p.limit_cents)?, Some(to_i64(p.effective_at_ms)?)),
            })
        };
        let (sp, sa) = pending(&row.stake)?;
        let (lp, la) = pending(&row.loss)?;
        self.0
            .prepare_cached(
                "INSERT OR REPLACE INTO player_protection (player_id, weekly_stake_limit_cents, \
                 pending_stake_limit_cents, pending_stake_effective_ms, weekly_loss_limit_cents, \
                 pending_loss_limit_cents, pending_loss_effective_ms, excluded_until_ms, \
                 excluded_indefinitely, reality_check_minutes) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)",
            )?
            .execute(params![
                player_id,
                opt_i64(row.stake.current)?,
                sp,
                sa,
                opt_i64(row.loss.current)?,
                lp,
                la,
                opt_i64(row.excluded_until_ms)?,
                row.excluded_indefinitely,
                row.reality_check_minutes,
            ])?;
        Ok(())
    }

    fn window_totals(&mut self, player_id: &str, after_ms: i64) -> StoreResult<WindowTotals> {
        let (stakes, prizes): (i64, i64) = self
            .0
            .prepare_cached(
                "SELECT COALESCE(SUM(stake_cents), 0), COALESCE(SUM(prize_cents), 0) FROM ( \
                 SELECT stake_cents, prize_cents FROM sales WHERE player_id = ?1 AND sold_at_ms > ?2 \
                 UNION ALL SELECT stake_cents, 0 FROM wallet_rounds \
                 WHERE player_id = ?1 AND state = 'reserved' AND reserved_at_ms > ?2)",
            )?
            .query_row(params![player_id, after_ms], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(WindowTotals {
            stakes_cents: to_u64(stakes, "stakes")?,
            prizes_cents: to_u64(prizes, "prizes")?,
        })
    }

    fn window_sales(&mut self, player_id: &str, after_ms: i64) -> StoreResult<Vec<WindowSale>> {
        let mut statement = self.0.prepare_cached(
            "SELECT at_ms, stake_cents, prize_cents FROM ( \
             SELECT sold_at_ms AS at_ms, stake_cents, prize_cents FROM sales \
             WHERE player_id = ?1 AND sold_at_ms > ?2 \
             UNION ALL SELECT reserved_at_ms, stake_cents, 0 FROM wallet_rounds \
             WHERE player_id = ?1 AND state = 'reserved' AND reserved_at_ms > ?2) ORDER BY at_ms",
        )?;
        let rows = statement.query_map(params![player_id, after_ms], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, i64>(2)?,
            ))
        })?;
        rows.map(|row| {
            let (at, stake, prize) = row?;
            Ok(WindowSale {
                sold_at_ms: to_u64(at, "sale time")?,
                stake_cents: to_u64(stake, "stake")?,
                prize_cents: to_u64(prize, "prize")?,
            })
        })
        .collect()
    }

    fn insert_audit(&mut self, player_id: &str, entry: &AuditEntry) -> StoreResult<()> {
        self.0
            .prepare_cached(
                "INSERT INTO protection_audit (player_id, at_ms, actor, change_kind, old_value, \
                 new_value, effective_at_ms) VALUES (?1,?2,?3,?4,?5,?6,?7)",
            )?
            .execute(params![
                player_id,
                to_i64(entry.at_ms)?,
                entry.actor.as_str(),
                entry.change.as_str(),
                entry.old.to_string(),
                entry.new.to_string(),
                to_i64(entry.effective_at_ms)?,
            ])?;
        Ok(())
    }

    fn audit(&mut self, player_id: &str) -> StoreResult<Vec<AuditEntry>> {
        let mut statement = self.0.prepare_cached(
            "SELECT at_ms, actor, change_kind, old_value, new_value, effective_at_ms \
             FROM protection_audit WHERE player_id = ?1 ORDER BY id DESC",
        )?;
        let rows = statement.query_map(params![player_id], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
            ))
        })?;
        rows.map(|row| audit_entry(row?)).collect()
    }
}
