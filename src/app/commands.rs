//! Carrying out the state machine's commands (buying, revealing, reporting,
//! announcing, sounding) and driving the reveal animation frame by frame.

use super::render::net_message;
use super::Inner;
use crate::api::{BuyRequest, NetError, PageMessage, SaleResponse};
use crate::console::LogFailure;
use crate::dom::{load_pref, save_pref};
use crate::game::{Announcement, Command, Phase, Purchase};
use crate::history::Verdict;
use crate::net::Backend;
use crate::record::RecordProblem;
use crate::ui::fill_checks;
use crate::verification::Rejection;
use eldorado_engine::ClientNonce;
use rand::rngs::OsRng;
use rand::TryRngCore;
use std::collections::VecDeque;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::spawn_local;

const PENDING_STAKE_KEY: &str = "eldorado.pending_stake";
/// The nonce of the purchase in flight, so a ticket finished after a
/// reload is still checked against the purchase this browser made.
const PENDING_NONCE_KEY: &str = "eldorado.pending_nonce";

/// The stake and nonce of the purchase this browser made last, if kept.
fn pending_purchase() -> (Option<u64>, Option<ClientNonce>) {
    let stake = load_pref(PENDING_STAKE_KEY).and_then(|s| crate::text::parse_decimal(&s));
    let nonce = load_pref(PENDING_NONCE_KEY).and_then(|n| ClientNonce::from_hex(&n).ok());
    (stake, nonce)
}

/// What a portal hears of a sale's round.
#[derive(Clone, Copy)]
struct RoundFigures {
    sale_id: u64,
    stake_cents: u64,
    prize_cents: u64,
}

impl RoundFigures {
    fn of(response: &SaleResponse) -> RoundFigures {
        let sale = &response.sale.sale;
        RoundFigures {
            sale_id: sale.sale_id,
            stake_cents: sale.ticket.stake_cents,
            prize_cents: sale.ticket.prize_cents,
        }
    }
}

/// What a purchase brought back: the sale, proved on the public record;
/// a sale the record does not prove (paid, never shown); or why there is
/// none.
enum Outcome {
    Sold(Box<SaleResponse>),
    Unproved(Box<SaleResponse>, RecordProblem),
    Failed(NetError),
    Refused(Rejection),
}

impl Inner {
    pub(super) fn press(this: &Rc<Inner>) {
        let new_ticket = this.game.borrow().phase() == &Phase::Ready;
        if new_ticket && !this.may_start_ticket() {
            this.render();
            this.focus_reality_check();
            return;
        }
        this.sound.borrow_mut().unlock();
        let commands = this.game.borrow_mut().press(new_purchase);
        Inner::run(this, commands);
    }

    /// Resumes the interrupted ticket once its deal can be checked and its
    /// sale is proved on the public record: nothing of it is shown before.
    pub(super) fn resume(this: &Rc<Inner>) {
        let dealt = this
            .game
            .borrow()
            .resume_offer()
            .is_some_and(|offer| offer.deal.is_some());
        if dealt && !crate::beacon_check::is_ready() {
            // Its deal is checked with the beacon's check, which may still
            // be on its way; a failed download leaves the offer, to try again.
            let weak = Rc::downgrade(this);
            spawn_local(async move {
                let loaded = crate::beacon_check::ready()
                    .await
                    .log_failure("loading the beacon's check");
                if let (Some(()), Some(inner)) = (loaded, weak.upgrade()) {
                    Inner::resume(&inner);
                }
            });
            return;
        }
        let offered = this.game.borrow().resume_offer().cloned();
        let (stake, nonce) = pending_purchase();
        let (Some(response), Some(token)) = (offered, this.token.borrow().clone()) else {
            return Inner::resume_proved(this, stake, nonce);
        };
        let passes = this
            .game
            .borrow()
            .check_resume(stake, nonce, &this.book.borrow());
        if !passes {
            // Refused for its own check, with nothing to prove.
            return Inner::resume_proved(this, stake, nonce);
        }
        let backend = this.backend.clone();
        let weak = Rc::downgrade(this);
        spawn_local(async move {
            let proved = Inner::prove_sold(&weak, backend.as_ref(), &token, &response).await;
            if let Some(inner) = weak.upgrade() {
                match proved {
                    Ok(()) => Inner::resume_proved(&inner, stake, nonce),
                    Err(problem) => {
                        let rejection = Rejection::off_record(true, problem);
                        let commands = inner.game.borrow_mut().resume_refused(rejection);
                        Inner::run(&inner, commands);
                    }
                }
            }
        });
    }

