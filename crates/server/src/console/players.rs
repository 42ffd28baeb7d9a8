//! Players: search by id; one player's balance, sessions (revoke them),
//! limits and exclusion (changed under the same rules as the operator API,
//! a raised limit pending for 48 hours), the audit trail of those changes
//! by page, and recent sales with their receipts.

use super::blocks::pager;
use super::layout::{euros_u, utc, Nav};
use super::text::Text;
use super::{Console, ConsoleError, ConsoleForm, CsrfOnly, Lang, QueryOr};
use crate::error::ApiError;
use crate::routes::operator::check_player_id;
use crate::routes::path_id;
use crate::state::AppState;
use crate::store::protection::ProtectionUpdate;
use crate::store::{PlayerKind, PlayerRecord, SaleRecord};
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::Json;
use eldorado_api::{AuditActor, AuditEntry, PendingLimit, Protection};
use maud::{html, Markup};

/// Players listed by a search.
const FOUND: u32 = 50;
/// Audit entries per page, newest first.
const AUDIT_PAGE: usize = 20;
/// Recent sales shown.
const RECENT_SALES: u32 = 20;
/// The longest exclusion the console sets, in days (ten years).
const MAX_EXCLUSION_DAYS: u64 = 3_650;
const DAY_MS: u64 = 86_400_000;

#[derive(serde::Deserialize, Default)]
pub struct SearchQuery {
    q: Option<String>,
}

pub async fn search(
    State(state): State<AppState>,
    console: Console,
    QueryOr(query): QueryOr<SearchQuery>,
) -> Result<Response, ConsoleError> {
    let t = console.text();
    let prefix = query.q.unwrap_or_default().trim().to_owned();
    let refused = !prefix.is_empty() && check_player_id(&prefix).is_err();
    let found = if refused {
        Vec::new()
    } else {
        let prefix = prefix.clone();
        state
            .blocking(move |state| Ok(state.store.players_with_prefix(&prefix, FOUND)?))
            .await?
    };
    let body = html! {
        form.search method="get" action="/operator/players" role="search" {
            label for="q" { (t.player_id_starts) }
            input #q type="search" name="q" value=(prefix) maxlength="64";
            button type="submit" { (t.search) }
        }
        @if refused { p.alert role="alert" { (t.bad_player_id) } }
        table #players {
            thead { tr {
                th scope="col" { (t.player) } th scope="col" { (t.kind) }
                th scope="col" { (t.balance) }
            } }
            tbody {
                @for player in &found {
                    tr {
                        td { a href={ "/operator/players/" (player.id) } { (player.id) } }
                        td { (kind_text(t, player.kind)) }
                        td.num { (euros_u(console.lang, player.balance_cents)) }
                    }
                }
            }
        }
        @if found.len() as u32 == FOUND { p.note { (t.more_players) } }
    };
    Ok(console.page(Nav::Players, "/operator/players", t.players, body))
}

fn kind_text(t: &Text, kind: PlayerKind) -> &'static str {
    match kind {
        PlayerKind::Demo => t.kind_demo,
        PlayerKind::Operator => t.kind_operator,
    }
}

#[derive(serde::Deserialize, Default)]
pub struct PlayerQuery {
    page: Option<usize>,
}

struct PlayerView {
    player: PlayerRecord,
    sessions: u64,
    protection: Protection,
    audit: Vec<AuditEntry>,
    sales: Vec<SaleRecord>,
    now: u64,
}

fn player_id(text: &str) -> Result<String, ConsoleError> {
    check_player_id(text).map_err(|_| ConsoleError::NotFound)?;
    Ok(text.to_owned())
}

