//! Blocks: each with its status and how far it is sold; for a finished
//! block its prize counts against the rules, its export and an audit of it;
//! closing a block after a confirmation. Nothing about the unsold tickets
//! of a block still on sale is shown (not even its prizes left).

use super::layout::{euros_u, utc, Nav};
use super::text::Text;
use super::{Console, ConsoleError, ConsoleForm, CsrfOnly, QueryOr};
use crate::routes::path_id;
use crate::state::AppState;
use crate::store::{BlockRecord, BlockStatus};
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Redirect, Response};
use eldorado_engine::export::{Audit, ExportRow};
use eldorado_engine::Money;
use maud::{html, Markup};

/// Blocks per page, newest first.
const PAGE: usize = 20;

/// The first and last sale of each finished block, which never change:
/// reading them scans a block's sales (about 0.1 s for 400,000 on SQLite).
#[derive(Default)]
pub struct SaleSpans(std::sync::Mutex<std::collections::HashMap<u64, (u64, u64)>>);

impl SaleSpans {
    fn of(
        &self,
        store: &dyn crate::store::Store,
        record: &BlockRecord,
    ) -> crate::store::StoreResult<Option<(u64, u64)>> {
        let id = record.id();
        if let Some(span) = self.0.lock().unwrap_or_else(|e| e.into_inner()).get(&id) {
            return Ok(Some(*span));
        }
        let span = store.block_sale_span(id)?;
        if let (Some(span), true) = (span, record.is_disclosable()) {
            self.0
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(id, span);
        }
        Ok(span)
    }
}

#[derive(serde::Deserialize, Default)]
pub struct PageQuery {
    page: Option<usize>,
}

struct Listed {
    record: BlockRecord,
    /// First and last sale.
    span: Option<(u64, u64)>,
}

pub async fn list(
    State(state): State<AppState>,
    console: Console,
    QueryOr(query): QueryOr<PageQuery>,
) -> Result<Response, ConsoleError> {
    let page = query.page.unwrap_or(0);
    let (listed, total) = state
        .blocking(move |state| {
            let mut blocks = state.store.blocks()?;
            let total = blocks.len();
            blocks.reverse();
            let listed = blocks
                .into_iter()
                .skip(page.saturating_mul(PAGE))
                .take(PAGE)
                .map(|record| {
                    let span = state.console_spans.of(&*state.store, &record)?;
                    Ok(Listed { record, span })
                })
                .collect::<Result<Vec<_>, crate::error::ApiError>>()?;
            Ok((listed, total))
        })
        .await?;
    let t = console.text();
    let body = html! {
        table #blocks {
            thead { tr {
                th scope="col" { (t.block) } th scope="col" { (t.stake) }
                th scope="col" { (t.money) } th scope="col" { (t.status) }
                th scope="col" { (t.sold) } th scope="col" { (t.first_sale) }
                th scope="col" { (t.last_sale) } th scope="col" { (t.actions) }
            } }
            tbody {
                @for item in &listed { (row(&console, item)) }
            }
        }
        (pager(t, "/operator/blocks?", page, total.div_ceil(PAGE)))
    };
    Ok(console.page(Nav::Blocks, "/operator/blocks", t.blocks, body))
}

fn status_text(t: &Text, status: BlockStatus) -> &'static str {
    match status {
        BlockStatus::Open => t.status_open,
        BlockStatus::Pending => t.status_pending,
        BlockStatus::SoldOut => t.status_sold_out,
        BlockStatus::Closed => t.status_closed,
    }
}

pub fn money_text(t: &Text, money: Money) -> &'static str {
    match money {
        Money::Real => t.money_real,
        Money::Play => t.money_play,
    }
}

fn row(console: &Console, item: &Listed) -> Markup {
    let (t, lang) = (console.text(), console.lang);
    let r = &item.record;
    let tickets = r.signed.commitment.tickets;
    let id = r.id();
    html! {
        tr id={ "block-" (id) } {
            th scope="row" { (id) }
            td { (euros_u(lang, r.stake_cents())) }
            td { (money_text(t, r.money())) }
            td.status { (status_text(t, r.status)) @if r.undealt > 0 { " · " (r.undealt) " " (t.waiting_deal) } }
            td {
                progress value=(r.sold) max=(tickets) { (r.sold) " / " (tickets) }
                " " span.sold { (r.sold) " / " (tickets) }
            }
            td { @if let Some((first, _)) = item.span { (utc(first)) } }
            td { @if let (Some((_, last)), true) = (item.span, r.status.is_finished()) { (utc(last)) } }
            td.actions {
                @if r.is_disclosable() {
                    a href={ "/api/blocks/" (id) "/export" } download { (t.export) }
                    " "
                    a href={ "/operator/blocks/" (id) "/audit" } { (t.audit) }
                } @else if !r.status.is_finished() {
                    a.danger href={ "/operator/blocks/" (id) "/close" } { (t.close) "…" }
                }
            }
        }
        @if r.is_disclosable() {
            tr.payout { td colspan="8" { (payout(console, r)) } }
        }
    }
}

