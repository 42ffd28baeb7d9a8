//! An in-memory server for the browser tests: it sells genuine signed
//! tickets of a fixture block (signing the nonce each purchase sends),
//! honours idempotency keys, and can be told to lose a response, tamper
//! with a sale, replay an old one, announce other commitments or publish
//! figures that contradict the rules.

#![allow(dead_code)]

use eldorado_engine::transparency::LogEntry;
use eldorado_engine::{ClientNonce, Money, SignedCommitment};
use eldorado_web::api::{
    BlockInfo, BlockList, BlockStatus, BuyRequest, Config, ConsistencyProof, ExclusionRequest,
    HistoryItem, HistoryPage, InclusionProof, LimitsRequest, NetError, PagePolicy, Protection,
    RealityCheckRequest, RevealAck, SaleResponse, SaleStatus, Session,
};
use eldorado_web::app::App;
use eldorado_web::fixtures::{self, FixtureBlock, FixtureLog};
use eldorado_web::game::Phase;
use eldorado_web::i18n::Lang;
use eldorado_web::launch::Launch;
use eldorado_web::net::{Backend, Reply};
use eldorado_web::reveal::Timing;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

pub struct FakeState {
    pub block: FixtureBlock,
    pub balance: u64,
    pub next_position: u32,
    pub sales: Vec<SaleResponse>,
    pub by_key: HashMap<String, usize>,
    /// Every idempotency key received, in order (retries included).
    pub buy_keys: Vec<String>,
    /// The next purchase lands, but its answer is lost (a timeout).
    pub lose_next_response: bool,
    pub revealed: HashMap<u64, u32>,
    pub unrevealed: Option<SaleResponse>,
    /// Changes (and may re-sign with the block's key) each sale sold.
    pub tamper: Option<fn(&FixtureBlock, &mut SaleResponse)>,
    /// The session's kind of money.
    pub money: Money,
    /// What `/api/blocks` announces; `None`: the block's own commitment.
    pub announced: Option<Vec<SignedCommitment>>,
    /// Answers every new purchase with the first sale again, selling nothing.
    pub replay: bool,
    /// Sales do not move the session's balance: a dishonest server, whose
    /// answers the page must not believe.
    pub keep_balance: bool,
    /// Changes the published configuration.
    pub config_tamper: Option<fn(&mut Config)>,
    /// The built page's policy as served; `None`: a page built without one
    /// (404).
    pub policy: Option<PagePolicy>,
    /// The beacon `/api/config` announces (`None`: dealt in order).
    pub dealing: Option<eldorado_api::beacon::Dealing>,
    /// Every nonce received with a purchase, in order (retries included).
    pub nonces: Vec<Option<ClientNonce>>,
    /// Every receipt asked for.
    pub receipts: Vec<u64>,
    /// Every `/api/blocks` request, counted.
    pub block_lists: u32,
    /// Whether the next launch code is taken (once).
    pub launch_ok: bool,
    /// Every launch code received.
    pub launch_codes: Vec<String>,
    /// The sessions' lobby.
    pub lobby_url: Option<String>,
    /// Every session ended.
    pub ended: Vec<String>,
    /// What `/api/config` names as portal origins.
    pub portal_origins: Vec<String>,
    /// The session's protection (`Session.protection`, `GET /api/limits`).
    pub protection: Protection,
    /// When the session started (`Session.started_at_ms`); by default when
    /// the backend was made.
    pub session_started_ms: u64,
    /// Refuses every purchase with this error (after recording its key).
    pub refuse_sales: Option<NetError>,
    /// The next purchases answered `DEAL_PENDING` (paid, its draw not
    /// published yet), each then sold under the same key.
    pub pending_draws: u32,
    /// Every `PUT /api/limits` body, in order.
    pub limits_requests: Vec<LimitsRequest>,
    /// Every `POST /api/exclusion` body, in order.
    pub exclusion_requests: Vec<ExclusionRequest>,
    /// Every `PUT /api/reality-check` body, in order.
    pub reality_requests: Vec<RealityCheckRequest>,
    /// Every `GET /api/limits`, counted.
    pub limits_reads: u32,
    /// Every session read (`GET /api/session`, and the demo's or a
    /// launch's new one), counted.
    pub session_reads: u32,
    /// Every rules page asked for, in order.
    pub rules_requests: Vec<Lang>,
    /// Answers the next rules page with a network failure (once).
    pub rules_fail: bool,
    /// The public log: every commitment announced and every sale sold,
    /// logged at once (a sequencer with no delay).
    pub log: FixtureLog,
    /// Each sale's record index, by sale id.
    pub sale_records: HashMap<u64, u64>,
    /// Whether the fixtures' witness cosigns the checkpoints served.
    pub cosigned: bool,
    /// Serves this note as `/api/log/checkpoint` instead of the log's own.
    pub checkpoint_note: Option<String>,
    /// Sales are not logged (a sequencer that drops them).
    pub drop_sales_from_log: bool,
    /// Commitments announced are not logged.
    pub drop_commitments_from_log: bool,
    /// Every `/api/log/checkpoint` request, counted.
    pub checkpoints_served: u32,
}

