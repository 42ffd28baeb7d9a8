//! The network seam: the game talks to a [`Backend`]; [`HttpBackend`] is
//! the real server of docs/PROTOCOL.md (Part II), tests plug in an in-memory one.

use crate::api::{
    BlockList, BuyRequest, Config, ConsistencyProof, ErrorBody, ExclusionRequest, HistoryPage,
    InclusionProof, LaunchCodeRequest, LimitsRequest, NetError, PagePolicy, Protection,
    RealityCheckRequest, RevealAck, RevealRequest, SaleResponse, Session, PAGE_POLICY_PATH,
};
use crate::console::LogFailure;
use crate::i18n::Lang;
use crate::js_value;
use crate::protection::Refusal;
use crate::text::around;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

pub type Reply<T> = Pin<Box<dyn Future<Output = Result<T, NetError>>>>;

/// Every request the game makes. Futures are `'static`: implementations
/// clone what they need, so a request outlives nothing it borrows.
pub trait Backend {
    fn config(&self) -> Reply<Config>;
    /// The built page's policy (`PAGE_POLICY_PATH`): a file of the page,
    /// not an answer of the API.
    fn page_policy(&self) -> Reply<PagePolicy>;
    fn demo_player(&self) -> Reply<Session>;
    /// Trades a launch link's code for its session (`POST /api/launch`).
    fn launch(&self, code: &str) -> Reply<Session>;
    fn session(&self, token: &str) -> Reply<Session>;
    /// Ends the session (`DELETE /api/session`).
    fn end_session(&self, token: &str) -> Reply<()>;
    fn buy(&self, token: &str, request: BuyRequest) -> Reply<SaleResponse>;
    fn sale(&self, token: &str, sale_id: u64) -> Reply<SaleResponse>;
    /// The sale's receipt with its proofs on the public record
    /// (`LoggedReceipt`), as the exact JSON text the server sent.
    fn receipt(&self, token: &str, sale_id: u64) -> Reply<String>;
    fn reveal(&self, token: &str, sale_id: u64, revealed: u32) -> Reply<RevealAck>;
    fn history(&self, token: &str, before: Option<u64>) -> Reply<HistoryPage>;
    fn blocks(&self) -> Reply<BlockList>;
    /// `GET /api/limits`: the player's limits, use and exclusion.
    fn limits(&self, token: &str) -> Reply<Protection>;
    /// `PUT /api/limits`.
    fn set_limits(&self, token: &str, request: LimitsRequest) -> Reply<Protection>;
    /// `POST /api/exclusion`.
    fn exclude(&self, token: &str, request: ExclusionRequest) -> Reply<Protection>;
    /// `PUT /api/reality-check`.
    fn set_reality_check(&self, token: &str, request: RealityCheckRequest) -> Reply<Protection>;
    /// `GET /api/log/checkpoint`: the newest checkpoint cosigned by the
    /// server's quorum of witnesses, as the signed note's text.
    fn checkpoint(&self) -> Reply<String>;
    /// `GET /api/log/checkpoint/covering?index=I`: the first checkpoint
    /// holding record `I` that the quorum cosigned.
    fn covering_checkpoint(&self, index: u64) -> Reply<String>;
    /// `GET /api/log/proof/inclusion?index=I&size=N`.
    fn inclusion_proof(&self, index: u64, size: u64) -> Reply<InclusionProof>;
    /// `GET /api/log/proof/consistency?from=M&size=N`.
    fn consistency_proof(&self, from: u64, size: u64) -> Reply<ConsistencyProof>;
    /// The rules panel's page in `lang` (`src/rules_page.rs`), fetched the
    /// first time the rules are opened.
    fn rules_page(&self, lang: Lang) -> Reply<String>;
}

/// `fetch` against the server that served the page (relative URLs: the
/// page's CSP allows `connect-src 'self'` only), each request bounded by a
/// timeout.
pub struct HttpBackend {
    timeout_ms: u32,
    early: RefCell<Vec<Early>>,
}

impl HttpBackend {
    pub fn same_origin() -> HttpBackend {
        HttpBackend {
            timeout_ms: 10_000,
            early: RefCell::new(Vec::new()),
        }
    }

    /// With the requests the page's script started before the module
    /// arrived (`www/main.js`): each is taken, once, by the first request
    /// of the game that is the same exchange; any other is never read.
    pub fn with_early(early: &js_sys::Array) -> HttpBackend {
        HttpBackend {
            early: RefCell::new(early.iter().filter_map(|e| Early::read(&e)).collect()),
            ..HttpBackend::same_origin()
        }
    }

