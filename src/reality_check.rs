//! The reality check of player protection: every N minutes of play the
//! game pauses before the next ticket (never during one) and shows what
//! this session cost; « Continuer » starts a new period, « Arrêter de
//! jouer » ends play for the session for good.
//!
//! Pure: no DOM, no clock. The glue passes the time (in ms) and says
//! whether a ticket is in progress; everything else is decided here, so the
//! timing is tested natively.

/// The periods a player may choose, in minutes.
pub const CHOICES: [u32; 3] = [15, 30, 60];

/// The period when the session does not say (the server's default).
pub const DEFAULT_MINUTES: u32 = 60;

const MINUTE_MS: u64 = 60_000;

/// What the session has cost so far: shown by the reality check.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Time since the session started.
    pub played_ms: u64,
    /// Tickets bought in this session.
    pub tickets: u32,
    pub stakes_cents: u64,
    pub prizes_cents: u64,
}

impl Summary {
    /// Prizes minus stakes: negative when the session lost money.
    pub fn net_cents(&self) -> i64 {
        let prizes = i64::try_from(self.prizes_cents).unwrap_or(i64::MAX);
        let stakes = i64::try_from(self.stakes_cents).unwrap_or(i64::MAX);
        prizes.saturating_sub(stakes)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// Tickets may be bought.
    Playing,
    /// The check is on screen, with the figures as they were when it came.
    Paused(Summary),
    /// The player chose « Arrêter de jouer »: no more tickets in this session.
    Stopped(Summary),
}

#[derive(Clone, Debug)]
pub struct RealityCheck {
    started_ms: u64,
    /// When the current period began: the session's start or the last
    /// « Continuer ».
    period_start_ms: u64,
    minutes: u32,
    state: State,
    tickets: u32,
    stakes_cents: u64,
    prizes_cents: u64,
}

impl RealityCheck {
    /// A session that starts at `now_ms`, checked every `minutes` (a value
    /// outside [`CHOICES`] falls back to [`DEFAULT_MINUTES`]).
    pub fn new(now_ms: u64, minutes: u32) -> RealityCheck {
        RealityCheck {
            started_ms: now_ms,
            period_start_ms: now_ms,
            minutes: valid_minutes(minutes),
            state: State::Playing,
            tickets: 0,
            stakes_cents: 0,
            prizes_cents: 0,
        }
    }

    pub fn minutes(&self) -> u32 {
        self.minutes
    }

    pub fn state(&self) -> State {
        self.state
    }

    /// The new period counts from the start of the current one: a shorter
    /// period already over pauses at the next moment between tickets.
    pub fn set_minutes(&mut self, minutes: u32) {
        self.minutes = valid_minutes(minutes);
    }

    /// The session clock: time since the session started.
    pub fn played_ms(&self, now_ms: u64) -> u64 {
        now_ms.saturating_sub(self.started_ms)
    }

    /// When the next check is due (while playing).
    pub fn due_at_ms(&self) -> u64 {
        self.period_start_ms
            .saturating_add(u64::from(self.minutes) * MINUTE_MS)
    }

    pub fn summary(&self, now_ms: u64) -> Summary {
        Summary {
            played_ms: self.played_ms(now_ms),
            tickets: self.tickets,
            stakes_cents: self.stakes_cents,
            prizes_cents: self.prizes_cents,
        }
    }

    /// Time passes. `in_ticket`: a ticket is being bought or revealed, which
    /// is never interrupted; the check then waits for its end. Returns
    /// whether the check came now.
    pub fn tick(&mut self, now_ms: u64, in_ticket: bool) -> bool {
        if in_ticket || self.state != State::Playing || now_ms < self.due_at_ms() {
            return false;
        }
        self.state = State::Paused(self.summary(now_ms));
        true
    }

    /// The player asks for a new ticket: whether it may be bought. A check
    /// that is due comes first, instead of the ticket.
    pub fn may_buy(&mut self, now_ms: u64) -> bool {
        self.tick(now_ms, false);
        self.state == State::Playing
    }

    /// A ticket bought (and verified) in this session.
    pub fn record_ticket(&mut self, stake_cents: u64, prize_cents: u64) {
        self.tickets = self.tickets.saturating_add(1);
        self.stakes_cents = self.stakes_cents.saturating_add(stake_cents);
        self.prizes_cents = self.prizes_cents.saturating_add(prize_cents);
    }

    /// « Continuer »: a new period of N minutes starts now.
    pub fn resume(&mut self, now_ms: u64) {
        if matches!(self.state, State::Paused(_)) {
            self.state = State::Playing;
            self.period_start_ms = now_ms;
        }
    }

