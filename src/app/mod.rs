//! The running game: wires the DOM, the board, the sound and the backend
//! to the [`Game`] state machine.
//!
//! One shared `Inner`, its work split by job: `wiring` (listeners, keys,
//! resizing, teardown), `session` (loading the player), `commands`
//! (carrying out the state machine's commands, the reveal animation),
//! `render` (controls brought in line with the state), `panels` (the
//! history panel, its rows verified before they show a result), `rules`
//! (the rules panel's page, fetched when first opened) and
//! `trust` (the commitments seen, kept across reloads), `record` (the
//! public record's checkpoints and proofs) and `portal` (the
//! messages to and from the portal that frames the page).

mod commands;
mod panels;
mod portal;
mod protection;
pub mod record;
mod render;
mod rules;
mod session;
mod trust;
mod wiring;

pub use commands::new_purchase;
pub use wiring::IDLE_REFRESH_MS;

use crate::api::HistoryItem;
use crate::board::Board;
use crate::commitments::CommitmentBook;
use crate::dom::Listener;
use crate::game::{Game, Player};
use crate::history::Verdicts;
use crate::i18n::Lang;
use crate::launch::Launch;
use crate::net::Backend;
use crate::operator_key::OperatorKey;
use crate::portal::Portal;
use crate::reveal::Timing;
use crate::sound::Sound;
use crate::ui::Ui;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsValue;
use web_sys::HtmlElement;

type FrameCallback = Closure<dyn FnMut(f64)>;
/// A resize observer with the callback it must outlive.
type Watcher = (web_sys::ResizeObserver, Closure<dyn FnMut()>);
/// An interval's id with the callback it must outlive.
type Timer = (i32, Closure<dyn FnMut()>);

const TURBO_KEY: &str = "eldorado.turbo";

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
    /// The key sales are verified with, once chosen (pins checked).
    operator: Cell<Option<OperatorKey>>,
    /// The beacon deals are checked with, and when it publishes each
    /// round: the policy's (`beacon_pin`).
    beacon: Cell<Option<crate::beacon_pin::PinnedBeacon>>,
    player: RefCell<Option<Player>>,
    /// Every block commitment seen from the server, per block id.
    book: RefCell<CommitmentBook>,
    /// The log key and witnesses checkpoints must be signed by, once chosen.
    record_trust: RefCell<Option<crate::record::RecordTrust>>,
    /// The block commitments proved on a cosigned checkpoint by this page.
    proved: RefCell<Vec<eldorado_engine::SignedCommitment>>,
    /// This page's verdict on each sale it has checked, by sale id: the
    /// history shows only these results.
    verdicts: RefCell<Verdicts>,
    timing: Cell<Timing>,
    /// The player's « Turbo » choice (remembered): quicker normal reveals.
    turbo: Cell<bool>,
    /// The last prize shown at the end of a reveal (« Dernier gain »).
    last_win: Cell<Option<u64>>,
    /// « Dernier gain » counting up to a new prize: (start on the frame
    /// clock once the first frame came, amount).
    counting: Cell<Option<(Option<f64>, u64)>>,
    frame: RefCell<Option<FrameCallback>>,
    frame_id: Cell<Option<i32>>,
    listeners: RefCell<Vec<Listener>>,
    resize: RefCell<Option<Watcher>>,
    /// The idle session refresh: its interval id and callback.
    idle_timer: RefCell<Option<Timer>>,
    load_failed: Cell<bool>,
    history_before: Cell<Option<u64>>,
    history_items: RefCell<Vec<HistoryItem>>,
    portal: RefCell<Portal>,
    /// What the portal was last told, so it hears of changes only.
    posted_balance: Cell<Option<u64>>,
    posted_height: Cell<Option<u64>>,
    page_watch: RefCell<Option<Watcher>>,
    /// The portal closed the game: nothing more happens.
    closed: Cell<bool>,
    /// The symbols of the grid whose reveal just ended, said after the
    /// outcome or Extras it announces.
    live_symbols: RefCell<Option<String>>,
    /// Player protection: notices, session clock, limits, reality check.
    guard: protection::Guard,
    rules: Cell<rules::RulesPage>,
    /// What opened the rules dialog: the focus goes back to it.
    rules_opener: RefCell<Option<HtmlElement>>,
}

impl App {
    /// Builds the game inside `root` and starts loading the session.
    pub fn mount(
        root: &HtmlElement,
        launch: Launch,
        backend: Rc<dyn Backend>,
    ) -> Result<App, JsValue> {
        App::mount_with(root, launch, backend, Portal::of_page())
    }

