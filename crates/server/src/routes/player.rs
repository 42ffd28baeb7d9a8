//! What a player does: get a session, play, reveal, look back.

use super::types::{HistoryBody, HistoryItem, RevealBody, SaleBody, SessionBody};
use super::{path_id, ApiJson, Player};
use crate::error::ApiError;
use crate::keys::os_random;
use crate::sessions::Session;
use crate::state::AppState;
use crate::store::{PlayerKind, SaleOutcome, SaleRecord, SaleRequest};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::Json;
use eldorado_engine::Stake;
use serde::Deserialize;
use serde_json::Value;

const DEFAULT_HISTORY: u32 = 20;
const MAX_HISTORY: u32 = 100;

/// The player's own sale (blocking). Another player's sale is NOT_FOUND,
/// like a missing one, so ids reveal nothing about other players.
fn own_sale(state: &AppState, player_id: &str, sale_id: u64) -> Result<SaleRecord, ApiError> {
    state
        .store
        .sale(player_id, sale_id)?
        .ok_or_else(|| ApiError::not_found("sale"))
}

/// Signs a recorded sale into its response body (blocking).
pub(super) fn sale_body(state: &AppState, record: &SaleRecord) -> Result<SaleBody, ApiError> {
    Ok(SaleBody {
        sale: state.sign_sale(record)?,
        commitment: state.commitment(record.block)?,
        balance_before_cents: record.balance_before_cents,
        balance_after_cents: record.balance_after_cents,
        revealed: record.revealed,
        complete: record.is_complete(),
    })
}

/// A session body with the player's balance and unfinished ticket (blocking).
pub(super) fn session_body(state: &AppState, session: &Session) -> Result<SessionBody, ApiError> {
    let player = state
        .store
        .player(&session.player_id)?
        .ok_or_else(|| ApiError::internal("a session of a missing player"))?;
    let unrevealed = state
        .store
        .unrevealed(&session.player_id)?
        .map(|record| sale_body(state, &record))
        .transpose()?;
    Ok(SessionBody {
        token: session.token.clone(),
        player_id: session.player_id.to_string(),
        balance_cents: player.balance_cents,
        expires_at_ms: session.expires_at_ms,
        unrevealed,
    })
}

#[derive(Deserialize)]
pub struct DemoPlayerRequest {}

pub async fn create_demo_player(
    State(state): State<AppState>,
    ApiJson(_): ApiJson<DemoPlayerRequest>,
) -> Result<(StatusCode, Json<SessionBody>), ApiError> {
    if !state.config.demo {
        return Err(ApiError::DemoDisabled);
    }
    let body = state
        .blocking(|state| {
            let id = format!(
                "demo-{}",
                hex::encode(os_random::<8>().map_err(ApiError::internal)?)
            );
            if !state.store.create_player(
                &id,
                PlayerKind::Demo,
                state.config.starting_balance_cents,
            )? {
                return Err(ApiError::internal("a random player id collided"));
            }
            let session = state.sessions.create(&id)?;
            session_body(state, &session)
        })
        .await?;
    Ok((StatusCode::CREATED, Json(body)))
}

pub async fn session(
    State(state): State<AppState>,
    Player(session): Player,
) -> Result<Json<SessionBody>, ApiError> {
    Ok(Json(
        state
            .blocking(move |state| session_body(state, &session))
            .await?,
    ))
}

#[derive(Deserialize)]
pub struct SaleRequestBody {
    stake_cents: Value,
    idempotency_key: String,
}

fn check_idempotency_key(key: &str) -> Result<(), ApiError> {
    let ok = (8..=64).contains(&key.len())
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if ok {
        Ok(())
    } else {
        Err(ApiError::BadRequest(
            "idempotency_key must be 8 to 64 characters among A-Z a-z 0-9 _ -".to_owned(),
        ))
    }
}

fn parse_stake(value: &Value) -> Result<Stake, ApiError> {
    let Value::Number(number) = value else {
        return Err(ApiError::BadRequest(
            "stake_cents must be an integer number of cents".to_owned(),
        ));
    };
    let invalid = || {
        ApiError::InvalidStake(format!(
            "{number} cents is not a stake: the stakes are 50, 100 and 200 cents"
        ))
    };
    let cents = number.as_u64().ok_or_else(invalid)?;
    Stake::from_cents(cents).map_err(|_| invalid())
}