    fn resume_proved(this: &Rc<Inner>, stake: Option<u64>, nonce: Option<ClientNonce>) {
        let commands = {
            let book = this.book.borrow();
            this.game.borrow_mut().resume(stake, nonce, &book)
        };
        this.note_verdict();
        this.note_on_record();
        Inner::run(this, commands);
    }

    /// The ticket shown was proved on the public record before it was.
    fn note_on_record(&self) {
        if self.record_trust.borrow().is_none() {
            return;
        }
        let shown = self.game.borrow().ticket().map(|t| t.sale_id);
        if let Some(sale_id) = shown {
            self.game.borrow_mut().record_checked(sale_id);
        }
    }

    /// Records the current ticket as verified, for the history.
    fn note_verdict(&self) {
        if let Some(ticket) = self.game.borrow().ticket() {
            self.verdicts.borrow_mut().insert(
                ticket.sale_id,
                Verdict::Verified {
                    prize_cents: ticket.prize_cents,
                },
            );
        }
    }

    /// Carries out commands, and those that follow from them, then redraws
    /// the controls once.
    pub(super) fn run(this: &Rc<Inner>, commands: Vec<Command>) {
        let mut queue: VecDeque<Command> = commands.into();
        while let Some(command) = queue.pop_front() {
            queue.extend(Inner::execute(this, command));
        }
        this.render();
    }