impl FakeState {
    /// The record index of `commitment`, logged now if it is not yet.
    fn commitment_record(&mut self, commitment: &SignedCommitment) -> Option<u64> {
        let leaf = LogEntry::of_commitment(commitment).to_leaf().ok()?;
        if let Some(index) = (0..self.log.size()).find(|&i| self.log.leaf(i) == Some(&leaf[..])) {
            return Some(index);
        }
        if self.drop_commitments_from_log {
            return None;
        }
        Some(self.log.append(leaf))
    }

    /// Logs a sale sold (unless told to drop it).
    fn log_sale(&mut self, response: &SaleResponse) {
        if self.drop_sales_from_log {
            return;
        }
        if let Some(leaf) = LogEntry::of_sale(&response.sale)
            .ok()
            .and_then(|e| e.to_leaf().ok())
        {
            let index = self.log.append(leaf);
            self.sale_records.insert(response.sale_id(), index);
        }
    }
}

#[derive(Clone)]
pub struct FakeBackend {
    pub state: Rc<RefCell<FakeState>>,
}

impl FakeBackend {
    pub fn new(stake: u64, tickets: &[&[&str]], balance: u64) -> FakeBackend {
        FakeBackend {
            state: Rc::new(RefCell::new(FakeState {
                block: FixtureBlock::new(1, stake, tickets),
                balance,
                next_position: 0,
                sales: Vec::new(),
                by_key: HashMap::new(),
                buy_keys: Vec::new(),
                lose_next_response: false,
                revealed: HashMap::new(),
                unrevealed: None,
                tamper: None,
                money: Money::Play,
                announced: None,
                replay: false,
                keep_balance: false,
                config_tamper: None,
                policy: Some(fixtures::page_policy()),
                dealing: None,
                nonces: Vec::new(),
                receipts: Vec::new(),
                block_lists: 0,
                launch_ok: true,
                launch_codes: Vec::new(),
                lobby_url: None,
                ended: Vec::new(),
                portal_origins: Vec::new(),
                protection: Protection::default(),
                session_started_ms: js_sys::Date::now() as u64,
                refuse_sales: None,
                pending_draws: 0,
                limits_requests: Vec::new(),
                exclusion_requests: Vec::new(),
                reality_requests: Vec::new(),
                limits_reads: 0,
                session_reads: 0,
                rules_requests: Vec::new(),
                rules_fail: false,
                log: FixtureLog::new(),
                sale_records: HashMap::new(),
                cosigned: true,
                checkpoint_note: None,
                drop_sales_from_log: false,
                drop_commitments_from_log: false,
                checkpoints_served: 0,
            })),
        }
    }
}

fn reply<T: 'static>(value: Result<T, NetError>) -> Reply<T> {
    Box::pin(std::future::ready(value))
}

fn api(status: u16, code: &str) -> NetError {
    NetError::Api {
        status,
        code: code.to_owned(),
    }
}

