//! Player protection on the page (issue 12): the mandatory notices, the
//! session clock, the « Limites de jeu » panel (limits, reality-check
//! period, self-exclusion), the reality check between tickets, and the
//! refusals of a sale for a limit or an exclusion. The server enforces
//! limits and exclusions inside the sale; the page shows them and never
//! offers a way around them. The elements themselves are built in `view`.

mod panel;
mod view;

pub(super) use view::GuardUi;

use super::Inner;
use crate::api::{NetError, Protection, Session};
use crate::console::LogFailure;
use crate::dom::{load_pref, save_pref, set_attr, set_hidden, set_text, Listener};
use crate::game::{Game, Notice, Phase};
use crate::i18n::Lang;
use crate::money::format_cents;
use crate::protection::{Exclusion, Refusal, WarningRotation};
use crate::reality_check::{format_played, RealityCheck, State, Summary};
use eldorado_engine::Money;
use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::HtmlButtonElement;
use web_sys::HtmlElement;

/// Which risk warning the next page load shows first.
const WARNING_KEY: &str = "eldorado.risk_warning";

/// The session clock's tick.
const TICK_MS: i32 = 1000;

type Clock = Rc<dyn Fn() -> f64>;

/// Protection's state in the running game.
pub(super) struct Guard {
    ui: GuardUi,
    check: RefCell<Option<RealityCheck>>,
    protection: RefCell<Option<Protection>>,
    exclusion: Cell<Exclusion>,
    /// The self-exclusion chosen and waiting for its confirmation
    /// (`Some(None)`: until the operator lifts it).
    exclusion_chosen: Cell<Option<Option<u32>>>,
    rotation: Cell<WarningRotation>,
    clock: RefCell<Clock>,
    interval: RefCell<Option<Interval>>,
}

/// A repeating timer, cleared when dropped.
struct Interval {
    id: i32,
    _callback: Closure<dyn FnMut()>,
}

impl Drop for Interval {
    fn drop(&mut self) {
        if let Some(window) = web_sys::window() {
            window.clear_interval_with_handle(self.id);
        }
    }
}

impl Guard {
    pub(super) fn new(ui: GuardUi, lang: Lang) -> Guard {
        let first = load_pref(WARNING_KEY)
            .and_then(|s| crate::text::parse_decimal(&s))
            .and_then(|n| u32::try_from(n).ok())
            .map_or(WarningRotation(0), WarningRotation);
        save_pref(
            WARNING_KEY,
            Some(&crate::text::decimal(first.next().0.into())),
        );
        let guard = Guard {
            ui,
            check: RefCell::new(None),
            protection: RefCell::new(None),
            exclusion: Cell::new(Exclusion::None),
            exclusion_chosen: Cell::new(None),
            rotation: Cell::new(first),
            clock: RefCell::new(Rc::new(js_sys::Date::now)),
            interval: RefCell::new(None),
        };
        guard.show_warning(lang);
        guard
    }

    fn now(&self) -> u64 {
        let now = (self.clock.borrow())();
        if now.is_finite() && now > 0.0 {
            now as u64
        } else {
            0
        }
    }

    fn show_warning(&self, lang: Lang) {
        let index = self.rotation.get().index();
        set_text(&self.ui.warning, lang.protection().risk_warnings[index]);
        set_attr(
            &self.ui.warning,
            "data-warning",
            &crate::text::decimal(index as u64),
        );
    }

    /// Whether play is barred now, by an exclusion or by the player's stop.
    fn barred(&self, now: u64) -> bool {
        self.exclusion.get().active(now)
            || self
                .check
                .borrow()
                .as_ref()
                .is_some_and(|c| c.state() != State::Playing)
    }

    fn set_protection(&self, protection: Protection) {
        let now = self.now();
        self.exclusion.set(Exclusion::from_fields(
            protection.excluded_until_ms,
            protection.excluded_indefinitely,
            now,
        ));
        if let Some(check) = self.check.borrow_mut().as_mut() {
            check.set_minutes(protection.reality_check_minutes);
        }
        self.protection.replace(Some(protection));
    }
}