pub async fn player(
    State(state): State<AppState>,
    console: Console,
    Path(id): Path<String>,
    QueryOr(query): QueryOr<PlayerQuery>,
) -> Result<Response, ConsoleError> {
    let id = player_id(&id)?;
    let page = query.page.unwrap_or(0);
    let view = state
        .blocking(move |state| {
            let now = state.clock.now_ms();
            let player = state
                .store
                .player(&id)?
                .ok_or_else(|| ApiError::not_found("player"))?;
            Ok(PlayerView {
                sessions: state.store.live_sessions(Some(&id), now)?,
                protection: state
                    .store
                    .protection(&id, now)?
                    .ok_or_else(|| ApiError::not_found("player"))?,
                audit: state.store.protection_audit(&id)?,
                sales: state.store.history(&id, None, RECENT_SALES)?,
                player,
                now,
            })
        })
        .await?;
    let path = format!("/operator/players/{}", view.player.id);
    let body = render(&console, &view, page, &path);
    Ok(console.page(Nav::Players, &path, &view.player.id, body))
}

fn limit_text(t: &Text, lang: Lang, limit: Option<u64>) -> String {
    limit.map_or_else(|| t.no_limit.to_owned(), |c| euros_u(lang, c))
}

fn pending_text(t: &Text, lang: Lang, pending: &Option<PendingLimit>) -> Option<String> {
    pending.as_ref().map(|p| {
        format!(
            "{} {} {} {}",
            t.pending,
            limit_text(t, lang, p.limit_cents),
            t.from,
            utc(p.effective_at_ms)
        )
    })
}

/// Cents as the form shows them: `12,50` (`12.50` in English), empty for
/// no limit.
fn form_euros(lang: Lang, cents: Option<u64>) -> String {
    let point = match lang {
        Lang::Fr => ',',
        Lang::En => '.',
    };
    cents.map_or_else(String::new, |c| format!("{}{point}{:02}", c / 100, c % 100))
}

