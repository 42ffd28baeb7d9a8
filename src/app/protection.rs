//! Player protection on the page (issue 12): the mandatory notices, the
//! session clock, the « Limites de jeu » panel (limits, reality-check
//! period, self-exclusion), the reality check between tickets, and the
//! refusals of a sale for a limit or an exclusion. The server enforces
//! limits and exclusions inside the sale; the page shows them and never
//! offers a way around them.

use super::render::net_message;
use super::Inner;
use crate::api::{
    ExclusionRequest, LimitsRequest, NetError, PendingLimit, Protection, RealityCheckRequest,
    Session,
};
use crate::console::LogFailure;
use crate::dom::{
    child, load_pref, save_pref, set_attr, set_hidden, set_text, text_child, Listener,
};
use crate::game::{Game, Phase};
use crate::i18n::Lang;
use crate::money::format_cents;
use crate::net::Backend;
use crate::protection::{
    cents_to_input, parse_euros, Exclusion, Refusal, WarningRotation, EXCLUSION_CHOICES,
};
use crate::reality_check::{format_played, RealityCheck, State, Summary, CHOICES};
use crate::ui::Ui;
use eldorado_engine::Money;
use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::spawn_local;
use web_sys::{Element, HtmlButtonElement, HtmlElement, HtmlInputElement};

/// Which risk warning the next page load shows first.
const WARNING_KEY: &str = "eldorado.risk_warning";

/// The session clock's tick.
const TICK_MS: i32 = 1000;

type Clock = Rc<dyn Fn() -> f64>;

/// The elements of player protection, built once inside the game's root.
pub(super) struct GuardUi {
    clock: HtmlElement,
    limits_open: HtmlButtonElement,
    play_money: HtmlElement,
    /// Next to « Jouer »: why it is disabled (exclusion, play stopped).
    status: HtmlElement,
    panel: HtmlElement,
    panel_title: HtmlElement,
    panel_close: HtmlButtonElement,
    stake_now: HtmlElement,
    stake_used: HtmlElement,
    stake_pending: HtmlElement,
    loss_now: HtmlElement,
    loss_used: HtmlElement,
    loss_pending: HtmlElement,
    form: HtmlElement,
    stake_input: HtmlInputElement,
    loss_input: HtmlInputElement,
    limits_message: HtmlElement,
    reality: Vec<(u32, HtmlButtonElement)>,
    panel_status: HtmlElement,
    exclusions: Vec<(Option<u32>, HtmlButtonElement)>,
    dialog: HtmlElement,
    figures: [HtmlElement; 5],
    continue_button: HtmlButtonElement,
    stop_button: HtmlButtonElement,
    warning: HtmlElement,
}

