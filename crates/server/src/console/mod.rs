//! `/operator/`: the back office of the operator's staff, rendered on the
//! server (maud) with charts drawn as SVG on the server (plotters), so the
//! console needs no script and no build step of its own (ARCHITECTURE.md,
//! "The operator's console"). It reads and changes only what the operator
//! API can, through the same functions, and shows nothing about the unsold
//! tickets of a block that is still on sale.

mod blocks;
mod charts;
mod layout;
mod overview;
mod players;
mod session;
mod text;
mod wallet;

pub use blocks::SaleSpans;
pub use session::{ConsoleSessions, COOKIE};
pub use text::Lang;

use crate::error::ApiError;
use crate::routes::ClientIp;
use crate::state::AppState;
use axum::extract::{FromRequestParts, Request, State};
use axum::http::{header, request::Parts, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{self, MethodRouter};
use axum::Router;
use layout::Nav;
use maud::Markup;
use session::Signed;
use text::Text;

/// A rendered page as a response.
fn html(markup: Markup) -> Response {
    axum::response::Html(markup.into_string()).into_response()
}

/// A query string, or its defaults when it is missing or malformed (a
/// page is then shown as if it had none).
pub struct QueryOr<T>(pub T);

impl<T: serde::de::DeserializeOwned + Default> FromRequestParts<AppState> for QueryOr<T> {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        Ok(QueryOr(
            axum::extract::Query::<T>::from_request_parts(parts, state)
                .await
                .map(|q| q.0)
                .unwrap_or_default(),
        ))
    }
}

/// Where the console is mounted.
pub const PREFIX: &str = "/operator";

/// The console's own policy: no script at all, forms to itself only, and
/// never inside a frame.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; style-src 'self'; img-src 'self'; \
     form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/// The language cookie (`/operator/lang`), a preference and no secret.
const LANG_COOKIE: &str = "eldorado_console_lang";

/// One console route.
pub struct ConsoleRoute {
    pub method: Method,
    /// Below [`PREFIX`], in axum's `{param}` syntax.
    pub path: &'static str,
    /// Open to anybody (the sign-in and the style sheet); every other
    /// route needs a signed-in session.
    pub public: bool,
    route: MethodRouter<AppState>,
}

fn get(path: &'static str, route: MethodRouter<AppState>) -> ConsoleRoute {
    ConsoleRoute {
        method: Method::GET,
        path,
        public: false,
        route,
    }
}

fn post(path: &'static str, route: MethodRouter<AppState>) -> ConsoleRoute {
    ConsoleRoute {
        method: Method::POST,
        path,
        public: false,
        route,
    }
}

fn public(route: ConsoleRoute) -> ConsoleRoute {
    ConsoleRoute {
        public: true,
        ..route
    }
}

/// Every route of the console, from which its router is built (and the
/// test that checks that none but the public ones answers a stranger).
pub fn routes() -> Vec<ConsoleRoute> {
    vec![
        public(get("/sign-in", routing::get(sign_in_page))),
        public(post("/sign-in", routing::post(sign_in))),
        public(get("/console.css", routing::get(style_sheet))),
        public(get("/lang", routing::get(choose_lang))),
        post("/sign-out", routing::post(sign_out)),
        get("/", routing::get(overview::page)),
        get("/blocks", routing::get(blocks::list)),
        get("/blocks/{block}/close", routing::get(blocks::confirm_close)),
        post("/blocks/{block}/close", routing::post(blocks::close)),
        get("/blocks/{block}/audit", routing::get(blocks::audit)),
        get("/players", routing::get(players::search)),
        get("/players/{player_id}", routing::get(players::player)),
        post(
            "/players/{player_id}/sessions/revoke",
            routing::post(players::revoke_sessions),
        ),
        post(
            "/players/{player_id}/limits",
            routing::post(players::limits),
        ),
        post(
            "/players/{player_id}/exclusion",
            routing::post(players::exclusion),
        ),
        get(
            "/players/{player_id}/sales/{sale_id}/receipt",
            routing::get(players::receipt),
        ),
        get("/wallet", routing::get(wallet::page)),
        post("/wallet/retry", routing::post(wallet::retry)),
    ]
}

/// The console's router, its paths below [`PREFIX`].
pub fn router() -> Router<AppState> {
    routes()
        .into_iter()
        .fold(Router::new(), |router, r| {
            router.route(&format!("{PREFIX}{}", r.path), r.route)
        })
        .route(
            PREFIX,
            routing::get(|| async { Redirect::permanent("/operator/") }),
        )
        .layer(middleware::from_fn(console_headers))
}

async fn console_headers(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    response
}

