//! The operator's daily report (`GET /api/operator/reports/daily`,
//! `eldorado report daily`): per UTC day, stake and money, the tickets
//! sold, the stakes, the prizes, the gross gaming revenue and the realised
//! return; per block that finished in those days, its prize counts against
//! the rules. Every figure is a sum over the sales table, so it reconciles
//! with it to the cent.

use crate::store::{BlockRecord, BlockStatus, Store, StoreError};
use eldorado_api::{BlockPayout, DailyReport, DailyRow, RankPayout};
use eldorado_engine::prize_table::RANKS;
use time::{Date, Month};

const DAY_MS: u64 = 86_400_000;
/// Julian day number of 1970-01-01.
const UNIX_EPOCH_JULIAN_DAY: i64 = 2_440_588;

#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("{0}: a day is written YYYY-MM-DD")]
    BadDay(String),
    #[error("at most {0} days per report")]
    TooLong(u32),
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn parse_day(text: &str) -> Result<Date, ReportError> {
    let bad = || ReportError::BadDay(text.to_owned());
    let mut parts = text.splitn(3, '-');
    let mut number = || -> Result<u32, ReportError> {
        let part = parts.next().ok_or_else(bad)?;
        if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        part.parse().map_err(|_| bad())
    };
    let (year, month, day) = (number()?, number()?, number()?);
    let month = u8::try_from(month)
        .ok()
        .and_then(|m| Month::try_from(m).ok())
        .ok_or_else(bad)?;
    let day = u8::try_from(day).map_err(|_| bad())?;
    Date::from_calendar_date(i32::try_from(year).map_err(|_| bad())?, month, day).map_err(|_| bad())
}

/// Days since 1970-01-01.
fn unix_day(date: Date) -> i64 {
    i64::from(date.to_julian_day()) - UNIX_EPOCH_JULIAN_DAY
}

fn day_text(unix_day: i64) -> String {
    i32::try_from(unix_day + UNIX_EPOCH_JULIAN_DAY)
        .ok()
        .and_then(|julian| Date::from_julian_day(julian).ok())
        .map_or_else(|| unix_day.to_string(), |date| date.to_string())
}

/// The UTC day holding the Unix time `ms`, as `YYYY-MM-DD`.
pub fn day_of(ms: u64) -> String {
    day_text(i64::try_from(ms / DAY_MS).unwrap_or(i64::MAX))
}

/// The report of the days `from..=to` (`YYYY-MM-DD`, UTC), at most
/// `max_days` of them; empty when `to` comes before `from` (no day).
pub fn daily(
    store: &dyn Store,
    from: &str,
    to: &str,
    max_days: u32,
) -> Result<DailyReport, ReportError> {
    let (first, last) = (unix_day(parse_day(from)?), unix_day(parse_day(to)?));
    if last - first >= i64::from(max_days) {
        return Err(ReportError::TooLong(max_days));
    }
    // Sales are stamped from 1970 on: earlier days hold none.
    let days_ms = |day: i64| u64::try_from(day.max(0)).unwrap_or(0) * DAY_MS;
    let (from_ms, to_ms) = (days_ms(first), days_ms(last + 1));
    if from_ms >= to_ms {
        return Ok(DailyReport {
            from: from.to_owned(),
            to: to.to_owned(),
            days: Vec::new(),
            blocks: Vec::new(),
        });
    }
    let days = store
        .daily_sales(from_ms, to_ms)?
        .into_iter()
        .map(|row| DailyRow {
            day: day_text(row.day),
            stake_cents: row.stake_cents,
            money: row.money.as_str().to_owned(),
            tickets: row.tickets,
            stakes_cents: row.stakes_cents,
            prizes_cents: row.prizes_cents,
            ggr_cents: row.stakes_cents as i64 - row.prizes_cents as i64,
            rtp_basis_points: (row.prizes_cents * 10_000)
                .checked_div(row.stakes_cents)
                .unwrap_or(0),
        })
        .collect();
    let mut blocks = Vec::new();
    for id in store.blocks_finished_between(from_ms, to_ms)? {
        let Some(record) = store.block(id)? else {
            continue;
        };
        blocks.push(block_payout(&record));
    }
    Ok(DailyReport {
        from: from.to_owned(),
        to: to.to_owned(),
        days,
        blocks,
    })
}

/// A finished block's prize counts against the rules.
pub fn block_payout(record: &BlockRecord) -> BlockPayout {
    let stake = record.stake_cents();
    let ranks = RANKS
        .iter()
        .map(|rank| {
            let prize_cents = u64::from(rank.multiple) * stake;
            let left = record
                .remaining_by_prize
                .iter()
                .find(|(prize, _)| *prize == prize_cents)
                .map_or(0, |(_, n)| *n);
            RankPayout {
                rank: rank.rank,
                prize_cents,
                in_rules: rank.count,
                sold: rank.count.saturating_sub(left),
            }
        })
        .collect();
    BlockPayout {
        block: record.id(),
        stake_cents: stake,
        money: record.money().as_str().to_owned(),
        status: match record.status {
            BlockStatus::SoldOut => "sold_out",
            _ => "closed",
        }
        .to_owned(),
        sold: record.sold,
        ranks,
    }
}

/// The days of a report as CSV, one line per day, stake and money.
pub fn days_csv(report: &DailyReport) -> Result<String, csv::Error> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    for row in &report.days {
        writer.serialize(row)?;
    }
    let bytes = writer.into_inner().map_err(|e| e.into_error())?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_are_calendar_days_of_utc() {
        assert_eq!(unix_day(parse_day("1970-01-01").unwrap()), 0);
        assert_eq!(unix_day(parse_day("2026-12-05").unwrap()), 20_792);
        assert_eq!(day_text(20_792), "2026-12-05");
        for bad in [
            "2026-13-01",
            "2026-02-30",
            "2026-1-x",
            "",
            "2026-12",
            "+2026-12-05",
            "2026-12-05-1",
        ] {
            assert!(parse_day(bad).is_err(), "{bad}");
        }
    }
}