/// Protection's state in the running game.
pub(super) struct Guard {
    ui: GuardUi,
    check: RefCell<Option<RealityCheck>>,
    protection: RefCell<Option<Protection>>,
    exclusion: Cell<Exclusion>,
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

fn button(parent: &Element, class: &str, text: &str) -> Result<HtmlButtonElement, JsValue> {
    let b: HtmlButtonElement = child(parent, "button", class)?.dyn_into()?;
    b.set_type("button");
    b.set_text_content(Some(text));
    Ok(b)
}

/// Inserts `element` right after `anchor` (or at the end of `root`).
fn place_after(root: &Element, anchor: Option<Element>, element: &Element) {
    let next = anchor.and_then(|a| a.next_sibling());
    root.insert_before(element, next.as_ref())
        .log_failure("placing a protection element");
}

fn find(root: &Element, selector: &str) -> Option<Element> {
    root.query_selector(selector).ok().flatten()
}

/// One weekly limit's lines in the panel: in force, used, pending.
fn limit_block(
    parent: &Element,
    title: &str,
) -> Result<(HtmlElement, HtmlElement, HtmlElement), JsValue> {
    let block = child(parent, "div", "eld-limit")?;
    text_child(&block, "h3", "", title)?;
    let now = text_child(&block, "p", "eld-limit-now", "")?;
    let used = text_child(&block, "p", "eld-limit-used", "")?;
    let pending = text_child(&block, "p", "eld-limit-pending", "")?;
    pending.set_hidden(true);
    Ok((now, used, pending))
}

fn amount_input(
    form: &Element,
    id: &str,
    label: &str,
    hint_id: &str,
) -> Result<HtmlInputElement, JsValue> {
    let field = child(form, "div", "eld-field")?;
    let label_el = text_child(&field, "label", "", label)?;
    set_attr(&label_el, "for", id);
    let input: HtmlInputElement = child(&field, "input", "eld-amount")?.dyn_into()?;
    input.set_id(id);
    input.set_type("text");
    set_attr(&input, "inputmode", "decimal");
    set_attr(&input, "autocomplete", "off");
    set_attr(&input, "aria-describedby", hint_id);
    Ok(input)
}

impl GuardUi {
    /// Builds every protection element around the game's own (the ids are
    /// unique per page: one game per page).
    pub(super) fn build(ui: &Ui, lang: Lang) -> Result<GuardUi, JsValue> {
        let p = lang.protection();
        let root: &Element = &ui.root;
        let doc = crate::dom::document()?;

        // The bar under the title: 18+, the session clock, the limits.
        let bar = crate::dom::el(&doc, "div", "eld-guard")?;
        place_after(root, find(root, ".eld-top"), &bar);
        let adults = child(&bar, "p", "eld-adults")?;
        let badge = text_child(&adults, "strong", "eld-adults-badge", p.adults_badge)?;
        set_attr(&badge, "aria-hidden", "true");
        text_child(&adults, "span", "eld-adults-text", p.adults_only)?;
        let clock_box = child(&bar, "p", "eld-clock")?;
        let label = text_child(&clock_box, "span", "eld-clock-label", p.clock_label)?;
        label.set_id("eld-clock-label");
        let clock = text_child(&clock_box, "span", "eld-clock-value", "0:00:00")?;
        set_attr(&clock, "role", "timer");
        set_attr(&clock, "aria-labelledby", "eld-clock-label");
        let limits_open = button(&bar, "eld-limits-open", p.limits_button)?;
        set_attr(&limits_open, "aria-expanded", "false");
        set_attr(&limits_open, "aria-controls", "eld-limits");
        let play_money = text_child(&bar, "p", "eld-play-money", p.play_money_session)?;
        play_money.set_hidden(true);

        // The panel, opened by the bar's button.
        let panel = crate::dom::el(&doc, "section", "eld-limits")?;
        panel.set_id("eld-limits");
        panel.set_hidden(true);
        set_attr(&panel, "aria-labelledby", "eld-limits-title");
        place_after(root, Some(bar.clone().into()), &panel);
        let head = child(&panel, "div", "eld-limits-head")?;
        let panel_title = text_child(&head, "h2", "", p.limits_title)?;
        panel_title.set_id("eld-limits-title");
        panel_title.set_tab_index(-1);
        let panel_close = button(&head, "eld-limits-close", p.close)?;
        text_child(&panel, "p", "eld-limits-intro", p.limits_intro)?;
        let panel_status = text_child(&panel, "p", "eld-guard-excluded", "")?;
        panel_status.set_hidden(true);
        let (stake_now, stake_used, stake_pending) = limit_block(&panel, p.stake_limit)?;
        let (loss_now, loss_used, loss_pending) = limit_block(&panel, p.loss_limit)?;

        let form = child(&panel, "form", "eld-limits-form")?;
        set_attr(&form, "novalidate", "");
        let stake_input = amount_input(
            &form,
            "eld-stake-limit",
            p.new_stake_limit,
            "eld-limit-hint",
        )?;
        let loss_input = amount_input(&form, "eld-loss-limit", p.new_loss_limit, "eld-limit-hint")?;
        let hint = text_child(&form, "p", "eld-hint", p.limit_hint)?;
        hint.set_id("eld-limit-hint");
        let save: HtmlButtonElement = child(&form, "button", "eld-limits-save")?.dyn_into()?;
        save.set_type("submit");
        save.set_text_content(Some(p.save_limits));
        let limits_message = child(&form, "p", "eld-limits-message")?;
        set_attr(&limits_message, "role", "status");

        let group = child(&panel, "fieldset", "eld-reality-setting")?;
        text_child(&group, "legend", "", p.reality_setting)?;
        let mut reality = Vec::new();
        for minutes in CHOICES {
            let b = button(
                &group,
                "eld-reality-choice",
                &format!("{minutes} {}", p.minutes),
            )?;
            set_attr(&b, "data-minutes", &minutes.to_string());
            set_attr(&b, "aria-pressed", "false");
            reality.push((minutes, b));
        }

        let exclusion = child(&panel, "div", "eld-exclusion")?;
        set_attr(&exclusion, "role", "group");
        set_attr(&exclusion, "aria-labelledby", "eld-exclusion-title");
        let title = text_child(&exclusion, "h3", "", p.exclusion_title)?;
        title.set_id("eld-exclusion-title");
        text_child(&exclusion, "p", "", p.exclusion_intro)?;
        let mut exclusions = Vec::new();
        for (index, days) in EXCLUSION_CHOICES.into_iter().enumerate() {
            let b: HtmlButtonElement = child(&exclusion, "button", "eld-exclude")?.dyn_into()?;
            b.set_type("button");
            text_child(&b, "strong", "", p.exclusion_choices[index])?;
            text_child(&b, "span", "eld-irreversible", p.irreversible)?;
            set_attr(&b, "aria-label", &lang.exclusion_choice_label(index));
            set_attr(
                &b,
                "data-days",
                &days.map_or_else(|| "none".to_owned(), |d| d.to_string()),
            );
            exclusions.push((days, b));
        }

        // Next to « Jouer »: why it cannot be pressed.
        let status = crate::dom::el(&doc, "p", "eld-guard-status")?;
        status.set_id("eld-guard-status");
        set_attr(&status, "role", "status");
        status.set_hidden(true);
        place_after(root, find(root, ".eld-controls"), &status);

        // On every ticket: its result was fixed when it was bought.
        let fixed = crate::dom::el(&doc, "p", "eld-fixed")?;
        fixed.set_text_content(Some(p.fixed_at_purchase));
        place_after(root, find(root, ".eld-caption"), &fixed);

        // The reality check, over everything, between tickets only.
        let dialog = child(root, "div", "eld-reality")?;
        dialog.set_hidden(true);
        set_attr(&dialog, "role", "alertdialog");
        set_attr(&dialog, "aria-modal", "true");
        set_attr(&dialog, "aria-labelledby", "eld-reality-title");
        let card = child(&dialog, "div", "eld-reality-card")?;
        let title = text_child(&card, "h2", "", p.reality_title)?;
        title.set_id("eld-reality-title");
        let list = child(&card, "dl", "eld-reality-figures")?;
        let mut cells = Vec::new();
        for (name, term) in [
            ("played", p.time_played),
            ("tickets", p.tickets),
            ("stakes", p.stakes),
            ("prizes", p.prizes),
            ("net", p.net),
        ] {
            text_child(&list, "dt", "", term)?;
            let value = text_child(&list, "dd", "", "")?;
            set_attr(&value, "data-figure", name);
            cells.push(value);
        }
        let figures: [HtmlElement; 5] = cells
            .try_into()
            .map_err(|_| JsValue::from_str("five figures"))?;
        let actions = child(&card, "div", "eld-reality-actions")?;
        let continue_button = button(&actions, "eld-reality-continue", p.continue_playing)?;
        let stop_button = button(&actions, "eld-reality-stop", p.stop_playing)?;

        // The footer's risk warning takes the official wordings in turn.
        let warning = match find(root, ".eld-responsible") {
            Some(existing) => existing.dyn_into()?,
            None => {
                let footer = find(root, ".eld-footer").unwrap_or_else(|| root.clone());
                child(&footer, "p", "eld-responsible")?
            }
        };
        set_attr(&warning, "data-kind", "risk");

        Ok(GuardUi {
            clock,
            limits_open,
            play_money,
            status,
            panel,
            panel_title,
            panel_close,
            stake_now,
            stake_used,
            stake_pending,
            loss_now,
            loss_used,
            loss_pending,
            form,
            stake_input,
            loss_input,
            limits_message,
            reality,
            panel_status,
            exclusions,
            dialog,
            figures,
            continue_button,
            stop_button,
            warning,
        })
    }
}

impl Guard {
    pub(super) fn new(ui: GuardUi, lang: Lang) -> Guard {
        let first = load_pref(WARNING_KEY)
            .and_then(|s| s.parse().ok())
            .map_or(WarningRotation(0), WarningRotation);
        save_pref(WARNING_KEY, Some(&first.next().0.to_string()));
        let guard = Guard {
            ui,
            check: RefCell::new(None),
            protection: RefCell::new(None),
            exclusion: Cell::new(Exclusion::None),
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
        set_attr(&self.ui.warning, "data-warning", &index.to_string());
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

    /// The panel's figures and form, from the last protection read.
    fn fill_panel(&self, lang: Lang) {
        let Some(protection) = self.protection.borrow().clone() else {
            return;
        };
        let p = lang.protection();
        let ui = &self.ui;
        let money = lang.money_notation();
        let lines = [
            (
                &ui.stake_now,
                &ui.stake_used,
                &ui.stake_pending,
                protection.weekly_stake_limit_cents,
                p.stake_used,
                protection.stake_used_cents,
                protection.pending_weekly_stake_limit,
            ),
            (
                &ui.loss_now,
                &ui.loss_used,
                &ui.loss_pending,
                protection.weekly_loss_limit_cents,
                p.loss_used,
                protection.loss_used_cents,
                protection.pending_weekly_loss_limit,
            ),
        ];
        for (now, used, pending, limit, used_label, used_cents, waiting) in lines {
            set_text(
                now,
                &format!("{}{}{}", p.in_force, colon(lang), lang.limit_amount(limit)),
            );
            set_text(
                used,
                &format!(
                    "{used_label}{}{}",
                    colon(lang),
                    format_cents(used_cents, money)
                ),
            );
            match waiting {
                Some(PendingLimit {
                    limit_cents,
                    effective_at_ms,
                }) => {
                    set_text(
                        pending,
                        &lang.pending_limit(limit_cents, &format_date(lang, effective_at_ms)),
                    );
                    set_hidden(pending, false);
                }
                None => set_hidden(pending, true),
            }
        }
        for (minutes, b) in &ui.reality {
            let pressed = *minutes == protection.reality_check_minutes;
            set_attr(b, "aria-pressed", if pressed { "true" } else { "false" });
        }
    }

    /// The form's fields, from the limits in force. Only when the panel
    /// opens or a change was saved: never over what the player is typing.
    fn fill_inputs(&self, lang: Lang) {
        let Some(protection) = self.protection.borrow().clone() else {
            return;
        };
        let money = lang.money_notation();
        let ui = &self.ui;
        ui.stake_input
            .set_value(&cents_to_input(protection.weekly_stake_limit_cents, money));
        ui.loss_input
            .set_value(&cents_to_input(protection.weekly_loss_limit_cents, money));
        for input in [&ui.stake_input, &ui.loss_input] {
            set_attr(input, "aria-invalid", "false");
        }
    }
}

fn colon(lang: Lang) -> &'static str {
    match lang {
        Lang::Fr => "\u{A0}: ",
        Lang::En => ": ",
    }
}

/// A moment as the player reads it, in their language and time zone.
fn format_date(lang: Lang, ms: u64) -> String {
    let date = js_sys::Date::new(&JsValue::from_f64(ms as f64));
    let options = js_sys::Object::new();
    for (key, value) in [("dateStyle", "short"), ("timeStyle", "short")] {
        js_sys::Reflect::set(&options, &key.into(), &value.into())
            .log_failure("setting a date format option");
    }
    let locale = match lang {
        Lang::Fr => "fr-FR",
        Lang::En => "en-GB",
    };
    date.to_locale_string(locale, &options).into()
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
        let mut listeners = vec![
            on(&ui.limits_open, "click", |i, _| {
                let open = i.guard.ui.panel.hidden();
                Inner::show_panel(i, open);
            })?,
            on(&ui.panel_close, "click", |i, _| Inner::show_panel(i, false))?,
            on(&ui.form, "submit", |i, event| {
                event.prevent_default();
                Inner::save_limits(i);
            })?,
            on(&ui.continue_button, "click", |i, _| {
                let now = i.guard.now();
                if let Some(check) = i.guard.check.borrow_mut().as_mut() {
                    check.resume(now);
                }
                i.render();
                i.ui.play.focus().log_failure("focusing the play button");
            })?,
            on(&ui.stop_button, "click", |i, _| {
                let now = i.guard.now();
                if let Some(check) = i.guard.check.borrow_mut().as_mut() {
                    check.stop(now);
                }
                i.render();
            })?,
        ];
        for (minutes, b) in &ui.reality {
            let minutes = *minutes;
            let weak = Rc::downgrade(this);
            listeners.push(Listener::new(b, "click", move |_| {
                if let Some(inner) = weak.upgrade() {
                    Inner::set_reality_minutes(&inner, minutes);
                }
            })?);
        }
        for (days, b) in &ui.exclusions {
            let days = *days;
            let weak = Rc::downgrade(this);
            listeners.push(Listener::new(b, "click", move |_| {
                if let Some(inner) = weak.upgrade() {
                    Inner::exclude(&inner, days);
                }
            })?);
        }
        this.listeners.borrow_mut().extend(listeners);
        Ok(())
    }

