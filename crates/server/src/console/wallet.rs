//! The seamless wallet's outbox (`--wallet`): what the operator's wallet
//! has not acknowledged yet, why, and a retry now.

use super::layout::{age, utc, Nav};
use super::{Console, ConsoleError, ConsoleForm, CsrfOnly};
use crate::seamless_wallet::OutboxBacklog;
use crate::state::AppState;
use crate::store::OutboxFailure;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Redirect, Response};
use maud::html;

pub async fn page(
    State(state): State<AppState>,
    console: Console,
) -> Result<Response, ConsoleError> {
    let t = console.text();
    let Some(wallet) = state.wallet.clone() else {
        let body = html! { p #no-wallet { (t.no_wallet) } };
        return Ok(console.page(Nav::Wallet, "/operator/wallet", t.wallet, body));
    };
    let backlog: OutboxBacklog = wallet.backlog();
    let now = state.clock.now_ms();
    let failures: Vec<OutboxFailure> = state
        .blocking(|state| Ok(state.store.outbox_failures()?))
        .await?;
    let body = html! {
        dl.facts #outbox {
            dt { (t.outbox_backlog) } dd #backlog { (backlog.items) }
            dt { (t.oldest) }
            dd #oldest { @match backlog.oldest_queued_at_ms { Some(at) => { (age(now.saturating_sub(at))) " (" (utc(at)) ")" } None => "—" } }
            dt { (t.most_attempts) } dd { (backlog.most_attempts) }
            dt { (t.given_up) } dd #given-up { (backlog.given_up) }
        }
        form method="post" action="/operator/wallet/retry" {
            input type="hidden" name="csrf" value=(console.csrf);
            button #retry type="submit" { (t.retry_now) }
            p.note { (t.retry_note) }
        }
        h2 { (t.failures_by_reason) }
        table #failures {
            thead { tr {
                th scope="col" { (t.reason) } th scope="col" { (t.calls) }
                th scope="col" { (t.oldest) }
            } }
            tbody {
                @for failure in &failures {
                    tr {
                        td { code { (failure.error) } }
                        td.num { (failure.items) }
                        td { (utc(failure.oldest_queued_at_ms)) }
                    }
                }
            }
        }
    };
    Ok(console.page(Nav::Wallet, "/operator/wallet", t.wallet, body))
}

pub async fn retry(
    State(state): State<AppState>,
    console: Console,
    headers: HeaderMap,
    ConsoleForm(form): ConsoleForm<CsrfOnly>,
) -> Result<Response, ConsoleError> {
    console.check_form(&state, &headers, &form.csrf)?;
    if let Some(wallet) = &state.wallet {
        wallet.retry_now();
        tracing::info!("the operator's console asked the outbox to retry now");
    }
    Ok(Redirect::to("/operator/wallet").into_response())
}