/// A finished block's winning tickets sold per rank, against the rules.
fn payout(console: &Console, record: &BlockRecord) -> Markup {
    let (t, lang) = (console.text(), console.lang);
    let payout = crate::reports::block_payout(record);
    html! {
        details {
            summary { (t.prize_counts) }
            table.ranks {
                thead { tr {
                    th scope="col" { (t.rank) } th scope="col" { (t.prize) }
                    th scope="col" { (t.in_rules) } th scope="col" { (t.sold) }
                } }
                tbody {
                    @for rank in &payout.ranks {
                        tr {
                            td { (rank.rank) } td { (euros_u(lang, rank.prize_cents)) }
                            td.num { (rank.in_rules) } td.num { (rank.sold) }
                        }
                    }
                }
            }
        }
    }
}

pub fn pager(t: &Text, base: &str, page: usize, pages: usize) -> Markup {
    html! {
        @if pages > 1 {
            nav.pager aria-label=(t.pages) {
                @if page > 0 { a href={ (base) "page=" (page - 1) } rel="prev" { "← " (t.newer) } }
                span { (page + 1) " / " (pages) }
                @if page + 1 < pages { a href={ (base) "page=" (page + 1) } rel="next" { (t.older) " →" } }
            }
        }
    }
}

fn block_id(text: &str) -> Result<u64, ConsoleError> {
    path_id(text, "block").map_err(|_| ConsoleError::NotFound)
}

pub async fn confirm_close(
    State(state): State<AppState>,
    console: Console,
    Path(block): Path<String>,
) -> Result<Response, ConsoleError> {
    let id = block_id(&block)?;
    let record = state
        .blocking(move |state| Ok(state.store.block(id)?))
        .await?
        .ok_or(ConsoleError::NotFound)?;
    let (t, lang) = (console.text(), console.lang);
    let title = format!("{} {id}", t.close_block);
    let body = html! {
        @if record.status.is_finished() {
            p { (t.already_finished) }
        } @else {
            p #confirm-text {
                (t.close_warning) " "
                (euros_u(lang, record.stake_cents())) ", " (money_text(t, record.money())) ", "
                (record.sold) " / " (record.signed.commitment.tickets) " " (t.tickets_sold) "."
            }
            form method="post" action={ "/operator/blocks/" (id) "/close" } {
                input type="hidden" name="csrf" value=(console.csrf);
                button.danger #confirm-close type="submit" { (t.confirm_close) }
                " "
                a href="/operator/blocks" { (t.cancel) }
            }
        }
    };
    Ok(console.page(Nav::Blocks, "/operator/blocks", &title, body))
}

pub async fn close(
    State(state): State<AppState>,
    console: Console,
    headers: HeaderMap,
    Path(block): Path<String>,
    ConsoleForm(form): ConsoleForm<CsrfOnly>,
) -> Result<Response, ConsoleError> {
    console.check_form(&state, &headers, &form.csrf)?;
    let id = block_id(&block)?;
    state
        .blocking(move |state| crate::routes::operator::close(state, id))
        .await?;
    Ok(Redirect::to(&format!("/operator/blocks#block-{id}")).into_response())
}

/// Audits a finished block from the store exactly as `eldorado block
/// audit` audits its export.
pub async fn audit(
    State(state): State<AppState>,
    console: Console,
    Path(block): Path<String>,
) -> Result<Response, ConsoleError> {
    let id = block_id(&block)?;
    let verdict = state
        .blocking(move |state| {
            let record = state
                .store
                .block(id)?
                .filter(BlockRecord::is_disclosable)
                .ok_or_else(|| crate::error::ApiError::not_found("finished block"))?;
            let mut audit = Audit::new(crate::exports::header(&record));
            state.store.for_each_ticket(id, &mut |ticket, leaf| {
                audit.push(&ExportRow { ticket, leaf });
                true
            })?;
            let report = audit.finish();
            Ok((report.passed(), report.verdict()))
        })
        .await?;
    let t = console.text();
    let title = format!("{} {id}", t.audit_of_block);
    let body = html! {
        p #verdict .(if verdict.0 { "ok" } else { "alert" }) { (verdict.1) }
        p { a href={ "/api/blocks/" (id) "/export" } download { (t.export) } " · " a href="/operator/blocks" { (t.blocks) } }
    };
    Ok(console.page(Nav::Blocks, "/operator/blocks", &title, body))
}