/// What a console request could not do, as a page (never a JSON body, and
/// never an internal cause).
#[derive(Debug)]
pub enum ConsoleError {
    /// Not signed in: pages send the browser to the sign-in.
    SignIn,
    /// Not signed in, a bad CSRF token, or a request from another site.
    Forbidden,
    NotFound,
    Refused(StatusCode, String),
    /// Refused for now (429, 503): the page says so, `Retry-After` when.
    Later {
        status: StatusCode,
        message: String,
        retry_after_secs: u64,
    },
}

impl From<ApiError> for ConsoleError {
    fn from(e: ApiError) -> ConsoleError {
        match e {
            ApiError::Internal(_) => {
                // Logged with its cause by its IntoResponse; the page says less.
                let _logged = e.into_response();
                ConsoleError::Refused(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "internal error".to_owned(),
                )
            }
            ApiError::NotFound(_) => ConsoleError::NotFound,
            e => match e.retry_after_secs() {
                Some(retry_after_secs) => ConsoleError::Later {
                    status: e.status(),
                    message: e.to_string(),
                    retry_after_secs,
                },
                None => ConsoleError::Refused(e.status(), e.to_string()),
            },
        }
    }
}

impl IntoResponse for ConsoleError {
    fn into_response(self) -> Response {
        let (status, message) = match self {
            ConsoleError::SignIn => return Redirect::to("/operator/sign-in").into_response(),
            ConsoleError::Forbidden => (
                StatusCode::FORBIDDEN,
                "forbidden: sign in, and send forms from the console itself".to_owned(),
            ),
            ConsoleError::NotFound => (StatusCode::NOT_FOUND, "not found".to_owned()),
            ConsoleError::Refused(status, message) => (status, message),
            ConsoleError::Later {
                status,
                message,
                retry_after_secs,
            } => {
                let mut response = (status, html(layout::bare(&message))).into_response();
                response
                    .headers_mut()
                    .insert(header::RETRY_AFTER, retry_after_secs.into());
                return response;
            }
        };
        (status, html(layout::bare(&message))).into_response()
    }
}

impl FromRequestParts<AppState> for Lang {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &AppState) -> Result<Lang, Self::Rejection> {
        let chosen = cookies(&parts.headers)
            .find(|(name, _)| *name == LANG_COOKIE)
            .and_then(|(_, value)| Lang::from_code(value));
        let accepted = || {
            let accept = parts.headers.get(header::ACCEPT_LANGUAGE)?.to_str().ok()?;
            let first = accept.split(',').next()?.trim().to_ascii_lowercase();
            Some(if first.starts_with("en") {
                Lang::En
            } else {
                Lang::Fr
            })
        };
        Ok(chosen.or_else(accepted).unwrap_or(Lang::Fr))
    }
}

fn cookies(headers: &HeaderMap) -> impl Iterator<Item = (&str, &str)> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
}

/// A signed-in member of the operator's staff.
pub struct Console {
    signed: Signed,
    pub lang: Lang,
    pub csrf: String,
}

impl FromRequestParts<AppState> for Console {
    type Rejection = ConsoleError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Console, ConsoleError> {
        let refused = if parts.method == Method::GET {
            ConsoleError::SignIn
        } else {
            ConsoleError::Forbidden
        };
        let now = state.clock.now_ms();
        let signed = cookies(&parts.headers)
            .filter(|(name, _)| *name == COOKIE)
            .find_map(|(_, token)| state.console.verify(token, now))
            .ok_or(refused)?;
        let Ok(lang) = Lang::from_request_parts(parts, state).await;
        Ok(Console {
            csrf: state.console.csrf(&signed),
            signed,
            lang,
        })
    }
}

impl Console {
    pub fn text(&self) -> &'static Text {
        self.lang.text()
    }

    /// A page of the console, with its navigation.
    pub fn page(&self, nav: Nav, path: &str, title: &str, body: Markup) -> Response {
        html(layout::page(self, nav, path, title, body))
    }

    /// Checks a form: this session's token, sent from this origin.
    pub fn check_form(
        &self,
        state: &AppState,
        headers: &HeaderMap,
        token: &str,
    ) -> Result<(), ConsoleError> {
        if same_site(headers) && state.console.csrf_matches(&self.signed, token) {
            Ok(())
        } else {
            Err(ConsoleError::Forbidden)
        }
    }
}

