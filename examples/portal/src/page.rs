//! The portal page, built into the binary: the operator's HTML, CSS and
//! plain JavaScript, served on the portal's own origin.

use crate::App;
use axum::extract::State;
use axum::http::header::{CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE};
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;

const INDEX: &str = include_str!("../www/index.html");
const SCRIPT: &str = include_str!("../www/portal.js");
const STYLE: &str = include_str!("../www/portal.css");

pub fn routes() -> Router<App> {
    Router::new()
        .route("/", get(index))
        .route(
            "/portal.js",
            get(|| asset("text/javascript; charset=utf-8", SCRIPT)),
        )
        .route(
            "/portal.css",
            get(|| asset("text/css; charset=utf-8", STYLE)),
        )
}

async fn asset(kind: &'static str, body: &'static str) -> impl IntoResponse {
    ([(CONTENT_TYPE, kind), (CACHE_CONTROL, "no-cache")], body)
}

/// The page may frame the game's origin only, and talks to its own.
async fn index(State(app): State<App>) -> impl IntoResponse {
    let policy = format!(
        "default-src 'self'; frame-src {}; img-src 'self' data:; base-uri 'none'; \
         form-action 'self'; frame-ancestors 'none'",
        app.game_origin
    );
    (
        [
            (CONTENT_TYPE, "text/html; charset=utf-8".to_owned()),
            (CACHE_CONTROL, "no-cache".to_owned()),
            (CONTENT_SECURITY_POLICY, policy),
        ],
        INDEX,
    )
}