    fn take_early(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<&str>,
    ) -> Option<js_sys::Promise> {
        let mut early = self.early.borrow_mut();
        let at = early.iter().position(|e| {
            e.method == method
                && e.path == path
                && e.token.as_deref() == token
                && e.body.as_deref() == body
        })?;
        Some(early.swap_remove(at).reply)
    }

    /// A body as the exact text sent.
    fn text(&self, path: &str, token: Option<&str>) -> Reply<String> {
        let reply = self.request("GET", path, token, None, Body::Text);
        read_with(reply, |text| text.as_string().ok_or(NetError::Decode))
    }

    fn get<T: DeserializeOwned + 'static>(&self, path: &str, token: Option<&str>) -> Reply<T> {
        decoded(self.request("GET", path, token, None, Body::Json))
    }

    fn post<T: DeserializeOwned + 'static>(
        &self,
        path: &str,
        token: Option<&str>,
        body: &impl Serialize,
    ) -> Reply<T> {
        self.send("POST", path, token, body)
    }

    /// A body that cannot be written fails as its exchange would: the
    /// same error, through the same reader.
    fn send<T: DeserializeOwned + 'static>(
        &self,
        method: &'static str,
        path: &str,
        token: Option<&str>,
        body: &impl Serialize,
    ) -> Reply<T> {
        let reply = match to_json(body) {
            Ok(body) => self.request(method, path, token, Some(body), Body::Json),
            Err(error) => Box::pin(std::future::ready(Err(error))),
        };
        decoded(reply)
    }

    /// One exchange, not generic: the typed layer on top stays tiny, so the
    /// download does not carry one copy of `fetch` per response type
    /// (nor, inlined, one copy of this per method).
    #[inline(never)]
    fn request(
        &self,
        method: &'static str,
        path: &str,
        token: Option<&str>,
        body: Option<String>,
        read: Body,
    ) -> Reply<JsValue> {
        let started = self.take_early(method, path, token, body.as_deref());
        Box::pin(fetch(
            Exchange {
                url: path.to_owned(),
                method,
                token: token.map(str::to_owned),
                body,
            },
            started,
            self.timeout_ms,
            read,
        ))
    }
}

/// A request `www/main.js` started before the module arrived, so that on
/// a slow network its answer comes with the module rather than a round
/// trip after it. An entry of another shape is ignored.
struct Early {
    method: String,
    path: String,
    token: Option<String>,
    body: Option<String>,
    reply: js_sys::Promise,
}

impl Early {
    fn read(value: &JsValue) -> Option<Early> {
        let field = |name: &str| js_sys::Reflect::get(value, &JsValue::from_str(name)).ok();
        let text = |name: &str| field(name).and_then(|v| v.as_string());
        Some(Early {
            method: text("method")?,
            path: text("path")?,
            token: text("token"),
            body: text("body"),
            reply: field("reply")?.dyn_into().ok()?,
        })
    }
}

/// A sale the beacon dealt comes once the page can check its round
/// (`beacon_check`, loaded after the first download): loading the check is
/// the exchange's last step, and a failed load fails it as the network.
fn checkable(reply: Reply<SaleResponse>) -> Reply<SaleResponse> {
    Box::pin(async move {
        let response = reply.await?;
        if response.deal.is_some() {
            crate::beacon_check::ready()
                .await
                .log_failure("loading the beacon's check")
                .ok_or(NetError::Network)?;
        }
        Ok(response)
    })
}

fn decoded<T: DeserializeOwned + 'static>(reply: Reply<JsValue>) -> Reply<T> {
    read_with(reply, read_json)
}

/// An answer not of the contract's shape is [`NetError::Decode`].
fn read_json<T: DeserializeOwned>(json: &JsValue) -> Result<T, NetError> {
    js_value::read(json).map_err(|_| NetError::Decode)
}

/// serde-wasm-bindgen reads a map from any iterable of `[key, value]`
/// pairs, and on an item that is `null` lets the browser's `TypeError`
/// escape through the module rather than return an error. JSON's one
/// iterable is the array, which the configuration's one map
/// (`max_win_cents`) never is: an array there is refused before reading.
pub fn read_config(json: &JsValue) -> Result<Config, NetError> {
    let amounts = js_sys::Reflect::get(json, &JsValue::from_str("max_win_cents"));
    if amounts.is_ok_and(|amounts| js_sys::Array::is_array(&amounts)) {
        return Err(NetError::Decode);
    }
    read_json(json)
}