    /// The session is loaded: its protection, the session clock and the
    /// reality check start now.
    pub(super) fn guard_started(this: &Rc<Inner>, session: &Session) {
        let guard = &this.guard;
        let now = guard.now();
        guard.check.replace(Some(RealityCheck::new(
            now,
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

        // Only a new ticket is barred: one already bought still reveals.
        if game.phase() == &Phase::Ready && guard.barred(now) {
            self.ui.play.set_disabled(true);
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

    fn show_panel(this: &Rc<Inner>, open: bool) {
        let ui = &this.guard.ui;
        set_hidden(&ui.panel, !open);
        set_attr(
            &ui.limits_open,
            "aria-expanded",
            if open { "true" } else { "false" },
        );
        if !open {
            ui.limits_open
                .focus()
                .log_failure("focusing the limits button");
            return;
        }
        set_text(&ui.limits_message, "");
        this.guard.fill_panel(this.lang);
        this.guard.fill_inputs(this.lang);
        ui.panel_title
            .focus()
            .log_failure("focusing the limits panel");
        // The figures used change with every ticket: read them afresh.
        let Some(token) = this.token.borrow().clone() else {
            return;
        };
        let reply = this.backend.limits(&token);
        let weak = Rc::downgrade(this);
        spawn_local(async move {
            let result = reply.await.log_failure("reading the play limits");
            if let (Some(inner), Some(protection)) = (weak.upgrade(), result) {
                inner.guard_session(protection);
                inner.render();
            }
        });
    }

    fn save_limits(this: &Rc<Inner>) {
        let ui = &this.guard.ui;
        let lang = this.lang;
        let stake = parse_euros(&ui.stake_input.value());
        let loss = parse_euros(&ui.loss_input.value());
        for (input, parsed) in [
            (&ui.stake_input, stake.is_err()),
            (&ui.loss_input, loss.is_err()),
        ] {
            set_attr(input, "aria-invalid", if parsed { "true" } else { "false" });
        }
        let (Ok(stake), Ok(loss)) = (stake, loss) else {
            set_text(&ui.limits_message, lang.protection().bad_amount);
            set_attr(&ui.limits_message, "data-kind", "error");
            return;
        };
        let request = LimitsRequest {
            weekly_stake_limit_cents: stake,
            weekly_loss_limit_cents: loss,
        };
        Inner::send_protection(
            this,
            |backend, token| backend.set_limits(token, request),
            lang.protection().limits_saved,
        );
    }

    fn set_reality_minutes(this: &Rc<Inner>, minutes: u32) {
        Inner::send_protection(
            this,
            move |backend, token| backend.set_reality_check(token, RealityCheckRequest { minutes }),
            this.lang.protection().reality_saved,
        );
    }

    /// The second click of a self-exclusion: sent at once, no way back.
    fn exclude(this: &Rc<Inner>, days: Option<u32>) {
        Inner::send_protection(
            this,
            move |backend, token| backend.exclude(token, ExclusionRequest { days }),
            "",
        );
    }

    /// Why a protection change was refused, in the panel's words.
    fn change_refused(&self, error: &NetError) -> String {
        match error {
            // The only conflict of these requests: a shorter exclusion.
            NetError::Api { code, .. } if code == "CONFLICT" => {
                self.lang.protection().exclusion_longer.to_owned()
            }
            _ => net_message(self.lang, error),
        }
    }

    /// Sends one protection change; its answer is the protection to show.
    fn send_protection(
        this: &Rc<Inner>,
        request: impl FnOnce(&dyn Backend, &str) -> crate::net::Reply<Protection>,
        done: &'static str,
    ) {
        let Some(token) = this.token.borrow().clone() else {
            return;
        };
        let reply = request(this.backend.as_ref(), &token);
        let weak = Rc::downgrade(this);
        spawn_local(async move {
            let result = reply.await;
            let Some(inner) = weak.upgrade() else {
                return;
            };
            let message = &inner.guard.ui.limits_message;
            match result {
                Ok(protection) => {
                    inner.guard_session(protection);
                    inner.guard.fill_inputs(inner.lang);
                    set_text(message, done);
                    set_attr(message, "data-kind", "ok");
                }
                Err(error) => {
                    set_text(message, &inner.change_refused(&error));
                    set_attr(message, "data-kind", "error");
                }
            }
            inner.render();
        });
    }
}

fn fill_figures(cells: &[HtmlElement; 5], lang: Lang, summary: &Summary) {
    let money = lang.money_notation();
    let values = [
        format_played(summary.played_ms),
        summary.tickets.to_string(),
        format_cents(summary.stakes_cents, money),
        format_cents(summary.prizes_cents, money),
        lang.signed_amount(summary.net_cents()),
    ];
    for (cell, value) in cells.iter().zip(values) {
        set_text(cell, &value);
    }
}
