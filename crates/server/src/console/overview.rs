//! The overview: today's figures per stake and money, the last 24 hours as
//! charts, live sessions and what needs someone's attention.

use super::blocks::money_text;
use super::charts::{self, Series};
use super::layout::{self, euros, euros_u, percent, Nav};
use super::text::Text;
use super::{Console, ConsoleError};
use crate::state::AppState;
use crate::store::{BlockStatus, SalesBucket};
use axum::extract::State;
use axum::response::Response;
use eldorado_api::DailyRow;
use eldorado_engine::Money;
use maud::{html, Markup, PreEscaped};
use std::collections::BTreeMap;

const MINUTE_MS: u64 = 60_000;
const HOUR_MS: u64 = 3_600_000;
const DAY_MS: u64 = 86_400_000;
/// A line whose open block has less than this share left (per mille), with
/// no block waiting behind it, is about to run out.
const LOW_LINE_PER_MILLE: u64 = 100;
/// A wallet call unacknowledged for longer than this is an alert.
const WALLET_LATE_MS: u64 = 60_000;

/// Something the operator's staff should look at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Alert {
    SaleWriterDown,
    GeneratorFailing,
    /// Requests refused because the server was full (503), since it started.
    Shed(u64),
    WalletLate {
        items: u64,
        oldest_age_ms: u64,
    },
    WalletGivenUp(u64),
    /// A stake and money with no ticket on sale.
    LineEmpty {
        stake_cents: u64,
        money: Money,
    },
    /// A line's last block on sale, with `left` of `tickets` unsold.
    LineLow {
        stake_cents: u64,
        money: Money,
        left: u32,
        tickets: u32,
    },
    /// Records of the public log not yet cosigned by a quorum of witnesses.
    WitnessesBehind(u64),
}

struct Overview {
    day: String,
    today: Vec<DailyRow>,
    live_sessions: u64,
    alerts: Vec<Alert>,
    /// Start of the 24 hours shown.
    since_ms: u64,
    per_minute: Vec<SalesBucket>,
    per_hour: Vec<SalesBucket>,
}

pub async fn page(
    State(state): State<AppState>,
    console: Console,
) -> Result<Response, ConsoleError> {
    let view = state.blocking(gather).await?;
    let t = console.text();
    Ok(console.page(
        Nav::Overview,
        "/operator/",
        t.overview,
        render(&console, &view),
    ))
}

fn gather(state: &AppState) -> Result<Overview, crate::error::ApiError> {
    let now = state.clock.now_ms();
    let day = crate::reports::day_of(now);
    let today = crate::reports::daily(&*state.store, &day, &day, 1)
        .map_err(crate::error::ApiError::internal)?
        .days;
    let since_ms = (now / MINUTE_MS + 1) * MINUTE_MS - DAY_MS;
    Ok(Overview {
        day,
        today,
        live_sessions: state.store.live_sessions(None, now)?,
        alerts: alerts(state, now)?,
        since_ms,
        per_minute: state.store.sales_buckets(since_ms, now + 1, MINUTE_MS)?,
        per_hour: state
            .store
            .sales_buckets(since_ms / HOUR_MS * HOUR_MS, now + 1, HOUR_MS)?,
    })
}

pub fn alerts(state: &AppState, now: u64) -> Result<Vec<Alert>, crate::error::ApiError> {
    let mut alerts = Vec::new();
    if !state.desk.is_running() {
        alerts.push(Alert::SaleWriterDown);
    }
    if !state.book.generator_ok() {
        alerts.push(Alert::GeneratorFailing);
    }
    let shed = shed_requests();
    if shed > 0 {
        alerts.push(Alert::Shed(shed));
    }
    if let Some(wallet) = &state.wallet {
        let backlog = wallet.backlog();
        let oldest_age_ms = backlog
            .oldest_queued_at_ms
            .map_or(0, |at| now.saturating_sub(at));
        if backlog.items > 0 && oldest_age_ms > WALLET_LATE_MS {
            alerts.push(Alert::WalletLate {
                items: backlog.items,
                oldest_age_ms,
            });
        }
        if backlog.given_up > 0 {
            alerts.push(Alert::WalletGivenUp(backlog.given_up));
        }
    }
    let blocks: Vec<LineBlock> = state
        .store
        .blocks()?
        .iter()
        .map(|b| LineBlock {
            stake_cents: b.stake_cents(),
            money: b.money(),
            status: b.status,
            tickets: b.signed.commitment.tickets,
            sold: b.sold,
        })
        .collect();
    alerts.extend(line_alerts(&blocks));
    let quorum = state.log.quorum();
    if quorum > 0 {
        let size = |c: Option<crate::store::public_log::ServedCheckpoint>| c.map_or(0, |c| c.size);
        let logged = size(state.store.log_checkpoint(0)?);
        let cosigned = size(state.store.log_checkpoint(quorum)?);
        if logged > cosigned {
            alerts.push(Alert::WitnessesBehind(logged - cosigned));
        }
    }
    Ok(alerts)
}