impl Backend for FakeBackend {
    fn config(&self) -> Reply<Config> {
        let state = self.state.borrow();
        let mut config = fixtures::config(&state.block.public_key_hex());
        config.log.witnesses = vec![fixtures::witness_vkey()];
        config.log.quorum = 1;
        config.dealing = state.dealing.clone();
        if let Some(tamper) = state.config_tamper {
            tamper(&mut config);
        }
        config.portal_origins = state.portal_origins.clone();
        reply(Ok(config))
    }
    fn page_policy(&self) -> Reply<PagePolicy> {
        match self.state.borrow().policy.clone() {
            Some(policy) => reply(Ok(policy)),
            None => reply(Err(api(404, "NOT_FOUND"))),
        }
    }
    fn demo_player(&self) -> Reply<Session> {
        self.session("demo")
    }
    fn launch(&self, code: &str) -> Reply<Session> {
        let mut state = self.state.borrow_mut();
        state.launch_codes.push(code.to_owned());
        if !state.launch_ok {
            return reply(Err(api(410, "LAUNCH_INVALID")));
        }
        state.launch_ok = false;
        drop(state);
        self.session("launched")
    }
    fn end_session(&self, token: &str) -> Reply<()> {
        self.state.borrow_mut().ended.push(token.to_owned());
        reply(Ok(()))
    }
    fn session(&self, token: &str) -> Reply<Session> {
        self.state.borrow_mut().session_reads += 1;
        let state = self.state.borrow();
        reply(Ok(Session {
            token: token.to_owned(),
            player_id: fixtures::PLAYER.to_owned(),
            balance_cents: state.balance,
            started_at_ms: state.session_started_ms,
            expires_at_ms: 0,
            money: state.money,
            unrevealed: state.unrevealed.clone(),
            lobby_url: state.lobby_url.clone(),
            protection: state.protection.clone(),
        }))
    }
    fn buy(&self, _token: &str, request: BuyRequest) -> Reply<SaleResponse> {
        let mut state = self.state.borrow_mut();
        state.buy_keys.push(request.idempotency_key.clone());
        state.nonces.push(request.client_nonce);
        if let Some(&index) = state.by_key.get(&request.idempotency_key) {
            return reply(Ok(state.sales[index].clone()));
        }
        if let Some(refusal) = state.refuse_sales.clone() {
            return reply(Err(refusal));
        }
        if state.pending_draws > 0 {
            state.pending_draws -= 1;
            return reply(Err(api(503, "DEAL_PENDING")));
        }
        if state.replay {
            if let Some(first) = state.sales.first() {
                return reply(Ok(first.clone()));
            }
        }
        if request.stake_cents != state.block.stake_cents {
            return reply(Err(api(409, "SOLD_OUT")));
        }
        if request.stake_cents > state.balance {
            return reply(Err(api(402, "INSUFFICIENT_FUNDS")));
        }
        if state.next_position as usize >= state.block.tickets.len() {
            return reply(Err(api(409, "SOLD_OUT")));
        }
        let position = state.next_position;
        state.next_position += 1;
        let sale_id = u64::from(position) + 1;
        let nonce = request.client_nonce.unwrap_or(ClientNonce([0; 16]));
        let mut response = state
            .block
            .response_to(position, sale_id, state.balance, nonce);
        state.log_sale(&response);
        if let Some(tamper) = state.tamper {
            tamper(&state.block, &mut response);
        }
        if !state.keep_balance {
            state.balance = response.balance_after_cents;
        }
        state.sales.push(response.clone());
        let index = state.sales.len() - 1;
        state.by_key.insert(request.idempotency_key, index);
        if state.lose_next_response {
            state.lose_next_response = false;
            return reply(Err(NetError::Timeout));
        }
        reply(Ok(response))
    }
    fn sale(&self, _token: &str, sale_id: u64) -> Reply<SaleResponse> {
        let state = self.state.borrow();
        let found = state.sales.iter().find(|s| s.sale_id() == sale_id).cloned();
        let found = found.map(|mut sale| {
            sale.log_index = state.sale_records.get(&sale_id).copied();
            sale
        });
        reply(found.ok_or_else(|| api(404, "NOT_FOUND")))
    }
    fn receipt(&self, _token: &str, sale_id: u64) -> Reply<String> {
        let mut state = self.state.borrow_mut();
        state.receipts.push(sale_id);
        let found = state.sales.iter().find(|s| s.sale_id() == sale_id);
        reply(
            found
                .map(|s| serde_json::to_string(s).unwrap())
                .ok_or_else(|| api(404, "NOT_FOUND")),
        )
    }
    fn reveal(&self, _token: &str, sale_id: u64, revealed: u32) -> Reply<RevealAck> {
        let mut state = self.state.borrow_mut();
        state.revealed.insert(sale_id, revealed);
        reply(Ok(RevealAck {
            sale_id,
            revealed: u8::try_from(revealed).unwrap(),
            complete: true,
        }))
    }
    fn history(&self, _token: &str, _before: Option<u64>) -> Reply<HistoryPage> {
        let state = self.state.borrow();
        let items = state
            .sales
            .iter()
            .rev()
            .map(|s| {
                let sale = &s.sale.sale;
                HistoryItem {
                    sale_id: sale.sale_id,
                    block: sale.block,
                    position: sale.ticket.position,
                    sold_at_ms: sale.sold_at_ms,
                    stake_cents: sale.ticket.stake_cents,
                    prize_cents: sale.ticket.prize_cents,
                    extras: sale.ticket.extras,
                    status: if state.revealed.contains_key(&sale.sale_id) {
                        SaleStatus::Revealed
                    } else {
                        SaleStatus::Unrevealed
                    },
                    revealed: state
                        .revealed
                        .get(&sale.sale_id)
                        .map_or(0, |&n| u8::try_from(n).unwrap()),
                }
            })
            .collect();
        reply(Ok(HistoryPage {
            items,
            next_before: None,
        }))
    }
    fn limits(&self, _token: &str) -> Reply<Protection> {
        self.state.borrow_mut().limits_reads += 1;
        self.protection_answer()
    }
    fn set_limits(&self, _token: &str, request: LimitsRequest) -> Reply<Protection> {
        {
            let mut state = self.state.borrow_mut();
            state.protection.weekly_stake_limit_cents = request.weekly_stake_limit_cents;
            state.protection.weekly_loss_limit_cents = request.weekly_loss_limit_cents;
            state.limits_requests.push(request);
        }
        self.protection_answer()
    }
    fn exclude(&self, _token: &str, request: ExclusionRequest) -> Reply<Protection> {
        {
            let mut state = self.state.borrow_mut();
            let until = request.days.map(|d| now_ms() + u64::from(d) * DAY_MS);
            let shorter = state.protection.excluded_indefinitely && until.is_some()
                || matches!((state.protection.excluded_until_ms, until), (Some(now), Some(new)) if new < now);
            state.exclusion_requests.push(request.clone());
            if shorter {
                return reply(Err(api(409, "CONFLICT")));
            }
            match request.days {
                Some(days) => {
                    state.protection.excluded_until_ms = Some(now_ms() + u64::from(days) * DAY_MS)
                }
                None => state.protection.excluded_indefinitely = true,
            }
        }
        self.protection_answer()
    }
    /// The pages `scripts/build-web.sh` writes, from the same function.
    fn rules_page(&self, lang: Lang) -> Reply<String> {
        let mut state = self.state.borrow_mut();
        state.rules_requests.push(lang);
        if std::mem::take(&mut state.rules_fail) {
            return reply(Err(NetError::Network));
        }
        reply(Ok(eldorado_web::rules_page::rules_page(lang)))
    }
    fn set_reality_check(&self, _token: &str, request: RealityCheckRequest) -> Reply<Protection> {
        {
            let mut state = self.state.borrow_mut();
            state.protection.reality_check_minutes = request.minutes;
            state.reality_requests.push(request);
        }
        self.protection_answer()
    }
    fn blocks(&self) -> Reply<BlockList> {
        let mut state = self.state.borrow_mut();
        state.block_lists += 1;
        let announced = state
            .announced
            .clone()
            .unwrap_or_else(|| vec![state.block.commitment.clone()]);
        reply(Ok(BlockList {
            blocks: announced
                .into_iter()
                .map(|commitment| BlockInfo {
                    log_index: state.commitment_record(&commitment),
                    commitment,
                    status: BlockStatus::Open,
                    sold: None,
                    remaining_by_rank: None,
                })
                .collect(),
        }))
    }
    fn checkpoint(&self) -> Reply<String> {
        let mut state = self.state.borrow_mut();
        state.checkpoints_served += 1;
        if let Some(note) = state.checkpoint_note.clone() {
            return reply(Ok(note));
        }
        if state.log.size() == 0 {
            return reply(Err(api(503, "LOG_UNAVAILABLE")));
        }
        reply(Ok(state.log.checkpoint(state.cosigned)))
    }
    fn covering_checkpoint(&self, _index: u64) -> Reply<String> {
        // This server deals in order: no purchase to vouch for.
        reply(Err(api(404, "NOT_FOUND")))
    }
    fn inclusion_proof(&self, index: u64, size: u64) -> Reply<InclusionProof> {
        let state = self.state.borrow();
        if index >= size || size > state.log.size() {
            return reply(Err(api(400, "BAD_REQUEST")));
        }
        reply(Ok(state.log.inclusion(index, size)))
    }
    fn consistency_proof(&self, from: u64, size: u64) -> Reply<ConsistencyProof> {
        let state = self.state.borrow();
        if from > size || size > state.log.size() {
            return reply(Err(api(400, "BAD_REQUEST")));
        }
        reply(Ok(ConsistencyProof {
            from,
            size,
            hashes: state.log.consistency(from, size),
        }))
    }
}

