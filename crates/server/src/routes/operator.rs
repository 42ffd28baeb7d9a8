//! The operator's API (transfer wallet): sessions for its players, credits
//! and debits, closing a block. Every call needs the operator API key.

use super::player::session_body;
use super::types::{BalanceBody, BlockInfo, SessionBody};
use super::{path_id, ApiJson, Operator};
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::{sqlite::now_ms, PlayerKind, Transfer, TransferKind, TransferOutcome};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use serde::Deserialize;

/// Largest single transfer: 1,000,000.00 €.
const MAX_TRANSFER_CENTS: u64 = 100_000_000;

fn check_player_id(id: &str) -> Result<(), ApiError> {
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

#[derive(Deserialize)]
pub struct SessionRequest {
    player_id: String,
}

pub async fn create_session(
    State(state): State<AppState>,
    _: Operator,
    ApiJson(body): ApiJson<SessionRequest>,
) -> Result<(StatusCode, Json<SessionBody>), ApiError> {
    check_player_id(&body.player_id)?;
    let session = state
        .blocking(move |state| {
            state
                .store
                .create_player(&body.player_id, PlayerKind::Operator, 0)?;
            let player = state
                .store
                .player(&body.player_id)?
                .ok_or_else(|| ApiError::internal("player vanished"))?;
            if player.kind == PlayerKind::Demo {
                return Err(ApiError::Forbidden("this id belongs to a demo player"));
            }
            let session = state.sessions.create(&body.player_id)?;
            session_body(state, &session)
        })
        .await?;
    Ok((StatusCode::CREATED, Json(session)))
}

#[derive(Deserialize)]
pub struct TransferRequest {
    amount_cents: u64,
    reference: String,
}

async fn transfer(
    state: AppState,
    player_id: String,
    body: TransferRequest,
    kind: TransferKind,
) -> Result<Json<BalanceBody>, ApiError> {
    check_player_id(&player_id).map_err(|_| ApiError::not_found("player"))?;
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
        .blocking(move |state| Ok(state.store.transfer(&transfer, now_ms())?))
        .await?;
    match outcome {
        TransferOutcome::Applied { balance_cents }
        | TransferOutcome::Replayed { balance_cents } => Ok(Json(BalanceBody {
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

pub async fn credit(
    State(state): State<AppState>,
    _: Operator,
    Path(player_id): Path<String>,
    ApiJson(body): ApiJson<TransferRequest>,
) -> Result<Json<BalanceBody>, ApiError> {
    transfer(state, player_id, body, TransferKind::Credit).await
}

pub async fn debit(
    State(state): State<AppState>,
    _: Operator,
    Path(player_id): Path<String>,
    ApiJson(body): ApiJson<TransferRequest>,
) -> Result<Json<BalanceBody>, ApiError> {
    transfer(state, player_id, body, TransferKind::Debit).await
}

pub async fn close_block(
    State(state): State<AppState>,
    _: Operator,
    Path(block): Path<String>,
) -> Result<Json<BlockInfo>, ApiError> {
    let id = path_id(&block, "block")?;
    let record = state
        .blocking(move |state| {
            let record = state
                .store
                .close_block(id)?
                .ok_or_else(|| ApiError::not_found("block"))?;
            tracing::warn!(block = id, "block closed by the operator");
            state.book.ensure_supply();
            Ok(record)
        })
        .await?;
    Ok(Json(record.into()))
}