/// What the line alerts need of a block.
pub struct LineBlock {
    pub stake_cents: u64,
    pub money: Money,
    pub status: BlockStatus,
    pub tickets: u32,
    pub sold: u32,
}

/// The lines (stake and money) with no ticket on sale, or whose last block
/// on sale is nearly sold: nothing waits behind its open block and less
/// than a tenth of it is left.
pub fn line_alerts(blocks: &[LineBlock]) -> Vec<Alert> {
    struct Line {
        money: Money,
        open: Option<(u32, u32)>,
        pending: bool,
    }
    let mut lines: BTreeMap<(u64, &'static str), Line> = BTreeMap::new();
    for block in blocks {
        let line = lines
            .entry((block.stake_cents, block.money.as_str()))
            .or_insert(Line {
                money: block.money,
                open: None,
                pending: false,
            });
        match block.status {
            // Several open blocks of a line (`--open-blocks-per-line`)
            // count as one stock.
            BlockStatus::Open => {
                let (left, tickets) = line.open.unwrap_or((0, 0));
                line.open = Some((
                    left.saturating_add(block.tickets.saturating_sub(block.sold)),
                    tickets.saturating_add(block.tickets),
                ))
            }
            BlockStatus::Pending => line.pending = true,
            BlockStatus::SoldOut | BlockStatus::Closed => {}
        }
    }
    let mut alerts = Vec::new();
    for ((stake_cents, _), line) in lines {
        let money = line.money;
        match line.open {
            None if !line.pending => alerts.push(Alert::LineEmpty { stake_cents, money }),
            Some((left, tickets))
                if !line.pending
                    && u64::from(left) * 1000 < u64::from(tickets) * LOW_LINE_PER_MILLE =>
            {
                alerts.push(Alert::LineLow {
                    stake_cents,
                    money,
                    left,
                    tickets,
                })
            }
            _ => {}
        }
    }
    alerts
}

/// Requests this process shed with 503 `OVERLOADED`, as /metrics counts
/// them: the recorder's counters alone, without the gauges a scrape reads
/// from the store (the alerts read what they need themselves).
fn shed_requests() -> u64 {
    let text = crate::metrics::handle().render();
    let Ok(scrape) = prometheus_parse::Scrape::parse(text.lines().map(|l| Ok(l.to_owned()))) else {
        return 0;
    };
    scrape
        .samples
        .iter()
        .filter(|s| s.metric == crate::metrics::ERRORS)
        .filter(|s| s.labels.get("code") == Some("OVERLOADED"))
        .map(|s| match s.value {
            prometheus_parse::Value::Counter(v) | prometheus_parse::Value::Untyped(v) => v as u64,
            _ => 0,
        })
        .sum()
}

pub fn alert_text(t: &Text, lang: super::Lang, alert: &Alert) -> String {
    let line =
        |stake: &u64, money: &Money| format!("{} {}", euros_u(lang, *stake), money_text(t, *money));
    match alert {
        Alert::SaleWriterDown => t.alert_sale_writer.to_owned(),
        Alert::GeneratorFailing => t.alert_generator.to_owned(),
        Alert::Shed(n) => format!("{} {n}", t.alert_shed),
        Alert::WalletLate {
            items,
            oldest_age_ms,
        } => format!(
            "{} {items} ({} {})",
            t.alert_wallet_late,
            t.oldest,
            layout::age(*oldest_age_ms)
        ),
        Alert::WalletGivenUp(n) => format!("{} {n}", t.alert_wallet_given_up),
        Alert::LineEmpty { stake_cents, money } => {
            format!("{} {}", t.alert_line_empty, line(stake_cents, money))
        }
        Alert::LineLow {
            stake_cents,
            money,
            left,
            tickets,
        } => format!(
            "{} {} ({left} / {tickets})",
            t.alert_line_low,
            line(stake_cents, money)
        ),
        Alert::WitnessesBehind(n) => format!("{} {n}", t.alert_witnesses),
    }
}

fn render(console: &Console, view: &Overview) -> Markup {
    let (t, lang) = (console.text(), console.lang);
    let total = view.today.iter().fold((0u64, 0u64, 0u64), |(n, s, p), r| {
        (n + r.tickets, s + r.stakes_cents, p + r.prizes_cents)
    });
    let minutes = filled(&view.per_minute, view.since_ms, MINUTE_MS, 24 * 60);
    let first_hour = view.since_ms / HOUR_MS * HOUR_MS;
    let hours = filled(&view.per_hour, first_hour, HOUR_MS, 25);
    // Each bucket at its end, in hours before now, with its value.
    let points = |buckets: &[SalesBucket], width: u64, value: fn(&SalesBucket) -> f64| {
        buckets
            .iter()
            .map(|b| {
                let end = b.start_ms as f64 + width as f64 - (view.since_ms + DAY_MS) as f64;
                (end / HOUR_MS as f64, value(b))
            })
            .collect()
    };
    let plays = charts::line_chart(
        t.chart_plays,
        t.hours_ago,
        &[Series {
            name: t.plays_per_minute,
            colour: charts::GOLD,
            points: points(&minutes, MINUTE_MS, |b| b.tickets as f64),
        }],
    );
    let money = charts::line_chart(
        t.chart_money,
        t.hours_ago,
        &[
            Series {
                name: t.stakes_eur,
                colour: charts::GOLD,
                points: points(&hours, HOUR_MS, |b| b.stakes_cents as f64 / 100.0),
            },
            Series {
                name: t.prizes_eur,
                colour: charts::BLUE,
                points: points(&hours, HOUR_MS, |b| b.prizes_cents as f64 / 100.0),
            },
        ],
    );
    html! {
        section aria-labelledby="alerts" {
            h2 #alerts { (t.alerts) }
            @if view.alerts.is_empty() {
                p.ok #no-alert { (t.no_alert) }
            } @else {
                ul.alerts {
                    @for alert in &view.alerts { li { (alert_text(t, lang, alert)) } }
                }
            }
        }
        section aria-labelledby="today" {
            h2 #today { (t.today) " (" (view.day) ", UTC)" }
            p { (t.live_sessions) " " strong #live-sessions { (view.live_sessions) } }
            table #today-figures {
                thead { tr {
                    th scope="col" { (t.stake) } th scope="col" { (t.money) }
                    th scope="col" { (t.tickets) } th scope="col" { (t.stakes) }
                    th scope="col" { (t.prizes) } th scope="col" { (t.ggr) }
                    th scope="col" { (t.rtp) }
                } }
                tbody {
                    @for row in &view.today {
                        tr {
                            td { (euros_u(lang, row.stake_cents)) }
                            td { (if row.money == "real" { t.money_real } else { t.money_play }) }
                            td.num { (row.tickets) }
                            td.num data-cents=(row.stakes_cents) { (euros_u(lang, row.stakes_cents)) }
                            td.num data-cents=(row.prizes_cents) { (euros_u(lang, row.prizes_cents)) }
                            td.num data-cents=(row.ggr_cents) { (euros(lang, row.ggr_cents)) }
                            td.num { (percent(lang, row.rtp_basis_points)) }
                        }
                    }
                }
                tfoot { tr #today-total {
                    th scope="row" colspan="2" { (t.total) }
                    td.num data-tickets=(total.0) { (total.0) }
                    td.num data-cents=(total.1) { (euros_u(lang, total.1)) }
                    td.num data-cents=(total.2) { (euros_u(lang, total.2)) }
                    td.num { (euros(lang, total.1 as i64 - total.2 as i64)) }
                    td.num { (percent(lang, (total.2 * 10_000).checked_div(total.1).unwrap_or(0))) }
                } }
            }
        }
        section.charts aria-labelledby="last-day" {
            h2 #last-day { (t.last_24_hours) }
            figure { (PreEscaped(plays)) }
            figure { (PreEscaped(money)) }
        }
    }
}

