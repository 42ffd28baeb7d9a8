//! The page: `index.html`, `www/` (with the wasm bundle in `www/pkg/`), and
//! the security headers every response carries. Files go out compressed
//! (brotli or gzip, as the browser accepts); content-hashed files are cached
//! for a year, everything else is revalidated on each load.
//!
//! Only regular files whose resolved path stays inside the directory they
//! are served from go out: a link in `www/` to the data directory (or to
//! anything else outside) is a 404, whichever encoding is asked for.
//! tower-http's `ServeDir` and `ServeFile` keep the negotiation of the
//! build's precompressed files and the conditional requests; they follow
//! links and have no option not to, so `only_files_inside` checks the
//! path they will open (and its `.br` and `.gz` variants) before them.

use crate::error::ApiError;
use axum::extract::{Request, State};
use axum::http::{header, HeaderName, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::Router;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use tower::Layer;
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
/// The directory served under `/www`, relative to the web root.
const SERVED_TREE: &str = "www";
/// The precompressed variants `ServeDir`/`ServeFile` may open instead.
const VARIANTS: [&str; 2] = [".br", ".gz"];

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
    let index_file = index_page(web_dir);
    let index = middleware::from_fn_with_state(
        Arc::new(Served::File {
            root: web_dir.to_owned(),
            file: index_file.clone(),
        }),
        only_files_inside,
    )
    .layer(
        ServeFile::new(index_file)
            .precompressed_br()
            .precompressed_gzip(),
    );
    let tree = web_dir.join(SERVED_TREE);
    let www =
        middleware::from_fn_with_state(Arc::new(Served::Tree(tree.clone())), only_files_inside)
            .layer(
                ServeDir::new(tree)
                    .append_index_html_on_directories(false)
                    .precompressed_br()
                    .precompressed_gzip(),
            );
    Router::new()
        .route_service("/", index.clone())
        .route_service("/index.html", index)
        .nest_service("/www", www)
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

/// What one guarded service sends: files of a directory tree, or one file
/// that must lie inside `root`.
enum Served {
    Tree(PathBuf),
    File { root: PathBuf, file: PathBuf },
}

/// Lets a request through only if every file the service behind may open
/// for it is a regular file inside its root once links are resolved. (The
/// check and the service's open are two steps: this keeps out links left in
/// the web root, not someone racing to write into it while it is served.)
async fn only_files_inside(
    State(served): State<Arc<Served>>,
    request: Request,
    next: Next,
) -> Response {
    let (root, file) = match &*served {
        Served::Tree(root) => match file_in_tree(root, request.uri().path()) {
            Some(file) => (root.as_path(), file),
            None => return not_found().await.into_response(),
        },
        Served::File { root, file } => (root.as_path(), file.clone()),
    };
    if !stays_inside(root, &file).await {
        tracing::debug!(path = %request.uri().path(), "refused: not a regular file inside the web root");
        return not_found().await.into_response();
    }
    next.run(request).await
}

/// The file `ServeDir` maps a request path to: the same decoding and the
/// same refusals (`..`, roots, prefixes), so that the check sees its path.
fn file_in_tree(root: &Path, request_path: &str) -> Option<PathBuf> {
    let decoded = percent_encoding::percent_decode_str(request_path.trim_start_matches('/'))
        .decode_utf8()
        .ok()?;
    let mut file = root.to_path_buf();
    for component in Path::new(&*decoded).components() {
        match component {
            Component::Normal(name) => {
                let plain = Path::new(name)
                    .components()
                    .all(|c| matches!(c, Component::Normal(_)));
                if !plain {
                    return None;
                }
                file.push(name);
            }
            Component::CurDir => {}
            Component::Prefix(_) | Component::RootDir | Component::ParentDir => return None,
        }
    }
    Some(file)
}

/// `file` and each precompressed variant of it that exists resolve to a
/// regular file under `root` (itself resolved). A missing file passes: the
/// service answers 404 for it.
async fn stays_inside(root: &Path, file: &Path) -> bool {
    let Ok(root) = tokio::fs::canonicalize(root).await else {
        return false;
    };
    let mut candidates = vec![file.to_path_buf()];
    for suffix in VARIANTS {
        let mut name = file.as_os_str().to_owned();
        name.push(suffix);
        candidates.push(PathBuf::from(name));
    }
    for candidate in candidates {
        match tokio::fs::symlink_metadata(&candidate).await {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(_) => return false,
        }
        let Ok(real) = tokio::fs::canonicalize(&candidate).await else {
            return false;
        };
        let regular = tokio::fs::metadata(&real).await.is_ok_and(|m| m.is_file());
        if !regular || !real.starts_with(&root) {
            return false;
        }
    }
    true
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