impl FakeBackend {
    /// The first ticket sold before the page loaded and left unrevealed (a
    /// reload mid-reveal): the server settled it at sale, so the session's
    /// balance already holds its prize, and the session names it.
    pub fn interrupt_first_ticket(&self, balance_before: u64) {
        let mut state = self.state.borrow_mut();
        let response = state.block.response(0, 1, balance_before);
        let commitment = state.block.commitment.clone();
        state.commitment_record(&commitment);
        state.log_sale(&response);
        state.balance = response.balance_after_cents;
        state.sales.push(response.clone());
        state.next_position = 1;
        state.unrevealed = Some(response);
    }
}

/// Player protection as a lenient server: changes apply at once (the 48-hour
/// delay is the real server's, tested there).
impl FakeBackend {
    fn protection_answer(&self) -> Reply<Protection> {
        reply(Ok(self.state.borrow().protection.clone()))
    }
}

pub const DAY_MS: u64 = 86_400_000;

/// The fake server's clock for exclusions.
pub fn now_ms() -> u64 {
    js_sys::Date::now() as u64
}

/// How long [`wait_for`] waits before failing a test. Generous on purpose:
/// with the in-memory server everything a test waits for takes a few frames,
/// but the browser tests share two cores with builds, and a test that is
/// right must not fail because the machine is busy. A wrong one still fails,
/// only later.
pub const WAIT_LIMIT_MS: f64 = 30_000.0;

