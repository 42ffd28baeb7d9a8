//! A man in the middle, inside the test harness only: forwards everything
//! to the real server and lets the test rewrite chosen answers (the JSON of
//! sale answers, `POST /api/sales`, by default; any path's body with
//! [`TamperProxy::with_rules`]), as a compromised network or a dishonest
//! operator showing one page what it hides from the others would.

use crate::api::{http_client, HttpClient};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{header, Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// Rewrites a sale answer in place.
pub type Tamper = dyn Fn(&mut Value) + Send + Sync;

/// Rewrites the successful answers to one method and path (the query
/// string aside): the body as JSON, or as text (a signed note).
pub struct Rule {
    pub method: Method,
    pub path: String,
    pub rewrite: Rewrite,
}

pub enum Rewrite {
    Json(Box<Tamper>),
    Text(Box<dyn Fn(&str) -> String + Send + Sync>),
}

impl Rule {
    pub fn json(
        method: Method,
        path: &str,
        tamper: impl Fn(&mut Value) + Send + Sync + 'static,
    ) -> Rule {
        Rule {
            method,
            path: path.to_owned(),
            rewrite: Rewrite::Json(Box::new(tamper)),
        }
    }

    pub fn text(
        method: Method,
        path: &str,
        tamper: impl Fn(&str) -> String + Send + Sync + 'static,
    ) -> Rule {
        Rule {
            method,
            path: path.to_owned(),
            rewrite: Rewrite::Text(Box::new(tamper)),
        }
    }
}

pub struct TamperProxy {
    pub base: String,
    tampered: Arc<AtomicUsize>,
    task: JoinHandle<()>,
}

struct Shared {
    upstream: String,
    http: HttpClient,
    rules: Vec<Rule>,
    tampered: Arc<AtomicUsize>,
}

impl TamperProxy {
    /// Rewrites every successful `POST /api/sales` answer with `tamper`.
    pub async fn start(upstream: &str, tamper: Box<Tamper>) -> TamperProxy {
        let rule = Rule {
            method: Method::POST,
            path: "/api/sales".to_owned(),
            rewrite: Rewrite::Json(tamper),
        };
        TamperProxy::with_rules(upstream, vec![rule]).await
    }

    /// Rewrites the successful answers each rule matches.
    pub async fn with_rules(upstream: &str, rules: Vec<Rule>) -> TamperProxy {
        let listener = TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0)))
            .await
            .expect("bind the proxy");
        let addr = listener.local_addr().expect("proxy address");
        let tampered = Arc::new(AtomicUsize::new(0));
        let shared = Arc::new(Shared {
            upstream: upstream.trim_end_matches('/').to_owned(),
            http: http_client(),
            rules,
            tampered: Arc::clone(&tampered),
        });
        let task = tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let shared = Arc::clone(&shared);
                tokio::spawn(async move {
                    let service = service_fn(move |request| {
                        let shared = Arc::clone(&shared);
                        async move { Ok::<_, hyper::Error>(forward(&shared, request).await) }
                    });
                    let _ = http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        TamperProxy {
            base: format!("http://{addr}"),
            tampered,
            task,
        }
    }

    /// How many answers were rewritten.
    pub fn tampered(&self) -> usize {
        self.tampered.load(Ordering::SeqCst)
    }
}

impl Drop for TamperProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn forward(shared: &Shared, request: Request<Incoming>) -> Response<Full<Bytes>> {
    match try_forward(shared, request).await {
        Ok(response) => response,
        Err(error) => {
            let mut response = Response::new(Full::new(Bytes::from(error)));
            *response.status_mut() = StatusCode::BAD_GATEWAY;
            response
        }
    }
}

async fn try_forward(
    shared: &Shared,
    request: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, String> {
    let (parts, body) = request.into_parts();
    let rule = shared
        .rules
        .iter()
        .find(|rule| rule.method == parts.method && rule.path == parts.uri.path());
    let body = body.collect().await.map_err(|e| e.to_string())?.to_bytes();
    let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let mut upstream = Request::builder()
        .method(parts.method.clone())
        .uri(format!("{}{path}", shared.upstream));
    for (name, value) in &parts.headers {
        if name != header::HOST && name != header::CONTENT_LENGTH {
            upstream = upstream.header(name, value);
        }
    }
    let upstream = upstream.body(Full::new(body)).map_err(|e| e.to_string())?;
    let answer = shared
        .http
        .request(upstream)
        .await
        .map_err(|e| e.to_string())?;
    let (mut parts, body) = answer.into_parts();
    let mut body = body.collect().await.map_err(|e| e.to_string())?.to_bytes();
    if let Some(rule) = rule.filter(|_| parts.status.is_success()) {
        body = match &rule.rewrite {
            Rewrite::Json(tamper) => {
                let mut json: Value = serde_json::from_slice(&body).map_err(|e| e.to_string())?;
                tamper(&mut json);
                Bytes::from(serde_json::to_vec(&json).map_err(|e| e.to_string())?)
            }
            Rewrite::Text(tamper) => {
                let text = std::str::from_utf8(&body).map_err(|e| e.to_string())?;
                Bytes::from(tamper(text))
            }
        };
        shared.tampered.fetch_add(1, Ordering::SeqCst);
        // A rewritten answer is not the one the server's validators name.
        parts.headers.remove(header::ETAG);
        parts.headers.remove(header::CACHE_CONTROL);
    }
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.remove(header::TRANSFER_ENCODING);
    Ok(Response::from_parts(parts, Full::new(body)))
}
