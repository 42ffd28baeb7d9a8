//! Player protection as the page sees it (issue 12): the limits form's
//! amounts, the self-exclusion in force, the refusals of a sale for a limit
//! or an exclusion. Pure: the glue is `app::protection`.

use crate::api::{ErrorDetail, LimitReached};
use crate::money::Notation;
use crate::text::{decimal, push_decimal};

/// The most a limit may be typed as, in cents (one million euros): beyond
/// is a typing slip, refused before anything is sent.
pub const MAX_LIMIT_CENTS: u64 = 100_000_000;

/// Why a typed amount is not one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BadAmount;

/// A limit typed in euros (`10`, `10,50`, `10.5`, `10 €`): `None` when the
/// field is empty (no limit), else its cents. Integer arithmetic only.
pub fn parse_euros(text: &str) -> Result<Option<u64>, BadAmount> {
    let trimmed = text.trim().trim_end_matches('€').trim();
    if trimmed.is_empty() {
        return Ok(None);
    }
    let (whole, fraction) = match trimmed.bytes().position(|b| b == b',' || b == b'.') {
        Some(i) => (&trimmed[..i], &trimmed[i + 1..]),
        None => (trimmed, ""),
    };
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !digits(whole) || !digits(fraction) || fraction.len() > 2 {
        return Err(BadAmount);
    }
    if whole.len() > 9 {
        return Err(BadAmount);
    }
    // Only ASCII digits are left, at most 9 of them: read without `parse`
    // and its error paths.
    let value = |s: &str| s.bytes().fold(0, |n, b| n * 10 + u64::from(b - b'0'));
    let euros = value(whole);
    let cents = match fraction.len() {
        1 => value(fraction) * 10,
        _ => value(fraction),
    };
    let total = euros * 100 + cents;
    // A limit of nothing is an exclusion, which has its own buttons.
    if total == 0 || total > MAX_LIMIT_CENTS {
        return Err(BadAmount);
    }
    Ok(Some(total))
}

/// A limit as the form shows it for editing: `10` or `10,50` (no sign, no
/// grouping, so it reads back with [`parse_euros`]).
pub fn cents_to_input(cents: Option<u64>, notation: Notation) -> String {
    match cents {
        None => String::new(),
        Some(c) => {
            let mut out = decimal(c / 100);
            if c % 100 != 0 {
                out.push(notation.decimal_mark);
                push_decimal(&mut out, c % 100, 2);
            }
            out
        }
    }
}

/// The self-exclusion in force, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exclusion {
    None,
    Until(u64),
    /// Until the operator lifts it.
    Indefinite,
}

impl Exclusion {
    /// From the server's fields: an end already past is no exclusion.
    pub fn from_fields(until_ms: Option<u64>, indefinitely: bool, now_ms: u64) -> Exclusion {
        match (indefinitely, until_ms) {
            (true, _) => Exclusion::Indefinite,
            (false, Some(until)) if until > now_ms => Exclusion::Until(until),
            _ => Exclusion::None,
        }
    }

    /// Whether it still bars play at `now_ms`.
    pub fn active(self, now_ms: u64) -> bool {
        match self {
            Exclusion::None => false,
            Exclusion::Until(until) => until > now_ms,
            Exclusion::Indefinite => true,
        }
    }
}

/// A sale refused by player protection, with what the player must read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// `stake_cents`: the stake refused, once the purchase names it.
    Limit {
        limit: LimitReached,
        stake_cents: Option<u64>,
    },
    Excluded(Exclusion),
}

impl Refusal {
    /// From the server's error: `None` for any other error, or one of these
    /// codes without its details (then only the code's sentence shows).
    pub fn from_detail(detail: &ErrorDetail) -> Option<Refusal> {
        match detail.code.as_str() {
            "LIMIT_REACHED" => detail.limit.map(|limit| Refusal::Limit {
                limit,
                stake_cents: None,
            }),
            "SELF_EXCLUDED" => match (detail.excluded_indefinitely, detail.excluded_until_ms) {
                (Some(true), _) => Some(Refusal::Excluded(Exclusion::Indefinite)),
                (_, Some(until)) => Some(Refusal::Excluded(Exclusion::Until(until))),
                _ => None,
            },
            _ => None,
        }
    }

    /// The refusal of a purchase of `stake_cents`.
    pub fn for_stake(self, stake_cents: u64) -> Refusal {
        match self {
            Refusal::Limit { limit, .. } => Refusal::Limit {
                limit,
                stake_cents: Some(stake_cents),
            },
            excluded => excluded,
        }
    }

    /// When a refused stake may be played again: `None` when it never
    /// can (it is above the limit itself) or for an exclusion.
    pub fn stake_frees_at_ms(&self) -> Option<u64> {
        match self {
            Refusal::Limit { limit, stake_cents } => {
                let fits = stake_cents.is_none_or(|stake| stake <= limit.limit_cents);
                fits.then_some(limit.frees_at_ms)
            }
            Refusal::Excluded(_) => None,
        }
    }
}

/// The self-exclusion periods offered, in days (`None`: until the operator
/// lifts it), in the order of the panel's buttons.
pub const EXCLUSION_CHOICES: [Option<u32>; 4] = [Some(1), Some(7), Some(30), None];

/// The three official risk warnings take turns: one per page load, then
/// the next with each ticket bought.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WarningRotation(pub u32);