/// Browsers say where a request comes from (`Sec-Fetch-Site`, else a real
/// `Origin`; under the no-referrer policy a form's `Origin` is `null`): a
/// request from another site is refused whatever it carries. Clients that
/// say neither (tests, scripts with the cookie) still need the CSRF token.
fn same_site(headers: &HeaderMap) -> bool {
    if let Some(site) = headers.get("sec-fetch-site") {
        return site.as_bytes() == b"same-origin";
    }
    match headers.get(header::ORIGIN).map(HeaderValue::as_bytes) {
        None | Some(b"null") => true,
        Some(origin) => headers.get(header::HOST).is_some_and(|host| {
            std::str::from_utf8(origin).is_ok_and(|origin| {
                origin
                    .split_once("://")
                    .is_some_and(|(_, authority)| authority.as_bytes() == host.as_bytes())
            })
        }),
    }
}

/// A form body, any failure to read it a 400 page.
pub struct ConsoleForm<T>(pub T);

impl<T: serde::de::DeserializeOwned> axum::extract::FromRequest<AppState> for ConsoleForm<T> {
    type Rejection = ConsoleError;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, ConsoleError> {
        axum::extract::Form::<T>::from_request(req, state)
            .await
            .map(|axum::extract::Form(body)| ConsoleForm(body))
            .map_err(|e| ConsoleError::Refused(StatusCode::BAD_REQUEST, e.body_text()))
    }
}

#[derive(serde::Deserialize)]
pub struct CsrfOnly {
    pub csrf: String,
}

#[derive(serde::Deserialize)]
struct SignInForm {
    key: String,
}

#[derive(serde::Deserialize, Default)]
struct SignInQuery {
    #[serde(default)]
    failed: bool,
    #[serde(default)]
    out: bool,
}

async fn sign_in_page(lang: Lang, QueryOr(query): QueryOr<SignInQuery>) -> Response {
    html(layout::sign_in(lang, query.failed, query.out))
}

async fn sign_in(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    headers: HeaderMap,
    ConsoleForm(form): ConsoleForm<SignInForm>,
) -> Result<Response, ConsoleError> {
    if !same_site(&headers) {
        return Err(ConsoleError::Forbidden);
    }
    // Keys are far too long to guess; the limit keeps a guesser from
    // costing the server more than a few checks a minute.
    state.console_sign_in_limit.check(ip)?;
    if !state.is_operator_key(form.key.trim()) {
        tracing::warn!("a console sign-in with a wrong key");
        return Ok(Redirect::to("/operator/sign-in?failed=true").into_response());
    }
    let nonce = crate::keys::os_random::<16>().map_err(ApiError::internal)?;
    let (token, _) = state.console.issue(state.clock.now_ms(), nonce);
    tracing::info!("the operator's console: signed in");
    let cookie = HeaderValue::from_str(&state.console.cookie(&token))
        .map_err(|e| ApiError::internal(e.to_string()))?;
    Ok(([(header::SET_COOKIE, cookie)], Redirect::to("/operator/")).into_response())
}

async fn sign_out(
    State(state): State<AppState>,
    console: Console,
    headers: HeaderMap,
    ConsoleForm(form): ConsoleForm<CsrfOnly>,
) -> Result<Response, ConsoleError> {
    console.check_form(&state, &headers, &form.csrf)?;
    state
        .console
        .sign_out(&console.signed, state.clock.now_ms());
    tracing::info!("the operator's console: signed out");
    Ok((
        [(
            header::SET_COOKIE,
            HeaderValue::from_str(&ConsoleSessions::cleared_cookie())
                .expect("the cleared cookie is ASCII"),
        )],
        Redirect::to("/operator/sign-in?out=true"),
    )
        .into_response())
}

async fn style_sheet() -> Response {
    (
        [(header::CONTENT_TYPE, "text/css; charset=utf-8")],
        include_str!("console.css"),
    )
        .into_response()
}

#[derive(serde::Deserialize)]
struct LangQuery {
    to: String,
    back: Option<String>,
}

/// Sets the language and goes back where the link was, inside the console.
async fn choose_lang(
    query: Result<axum::extract::Query<LangQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ConsoleError> {
    let axum::extract::Query(query) = query.map_err(|_| ConsoleError::NotFound)?;
    let lang = Lang::from_code(&query.to).ok_or(ConsoleError::NotFound)?;
    let back = query
        .back
        .filter(|b| {
            b.starts_with("/operator/")
                && !b.contains("//")
                && b.bytes().all(|c| c.is_ascii_graphic() && c != b'\\')
        })
        .unwrap_or_else(|| "/operator/".to_owned());
    let cookie = format!(
        "{LANG_COOKIE}={}; Path=/operator; Max-Age=31536000; SameSite=Strict",
        lang.code()
    );
    Ok((
        [(
            header::SET_COOKIE,
            HeaderValue::from_str(&cookie).expect("ASCII"),
        )],
        Redirect::to(&back),
    )
        .into_response())
}