fn read_with<T: 'static>(reply: Reply<JsValue>, read: Read<T>) -> Reply<T> {
    Box::pin(Decoded { reply, read })
}

type Read<T> = fn(&JsValue) -> Result<T, NetError>;

/// A reply read into `T` once it lands: a plain future rather than an
/// `async` block, so each response type adds a poll of a few lines, not a
/// state machine of its own, and its reader stays out of line.
struct Decoded<T> {
    reply: Reply<JsValue>,
    read: Read<T>,
}

impl<T> Future for Decoded<T> {
    type Output = Result<T, NetError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let read = self.read;
        self.reply.as_mut().poll(cx).map(|reply| read(&reply?))
    }
}

impl Backend for HttpBackend {
    fn config(&self) -> Reply<Config> {
        read_with(
            self.request("GET", "/api/config", None, None, Body::Json),
            read_config,
        )
    }
    fn page_policy(&self) -> Reply<PagePolicy> {
        self.get(PAGE_POLICY_PATH, None)
    }
    fn demo_player(&self) -> Reply<Session> {
        self.post("/api/demo/players", None, &Empty {})
    }
    fn launch(&self, code: &str) -> Reply<Session> {
        self.post(
            "/api/launch",
            None,
            &LaunchCodeRequest {
                code: code.to_owned(),
            },
        )
    }
    fn session(&self, token: &str) -> Reply<Session> {
        self.get("/api/session", Some(token))
    }
    fn end_session(&self, token: &str) -> Reply<()> {
        let reply = self.request("DELETE", "/api/session", Some(token), None, Body::Empty);
        read_with(reply, |_| Ok(()))
    }
    fn buy(&self, token: &str, request: BuyRequest) -> Reply<SaleResponse> {
        checkable(self.post("/api/sales", Some(token), &request))
    }
    fn sale(&self, token: &str, sale_id: u64) -> Reply<SaleResponse> {
        checkable(self.get(&around("/api/sales/", sale_id, ""), Some(token)))
    }
    fn receipt(&self, token: &str, sale_id: u64) -> Reply<String> {
        self.text(&around("/api/sales/", sale_id, "/receipt"), Some(token))
    }
    fn reveal(&self, token: &str, sale_id: u64, revealed: u32) -> Reply<RevealAck> {
        self.post(
            &around("/api/sales/", sale_id, "/reveal"),
            Some(token),
            // Past 255 is past every ticket's grids, which the server refuses anyway.
            &RevealRequest {
                revealed: u8::try_from(revealed).unwrap_or(u8::MAX),
            },
        )
    }
    fn history(&self, token: &str, before: Option<u64>) -> Reply<HistoryPage> {
        let path = match before {
            Some(id) => around("/api/history?limit=20&before=", id, ""),
            None => "/api/history?limit=20".to_owned(),
        };
        self.get(&path, Some(token))
    }
    fn blocks(&self) -> Reply<BlockList> {
        self.get("/api/blocks", None)
    }
    fn limits(&self, token: &str) -> Reply<Protection> {
        self.get("/api/limits", Some(token))
    }
    fn set_limits(&self, token: &str, request: LimitsRequest) -> Reply<Protection> {
        self.send("PUT", "/api/limits", Some(token), &request)
    }
    fn exclude(&self, token: &str, request: ExclusionRequest) -> Reply<Protection> {
        self.send("POST", "/api/exclusion", Some(token), &request)
    }
    fn set_reality_check(&self, token: &str, request: RealityCheckRequest) -> Reply<Protection> {
        self.send("PUT", "/api/reality-check", Some(token), &request)
    }
    fn checkpoint(&self) -> Reply<String> {
        self.text("/api/log/checkpoint", None)
    }
    fn covering_checkpoint(&self, index: u64) -> Reply<String> {
        self.text(
            &around("/api/log/checkpoint/covering?index=", index, ""),
            None,
        )
    }
    fn inclusion_proof(&self, index: u64, size: u64) -> Reply<InclusionProof> {
        let path = around("/api/log/proof/inclusion?index=", index, "&size=");
        self.get(&around(&path, size, ""), None)
    }
    fn consistency_proof(&self, from: u64, size: u64) -> Reply<ConsistencyProof> {
        let path = around("/api/log/proof/consistency?from=", from, "&size=");
        self.get(&around(&path, size, ""), None)
    }
    fn rules_page(&self, lang: Lang) -> Reply<String> {
        let path = match lang {
            Lang::Fr => "/www/pkg/rules-fr.html",
            Lang::En => "/www/pkg/rules-en.html",
        };
        self.text(path, None)
    }
}

