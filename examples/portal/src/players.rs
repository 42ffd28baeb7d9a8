//! The portal's own player routes, called by its page: log-in by name (an
//! example: no password), the player's balance, the cashier, and launch
//! links to the game.
//!
//! The session is a random token in an HttpOnly cookie; only its SHA-256 is
//! stored. Bodies are JSON, which a cross-site form cannot send without a
//! CORS preflight that this server never grants, and the cookie is
//! `SameSite=Lax`.

use crate::db::{self, move_money};
use crate::error::AppError;
use crate::App;
use axum::extract::State;
use axum::http::header::{COOKIE, SET_COOKIE};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use cookie::{Cookie, SameSite};
use eldorado_api::{LaunchMode, LaunchRequest};
use rand::rngs::OsRng;
use rand::TryRngCore;
use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

const SESSION_COOKIE: &str = "portal_session";

pub fn routes() -> Router<App> {
    Router::new()
        .route("/api/login", post(login))
        .route("/api/logout", post(logout))
        .route("/api/me", get(me))
        .route("/api/cashier", post(cashier))
        .route("/api/launch", post(launch))
}

#[derive(Deserialize)]
struct LoginRequest {
    name: String,
}

#[derive(Serialize)]
struct Me {
    player_id: String,
    balance_cents: u64,
}

#[derive(Deserialize)]
struct CashierRequest {
    amount_cents: u64,
}

#[derive(Deserialize)]
struct LaunchAsk {
    #[serde(default = "default_lang")]
    lang: String,
}

fn default_lang() -> String {
    "fr".to_owned()
}

#[derive(Serialize)]
struct LaunchUrl {
    url: String,
}

/// The player id at the game server is the log-in name, so it follows the
/// game's pattern for player ids.
fn valid_name(name: &str) -> bool {
    (1..=32).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
        && !name.starts_with("demo-")
}

fn token_digest(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// The logged-in player, from the session cookie.
async fn player(app: &App, headers: &HeaderMap) -> Result<String, AppError> {
    let token = headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(Cookie::split_parse)
        .filter_map(Result::ok)
        .find(|c| c.name() == SESSION_COOKIE)
        .map(|c| c.value().to_owned())
        .ok_or_else(|| AppError::unauthorized("not logged in"))?;
    let digest = token_digest(&token);
    let found = app
        .db
        .write(move |tx| {
            Ok::<_, AppError>(
                tx.query_row(
                    "SELECT player_id FROM sessions WHERE token_sha256 = ?1 AND expires_at_ms > ?2",
                    params![digest, db::now_ms()],
                    |row| row.get::<_, String>(0),
                )
                .optional()?,
            )
        })
        .await?;
    found.ok_or_else(|| AppError::unauthorized("session expired: log in again"))
}

async fn me_of(app: &App, player_id: String) -> Result<Json<Me>, AppError> {
    let id = player_id.clone();
    let balance = app
        .db
        .write(move |tx| Ok::<_, AppError>(db::balance(tx, &id)?))
        .await?
        .ok_or_else(|| AppError::unauthorized("unknown player"))?;
    Ok(Json(Me {
        player_id,
        balance_cents: balance,
    }))
}

async fn login(
    State(app): State<App>,
    Json(request): Json<LoginRequest>,
) -> Result<Response, AppError> {
    let name = request.name.trim().to_owned();
    if !valid_name(&name) {
        return Err(AppError::bad_request(
            "a name is 1 to 32 letters, digits, '_', '.' or '-' (not starting with demo-)",
        ));
    }
    let mut secret = [0u8; 32];
    OsRng
        .try_fill_bytes(&mut secret)
        .map_err(|e| AppError::internal(format!("no randomness: {e}")))?;
    let token = hex::encode(secret);
    let digest = token_digest(&token);
    let ttl = app.session_ttl;
    let opening = app.starting_balance_cents;
    let player_id = name.clone();
    let expires = db::now_ms().saturating_add(i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX));
    app.db
        .write(move |tx| {
            db::ensure_player(tx, &player_id, opening)?;
            tx.execute(
                "DELETE FROM sessions WHERE expires_at_ms <= ?1",
                params![db::now_ms()],
            )?;
            tx.execute(
                "INSERT INTO sessions (token_sha256, player_id, expires_at_ms) VALUES (?1, ?2, ?3)",
                params![digest, player_id, expires],
            )?;
            Ok::<_, AppError>(())
        })
        .await?;
    let cookie = Cookie::build((SESSION_COOKIE, token))
        .http_only(true)
        .same_site(SameSite::Lax)
        .path("/")
        .max_age(cookie::time::Duration::seconds(
            i64::try_from(ttl.as_secs()).unwrap_or(i64::MAX),
        ))
        .build();
    let me = me_of(&app, name).await?;
    Ok(([(SET_COOKIE, cookie.to_string())], me).into_response())
}

