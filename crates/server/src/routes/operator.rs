//! The operator's API (transfer wallet): sessions for its players, credits
//! and debits, closing a block. Every call needs the operator API key.

use super::bodies::block_info;
use super::player::session_body;
use super::{ApiJson, Operator};
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::BlockRecord;
use crate::store::{BlockStatus, NewPlayer, PlayerKind, Transfer, TransferKind, TransferOutcome};
use axum::extract::{Path, Query, State};
use axum::http::header;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use eldorado_api::{
    Balance, BlockInfo, DailyReport, ErrorBody, OperatorSessionRequest, Session, SessionsEnded,
    TransferRequest,
};

/// A server seeded with `--demo-seed` sells no real-money ticket, and a
/// data directory holding operator players is refused to it (see
/// `seed_policy`): so its operator routes create and fund no player.
pub(super) fn refuse_on_seeded_server(state: &AppState) -> Result<(), ApiError> {
    // With --wallet a seed is for testing the operator's integration.
    if state.config.demo_seed.is_some() && state.wallet.is_none() {
        return Err(ApiError::Forbidden(
            "this server draws its blocks from a fixed --demo-seed: it sells no real-money \
             ticket and holds no operator players",
        ));
    }
    Ok(())
}

/// Largest single transfer: 1,000,000.00 €.
const MAX_TRANSFER_CENTS: u64 = 100_000_000;

pub(crate) fn check_player_id(id: &str) -> Result<(), ApiError> {
    let ok = (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_.-".contains(&b));
    if ok {
        Ok(())
    } else {
        Err(ApiError::BadRequest(
            "player_id must be 1 to 64 characters among A-Z a-z 0-9 _ . -".to_owned(),
        ))
    }
}

#[utoipa::path(post, path = "/api/operator/sessions", tag = "operator", security(("operator" = [])),
    request_body = OperatorSessionRequest,
    responses(
        (status = 201, description = "A new session; the player is created (balance 0) if new", body = Session),
        (status = 403, description = "FORBIDDEN: the id belongs to a demo player, or the server runs with `--demo-seed`", body = ErrorBody),
        (status = 503, description = "WALLET_UNAVAILABLE (with `--wallet`): the operator's wallet gave no balance; no session was opened", body = ErrorBody),
    ))]
pub async fn create_session(
    State(state): State<AppState>,
    _: Operator,
    ApiJson(body): ApiJson<OperatorSessionRequest>,
) -> Result<(StatusCode, Json<Session>), ApiError> {
    check_player_id(&body.player_id)?;
    refuse_on_seeded_server(&state)?;
    // Asked first, so that a wallet without an answer leaves no session.
    let wallet_balance = match &state.wallet {
        Some(wallet) => Some(wallet.balance(&body.player_id).await?),
        None => None,
    };
    let mut session = state
        .blocking(move |state| {
            // Creating the player and its session is one transaction.
            let (session, _) = state.sessions.open(&NewPlayer {
                id: &body.player_id,
                kind: PlayerKind::Operator,
                balance_cents: 0,
                reuse: true,
            })?;
            session_body(state, &session)
        })
        .await?;
    if let Some(balance_cents) = wallet_balance {
        session.balance_cents = balance_cents;
    }
    Ok((StatusCode::CREATED, Json(session)))
}