    /// « Arrêter de jouer »: final for this session.
    pub fn stop(&mut self, now_ms: u64) {
        let summary = match self.state {
            State::Paused(summary) | State::Stopped(summary) => summary,
            State::Playing => self.summary(now_ms),
        };
        self.state = State::Stopped(summary);
    }
}

fn valid_minutes(minutes: u32) -> u32 {
    if CHOICES.contains(&minutes) {
        minutes
    } else {
        DEFAULT_MINUTES
    }
}

/// The session clock as `h:mm:ss`.
pub fn format_played(ms: u64) -> String {
    let seconds = ms / 1000;
    let mut out = crate::text::around("", seconds / 3600, ":");
    crate::text::push_decimal(&mut out, (seconds / 60) % 60, 2);
    out.push(':');
    crate::text::push_decimal(&mut out, seconds % 60, 2);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: u64 = 1_767_225_600_000;
    const MIN: u64 = 60_000;

    #[test]
    fn no_check_before_n_minutes_of_play() {
        let mut check = RealityCheck::new(START, 15);
        assert!(!check.tick(START + 15 * MIN - 1, false));
        assert!(check.may_buy(START + 15 * MIN - 1));
        assert_eq!(check.state(), State::Playing);
    }

    #[test]
    fn the_check_comes_at_n_minutes_with_the_session_figures() {
        let mut check = RealityCheck::new(START, 30);
        check.record_ticket(100, 0);
        check.record_ticket(200, 1_000);
        check.record_ticket(50, 0);
        assert!(check.tick(START + 30 * MIN, false));
        let State::Paused(summary) = check.state() else {
            panic!("paused expected, got {:?}", check.state());
        };
        assert_eq!(
            summary,
            Summary {
                played_ms: 30 * MIN,
                tickets: 3,
                stakes_cents: 350,
                prizes_cents: 1_000,
            }
        );
        assert_eq!(summary.net_cents(), 650);
        assert!(
            !check.may_buy(START + 30 * MIN + 1),
            "no ticket while paused"
        );
        assert!(!check.tick(START + 31 * MIN, false), "comes only once");
    }

    #[test]
    fn never_during_a_ticket_only_before_the_next() {
        let mut check = RealityCheck::new(START, 15);
        // Due while a ticket is revealing: it waits.
        assert!(!check.tick(START + 16 * MIN, true));
        assert!(!check.tick(START + 17 * MIN, true));
        assert_eq!(check.state(), State::Playing);
        // The ticket ends: the check comes before anything else.
        assert!(check.tick(START + 17 * MIN + 5, false));
        assert!(matches!(check.state(), State::Paused(s) if s.played_ms == 17 * MIN + 5));
    }

    #[test]
    fn a_due_check_comes_instead_of_the_next_ticket() {
        let mut check = RealityCheck::new(START, 60);
        assert!(check.may_buy(START + 59 * MIN));
        // No tick in between (a sleeping timer): pressing « Jouer » is enough.
        assert!(!check.may_buy(START + 60 * MIN));
        assert!(matches!(check.state(), State::Paused(_)));
    }

    #[test]
    fn continuer_starts_a_new_period_of_n_minutes() {
        let mut check = RealityCheck::new(START, 15);
        assert!(check.tick(START + 20 * MIN, false));
        check.resume(START + 22 * MIN);
        assert_eq!(check.state(), State::Playing);
        assert!(check.may_buy(START + 22 * MIN));
        assert!(!check.tick(START + 37 * MIN - 1, false));
        assert!(check.tick(START + 37 * MIN, false));
        // The session clock and figures are the session's, not the period's.
        assert!(matches!(check.state(), State::Paused(s) if s.played_ms == 37 * MIN));
    }

    #[test]
    fn stop_is_final() {
        let mut check = RealityCheck::new(START, 15);
        check.record_ticket(100, 200);
        assert!(check.tick(START + 15 * MIN, false));
        check.stop(START + 16 * MIN);
        let State::Stopped(summary) = check.state() else {
            panic!("stopped expected");
        };
        assert_eq!(summary.played_ms, 15 * MIN, "the figures shown stay");
        check.resume(START + 17 * MIN);
        assert!(matches!(check.state(), State::Stopped(_)), "no way back");
        assert!(!check.may_buy(START + 18 * MIN));
        assert!(!check.tick(START + 90 * MIN, false));
        check.set_minutes(60);
        assert!(!check.may_buy(START + 200 * MIN));
    }

    #[test]
    fn the_period_can_change_between_checks() {
        let mut check = RealityCheck::new(START, 60);
        check.set_minutes(15);
        assert_eq!(check.minutes(), 15);
        assert!(check.tick(START + 15 * MIN, false));
        check.resume(START + 15 * MIN);
        check.set_minutes(30);
        assert!(!check.tick(START + 44 * MIN, false));
        assert!(check.tick(START + 45 * MIN, false));
        // Anything but 15, 30 or 60 is the default.
        check.set_minutes(7);
        assert_eq!(check.minutes(), DEFAULT_MINUTES);
        assert_eq!(RealityCheck::new(START, 0).minutes(), DEFAULT_MINUTES);
    }

    #[test]
    fn a_losing_session_has_a_negative_net() {
        let summary = Summary {
            played_ms: 0,
            tickets: 2,
            stakes_cents: 300,
            prizes_cents: 100,
        };
        assert_eq!(summary.net_cents(), -200);
    }

    #[test]
    fn clock_format() {
        assert_eq!(format_played(0), "0:00:00");
        assert_eq!(format_played(65_999), "0:01:05");
        assert_eq!(format_played(3_600_000 + 2 * MIN + 3_000), "1:02:03");
        assert_eq!(
            format_played(123 * 3_600_000 + 59 * MIN + 59_999),
            "123:59:59"
        );
    }
}