fn render(console: &Console, view: &PlayerView, page: usize, path: &str) -> Markup {
    let (t, lang) = (console.text(), console.lang);
    let p = &view.protection;
    let id = &view.player.id;
    let excluded = if p.excluded_indefinitely {
        Some(t.until_lifted.to_owned())
    } else {
        p.excluded_until_ms
            .filter(|until| *until > view.now)
            .map(|until| format!("{} {}", t.until, utc(until)))
    };
    let pages = view.audit.len().div_ceil(AUDIT_PAGE);
    html! {
        dl.facts #player-facts {
            dt { (t.kind) } dd { (kind_text(t, view.player.kind)) }
            dt { (t.balance) } dd #balance data-cents=(view.player.balance_cents) { (euros_u(lang, view.player.balance_cents)) }
            dt { (t.live_sessions) } dd #sessions { (view.sessions) }
        }
        form method="post" action={ "/operator/players/" (id) "/sessions/revoke" } {
            input type="hidden" name="csrf" value=(console.csrf);
            button #revoke type="submit" disabled[view.sessions == 0] { (t.revoke_sessions) }
        }
        section aria-labelledby="protection" {
            h2 #protection { (t.protection) }
            dl.facts #protection-facts {
                dt { (t.weekly_stake_limit) }
                dd #stake-limit {
                    (limit_text(t, lang, p.weekly_stake_limit_cents))
                    " (" (t.used) " " (euros_u(lang, p.stake_used_cents)) ")"
                    @if let Some(text) = pending_text(t, lang, &p.pending_weekly_stake_limit) { br; span.pending { (text) } }
                }
                dt { (t.weekly_loss_limit) }
                dd #loss-limit {
                    (limit_text(t, lang, p.weekly_loss_limit_cents))
                    " (" (t.used) " " (euros_u(lang, p.loss_used_cents)) ")"
                    @if let Some(text) = pending_text(t, lang, &p.pending_weekly_loss_limit) { br; span.pending { (text) } }
                }
                dt { (t.exclusion) }
                dd #exclusion { (excluded.unwrap_or_else(|| t.not_excluded.to_owned())) }
                dt { (t.reality_check) }
                dd { (p.reality_check_minutes) " min" }
            }
            form.limits method="post" action={ "/operator/players/" (id) "/limits" } {
                input type="hidden" name="csrf" value=(console.csrf);
                label for="weekly_stake" { (t.weekly_stake_limit) " (€)" }
                input #weekly_stake name="weekly_stake" inputmode="decimal" value=(form_euros(lang, p.weekly_stake_limit_cents));
                label for="weekly_loss" { (t.weekly_loss_limit) " (€)" }
                input #weekly_loss name="weekly_loss" inputmode="decimal" value=(form_euros(lang, p.weekly_loss_limit_cents));
                button #save-limits type="submit" { (t.save_limits) }
                p.note { (t.limits_rule) }
            }
            form.exclusion method="post" action={ "/operator/players/" (id) "/exclusion" } {
                input type="hidden" name="csrf" value=(console.csrf);
                label for="days" { (t.exclude_for_days) }
                input #days name="days" inputmode="numeric" size="5";
                button #exclude type="submit" name="action" value="exclude" { (t.exclude) }
                " "
                button #lift type="submit" name="action" value="lift" { (t.lift_exclusion) }
            }
        }
        section aria-labelledby="audit" {
            h2 #audit { (t.audit_trail) }
            table #audit-trail {
                thead { tr {
                    th scope="col" { (t.when) } th scope="col" { (t.by) }
                    th scope="col" { (t.change) } th scope="col" { (t.before) }
                    th scope="col" { (t.after) } th scope="col" { (t.effective) }
                } }
                tbody {
                    @for entry in view.audit.iter().skip(page.saturating_mul(AUDIT_PAGE)).take(AUDIT_PAGE) {
                        tr {
                            td { (utc(entry.at_ms)) }
                            td { (match entry.actor { AuditActor::Player => t.by_player, AuditActor::Operator => t.by_operator }) }
                            td { code { (entry.change.as_str()) } }
                            td { code { (entry.old) } }
                            td { code { (entry.new) } }
                            td { (utc(entry.effective_at_ms)) }
                        }
                    }
                }
            }
            (pager(t, &format!("{path}?"), page, pages))
        }
        section aria-labelledby="sales" {
            h2 #sales { (t.recent_sales) }
            table #recent-sales {
                thead { tr {
                    th scope="col" { (t.sale) } th scope="col" { (t.when) }
                    th scope="col" { (t.block) } th scope="col" { (t.stake) }
                    th scope="col" { (t.prize) } th scope="col" { (t.receipt) }
                } }
                tbody {
                    @for sale in &view.sales {
                        tr {
                            td { (sale.sale_id) }
                            td { (utc(sale.sold_at_ms)) }
                            td { (sale.block) }
                            td.num { (euros_u(lang, sale.ticket.stake_cents)) }
                            td.num { (euros_u(lang, sale.ticket.prize_cents)) }
                            td {
                                @if sale.log_index.is_some() {
                                    a href={ "/operator/players/" (id) "/sales/" (sale.sale_id) "/receipt" } download { "JSON" }
                                } @else { "—" }
                            }
                        }
                    }
                }
            }
        }
    }
}

pub async fn revoke_sessions(
    State(state): State<AppState>,
    console: Console,
    headers: HeaderMap,
    Path(id): Path<String>,
    ConsoleForm(form): ConsoleForm<CsrfOnly>,
) -> Result<Response, ConsoleError> {
    console.check_form(&state, &headers, &form.csrf)?;
    let id = player_id(&id)?;
    let player = id.clone();
    let ended = state
        .blocking(move |state| state.sessions.revoke_player(&player))
        .await?;
    tracing::warn!(player = %id, ended, "the operator's console ended a player's sessions");
    Ok(Redirect::to(&format!("/operator/players/{id}")).into_response())
}

#[derive(serde::Deserialize)]
pub struct LimitsForm {
    csrf: String,
    weekly_stake: String,
    weekly_loss: String,
}

