//! The page exactly as the build made it: the files listed in the
//! manifest `scripts/build-web.sh` writes (`www/pkg/page-manifest.json`,
//! each file's path under the web root and its SHA-256), read once at start
//! and checked against their hashes, then served from memory. Nothing else
//! under the web root can be served, whatever its kind of link (a hard link
//! to a key looks like any file: it is simply not listed), and a file that
//! changed since the build stops the server from starting. The build's
//! fingerprint goes on the public log (docs/PROTOCOL.md §9, "The page on
//! the record"), and its listing is served for anyone to compare.

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use eldorado_api::PageListing;
use eldorado_engine::transparency::page_fingerprint;
use eldorado_engine::Hash;
use serde::Deserialize;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;

/// Where the build writes the manifest, under the web root.
pub const MANIFEST: &str = "www/pkg/page-manifest.json";
/// The page sent at `/` and `/index.html`.
const INDEX: &str = "www/pkg/index.html";
/// Every listed file lies under this directory of the web root.
const SERVED_TREE: &str = "www/";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    /// Path under the web root → SHA-256 (lower-case hex).
    files: BTreeMap<String, String>,
}

#[derive(Debug, thiserror::Error)]
pub enum PageError {
    #[error("reading {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{MANIFEST} is not a page manifest: {0}")]
    Manifest(serde_json::Error),
    #[error("{MANIFEST} lists {path}, which is not a plain path under {SERVED_TREE}")]
    BadPath { path: String },
    #[error(
        "{path} is not the file the build wrote (SHA-256 {actual}, {MANIFEST} says {expected}): \
         build the page again (scripts/build-web.sh)"
    )]
    Changed {
        path: String,
        expected: String,
        actual: String,
    },
}

/// One file of the page, as read and checked at start.
struct Served {
    bytes: Bytes,
    etag: HeaderValue,
    sha256: Hash,
}

/// The page's files by path under the web root; empty when the page is
/// not built (the API is still served).
#[derive(Default)]
pub struct BuiltPage {
    files: HashMap<String, Served>,
    /// The build's fingerprint, computed once at load; `None` without a page.
    fingerprint: Option<Hash>,
}

impl BuiltPage {
    /// Reads and checks the page listed in `web_dir`'s manifest. No
    /// manifest: no page (a warning), since an API-only server needs none.
    pub fn load(web_dir: &Path) -> Result<BuiltPage, PageError> {
        let manifest_path = web_dir.join(MANIFEST);
        let text = match std::fs::read(&manifest_path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                tracing::warn!(
                    manifest = %manifest_path.display(),
                    "no built page: only the API is served (scripts/build-web.sh builds the page)"
                );
                return Ok(BuiltPage::default());
            }
            Err(source) => {
                return Err(PageError::Read {
                    path: manifest_path.display().to_string(),
                    source,
                })
            }
        };
        let manifest: Manifest = serde_json::from_slice(&text).map_err(PageError::Manifest)?;
        let mut files = HashMap::with_capacity(manifest.files.len());
        for (path, expected) in manifest.files {
            if !is_plain_served_path(&path) {
                return Err(PageError::BadPath { path });
            }
            let file = web_dir.join(&path);
            let bytes = std::fs::read(&file).map_err(|source| PageError::Read {
                path: file.display().to_string(),
                source,
            })?;
            let sha256 = Hash(Sha256::digest(&bytes).into());
            let actual = hex::encode(sha256.0);
            if !actual.eq_ignore_ascii_case(&expected) {
                return Err(PageError::Changed {
                    path,
                    expected,
                    actual,
                });
            }
            let etag = HeaderValue::from_str(&format!("\"{}\"", &actual[..32]))
                .expect("hex digits are a valid header value");
            files.insert(
                path,
                Served {
                    bytes: Bytes::from(bytes),
                    etag,
                    sha256,
                },
            );
        }
        tracing::info!(files = files.len(), "the built page is loaded and checked");
        let fingerprint = (!files.is_empty()).then(|| {
            page_fingerprint(
                files
                    .iter()
                    .map(|(path, served)| (path.as_str(), &served.sha256)),
            )
        });
        Ok(BuiltPage { files, fingerprint })
    }

    /// Whether anything is served (a manifest was found).
    pub fn is_built(&self) -> bool {
        !self.files.is_empty()
    }

    /// The build's fingerprint, as its page record on the log holds it;
    /// `None` when no page is served.
    pub fn fingerprint(&self) -> Option<Hash> {
        self.fingerprint
    }

    /// How many files are served.
    pub fn file_count(&self) -> u32 {
        u32::try_from(self.files.len()).unwrap_or(u32::MAX)
    }

    /// What `GET /api/log/page` answers; `None` when no page is served.
    pub fn listing(&self) -> Option<PageListing> {
        let fingerprint = self.fingerprint()?;
        Some(PageListing {
            fingerprint: hex::encode(fingerprint.0),
            files: self
                .files
                .iter()
                .map(|(path, served)| (path.clone(), hex::encode(served.sha256.0)))
                .collect(),
        })
    }

    /// The listed file a request path names: `/` and `/index.html` the
    /// page, `/www/…` the file of that exact path (no decoding: a listed
    /// name has nothing to decode, and anything else is not listed).
    fn file_for(&self, request_path: &str) -> Option<(&str, &Served)> {
        let path = match request_path {
            "/" | "/index.html" => INDEX,
            other => other.strip_prefix('/')?,
        };
        self.files
            .get_key_value(path)
            .map(|(path, served)| (path.as_str(), served))
    }
}