/// A moment as the player reads it, in their language and time zone:
/// « 09/12/2026 à 10:48 », "09/12/2026 at 10:48" (the browser's short
/// forms, joined as a sentence says it rather than with a comma).
fn format_date(lang: Lang, ms: u64) -> String {
    let date = js_sys::Date::new(&JsValue::from_f64(ms as f64));
    let style = |key: &str| {
        let options = js_sys::Object::new();
        js_sys::Reflect::set(&options, &key.into(), &"short".into())
            .log_failure("setting a date format option");
        options
    };
    let locale = match lang {
        Lang::Fr => "fr-FR",
        Lang::En => "en-GB",
    };
    let day: String = date
        .to_locale_date_string(locale, &style("dateStyle"))
        .into();
    let time: String = date
        .to_locale_time_string_with_options(locale, &style("timeStyle"))
        .into();
    lang.date_at(&day, &time)
}

/// What the player reads of a sale refused by their protection.
pub(super) fn refusal_text(lang: Lang, refusal: &Refusal) -> String {
    match refusal {
        Refusal::Limit { limit, .. } => lang.limit_reached(
            limit.kind,
            limit.limit_cents,
            limit.used_cents,
            refusal
                .stake_frees_at_ms()
                .map(|at| format_date(lang, at))
                .as_deref(),
        ),
        Refusal::Excluded(exclusion) => exclusion_text(lang, *exclusion),
    }
}

fn exclusion_text(lang: Lang, exclusion: Exclusion) -> String {
    let p = lang.protection();
    match exclusion {
        Exclusion::Until(until) => lang.excluded_until(&format_date(lang, until)),
        Exclusion::Indefinite => p.excluded_indefinitely.to_owned(),
        Exclusion::None => String::new(),
    }
}

impl Inner {
    pub(super) fn wire_guard(this: &Rc<Inner>) -> Result<(), JsValue> {
        let ui = &this.guard.ui;
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
        // Its buttons' clicks come through the game's own listener
        // (`guard_click`).
        let submit = on(&ui.form, "submit", |i, event| {
            event.prevent_default();
            Inner::save_limits(i);
        })?;
        this.listeners.borrow_mut().push(submit);
        // Escape closes the dialog by itself: the page follows.
        let closed = on(&ui.panel, "close", |i, _| Inner::panel_closed(i))?;
        this.listeners.borrow_mut().push(closed);
        Ok(())
    }

    /// A click on a protection button (`class` is its class).
    pub(super) fn guard_click(this: &Rc<Inner>, class: &str, button: &web_sys::Element) {
        let ui = &this.guard.ui;
        match class {
            "eld-limits-open" => Inner::show_panel(this, !ui.panel.open()),
            "eld-limits-close" => Inner::show_panel(this, false),
            "eld-reality-continue" => {
                let now = this.guard.now();
                if let Some(check) = this.guard.check.borrow_mut().as_mut() {
                    check.resume(now);
                }
                this.render();
                this.ui.play.focus().log_failure("focusing the play button");
            }
            "eld-reality-stop" => {
                let now = this.guard.now();
                if let Some(check) = this.guard.check.borrow_mut().as_mut() {
                    check.stop(now);
                }
                this.render();
            }
            "eld-reality-choice" => {
                if let Some(minutes) = pressed(&ui.reality, button) {
                    Inner::set_reality_minutes(this, minutes);
                }
            }
            "eld-exclude" => {
                if let Some(days) = pressed(&ui.exclusions, button) {
                    Inner::choose_exclusion(this, days);
                }
            }
            "eld-exclude-confirm" => {
                if let Some(days) = this.guard.exclusion_chosen.take() {
                    set_hidden(&ui.exclusion_confirm, true);
                    Inner::exclude(this, days);
                }
            }
            "eld-exclude-cancel" => Inner::cancel_exclusion(this),
            _ => {}
        }
    }