/// Polls `condition` every 10 ms until it holds, for up to [`WAIT_LIMIT_MS`].
pub async fn wait_for(what: &str, mut condition: impl FnMut() -> bool) {
    let started = js_sys::Date::now();
    while js_sys::Date::now() - started < WAIT_LIMIT_MS {
        if condition() {
            return;
        }
        sleep(10).await;
    }
    if !condition() {
        panic!("timed out waiting for {what}");
    }
}

async fn sleep(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let _ = web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
    });
    let _ = JsFuture::from(promise).await;
}

/// Counts the events of one kind on `target` from now on. Listeners run in
/// the order they were added, so once this one has counted an event, every
/// listener the page added before it (at mount) has handled that event.
pub struct Heard {
    count: Rc<std::cell::Cell<u32>>,
    target: web_sys::EventTarget,
    kind: &'static str,
    listener: Closure<dyn FnMut()>,
}

impl Heard {
    pub fn on(target: &web_sys::EventTarget, kind: &'static str) -> Heard {
        let count = Rc::new(std::cell::Cell::new(0));
        let counter = Rc::clone(&count);
        let listener = Closure::<dyn FnMut()>::new(move || counter.set(counter.get() + 1));
        target
            .add_event_listener_with_callback(kind, listener.as_ref().unchecked_ref())
            .unwrap();
        Heard {
            count,
            target: target.clone(),
            kind,
            listener,
        }
    }

    pub fn count(&self) -> u32 {
        self.count.get()
    }
}

impl Drop for Heard {
    fn drop(&mut self) {
        let _ = self
            .target
            .remove_event_listener_with_callback(self.kind, self.listener.as_ref().unchecked_ref());
    }
}

/// Once two animation frames have begun, the rendering step of the first
/// (layout, `ResizeObserver` callbacks) has run: whatever the page does on a
/// layout change has been done.
pub async fn frames_rendered() {
    for _ in 0..2 {
        let promise = js_sys::Promise::new(&mut |resolve, _| {
            let _ = web_sys::window().unwrap().request_animation_frame(&resolve);
        });
        let _ = JsFuture::from(promise).await;
    }
}

