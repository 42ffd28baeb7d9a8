//! The running game: wires the DOM, the board, the sound and the backend
//! to the [`Game`] state machine.

use crate::api::{BuyRequest, Config, HistoryItem, NetError, SaleResponse, Session};
use crate::board::Board;
use crate::dom::{load_pref, save_pref, set_attr, set_hidden, set_text, text_child, Listener};
use crate::game::{Announcement, Button, Command, Game, Notice, Phase, Popup};
use crate::i18n::Lang;
use crate::launch::Launch;
use crate::money::format_cents;
use crate::net::Backend;
use crate::reveal::Timing;
use crate::sound::Sound;
use crate::ui::{fill_checks, fill_info, fill_remaining, history_row, Ui};
use crate::verification::{parse_public_key, verify};
use rand::rngs::OsRng;
use rand::TryRngCore;
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::{Rc, Weak};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::spawn_local;
use web_sys::{HtmlElement, KeyboardEvent};

const DEMO_TOKEN_KEY: &str = "eldorado.demo_token";
const PENDING_STAKE_KEY: &str = "eldorado.pending_stake";

type FrameCallback = Closure<dyn FnMut(f64)>;
/// A resize observer with the callback it must outlive.
type Watcher = (web_sys::ResizeObserver, Closure<dyn FnMut()>);

/// The game mounted in one element. Dropping it removes every listener and
/// stops the animation.
pub struct App {
    inner: Rc<Inner>,
}

struct Inner {
    lang: Lang,
    launch: Launch,
    ui: Ui,
    backend: Rc<dyn Backend>,
    game: RefCell<Game>,
    board: RefCell<Board>,
    sound: RefCell<Sound>,
    token: RefCell<Option<String>>,
    config: RefCell<Option<Config>>,
    timing: Cell<Timing>,
    frame: RefCell<Option<FrameCallback>>,
    frame_id: Cell<Option<i32>>,
    listeners: RefCell<Vec<Listener>>,
    resize: RefCell<Option<Watcher>>,
    load_failed: Cell<bool>,
    history_before: Cell<Option<u64>>,
    history_items: RefCell<Vec<HistoryItem>>,
}

impl App {
    /// Builds the game inside `root` and starts loading the session.
    pub fn mount(
        root: &HtmlElement,
        launch: Launch,
        backend: Rc<dyn Backend>,
    ) -> Result<App, JsValue> {
        let lang = launch.lang;
        let stakes = vec![50, 100, 200];
        let ui = Ui::build(root, lang, &stakes)?;
        let board = Board::new(ui.canvas.clone())?;
        let window = crate::dom::window()?;
        let reduced = window
            .match_media("(prefers-reduced-motion: reduce)")
            .ok()
            .flatten()
            .is_some_and(|m| m.matches());
        let inner = Rc::new(Inner {
            lang,
            launch,
            ui,
            backend,
            game: RefCell::new(Game::new(stakes)),
            board: RefCell::new(board),
            sound: RefCell::new(Sound::new()),
            token: RefCell::new(None),
            config: RefCell::new(None),
            timing: Cell::new(Timing::for_motion(reduced)),
            frame: RefCell::new(None),
            frame_id: Cell::new(None),
            listeners: RefCell::new(Vec::new()),
            resize: RefCell::new(None),
            load_failed: Cell::new(false),
            history_before: Cell::new(None),
            history_items: RefCell::new(Vec::new()),
        });
        Inner::wire(&inner)?;
        inner.fit_canvas();
        inner.render();
        Inner::load(&inner);
        Ok(App { inner })
    }

    pub fn game(&self) -> std::cell::Ref<'_, Game> {
        self.inner.game.borrow()
    }

    /// Replaces the reveal timing (tests use the reduced one).
    pub fn set_timing(&self, timing: Timing) {
        self.inner.timing.set(timing);
    }

    pub fn press(&self) {
        Inner::press(&self.inner);
    }

    pub fn choose_stake(&self, stake: u64) {
        if self.inner.game.borrow_mut().choose_stake(stake) {
            self.inner.render();
        }
    }

    pub fn resume(&self) {
        Inner::resume(&self.inner);
    }

    /// Opens a past ticket: fetches, verifies and draws it in the history panel.
    pub fn open_history(&self, sale_id: u64, stake: u64) {
        Inner::open_sale(&self.inner, sale_id, stake);
    }

    pub fn load_history(&self) {
        Inner::load_history(&self.inner, false);
    }
}

