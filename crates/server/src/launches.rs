//! Launch links (`POST /api/operator/launches`): the operator's back end
//! asks for a URL of the game page carrying a random code; the page trades
//! the code for its session (`POST /api/launch`, see
//! `Sessions::open_launched`). The code works once, for a minute, and is
//! stored hashed; the session's bearer token never appears in a URL.

use crate::config::Config;
use crate::error::ApiError;
use crate::keys::{digest, os_random};
use crate::state::AppState;
use crate::store::launch::NewLaunch;
use crate::store::PlayerKind;
use eldorado_api::{Launch, LaunchMode, LaunchRequest};

/// How long a launch code may wait for its page.
pub const LAUNCH_TTL_MS: u64 = 60_000;

/// Longest lobby URL accepted.
const MAX_LOBBY_URL: usize = 2_048;

/// The languages of the page.
const LANGS: [&str; 2] = ["fr", "en"];

/// The lobby URL as it will be stored and shown: an http(s) URL on one of
/// the portal origins, in its normalised spelling. Text that is no http(s)
/// URL is a malformed request (400); a URL elsewhere than on the portals
/// this server allows, or carrying credentials, is refused by policy (403).
pub fn check_lobby_url(config: &Config, text: &str) -> Result<String, ApiError> {
    let malformed = || ApiError::BadRequest("lobby_url must be an http(s) URL".to_owned());
    if text.len() > MAX_LOBBY_URL {
        return Err(malformed());
    }
    let url = url::Url::parse(text).map_err(|_| malformed())?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(malformed());
    }
    let origin = url.origin().ascii_serialization();
    if !url.username().is_empty()
        || url.password().is_some()
        || !config.portal_origins().contains(&origin)
    {
        return Err(ApiError::Forbidden(
            "lobby_url must be on one of the portal origins of --frame-ancestors, without credentials",
        ));
    }
    Ok(url.into())
}

/// Checks the request, records a new code and answers the URL that
/// carries it (blocking: one store write).
pub fn create(state: &AppState, request: &LaunchRequest) -> Result<Launch, ApiError> {
    if !LANGS.contains(&request.lang.as_str()) {
        return Err(ApiError::BadRequest(
            "lang must be \"fr\" or \"en\"".to_owned(),
        ));
    }
    let lobby_url = request
        .lobby_url
        .as_deref()
        .map(|url| check_lobby_url(&state.config, url))
        .transpose()?;
    match request.mode {
        LaunchMode::Demo if !state.config.demo => return Err(ApiError::DemoDisabled),
        LaunchMode::Demo => {}
        LaunchMode::Real => {
            // As for `POST /api/operator/sessions`: the player exists from
            // its first launch, and an id of a demo player is no one's.
            match state.store.player(&request.player_id)? {
                Some(player) if player.kind == PlayerKind::Demo => {
                    return Err(ApiError::Forbidden("this id belongs to a demo player"))
                }
                Some(_) => {}
                None => {
                    state
                        .store
                        .create_player(&request.player_id, PlayerKind::Operator, 0)?;
                }
            }
        }
    }
    let code = hex::encode(os_random::<32>().map_err(ApiError::internal)?);
    let now = state.clock.now_ms();
    let expires_at_ms = now.saturating_add(LAUNCH_TTL_MS);
    state.store.insert_launch(&NewLaunch {
        code_hash: digest(code.as_bytes()),
        player_id: request.player_id.clone(),
        mode: request.mode,
        lang: request.lang.clone(),
        lobby_url,
        created_at_ms: now,
        expires_at_ms,
    })?;
    Ok(Launch {
        url: format!(
            "{}/?launch={code}&lang={}",
            state.config.public_url(),
            request.lang
        ),
        expires_at_ms,
    })
}