async fn transfer(
    state: AppState,
    player_id: String,
    body: TransferRequest,
    kind: TransferKind,
) -> Result<Json<Balance>, ApiError> {
    check_player_id(&player_id)?;
    refuse_on_seeded_server(&state)?;
    // Money moved in an older copy of the database would vanish with it
    // when the operator restores a newer one.
    state.witnessed.check()?;
    if state.wallet.is_some() {
        return Err(ApiError::Forbidden(
            "this server plays from the operator's seamless wallet (--wallet): it holds no \
             transfer wallet",
        ));
    }
    if body.amount_cents == 0 || body.amount_cents > MAX_TRANSFER_CENTS {
        return Err(ApiError::BadRequest(format!(
            "amount_cents must be 1..={MAX_TRANSFER_CENTS}"
        )));
    }
    let reference_ok = (1..=64).contains(&body.reference.len())
        && body
            .reference
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_.:-".contains(&b));
    if !reference_ok {
        return Err(ApiError::BadRequest(
            "reference must be 1 to 64 characters among A-Z a-z 0-9 _ . : -".to_owned(),
        ));
    }
    let transfer = Transfer {
        player_id: player_id.clone(),
        kind,
        amount_cents: body.amount_cents,
        reference: body.reference,
    };
    let outcome = state
        .blocking(move |state| {
            let now_ms = state.clock.now_ms();
            Ok(state.store.transfer(&transfer, now_ms)?)
        })
        .await?;
    match outcome {
        TransferOutcome::Applied { balance_cents }
        | TransferOutcome::Replayed { balance_cents } => Ok(Json(Balance {
            player_id,
            balance_cents,
        })),
        TransferOutcome::ReferenceConflict => Err(ApiError::Conflict(
            "this reference was already used for another transfer".to_owned(),
        )),
        TransferOutcome::InsufficientFunds { balance_cents } => Err(ApiError::InsufficientFunds {
            balance_cents,
            needed_cents: body.amount_cents,
        }),
        TransferOutcome::UnknownPlayer => Err(ApiError::not_found("player")),
        TransferOutcome::DemoPlayer => {
            Err(ApiError::Forbidden("demo players hold play money only"))
        }
    }
}

#[utoipa::path(post, path = "/api/operator/players/{player_id}/credit", tag = "operator",
    security(("operator" = [])),
    params(("player_id" = String, Path, pattern = "^[A-Za-z0-9_.-]{1,64}$", description = "The operator's player id")),
    request_body = TransferRequest,
    responses(
        (status = 200, description = "The new balance; an unknown player is created", body = Balance),
        (status = 403, description = "FORBIDDEN: a demo player, or the server runs with `--demo-seed` or `--wallet`", body = ErrorBody),
        (status = 409, description = "CONFLICT: the reference was used for another transfer", body = ErrorBody),
        (status = 503, description = "RECORD_BEHIND: the server's database does not hold the public record its witnesses cosigned; nothing moves until the operator restores a newer copy (`Retry-After`)", body = ErrorBody),
    ))]
pub async fn credit(
    State(state): State<AppState>,
    _: Operator,
    Path(player_id): Path<String>,
    ApiJson(body): ApiJson<TransferRequest>,
) -> Result<Json<Balance>, ApiError> {
    transfer(state, player_id, body, TransferKind::Credit).await
}

#[utoipa::path(post, path = "/api/operator/players/{player_id}/debit", tag = "operator",
    security(("operator" = [])),
    params(("player_id" = String, Path, pattern = "^[A-Za-z0-9_.-]{1,64}$", description = "The operator's player id")),
    request_body = TransferRequest,
    responses(
        (status = 200, description = "The new balance", body = Balance),
        (status = 402, description = "INSUFFICIENT_FUNDS: the balance would go below 0", body = ErrorBody),
        (status = 403, description = "FORBIDDEN: a demo player, or the server runs with `--demo-seed` or `--wallet`", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown player", body = ErrorBody),
        (status = 409, description = "CONFLICT: the reference was used for another transfer", body = ErrorBody),
        (status = 503, description = "RECORD_BEHIND: the server's database does not hold the public record its witnesses cosigned; nothing moves until the operator restores a newer copy (`Retry-After`)", body = ErrorBody),
    ))]
pub async fn debit(
    State(state): State<AppState>,
    _: Operator,
    Path(player_id): Path<String>,
    ApiJson(body): ApiJson<TransferRequest>,
) -> Result<Json<Balance>, ApiError> {
    transfer(state, player_id, body, TransferKind::Debit).await
}

#[utoipa::path(delete, path = "/api/operator/players/{player_id}/sessions", tag = "operator",
    security(("operator" = [])),
    params(("player_id" = String, Path, pattern = "^[A-Za-z0-9_.-]{1,64}$", description = "The player's id")),
    responses(
        (status = 200, description = "Every session of the player has ended (0 if it had none)", body = SessionsEnded),
    ))]
pub async fn end_sessions(
    State(state): State<AppState>,
    _: Operator,
    Path(player_id): Path<String>,
) -> Result<Json<SessionsEnded>, ApiError> {
    check_player_id(&player_id)?;
    let id = player_id.clone();
    let sessions_ended = state
        .blocking(move |state| state.sessions.revoke_player(&id))
        .await?;
    tracing::warn!(player = %player_id, sessions_ended, "the operator ended a player's sessions");
    Ok(Json(SessionsEnded {
        player_id,
        sessions_ended,
    }))
}

