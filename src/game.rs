//! The play state machine of SPEC §6, free of any DOM, network or clock:
//! the glue feeds it events and carries out the commands it returns.

use crate::api::{NetError, SaleResponse};
use crate::commitments::CommitmentBook;
use crate::record::{RecordProblem, RecordState};
use crate::verification::{verify, Buyer, Rejection, VerifiedTicket};
use eldorado_engine::deal::BEACON_KEY_LEN;
use eldorado_engine::verify::CommitmentSeen;
use eldorado_engine::{ClientNonce, Money, PublicKeyBytes};

/// Who plays: the session's player id and kind of money, which every sale
/// shown must match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Player {
    pub id: String,
    pub money: Money,
}

/// What identifies one purchase: the idempotency key (a retry resends it,
/// so the server never sells twice) and the random nonce the sale must
/// carry back (so an old or foreign sale cannot answer this purchase).
/// Drawn together and kept together, so a retry resends both.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Purchase {
    pub key: String,
    pub nonce: ClientNonce,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Configuration or session not known yet.
    Loading,
    /// Waiting for « Jouer ».
    Ready,
    /// A purchase request is in flight under this key and nonce.
    Buying { stake: u64, purchase: Purchase },
    /// The purchase got no definite answer: a retry must reuse key and nonce.
    BuyFailed { stake: u64, purchase: Purchase },
    /// Grid `grid` (0 = main) is being revealed.
    Revealing { grid: usize },
    /// Extra grid `next` is waiting for the « Extra » button.
    AwaitingExtra { next: usize },
}

/// The message line under the controls.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    InsufficientFunds {
        stake: u64,
        balance: u64,
    },
    Net(NetError),
    Rejected(Rejection),
    ResumeOffer,
    /// The purchase waits for its block's commitment to be proved on the
    /// public record.
    AwaitingRecord,
    /// Bought and paid, the ticket waits for the public draw that deals it
    /// (`DEAL_PENDING`): asked again by itself (`asked`: the new request is
    /// out), nothing to retry by hand.
    AwaitingDraw {
        asked: bool,
    },
}

/// A window over the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Popup {
    Win(u64),
    Extras(u8),
}

/// What the main button does and says now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Button {
    Play,
    Extra,
    RevealAll,
    Buying,
    Retry,
    Disabled,
}