impl Drop for App {
    fn drop(&mut self) {
        self.inner.teardown();
    }
}

impl Inner {
    fn wire(this: &Rc<Inner>) -> Result<(), JsValue> {
        let ui = &this.ui;
        let mut listeners = Vec::new();
        let on = |target: &web_sys::EventTarget,
                  kind: &'static str,
                  action: fn(&Rc<Inner>, web_sys::Event)|
         -> Result<Listener, JsValue> {
            let weak: Weak<Inner> = Rc::downgrade(this);
            Listener::new(target, kind, move |event| {
                if let Some(inner) = weak.upgrade() {
                    action(&inner, event);
                }
            })
        };
        listeners.push(on(&ui.play, "click", |i, _| Inner::press(i))?);
        listeners.push(on(&ui.retry, "click", |i, _| {
            if i.load_failed.get() {
                Inner::load(i);
            } else {
                Inner::press(i);
            }
        })?);
        listeners.push(on(&ui.resume, "click", |i, _| Inner::resume(i))?);
        listeners.push(on(&ui.popup_ok, "click", |i, _| i.close_popup())?);
        listeners.push(on(&ui.mute, "click", |i, _| {
            i.sound.borrow_mut().toggle();
            i.render();
        })?);
        for (stake, b) in &ui.stakes {
            let stake = *stake;
            let weak = Rc::downgrade(this);
            listeners.push(Listener::new(b, "click", move |_| {
                if let Some(inner) = weak.upgrade() {
                    if inner.game.borrow_mut().choose_stake(stake) {
                        inner.render();
                        Inner::load_blocks(&inner);
                    }
                }
            })?);
        }
        listeners.push(on(&ui.history, "toggle", |i, _| {
            if i.ui.history.has_attribute("open") {
                Inner::load_history(i, false);
            }
        })?);
        listeners.push(on(&ui.history_more, "click", |i, _| {
            Inner::load_history(i, true)
        })?);
        listeners.push(on(&ui.history_body, "click", |i, event| {
            let Some(target) = event
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            else {
                return;
            };
            let Some(sale) = target
                .closest("[data-sale]")
                .ok()
                .flatten()
                .and_then(|b| b.get_attribute("data-sale"))
                .and_then(|s| s.parse::<u64>().ok())
            else {
                return;
            };
            let stake = i
                .history_items
                .borrow()
                .iter()
                .find(|item| item.sale_id == sale)
                .map(|item| item.stake_cents);
            if let Some(stake) = stake {
                Inner::open_sale(i, sale, stake);
            }
        })?);
        listeners.push(on(&ui.info, "toggle", |i, _| {
            if i.ui.info.has_attribute("open") {
                Inner::load_blocks(i);
            }
        })?);
        let doc = crate::dom::document()?;
        listeners.push(on(&doc, "keydown", Inner::on_key)?);
        let window = crate::dom::window()?;
        listeners.push(on(&window, "resize", |i, _| i.fit_canvas())?);
        this.listeners.replace(listeners);

        let weak = Rc::downgrade(this);
        let resized = Closure::<dyn FnMut()>::new(move || {
            if let Some(inner) = weak.upgrade() {
                inner.fit_canvas();
            }
        });
        if let Ok(observer) = web_sys::ResizeObserver::new(resized.as_ref().unchecked_ref()) {
            observer.observe(&ui.board_box);
            this.resize.replace(Some((observer, resized)));
        }

        let weak = Rc::downgrade(this);
        let frame = Closure::<dyn FnMut(f64)>::new(move |now: f64| {
            if let Some(inner) = weak.upgrade() {
                Inner::on_frame(&inner, now);
            }
        });
        this.frame.replace(Some(frame));
        Ok(())
    }

    fn teardown(&self) {
        if let (Some(id), Ok(window)) = (self.frame_id.take(), crate::dom::window()) {
            let _ = window.cancel_animation_frame(id);
        }
        if let Some((observer, _)) = self.resize.take() {
            observer.disconnect();
        }
        self.listeners.borrow_mut().clear();
        self.frame.take();
    }