/// `12`, `12.5`, `12,50` as cents; empty for no limit.
fn parse_euros(text: &str) -> Result<Option<u64>, ()> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    let (whole, part) = text.split_once(['.', ',']).unwrap_or((text, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || whole.len() > 9 || part.len() > 2 || !digits(whole) || !digits(part) {
        return Err(());
    }
    let part = format!("{part:0<2}");
    Ok(Some(
        whole.parse::<u64>().map_err(|_| ())? * 100 + part.parse::<u64>().map_err(|_| ())?,
    ))
}

pub async fn limits(
    State(state): State<AppState>,
    console: Console,
    headers: HeaderMap,
    Path(id): Path<String>,
    ConsoleForm(form): ConsoleForm<LimitsForm>,
) -> Result<Response, ConsoleError> {
    console.check_form(&state, &headers, &form.csrf)?;
    let id = player_id(&id)?;
    let t = console.text();
    let bad = || ConsoleError::Refused(StatusCode::BAD_REQUEST, t.bad_amount.to_owned());
    let update = ProtectionUpdate::Limits {
        weekly_stake_limit_cents: parse_euros(&form.weekly_stake).map_err(|()| bad())?,
        weekly_loss_limit_cents: parse_euros(&form.weekly_loss).map_err(|()| bad())?,
    };
    crate::routes::protection::apply(state, id.clone(), update, AuditActor::Operator).await?;
    Ok(Redirect::to(&format!("/operator/players/{id}")).into_response())
}

#[derive(serde::Deserialize)]
pub struct ExclusionForm {
    csrf: String,
    action: String,
    #[serde(default)]
    days: String,
}

pub async fn exclusion(
    State(state): State<AppState>,
    console: Console,
    headers: HeaderMap,
    Path(id): Path<String>,
    ConsoleForm(form): ConsoleForm<ExclusionForm>,
) -> Result<Response, ConsoleError> {
    console.check_form(&state, &headers, &form.csrf)?;
    let id = player_id(&id)?;
    let t = console.text();
    let until_ms = match form.action.as_str() {
        "lift" => None,
        "exclude" => {
            let days = form
                .days
                .trim()
                .parse::<u64>()
                .ok()
                .filter(|d| (1..=MAX_EXCLUSION_DAYS).contains(d))
                .ok_or_else(|| {
                    ConsoleError::Refused(StatusCode::BAD_REQUEST, t.bad_days.to_owned())
                })?;
            Some(state.clock.now_ms() + days * DAY_MS)
        }
        _ => {
            return Err(ConsoleError::Refused(
                StatusCode::BAD_REQUEST,
                t.bad_days.to_owned(),
            ))
        }
    };
    let update = ProtectionUpdate::SetExclusion { until_ms };
    crate::routes::protection::apply(state, id.clone(), update, AuditActor::Operator).await?;
    Ok(Redirect::to(&format!("/operator/players/{id}")).into_response())
}

/// A sale's receipt, as the player would download it, for the operator's
/// staff to hand over or check with `eldorado verify`.
pub async fn receipt(
    State(state): State<AppState>,
    _: Console,
    Path((id, sale)): Path<(String, String)>,
) -> Result<Response, ConsoleError> {
    let id = player_id(&id)?;
    let sale_id = path_id(&sale, "sale").map_err(|_| ConsoleError::NotFound)?;
    let receipt = state
        .blocking(move |state| {
            let record = state
                .store
                .sale(&id, sale_id)?
                .ok_or_else(|| ApiError::not_found("sale"))?;
            crate::routes::player::logged_receipt(state, &record)
        })
        .await?;
    Ok((
        [(
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"receipt-{sale_id}.json\""),
        )],
        Json(receipt),
    )
        .into_response())
}

#[cfg(test)]
mod tests {
    use super::parse_euros;

    #[test]
    fn amounts_are_read_to_the_cent_without_floats() {
        assert_eq!(parse_euros(""), Ok(None));
        assert_eq!(parse_euros(" 12 "), Ok(Some(1_200)));
        assert_eq!(parse_euros("12,5"), Ok(Some(1_250)));
        assert_eq!(parse_euros("0.07"), Ok(Some(7)));
        assert_eq!(parse_euros("999999999.99"), Ok(Some(99_999_999_999)));
        for bad in ["1.234", "-1", "1e3", ",5", "1 000", "abc", "1234567890"] {
            assert_eq!(parse_euros(bad), Err(()), "{bad}");
        }
    }
}
