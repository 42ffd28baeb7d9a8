//! Launch links: the operator asks for one, the page trades its code for a
//! session (see `crate::launches`).

use super::operator::{check_player_id, refuse_on_seeded_server};
use super::player::{session_body, with_wallet_balance};
use super::{ApiJson, ClientIp, Operator};
use crate::error::ApiError;
use crate::keys::os_random;
use crate::launches;
use crate::state::AppState;
use crate::store::{NewPlayer, PlayerKind};
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use eldorado_api::{ErrorBody, Launch, LaunchCodeRequest, LaunchMode, LaunchRequest, Session};

#[utoipa::path(post, path = "/api/operator/launches", tag = "operator", security(("operator" = [])),
    request_body = LaunchRequest,
    responses(
        (status = 201, description = "The game page's URL with a single-use launch code, valid 60 s: \
            `<--public-url>/?launch=<code>&lang=<lang>`. A real-money player is created (balance 0) if new", body = Launch),
        (status = 400, description = "BAD_REQUEST: player_id, lang, mode, or a lobby_url that is not an http(s) URL", body = ErrorBody),
        (status = 403, description = "DEMO_DISABLED: a demo launch on a server without `--demo`; \
            FORBIDDEN: the id belongs to a demo player, a real-money launch on a server with `--demo-seed`, \
            or a lobby_url that is not on a portal origin (`--frame-ancestors`) or carries credentials", body = ErrorBody),
    ))]
pub async fn create_launch(
    State(state): State<AppState>,
    _: Operator,
    ApiJson(body): ApiJson<LaunchRequest>,
) -> Result<(StatusCode, Json<Launch>), ApiError> {
    check_player_id(&body.player_id)?;
    if body.mode == LaunchMode::Real {
        refuse_on_seeded_server(&state)?;
    }
    let launch = state
        .blocking(move |state| launches::create(state, &body))
        .await?;
    Ok((StatusCode::CREATED, Json(launch)))
}

#[utoipa::path(post, path = "/api/launch", tag = "player",
    request_body = LaunchCodeRequest,
    responses(
        (status = 201, description = "A new session of the launch's player, with the portal's lobby if the launch named one. \
            The code is used up: of concurrent exchanges of one code exactly one succeeds", body = Session),
        (status = 400, description = "BAD_REQUEST: the code is not 64 lowercase hex digits", body = ErrorBody),
        (status = 410, description = "LAUNCH_INVALID: the code is unknown, already used or expired", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: too many exchanges from this address (`Retry-After`)", body = ErrorBody),
        (status = 503, description = "WALLET_UNAVAILABLE (with `--wallet`): the operator's wallet gave no balance; the code is used up and no session stays open", body = ErrorBody),
    ))]
pub async fn exchange(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    ApiJson(body): ApiJson<LaunchCodeRequest>,
) -> Result<(StatusCode, Json<Session>), ApiError> {
    // A code the server can never have issued is the client's mistake, not
    // an expired link: the portal must not be told to make a new one.
    if !is_launch_code(&body.code) {
        return Err(ApiError::BadRequest(
            "code must be the 64 lowercase hex digits of a launch link".to_owned(),
        ));
    }
    state.launch_limit.check(ip)?;
    let session = state
        .blocking(move |state| {
            let demo_id = format!(
                "demo-{}",
                hex::encode(os_random::<8>().map_err(ApiError::internal)?)
            );
            // A demo launch gives a new play-money player, as the page's
            // own demo button does; without `--demo` there is none to give.
            let demo_player = state.config.demo.then(|| NewPlayer {
                id: &demo_id,
                kind: PlayerKind::Demo,
                balance_cents: state.config.starting_balance_cents,
                reuse: false,
            });
            let (session, _) = state
                .sessions
                .open_launched(&body.code, demo_player.as_ref())?;
            session_body(state, &session)
        })
        .await?;
    match with_wallet_balance(&state, session.clone()).await {
        Ok(session) => Ok((StatusCode::CREATED, Json(session))),
        // No balance to show: the session ends at once, and the portal
        // makes a new launch link (the code stays used, as any code once
        // exchanged).
        Err(e) => {
            let token = session.token;
            state
                .blocking(move |state| state.sessions.revoke(&token))
                .await?;
            Err(e)
        }
    }
}

fn is_launch_code(code: &str) -> bool {
    code.len() == 64 && code.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}
