//! The page's files: only those the build listed in its manifest, checked
//! against their hashes at start (issue 49, item 1); compressed as the
//! browser accepts (the build's brotli or gzip, or on the fly, or not at
//! all); cached for a year when content-hashed, revalidated otherwise (the
//! page above all, so a new build shows on the next load).

#[path = "support/built_page.rs"]
mod built_page;

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use axum::Router;
use built_page::write_built_page;
use eldorado_server::built_page::{BuiltPage, PageError, MANIFEST};
use eldorado_server::static_files::{is_content_hashed, router};
use http_body_util::BodyExt;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;
use tower::ServiceExt;

const HASHED_WASM: &str = "eldorado_web_bg-0123456789abcdef.wasm";
const HASHED_JS: &str = "eldorado_web-fedcba9876543210.js";

/// Large and repetitive, so that compressing it is worth it.
fn content(what: &str) -> Vec<u8> {
    what.repeat(400).into_bytes()
}

/// A web root as the build leaves it: the page, its files, an unlisted
/// source page beside them, and `extra` files listed too.
fn web_dir_with(extra: &[(&str, Vec<u8>)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("index.html"), content("<p>source page</p>")).unwrap();
    let mut files = vec![
        (
            "www/pkg/index.html".to_owned(),
            content("<p>built page</p>"),
        ),
        ("www/style.css".to_owned(), content("p { color: red }")),
        (format!("www/pkg/{HASHED_WASM}"), content("wasm bytes ")),
        (
            format!("www/pkg/{HASHED_JS}"),
            content("export const x = 1;"),
        ),
    ];
    files.extend(extra.iter().map(|(p, c)| ((*p).to_owned(), c.clone())));
    let listed: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_slice()))
        .collect();
    write_built_page(dir.path(), &listed);
    dir
}

fn web_dir() -> tempfile::TempDir {
    web_dir_with(&[])
}

struct Got {
    status: StatusCode,
    encoding: Option<String>,
    cache: Option<String>,
    vary: Option<String>,
    body: Vec<u8>,
}

async fn get(app: &Router, path: &str, accept: Option<&str>) -> Got {
    let mut request = Request::get(path);
    if let Some(accept) = accept {
        request = request.header(header::ACCEPT_ENCODING, accept);
    }
    let response = app
        .clone()
        .oneshot(request.body(Body::empty()).unwrap())
        .await
        .unwrap();
    let header = |name| {
        response
            .headers()
            .get(name)
            .map(|v: &header::HeaderValue| v.to_str().unwrap().to_owned())
    };
    let (status, encoding, cache, vary) = (
        response.status(),
        header(header::CONTENT_ENCODING),
        header(header::CACHE_CONTROL),
        header(header::VARY),
    );
    let body = response.into_body().collect().await.unwrap().to_bytes();
    Got {
        status,
        encoding,
        cache,
        vary,
        body: body.to_vec(),
    }
}

/// The body as the browser reads it after undoing `Content-Encoding`.
fn decoded(got: &Got) -> Vec<u8> {
    let mut out = Vec::new();
    match got.encoding.as_deref() {
        None => out.extend_from_slice(&got.body),
        Some("gzip") => {
            flate2::read::GzDecoder::new(&got.body[..])
                .read_to_end(&mut out)
                .unwrap();
        }
        Some("br") => {
            brotli::Decompressor::new(&got.body[..], 4096)
                .read_to_end(&mut out)
                .unwrap();
        }
        Some(other) => panic!("unexpected encoding {other}"),
    }
    out
}

fn app(dir: &Path) -> Router {
    router::<()>(Arc::new(
        BuiltPage::load(dir).expect("the built page loads"),
    ))
}

