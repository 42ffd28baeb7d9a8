//! The page: `index.html`, `www/` (with the wasm bundle in `www/pkg/`), and
//! the security headers every response carries.

use crate::error::ApiError;
use crate::state::AppState;
use axum::http::{header, HeaderName, HeaderValue};
use axum::Router;
use std::path::Path;
use tower_http::services::{ServeDir, ServeFile};
use tower_http::set_header::SetResponseHeaderLayer;

/// No inline script or style anywhere; wasm compiles under
/// 'wasm-unsafe-eval' only, which allows no JavaScript eval. The page may be
/// framed only by the origins the operator lists (`--frame-ancestors`), so
/// a portal can embed it and nobody else can overlay it.
pub fn content_security_policy(frame_ancestors: &str) -> String {
    format!(
        "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; \
         style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; \
         manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors {frame_ancestors}"
    )
}

pub fn router(web_dir: &Path) -> Router<AppState> {
    let index = ServeFile::new(web_dir.join("index.html"));
    Router::new()
        .route_service("/", index.clone())
        .route_service("/index.html", index)
        .nest_service(
            "/www",
            ServeDir::new(web_dir.join("www")).append_index_html_on_directories(false),
        )
        .fallback(not_found)
}

async fn not_found() -> ApiError {
    ApiError::NotFound("no such page".to_owned())
}

/// Adds the security headers to every response of `router`. No
/// X-Frame-Options: it cannot name a portal's origin, and CSP
/// `frame-ancestors` supersedes it in every current browser.
pub fn with_security_headers(router: Router, csp: HeaderValue) -> Router {
    let headers = [
        (header::CONTENT_SECURITY_POLICY, csp),
        (
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ),
        (
            header::REFERRER_POLICY,
            HeaderValue::from_static("no-referrer"),
        ),
        (
            HeaderName::from_static("cross-origin-opener-policy"),
            HeaderValue::from_static("same-origin"),
        ),
    ];
    headers.into_iter().fold(router, |router, (name, value)| {
        router.layer(SetResponseHeaderLayer::overriding(name, value))
    })
}
