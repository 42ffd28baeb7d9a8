//! Player protection (issue 12): the player's own limits, exclusion and
//! reality check, and the operator's view and changes. The rules are in
//! `store::protection`; the sale enforces them in its own transaction.

use super::operator::check_player_id;
use super::{ApiJson, Operator, Player};
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::protection::{ProtectionUpdate, UpdateRefusal};
use axum::extract::{Path, State};
use axum::Json;
use eldorado_api::{
    AuditActor, ErrorBody, ExclusionRequest, LimitsRequest, OperatorExclusionRequest, Protection,
    ProtectionAudit, RealityCheckRequest,
};

/// Applies a change for `player_id` (blocking) and answers the protection after it.
async fn change(
    state: AppState,
    player_id: String,
    update: ProtectionUpdate,
    actor: AuditActor,
) -> Result<Json<Protection>, ApiError> {
    apply(state, player_id, update, actor).await.map(Json)
}

/// A change of a player's protection, under the rules of the store (the
/// API and the operator's console).
pub(crate) async fn apply(
    state: AppState,
    player_id: String,
    update: ProtectionUpdate,
    actor: AuditActor,
) -> Result<Protection, ApiError> {
    // Checked here too, so that a bad body is 400 even for an unknown player.
    update.validate().map_err(ApiError::BadRequest)?;
    let outcome = state
        .blocking(move |state| {
            let now = state.clock.now_ms();
            Ok(state
                .store
                .update_protection(&player_id, &update, actor, now)?)
        })
        .await?;
    match outcome {
        Ok(protection) => Ok(protection),
        Err(UpdateRefusal::Invalid(text)) => Err(ApiError::BadRequest(text)),
        Err(UpdateRefusal::UnknownPlayer) => Err(ApiError::not_found("player")),
        Err(UpdateRefusal::WouldShorten) => Err(ApiError::Conflict(
            "an exclusion can be lengthened, never shortened".to_owned(),
        )),
    }
}

fn limits(body: &LimitsRequest) -> ProtectionUpdate {
    ProtectionUpdate::Limits {
        weekly_stake_limit_cents: body.weekly_stake_limit_cents,
        weekly_loss_limit_cents: body.weekly_loss_limit_cents,
    }
}

#[utoipa::path(get, path = "/api/limits", tag = "player", security(("player" = [])),
    responses((status = 200, description = "The player's limits, what is used of them over the last 7 days, exclusion and reality-check period", body = Protection)))]
pub async fn get_limits(
    State(state): State<AppState>,
    Player(session): Player,
) -> Result<Json<Protection>, ApiError> {
    let protection = state
        .blocking(move |state| {
            state
                .store
                .protection(&session.player_id, state.clock.now_ms())?
                .ok_or_else(|| ApiError::internal("a session of a missing player"))
        })
        .await?;
    Ok(Json(protection))
}

#[utoipa::path(put, path = "/api/limits", tag = "player", security(("player" = [])),
    request_body = LimitsRequest,
    responses(
        (status = 200, description = "The protection after the change: a lower or first limit applies at once, a higher one or a removal is pending for 48 h", body = Protection),
        (status = 400, description = "BAD_REQUEST: a limit that is not null or 1..=100000000; nothing changed", body = ErrorBody),
    ))]
pub async fn put_limits(
    State(state): State<AppState>,
    Player(session): Player,
    ApiJson(body): ApiJson<LimitsRequest>,
) -> Result<Json<Protection>, ApiError> {
    change(
        state,
        session.player_id.to_string(),
        limits(&body),
        AuditActor::Player,
    )
    .await
}

#[utoipa::path(post, path = "/api/exclusion", tag = "player", security(("player" = [])),
    request_body = ExclusionRequest,
    responses(
        (status = 200, description = "The protection after the change: every sale is refused (SELF_EXCLUDED) until the exclusion ends", body = Protection),
        (status = 400, description = "BAD_REQUEST: days is not 1, 7, 30 or null; nothing changed", body = ErrorBody),
        (status = 409, description = "CONFLICT: the exclusion in force ends later; it can be lengthened, never shortened", body = ErrorBody),
    ))]