pub async fn create_sale(
    State(state): State<AppState>,
    Player(session): Player,
    ApiJson(body): ApiJson<SaleRequestBody>,
) -> Result<Json<SaleBody>, ApiError> {
    let stake = parse_stake(&body.stake_cents)?;
    check_idempotency_key(&body.idempotency_key)?;
    let outcome = state
        .desk
        .sell(SaleRequest {
            player_id: session.player_id.to_string(),
            stake,
            idempotency_key: body.idempotency_key,
        })
        .await?;
    let record = match outcome {
        SaleOutcome::Sold(record) | SaleOutcome::Replayed(record) => record,
        SaleOutcome::KeyConflict => {
            return Err(ApiError::Conflict(
                "this idempotency key was already used for a sale at another stake".to_owned(),
            ))
        }
        SaleOutcome::InsufficientFunds { balance_cents } => {
            return Err(ApiError::InsufficientFunds {
                balance_cents,
                needed_cents: stake.cents(),
            })
        }
        SaleOutcome::SoldOut => return Err(ApiError::SoldOut),
        SaleOutcome::UnknownPlayer => {
            return Err(ApiError::internal("a session of a missing player"))
        }
    };
    // Signing is cheap unless an old block's tree must be rebuilt.
    let body = if state.book.cached_tree(record.block).is_some() {
        sale_body(&state, &record)?
    } else {
        state
            .blocking(move |state| sale_body(state, &record))
            .await?
    };
    Ok(Json(body))
}

pub async fn sale(
    State(state): State<AppState>,
    Player(session): Player,
    Path(sale_id): Path<String>,
) -> Result<Json<SaleBody>, ApiError> {
    let sale_id = path_id(&sale_id, "sale")?;
    let body = state
        .blocking(move |state| {
            let record = own_sale(state, &session.player_id, sale_id)?;
            sale_body(state, &record)
        })
        .await?;
    Ok(Json(body))
}

#[derive(Deserialize)]
pub struct RevealRequest {
    revealed: u8,
}

pub async fn reveal(
    State(state): State<AppState>,
    Player(session): Player,
    Path(sale_id): Path<String>,
    ApiJson(body): ApiJson<RevealRequest>,
) -> Result<Json<RevealBody>, ApiError> {
    let sale_id = path_id(&sale_id, "sale")?;
    let body = state
        .blocking(move |state| {
            let record = own_sale(state, &session.player_id, sale_id)?;
            if body.revealed > record.grid_count() {
                return Err(ApiError::BadRequest(format!(
                    "this ticket has {} grids: revealed must be 0..={}",
                    record.grid_count(),
                    record.grid_count()
                )));
            }
            let revealed = state
                .store
                .set_revealed(&session.player_id, sale_id, body.revealed)?
                .ok_or_else(|| ApiError::not_found("sale"))?;
            Ok(RevealBody {
                sale_id,
                revealed,
                complete: revealed >= record.grid_count(),
            })
        })
        .await?;
    Ok(Json(body))
}

#[derive(Deserialize)]
pub struct HistoryQuery {
    limit: Option<String>,
    before: Option<String>,
}

pub async fn history(
    State(state): State<AppState>,
    Player(session): Player,
    query: Result<Query<HistoryQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<HistoryBody>, ApiError> {
    let Query(query) =
        query.map_err(|_| ApiError::BadRequest("malformed query string".to_owned()))?;
    let limit = match query.limit.as_deref() {
        None => DEFAULT_HISTORY,
        Some(text) => text
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=MAX_HISTORY).contains(n))
            .ok_or_else(|| {
                ApiError::BadRequest(format!("limit must be an integer 1..={MAX_HISTORY}"))
            })?,
    };
    let before = query
        .before
        .as_deref()
        .map(|text| {
            text.parse::<u64>()
                .map_err(|_| ApiError::BadRequest("before must be a sale id".to_owned()))
        })
        .transpose()?;
    let records = state
        .blocking(move |state| Ok(state.store.history(&session.player_id, before, limit)?))
        .await?;
    let next_before = (records.len() == limit as usize)
        .then(|| records.last().map(|r| r.sale_id))
        .flatten();
    Ok(Json(HistoryBody {
        items: records.iter().map(HistoryItem::from).collect(),
        next_before,
    }))
}
