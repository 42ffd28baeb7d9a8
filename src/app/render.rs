//! Bringing every control in line with the game state, and the wording of
//! network failures.

use super::Inner;
use crate::api::NetError;
use crate::console::LogFailure;
use crate::dom::{set_attr, set_hidden, set_text};
use crate::game::{Button, Notice, Phase, Popup};
use crate::i18n::Lang;
use crate::money::format_cents;
use crate::record::RecordState;
use eldorado_engine::prize_table::rank_of_multiple;

impl Inner {
    /// Brings every control in line with the game state.
    pub(super) fn render(&self) {
        if self.closed.get() {
            return;
        }
        let game = self.game.borrow();
        let lang = self.lang;
        let t = lang.texts();
        let ui = &self.ui;
        if game.phase() != &Phase::Loading {
            set_text(
                &ui.balance,
                &format_cents(game.shown_balance(), lang.money_notation()),
            );
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
                set_text(&ui.extra_count, &crate::text::decimal(left.into()));
                set_attr(&ui.extra_zone, "aria-label", &lang.extras_left(left));
            }
            None => set_hidden(&ui.extra_zone, true),
        }
        let caption = match (game.ticket(), game.phase()) {
            // Nothing tells of Extras before the main grid shows them.
            (_, Phase::Revealing { grid: 0 }) => String::new(),
            (Some(ticket), phase) if ticket.extras > 0 => {
                let (grid, revealed) = match phase {
                    Phase::Revealing { grid } => (*grid, false),
                    _ => (game.revealed().saturating_sub(1), true),
                };
                if grid == 0 {
                    t.main_grid.to_owned()
                } else {
                    // Once shown, each Extra grid says what it won, nothing
                    // included.
                    let name = lang.extra_grid_name(grid, ticket.extras);
                    if revealed {
                        lang.grid_result(&name, ticket.grid_win(grid))
                    } else {
                        name
                    }
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
                Notice::Rejected(rejection) => lang.rejection(rejection),
                Notice::ResumeOffer => t.resume_offer.to_owned(),
                Notice::AwaitingRecord => lang.awaiting_record().to_owned(),
                Notice::AwaitingDraw { .. } => t.err_deal_pending.to_owned(),
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
                    Some(Notice::Net(NetError::Protection(_))) => "protection",
                    Some(Notice::Net(_)) => "network",
                    Some(Notice::AwaitingRecord) => "record",
                    Some(Notice::AwaitingDraw { .. }) => "draw",
                    _ => "",
                },
            );
            // Which check's words the player reads; why it failed is for
            // whoever reports it (the operator's support, the tests).
            set_attr(
                &ui.notice,
                "data-reason",
                match game.notice() {
                    Some(Notice::Rejected(rejection)) => &rejection.reason,
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
        if let Some(ticket) = game.ticket() {
            set_text(&ui.badge_label, &lang.verified_label(ticket.record));
            set_attr(
                &ui.badge,
                "data-record",
                match ticket.record {
                    RecordState::Pending => "pending",
                    RecordState::OnRecord => "on-record",
                },
            );
        }

        let popup = game.popup();
        let was_hidden = ui.popup.hidden();
        // The window opens only when the reveal has shown the prize: the
        // field follows it, never ahead of the board.
        if let Some(Popup::Win(cents)) = popup {
            // Counted up when the window opens, unless motion is reduced.
            if was_hidden && self.timing.get() != crate::reveal::Timing::REDUCED {
                self.counting.set(Some((None, cents)));
                self.request_frame();
            }
            self.last_win.set(Some(cents));
        }
        if self.counting.get().is_none() {
            set_text(
                &ui.last_win,
                &self.last_win.get().map_or_else(
                    || "–".to_owned(),
                    |c| format_cents(c, lang.money_notation()),
                ),
            );
        }
        // The celebration grows with the prize's rank: a glow, a golden
        // pulse (ranks 6 and 7), gold coins over the board (4 and 5), the
        // whole screen (the top three).
        // Losing tickets end quietly.
        let stake = game.ticket().map_or(0, |t| t.stake_cents);
        set_attr(
            &ui.board_box,
            "data-celebrate",
            match popup {
                Some(Popup::Win(cents)) => celebration(cents, stake),
                _ => "",
            },
        );
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
            ui.popup_ok
                .focus()
                .log_failure("focusing the popup's OK button");
        }

        set_attr(
            &ui.turbo,
            "aria-pressed",
            if self.turbo.get() { "true" } else { "false" },
        );
        let muted = self.sound.borrow().muted();
        set_text(&ui.mute_text, if muted { t.sound_off } else { t.sound_on });
        set_attr(
            &ui.mute,
            "aria-pressed",
            if muted { "true" } else { "false" },
        );
        self.render_guard(&game);
        drop(game);
        self.post_balance(false);
    }
}

/// How a win of `cents` on a ticket of `stake` is celebrated, by its rank
/// in the prize table.
fn celebration(cents: u64, stake: u64) -> &'static str {
    let rank = (stake > 0 && cents % stake == 0)
        .then(|| rank_of_multiple(cents / stake))
        .flatten()
        .map(|r| r.rank);
    match rank {
        Some(1..=3) => "top",
        Some(4..=5) => "big",
        Some(6..=7) => "medium",
        _ => "small",
    }
}

pub(super) fn net_message(lang: Lang, error: &NetError) -> String {
    let t = lang.texts();
    match error {
        NetError::Timeout => t.err_timeout.to_owned(),
        NetError::Network => t.err_network.to_owned(),
        NetError::Decode => t.err_response.to_owned(),
        NetError::Api { code, .. } => lang.api_error(code).to_owned(),
        NetError::Protection(refusal) => super::protection::refusal_text(lang, refusal),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sale (or any request) refused because the server ended the session
    /// for newer ones tells the player so, not that the session expired.
    #[test]
    fn a_session_ended_for_newer_ones_is_told_plainly() {
        let ended = NetError::Api {
            status: 401,
            code: "TOO_MANY_SESSIONS".into(),
        };
        let expired = NetError::Api {
            status: 401,
            code: "UNAUTHORIZED".into(),
        };
        assert_eq!(
            net_message(Lang::Fr, &ended),
            "Cette session a été fermée : trop de sessions ouvertes pour ce joueur ; \
             la plus ancienne est fermée en premier. Rouvrez le jeu pour rejouer."
        );
        assert!(net_message(Lang::En, &ended).starts_with("This session was closed"));
        assert_eq!(
            net_message(Lang::Fr, &expired),
            "Votre session a expiré. Rechargez la page."
        );
    }
}