/// Relative, made only of plain names, under `www/`: no `..`, no root, no
/// empty or `.` component.
fn is_plain_served_path(path: &str) -> bool {
    // Split by hand: `Path::components` drops `.` and empty components.
    path.starts_with(SERVED_TREE)
        && path
            .split('/')
            .all(|name| !name.is_empty() && name != "." && name != "..")
}

/// What `Accept-Encoding` allows of the build's precompressed forms, by
/// the client's preference (`q`), brotli first among equals; a coding given
/// `q=0` is refused.
fn accepted_codings(headers: &HeaderMap) -> Vec<&'static str> {
    let mut accepted: Vec<(&'static str, f32)> = Vec::new();
    for value in headers.get_all(header::ACCEPT_ENCODING) {
        let Ok(value) = value.to_str() else { continue };
        for item in value.split(',') {
            let mut parts = item.split(';');
            let name = parts.next().unwrap_or_default().trim();
            let q = parts
                .find_map(|p| p.trim().strip_prefix("q="))
                .map_or(Some(1.0), |q| q.trim().parse::<f32>().ok())
                .unwrap_or(0.0);
            for coding in ["br", "gzip"] {
                if name.eq_ignore_ascii_case(coding)
                    && q > 0.0
                    && !accepted.iter().any(|(c, _)| *c == coding)
                {
                    accepted.push((coding, q));
                }
            }
        }
    }
    accepted.sort_by(|a, b| {
        b.1.total_cmp(&a.1)
            .then_with(|| (a.0 != "br").cmp(&(b.0 != "br")))
    });
    accepted.into_iter().map(|(coding, _)| coding).collect()
}

/// `GET` (and `HEAD`) of a listed file: its precompressed form when the
/// browser accepts one, `304` when its `ETag` is already held.
pub async fn serve(State(page): State<Arc<BuiltPage>>, request: Request) -> Response {
    if request.method() != Method::GET && request.method() != Method::HEAD {
        return crate::error::ApiError::MethodNotAllowed.into_response();
    }
    let Some((path, plain)) = page.file_for(request.uri().path()) else {
        return crate::error::ApiError::NotFound("no such page".to_owned()).into_response();
    };
    // The build's precompressed forms of this file, by coding.
    let variants: Vec<(&'static str, &Served)> = [("br", ".br"), ("gzip", ".gz")]
        .into_iter()
        .filter_map(|(coding, suffix)| {
            let variant = page.files.get(&format!("{path}{suffix}"))?;
            Some((coding, variant))
        })
        .collect();
    let chosen = accepted_codings(request.headers())
        .into_iter()
        .find_map(|c| variants.iter().find(|(coding, _)| *coding == c));
    let (served, encoding) = match chosen {
        Some(&(coding, variant)) => (variant, Some(coding)),
        None => (plain, None),
    };
    let mut headers = HeaderMap::new();
    // By the name, as tower-http's file services (and browsers) do.
    let media = mime_guess::from_path(path)
        .first_raw()
        .unwrap_or("application/octet-stream");
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(media));
    headers.insert(header::ETAG, served.etag.clone());
    if !variants.is_empty() {
        headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    }
    if let Some(encoding) = encoding {
        headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static(encoding));
    }
    let held = request
        .headers()
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|tag| {
            let tag = tag.trim();
            tag == "*" || tag.trim_start_matches("W/") == served.etag
        });
    if held {
        return (StatusCode::NOT_MODIFIED, headers).into_response();
    }
    (headers, Body::from(served.bytes.clone())).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_paths_under_www_are_listed() {
        for good in ["www/pkg/index.html", "www/icon.svg"] {
            assert!(is_plain_served_path(good), "{good}");
        }
        for bad in [
            "index.html",
            "/www/pkg/index.html",
            "www/../data/operator-api.key",
            "www/./pkg/x.js",
            "www//x",
            "www/pkg/",
            "data/www/x",
        ] {
            assert!(!is_plain_served_path(bad), "{bad}");
        }
    }

    #[test]
    fn codings_are_taken_best_first_and_q0_refuses() {
        let headers = |value: &str| {
            let mut h = HeaderMap::new();
            h.insert(
                header::ACCEPT_ENCODING,
                HeaderValue::from_str(value).unwrap(),
            );
            h
        };
        assert_eq!(
            accepted_codings(&headers("gzip, deflate, br")),
            ["br", "gzip"]
        );
        assert_eq!(accepted_codings(&headers("gzip;q=1.0, br;q=0")), ["gzip"]);
        assert_eq!(
            accepted_codings(&headers("br;q=0.5, gzip;q=1.0")),
            ["gzip", "br"]
        );
        assert_eq!(accepted_codings(&headers("identity")), Vec::<&str>::new());
        assert_eq!(accepted_codings(&HeaderMap::new()), Vec::<&str>::new());
    }
}
