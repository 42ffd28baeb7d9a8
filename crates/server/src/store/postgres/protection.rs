//! Player protection in PostgreSQL: the primitives of `store::protection`.
//! The caller holds the player's row lock (`FOR UPDATE`), which orders the
//! reads and writes of one player's settings and sales.

use super::PgTx;
use crate::store::protection::{
    parse_audit_value, LimitSetting, ProtectionRow, ProtectionTx, WindowSale, WindowTotals,
};
use crate::store::sqlite::rows::{to_i64, to_u32, to_u64};
use crate::store::{corrupt, StoreResult};
use eldorado_api::{AuditActor, AuditEntry, PendingLimit, ProtectionChange};

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

impl ProtectionTx for PgTx<'_> {
    fn protection_row(&mut self, player_id: &str) -> StoreResult<Option<ProtectionRow>> {
        let Some(r) = self.0.query_opt(
            "SELECT weekly_stake_limit_cents, pending_stake_limit_cents, pending_stake_effective_ms, \
             weekly_loss_limit_cents, pending_loss_limit_cents, pending_loss_effective_ms, \
             excluded_until_ms, excluded_indefinitely, reality_check_minutes \
             FROM player_protection WHERE player_id = $1",
            &[&player_id],
        )?
        else {
            return Ok(None);
        };
        let minutes: Option<i64> = r.try_get(8)?;
        Ok(Some(ProtectionRow {
            stake: setting(r.try_get(0)?, r.try_get(1)?, r.try_get(2)?)?,
            loss: setting(r.try_get(3)?, r.try_get(4)?, r.try_get(5)?)?,
            excluded_until_ms: opt_u64(r.try_get(6)?, "exclusion end")?,
            excluded_indefinitely: r.try_get(7)?,
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
        self.0.execute(
            "INSERT INTO player_protection (player_id, weekly_stake_limit_cents, \
             pending_stake_limit_cents, pending_stake_effective_ms, weekly_loss_limit_cents, \
             pending_loss_limit_cents, pending_loss_effective_ms, excluded_until_ms, \
             excluded_indefinitely, reality_check_minutes) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10) \
             ON CONFLICT (player_id) DO UPDATE SET \
             weekly_stake_limit_cents = EXCLUDED.weekly_stake_limit_cents, \
             pending_stake_limit_cents = EXCLUDED.pending_stake_limit_cents, \
             pending_stake_effective_ms = EXCLUDED.pending_stake_effective_ms, \
             weekly_loss_limit_cents = EXCLUDED.weekly_loss_limit_cents, \
             pending_loss_limit_cents = EXCLUDED.pending_loss_limit_cents, \
             pending_loss_effective_ms = EXCLUDED.pending_loss_effective_ms, \
             excluded_until_ms = EXCLUDED.excluded_until_ms, \
             excluded_indefinitely = EXCLUDED.excluded_indefinitely, \
             reality_check_minutes = EXCLUDED.reality_check_minutes",
            &[
                &player_id,
                &opt_i64(row.stake.current)?,
                &sp,
                &sa,
                &opt_i64(row.loss.current)?,
                &lp,
                &la,
                &opt_i64(row.excluded_until_ms)?,
                &row.excluded_indefinitely,
                &row.reality_check_minutes.map(i64::from),
            ],
        )?;
        Ok(())
    }

    fn window_totals(&mut self, player_id: &str, after_ms: i64) -> StoreResult<WindowTotals> {
        // SUM of BIGINT is NUMERIC in PostgreSQL: cast back, as the sums of
        // one player's week are far below the BIGINT range.
        let r = self.0.query_one(
            "SELECT COALESCE(SUM(stake_cents), 0)::BIGINT, COALESCE(SUM(prize_cents), 0)::BIGINT \
             FROM (SELECT stake_cents, prize_cents FROM sales \
             WHERE player_id = $1 AND sold_at_ms > $2 \
             UNION ALL SELECT stake_cents, 0 FROM wallet_rounds \
             WHERE player_id = $1 AND state = 'reserved' AND reserved_at_ms > $2) AS window_stakes",
            &[&player_id, &after_ms],
        )?;
        Ok(WindowTotals {
            stakes_cents: to_u64(r.try_get(0)?, "stakes")?,
            prizes_cents: to_u64(r.try_get(1)?, "prizes")?,
        })
    }

    fn window_sales(&mut self, player_id: &str, after_ms: i64) -> StoreResult<Vec<WindowSale>> {
        self.0
            .query(
                "SELECT at_ms, stake_cents, prize_cents FROM (\
                 SELECT sold_at_ms AS at_ms, stake_cents, prize_cents FROM sales \
                 WHERE player_id = $1 AND sold_at_ms > $2 \
                 UNION ALL SELECT reserved_at_ms, stake_cents, 0::BIGINT FROM wallet_rounds \
                 WHERE player_id = $1 AND state = 'reserved' AND reserved_at_ms > $2) AS window_stakes \
                 ORDER BY at_ms",
                &[&player_id, &after_ms],
            )?
            .iter()
            .map(|r| {
                Ok(WindowSale {
                    sold_at_ms: to_u64(r.try_get(0)?, "sale time")?,
                    stake_cents: to_u64(r.try_get(1)?, "stake")?,
                    prize_cents: to_u64(r.try_get(2)?, "prize")?,
                })
            })
            .collect()
    }

    fn insert_audit(&mut self, player_id: &str, entry: &AuditEntry) -> StoreResult<()> {
        self.0.execute(
            "INSERT INTO protection_audit (player_id, at_ms, actor, change_kind, old_value, \
             new_value, effective_at_ms) VALUES ($1,$2,$3,$4,$5,$6,$7)",
            &[
                &player_id,
                &to_i64(entry.at_ms)?,
                &entry.actor.as_str(),
                &entry.change.as_str(),
                &entry.old.to_string(),
                &entry.new.to_string(),
                &to_i64(entry.effective_at_ms)?,
            ],
        )?;
        Ok(())
    }

    fn audit(&mut self, player_id: &str) -> StoreResult<Vec<AuditEntry>> {
        self.0
            .query(
                "SELECT at_ms, actor, change_kind, old_value, new_value, effective_at_ms \
                 FROM protection_audit WHERE player_id = $1 ORDER BY id DESC",
                &[&player_id],
            )?
            .iter()
            .map(|r| {
                let actor: String = r.try_get(1)?;
                let change: String = r.try_get(2)?;
                let old: String = r.try_get(3)?;
                let new: String = r.try_get(4)?;
                Ok(AuditEntry {
                    at_ms: to_u64(r.try_get(0)?, "audit time")?,
                    actor: AuditActor::parse(&actor).ok_or_else(|| corrupt("audit actor"))?,
                    change: ProtectionChange::parse(&change)
                        .ok_or_else(|| corrupt("audit change"))?,
                    old: parse_audit_value(&old)?,
                    new: parse_audit_value(&new)?,
                    effective_at_ms: to_u64(r.try_get(5)?, "audit effective time")?,
                })
            })
            .collect()
    }
}
