//! The play state machine of SPEC §6, free of any DOM, network or clock:
//! the glue feeds it events and carries out the commands it returns.

use crate::api::{NetError, SaleResponse};
use crate::commitments::CommitmentBook;
use crate::verification::{verify, Buyer, Rejection, VerifiedTicket};
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
    InsufficientFunds { stake: u64, balance: u64 },
    Net(NetError),
    Rejected(Rejection),
    ResumeOffer,
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
    Refused { stake: u64, balance: u64 },
    Extras(u8),
    Outcome { prize: u64, balance: u64 },
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
    phase: Phase,
    ticket: Option<VerifiedTicket>,
    /// Grids of the current ticket fully revealed.
    revealed: usize,
    notice: Option<Notice>,
    popup: Option<Popup>,
    resume: Option<SaleResponse>,
    operator: Option<PublicKeyBytes>,
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
            phase: Phase::Loading,
            ticket: None,
            revealed: 0,
            notice: None,
            popup: None,
            resume: None,
            operator: None,
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
        player: Player,
        balance: u64,
        unrevealed: Option<SaleResponse>,
    ) {
        self.operator = Some(operator);
        self.player = Some(player);
        self.balance = balance;
        self.settled_balance = balance;
        self.phase = Phase::Ready;
        if unrevealed.is_some() {
            self.notice = Some(Notice::ResumeOffer);
        }
        self.resume = unrevealed;
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
            Phase::Revealing { grid } => grid,
            Phase::AwaitingExtra { next } => next - 1,
            _ => usize::from(ticket.extras),
        };
        Some(ticket.extras.saturating_sub(started as u8))
    }

    /// « Jouer », « Extra », Space or Enter. `new_purchase` draws a fresh
    /// key and nonce, used only when a new purchase starts.
    pub fn press(&mut self, new_purchase: impl FnOnce() -> Purchase) -> Vec<Command> {
        match self.phase.clone() {
            Phase::Loading | Phase::Buying { .. } => Vec::new(),
            Phase::Ready => {
                self.popup = None;
                if self.stake > self.balance {
                    let (stake, balance) = (self.stake, self.balance);
                    self.notice = Some(Notice::InsufficientFunds { stake, balance });
                    return vec![
                        Command::Announce(Announcement::Refused { stake, balance }),
                        Command::Sound(Cue::Refused),
                    ];
                }
                let purchase = new_purchase();
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
            Phase::BuyFailed { stake, purchase } => {
                self.notice = None;
                self.phase = Phase::Buying {
                    stake,
                    purchase: purchase.clone(),
                };
                vec![Command::Buy { stake, purchase }]
            }
            Phase::Revealing { .. } => vec![Command::FinishReveal],
            Phase::AwaitingExtra { next } => {
                self.popup = None;
                self.phase = Phase::Revealing { grid: next };
                vec![Command::Reveal {
                    grid: next,
                    instant: false,
                }]
            }
        }
    }

    /// The server sold a ticket: nothing of it shows unless it verifies,
    /// its block's commitment included, against `book` as it stood before
    /// the purchase.
    pub fn bought(&mut self, response: SaleResponse, book: &CommitmentBook) -> Vec<Command> {
        let (stake, nonce) = match &self.phase {
            Phase::Buying { stake, purchase } => (*stake, purchase.nonce),
            _ => return Vec::new(),
        };
        let block = response.commitment.commitment.block;
        self.begin_ticket(response, stake, Some(nonce), book.seen(block))
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

    pub fn buy_failed(&mut self, error: NetError) -> Vec<Command> {
        let Phase::Buying { stake, purchase } = self.phase.clone() else {
            return Vec::new();
        };
        let definite = error.is_definite_refusal();
        self.phase = if definite {
            Phase::Ready
        } else {
            Phase::BuyFailed { stake, purchase }
        };
        self.notice = Some(Notice::Net(error.clone()));
        let mut commands = vec![
            Command::Announce(Announcement::Failed(error)),
            Command::Sound(Cue::Refused),
        ];
        // The server's refusal may come from a balance this page has not
        // seen (with a seamless wallet the operator's money moves elsewhere
        // too): show, and tell the portal, the server's figure.
        if definite {
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
        if matches!(self.notice, Some(Notice::ResumeOffer)) {
            self.notice = None;
        }
        let stake = stake_played.unwrap_or(response.sale.sale.ticket.stake_cents);
        let block = response.commitment.commitment.block;
        self.begin_ticket(response, stake, nonce, book.seen_if_known(block))
    }

    fn begin_ticket(
        &mut self,
        response: SaleResponse,
        stake_played: u64,
        nonce: Option<ClientNonce>,
        seen: CommitmentSeen<'_>,
    ) -> Vec<Command> {
        let (Some(operator), Some(player)) = (self.operator, self.player.as_ref()) else {
            return Vec::new();
        };
        let buyer = Buyer {
            stake_cents: stake_played,
            player: &player.id,
            money: player.money,
            client_nonce: nonce,
            commitment_seen: seen,
        };
        match verify(&response, &operator, &buyer) {
            Err(rejection) => {
                // Nothing of a refused sale reaches the screen, its balance
                // figures included (they would give the prize away): the
                // balance is read again from the session instead.
                self.phase = Phase::Ready;
                self.ticket = None;
                self.notice = Some(Notice::Rejected(rejection.clone()));
                vec![
                    Command::Announce(Announcement::Rejected(rejection)),
                    Command::Sound(Cue::Refused),
                    Command::RefreshBalance,
                ]
            }
            Ok(ticket) => {
                // Both figures passed the balance check with the ticket.
                self.settled_balance = response.balance_after_cents;
                self.balance = response
                    .balance_before_cents
                    .saturating_sub(ticket.stake_cents);
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
            self.balance = balance;
            self.settled_balance = balance;
        }
    }
}

#[cfg(test)]
mod tests;
