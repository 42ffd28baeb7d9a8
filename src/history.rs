//! What a history row may say of a ticket's result. The server's list is
//! not verified: a row shows a result only once the ticket is revealed and
//! the page has verified its signed sale, and then the verified prize.

use crate::api::HistoryItem;

/// This page's verdict on one sale.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Verified { prize_cents: u64 },
    Refused,
}

/// This page's verdicts by sale id. A plain list: a session verifies a few
/// hundred sales at most, and a map's code would cost the download more
/// than the searches cost the player.
#[derive(Default)]
pub struct Verdicts(Vec<(u64, Verdict)>);

impl Verdicts {
    pub fn insert(&mut self, sale_id: u64, verdict: Verdict) {
        match self.0.iter_mut().find(|(id, _)| *id == sale_id) {
            Some((_, known)) => *known = verdict,
            None => self.0.push((sale_id, verdict)),
        }
    }

    pub fn get(&self, sale_id: &u64) -> Option<&Verdict> {
        self.0
            .iter()
            .find(|(id, _)| id == sale_id)
            .map(|(_, verdict)| verdict)
    }
}

/// The result cell of a history row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowResult {
    /// Not revealed yet: its result stays hidden, as on the board.
    NotRevealed,
    /// Revealed, its signed sale not verified by this page (yet).
    Unverified,
    Won(u64),
    Lost,
    /// Its signed sale failed verification.
    Refused,
}

impl RowResult {
    /// Whether the page must still fetch and verify the row's sale.
    pub fn needs_check(self) -> bool {
        self == RowResult::Unverified
    }
}

pub fn row_result(item: &HistoryItem, verdict: Option<Verdict>) -> RowResult {
    if !item.is_revealed() {
        return RowResult::NotRevealed;
    }
    match verdict {
        None => RowResult::Unverified,
        Some(Verdict::Verified { prize_cents: 0 }) => RowResult::Lost,
        Some(Verdict::Verified { prize_cents }) => RowResult::Won(prize_cents),
        Some(Verdict::Refused) => RowResult::Refused,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::SaleStatus;

    #[test]
    fn a_later_verdict_on_a_sale_replaces_the_earlier_one() {
        let mut verdicts = Verdicts::default();
        verdicts.insert(7, Verdict::Refused);
        verdicts.insert(9, Verdict::Verified { prize_cents: 200 });
        verdicts.insert(7, Verdict::Verified { prize_cents: 0 });
        assert_eq!(
            verdicts.get(&7),
            Some(&Verdict::Verified { prize_cents: 0 })
        );
        assert_eq!(
            verdicts.get(&9),
            Some(&Verdict::Verified { prize_cents: 200 })
        );
        assert_eq!(verdicts.get(&8), None);
    }

    fn item(status: SaleStatus, prize_cents: u64) -> HistoryItem {
        HistoryItem {
            sale_id: 4,
            block: 1,
            position: 3,
            sold_at_ms: 0,
            stake_cents: 100,
            prize_cents,
            extras: 0,
            status,
            revealed: 1,
        }
    }

    #[test]
    fn an_unrevealed_ticket_shows_no_result() {
        let winning = item(SaleStatus::Unrevealed, 70_000);
        let verified = Some(Verdict::Verified {
            prize_cents: 70_000,
        });
        assert_eq!(row_result(&winning, verified), RowResult::NotRevealed);
        assert_eq!(row_result(&winning, None), RowResult::NotRevealed);
    }

    #[test]
    fn a_revealed_ticket_shows_the_verified_prize_only() {
        // The server's list claims 70,000; the verified sale says 200.
        let revealed = item(SaleStatus::Revealed, 70_000);
        assert_eq!(row_result(&revealed, None), RowResult::Unverified);
        assert!(row_result(&revealed, None).needs_check());
        assert_eq!(
            row_result(&revealed, Some(Verdict::Verified { prize_cents: 200 })),
            RowResult::Won(200)
        );
        assert_eq!(
            row_result(&revealed, Some(Verdict::Verified { prize_cents: 0 })),
            RowResult::Lost
        );
        assert_eq!(
            row_result(&revealed, Some(Verdict::Refused)),
            RowResult::Refused
        );
    }
}