    /// The session is loaded: its protection, the session clock and the
    /// reality check start now.
    pub(super) fn guard_started(this: &Rc<Inner>, session: &Session) {
        let guard = &this.guard;
        let now = guard.now();
        // The session clock counts from the session's start as the server
        // knows it, so a reload does not reset it (a page clock behind the
        // server's counts from now rather than from the future).
        guard.check.replace(Some(RealityCheck::new(
            session.started_at_ms.min(now),
            session.protection.reality_check_minutes,
        )));
        guard.set_protection(session.protection.clone());
        set_hidden(&guard.ui.play_money, session.money != Money::Play);
        guard.fill_panel(this.lang);
        Inner::start_clock(this);
        this.render();
    }

    fn start_clock(this: &Rc<Inner>) {
        let Ok(window) = crate::dom::window() else {
            return;
        };
        let weak = Rc::downgrade(this);
        let callback = Closure::<dyn FnMut()>::new(move || {
            if let Some(inner) = weak.upgrade() {
                Inner::guard_tick(&inner);
            }
        });
        let id = window
            .set_interval_with_callback_and_timeout_and_arguments_0(
                callback.as_ref().unchecked_ref(),
                TICK_MS,
            )
            .log_failure("starting the session clock");
        if let Some(id) = id {
            this.guard.interval.replace(Some(Interval {
                id,
                _callback: callback,
            }));
        }
        Inner::guard_tick(this);
    }

    pub(super) fn guard_teardown(&self) {
        self.guard.interval.take();
    }

    /// Replaces the clock read by the session clock and the reality check
    /// (tests drive time by hand).
    pub(super) fn set_guard_clock(&self, clock: Clock) {
        self.guard.clock.replace(clock);
    }

    /// The session clock ticks: the time shown, and a reality check that
    /// comes only between tickets.
    pub(super) fn guard_tick(this: &Rc<Inner>) {
        let guard = &this.guard;
        let now = guard.now();
        // A ticket is bought, revealed, then over (its popup may stay):
        // only then may the check come.
        let in_ticket = this.game.borrow().phase() != &Phase::Ready;
        let (played, came) = {
            let mut check = guard.check.borrow_mut();
            let Some(check) = check.as_mut() else {
                return;
            };
            (check.played_ms(now), check.tick(now, in_ticket))
        };
        set_text(&guard.ui.clock, &format_played(played));
        let exclusion = guard.exclusion.get();
        let expired = exclusion != Exclusion::None && !exclusion.active(now);
        if expired {
            guard.exclusion.set(Exclusion::None);
        }
        if came || expired {
            this.render();
        }
        if came {
            this.focus_reality_check();
        }
    }

    /// Before a new ticket: false when play is barred (exclusion, stop) or
    /// a reality check is due, which then comes instead of the ticket.
    pub(super) fn may_start_ticket(&self) -> bool {
        let guard = &self.guard;
        let now = guard.now();
        if guard.exclusion.get().active(now) {
            return false;
        }
        guard
            .check
            .borrow_mut()
            .as_mut()
            .is_none_or(|check| check.may_buy(now))
    }

    /// Moves the focus into the reality check when it is on screen.
    pub(super) fn focus_reality_check(&self) {
        if !self.guard.ui.dialog.hidden() {
            self.guard
                .ui
                .continue_button
                .focus()
                .log_failure("focusing the reality check");
        }
    }

    /// A ticket was bought and verified in this session: its stake and
    /// prize count in the reality check, and the next risk warning shows.
    pub(super) fn guard_ticket_bought(&self) {
        let (stake, prize) = {
            let game = self.game.borrow();
            let Some(ticket) = game.ticket() else {
                return;
            };
            (ticket.stake_cents, ticket.prize_cents)
        };
        if let Some(check) = self.guard.check.borrow_mut().as_mut() {
            check.record_ticket(stake, prize);
        }
        let next = self.guard.rotation.get().next();
        self.guard.rotation.set(next);
        self.guard.show_warning(self.lang);
    }

