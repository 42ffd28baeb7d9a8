//! The words of trust: refused sales, the operator key, the server's
//! figures checked against the rules.

use super::Lang;
use crate::operator_key::{KeyProblem, KeySource};
use crate::rules_check::Figure;
use crate::verification::Rejection;

impl Lang {
    /// What the player reads of a refused sale or purchase: an equivocation
    /// is named as such, anything else by the check that failed; either way
    /// the balance shown is the server's, read again.
    pub fn rejection(self, rejection: &Rejection) -> String {
        let t = self.texts();
        let first = if rejection.equivocation {
            t.equivocation.to_owned()
        } else {
            self.verification_failed(rejection.check)
        };
        format!("{first} {}", t.balance_reread)
    }

    /// Why the game stopped before playing: the operator key.
    pub fn key_problem(self, problem: KeyProblem) -> &'static str {
        let t = self.texts();
        match problem {
            KeyProblem::Mismatch => t.key_mismatch,
            KeyProblem::Unreadable(_) => t.key_unreadable,
        }
    }

    /// One line on where the verifying key comes from.
    pub fn key_source(self, source: KeySource) -> &'static str {
        let t = self.texts();
        match source {
            KeySource::Build => t.key_sources[0],
            KeySource::Launch => t.key_sources[1],
            KeySource::Server => t.key_sources[2],
        }
    }

    /// The server's published figures that contradict the rules.
    pub fn config_mismatch(self, figures: &[Figure]) -> String {
        let t = self.texts();
        let mut text = String::from(t.config_mismatch);
        text.push(' ');
        for (i, figure) in figures.iter().enumerate() {
            if i > 0 {
                text.push_str(", ");
            }
            text.push_str(match figure {
                Figure::Stakes => t.figures[0],
                Figure::PrizeTable => t.figures[1],
                Figure::Odds => t.figures[2],
                Figure::Rtp => t.figures[3],
                Figure::MaxWin => t.figures[4],
            });
        }
        text.push('.');
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use eldorado_engine::verify::Check;

    #[test]
    fn an_equivocation_is_named_and_the_balance_explained() {
        let text = Lang::Fr.rejection(&Rejection::equivocation(3));
        assert!(text.contains("deux engagements différents"), "{text}");
        assert!(text.contains("relu auprès du serveur"), "{text}");
        let text = Lang::En.rejection(&Rejection::new(Check::Player, "x"));
        assert!(text.contains("failed the check"), "{text}");
        assert!(text.contains("read again from the server"), "{text}");
    }

    #[test]
    fn figures_are_named() {
        let text = Lang::En.config_mismatch(&[Figure::PrizeTable, Figure::Rtp]);
        assert!(text.ends_with("prize table, return to players."), "{text}");
        let head = Lang::En.texts().config_mismatch;
        assert_eq!(text, format!("{head} prize table, return to players."));
        let one = Lang::Fr.config_mismatch(&[Figure::Odds]);
        let t = Lang::Fr.texts();
        assert_eq!(one, format!("{} {}.", t.config_mismatch, t.figures[2]));
    }
}