    /// As if framed by `parent`: the tests play the portal with a window of
    /// their own.
    pub fn mount_framed(
        root: &HtmlElement,
        launch: Launch,
        backend: Rc<dyn Backend>,
        parent: web_sys::Window,
    ) -> Result<App, JsValue> {
        App::mount_with(root, launch, backend, Portal::with_parent(Some(parent)))
    }

    fn mount_with(
        root: &HtmlElement,
        launch: Launch,
        backend: Rc<dyn Backend>,
        portal: Portal,
    ) -> Result<App, JsValue> {
        let lang = launch.lang;
        let stakes = vec![50, 100, 200];
        let ui = Ui::build(root, lang, &stakes)?;
        let mut board = Board::new(ui.canvas.clone())?;
        board.set_notation(lang.money_notation());
        let guard = protection::Guard::new(protection::GuardUi::build(&ui, lang)?, lang);
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
            operator: Cell::new(None),
            beacon: Cell::new(None),
            player: RefCell::new(None),
            book: RefCell::new(CommitmentBook::default()),
            record_trust: RefCell::new(None),
            proved: RefCell::new(Vec::new()),
            verdicts: RefCell::new(Verdicts::default()),
            timing: Cell::new(Timing::for_motion(reduced)),
            turbo: Cell::new(crate::dom::load_pref(TURBO_KEY).as_deref() == Some("1")),
            last_win: Cell::new(None),
            counting: Cell::new(None),
            frame: RefCell::new(None),
            frame_id: Cell::new(None),
            listeners: RefCell::new(Vec::new()),
            resize: RefCell::new(None),
            idle_timer: RefCell::new(None),
            load_failed: Cell::new(false),
            history_before: Cell::new(None),
            history_items: RefCell::new(Vec::new()),
            portal: RefCell::new(portal),
            posted_balance: Cell::new(None),
            posted_height: Cell::new(None),
            page_watch: RefCell::new(None),
            closed: Cell::new(false),
            live_symbols: RefCell::new(None),
            guard,
            rules: Cell::new(rules::RulesPage::NotLoaded),
            rules_opener: RefCell::new(None),
        });
        Inner::wire(&inner)?;
        Inner::wire_guard(&inner)?;
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

    /// The player uncovers column `col` now (as a tap on it does).
    pub fn uncover_column(&self, col: usize, now: f64) -> bool {
        self.inner.board.borrow_mut().uncover(col, now)
    }

    pub fn is_revealing(&self) -> bool {
        self.inner.board.borrow().is_revealing()
    }

    pub fn toggle_turbo(&self) {
        self.inner.toggle_turbo();
    }

    pub fn choose_stake(&self, stake: u64) {
        if self.inner.game.borrow_mut().choose_stake(stake) {
            self.inner.render();
        }
    }

    pub fn resume(&self) {
        Inner::resume(&self.inner);
    }

    /// Opens a past ticket of the loaded history: fetches, verifies and
    /// draws it in the history panel (only once revealed).
    pub fn open_history(&self, sale_id: u64) {
        Inner::open_sale(&self.inner, sale_id);
    }

    pub fn load_history(&self) {
        Inner::load_history(&self.inner, false);
    }

    /// What the idle timer does every [`IDLE_REFRESH_MS`] (tests call it
    /// rather than wait).
    pub fn idle_tick(&self) {
        Inner::refresh_if_idle(&self.inner);
    }

    pub fn muted(&self) -> bool {
        self.inner.sound.borrow().muted()
    }

    /// Whether the portal closed the game.
    pub fn closed(&self) -> bool {
        self.inner.closed.get()
    }

    /// Replaces the clock (Unix ms) of the session clock and the reality
    /// check: tests drive time by hand, then call [`App::clock_tick`].
    pub fn set_clock(&self, clock: Rc<dyn Fn() -> f64>) {
        self.inner.set_guard_clock(clock);
    }

    /// Runs the session clock's tick now instead of waiting for it.
    pub fn clock_tick(&self) {
        Inner::guard_tick(&self.inner);
    }
}

impl Inner {
    /// The timing of the next reveal: turbo quickens only the normal one
    /// (reduced motion, or a timing set by tests, stays as it is).
    fn reveal_timing(&self) -> Timing {
        match self.timing.get() {
            Timing::NORMAL if self.turbo.get() => Timing::TURBO,
            timing => timing,
        }
    }

    fn toggle_turbo(&self) {
        let on = !self.turbo.get();
        self.turbo.set(on);
        crate::dom::save_pref(TURBO_KEY, Some(if on { "1" } else { "0" }));
        self.render();
    }
}

impl Drop for App {
    fn drop(&mut self) {
        self.inner.teardown();
    }
}
