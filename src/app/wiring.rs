//! The game's ties to the page: listeners on its controls, the keyboard,
//! resizing and the animation frame callback, and their removal.

use super::Inner;
use crate::console::LogFailure;
use crate::dom::Listener;
use crate::game::Phase;
use std::rc::{Rc, Weak};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::KeyboardEvent;

/// How often an idle page reads the session again: often enough that money
/// credited by the operator or spent in another tab shows within half a
/// minute, rarely enough to cost the server one small read per open page.
pub const IDLE_REFRESH_MS: i32 = 30_000;

impl Inner {
    pub(super) fn wire(this: &Rc<Inner>) -> Result<(), JsValue> {
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
        // One listener for every button of the game (a click bubbles up
        // from the button, or from what is inside it, to the root).
        listeners.push(on(&ui.root, "click", Inner::on_click)?);
        // A tap on a column, or a drag across columns, uncovers them early.
        listeners.push(on(&ui.canvas, "pointerdown", Inner::on_pointer)?);
        listeners.push(on(&ui.canvas, "pointermove", Inner::on_pointer)?);
        listeners.push(on(&ui.board_box, "keydown", Inner::on_board_key)?);
        listeners.push(on(&ui.history, "toggle", |i, _| {
            if i.ui.history.has_attribute("open") {
                Inner::load_history(i, false);
            }
        })?);
        listeners.push(on(&ui.info, "close", |i, _| i.rules_closed())?);
        let doc = crate::dom::document()?;
        listeners.push(on(&doc, "keydown", Inner::on_key)?);
        let window = crate::dom::window()?;
        listeners.push(on(&window, "resize", |i, _| i.fit_canvas())?);
        // Back on the page: the balance may have moved meanwhile.
        listeners.push(on(&doc, "visibilitychange", |i, _| {
            Inner::refresh_if_idle(i)
        })?);
        listeners.push(on(&window, "focus", |i, _| Inner::refresh_if_idle(i))?);
        listeners.push(on(&window, "message", Inner::on_message)?);
        this.listeners.replace(listeners);

        let weak = Rc::downgrade(this);
        let tick = Closure::<dyn FnMut()>::new(move || {
            if let Some(inner) = weak.upgrade() {
                Inner::refresh_if_idle(&inner);
            }
        });
        let id = window.set_interval_with_callback_and_timeout_and_arguments_0(
            tick.as_ref().unchecked_ref(),
            IDLE_REFRESH_MS,
        )?;
        this.idle_timer.replace(Some((id, tick)));

        let weak = Rc::downgrade(this);
        let resized = Closure::<dyn FnMut()>::new(move || {
            if let Some(inner) = weak.upgrade() {
                inner.fit_canvas();
            }
        });
        // Without a ResizeObserver, the window's resize event still refits.
        if let Some(observer) = web_sys::ResizeObserver::new(resized.as_ref().unchecked_ref())
            .log_failure("watching the board's size")
        {
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

    pub(super) fn teardown(&self) {
        if let (Some(id), Ok(window)) = (self.frame_id.take(), crate::dom::window()) {
            window
                .cancel_animation_frame(id)
                .log_failure("cancelling the animation frame");
        }
        if let Some((observer, _)) = self.resize.take() {
            observer.disconnect();
        }
        if let (Some((id, _)), Ok(window)) = (self.idle_timer.take(), crate::dom::window()) {
            window.clear_interval_with_handle(id);
        }
        if let Some((observer, _)) = self.page_watch.take() {
            observer.disconnect();
        }
        self.listeners.borrow_mut().clear();
        self.frame.take();
        self.guard_teardown();
    }

    /// A click on one of the game's buttons, told apart by its class (the
    /// page's classes never change) or, for the repeated ones, by which it
    /// is.
    fn on_click(this: &Rc<Inner>, event: web_sys::Event) {
        let Some(button) = event
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|e| e.closest("button").ok().flatten())
        else {
            return;
        };
        // A history row's button names its sale.
        let sale_of = |attribute: &str| {
            button
                .get_attribute(attribute)
                .and_then(|s| crate::text::parse_decimal(&s))
        };
        match button.class_name().as_str() {
            "eld-play" => Inner::press(this),
            "eld-retry" if this.load_failed.get() => Inner::load(this),
            "eld-retry" => Inner::press(this),
            "eld-resume-btn" => Inner::resume(this),
            "eld-popup-ok" => this.close_popup(),
            "eld-mute" => {
                this.sound.borrow_mut().toggle();
                this.render();
            }
            "eld-turbo" => this.toggle_turbo(),
            "eld-help" | "eld-rules-open" => Inner::open_rules(this, button.unchecked_into()),
            "eld-info-close" => this.close_rules(),
            "eld-history-more" => Inner::load_history(this, true),
            "eld-history-receipt" => {
                if let Some(sale) = sale_of("data-receipt") {
                    Inner::download_receipt(this, sale);
                }
            }
            "eld-history-open" => {
                if let Some(sale) = sale_of("data-sale") {
                    Inner::open_sale(this, sale);
                }
            }
            "eld-stake" => {
                let stake = this
                    .ui
                    .stakes
                    .iter()
                    .find(|(_, b)| {
                        let b: &web_sys::Element = b;
                        *b == button
                    })
                    .map(|(stake, _)| *stake);
                if let Some(stake) = stake {
                    if this.game.borrow_mut().choose_stake(stake) {
                        this.render();
                    }
                }
            }
            class => Inner::guard_click(this, class, &button),
        }
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
                e.closest("button, a, input, select, textarea, summary, dialog")
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

    /// Reads the session again when the page is shown and between tickets
    /// (never during a reveal, whose balance is the sale's).
    pub(super) fn refresh_if_idle(this: &Rc<Inner>) {
        let hidden = crate::dom::document().map_or(true, |d| d.hidden());
        if hidden || this.load_failed.get() || this.game.borrow().phase() != &Phase::Ready {
            return;
        }
        Inner::refresh_balance(this);
    }

    fn on_pointer(this: &Rc<Inner>, event: web_sys::Event) {
        let Some(pointer) = event.dyn_ref::<web_sys::PointerEvent>() else {
            return;
        };
        // A mouse moving over the board without a button held uncovers nothing.
        if event.type_() == "pointermove" && pointer.buttons() == 0 {
            return;
        }
        let width = f64::from(this.ui.canvas.client_width());
        let mut board = this.board.borrow_mut();
        if !board.is_revealing() {
            return;
        }
        let x = f64::from(pointer.offset_x());
        let y = f64::from(pointer.offset_y());
        if let Some(col) = board.column_at(x, y, width) {
            board.uncover(col, event.time_stamp());
        }
    }

    /// On the focused board during a reveal: Right/Down arrow or Space
    /// uncovers the next covered column (Space elsewhere stays « Jouer »).
    fn on_board_key(this: &Rc<Inner>, event: web_sys::Event) {
        let Some(key) = event.dyn_ref::<KeyboardEvent>().map(KeyboardEvent::key) else {
            return;
        };
        if !matches!(key.as_str(), "ArrowRight" | "ArrowDown" | " ") {
            return;
        }
        let mut board = this.board.borrow_mut();
        if !board.is_revealing() {
            return;
        }
        event.prevent_default();
        event.stop_propagation();
        board.uncover_next(event.time_stamp());
    }

    fn close_popup(&self) {
        self.game.borrow_mut().close_popup();
        self.render();
        self.ui.play.focus().log_failure("focusing the play button");
    }

    pub(super) fn fit_canvas(&self) {
        let Ok(window) = crate::dom::window() else {
            return;
        };
        let rect = self.ui.canvas.get_bounding_client_rect();
        let (w, h) = if rect.width() > 0.0 {
            (rect.width(), rect.height())
        } else {
            // Not laid out (hidden, detached): keep a sensible default.
            (660.0, 340.0)
        };
        self.board
            .borrow_mut()
            .fit(w, h, window.device_pixel_ratio())
            .log_failure("fitting the board to its box");
    }
}