#[utoipa::path(post, path = "/api/operator/blocks/{block}/close", tag = "operator",
    security(("operator" = [])),
    params(("block" = u64, Path, description = "Block id")),
    responses(
        (status = 200, description = "The closed block; the pending block of its stake and money opens if it was open", body = BlockInfo),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
        (status = 409, description = "CONFLICT (with `--wallet`): a ticket of the block is being paid for; retry", body = ErrorBody),
    ))]
pub async fn close_block(
    State(state): State<AppState>,
    _: Operator,
    Path(block): Path<String>,
) -> Result<Json<BlockInfo>, ApiError> {
    let id = super::path_id(&block, "block")?;
    let record = state.blocking(move |state| close(state, id)).await?;
    Ok(Json(block_info(record)))
}

/// Closes a block for the operator (the API and the console; blocking).
pub(crate) fn close(state: &AppState, id: u64) -> Result<BlockRecord, ApiError> {
    let record = state
        .store
        .close_block(id)?
        .ok_or_else(|| ApiError::not_found("block"))?;
    if matches!(record.status, BlockStatus::Open | BlockStatus::Pending) {
        return Err(ApiError::Conflict(
            "a ticket of this block is being paid for at the operator's wallet; \
             retry in a few seconds"
                .to_owned(),
        ));
    }
    tracing::warn!(block = id, "block closed by the operator");
    state.book.ensure_supply();
    Ok(record)
}

#[derive(serde::Deserialize)]
pub struct ReportQuery {
    from: Option<String>,
    to: Option<String>,
    format: Option<String>,
}

/// How a report is answered (`format=`).
#[derive(utoipa::ToSchema)]
#[schema(rename_all = "lowercase")]
#[allow(dead_code)] // Only its schema is used: the query reads text.
enum ReportFormat {
    Json,
    Csv,
}

#[utoipa::path(get, path = "/api/operator/reports/daily", tag = "operator",
    security(("operator" = [])),
    params(
        ("from" = String, Query, format = Date, description = "The first day, YYYY-MM-DD (UTC)"),
        ("to" = String, Query, format = Date, description = "The last day, included"),
        ("format" = inline(Option<ReportFormat>), Query, description = "`json` (the default) or `csv` (the days only)"),
    ),
    responses(
        (status = 200, description = "Per day, stake and money: tickets, stakes, prizes, GGR, realised RTP; per block finished in those days: its prize counts against the rules. Empty when `to` comes before `from`. With `format=csv`, the days only, as CSV with a header line",
         content((DailyReport = "application/json"), (String = "text/csv"))),
        (status = 400, description = "BAD_REQUEST: a day that is not YYYY-MM-DD, or a format that is neither json nor csv", body = ErrorBody),
        (status = 403, description = "FORBIDDEN: more days than `--report-max-days`", body = ErrorBody),
    ))]
pub async fn daily_report(
    State(state): State<AppState>,
    _: Operator,
    query: Result<Query<ReportQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(query) = query.map_err(|_| ApiError::BadRequest("malformed query".to_owned()))?;
    let csv = match query.format.as_deref() {
        None | Some("json") => false,
        Some("csv") => true,
        Some(_) => return Err(ApiError::BadRequest("format is json or csv".to_owned())),
    };
    let (Some(from), Some(to)) = (query.from, query.to) else {
        return Err(ApiError::BadRequest("from and to are required".to_owned()));
    };
    let max_days = state.config.limits.report_max_days;
    let report = state
        .blocking(move |s| {
            crate::reports::daily(&*s.store, &from, &to, max_days).map_err(|e| match e {
                crate::reports::ReportError::BadDay(_) => ApiError::BadRequest(e.to_string()),
                crate::reports::ReportError::TooLong(_) => {
                    ApiError::Forbidden("more days than --report-max-days allows")
                }
                crate::reports::ReportError::Store(e) => e.into(),
            })
        })
        .await?;
    if csv {
        let text = crate::reports::days_csv(&report).map_err(ApiError::internal)?;
        return Ok(([(header::CONTENT_TYPE, "text/csv; charset=utf-8")], text).into_response());
    }
    Ok(Json(report).into_response())
}
