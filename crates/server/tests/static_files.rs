//! The page's files: compressed as the browser accepts (brotli, gzip, or
//! not at all), cached for a year when content-hashed, revalidated
//! otherwise (the page above all, so a new build shows on the next load).

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use axum::Router;
use eldorado_server::static_files::{is_content_hashed, router};
use http_body_util::BodyExt;
use std::io::Read;
use std::path::Path;
use tower::ServiceExt;

const HASHED_WASM: &str = "eldorado_web_bg-0123456789abcdef.wasm";
const HASHED_JS: &str = "eldorado_web-fedcba9876543210.js";

/// Large and repetitive, so that compressing it is worth it.
fn content(what: &str) -> Vec<u8> {
    what.repeat(400).into_bytes()
}

fn web_dir(with_built_index: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("www/pkg");
    std::fs::create_dir_all(&pkg).unwrap();
    std::fs::write(dir.path().join("index.html"), content("<p>source page</p>")).unwrap();
    std::fs::write(
        dir.path().join("www/style.css"),
        content("p { color: red }"),
    )
    .unwrap();
    std::fs::write(pkg.join(HASHED_WASM), content("wasm bytes ")).unwrap();
    std::fs::write(pkg.join(HASHED_JS), content("export const x = 1;")).unwrap();
    if with_built_index {
        std::fs::write(pkg.join("index.html"), content("<p>built page</p>")).unwrap();
    }
    dir
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
    router::<()>(dir)
}

#[tokio::test]
async fn encodings_are_negotiated() {
    let dir = web_dir(true);
    let app = app(dir.path());
    let path = format!("/www/pkg/{HASHED_WASM}");
    let raw = content("wasm bytes ");
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
    // The page and the style sheet too.
    for path in ["/", "/www/style.css"] {
        let got = get(&app, path, Some("gzip, br")).await;
        assert_eq!(got.encoding.as_deref(), Some("br"), "{path}");
    }
}

#[tokio::test]
async fn hashed_files_are_immutable_and_the_rest_revalidated() {
    let dir = web_dir(true);
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
async fn the_built_page_is_served_when_the_bundle_is_built() {
    let built = web_dir(true);
    let got = get(&app(built.path()), "/", None).await;
    assert_eq!(got.body, content("<p>built page</p>"));
    let source = web_dir(false);
    let got = get(&app(source.path()), "/", None).await;
    assert_eq!(got.body, content("<p>source page</p>"));
    assert_eq!(got.cache.as_deref(), Some("no-cache"));
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
    let dir = web_dir(true);
    let pkg = dir.path().join("www/pkg");
    // Told apart from the file compressed on the fly by their content.
    let (br, gz) = (
        brotli(&content("from the .br file ")),
        gzip(&content("from the .gz file ")),
    );
    std::fs::write(pkg.join(format!("{HASHED_WASM}.br")), &br).unwrap();
    std::fs::write(pkg.join(format!("{HASHED_WASM}.gz")), &gz).unwrap();
    std::fs::write(pkg.join("index.html.br"), brotli(b"<p>built, br</p>")).unwrap();
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
    let dir = web_dir(true);
    let pkg = dir.path().join("www/pkg");
    std::fs::write(
        pkg.join(format!("{HASHED_WASM}.br")),
        brotli(&content("wasm bytes ")),
    )
    .unwrap();
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

#[cfg(unix)]
#[tokio::test]
async fn links_out_of_the_web_root_are_never_followed() {
    use std::os::unix::fs::symlink;
    let dir = web_dir(true);
    let data = secrets();
    let www = dir.path().join("www");
    // A directory link, a file link, a link to a precompressed variant and
    // a relative link climbing out.
    symlink(data.path(), www.join("link-data")).unwrap();
    symlink(data.path().join("operator-api.key"), www.join("key.txt")).unwrap();
    symlink(
        data.path().join("eldorado.sqlite3.br"),
        www.join("style.css.br"),
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("beside")).unwrap();
    std::fs::write(dir.path().join("beside/note.txt"), "outside www").unwrap();
    symlink("../beside", www.join("up")).unwrap();
    let app = app(dir.path());
    for (path, accept) in [
        ("/www/link-data/operator-api.key", None),
        ("/www/link-data/eldorado.sqlite3", Some("gzip, br")),
        ("/www/link%2Ddata/operator-api.key", None),
        ("/www/key.txt", None),
        ("/www/up/note.txt", None),
        ("/www/style.css", Some("br")),
        ("/www/style.css", None),
        ("/www/link-data", None),
    ] {
        let got = get(&app, path, accept).await;
        assert_eq!(got.status, StatusCode::NOT_FOUND, "{path} {accept:?}");
        let body = String::from_utf8_lossy(&got.body);
        assert!(
            !body.contains("secret") && !body.contains("SQLite"),
            "{path}: {body}"
        );
    }
    // Regular files inside the root are still served.
    let got = get(&app, &format!("/www/pkg/{HASHED_WASM}"), Some("gzip")).await;
    assert_eq!(got.status, StatusCode::OK);
}

#[cfg(unix)]
#[tokio::test]
async fn a_link_inside_the_web_root_to_a_file_inside_it_is_served() {
    let dir = web_dir(true);
    std::os::unix::fs::symlink("style.css", dir.path().join("www/alias.css")).unwrap();
    let got = get(&app(dir.path()), "/www/alias.css", None).await;
    assert_eq!(got.status, StatusCode::OK);
    assert_eq!(got.body, content("p { color: red }"));
}

#[cfg(unix)]
#[tokio::test]
async fn an_index_page_linked_out_of_the_web_root_is_not_served() {
    let dir = web_dir(true);
    let data = secrets();
    let built = dir.path().join("www/pkg/index.html");
    std::fs::remove_file(&built).unwrap();
    std::os::unix::fs::symlink(data.path().join("operator-api.key"), &built).unwrap();
    let app = app(dir.path());
    for path in ["/", "/index.html"] {
        let got = get(&app, path, None).await;
        assert_eq!(got.status, StatusCode::NOT_FOUND, "{path}");
        assert!(!String::from_utf8_lossy(&got.body).contains("secret"));
    }
}

#[test]
fn a_data_directory_inside_the_web_root_is_refused_only_where_served() {
    use eldorado_server::static_files::served_path_reaching;
    let dir = web_dir(true);
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