pub async fn post_exclusion(
    State(state): State<AppState>,
    Player(session): Player,
    ApiJson(body): ApiJson<ExclusionRequest>,
) -> Result<Json<Protection>, ApiError> {
    change(
        state,
        session.player_id.to_string(),
        ProtectionUpdate::SelfExclusion { days: body.days },
        AuditActor::Player,
    )
    .await
}

#[utoipa::path(put, path = "/api/reality-check", tag = "player", security(("player" = [])),
    request_body = RealityCheckRequest,
    responses(
        (status = 200, description = "The protection after the change", body = Protection),
        (status = 400, description = "BAD_REQUEST: minutes is not 15, 30 or 60; nothing changed", body = ErrorBody),
    ))]
pub async fn put_reality_check(
    State(state): State<AppState>,
    Player(session): Player,
    ApiJson(body): ApiJson<RealityCheckRequest>,
) -> Result<Json<Protection>, ApiError> {
    change(
        state,
        session.player_id.to_string(),
        ProtectionUpdate::RealityCheck {
            minutes: body.minutes,
        },
        AuditActor::Player,
    )
    .await
}

#[utoipa::path(put, path = "/api/operator/players/{player_id}/limits", tag = "operator",
    security(("operator" = [])),
    params(("player_id" = String, Path, pattern = "^[A-Za-z0-9_.-]{1,64}$", description = "The player's id")),
    request_body = LimitsRequest,
    responses(
        (status = 200, description = "The protection after the change (the same rules as the player's own: a higher limit or a removal is pending for 48 h)", body = Protection),
        (status = 400, description = "BAD_REQUEST: a limit that is not null or 1..=100000000; nothing changed", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown player", body = ErrorBody),
    ))]
pub async fn operator_put_limits(
    State(state): State<AppState>,
    _: Operator,
    Path(player_id): Path<String>,
    ApiJson(body): ApiJson<LimitsRequest>,
) -> Result<Json<Protection>, ApiError> {
    check_player_id(&player_id)?;
    change(state, player_id, limits(&body), AuditActor::Operator).await
}

#[utoipa::path(put, path = "/api/operator/players/{player_id}/exclusion", tag = "operator",
    security(("operator" = [])),
    params(("player_id" = String, Path, pattern = "^[A-Za-z0-9_.-]{1,64}$", description = "The player's id")),
    request_body = OperatorExclusionRequest,
    responses(
        (status = 200, description = "The protection after the change: excluded until `until_ms`, or no longer excluded for null", body = Protection),
        (status = 400, description = "BAD_REQUEST: until_ms out of range; nothing changed", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown player", body = ErrorBody),
    ))]
pub async fn operator_put_exclusion(
    State(state): State<AppState>,
    _: Operator,
    Path(player_id): Path<String>,
    ApiJson(body): ApiJson<OperatorExclusionRequest>,
) -> Result<Json<Protection>, ApiError> {
    check_player_id(&player_id)?;
    change(
        state,
        player_id,
        ProtectionUpdate::SetExclusion {
            until_ms: body.until_ms,
        },
        AuditActor::Operator,
    )
    .await
}

#[utoipa::path(get, path = "/api/operator/players/{player_id}/protection", tag = "operator",
    security(("operator" = [])),
    params(("player_id" = String, Path, pattern = "^[A-Za-z0-9_.-]{1,64}$", description = "The player's id")),
    responses(
        (status = 200, description = "The player's protection and every change of it, newest first, with who made it and when", body = ProtectionAudit),
        (status = 404, description = "NOT_FOUND: unknown player", body = ErrorBody),
    ))]
pub async fn operator_protection(
    State(state): State<AppState>,
    _: Operator,
    Path(player_id): Path<String>,
) -> Result<Json<ProtectionAudit>, ApiError> {
    check_player_id(&player_id)?;
    let body = state
        .blocking(move |state| {
            let protection = state
                .store
                .protection(&player_id, state.clock.now_ms())?
                .ok_or_else(|| ApiError::not_found("player"))?;
            let audit = state.store.protection_audit(&player_id)?;
            Ok(ProtectionAudit {
                player_id,
                protection,
                audit,
            })
        })
        .await?;
    Ok(Json(body))
}