async fn logout(State(app): State<App>, headers: HeaderMap) -> Result<Response, AppError> {
    if let Some(token) = headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(Cookie::split_parse)
        .filter_map(Result::ok)
        .find(|c| c.name() == SESSION_COOKIE)
    {
        let digest = token_digest(token.value());
        app.db
            .write(move |tx| {
                tx.execute(
                    "DELETE FROM sessions WHERE token_sha256 = ?1",
                    params![digest],
                )?;
                Ok::<_, AppError>(())
            })
            .await?;
    }
    let mut gone = Cookie::build((SESSION_COOKIE, "")).path("/").build();
    gone.make_removal();
    Ok((StatusCode::NO_CONTENT, [(SET_COOKIE, gone.to_string())]).into_response())
}

async fn me(State(app): State<App>, headers: HeaderMap) -> Result<Json<Me>, AppError> {
    let player_id = player(&app, &headers).await?;
    me_of(&app, player_id).await
}

/// Adds funds: in a real portal a payment would come first.
async fn cashier(
    State(app): State<App>,
    headers: HeaderMap,
    Json(request): Json<CashierRequest>,
) -> Result<Json<Me>, AppError> {
    let player_id = player(&app, &headers).await?;
    let max = app.max_deposit_cents;
    if !(1..=max).contains(&request.amount_cents) {
        return Err(AppError::bad_request(format!(
            "a deposit is 1 to {max} cents"
        )));
    }
    let id = player_id.clone();
    let balance_cents = app
        .db
        .write(move |tx| {
            Ok::<_, AppError>(move_money(
                tx,
                &id,
                "cashier",
                db::signed(request.amount_cents),
                None,
            )?)
        })
        .await?;
    Ok(Json(Me {
        player_id,
        balance_cents,
    }))
}

/// Asks the game server for a launch URL for the logged-in player.
async fn launch(
    State(app): State<App>,
    headers: HeaderMap,
    Json(ask): Json<LaunchAsk>,
) -> Result<Json<LaunchUrl>, AppError> {
    let player_id = player(&app, &headers).await?;
    if ask.lang != "fr" && ask.lang != "en" {
        return Err(AppError::bad_request("lang is fr or en"));
    }
    let request = LaunchRequest {
        player_id,
        lang: ask.lang,
        lobby_url: Some(format!("{}/", app.public_url)),
        mode: LaunchMode::Real,
    };
    let launch = app.game.launch(&request).await.map_err(|e| {
        tracing::warn!(error = %e, "launch refused");
        AppError::bad_gateway("the game cannot start now; try again later")
    })?;
    Ok(Json(LaunchUrl { url: launch.url }))
}

#[cfg(test)]
mod tests {
    use super::valid_name;

    #[test]
    fn names_are_game_player_ids() {
        assert!(valid_name("alice"));
        assert!(valid_name("Bob_2.x-y"));
        assert!(!valid_name(""));
        assert!(!valid_name(&"a".repeat(33)));
        assert!(!valid_name("al ice"));
        assert!(!valid_name("élise"));
        assert!(!valid_name("demo-0123"));
    }
}
