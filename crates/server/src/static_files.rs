//! The page's routes and the security headers every response carries. The
//! files are those of the build's manifest, read and checked at start
//! (`crate::built_page`), never found by walking the web root. They go out
//! in the build's precompressed forms (brotli or gzip, as the browser
//! accepts) where the build made them, else compressed per request;
//! content-hashed files are cached for a year, everything else is
//! revalidated on each load.

use crate::built_page::BuiltPage;
use crate::error::ApiError;
use axum::extract::Request;
use axum::http::{header, HeaderName, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::any;
use axum::Router;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tower_http::compression::CompressionLayer;
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
/// The directory whose listed files are served under `/www`, relative to
/// the web root.
const SERVED_TREE: &str = "www";

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

pub fn router<S: Clone + Send + Sync + 'static>(page: Arc<BuiltPage>) -> Router<S> {
    let serve = any(crate::built_page::serve);
    Router::new()
        .route("/", serve.clone())
        .route("/index.html", serve.clone())
        .route("/www/{*file}", serve)
        .fallback(not_found)
        .with_state(page)
        .layer(CompressionLayer::new().gzip(true).br(true))
        .layer(middleware::from_fn(cache_control))
}

/// The built page when the release bundle is built, else the source page:
/// what a data directory must not be, even though only listed files are
/// served.
fn index_page(web_dir: &Path) -> PathBuf {
    let built = web_dir.join(BUILT_INDEX);
    if built.is_file() {
        built
    } else {
        web_dir.join("index.html")
    }
}

/// The URL path through which this server would serve something of
/// `path` (a directory or a file), if any: `path` and the served tree
/// (`WEB/www`) overlap, or the page sent at `/` lies inside `path`. Paths
/// are compared resolved (a path not created yet as its nearest existing
/// ancestor resolves, plus the rest).
pub fn served_path_reaching(web_dir: &Path, path: &Path) -> Option<String> {
    let path = resolve(path)?;
    if let Ok(tree) = std::fs::canonicalize(web_dir.join(SERVED_TREE)) {
        if let Ok(inside) = path.strip_prefix(&tree) {
            let rest = inside.to_string_lossy();
            return Some(if rest.is_empty() {
                "/www".to_owned()
            } else {
                format!("/www/{rest}")
            });
        }
        if tree.starts_with(&path) {
            return Some("/www".to_owned());
        }
    }
    let index = std::fs::canonicalize(index_page(web_dir)).ok()?;
    index.starts_with(&path).then(|| "/".to_owned())
}

/// `path` with links resolved, even if its last components do not exist yet.
fn resolve(path: &Path) -> Option<PathBuf> {
    let absolute = std::path::absolute(path).ok()?;
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = std::fs::canonicalize(existing) {
            return Some(rest.iter().rev().fold(real, |path, name| path.join(name)));
        }
        rest.push(existing.file_name()?);
        existing = existing.parent()?;
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
    // The operator's console sets a policy of its own.
    let router = router.layer(SetResponseHeaderLayer::if_not_present(
        header::CONTENT_SECURITY_POLICY,
        csp,
    ));
    let headers = [
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