/// `{}`.
#[derive(Serialize)]
struct Empty {}

/// How a successful answer's body is read.
#[derive(Clone, Copy)]
enum Body {
    Json,
    /// As the exact text sent (a receipt is the server's bytes, not ours).
    Text,
    /// None expected (204).
    Empty,
}

/// A request body as the JSON text sent. `None` is written `null`, never
/// left out: the protection requests must name a removed limit.
pub fn to_json(value: &impl Serialize) -> Result<String, NetError> {
    js_value::to_json(value).map_err(|_| NetError::Decode)
}

/// One request as the game sends it.
struct Exchange {
    url: String,
    method: &'static str,
    token: Option<String>,
    body: Option<String>,
}

impl Exchange {
    /// The browser's `fetch` of it. `www/main.js` sends its early requests
    /// with the same headers and the same timeout.
    fn send(self, timeout_ms: u32) -> Result<js_sys::Promise, NetError> {
        let window = web_sys::window().ok_or(NetError::Network)?;
        let init = web_sys::RequestInit::new();
        init.set_method(self.method);
        let headers = web_sys::Headers::new().map_err(|_| NetError::Network)?;
        headers
            .set("Accept", "application/json")
            .log_failure("setting the Accept header");
        if let Some(token) = self.token {
            headers
                .set("Authorization", &format!("Bearer {token}"))
                .map_err(|_| NetError::Network)?;
        }
        if let Some(body) = self.body {
            headers
                .set("Content-Type", "application/json")
                .log_failure("setting the Content-Type header");
            init.set_body(&JsValue::from_str(&body));
        }
        init.set_headers(&headers);
        // Covers the whole exchange, body included: a hung server cannot
        // leave the player waiting forever.
        let signal = web_sys::AbortSignal::timeout_with_u32(timeout_ms);
        init.set_signal(Some(&signal));
        Ok(window.fetch_with_str_and_init(&self.url, &init))
    }
}

/// Owns what it sends, so it is the request's future itself, not one
/// wrapped in another. `started`: the same exchange, already sent early.
async fn fetch(
    exchange: Exchange,
    started: Option<js_sys::Promise>,
    timeout_ms: u32,
    read: Body,
) -> Result<JsValue, NetError> {
    let sent = match started {
        Some(sent) => sent,
        None => exchange.send(timeout_ms)?,
    };
    let response: web_sys::Response = JsFuture::from(sent)
        .await
        .map_err(|e| classify(&e))?
        .dyn_into()
        .map_err(|_| NetError::Network)?;
    let status = response.status();
    let body = match (response.ok(), read) {
        (true, Body::Empty) => return Ok(JsValue::NULL),
        (true, Body::Text) => response.text(),
        _ => response.json(),
    };
    let json = match body {
        Ok(promise) => JsFuture::from(promise)
            .await
            .map_err(|e| match classify(&e) {
                NetError::Timeout => NetError::Timeout,
                _ => NetError::Decode,
            }),
        Err(_) => Err(NetError::Decode),
    };
    if !response.ok() {
        let detail = json
            .ok()
            .and_then(|j| js_value::read::<ErrorBody>(&j).ok())
            .map(|e| e.error);
        if let Some(refusal) = detail.as_ref().and_then(Refusal::from_detail) {
            return Err(NetError::Protection(refusal));
        }
        let code = detail.map_or_else(|| around("HTTP_", status.into(), ""), |d| d.code);
        return Err(NetError::Api { status, code });
    }
    json
}

/// A rejected `fetch`: the abort of our timeout, or any network failure.
fn classify(error: &JsValue) -> NetError {
    let name = js_sys::Reflect::get(error, &JsValue::from_str("name"))
        .ok()
        .and_then(|n| n.as_string());
    match name.as_deref() {
        Some("TimeoutError") | Some("AbortError") => NetError::Timeout,
        _ => NetError::Network,
    }
}