    fn on_key(this: &Rc<Inner>, event: web_sys::Event) {
        let Some(event) = event.dyn_ref::<KeyboardEvent>() else {
            return;
        };
        if event.ctrl_key() || event.alt_key() || event.meta_key() || event.repeat() {
            return;
        }
        let key = event.key();
        if key == "Escape" && this.game.borrow().popup().is_some() {
            this.close_popup();
            return;
        }
        if key != " " && key != "Enter" {
            return;
        }
        // On a control, Space and Enter keep their own meaning (a stake
        // button, a summary, a link): only elsewhere are they « Jouer ».
        let on_control = event
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|e| {
                e.closest("button, a, input, select, textarea, summary")
                    .ok()
                    .flatten()
            })
            .is_some();
        if on_control {
            return;
        }
        event.prevent_default();
        Inner::press(this);
    }

    fn close_popup(&self) {
        self.game.borrow_mut().close_popup();
        self.render();
        let _ = self.ui.play.focus();
    }

    fn fit_canvas(&self) {
        let Ok(window) = crate::dom::window() else {
            return;
        };
        let rect = self.ui.canvas.get_bounding_client_rect();
        let (w, h) = if rect.width() > 0.0 {
            (rect.width(), rect.height())
        } else {
            // Not laid out (hidden, detached): keep a sensible default.
            (500.0, 300.0)
        };
        let _ = self
            .board
            .borrow_mut()
            .fit(w, h, window.device_pixel_ratio());
    }

    fn load(this: &Rc<Inner>) {
        this.load_failed.set(false);
        set_hidden(&this.ui.notice, false);
        set_text(&this.ui.notice_text, this.lang.texts().connecting);
        set_hidden(&this.ui.retry, true);
        let weak = Rc::downgrade(this);
        let backend = this.backend.clone();
        let launch_token = this.launch.token.clone();
        spawn_local(async move {
            let result = load_session(backend.as_ref(), launch_token).await;
            let Some(inner) = weak.upgrade() else {
                return;
            };
            match result {
                Ok((config, session)) => inner.started(config, session),
                Err(error) => {
                    inner.load_failed.set(true);
                    inner.show_error(&error);
                }
            }
        });
    }

    fn started(self: &Rc<Self>, config: Config, session: Session) {
        let key = match parse_public_key(&config.public_key) {
            Ok(key) => key,
            Err(_) => {
                self.load_failed.set(true);
                self.show_error(&NetError::Decode);
                return;
            }
        };
        let _ = fill_info(&self.ui.info_body, self.lang, &config);
        self.token.replace(Some(session.token.clone()));
        self.config.replace(Some(config));
        set_hidden(&self.ui.notice, true);
        self.game
            .borrow_mut()
            .start(key, session.balance_cents, session.unrevealed);
        self.render();
    }

    fn show_error(&self, error: &NetError) {
        set_hidden(&self.ui.notice, false);
        set_text(&self.ui.notice_text, &net_message(self.lang, error));
        set_hidden(&self.ui.retry, false);
    }

    fn press(this: &Rc<Inner>) {
        this.sound.borrow_mut().unlock();
        let commands = this.game.borrow_mut().press(new_idempotency_key);
        Inner::run(this, commands);
    }

    fn resume(this: &Rc<Inner>) {
        let stake = load_pref(PENDING_STAKE_KEY).and_then(|s| s.parse().ok());
        let commands = this.game.borrow_mut().resume(stake);
        Inner::run(this, commands);
    }

    /// Carries out commands, and those that follow from them, then redraws
    /// the controls once.
    fn run(this: &Rc<Inner>, commands: Vec<Command>) {
        let mut queue: VecDeque<Command> = commands.into();
        while let Some(command) = queue.pop_front() {
            queue.extend(Inner::execute(this, command));
        }
        this.render();
    }

    fn execute(this: &Rc<Inner>, command: Command) -> Vec<Command> {
        match command {
            Command::Buy { stake, key } => {
                save_pref(PENDING_STAKE_KEY, Some(&stake.to_string()));
                let _ = this.board.borrow_mut().hide();
                let Some(token) = this.token.borrow().clone() else {
                    return this.game.borrow_mut().buy_failed(NetError::Network);
                };
                let request = BuyRequest {
                    stake_cents: stake,
                    idempotency_key: key,
                };
                let reply = this.backend.buy(&token, request);
                let weak = Rc::downgrade(this);
                spawn_local(async move {
                    let result = reply.await;
                    if let Some(inner) = weak.upgrade() {
                        let commands = match result {
                            Ok(response) => inner.game.borrow_mut().bought(response),
                            Err(error) => inner.game.borrow_mut().buy_failed(error),
                        };
                        Inner::run(&inner, commands);
                        if inner.game.borrow().ticket().is_none()
                            && inner.game.borrow().phase() == &Phase::Ready
                        {
                            save_pref(PENDING_STAKE_KEY, None);
                        }
                    }
                });
                Vec::new()
            }
            Command::Reveal { grid, instant } => {
                let (cells, marks) = {
                    let game = this.game.borrow();
                    let Some(ticket) = game.ticket() else {
                        return Vec::new();
                    };
                    let _ = fill_checks(&this.ui.badge_list, this.lang, &ticket.checks);
                    match (ticket.grids.get(grid), ticket.marks.get(grid)) {
                        (Some(g), Some(m)) => (*g, *m),
                        _ => return Vec::new(),
                    }
                };
                if instant {
                    let _ = this.board.borrow_mut().show(cells, marks);
                    return this.game.borrow_mut().reveal_done(grid);
                }
                let _ = this
                    .board
                    .borrow_mut()
                    .start_reveal(cells, marks, this.timing.get());
                this.request_frame();
                Vec::new()
            }
            Command::FinishReveal => {
                let finished = this.board.borrow_mut().finish().unwrap_or(false);
                let phase = this.game.borrow().phase().clone();
                match (finished, phase) {
                    (true, Phase::Revealing { grid }) => this.reveal_finished(grid),
                    _ => Vec::new(),
                }
            }
            Command::ReportRevealed { sale_id, revealed } => {
                if let Some(token) = this.token.borrow().clone() {
                    let reply = this.backend.reveal(&token, sale_id, revealed);
                    // The server settles the ticket at sale; this report only
                    // drives the resume offer, so a lost one costs nothing.
                    spawn_local(async move {
                        let _ = reply.await;
                    });
                }
                let done = {
                    let game = this.game.borrow();
                    game.phase() == &Phase::Ready
                };
                if done {
                    save_pref(PENDING_STAKE_KEY, None);
                }
                Vec::new()
            }
            Command::Announce(announcement) => {
                let text = this.announcement_text(&announcement);
                // Cleared first, so the same sentence twice is spoken twice.
                this.ui.live.set_text_content(None);
                this.ui.live.set_text_content(Some(&text));
                Vec::new()
            }
            Command::Sound(cue) => {
                this.sound.borrow_mut().play(cue);
                Vec::new()
            }
        }
    }

    /// A grid's reveal ended (animation over or skipped).
    fn reveal_finished(self: &Rc<Self>, grid: usize) -> Vec<Command> {
        let description = {
            let game = self.game.borrow();
            game.ticket()
                .and_then(|t| t.grids.get(grid))
                .map(|g| self.lang.describe_grid(g.rows()))
        };
        let commands = self.game.borrow_mut().reveal_done(grid);
        // Outcome and Extras announcements read the grid themselves; an
        // Extra grid that ends nothing is still read out, cell by cell.
        if let Some(text) = description {
            if !commands.iter().any(|c| matches!(c, Command::Announce(_))) {
                self.ui.live.set_text_content(Some(&text));
            }
        }
        commands
    }

    fn request_frame(&self) {
        if self.frame_id.get().is_some() {
            return;
        }
        let (Ok(window), Some(frame)) = (
            crate::dom::window(),
            self.frame.borrow().as_ref().map(|f| f.as_ref().clone()),
        ) else {
            return;
        };
        if let Ok(id) = window.request_animation_frame(frame.unchecked_ref()) {
            self.frame_id.set(Some(id));
        }
    }

    fn on_frame(this: &Rc<Inner>, now: f64) {
        this.frame_id.set(None);
        let ended = this.board.borrow_mut().frame(now).unwrap_or(true);
        if ended {
            let grid = match this.game.borrow().phase() {
                Phase::Revealing { grid } => Some(*grid),
                _ => None,
            };
            if let Some(grid) = grid {
                let commands = this.reveal_finished(grid);
                Inner::run(this, commands);
            }
        } else if this.board.borrow().is_revealing() {
            this.request_frame();
        }
    }

    fn announcement_text(&self, announcement: &Announcement) -> String {
        let lang = self.lang;
        match announcement {
            Announcement::Refused { stake, balance } => lang.insufficient_funds(*stake, *balance),
            Announcement::Extras(n) => {
                let grid = self
                    .game
                    .borrow()
                    .ticket()
                    .and_then(|t| t.grids.first().map(|g| lang.describe_grid(g.rows())))
                    .unwrap_or_default();
                format!("{grid}{}.", lang.you_get_extras(*n))
            }
            Announcement::Outcome { prize, balance } => {
                let game = self.game.borrow();
                let grid = game
                    .ticket()
                    .and_then(|t| t.grids.get(game.revealed().saturating_sub(1)))
                    .map(|g| lang.describe_grid(g.rows()))
                    .unwrap_or_default();
                format!("{grid}{}", lang.outcome_announcement(*prize, *balance))
            }
            Announcement::Rejected(rejection) => lang.verification_failed(rejection.check),
            Announcement::Failed(error) => net_message(lang, error),
        }
    }

    /// Brings every control in line with the game state.
    fn render(&self) {
        let game = self.game.borrow();
        let lang = self.lang;
        let t = lang.texts();
        let ui = &self.ui;
        if game.phase() != &Phase::Loading {
            set_text(&ui.balance, &format_cents(game.balance(), lang));
        }
        let locked = game.stake_locked();
        for (stake, b) in &ui.stakes {
            set_attr(
                b,
                "aria-pressed",
                if *stake == game.stake() {
                    "true"
                } else {
                    "false"
                },
            );
            b.set_disabled(locked);
        }
        let (label, enabled) = match game.button() {
            Button::Play => (t.play, true),
            Button::Extra => (t.extra, true),
            Button::RevealAll => (t.reveal_all, true),
            Button::Buying => (t.buying, false),
            Button::Retry => (t.retry, true),
            Button::Disabled => (t.play, false),
        };
        set_text(&ui.play, label);
        ui.play.set_disabled(!enabled);
        let action = match game.button() {
            Button::Play => "play",
            Button::Extra => "extra",
            Button::RevealAll => "reveal-all",
            Button::Buying => "buying",
            Button::Retry => "retry",
            Button::Disabled => "disabled",
        };
        set_attr(&ui.play, "data-action", action);

        match game.extras_left() {
            Some(left) => {
                set_hidden(&ui.extra_zone, false);
                set_text(&ui.extra_count, &left.to_string());
                set_attr(&ui.extra_zone, "aria-label", &lang.extras_left(left));
            }
            None => set_hidden(&ui.extra_zone, true),
        }
        let caption = match (game.ticket(), game.phase()) {
            (Some(ticket), phase) if ticket.extras > 0 => {
                let grid = match phase {
                    Phase::Revealing { grid } => *grid,
                    _ => game.revealed().saturating_sub(1),
                };
                if grid == 0 {
                    t.main_grid.to_owned()
                } else {
                    format!("{} {grid} / {}", t.extra_grid, ticket.extras)
                }
            }
            _ => String::new(),
        };
        set_text(&ui.caption, &caption);

        if !self.load_failed.get() && game.phase() != &Phase::Loading {
            let notice = game.notice().map(|n| match n {
                Notice::InsufficientFunds { stake, balance } => {
                    lang.insufficient_funds(*stake, *balance)
                }
                Notice::Net(error) => {
                    let mut text = net_message(lang, error);
                    if matches!(game.phase(), Phase::BuyFailed { .. }) {
                        text.push(' ');
                        text.push_str(t.retry_safe);
                    }
                    text
                }
                Notice::Rejected(rejection) => lang.verification_failed(rejection.check),
                Notice::ResumeOffer => t.resume_offer.to_owned(),
            });
            let resume_offer = matches!(game.notice(), Some(Notice::ResumeOffer));
            set_hidden(&ui.notice, notice.is_none() || resume_offer);
            set_text(&ui.notice_text, notice.as_deref().unwrap_or(""));
            set_attr(
                &ui.notice,
                "data-kind",
                match game.notice() {
                    Some(Notice::Rejected(_)) => "rejected",
                    Some(Notice::InsufficientFunds { .. }) => "funds",
                    Some(Notice::Net(_)) => "network",
                    _ => "",
                },
            );
            set_hidden(&ui.retry, !matches!(game.phase(), Phase::BuyFailed { .. }));
        }
        set_hidden(
            &ui.resume_box,
            !game.has_resume() || game.phase() != &Phase::Ready,
        );

        set_hidden(&ui.badge, game.ticket().is_none());
        set_text(&ui.badge_label, &format!("✓ {}", t.verified));

        let popup = game.popup();
        let was_hidden = ui.popup.hidden();
        match popup {
            Some(Popup::Win(cents)) => set_text(&ui.popup_text, &lang.you_win(cents)),
            Some(Popup::Extras(n)) => set_text(&ui.popup_text, &lang.you_get_extras(n)),
            None => {}
        }
        set_attr(
            &ui.popup,
            "data-kind",
            match popup {
                Some(Popup::Win(_)) => "win",
                Some(Popup::Extras(_)) => "extras",
                None => "",
            },
        );
        set_hidden(&ui.popup, popup.is_none());
        if was_hidden && popup.is_some() {
            let _ = ui.popup_ok.focus();
        }

        let muted = self.sound.borrow().muted();
        set_text(&ui.mute, if muted { t.sound_off } else { t.sound_on });
        set_attr(
            &ui.mute,
            "aria-pressed",
            if muted { "true" } else { "false" },
        );
    }

    fn load_history(this: &Rc<Inner>, more: bool) {
        let Some(token) = this.token.borrow().clone() else {
            return;
        };
        let before = if more {
            this.history_before.get()
        } else {
            None
        };
        let reply = this.backend.history(&token, before);
        let weak = Rc::downgrade(this);
        spawn_local(async move {
            let result = reply.await;
            let Some(inner) = weak.upgrade() else {
                return;
            };
            let lang = inner.lang;
            let body = &inner.ui.history_body;
            match result {
                Ok(page) => {
                    if !more {
                        body.set_inner_html("");
                        inner.history_items.borrow_mut().clear();
                    }
                    for item in &page.items {
                        let _ = history_row(body, lang, item);
                    }
                    if !more && page.items.is_empty() {
                        if let Ok(row) = crate::dom::child(body, "tr", "") {
                            let _ = text_child(&row, "td", "", lang.texts().history_empty);
                        }
                    }
                    inner.history_items.borrow_mut().extend(page.items);
                    inner.history_before.set(page.next_before);
                    set_hidden(&inner.ui.history_more, page.next_before.is_none());
                }
                Err(error) => {
                    inner.ui.history_detail.set_inner_html("");
                    let _ = text_child(
                        &inner.ui.history_detail,
                        "p",
                        "eld-error",
                        &net_message(lang, &error),
                    );
                }
            }
        });
    }

    fn open_sale(this: &Rc<Inner>, sale_id: u64, stake: u64) {
        let Some(token) = this.token.borrow().clone() else {
            return;
        };
        let reply = this.backend.sale(&token, sale_id);
        let weak = Rc::downgrade(this);
        spawn_local(async move {
            let result = reply.await;
            if let Some(inner) = weak.upgrade() {
                let _ = inner.show_sale(result, stake);
            }
        });
    }

    fn show_sale(&self, result: Result<SaleResponse, NetError>, stake: u64) -> Result<(), JsValue> {
        let lang = self.lang;
        let t = lang.texts();
        let detail = &self.ui.history_detail;
        detail.set_inner_html("");
        let response = match result {
            Ok(response) => response,
            Err(error) => {
                text_child(detail, "p", "eld-error", &net_message(lang, &error))?;
                return Ok(());
            }
        };
        let operator = self
            .config
            .borrow()
            .as_ref()
            .and_then(|c| parse_public_key(&c.public_key).ok());
        let Some(operator) = operator else {
            return Ok(());
        };
        let ticket = match verify(&response, &operator, stake) {
            Ok(ticket) => ticket,
            Err(rejection) => {
                text_child(
                    detail,
                    "p",
                    "eld-error",
                    &lang.verification_failed(rejection.check),
                )?;
                return Ok(());
            }
        };
        let result = if ticket.prize_cents > 0 {
            lang.you_win(ticket.prize_cents)
        } else {
            t.lost.to_owned()
        };
        text_child(
            detail,
            "h3",
            "",
            &format!(
                "#{} — {} — {result}",
                ticket.sale_id,
                format_cents(ticket.stake_cents, lang)
            ),
        )?;
        let doc = crate::dom::document()?;
        let dpr = crate::dom::window()?.device_pixel_ratio();
        for (index, grid) in ticket.grids.iter().enumerate() {
            let figure = crate::dom::child(detail, "figure", "eld-history-grid")?;
            let canvas: web_sys::HtmlCanvasElement = doc.create_element("canvas")?.dyn_into()?;
            set_attr(&canvas, "aria-hidden", "true");
            figure.append_child(&canvas)?;
            let label = if index == 0 {
                t.main_grid.to_owned()
            } else {
                format!("{} {index}", t.extra_grid)
            };
            let caption = text_child(&figure, "figcaption", "", &label)?;
            caption.set_title(&lang.describe_grid(grid.rows()));
            let mut board = Board::new(canvas)?;
            board.fit(250.0, 150.0, dpr)?;
            board.show(*grid, ticket.marks[index])?;
            text_child(&figure, "p", "eld-sr", &lang.describe_grid(grid.rows()))?;
        }
        let badge = crate::dom::child(detail, "details", "eld-badge")?;
        text_child(&badge, "summary", "", &format!("✓ {}", t.verified))?;
        let list = crate::dom::child(&badge, "ul", "eld-checks")?;
        fill_checks(&list, lang, &ticket.checks)?;
        Ok(())
    }

    fn load_blocks(this: &Rc<Inner>) {
        if !this.ui.info.has_attribute("open") {
            return;
        }
        let reply = this.backend.blocks();
        let weak = Rc::downgrade(this);
        spawn_local(async move {
            let result = reply.await;
            let Some(inner) = weak.upgrade() else {
                return;
            };
            let stake = inner.game.borrow().stake();
            let config = inner.config.borrow();
            let Some(config) = config.as_ref() else {
                return;
            };
            let blocks = result.ok();
            let open = blocks.as_ref().and_then(|list| {
                list.blocks
                    .iter()
                    .find(|b| b.status == "open" && b.commitment.commitment.stake_cents == stake)
            });
            let _ = fill_remaining(&inner.ui.remaining, inner.lang, config, open, stake);
        });
    }
}

