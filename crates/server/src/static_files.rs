//! The page: `index.html`, `www/` (with the wasm bundle in `www/pkg/`), and
//! the security headers every response carries. Files go out compressed
//! (brotli or gzip, as the browser accepts); content-hashed files are cached
//! for a year, everything else is revalidated on each load.

use crate::error::ApiError;
use axum::extract::Request;
use axum::http::{header, HeaderName, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::Router;
use std::path::{Path, PathBuf};
use tower_http::compression::CompressionLayer;
use tower_http::services::{ServeDir, ServeFile};
use tower_http::set_header::SetResponseHeaderLayer;

/// A content-hashed file never changes under its name: a new build gives
/// it a new name, which the (revalidated) page then refers to.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// Everything else may change in place: the browser keeps it but asks
/// again (a 304 when unchanged), so a new build shows on the next load.
const REVALIDATE: &str = "no-cache";
/// Hex digits of the content hash `scripts/build-web.sh` puts in names.
const HASH_DIGITS: usize = 16;
/// The page `scripts/build-web.sh` writes, referring to the hashed bundle.
const BUILT_INDEX: &str = "www/pkg/index.html";

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

pub fn router<S: Clone + Send + Sync + 'static>(web_dir: &Path) -> Router<S> {
    // The build's `.br`/`.gz` files when there are (best compression, done
    // once); anything else is compressed per request.
    let index = ServeFile::new(index_page(web_dir))
        .precompressed_br()
        .precompressed_gzip();
    Router::new()
        .route_service("/", index.clone())
        .route_service("/index.html", index)
        .nest_service(
            "/www",
            ServeDir::new(web_dir.join("www"))
                .append_index_html_on_directories(false)
                .precompressed_br()
                .precompressed_gzip(),
        )
        .fallback(not_found)
        .layer(CompressionLayer::new().gzip(true).br(true))
        .layer(middleware::from_fn(cache_control))
}

/// The built page when the release bundle is built (it names the hashed
/// files), else the source page (unhashed names, as `wasm-pack` leaves them).
fn index_page(web_dir: &Path) -> PathBuf {
    let built = web_dir.join(BUILT_INDEX);
    if built.is_file() {
        built
    } else {
        web_dir.join("index.html")
    }
}

async fn cache_control(request: Request, next: Next) -> Response {
    let hashed = is_content_hashed(request.uri().path());
    let mut response = next.run(request).await;
    if response.status().is_success() || response.status() == StatusCode::NOT_MODIFIED {
        let policy = if hashed { IMMUTABLE } else { REVALIDATE };
        response
            .headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static(policy));
    }
    response
}

/// `name-0123456789abcdef.ext`: a file name whose last `-` is followed by
/// exactly the build's hash digits (lower-case hex) before the extension.
pub fn is_content_hashed(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or_default();
    let stem = name.split('.').next().unwrap_or_default();
    stem.rsplit_once('-').is_some_and(|(base, hash)| {
        !base.is_empty()
            && hash.len() == HASH_DIGITS
            && hash.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    })
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