impl WarningRotation {
    pub fn index(self) -> usize {
        (self.0 % 3) as usize
    }

    pub fn next(self) -> WarningRotation {
        WarningRotation((self.0 % 3 + 1) % 3)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn euros_typed_become_cents() {
        assert_eq!(parse_euros(""), Ok(None));
        assert_eq!(parse_euros("   "), Ok(None));
        assert_eq!(parse_euros("10"), Ok(Some(1000)));
        assert_eq!(parse_euros("10,5"), Ok(Some(1050)));
        assert_eq!(parse_euros("10.50"), Ok(Some(1050)));
        assert_eq!(parse_euros(" 0,05 € "), Ok(Some(5)));
        assert_eq!(parse_euros("1000000"), Ok(Some(MAX_LIMIT_CENTS)));
    }

    #[test]
    fn anything_else_is_refused() {
        for bad in [
            "-5",
            "10,505",
            "abc",
            "1e3",
            ",50",
            "1 000",
            "1000000,01",
            "9999999999999",
            "10,5,0",
            "+3",
            "10 euros",
        ] {
            assert_eq!(parse_euros(bad), Err(BadAmount), "{bad}");
        }
        // A trailing mark with no decimals is still a whole amount.
        assert_eq!(parse_euros("10,"), Ok(Some(1000)));
    }

    #[test]
    fn limits_shown_for_editing_read_back() {
        for notation in [Notation::FRENCH, Notation::ENGLISH] {
            for cents in [None, Some(1000), Some(1050), Some(5)] {
                let text = cents_to_input(cents, notation);
                assert_eq!(parse_euros(&text), Ok(cents), "{text}");
            }
        }
        assert_eq!(cents_to_input(Some(1050), Notation::FRENCH), "10,50");
        assert_eq!(cents_to_input(Some(1050), Notation::ENGLISH), "10.50");
    }

    #[test]
    fn exclusion_from_the_servers_fields() {
        assert_eq!(Exclusion::from_fields(None, false, 10), Exclusion::None);
        assert_eq!(Exclusion::from_fields(Some(5), false, 10), Exclusion::None);
        assert_eq!(
            Exclusion::from_fields(Some(50), false, 10),
            Exclusion::Until(50)
        );
        assert_eq!(
            Exclusion::from_fields(None, true, 10),
            Exclusion::Indefinite
        );
        assert!(Exclusion::Until(50).active(49));
        assert!(!Exclusion::Until(50).active(50));
        assert!(Exclusion::Indefinite.active(u64::MAX));
        assert!(!Exclusion::None.active(0));
    }

    #[test]
    fn refusals_read_from_the_servers_error() {
        let body: crate::api::ErrorBody = serde_json::from_str(
            r#"{"error": {"code": "LIMIT_REACHED", "message": "limit",
                "limit": {"kind": "weekly_stake", "limit_cents": 1000,
                          "used_cents": 950, "frees_at_ms": 1767225600000}}}"#,
        )
        .unwrap();
        let limit = LimitReached {
            kind: crate::api::LimitKind::WeeklyStake,
            limit_cents: 1000,
            used_cents: 950,
            frees_at_ms: 1_767_225_600_000,
        };
        let refusal = Refusal::from_detail(&body.error).unwrap();
        assert_eq!(
            refusal,
            Refusal::Limit {
                limit,
                stake_cents: None
            }
        );
        assert_eq!(refusal.stake_frees_at_ms(), Some(1_767_225_600_000));
        assert_eq!(
            refusal.for_stake(200).stake_frees_at_ms(),
            Some(1_767_225_600_000)
        );
        // A stake above the limit itself never fits.
        assert_eq!(refusal.for_stake(1001).stake_frees_at_ms(), None);
        let body: crate::api::ErrorBody = serde_json::from_str(
            r#"{"error": {"code": "SELF_EXCLUDED", "message": "x", "excluded_until_ms": 99}}"#,
        )
        .unwrap();
        assert_eq!(
            Refusal::from_detail(&body.error),
            Some(Refusal::Excluded(Exclusion::Until(99)))
        );
        let body: crate::api::ErrorBody = serde_json::from_str(
            r#"{"error": {"code": "SELF_EXCLUDED", "message": "x", "excluded_indefinitely": true}}"#,
        )
        .unwrap();
        assert_eq!(
            Refusal::from_detail(&body.error),
            Some(Refusal::Excluded(Exclusion::Indefinite))
        );
        // Without details, or another code: not a protection refusal.
        let body: crate::api::ErrorBody =
            serde_json::from_str(r#"{"error": {"code": "LIMIT_REACHED", "message": "x"}}"#)
                .unwrap();
        assert_eq!(Refusal::from_detail(&body.error), None);
        let body: crate::api::ErrorBody =
            serde_json::from_str(r#"{"error": {"code": "SOLD_OUT", "message": "x"}}"#).unwrap();
        assert_eq!(Refusal::from_detail(&body.error), None);
    }

    #[test]
    fn warnings_take_turns() {
        let first = WarningRotation(7);
        assert_eq!(first.index(), 1);
        assert_eq!(first.next().index(), 2);
        assert_eq!(first.next().next().index(), 0);
        assert_eq!(WarningRotation(u32::MAX).next().index(), 1);
    }
}
