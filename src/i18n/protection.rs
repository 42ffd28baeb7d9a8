//! The words of player protection: the mandatory notices, the « Limites de
//! jeu » panel, self-exclusion, the reality check and the refusals of a sale
//! for a limit or an exclusion. Dates arrive already written in the
//! player's language (the glue formats them with the browser's clock).

use super::Lang;
use crate::money::format_cents;
use eldorado_api::LimitKind;

pub struct ProtectionTexts {
    /// The visible badge next to the title.
    pub adults_badge: &'static str,
    pub adults_only: &'static str,
    /// The three official risk warnings, in their order of rotation.
    pub risk_warnings: [&'static str; 3],
    pub fixed_at_purchase: &'static str,
    pub play_money_session: &'static str,
    pub clock_label: &'static str,
    pub limits_button: &'static str,
    pub limits_title: &'static str,
    pub limits_intro: &'static str,
    pub stake_limit: &'static str,
    pub loss_limit: &'static str,
    pub no_limit: &'static str,
    pub in_force: &'static str,
    pub stake_used: &'static str,
    pub loss_used: &'static str,
    pub new_stake_limit: &'static str,
    pub new_loss_limit: &'static str,
    pub limit_hint: &'static str,
    pub save_limits: &'static str,
    pub limits_saved: &'static str,
    pub bad_amount: &'static str,
    pub close: &'static str,
    pub reality_setting: &'static str,
    pub reality_saved: &'static str,
    pub minutes: &'static str,
    pub exclusion_title: &'static str,
    pub exclusion_intro: &'static str,
    /// Per choice of `protection::EXCLUSION_CHOICES`.
    pub exclusion_choices: [&'static str; 4],
    pub irreversible: &'static str,
    /// The second step of a self-exclusion.
    pub exclusion_confirm: &'static str,
    pub exclusion_cancel: &'static str,
    /// The server refused a self-exclusion shorter than the one in force.
    pub exclusion_longer: &'static str,
    pub excluded_indefinitely: &'static str,
    pub history_still_open: &'static str,
    pub reality_title: &'static str,
    pub time_played: &'static str,
    pub tickets: &'static str,
    pub stakes: &'static str,
    pub prizes: &'static str,
    pub net: &'static str,
    pub continue_playing: &'static str,
    pub stop_playing: &'static str,
    pub stopped: &'static str,
    pub err_limit: &'static str,
    pub err_excluded: &'static str,
    /// The history's column naming each ticket's block and position.
    pub history_block: &'static str,
}

pub static FR: ProtectionTexts = ProtectionTexts {
    adults_badge: "18+",
    adults_only: "Interdit aux mineurs",
    risk_warnings: [
        "Jouer comporte des risques : endettement, dépendance... Appelez le 09 74 75 13 13 (appel non surtaxé).",
        "Jouer comporte des risques : isolement, endettement... Appelez le 09 74 75 13 13 (appel non surtaxé).",
        "Jouer comporte des risques : dépendance, isolement... Appelez le 09 74 75 13 13 (appel non surtaxé).",
    ],
    fixed_at_purchase: "Le résultat de chaque ticket est fixé à l'achat : l'animation ne change rien.",
    play_money_session: "Argent fictif",
    clock_label: "Temps de jeu",
    limits_button: "Limites de jeu",
    limits_title: "Limites de jeu",
    limits_intro: "Vos limites valent sur 7 jours glissants. Une baisse s'applique tout de suite ; une hausse ou une suppression seulement 48 heures plus tard.",
    stake_limit: "Limite de mises par semaine",
    loss_limit: "Limite de pertes par semaine",
    no_limit: "aucune limite",
    in_force: "En vigueur",
    stake_used: "Misé sur les 7 derniers jours",
    loss_used: "Perdu sur les 7 derniers jours",
    new_stake_limit: "Nouvelle limite de mises (€)",
    new_loss_limit: "Nouvelle limite de pertes (€)",
    limit_hint: "En euros, par exemple 20 ou 12,50. Laissez vide pour aucune limite.",
    save_limits: "Enregistrer les limites",
    limits_saved: "Limites enregistrées.",
    bad_amount: "Montant non valable : écrivez par exemple 20 ou 12,50 (ou laissez vide).",
    close: "Fermer",
    reality_setting: "Point sur votre jeu toutes les",
    reality_saved: "Fréquence du point sur votre jeu enregistrée.",
    minutes: "min",
    exclusion_title: "M'exclure du jeu",
    exclusion_intro: "Pendant la durée choisie, vous ne pourrez acheter aucun ticket. Votre historique reste consultable.",
    exclusion_choices: [
        "24 heures",
        "7 jours",
        "30 jours",
        "Jusqu'à levée par l'opérateur",
    ],
    irreversible: "Irrévocable : ne peut être ni annulée ni raccourcie",
    exclusion_confirm: "Confirmer mon exclusion",
    exclusion_cancel: "Annuler",
    exclusion_longer: "Une exclusion en cours ne peut qu'être prolongée : la vôtre dure déjà plus longtemps que ce choix.",
    excluded_indefinitely: "Vous êtes exclu du jeu jusqu'à ce que l'opérateur lève l'exclusion : aucun ticket ne peut être acheté.",
    history_still_open: "Votre historique reste consultable.",
    reality_title: "Point sur votre jeu",
    time_played: "Temps de jeu",
    tickets: "Tickets achetés",
    stakes: "Mises",
    prizes: "Gains",
    net: "Résultat net",
    continue_playing: "Continuer",
    stop_playing: "Arrêter de jouer",
    stopped: "Vous avez arrêté de jouer pour cette session. Rechargez la page pour rejouer.",
    err_limit: "Mise refusée : une de vos limites de jeu est atteinte.",
    err_excluded: "Mise refusée : vous êtes exclu du jeu.",
    history_block: "Bloc / position",
};

pub static EN: ProtectionTexts = ProtectionTexts {
    adults_badge: "18+",
    adults_only: "Forbidden to minors: 18+ only",
    risk_warnings: [
        "Gambling involves risks: debt, addiction... Call 09 74 75 13 13 (standard-rate call).",
        "Gambling involves risks: isolation, debt... Call 09 74 75 13 13 (standard-rate call).",
        "Gambling involves risks: addiction, isolation... Call 09 74 75 13 13 (standard-rate call).",
    ],
    fixed_at_purchase: "Each ticket's result is fixed when it is bought: the animation changes nothing.",
    play_money_session: "Play money",
    clock_label: "Time played",
    limits_button: "Play limits",
    limits_title: "Play limits",
    limits_intro: "Your limits apply over any rolling 7 days. A lower limit applies at once; a higher one, or removing one, only 48 hours later.",
    stake_limit: "Weekly stake limit",
    loss_limit: "Weekly loss limit",
    no_limit: "no limit",
    in_force: "In force",
    stake_used: "Staked in the last 7 days",
    loss_used: "Lost in the last 7 days",
    new_stake_limit: "New stake limit (€)",
    new_loss_limit: "New loss limit (€)",
    limit_hint: "In euros, for example 20 or 12.50. Leave empty for no limit.",
    save_limits: "Save limits",
    limits_saved: "Limits saved.",
    bad_amount: "Not a valid amount: write for example 20 or 12.50 (or leave empty).",
    close: "Close",
    reality_setting: "Reality check every",
    reality_saved: "Reality check period saved.",
    minutes: "min",
    exclusion_title: "Exclude myself",
    exclusion_intro: "For the period you choose, you cannot buy any ticket. Your history stays available.",
    exclusion_choices: [
        "24 hours",
        "7 days",
        "30 days",
        "Until the operator lifts it",
    ],
    irreversible: "Irrevocable: cannot be undone or shortened",
    exclusion_confirm: "Confirm my exclusion",
    exclusion_cancel: "Cancel",
    exclusion_longer: "An exclusion in force can only be lengthened: yours already lasts longer than this choice.",
    excluded_indefinitely: "You are excluded from play until the operator lifts it: no ticket can be bought.",
    history_still_open: "Your history stays available.",
    reality_title: "Reality check",
    time_played: "Time played",
    tickets: "Tickets bought",
    stakes: "Stakes",
    prizes: "Prizes",
    net: "Net result",
    continue_playing: "Continue",
    stop_playing: "Stop playing",
    stopped: "You stopped playing for this session. Reload the page to play again.",
    err_limit: "Stake refused: one of your play limits is reached.",
    err_excluded: "Stake refused: you are excluded from play.",
    history_block: "Block / position",
};

impl Lang {
    pub fn protection(self) -> &'static ProtectionTexts {
        match self {
            Lang::Fr => &FR,
            Lang::En => &EN,
        }
    }

    /// A current limit: its amount, or « aucune limite ».
    pub fn limit_amount(self, cents: Option<u64>) -> String {
        match cents {
            Some(cents) => format_cents(cents, self.money_notation()),
            None => self.protection().no_limit.to_owned(),
        }
    }

    /// A limit change waiting for its 48 hours.
    /// A day and a time of it, as one moment.
    pub fn date_at(self, day: &str, time: &str) -> String {
        match self {
            Lang::Fr => format!("{day} à {time}"),
            Lang::En => format!("{day} at {time}"),
        }
    }

    pub fn pending_limit(self, cents: Option<u64>, date: &str) -> String {
        match (self, cents) {
            (Lang::Fr, Some(c)) => format!(
                "Passera à {} le {date}.",
                format_cents(c, self.money_notation())
            ),
            (Lang::Fr, None) => format!("Sera supprimée le {date}."),
            (Lang::En, Some(c)) => format!(
                "Will become {} on {date}.",
                format_cents(c, self.money_notation())
            ),
            (Lang::En, None) => format!("Will be removed on {date}."),
        }
    }

    /// A self-exclusion with an end.
    pub fn excluded_until(self, date: &str) -> String {
        match self {
            Lang::Fr => format!(
                "Vous êtes exclu du jeu jusqu'au {date} : aucun ticket ne peut être acheté d'ici là."
            ),
            Lang::En => {
                format!("You are excluded from play until {date}: no ticket can be bought until then.")
            }
        }
    }

    /// What a self-exclusion chosen but not yet confirmed will do: until
    /// when (`None`: until the operator lifts it), and that it is final.
    pub fn exclusion_preview(self, until: Option<&str>) -> String {
        match (self, until) {
            (Lang::Fr, Some(date)) => format!(
                "Vous serez exclu du jeu jusqu'au {date} : aucun ticket ne pourra être acheté d'ici là. Cette exclusion ne pourra être ni annulée ni raccourcie."
            ),
            (Lang::Fr, None) => "Vous serez exclu du jeu jusqu'à ce que l'opérateur lève l'exclusion, à votre demande auprès de lui : aucun ticket ne pourra être acheté d'ici là. Cette exclusion ne pourra pas être annulée ici.".to_owned(),
            (Lang::En, Some(date)) => format!(
                "You will be excluded from play until {date}: no ticket can be bought until then. This exclusion cannot be undone or shortened."
            ),
            (Lang::En, None) => "You will be excluded from play until the operator lifts it, at your request to them: no ticket can be bought until then. This exclusion cannot be undone here.".to_owned(),
        }
    }

    /// A sale refused for a weekly limit: the limit, what is used, and when
    /// room frees up for the stake refused (`None`: the stake alone is above
    /// the limit, so only a smaller one can fit).
    pub fn limit_reached(
        self,
        kind: LimitKind,
        limit: u64,
        used: u64,
        frees_at: Option<&str>,
    ) -> String {
        let money = self.money_notation();
        let (limit, used) = (format_cents(limit, money), format_cents(used, money));
        let first = match (self, kind) {
            (Lang::Fr, LimitKind::WeeklyStake) => format!(
                "Mise refusée : votre limite de mises de {limit} par semaine est atteinte ({used} misés sur les 7 derniers jours)."
            ),
            (Lang::Fr, LimitKind::WeeklyLoss) => format!(
                "Mise refusée : votre limite de pertes de {limit} par semaine est atteinte ({used} perdus sur les 7 derniers jours)."
            ),
            (Lang::En, LimitKind::WeeklyStake) => format!(
                "Stake refused: your weekly stake limit of {limit} is reached ({used} staked in the last 7 days)."
            ),
            (Lang::En, LimitKind::WeeklyLoss) => format!(
                "Stake refused: your weekly loss limit of {limit} is reached ({used} lost in the last 7 days)."
            ),
        };
        let then = match (self, frees_at) {
            (Lang::Fr, Some(date)) => format!("Cette mise sera de nouveau possible le {date}."),
            (Lang::Fr, None) => {
                "Cette mise dépasse à elle seule votre limite : choisissez une mise plus petite."
                    .to_owned()
            }
            (Lang::En, Some(date)) => format!("This stake will be possible again on {date}."),
            (Lang::En, None) => {
                "This stake alone is above your limit: choose a smaller stake.".to_owned()
            }
        };
        format!("{first} {then}")
    }

    /// The net result of a session, signed.
    pub fn signed_amount(self, cents: i64) -> String {
        let amount = format_cents(cents.unsigned_abs(), self.money_notation());
        match cents {
            c if c < 0 => format!("−{amount}"),
            c if c > 0 => format!("+{amount}"),
            _ => amount,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_official_warnings_are_exact() {
        let fr = Lang::Fr.protection();
        assert_eq!(
            fr.risk_warnings[0],
            "Jouer comporte des risques : endettement, dépendance... Appelez le 09 74 75 13 13 (appel non surtaxé)."
        );
        for lang in [Lang::Fr, Lang::En] {
            for warning in lang.protection().risk_warnings {
                assert!(warning.contains("09 74 75 13 13"), "{warning}");
            }
        }
        assert_eq!(fr.adults_only, "Interdit aux mineurs");
    }

    #[test]
    fn refusals_name_limit_use_and_date() {
        let text =
            Lang::Fr.limit_reached(LimitKind::WeeklyStake, 1000, 950, Some("05/12/2026 14:32"));
        assert!(text.contains("10,00\u{A0}€"), "{text}");
        assert!(text.contains("9,50\u{A0}€"), "{text}");
        assert!(text.contains("05/12/2026 14:32"), "{text}");
        let text = Lang::En.limit_reached(LimitKind::WeeklyLoss, 5000, 5000, Some("5 Dec"));
        assert!(text.contains("weekly loss limit of €50.00"), "{text}");
        let text = Lang::Fr.limit_reached(LimitKind::WeeklyStake, 30, 0, None);
        assert!(text.ends_with("choisissez une mise plus petite."), "{text}");
    }

    #[test]
    fn refusal_and_pending_texts_whole() {
        use LimitKind::{WeeklyLoss, WeeklyStake};
        let cases = [
            (
                Lang::Fr.limit_reached(WeeklyStake, 1000, 950, Some("05/12/2026 14:32")),
                "Mise refusée : votre limite de mises de 10,00\u{A0}€ par semaine est atteinte (9,50\u{A0}€ misés sur les 7 derniers jours). Cette mise sera de nouveau possible le 05/12/2026 14:32.",
            ),
            (
                Lang::Fr.limit_reached(WeeklyLoss, 1000, 0, None),
                "Mise refusée : votre limite de pertes de 10,00\u{A0}€ par semaine est atteinte (0,00\u{A0}€ perdus sur les 7 derniers jours). Cette mise dépasse à elle seule votre limite : choisissez une mise plus petite.",
            ),
            (
                Lang::En.limit_reached(WeeklyStake, 5000, 100, None),
                "Stake refused: your weekly stake limit of €50.00 is reached (€1.00 staked in the last 7 days). This stake alone is above your limit: choose a smaller stake.",
            ),
            (
                Lang::En.limit_reached(WeeklyLoss, 5000, 5000, Some("5 Dec")),
                "Stake refused: your weekly loss limit of €50.00 is reached (€50.00 lost in the last 7 days). This stake will be possible again on 5 Dec.",
            ),
            (
                Lang::Fr.pending_limit(Some(2500), "06/12"),
                "Passera à 25,00\u{A0}€ le 06/12.",
            ),
            (Lang::Fr.pending_limit(None, "06/12"), "Sera supprimée le 06/12."),
            (Lang::En.pending_limit(Some(2500), "6 Dec"), "Will become €25.00 on 6 Dec."),
            (Lang::En.pending_limit(None, "6 Dec"), "Will be removed on 6 Dec."),
            (
                Lang::Fr.excluded_until("06/12"),
                "Vous êtes exclu du jeu jusqu'au 06/12 : aucun ticket ne peut être acheté d'ici là.",
            ),
            (
                Lang::En.excluded_until("6 Dec"),
                "You are excluded from play until 6 Dec: no ticket can be bought until then.",
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(text, expected);
        }
    }

    #[test]
    fn signed_net() {
        assert_eq!(Lang::En.signed_amount(-250), "−€2.50");
        assert_eq!(Lang::Fr.signed_amount(100), "+1,00\u{A0}€");
        assert_eq!(Lang::En.signed_amount(0), "€0.00");
    }

    #[test]
    fn every_exclusion_preview_says_until_when_and_that_it_is_final() {
        let cases = [
            (
                Lang::Fr,
                Some("06/12/2026 10:00"),
                "ni annulée ni raccourcie",
            ),
            (Lang::Fr, None, "l'opérateur lève l'exclusion"),
            (
                Lang::En,
                Some("06/12/2026, 10:00"),
                "cannot be undone or shortened",
            ),
            (Lang::En, None, "until the operator lifts it"),
        ];
        for (lang, until, says) in cases {
            let preview = lang.exclusion_preview(until);
            assert!(preview.contains(says), "{preview}");
            if let Some(date) = until {
                assert!(preview.contains(date), "{preview}");
            }
        }
    }
}