/// The page's own style sheet, so that layout is measured as players see it.
pub fn style_page() {
    let doc = web_sys::window().unwrap().document().unwrap();
    if doc.get_element_by_id("eld-test-style").is_some() {
        return;
    }
    let style = doc.create_element("style").unwrap();
    style.set_id("eld-test-style");
    style.set_text_content(Some(include_str!("../../www/style.css")));
    doc.body().unwrap().append_child(&style).unwrap();
}

/// A fresh element in the test page to mount a game in.
pub fn host() -> web_sys::HtmlElement {
    let doc = web_sys::window().unwrap().document().unwrap();
    let div: web_sys::HtmlElement = doc.create_element("div").unwrap().dyn_into().unwrap();
    div.style().set_property("width", "500px").unwrap();
    doc.body().unwrap().append_child(&div).unwrap();
    fresh_storage();
    div
}

/// What a browser remembers, as on a first visit (sound off).
pub fn fresh_storage() {
    // Each test starts with a browser that has seen no commitment (every
    // fixture block is block 1, with its own root) and no pending purchase.
    let storage = web_sys::window().unwrap().local_storage().unwrap().unwrap();
    storage.clear().unwrap();
    // No sound in tests: browsers warn about audio without a real gesture.
    storage.set_item("eldorado.muted", "1").unwrap();
}

pub fn query(root: &web_sys::Element, selector: &str) -> web_sys::HtmlElement {
    root.query_selector(selector)
        .unwrap()
        .unwrap_or_else(|| panic!("no {selector}"))
        .dyn_into()
        .unwrap()
}

pub fn text(root: &web_sys::Element, selector: &str) -> String {
    query(root, selector).text_content().unwrap_or_default()
}

pub fn click(root: &web_sys::Element, selector: &str) {
    query(root, selector).click();
}

pub fn mount(backend: &FakeBackend, lang: Lang) -> (web_sys::HtmlElement, App) {
    mount_pinned(backend, lang, None)
}

/// Mounted with `?key=` pinning the operator key.
pub fn mount_pinned(
    backend: &FakeBackend,
    lang: Lang,
    key: Option<&str>,
) -> (web_sys::HtmlElement, App) {
    let root = host();
    let app = mount_in(&root, backend, lang, key);
    (root, app)
}

/// A game in `root` (reduced motion), `key` pinning the operator key.
pub fn mount_in(
    root: &web_sys::HtmlElement,
    backend: &FakeBackend,
    lang: Lang,
    key: Option<&str>,
) -> App {
    let launch = Launch {
        code: None,
        lang,
        key: key.map(str::to_owned),
    };
    let app = App::mount(root, launch, Rc::new(backend.clone())).expect("mounts");
    app.set_timing(Timing::REDUCED);
    app
}

/// Plays the backend's first `tickets` tickets to their end, closing each
/// win's window, then opens the history and waits for its rows.
pub async fn play_then_open_history(root: &web_sys::Element, app: &App, tickets: u64) {
    for sale in 1..=tickets {
        click(root, ".eld-play");
        wait_for("the ticket", || {
            app.game().ticket().is_some_and(|t| t.sale_id == sale)
        })
        .await;
        wait_for("its end", || app.game().phase() == &Phase::Ready).await;
        click(root, ".eld-popup-ok");
    }
    query(root, ".eld-history")
        .set_attribute("open", "")
        .unwrap();
    app.load_history();
    wait_for("the history", || {
        u64::from(
            root.query_selector_all(".eld-history-open")
                .unwrap()
                .length(),
        ) == tickets
    })
    .await;
}

pub async fn ready(app: &App) {
    wait_for("the session", || app.game().phase() == &Phase::Ready).await;
}

/// Opens the rules panel as a player does and waits for its page.
pub async fn open_rules(root: &web_sys::Element) {
    click(root, ".eld-rules-open");
    rules_shown(root).await;
}

/// Waits until the rules panel's page is in (its last part: the facts).
pub async fn rules_shown(root: &web_sys::Element) {
    wait_for("the rules page", || {
        root.query_selector(".eld-facts").unwrap().is_some()
    })
    .await;
}
