//! The HTTP API of docs/PROTOCOL.md (Part II) and the extractors that turn every
//! client mistake into a 4xx `ApiError` before any handler runs.

mod bodies;
mod endpoints;
mod json_body;
pub(crate) mod launch;
pub(crate) mod log;
pub(crate) mod operator;
pub(crate) mod player;
pub(crate) mod protection;
pub(crate) mod public;

pub use endpoints::{endpoints, Endpoint, PREFIX};

use crate::error::ApiError;
use crate::sessions::Session;
use crate::state::AppState;
use axum::body::Bytes;
use axum::error_handling::HandleErrorLayer;
use axum::extract::{ConnectInfo, DefaultBodyLimit, FromRequest, FromRequestParts, Request};
use axum::http::{header, request::Parts, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::Router;
use serde::de::DeserializeOwned;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;
use tower::limit::GlobalConcurrencyLimitLayer;
use tower::load_shed::LoadShedLayer;
use tower::ServiceBuilder;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::set_header::SetResponseHeaderLayer;

/// `GET /metrics` (operator key): the Prometheus text of `crate::metrics`.
async fn metrics(
    axum::extract::State(state): axum::extract::State<AppState>,
    _: Operator,
) -> Result<Response, ApiError> {
    let text = state.blocking(|s| Ok(crate::metrics::render(s))).await?;
    Ok((
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
        )],
        text,
    )
        .into_response())
}

/// What an overloaded server asks clients to wait before retrying.
const OVERLOADED_RETRY_SECS: u64 = 1;

/// The whole server: API, OpenAPI document and the page.
pub fn app(state: AppState) -> Router {
    let api = endpoints()
        .into_iter()
        .fold(Router::new(), |router, e| router.route(e.path, e.route))
        .fallback(api_not_found)
        .method_not_allowed_fallback(method_not_allowed)
        // Only the public record's proofs and leaves set their own caching.
        .layer(SetResponseHeaderLayer::if_not_present(
            header::CACHE_CONTROL,
            HeaderValue::from_static("no-store"),
        ));
    let body_limit = state.config.body_limit;
    let page = std::sync::Arc::clone(&state.page);
    let csp = HeaderValue::from_str(&crate::static_files::content_security_policy(
        &state.config.frame_ancestors,
    ))
    .expect("Config::check keeps frame ancestors to visible ASCII");
    let limits = state.config.limits.clone();
    let router = Router::new()
        .nest(PREFIX, api)
        // Outside the API and its OpenAPI document: Prometheus's own format.
        .route("/metrics", axum::routing::get(metrics))
        .merge(crate::console::router())
        .merge(crate::static_files::router(page))
        .with_state(state)
        .layer(DefaultBodyLimit::max(body_limit))
        .layer(CatchPanicLayer::custom(panic_response))
        .layer(middleware::from_fn_with_state(
            limits.request_timeout,
            request_timeout,
        ))
        // Outermost: a request beyond the limit in flight is refused at
        // once instead of queueing (load shedding). The limit is global, not
        // per route: `Router::layer` wraps each route with the same semaphore.
        .layer(
            ServiceBuilder::new()
                .layer(HandleErrorLayer::new(|_: tower::BoxError| async {
                    ApiError::Overloaded {
                        retry_after_secs: OVERLOADED_RETRY_SECS,
                    }
                }))
                .layer(LoadShedLayer::new())
                .layer(GlobalConcurrencyLimitLayer::new(limits.max_in_flight)),
        )
        .layer(axum::middleware::map_response(retry_after_on_refusals));
    crate::static_files::with_security_headers(router, csp)
}

/// Every 429 and 503 says when to come back: those made by an `ApiError`
/// say it already; any other (the health check's, a layer's) gets the
/// default, so that no answer breaks the promise of docs/PROTOCOL.md.
async fn retry_after_on_refusals(mut response: Response) -> Response {
    if crate::error::needs_retry_after(response.status())
        && !response.headers().contains_key(header::RETRY_AFTER)
    {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, crate::error::DEFAULT_RETRY_SECS.into());
    }
    response
}

/// Answers 503 `TIMEOUT` when a request is not answered in time (up to the
/// response head; a streamed body has its own deadline).
async fn request_timeout(
    axum::extract::State(limit): axum::extract::State<Duration>,
    request: Request,
    next: Next,
) -> Response {
    match tokio::time::timeout(limit, next.run(request)).await {
        Ok(response) => response,
        Err(_) => {
            tracing::warn!(limit_ms = limit.as_millis() as u64, "a request timed out");
            ApiError::Timeout.into_response()
        }
    }
}

async fn api_not_found() -> ApiError {
    ApiError::NotFound("no such API endpoint".to_owned())
}

async fn method_not_allowed() -> ApiError {
    ApiError::MethodNotAllowed
}

fn panic_response(_: Box<dyn std::any::Any + Send + 'static>) -> Response {
    ApiError::internal("a request handler panicked").into_response()
}

/// A JSON body, whatever its declared content type, with every failure
/// (size, syntax, types, missing fields) as a 4xx `ApiError`.
pub struct ApiJson<T>(pub T);

impl<T: DeserializeOwned> FromRequest<AppState> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, ApiError> {
        // A body trickled in slowly must not hold a request slot forever.
        let read = tokio::time::timeout(
            state.config.limits.body_timeout,
            Bytes::from_request(req, state),
        )
        .await
        .map_err(|_| ApiError::RequestTimeout)?;
        let bytes = read.map_err(|rejection| {
            if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::PayloadTooLarge
            } else {
                ApiError::BadRequest("the request body could not be read".to_owned())
            }
        })?;
        json_body::parse(&bytes).map(ApiJson)
    }
}

fn bearer(parts: &Parts) -> Option<&str> {
    let value = parts.headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then_some(token.trim())
}

/// The player behind a valid, unexpired session token.
pub struct Player(pub Session);

impl FromRequestParts<AppState> for Player {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let token = bearer(parts)
            .ok_or(ApiError::Unauthorized(
                "a session token is required (Authorization: Bearer)",
            ))?
            .to_owned();
        state
            .blocking(move |state| state.sessions.find(&token))
            .await
            .map(Player)
    }
}

/// The client's IP address, for the per-address rate limits: the peer's,
/// or behind a `--trusted-proxy` the one it forwarded
/// ([`crate::client_address`]). Requests that did not come through the
/// listener (tests calling the router directly) have the unspecified
/// address as their peer.
pub struct ClientIp(pub IpAddr);

impl FromRequestParts<AppState> for ClientIp {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |c| c.0.ip());
        Ok(ClientIp(crate::client_address::client_ip(
            peer,
            &parts.headers,
            &state.config.trusted_proxies,
        )))
    }
}

/// A request carrying the operator API key.
pub struct Operator;

impl FromRequestParts<AppState> for Operator {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        match bearer(parts) {
            Some(key) if state.is_operator_key(key) => Ok(Operator),
            _ => Err(ApiError::Unauthorized(
                "the operator API key is required (Authorization: Bearer)",
            )),
        }
    }
}

/// A numeric id from the path; anything else names nothing that exists.
/// Both stores keep ids as SQL integers, at most `i64::MAX`: a larger id
/// names no block or sale, so it is 404 here rather than a value a store
/// would take for inconsistent data.
pub fn path_id(text: &str, what: &str) -> Result<u64, ApiError> {
    if text.is_empty() || text.len() > 20 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ApiError::not_found(what));
    }
    text.parse::<i64>()
        .map(|id| id as u64)
        .map_err(|_| ApiError::not_found(what))
}