    fn execute(this: &Rc<Inner>, command: Command) -> Vec<Command> {
        match command {
            Command::Buy { stake, purchase } => {
                save_pref(PENDING_STAKE_KEY, Some(&crate::text::decimal(stake)));
                save_pref(PENDING_NONCE_KEY, Some(&purchase.nonce.to_hex()));
                this.describe_board(None);
                this.board
                    .borrow_mut()
                    .hide()
                    .log_failure("hiding the board");
                let Some(token) = this.token.borrow().clone() else {
                    return this.game.borrow_mut().buy_failed(NetError::Network);
                };
                let request = BuyRequest {
                    stake_cents: stake,
                    idempotency_key: purchase.key,
                    client_nonce: Some(purchase.nonce),
                };
                let backend = this.backend.clone();
                let weak = Rc::downgrade(this);
                spawn_local(async move {
                    let outcome = Inner::buy(&weak, backend.as_ref(), &token, request).await;
                    if let Some(inner) = weak.upgrade() {
                        let sold = matches!(outcome, Outcome::Sold(_));
                        if let Outcome::Failed(error) = &outcome {
                            Inner::guard_refused(&inner, error);
                        }
                        let commands = match outcome {
                            Outcome::Sold(response) => inner.bought(*response),
                            Outcome::Unproved(response, problem) => {
                                inner.unproved(&response, problem)
                            }
                            Outcome::Failed(error) => inner.game.borrow_mut().buy_failed(error),
                            Outcome::Refused(rejection) => {
                                inner.game.borrow_mut().refuse_purchase(rejection)
                            }
                        };
                        inner.note_verdict();
                        if sold {
                            inner.guard_ticket_bought();
                            inner.note_on_record();
                        }
                        Inner::run(&inner, commands);
                        if inner.game.borrow().ticket().is_none()
                            && inner.game.borrow().phase() == &Phase::Ready
                        {
                            forget_pending();
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
                    fill_checks(&this.ui.badge_list, this.lang, &ticket.checks)
                        .log_failure("listing the ticket's checks");
                    match (ticket.grids.get(grid), ticket.marks.get(grid)) {
                        (Some(g), Some(m)) => (*g, *m),
                        _ => return Vec::new(),
                    }
                };
                if instant {
                    this.board
                        .borrow_mut()
                        .show(cells, marks)
                        .log_failure("drawing the grid");
                    return this.game.borrow_mut().reveal_done(grid);
                }
                this.board
                    .borrow_mut()
                    .start_reveal(cells, marks, this.reveal_timing())
                    .log_failure("starting the reveal");
                this.request_frame();
                Vec::new()
            }
            Command::FinishReveal => {
                let finished = this
                    .board
                    .borrow_mut()
                    .finish()
                    .log_failure("finishing the reveal")
                    .unwrap_or(false);
                let revealing = match this.game.borrow().phase() {
                    &Phase::Revealing { grid } => Some(grid),
                    _ => None,
                };
                match (finished, revealing) {
                    (true, Some(grid)) => this.reveal_finished(grid),
                    _ => Vec::new(),
                }
            }
            Command::ReportRevealed { sale_id, revealed } => {
                if let Some(token) = this.token.borrow().clone() {
                    let reply = this.backend.reveal(&token, sale_id, revealed);
                    // The server settles the ticket at sale; this report only
                    // drives the resume offer, so a lost one costs nothing.
                    spawn_local(async move {
                        reply.await.log_failure("reporting the revealed grids");
                    });
                }
                let done = {
                    let game = this.game.borrow();
                    game.phase() == &Phase::Ready
                };
                if done {
                    forget_pending();
                }
                Vec::new()
            }
            Command::Announce(announcement) => {
                this.post_announcement(&announcement);
                let mut text = this.announcement_text(&announcement);
                // The outcome first, then the symbols that made it.
                if let Some(symbols) = this.live_symbols.take() {
                    text.push(' ');
                    text.push_str(&symbols);
                }
                // Cleared first, so the same sentence twice is spoken twice.
                this.ui.live.set_text_content(None);
                this.ui.live.set_text_content(Some(&text));
                Vec::new()
            }
            Command::Sound(cue) => {
                this.sound.borrow_mut().play(cue);
                Vec::new()
            }
            Command::RefreshBalance => {
                Inner::refresh_balance(this);
                Vec::new()
            }
            Command::RetryPurchase { after_ms } => {
                let weak = Rc::downgrade(this);
                spawn_local(async move {
                    super::record::sleep(i32::try_from(after_ms).unwrap_or(i32::MAX)).await;
                    if let Some(inner) = weak.upgrade() {
                        let commands = inner.game.borrow_mut().retry_purchase();
                        Inner::run(&inner, commands);
                    }
                });
                Vec::new()
            }
        }
    }

    /// Loads the announced commitments, refuses to buy on an equivocation
    /// or on a commitment not proved on the public record, then buys. The book is read for the sale's block only after the sale
    /// arrives, and the sale itself adds nothing to it: only what
    /// `/api/blocks` announced before the purchase counts as seen.
    async fn buy(
        weak: &std::rc::Weak<Inner>,
        backend: &dyn Backend,
        token: &str,
        request: BuyRequest,
    ) -> Outcome {
        let listed = match backend.blocks().await {
            Ok(list) => list,
            Err(error) => return Outcome::Failed(error),
        };
        let Some(inner) = weak.upgrade() else {
            return Outcome::Failed(NetError::Network);
        };
        if let Err(equivocation) = inner.remember_blocks(&listed) {
            return Outcome::Refused(Rejection::equivocation(equivocation.block));
        }
        drop(inner);
        let stake = request.stake_cents;
        if let Err(rejection) = Inner::prove_blocks(weak, backend, &listed, stake).await {
            return Outcome::Refused(rejection);
        }
        match backend.buy(token, request).await {
            Ok(response) => {
                let Some(inner) = weak.upgrade() else {
                    return Outcome::Failed(NetError::Network);
                };
                let passes = inner
                    .game
                    .borrow()
                    .check_sale(&response, &inner.book.borrow());
                if !passes {
                    // Refused for its own check when handed to the game.
                    return Outcome::Sold(Box::new(response));
                }
                // Said while the record is awaited (the next answer replaces it).
                if inner.game.borrow_mut().awaiting_record() {
                    inner.render();
                }
                drop(inner);
                match Inner::prove_sold(weak, backend, token, &response).await {
                    Ok(()) => Outcome::Sold(Box::new(response)),
                    Err(problem) => Outcome::Unproved(Box::new(response), problem),
                }
            }
            Err(NetError::Protection(refusal)) => {
                Outcome::Failed(NetError::Protection(refusal.for_stake(stake)))
            }
            Err(error) => Outcome::Failed(error),
        }
    }

    /// A sale the public record does not prove: refused before anything of
    /// it is shown; the portal still hears of it (the server took the
    /// stake), as a round that ended unverified.
    fn unproved(&self, response: &SaleResponse, problem: RecordProblem) -> Vec<Command> {
        let commands = self
            .game
            .borrow_mut()
            .refuse_purchase(Rejection::off_record(true, problem));
        if !commands.is_empty() {
            self.post_round(RoundFigures::of(response), false);
        }
        commands
    }

    /// Tells a framing portal that the sale's round started and, when the
    /// sale was refused (`shown` false), that it ended unverified with the
    /// prize the sale claims.
    fn post_round(&self, round: RoundFigures, shown: bool) {
        self.post(PageMessage::RoundStarted {
            sale_id: round.sale_id,
            stake_cents: round.stake_cents,
        });
        if !shown {
            self.post(PageMessage::RoundEnded {
                sale_id: round.sale_id,
                prize_cents: round.prize_cents,
                verified: false,
            });
        }
    }

    /// A sale arrived: verified, it starts a round; refused by the checks,
    /// the portal still hears of it (the server took the stake), as a round
    /// that ended unverified with the prize the sale claims.
    fn bought(&self, response: SaleResponse) -> Vec<Command> {
        let round = RoundFigures::of(&response);
        let on_record = self.proved.borrow().contains(&response.commitment);
        let commands = {
            let book = self.book.borrow();
            self.game.borrow_mut().bought(response, &book, on_record)
        };
        if commands.is_empty() {
            // Not the answer to the purchase in flight.
            return commands;
        }
        let verified = self
            .game
            .borrow()
            .ticket()
            .is_some_and(|t| t.sale_id == round.sale_id);
        self.post_round(round, verified);
        commands
    }

    /// What the portal hears of an announcement to the player.
    fn post_announcement(&self, announcement: &Announcement) {
        match announcement {
            Announcement::Refused { .. } => self.post(PageMessage::InsufficientFunds),
            Announcement::Failed(error) => self.post_failure(error),
            Announcement::Outcome { prize, .. } => {
                let sale_id = self.game.borrow().ticket().map(|t| t.sale_id);
                if let Some(sale_id) = sale_id {
                    self.post(PageMessage::RoundEnded {
                        sale_id,
                        prize_cents: *prize,
                        verified: true,
                    });
                }
            }
            Announcement::Rejected(rejection) if rejection.equivocation => {
                self.post(PageMessage::Error {
                    code: "EQUIVOCATION".to_owned(),
                })
            }
            Announcement::Rejected(_)
            | Announcement::Extras(_)
            | Announcement::ExtraGrid { .. } => {}
        }
    }

    /// Reads the session again (after a refusal, when the page is shown
    /// again, while idle): the balance shown is the server's, and a press
    /// waiting for it is decided against it.
    pub(super) fn refresh_balance(this: &Rc<Inner>) {
        let Some(token) = this.token.borrow().clone() else {
            return;
        };
        let reply = this.backend.session(&token);
        let mark = this.game.borrow().refresh_mark();
        let weak = Rc::downgrade(this);
        spawn_local(async move {
            let session = reply.await.log_failure("reading the session again");
            let Some(inner) = weak.upgrade() else {
                return;
            };
            let commands = match session {
                Some(session) => {
                    inner.guard_session(session.protection);
                    inner.game.borrow_mut().session_refreshed(
                        mark,
                        session.balance_cents,
                        session.unrevealed,
                        new_purchase,
                    )
                }
                None => inner.game.borrow_mut().refresh_failed(new_purchase),
            };
            Inner::run(&inner, commands);
        });
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
        if let Some(text) = &description {
            // The board's name carries the grid, for whoever asks for it
            // (focusing the board); the live region says it too, after the
            // outcome or Extras announced, so that nobody has to go to the
            // board to hear the symbols. An Extra grid that ends nothing is
            // read out alone, cell by cell.
            self.describe_board(Some(text));
            if commands.iter().any(|c| matches!(c, Command::Announce(_))) {
                self.live_symbols.replace(Some(text.clone()));
            } else {
                self.ui.live.set_text_content(Some(text));
            }
        }
        commands
    }

    /// The board's accessible name: « Grille de jeu », then the symbols of
    /// the grid revealed last (`None` while the next ticket is covered).
    fn describe_board(&self, grid: Option<&str>) {
        let label = self.lang.texts().grid_label;
        let name = match grid {
            Some(grid) => format!("{label}. {grid}"),
            None => label.to_owned(),
        };
        crate::dom::set_attr(&self.ui.board_box, "aria-label", &name);
    }

    /// One step of « Dernier gain » counting up (after the reveal: the
    /// reveal's own frames stay free of text work).
    fn count_up(&self, now: f64) {
        let Some((start, cents)) = self.counting.get() else {
            return;
        };
        if self.board.borrow().is_revealing() {
            self.counting.set(None);
            return;
        }
        let start = start.unwrap_or(now);
        let shown = crate::count_up::shown(cents, now - start);
        crate::dom::set_text(
            &self.ui.last_win,
            &crate::money::format_cents(shown, self.lang.money_notation()),
        );
        if shown == cents {
            self.counting.set(None);
        } else {
            self.counting.set(Some((Some(start), cents)));
            self.request_frame();
        }
    }

    pub(super) fn request_frame(&self) {
        if self.frame_id.get().is_some() {
            return;
        }
        let (Ok(window), Some(frame)) = (
            crate::dom::window(),
            self.frame.borrow().as_ref().map(|f| f.as_ref().clone()),
        ) else {
            return;
        };
        if let Some(id) = window
            .request_animation_frame(frame.unchecked_ref())
            .log_failure("requesting an animation frame")
        {
            self.frame_id.set(Some(id));
        }
    }

    pub(super) fn on_frame(this: &Rc<Inner>, now: f64) {
        this.frame_id.set(None);
        let ended = this
            .board
            .borrow_mut()
            .frame(now)
            .log_failure("drawing a reveal frame")
            .unwrap_or(true);
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
        this.count_up(now);
    }

    fn announcement_text(&self, announcement: &Announcement) -> String {
        let lang = self.lang;
        match announcement {
            Announcement::Refused { stake, balance } => lang.insufficient_funds(*stake, *balance),
            Announcement::Extras(n) => format!("{}.", lang.you_get_extras(*n)),
            Announcement::ExtraGrid { grid, of, cents } => {
                let name = lang.extra_grid_name(*grid, *of);
                format!("{}.", lang.grid_result(&name, *cents))
            }
            Announcement::Outcome { prize, balance } => lang.outcome_announcement(*prize, *balance),
            Announcement::Rejected(rejection) => lang.rejection(rejection),
            Announcement::Failed(error) => net_message(lang, error),
        }
    }
}

/// A new purchase: an idempotency key of 128 random bits as 32 hex
/// characters (within the contract's `[A-Za-z0-9_-]{8,64}`, unguessable)
/// and an independent 128-bit random nonce.
pub fn new_purchase() -> Purchase {
    let key = random_128();
    Purchase {
        // The nonce's 16-byte hex writer, already in the page, for the
        // key's 16 bytes: no formatter per byte.
        key: ClientNonce(key).to_hex(),
        nonce: ClientNonce(random_128()),
    }
}

/// The purchase in flight is over: nothing is left to resume.
fn forget_pending() {
    save_pref(PENDING_STAKE_KEY, None);
    save_pref(PENDING_NONCE_KEY, None);
}

fn random_128() -> [u8; 16] {
    let mut bytes = [0u8; 16];
    if OsRng.try_fill_bytes(&mut bytes).is_err() {
        // No CSPRNG: the time still keeps values distinct per player.
        let now = js_sys::Date::now() as u64;
        bytes[..8].copy_from_slice(&now.to_be_bytes());
        bytes[8..].copy_from_slice(&(js_sys::Math::random().to_bits()).to_be_bytes());
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::new_purchase;

    #[test]
    fn purchase_key_is_128_bits_in_lowercase_hex() {
        let (a, b) = (new_purchase(), new_purchase());
        for key in [&a.key, &b.key] {
            assert_eq!(key.len(), 32);
            assert!(key.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')));
        }
        assert_ne!(a.key, b.key);
    }
}