async fn load_session(
    backend: &dyn Backend,
    launch_token: Option<String>,
) -> Result<(Config, Session), NetError> {
    let config = backend.config().await?;
    if let Some(token) = launch_token {
        let session = backend.session(&token).await?;
        return Ok((config, session));
    }
    // A demo player is kept across reloads, so an interrupted ticket can be
    // found again; a stale token simply gets a fresh player.
    if let Some(token) = load_pref(DEMO_TOKEN_KEY) {
        match backend.session(&token).await {
            Ok(session) => return Ok((config, session)),
            Err(NetError::Api {
                status: 401 | 403 | 404,
                ..
            }) => {}
            Err(other) => return Err(other),
        }
    }
    let session = backend.demo_player().await?;
    save_pref(DEMO_TOKEN_KEY, Some(&session.token));
    Ok((config, session))
}

fn net_message(lang: Lang, error: &NetError) -> String {
    let t = lang.texts();
    match error {
        NetError::Timeout => t.err_timeout.to_owned(),
        NetError::Network => t.err_network.to_owned(),
        NetError::Decode => t.err_response.to_owned(),
        NetError::Api { code, .. } => lang.api_error(code).to_owned(),
    }
}

/// 128 random bits as 32 hex characters: within the contract's
/// `[A-Za-z0-9_-]{8,64}`, and unguessable.
pub fn new_idempotency_key() -> String {
    let mut bytes = [0u8; 16];
    if OsRng.try_fill_bytes(&mut bytes).is_err() {
        // No CSPRNG: the time still keeps keys distinct per player.
        let now = js_sys::Date::now() as u64;
        bytes[..8].copy_from_slice(&now.to_be_bytes());
        bytes[8..].copy_from_slice(&(js_sys::Math::random().to_bits()).to_be_bytes());
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