#[tokio::test]
async fn encodings_are_negotiated() {
    let raw = content("wasm bytes ");
    let dir = web_dir_with(&[
        (format!("www/pkg/{HASHED_WASM}.br").as_str(), brotli(&raw)),
        (format!("www/pkg/{HASHED_WASM}.gz").as_str(), gzip(&raw)),
        (
            "www/pkg/index.html.br",
            brotli(&content("<p>built page</p>")),
        ),
    ]);
    let app = app(dir.path());
    let path = format!("/www/pkg/{HASHED_WASM}");
    for (accept, expected) in [
        (Some("gzip, deflate, br"), Some("br")),
        (Some("br;q=0.5, gzip;q=1.0"), Some("gzip")),
        (Some("gzip"), Some("gzip")),
        (Some("br"), Some("br")),
        (Some("identity"), None),
        (None, None),
    ] {
        let got = get(&app, &path, accept).await;
        assert_eq!(got.status, StatusCode::OK, "{accept:?}");
        assert_eq!(got.encoding.as_deref(), expected, "{accept:?}");
        assert_eq!(decoded(&got), raw, "{accept:?}: the same file once decoded");
        if expected.is_some() {
            assert!(got.body.len() < raw.len() / 4, "{accept:?}: compressed");
        }
        assert!(
            got.vary
                .as_deref()
                .is_some_and(|v| v.to_ascii_lowercase().contains("accept-encoding")),
            "{accept:?}: caches keep one copy per encoding: {:?}",
            got.vary
        );
    }
    // The page from the build's brotli; the style sheet, which the build
    // did not compress, compressed on the fly.
    for path in ["/", "/www/style.css"] {
        let got = get(&app, path, Some("gzip, br")).await;
        assert_eq!(got.encoding.as_deref(), Some("br"), "{path}");
    }
}

#[tokio::test]
async fn hashed_files_are_immutable_and_the_rest_revalidated() {
    let dir = web_dir();
    let app = app(dir.path());
    for path in [
        format!("/www/pkg/{HASHED_WASM}"),
        format!("/www/pkg/{HASHED_JS}"),
    ] {
        let got = get(&app, &path, Some("gzip")).await;
        assert_eq!(got.status, StatusCode::OK, "{path}");
        assert_eq!(
            got.cache.as_deref(),
            Some("public, max-age=31536000, immutable"),
            "{path}"
        );
    }
    for path in ["/", "/index.html", "/www/style.css"] {
        let got = get(&app, path, Some("gzip")).await;
        assert_eq!(got.status, StatusCode::OK, "{path}");
        assert_eq!(got.cache.as_deref(), Some("no-cache"), "{path}");
    }
    let missing = get(&app, "/www/pkg/nothing-0123456789abcdef.js", None).await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert_eq!(missing.cache, None, "a 404 is never cached for a year");
}