    /// A purchase failed: a refusal for an exclusion bars play at once; any
    /// protection refusal reads the session again (balance, use, limits).
    pub(super) fn guard_refused(this: &Rc<Inner>, error: &NetError) {
        let NetError::Protection(refusal) = error else {
            return;
        };
        if let Refusal::Excluded(exclusion) = refusal {
            this.guard.exclusion.set(*exclusion);
        }
        Inner::refresh_balance(this);
    }

    /// The session read again: its protection replaces the one shown.
    pub(super) fn guard_session(&self, protection: Protection) {
        self.guard.set_protection(protection);
        self.guard.fill_panel(self.lang);
    }

    /// Protection's part of bringing the page in line with the state.
    pub(super) fn render_guard(&self, game: &Game) {
        let guard = &self.guard;
        let ui = &guard.ui;
        let lang = self.lang;
        let p = lang.protection();
        let now = guard.now();
        let state = guard.check.borrow().as_ref().map(|c| c.state());
        let exclusion = guard.exclusion.get();
        let excluded = exclusion.active(now);

        let status = if excluded {
            Some(format!(
                "{} {}",
                exclusion_text(lang, exclusion),
                p.history_still_open
            ))
        } else if matches!(state, Some(State::Stopped(_))) {
            Some(p.stopped.to_owned())
        } else {
            None
        };
        set_text(&ui.status, status.as_deref().unwrap_or(""));
        set_hidden(&ui.status, status.is_none());
        set_attr(
            &ui.status,
            "data-kind",
            if excluded { "excluded" } else { "stopped" },
        );
        set_text(
            &ui.panel_status,
            &if excluded {
                exclusion_text(lang, exclusion)
            } else {
                String::new()
            },
        );
        set_hidden(&ui.panel_status, !excluded);

        // An exclusion says why nothing can be bought: a limit's refusal
        // read before it is old news under it.
        if excluded
            && matches!(
                game.notice(),
                Some(Notice::Net(NetError::Protection(Refusal::Limit { .. })))
            )
        {
            set_hidden(&self.ui.notice, true);
        }
        // Only a new ticket is barred: one already bought still reveals.
        if game.phase() == &Phase::Ready && guard.barred(now) {
            self.ui.play.set_disabled(true);
            // No stake to choose for a ticket that cannot be bought.
            for (_, stake) in &self.ui.stakes {
                stake.set_disabled(true);
            }
            set_attr(&self.ui.play, "aria-describedby", "eld-guard-status");
        } else if self.ui.play.has_attribute("aria-describedby") {
            self.ui
                .play
                .remove_attribute("aria-describedby")
                .log_failure("unlinking the play button's reason");
        }

        let shown = match state {
            Some(State::Paused(summary)) => Some(summary),
            _ => None,
        };
        if let Some(summary) = shown {
            fill_figures(&ui.figures, lang, &summary);
        }
        set_hidden(&ui.dialog, shown.is_none());
    }
}

fn fill_figures(cells: &[HtmlElement; 5], lang: Lang, summary: &Summary) {
    let money = lang.money_notation();
    let values = [
        format_played(summary.played_ms),
        crate::text::decimal(summary.tickets.into()),
        format_cents(summary.stakes_cents, money),
        format_cents(summary.prizes_cents, money),
        lang.signed_amount(summary.net_cents()),
    ];
    for (cell, value) in cells.iter().zip(values) {
        set_text(cell, &value);
    }
}

/// The value of the button of `choices` that was pressed, if it is one of them.
fn pressed<T: Copy>(choices: &[(T, HtmlButtonElement)], button: &web_sys::Element) -> Option<T> {
    choices.iter().find_map(|(value, b)| {
        let b: &web_sys::Element = b;
        (b == button).then_some(*value)
    })
}