/// Every bucket from `start`, with zeros where nothing sold.
fn filled(buckets: &[SalesBucket], start: u64, width: u64, count: u64) -> Vec<SalesBucket> {
    let mut by_start: BTreeMap<u64, SalesBucket> =
        buckets.iter().map(|b| (b.start_ms, *b)).collect();
    (0..count)
        .map(|i| {
            let start_ms = start + i * width;
            by_start.remove(&start_ms).unwrap_or(SalesBucket {
                start_ms,
                tickets: 0,
                stakes_cents: 0,
                prizes_cents: 0,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(stake_cents: u64, money: Money, status: BlockStatus, sold: u32) -> LineBlock {
        LineBlock {
            stake_cents,
            money,
            status,
            tickets: 1_000,
            sold,
        }
    }

    #[test]
    fn a_line_alerts_when_its_last_block_runs_low_or_nothing_is_on_sale() {
        use BlockStatus::*;
        let blocks = [
            // 0.50 € play: open and one waiting: fine however sold.
            block(50, Money::Play, Open, 999),
            block(50, Money::Play, Pending, 0),
            // 1 € play: the last block, 100 left of 1,000: not yet.
            block(100, Money::Play, Open, 900),
            // 2 € play: the last block, 99 left.
            block(200, Money::Play, Open, 901),
            // 2 € real: only finished blocks.
            block(200, Money::Real, SoldOut, 1_000),
            block(200, Money::Real, Closed, 10),
            // 1 € real: a pending block only (it opens when asked).
            block(100, Money::Real, Pending, 0),
            // 0.50 € real: two open blocks, 100 left of their 2,000.
            block(50, Money::Real, Open, 950),
            block(50, Money::Real, Open, 950),
        ];
        assert_eq!(
            line_alerts(&blocks),
            [
                Alert::LineLow {
                    stake_cents: 50,
                    money: Money::Real,
                    left: 100,
                    tickets: 2_000
                },
                Alert::LineLow {
                    stake_cents: 200,
                    money: Money::Play,
                    left: 99,
                    tickets: 1_000
                },
                Alert::LineEmpty {
                    stake_cents: 200,
                    money: Money::Real
                },
            ]
        );
    }
}