/// Side effects for the glue.
/// How long the page waits before asking again for a ticket whose draw
/// is pending (the server's `Retry-After`).
pub const DRAW_RETRY_MS: u32 = 1_000;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Load the announced commitments, then buy.
    Buy {
        stake: u64,
        purchase: Purchase,
    },
    /// Read the balance again from the server (after a refused sale, whose
    /// own balance figures are not to be believed).
    RefreshBalance,
    /// The ticket is bought and waits for its draw (`DEAL_PENDING`): ask
    /// again, with the same key, after `after_ms` (`Game::retry_purchase`).
    RetryPurchase {
        after_ms: u32,
    },
    /// Start revealing grid `grid` of the current ticket (instantly for a
    /// grid the player had already seen before an interruption).
    Reveal {
        grid: usize,
        instant: bool,
    },
    /// Finish the running reveal at once.
    FinishReveal,
    ReportRevealed {
        sale_id: u64,
        revealed: u32,
    },
    Announce(Announcement),
    Sound(Cue),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Announcement {
    Refused {
        stake: u64,
        balance: u64,
    },
    Extras(u8),
    /// Extra grid `grid` of `of` is shown, another waits: what it won.
    ExtraGrid {
        grid: usize,
        of: u8,
        cents: u64,
    },
    Outcome {
        prize: u64,
        balance: u64,
    },
    Rejected(Rejection),
    Failed(NetError),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cue {
    Refused,
    Extra,
    Win,
    Lose,
}

#[derive(Clone, Debug)]
pub struct Game {
    stakes: Vec<u64>,
    stake: u64,
    /// What "Disponibilités" shows: the stake is taken at once, the prize
    /// only once the reveal ends.
    balance: u64,
    /// The verified balance after the current ticket, shown at its end.
    settled_balance: u64,
    /// The prize of the interrupted ticket offered at load: the server
    /// credited it with the stake, so every balance it reports includes it,
    /// yet it may show only once that ticket's reveal ends (SPEC §6).
    withheld: u64,
    /// A press found the balance short: it waits for the session read
    /// again, then plays or refuses against that fresh figure.
    press_pending: bool,
    /// Tickets started on this page: a session read that began before the
    /// latest one may carry a balance older than the sale's, and is dropped.
    tickets_started: u64,
    phase: Phase,
    ticket: Option<VerifiedTicket>,
    /// Grids of the current ticket fully revealed.
    revealed: usize,
    notice: Option<Notice>,
    popup: Option<Popup>,
    resume: Option<SaleResponse>,
    operator: Option<PublicKeyBytes>,
    /// The beacon every sale must have been dealt by, if the server deals so.
    beacon: Option<[u8; BEACON_KEY_LEN]>,
    player: Option<Player>,
}

impl Game {
    pub fn new(stakes: Vec<u64>) -> Game {
        let stake = if stakes.contains(&100) {
            100
        } else {
            stakes.first().copied().unwrap_or(100)
        };
        Game {
            stakes,
            stake,
            balance: 0,
            settled_balance: 0,
            withheld: 0,
            press_pending: false,
            tickets_started: 0,
            phase: Phase::Loading,
            ticket: None,
            revealed: 0,
            notice: None,
            popup: None,
            resume: None,
            operator: None,
            beacon: None,
            player: None,
        }
    }

    pub fn stakes(&self) -> &[u64] {
        &self.stakes
    }
    pub fn stake(&self) -> u64 {
        self.stake
    }
    pub fn balance(&self) -> u64 {
        self.balance
    }
    /// The balance shown: while a purchase is under way, the one verified
    /// last less its stake (the page's own figure, nothing from the
    /// server's answer), so that the ticket is visibly paid.
    pub fn shown_balance(&self) -> u64 {
        match &self.phase {
            Phase::Buying { stake, .. } => self.balance.saturating_sub(*stake),
            _ => self.balance,
        }
    }
    pub fn phase(&self) -> &Phase {
        &self.phase
    }
    pub fn ticket(&self) -> Option<&VerifiedTicket> {
        self.ticket.as_ref()
    }
    pub fn revealed(&self) -> usize {
        self.revealed
    }
    pub fn notice(&self) -> Option<&Notice> {
        self.notice.as_ref()
    }
    pub fn popup(&self) -> Option<Popup> {
        self.popup
    }
    pub fn has_resume(&self) -> bool {
        self.resume.is_some()
    }

    /// The session is known: the game becomes playable.
    pub fn start(
        &mut self,
        operator: PublicKeyBytes,
        beacon: Option<[u8; BEACON_KEY_LEN]>,
        player: Player,
        balance: u64,
        unrevealed: Option<SaleResponse>,
    ) {
        self.operator = Some(operator);
        self.beacon = beacon;
        self.player = Some(player);
        self.phase = Phase::Ready;
        if unrevealed.is_some() {
            self.notice = Some(Notice::ResumeOffer);
        }
        self.offer(unrevealed);
        self.show_server_balance(balance);
    }

    /// Offers `unrevealed` to finish (or nothing), holding its prize back.
    fn offer(&mut self, unrevealed: Option<SaleResponse>) {
        self.withheld = unrevealed.as_ref().map_or(0, |r| self.prize_of(r));
        self.resume = unrevealed;
    }

    /// The prize of an unrevealed sale, from its verified ticket. One that
    /// does not verify (it will be refused when resumed) still has its
    /// claimed prize held back: the server's balance includes whatever it
    /// credited, and nothing may hint at it before a reveal.
    fn prize_of(&self, response: &SaleResponse) -> u64 {
        let claimed = response.sale.sale.ticket.prize_cents;
        let (Some(operator), Some(player)) = (self.operator, self.player.as_ref()) else {
            return claimed;
        };
        let buyer = Buyer {
            stake_cents: response.sale.sale.ticket.stake_cents,
            player: &player.id,
            money: player.money,
            client_nonce: None,
            commitment_seen: CommitmentSeen::NotChecked,
            beacon: self.beacon.as_ref(),
        };
        verify(response, &operator, &buyer).map_or(claimed, |ticket| ticket.prize_cents)
    }

    /// The server's balance, less any prize held back, shown now and kept
    /// as the figure to show after the next ticket.
    fn show_server_balance(&mut self, balance: u64) {
        self.settled_balance = balance.saturating_sub(self.withheld);
        self.balance = self.settled_balance;
    }

    /// The stake can change only between tickets, and not while a purchase
    /// awaits its retry (the retry must buy the same stake).
    pub fn choose_stake(&mut self, stake: u64) -> bool {
        if self.phase != Phase::Ready || !self.stakes.contains(&stake) {
            return false;
        }
        self.stake = stake;
        if matches!(self.notice, Some(Notice::InsufficientFunds { .. })) {
            self.notice = None;
        }
        true
    }

    pub fn stake_locked(&self) -> bool {
        self.phase != Phase::Ready
    }

    pub fn button(&self) -> Button {
        match &self.phase {
            Phase::Loading => Button::Disabled,
            Phase::Ready => Button::Play,
            Phase::Buying { .. } => Button::Buying,
            Phase::BuyFailed { .. } => Button::Retry,
            Phase::Revealing { .. } => Button::RevealAll,
            Phase::AwaitingExtra { .. } => Button::Extra,
        }
    }

    /// Extras of the current ticket not yet started, when it has any.
    pub fn extras_left(&self) -> Option<u8> {
        let ticket = self.ticket.as_ref().filter(|t| t.extras > 0)?;
        let started = match self.phase {
            // Nothing tells of Extras before the main grid shows them.
            Phase::Revealing { grid: 0 } => return None,
            Phase::Revealing { grid } => grid,
            Phase::AwaitingExtra { next } => next - 1,
            _ => usize::from(ticket.extras),
        };
        Some(ticket.extras.saturating_sub(started as u8))
    }

    /// « Jouer », « Extra », Space or Enter. `new_purchase` draws a fresh
    /// key and nonce, used only when a new purchase starts.
    pub fn press(&mut self, new_purchase: impl FnOnce() -> Purchase) -> Vec<Command> {
        // Matched by reference: cloning the phase (and its purchase) costs
        // a Clone of the whole enum in the module (issue 13).
        match &self.phase {
            Phase::Loading | Phase::Buying { .. } => Vec::new(),
            Phase::Ready => {
                self.popup = None;
                if self.stake > self.balance {
                    // The figure shown may be stale (money credited since,
                    // or spent in another tab): read it again, then decide.
                    self.press_pending = true;
                    return vec![Command::RefreshBalance];
                }
                self.start_purchase(new_purchase())
            }
            Phase::BuyFailed { .. } => self.retry_purchase(),
            Phase::Revealing { .. } => vec![Command::FinishReveal],
            &Phase::AwaitingExtra { next } => {
                self.popup = None;
                self.phase = Phase::Revealing { grid: next };
                vec![Command::Reveal {
                    grid: next,
                    instant: false,
                }]
            }
        }
    }

    fn start_purchase(&mut self, purchase: Purchase) -> Vec<Command> {
        self.press_pending = false;
        self.tickets_started += 1;
        self.notice = None;
        self.ticket = None;
        self.revealed = 0;
        self.phase = Phase::Buying {
            stake: self.stake,
            purchase: purchase.clone(),
        };
        vec![Command::Buy {
            stake: self.stake,
            purchase,
        }]
    }

    /// The stake is above the balance, read fresh from the server.
    fn refuse_funds(&mut self) -> Vec<Command> {
        self.press_pending = false;
        let (stake, balance) = (self.stake, self.balance);
        self.notice = Some(Notice::InsufficientFunds { stake, balance });
        vec![
            Command::Announce(Announcement::Refused { stake, balance }),
            Command::Sound(Cue::Refused),
        ]
    }

    /// The server sold a ticket: nothing of it shows unless it verifies,
    /// its block's commitment included, against `book` as it stood before
    /// the purchase, and unless that commitment was proved on the public
    /// record before the purchase (`on_record`).
    pub fn bought(
        &mut self,
        response: SaleResponse,
        book: &CommitmentBook,
        on_record: bool,
    ) -> Vec<Command> {
        let (stake, nonce) = match &self.phase {
            Phase::Buying { stake, purchase } => (*stake, purchase.nonce),
            _ => return Vec::new(),
        };
        let block = response.commitment.commitment.block;
        let commands = self.begin_ticket(response, stake, Some(nonce), book.seen(block));
        if on_record || self.ticket.is_none() {
            return commands;
        }
        self.ticket = None;
        self.refuse(Rejection::off_record(false, RecordProblem::Missing))
    }

    /// The purchase waits for the public record: said on screen while it
    /// lasts (the next answer replaces it).
    pub fn awaiting_record(&mut self) -> bool {
        if !matches!(self.phase, Phase::Buying { .. }) {
            return false;
        }
        self.notice = Some(Notice::AwaitingRecord);
        true
    }

    /// The current ticket's sale is on the public record: it was proved
    /// there before anything of it was shown.
    pub fn record_checked(&mut self, sale_id: u64) {
        if let Some(ticket) = self.ticket.as_mut().filter(|t| t.sale_id == sale_id) {
            ticket.record = RecordState::OnRecord;
        }
    }

    /// The interrupted ticket offered at load is not proved on the public
    /// record: refused, nothing of it shown, the balance read again.
    pub fn resume_refused(&mut self, rejection: Rejection) -> Vec<Command> {
        if self.phase != Phase::Ready || self.resume.take().is_none() {
            return Vec::new();
        }
        self.notice = Some(Notice::Rejected(rejection.clone()));
        vec![
            Command::Announce(Announcement::Rejected(rejection)),
            Command::Sound(Cue::Refused),
            Command::RefreshBalance,
        ]
    }

    /// The interrupted ticket offered at load, if any.
    pub fn resume_offer(&self) -> Option<&SaleResponse> {
        self.resume.as_ref()
    }

    /// The purchase is refused before it is sent (the server announced two
    /// commitments for one block): nothing was bought. The balance is still
    /// read again, so every refusal means the same on screen.
    pub fn refuse_purchase(&mut self, rejection: Rejection) -> Vec<Command> {
        if !matches!(self.phase, Phase::Buying { .. }) {
            return Vec::new();
        }
        self.phase = Phase::Ready;
        self.notice = Some(Notice::Rejected(rejection.clone()));
        vec![
            Command::Announce(Announcement::Rejected(rejection)),
            Command::Sound(Cue::Refused),
            Command::RefreshBalance,
        ]
    }

    /// The failed purchase asked again, with its key and nonce; nothing
    /// unless one failed (the player may have retried already).
    pub fn retry_purchase(&mut self) -> Vec<Command> {
        let (Phase::BuyFailed { stake, purchase } | Phase::Buying { stake, purchase }) =
            &self.phase
        else {
            return Vec::new();
        };
        // A purchase under way is asked again once per answer that its
        // draw is awaited; the notice stays until the ticket comes.
        if matches!(self.phase, Phase::Buying { .. }) {
            let Some(Notice::AwaitingDraw { asked }) = &mut self.notice else {
                return Vec::new();
            };
            if std::mem::replace(asked, true) {
                return Vec::new();
            }
            return vec![Command::Buy {
                stake: *stake,
                purchase: purchase.clone(),
            }];
        }
        let (stake, purchase) = (*stake, purchase.clone());
        self.notice = None;
        self.phase = Phase::Buying {
            stake,
            purchase: purchase.clone(),
        };
        vec![Command::Buy { stake, purchase }]
    }

    pub fn buy_failed(&mut self, error: NetError) -> Vec<Command> {
        if !matches!(self.phase, Phase::Buying { .. }) {
            return Vec::new();
        }
        // Bought and paid: the draw comes with the beacon's next rounds. The
        // purchase stays under way, calmly, and is asked again by itself.
        if matches!(&error, NetError::Api { code, .. } if code == "DEAL_PENDING") {
            self.notice = Some(Notice::AwaitingDraw { asked: false });
            return vec![Command::RetryPurchase {
                after_ms: DRAW_RETRY_MS,
            }];
        }
        // Moved out rather than cloned: the phase is replaced anyway.
        let Phase::Buying { stake, purchase } = std::mem::replace(&mut self.phase, Phase::Ready)
        else {
            return Vec::new();
        };
        if !error.is_definite_refusal() {
            self.phase = Phase::BuyFailed { stake, purchase };
        }
        let funds = matches!(&error, NetError::Api { code, .. } if code == "INSUFFICIENT_FUNDS");
        self.notice = Some(Notice::Net(error.clone()));
        let mut commands = vec![
            Command::Announce(Announcement::Failed(error)),
            Command::Sound(Cue::Refused),
        ];
        if funds {
            // The server knows better than the figure shown: show its own.
            commands.push(Command::RefreshBalance);
        }
        commands
    }

    /// Finishes the interrupted ticket offered at load. `stake_played` and
    /// `nonce` are what this browser remembers sending, if it does; its
    /// block is checked against `book` when the block is in it.
    pub fn resume(
        &mut self,
        stake_played: Option<u64>,
        nonce: Option<ClientNonce>,
        book: &CommitmentBook,
    ) -> Vec<Command> {
        if self.phase != Phase::Ready {
            return Vec::new();
        }
        let Some(response) = self.resume.take() else {
            return Vec::new();
        };
        // From here the ticket's own reveal holds its prize back.
        let withheld = std::mem::take(&mut self.withheld);
        self.tickets_started += 1;
        if matches!(self.notice, Some(Notice::ResumeOffer)) {
            self.notice = None;
        }
        let stake = stake_played.unwrap_or(response.sale.sale.ticket.stake_cents);
        let block = response.commitment.commitment.block;
        let server_balance = self.settled_balance + withheld;
        let commands = self.begin_ticket(response, stake, nonce, book.seen_if_known(block));
        if let Some(ticket) = &self.ticket {
            // The session's balance is newer than the sale's figures (money
            // may have moved since): the prize alone is held back.
            self.settled_balance = server_balance;
            self.balance = server_balance.saturating_sub(ticket.prize_cents);
        }
        commands
    }

    /// Whether the sale answering the purchase in flight passes every
    /// check of the page but the public record's (nothing changes): the
    /// record is asked to prove only a sale that could be shown, and a
    /// sale that fails here is refused for its own check.
    pub fn check_sale(&self, response: &SaleResponse, book: &CommitmentBook) -> bool {
        let Phase::Buying { stake, purchase } = &self.phase else {
            return false;
        };
        let block = response.commitment.commitment.block;
        let seen = book.seen(block);
        matches!(
            self.verify_sale(response, *stake, Some(purchase.nonce), seen),
            Some(Ok(_))
        )
    }

    /// The same for the interrupted ticket offered at load, as
    /// [`Game::resume`] would verify it.
    pub fn check_resume(
        &self,
        stake_played: Option<u64>,
        nonce: Option<ClientNonce>,
        book: &CommitmentBook,
    ) -> bool {
        let Some(response) = self.resume.as_ref() else {
            return false;
        };
        let stake = stake_played.unwrap_or(response.sale.sale.ticket.stake_cents);
        let seen = book.seen_if_known(response.commitment.commitment.block);
        matches!(self.verify_sale(response, stake, nonce, seen), Some(Ok(_)))
    }

    fn verify_sale(
        &self,
        response: &SaleResponse,
        stake_played: u64,
        nonce: Option<ClientNonce>,
        seen: CommitmentSeen<'_>,
    ) -> Option<Result<crate::verification::VerifiedTicket, Rejection>> {
        let (Some(operator), Some(player)) = (self.operator, self.player.as_ref()) else {
            return None;
        };
        let buyer = Buyer {
            stake_cents: stake_played,
            player: &player.id,
            money: player.money,
            client_nonce: nonce,
            commitment_seen: seen,
            beacon: self.beacon.as_ref(),
        };
        Some(verify(response, &operator, &buyer))
    }

    fn begin_ticket(
        &mut self,
        response: SaleResponse,
        stake_played: u64,
        nonce: Option<ClientNonce>,
        seen: CommitmentSeen<'_>,
    ) -> Vec<Command> {
        let Some(verified) = self.verify_sale(&response, stake_played, nonce, seen) else {
            return Vec::new();
        };
        match verified {
            Err(rejection) => self.refuse(rejection),
            Ok(ticket) => {
                // Both figures passed the balance check with the ticket; a
                // prize still held back stays so.
                self.settled_balance = response.balance_after_cents.saturating_sub(self.withheld);
                self.balance = response
                    .balance_before_cents
                    .saturating_sub(ticket.stake_cents)
                    .saturating_sub(self.withheld);
                let already = (response.revealed as usize).min(ticket.grids.len());
                self.ticket = Some(ticket);
                self.notice = None;
                // An interrupted ticket resumes on the last grid the player saw.
                let (grid, instant) = match already {
                    0 => (0, false),
                    n => (n - 1, true),
                };
                self.revealed = grid;
                self.phase = Phase::Revealing { grid };
                vec![Command::Reveal { grid, instant }]
            }
        }
    }

    /// Nothing of a refused sale reaches the screen, its balance figures
    /// included (they would give the prize away): the balance is read again
    /// from the session instead.
    fn refuse(&mut self, rejection: Rejection) -> Vec<Command> {
        self.phase = Phase::Ready;
        self.ticket = None;
        self.notice = Some(Notice::Rejected(rejection.clone()));
        vec![
            Command::Announce(Announcement::Rejected(rejection)),
            Command::Sound(Cue::Refused),
            Command::RefreshBalance,
        ]
    }

    /// The animation of grid `grid` has ended.
    pub fn reveal_done(&mut self, grid: usize) -> Vec<Command> {
        if self.phase != (Phase::Revealing { grid }) {
            return Vec::new();
        }
        let Some(ticket) = self.ticket.as_ref() else {
            return Vec::new();
        };
        self.revealed = grid + 1;
        let mut commands = vec![Command::ReportRevealed {
            sale_id: ticket.sale_id,
            revealed: self.revealed as u32,
        }];
        let extras = usize::from(ticket.extras);
        if grid < extras {
            self.phase = Phase::AwaitingExtra { next: grid + 1 };
            if grid == 0 {
                self.popup = Some(Popup::Extras(ticket.extras));
                commands.push(Command::Announce(Announcement::Extras(ticket.extras)));
                commands.push(Command::Sound(Cue::Extra));
            } else {
                commands.push(Command::Announce(Announcement::ExtraGrid {
                    grid,
                    of: ticket.extras,
                    cents: ticket.grid_win(grid),
                }));
            }
            return commands;
        }
        let prize = ticket.prize_cents;
        self.balance = self.settled_balance;
        self.phase = Phase::Ready;
        if prize > 0 {
            self.popup = Some(Popup::Win(prize));
        }
        commands.push(Command::Announce(Announcement::Outcome {
            prize,
            balance: self.balance,
        }));
        commands.push(Command::Sound(if prize > 0 { Cue::Win } else { Cue::Lose }));
        commands
    }

    pub fn close_popup(&mut self) {
        self.popup = None;
    }

    /// The server's balance changed outside a ticket (session refresh).
    pub fn set_balance(&mut self, balance: u64) {
        if self.phase == Phase::Ready {
            self.show_server_balance(balance);
        }
    }

    /// What a session read started now passes to [`Game::session_refreshed`].
    pub fn refresh_mark(&self) -> u64 {
        self.tickets_started
    }

    /// The session read again (page shown again, idle, after a refusal):
    /// its balance and interrupted ticket, applied between tickets only, and
    /// only if no ticket started since the read began (`mark`). A press
    /// that found the balance short is decided now, against it.
    pub fn session_refreshed(
        &mut self,
        mark: u64,
        balance: u64,
        unrevealed: Option<SaleResponse>,
        new_purchase: impl FnOnce() -> Purchase,
    ) -> Vec<Command> {
        if self.phase != Phase::Ready || mark != self.tickets_started {
            self.press_pending = false;
            return Vec::new();
        }
        // The ticket just played may not be marked revealed yet on the
        // server: it is over here, never offered again.
        let just_played = self.ticket.as_ref().map(|t| t.sale_id);
        let unrevealed = unrevealed.filter(|r| Some(r.sale_id()) != just_played);
        if unrevealed.is_none() && matches!(self.notice, Some(Notice::ResumeOffer)) {
            self.notice = None;
        }
        self.offer(unrevealed);
        self.show_server_balance(balance);
        if !self.press_pending {
            return Vec::new();
        }
        if self.stake > self.balance {
            self.refuse_funds()
        } else {
            self.start_purchase(new_purchase())
        }
    }

    /// The session could not be read again: a press waiting for it is
    /// left to the server, which refuses a stake above the balance itself.
    pub fn refresh_failed(&mut self, new_purchase: impl FnOnce() -> Purchase) -> Vec<Command> {
        if self.phase != Phase::Ready || !std::mem::take(&mut self.press_pending) {
            return Vec::new();
        }
        self.start_purchase(new_purchase())
    }
}

#[cfg(test)]
mod tests;
