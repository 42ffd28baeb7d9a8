//! The « Limites de jeu » panel: the limits in force, used and pending,
//! the form that sets them, the reality check's period and the
//! self-exclusion, each change sent to the server and its answer shown.

use super::{format_date, Guard};
use crate::api::{
    ExclusionRequest, LimitsRequest, NetError, PendingLimit, Protection, RealityCheckRequest,
};
use crate::app::render::net_message;
use crate::app::Inner;
use crate::console::LogFailure;
use crate::dom::{set_attr, set_hidden, set_text};
use crate::i18n::Lang;
use crate::money::format_cents;
use crate::net::Backend;
use crate::protection::{cents_to_input, parse_euros};
use std::rc::Rc;
use wasm_bindgen_futures::spawn_local;

impl Guard {
    /// The panel's figures and form, from the last protection read.
    pub(super) fn fill_panel(&self, lang: Lang) {
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
    pub(super) fn fill_inputs(&self, lang: Lang) {
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

impl Inner {
    pub(super) fn show_panel(this: &Rc<Inner>, open: bool) {
        let ui = &this.guard.ui;
        if !open {
            ui.panel.close();
            Inner::panel_closed(this);
            return;
        }
        if !ui.panel.open() {
            ui.panel
                .show_modal()
                .log_failure("opening the limits dialog");
        }
        set_attr(&ui.limits_open, "aria-expanded", "true");
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

    pub(super) fn save_limits(this: &Rc<Inner>) {
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

    pub(super) fn set_reality_minutes(this: &Rc<Inner>, minutes: u32) {
        Inner::send_protection(
            this,
            move |backend, token| backend.set_reality_check(token, RealityCheckRequest { minutes }),
            this.lang.protection().reality_saved,
        );
    }

    /// The dialog is closed (its button, or Escape): focus returns to what
    /// opened it. Idempotent: closing by the button also fires `close`.
    pub(super) fn panel_closed(this: &Rc<Inner>) {
        let ui = &this.guard.ui;
        // A self-exclusion chosen but not confirmed is dropped with the
        // panel: reopening it never finds one ready to confirm.
        this.guard.exclusion_chosen.set(None);
        set_hidden(&ui.exclusion_confirm, true);
        if ui.limits_open.get_attribute("aria-expanded").as_deref() == Some("true") {
            set_attr(&ui.limits_open, "aria-expanded", "false");
            ui.limits_open
                .focus()
                .log_failure("focusing the limits button");
        }
    }

    /// A self-exclusion chosen: nothing is sent yet; the player reads what
    /// it will do (until when, that it is final) and confirms or cancels.
    pub(super) fn choose_exclusion(this: &Rc<Inner>, days: Option<u32>) {
        let ui = &this.guard.ui;
        this.guard.exclusion_chosen.set(Some(days));
        let until = days.map(|days| {
            let ms = this.guard.now() + u64::from(days) * 86_400_000;
            format_date(this.lang, ms)
        });
        set_text(
            &ui.exclusion_confirm_text,
            &this.lang.exclusion_preview(until.as_deref()),
        );
        set_hidden(&ui.exclusion_confirm, false);
        ui.exclusion_confirm_text
            .focus()
            .log_failure("focusing the exclusion's confirmation");
    }

    /// The exclusion is not wanted after all: focus returns to its choice.
    pub(super) fn cancel_exclusion(this: &Rc<Inner>) {
        let ui = &this.guard.ui;
        set_hidden(&ui.exclusion_confirm, true);
        if let Some(days) = this.guard.exclusion_chosen.take() {
            if let Some((_, button)) = ui.exclusions.iter().find(|(d, _)| *d == days) {
                button.focus().log_failure("focusing the exclusion choice");
            }
        }
    }

    /// The confirmed self-exclusion: sent at once, no way back.
    pub(super) fn exclude(this: &Rc<Inner>, days: Option<u32>) {
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