#[tokio::test]
async fn the_built_page_is_served_and_the_source_page_is_not() {
    let dir = web_dir();
    let app = app(dir.path());
    for path in ["/", "/index.html"] {
        let got = get(&app, path, None).await;
        assert_eq!(got.body, content("<p>built page</p>"), "{path}");
        assert_eq!(got.cache.as_deref(), Some("no-cache"));
    }
    // Not built: nothing but the API (here: nothing at all).
    let unbuilt = tempfile::tempdir().unwrap();
    std::fs::write(unbuilt.path().join("index.html"), "source page").unwrap();
    let page = BuiltPage::load(unbuilt.path()).unwrap();
    assert!(!page.is_built());
    let got = get(&router::<()>(Arc::new(page)), "/", None).await;
    assert_eq!(got.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_file_already_held_is_not_sent_again() {
    let dir = web_dir();
    let app = app(dir.path());
    let first = app
        .clone()
        .oneshot(Request::get("/").body(Body::empty()).unwrap())
        .await
        .unwrap();
    let etag = first.headers()[header::ETAG].clone();
    let again = app
        .clone()
        .oneshot(
            Request::get("/")
                .header(header::IF_NONE_MATCH, etag)
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    assert!(again
        .into_body()
        .collect()
        .await
        .unwrap()
        .to_bytes()
        .is_empty());
    let head = app
        .clone()
        .oneshot(Request::head("/").body(Body::empty()).unwrap())
        .await
        .unwrap();
    assert_eq!(head.status(), StatusCode::OK);
    let post = app
        .clone()
        .oneshot(Request::post("/").body(Body::empty()).unwrap())
        .await
        .unwrap();
    assert_eq!(post.status(), StatusCode::METHOD_NOT_ALLOWED);
    let body = post.into_body().collect().await.unwrap().to_bytes();
    let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(body["error"]["code"], "METHOD_NOT_ALLOWED");
}

#[test]
fn hashed_names() {
    assert!(is_content_hashed(
        "/www/pkg/eldorado_web_bg-0123456789abcdef.wasm"
    ));
    assert!(is_content_hashed("main-00000000000000ff.js"));
    for name in [
        "/www/pkg/eldorado_web_bg.wasm",
        "/www/pkg/eldorado_web.js",
        "/www/pkg/main-0123456789ABCDEF.js",
        "/www/pkg/main-0123456789abcde.js",
        "/www/pkg/-0123456789abcdef.js",
        "/index.html",
        "/",
    ] {
        assert!(!is_content_hashed(name), "{name}");
    }
}

fn brotli(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    brotli::CompressorReader::new(raw, 4096, 11, 22)
        .read_to_end(&mut out)
        .unwrap();
    out
}

fn gzip(raw: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(raw).unwrap();
    encoder.finish().unwrap()
}

#[tokio::test]
async fn the_builds_precompressed_files_are_sent_as_they_are() {
    // Told apart from the file compressed on the fly by their content.
    let (br, gz) = (
        brotli(&content("from the .br file ")),
        gzip(&content("from the .gz file ")),
    );
    let dir = web_dir_with(&[
        (format!("www/pkg/{HASHED_WASM}.br").as_str(), br.clone()),
        (format!("www/pkg/{HASHED_WASM}.gz").as_str(), gz.clone()),
        ("www/pkg/index.html.br", brotli(b"<p>built, br</p>")),
    ]);
    let app = app(dir.path());
    let path = format!("/www/pkg/{HASHED_WASM}");

    let got = get(&app, &path, Some("gzip, br")).await;
    assert_eq!(got.encoding.as_deref(), Some("br"));
    assert_eq!(got.body, br, "the file itself, not compressed again");
    assert_eq!(
        got.cache.as_deref(),
        Some("public, max-age=31536000, immutable")
    );
    let got = get(&app, &path, Some("gzip")).await;
    assert_eq!(got.encoding.as_deref(), Some("gzip"));
    assert_eq!(got.body, gz);
    let got = get(&app, &path, None).await;
    assert_eq!(got.body, content("wasm bytes "), "plain when not accepted");

    let got = get(&app, "/", Some("br")).await;
    assert_eq!(decoded(&got), b"<p>built, br</p>");
    assert_eq!(got.cache.as_deref(), Some("no-cache"));
}

#[tokio::test]
async fn the_module_keeps_its_type_when_compressed() {
    let dir = web_dir_with(&[(
        format!("www/pkg/{HASHED_WASM}.br").as_str(),
        brotli(&content("wasm bytes ")),
    )]);
    let app = app(dir.path());
    for accept in [Some("br"), Some("gzip"), None] {
        let response = app
            .clone()
            .oneshot({
                let mut request = Request::get(format!("/www/pkg/{HASHED_WASM}"));
                if let Some(accept) = accept {
                    request = request.header(header::ACCEPT_ENCODING, accept);
                }
                request.body(Body::empty()).unwrap()
            })
            .await
            .unwrap();
        assert_eq!(
            response.headers()[header::CONTENT_TYPE],
            "application/wasm",
            "{accept:?}: streaming compilation needs it"
        );
    }
}

/// A data directory beside the web root, holding what must never be served.
fn secrets() -> tempfile::TempDir {
    let data = tempfile::tempdir().unwrap();
    std::fs::write(data.path().join("operator-api.key"), "secret key hex").unwrap();
    std::fs::write(data.path().join("eldorado.sqlite3"), "SQLite format 3").unwrap();
    std::fs::write(data.path().join("eldorado.sqlite3.br"), "not a page").unwrap();
    data
}

/// Issue 49, item 1: a hard link in the web root to the operator key was
/// served. Only what the build listed is served now, whatever else lies
/// in the web root and whatever its kind of link.
#[cfg(unix)]
#[tokio::test]
async fn only_the_files_the_build_listed_are_served() {
    use std::os::unix::fs::symlink;
    let dir = web_dir();
    let data = secrets();
    let www = dir.path().join("www");
    let key = data.path().join("operator-api.key");
    std::fs::hard_link(&key, www.join("hard-key")).unwrap();
    std::fs::hard_link(&key, www.join("pkg/hard-key.js")).unwrap();
    symlink(&key, www.join("key.txt")).unwrap();
    symlink(data.path(), www.join("link-data")).unwrap();
    symlink(
        data.path().join("eldorado.sqlite3.br"),
        www.join("style.css.br"),
    )
    .unwrap();
    std::fs::write(www.join("pkg/eldorado_web.js"), "unhashed, not listed").unwrap();
    let app = app(dir.path());
    for (path, accept) in [
        ("/www/hard-key", None),
        ("/www/pkg/hard-key.js", Some("gzip, br")),
        ("/www/key.txt", None),
        ("/www/link-data/operator-api.key", None),
        ("/www/link-data/eldorado.sqlite3", Some("gzip, br")),
        ("/www/link%2Ddata/operator-api.key", None),
        ("/www/pkg/eldorado_web.js", None),
        ("/www/pkg/page-manifest.json", None),
        ("/www/../index.html", None),
        ("/www/pkg/../style.css", None),
        ("/www/pkg", None),
        ("/www/", None),
    ] {
        let got = get(&app, path, accept).await;
        assert_eq!(got.status, StatusCode::NOT_FOUND, "{path} {accept:?}");
        let body = String::from_utf8_lossy(&got.body);
        assert!(
            !body.contains("secret") && !body.contains("SQLite"),
            "{path}: {body}"
        );
    }
    // The style sheet is served as the build wrote it, never its link's
    // target in place of a precompressed form.
    let got = get(&app, "/www/style.css", Some("br")).await;
    assert_eq!(got.status, StatusCode::OK);
    assert_eq!(decoded(&got), content("p { color: red }"));
}

/// A listed file that is no longer what the build wrote (edited, or
/// replaced by a link to a secret) stops the server from starting, and so
/// does a manifest naming anything outside `www/`.
#[cfg(unix)]
#[test]
fn a_page_changed_since_the_build_is_refused_at_start() {
    let data = secrets();
    let key = data.path().join("operator-api.key");

    let edited = web_dir();
    std::fs::write(edited.path().join("www/style.css"), "p { color: blue }").unwrap();
    let linked = web_dir();
    let css = linked.path().join("www/style.css");
    std::fs::remove_file(&css).unwrap();
    std::fs::hard_link(&key, &css).unwrap();
    for dir in [&edited, &linked] {
        match BuiltPage::load(dir.path()) {
            Err(PageError::Changed { path, .. }) => assert_eq!(path, "www/style.css"),
            Err(other) => panic!("refused for another reason: {other}"),
            Ok(_) => panic!("a changed page was loaded"),
        }
    }

    let missing = web_dir();
    std::fs::remove_file(missing.path().join("www/style.css")).unwrap();
    assert!(matches!(
        BuiltPage::load(missing.path()),
        Err(PageError::Read { .. })
    ));

    for outside in [
        "../data/operator-api.key",
        "index.html",
        "www/../index.html",
    ] {
        let dir = web_dir();
        let manifest = serde_json::json!({ "files": { outside: "00" } });
        std::fs::write(dir.path().join(MANIFEST), manifest.to_string()).unwrap();
        match BuiltPage::load(dir.path()) {
            Err(PageError::BadPath { path }) => assert_eq!(path, outside),
            Err(other) => panic!("{outside}: refused for another reason: {other}"),
            Ok(_) => panic!("{outside}: listed outside www/ and loaded"),
        }
    }
}

#[test]
fn a_data_directory_inside_the_web_root_is_refused_only_where_served() {
    use eldorado_server::static_files::served_path_reaching;
    let dir = web_dir();
    let web = dir.path();
    std::fs::create_dir_all(web.join("data")).unwrap();
    std::fs::create_dir_all(web.join("www/data")).unwrap();
    // Only `/`, `/index.html` and `/www/…` are served.
    assert_eq!(served_path_reaching(web, &web.join("data")), None);
    assert_eq!(
        served_path_reaching(web, &web.join("www/data")).as_deref(),
        Some("/www/data")
    );
    assert_eq!(
        served_path_reaching(web, &web.join("www")).as_deref(),
        Some("/www")
    );
    // The web root itself holds the page and www/.
    assert!(served_path_reaching(web, web).is_some());
    let outside = tempfile::tempdir().unwrap();
    assert_eq!(served_path_reaching(web, outside.path()), None);
}
