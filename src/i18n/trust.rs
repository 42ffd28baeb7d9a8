//! The words of trust: refused sales, the operator key, the server's
//! figures checked against the rules.

use super::Lang;
use crate::operator_key::{KeyProblem, KeySource};
use crate::record::{RecordProblem, RecordState, TrustProblem};
use crate::rules_check::Figure;
use crate::verification::Rejection;

impl Lang {
    /// What the player reads of a refused sale or purchase: an equivocation
    /// is named as such, anything else by the check that failed; either way
    /// the balance shown is the server's, read again.
    pub fn rejection(self, rejection: &Rejection) -> String {
        let t = self.texts();
        if let Some(off) = rejection.record {
            let first = self.off_record(off.sale, off.problem);
            return if off.sale {
                first.to_owned()
            } else {
                format!("{first} {}", t.balance_reread)
            };
        }
        let first = if rejection.equivocation {
            t.equivocation.to_owned()
        } else {
            self.verification_failed(rejection.check)
        };
        format!("{first} {}", t.balance_reread)
    }

    /// A record not proved on the public record: a block's commitment
    /// before buying (nothing bought), or a sale before anything of it is
    /// shown (paid, not shown); each failed check says what failed.
    pub fn off_record(self, sale: bool, problem: RecordProblem) -> &'static str {
        use RecordProblem::*;
        match (self, problem, sale) {
            (Lang::Fr, Fork(_), _) => "Le registre public que montre le serveur contredit celui que ce navigateur a déjà vérifié (fourche ou retour en arrière) : il n'est plus cru, aucun achat n'est possible. Signalez-le à l'opérateur du jeu.",
            (Lang::En, Fork(_), _) => "The public record the server shows contradicts the one this browser already verified (a fork or a rollback): it is no longer trusted, no purchase is possible. Please report it to the game operator.",
            (Lang::Fr, _, false) => "L'engagement de ce bloc n'est pas prouvé au registre public, cosigné par les témoins : achat refusé, rien n'a été acheté. Signalez-le à l'opérateur du jeu.",
            (Lang::En, _, false) => "This block's commitment is not proved on the public record cosigned by the witnesses: purchase refused, nothing was bought. Please report it to the game operator.",
            (Lang::Fr, DealtEarly, true) => "Ce ticket a échoué à la vérification « achat inscrit au registre public avant son tirage » : les témoins ne l'ont pas cosigné avant que la balise publie le tirage qui l'a attribué. Il n'est pas affiché. Signalez-le à l'opérateur du jeu.",
            (Lang::En, DealtEarly, true) => "This ticket failed the check \"bought on the public record before its draw\": the witnesses did not cosign its purchase before the beacon published the draw that dealt it. It is not shown. Please report it to the game operator.",
            (Lang::Fr, BadProof, true) => "Ce ticket a échoué à la vérification « inscrit au registre public » : la preuve de sa vente ne mène pas au registre cosigné par les témoins. Il n'est pas affiché. Signalez-le à l'opérateur du jeu.",
            (Lang::En, BadProof, true) => "This ticket failed the check \"on the public record\": the proof of its sale does not lead to the record the witnesses cosigned. It is not shown. Please report it to the game operator.",
            (Lang::Fr, BadCheckpoint, true) => "Ce ticket a échoué à la vérification « inscrit au registre public » : le registre servi n'est pas signé par le serveur et cosigné par les témoins de cette page. Il n'est pas affiché. Signalez-le à l'opérateur du jeu.",
            (Lang::En, BadCheckpoint, true) => "This ticket failed the check \"on the public record\": the record served is not signed by the server and cosigned by this page's witnesses. It is not shown. Please report it to the game operator.",
            (Lang::Fr, Missing, true) => "Ce ticket a échoué à la vérification « inscrit au registre public » : sa vente n'y est pas prouvée dans le délai prévu. Il n'est pas affiché. Signalez-le à l'opérateur du jeu.",
            (Lang::En, Missing, true) => "This ticket failed the check \"on the public record\": its sale was not proved there in time. It is not shown. Please report it to the game operator.",
        }
    }

    /// The « Vérifié » badge of the ticket shown, by where its sale stands
    /// on the public record.
    pub fn verified_label(self, record: RecordState) -> String {
        let t = self.texts();
        match (self, record) {
            (Lang::Fr, RecordState::Pending) => format!(
                "✓ {} — inscription au registre public en attente…",
                t.verified
            ),
            (Lang::En, RecordState::Pending) => {
                format!("✓ {} — awaiting the public record…", t.verified)
            }
            (Lang::Fr, RecordState::OnRecord) => {
                format!("✓ {} — inscrit au registre public", t.verified)
            }
            (Lang::En, RecordState::OnRecord) => format!("✓ {} — on the public record", t.verified),
        }
    }

    /// While a purchase waits for its block's commitment on the record.
    pub fn awaiting_record(self) -> &'static str {
        match self {
            Lang::Fr => "Vérification au registre public…",
            Lang::En => "Checking the public record…",
        }
    }

    /// Why the game stopped before playing: the public record's keys.
    pub fn trust_problem(self, problem: TrustProblem) -> &'static str {
        match (self, problem) {
            (Lang::Fr, TrustProblem::NoPolicy) => "Cette page ne dit pas quels témoins du registre public croire : le jeu est arrêté, aucun ticket ne sera acheté.",
            (Lang::En, TrustProblem::NoPolicy) => "This page does not say which witnesses of the public record to believe: the game is stopped, no ticket will be bought.",
            (Lang::Fr, TrustProblem::LogKey) => "La clé du registre public n'est pas celle de l'opérateur : le jeu est arrêté, aucun ticket ne sera acheté.",
            (Lang::En, TrustProblem::LogKey) => "The public record's key is not the operator's: the game is stopped, no ticket will be bought.",
            (Lang::Fr, TrustProblem::Mismatch) => "Le serveur annonce d'autres témoins du registre public que ceux que cette page attend : le jeu est arrêté, aucun ticket ne sera acheté.",
            (Lang::En, TrustProblem::Mismatch) => "The server announces other witnesses of the public record than those this page expects: the game is stopped, no ticket will be bought.",
            (Lang::Fr, TrustProblem::Witnesses) => "Les clés des témoins du registre public que cette page attend sont illisibles : le jeu est arrêté, aucun ticket ne sera acheté.",
            (Lang::En, TrustProblem::Witnesses) => "The public record's witness keys this page expects are unreadable: the game is stopped, no ticket will be bought.",
        }
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
    fn record_failures_are_named() {
        use crate::record::Fork;
        let text = Lang::Fr.rejection(&Rejection::off_record(false, RecordProblem::Missing));
        assert!(text.contains("registre public"), "{text}");
        assert!(text.contains("rien n'a été acheté"), "{text}");
        let text = Lang::Fr.rejection(&Rejection::off_record(true, RecordProblem::BadProof));
        assert!(text.contains("« inscrit au registre public »"), "{text}");
        let text = Lang::En.rejection(&Rejection::off_record(
            false,
            RecordProblem::Fork(Fork::OtherRoot),
        ));
        assert!(text.contains("fork"), "{text}");
        // A sale's failed checks each say what failed, and each has its own
        // reason (the notice's data-reason).
        let problems = [
            RecordProblem::Missing,
            RecordProblem::BadProof,
            RecordProblem::BadCheckpoint,
            RecordProblem::Fork(Fork::OtherRoot),
            RecordProblem::DealtEarly,
        ];
        for lang in [Lang::Fr, Lang::En] {
            let texts: std::collections::BTreeSet<_> =
                problems.iter().map(|p| lang.off_record(true, *p)).collect();
            assert_eq!(texts.len(), problems.len(), "{lang:?}");
        }
        let reasons: std::collections::BTreeSet<_> = problems
            .iter()
            .map(|p| Rejection::off_record(true, *p).reason)
            .collect();
        assert_eq!(reasons.len(), problems.len());
        assert_eq!(
            Lang::Fr.verified_label(RecordState::OnRecord),
            "✓ Vérifié — inscrit au registre public"
        );
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
