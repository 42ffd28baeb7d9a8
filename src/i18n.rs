//! Every word the player reads, in French (default) and English.
//!
//! Texts are struct fields rather than lookup keys, so a missing translation
//! is a compile error, never a blank or a raw key on screen.

mod look;
mod portal;
mod protection;
mod rules;
mod trust;
mod wallet;

pub use protection::ProtectionTexts;
pub use rules::RulesTexts;

use crate::money::{format_cents, Notation};
use crate::text::around;
use eldorado_engine::verify::Check;
use eldorado_engine::Symbol;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    Fr,
    En,
}

impl Lang {
    /// `?lang=` value: English for `en` and its regional forms, French for
    /// anything else (including nothing or garbage).
    pub fn from_query(value: Option<&str>) -> Lang {
        match value {
            Some(v)
                if v.eq_ignore_ascii_case("en") || v.to_ascii_lowercase().starts_with("en-") =>
            {
                Lang::En
            }
            _ => Lang::Fr,
        }
    }

    pub fn code(self) -> &'static str {
        match self {
            Lang::Fr => "fr",
            Lang::En => "en",
        }
    }

    /// How this language writes amounts and decimals.
    pub fn money_notation(self) -> Notation {
        match self {
            Lang::Fr => Notation::FRENCH,
            Lang::En => Notation::ENGLISH,
        }
    }

    fn amount(self, cents: u64) -> String {
        format_cents(cents, self.money_notation())
    }

    pub fn texts(self) -> &'static Texts {
        match self {
            Lang::Fr => &FR,
            Lang::En => &EN,
        }
    }

    pub fn you_win(self, cents: u64) -> String {
        let amount = self.amount(cents);
        match self {
            Lang::Fr => format!("Vous gagnez {amount}"),
            Lang::En => format!("You win {amount}"),
        }
    }

    pub fn you_get_extras(self, extras: u8) -> String {
        match (self, extras) {
            // The regulation's « Vous obtenez x Extra », agreed in number
            // as it writes « étapes Extras » itself.
            (Lang::Fr, 0 | 1) => around("Vous obtenez ", extras.into(), " Extra"),
            (Lang::Fr, _) => around("Vous obtenez ", extras.into(), " Extras"),
            (Lang::En, 1) => "You get 1 Extra".to_owned(),
            (Lang::En, _) => around("You get ", extras.into(), " Extras"),
        }
    }

    /// Extra grid `grid` of `of`: « Grille Extra 1 / 2 ».
    pub fn extra_grid_name(self, grid: usize, of: u8) -> String {
        format!("{} {grid} / {of}", self.texts().extra_grid)
    }

    /// A revealed Extra grid's caption: its name, then what it won.
    pub fn grid_result(self, name: &str, cents: u64) -> String {
        match (self, cents) {
            (Lang::Fr, 0) => format!("{name}\u{A0}: rien gagné"),
            (Lang::En, 0) => format!("{name}: no win"),
            (Lang::Fr, _) => format!("{name}\u{A0}: {}", self.amount(cents)),
            (Lang::En, _) => format!("{name}: {}", self.amount(cents)),
        }
    }

    pub fn extras_left(self, left: u8) -> String {
        match (self, left) {
            (Lang::Fr, 0 | 1) => around("", left.into(), " Extra restant"),
            (Lang::Fr, _) => around("", left.into(), " Extras restants"),
            (Lang::En, 1) => "1 Extra left".to_owned(),
            (Lang::En, _) => around("", left.into(), " Extras left"),
        }
    }

    pub fn insufficient_funds(self, stake: u64, balance: u64) -> String {
        let (stake, balance) = (self.amount(stake), self.amount(balance));
        match self {
            Lang::Fr => format!(
                "Mise refusée : {stake} dépasse vos disponibilités ({balance}). Choisissez une mise plus petite."
            ),
            Lang::En => format!(
                "Stake refused: {stake} is more than your balance ({balance}). Choose a smaller stake."
            ),
        }
    }

    /// What the live region says once a ticket is fully revealed.
    pub fn outcome_announcement(self, prize: u64, balance: u64) -> String {
        let balance = self.amount(balance);
        match (self, prize) {
            (Lang::Fr, 0) => {
                format!("Perdu : ce ticket ne gagne rien. Disponibilités : {balance}.")
            }
            (Lang::En, 0) => format!("No win: this ticket wins nothing. Balance: {balance}."),
            (Lang::Fr, _) => format!(
                "Gagné : vous gagnez {}. Disponibilités : {balance}.",
                self.amount(prize)
            ),
            (Lang::En, _) => format!(
                "Winner: you win {}. Balance: {balance}.",
                self.amount(prize)
            ),
        }
    }

    /// The symbols of a revealed grid, row by row, for screen readers.
    pub fn describe_grid(self, rows: &[[Symbol; 5]; 3]) -> String {
        let t = self.texts();
        let mut out = String::new();
        // Three rows: the row number is one digit.
        for (digit, row) in ('1'..='3').zip(rows) {
            out.push_str(t.line_word);
            out.push(' ');
            out.push(digit);
            out.push_str(" : ");
            for (i, symbol) in row.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(self.symbol_name(*symbol));
            }
            out.push_str(". ");
        }
        out
    }

    pub fn verification_failed(self, check: Check) -> String {
        let name = self.check_label(check);
        match self {
            Lang::Fr => format!(
                "Ce ticket a échoué à la vérification « {name} » : il n'est pas affiché. \
                 Signalez-le à l'opérateur du jeu."
            ),
            Lang::En => format!(
                "This ticket failed the check \"{name}\": it is not shown. \
                 Please report it to the game operator."
            ),
        }
    }

    pub fn symbol_name(self, symbol: Symbol) -> &'static str {
        let t = self.texts();
        t.symbols[symbol.index()]
    }

    pub fn check_label(self, check: Check) -> &'static str {
        let t = self.texts();
        let i = Check::ALL.iter().position(|c| *c == check).unwrap_or(0);
        t.checks[i]
    }

    /// A server refusal, by its contract code; unknown codes fall back to a
    /// generic sentence instead of the server's (English, technical) text.
    pub fn api_error(self, code: &str) -> &'static str {
        if let Some(text) = self.wallet_error(code) {
            return text;
        }
        let t = self.texts();
        match code {
            "INSUFFICIENT_FUNDS" => t.err_funds,
            "SOLD_OUT" => t.err_sold_out,
            "UNAUTHORIZED" | "FORBIDDEN" => t.err_session,
            "TOO_MANY_SESSIONS" => t.err_too_many_sessions,
            "DEMO_DISABLED" => t.err_demo,
            "INVALID_STAKE" => t.err_stake,
            "LIMIT_REACHED" => self.protection().err_limit,
            "SELF_EXCLUDED" => self.protection().err_excluded,
            "DEAL_PENDING" => t.err_deal_pending,
            _ => t.err_server,
        }
    }
}

/// The fixed texts of one language.
pub struct Texts {
    pub title: &'static str,
    pub balance: &'static str,
    pub stake: &'static str,
    pub play: &'static str,
    pub extra: &'static str,
    pub reveal_all: &'static str,
    pub buying: &'static str,
    pub ok: &'static str,
    pub retry: &'static str,
    pub retry_safe: &'static str,
    pub connecting: &'static str,
    pub err_network: &'static str,
    pub err_timeout: &'static str,
    pub err_funds: &'static str,
    pub err_sold_out: &'static str,
    pub err_session: &'static str,
    /// `TOO_MANY_SESSIONS`: the server ended this session because its
    /// player opened too many newer ones.
    pub err_too_many_sessions: &'static str,
    pub err_demo: &'static str,
    pub err_stake: &'static str,
    pub err_server: &'static str,
    /// `DEAL_PENDING`: bought and paid, waiting for the beacon's round.
    pub err_deal_pending: &'static str,
    pub err_response: &'static str,
    pub verified: &'static str,
    pub not_verified: &'static str,
    pub checks_intro: &'static str,
    pub checks: [&'static str; Check::ALL.len()],
    pub resume_offer: &'static str,
    pub resume: &'static str,
    pub history: &'static str,
    pub history_empty: &'static str,
    pub history_more: &'static str,
    pub history_time: &'static str,
    pub history_result: &'static str,
    pub history_status: &'static str,
    /// The history's last column (its buttons), for screen readers only.
    pub history_actions: &'static str,
    pub lost: &'static str,
    pub won: &'static str,
    pub revealed: &'static str,
    pub unrevealed: &'static str,
    pub main_grid: &'static str,
    pub extra_grid: &'static str,
    pub rules: &'static str,
    pub equivocation: &'static str,
    /// The server deals by a beacon this page cannot trust.
    pub beacon_problem: &'static str,
    pub balance_reread: &'static str,
    pub play_money: &'static str,
    pub key_label: &'static str,
    /// Before the served page's fingerprint, in the verification details.
    pub page_label: &'static str,
    /// The tickets are dealt by a beacon that is not a public drand network.
    pub demo_draw: &'static str,
    /// Built in, launch address, server.
    pub key_sources: [&'static str; 3],
    pub key_mismatch: &'static str,
    pub key_unreadable: &'static str,
    pub config_mismatch: &'static str,
    /// Stakes, prize table, odds, return, top prize.
    pub figures: [&'static str; 5],
    pub history_hidden: &'static str,
    pub history_refused: &'static str,
    pub history_not_revealed: &'static str,
    pub receipt: &'static str,
    pub responsible: &'static str,
    pub sound_on: &'static str,
    pub sound_off: &'static str,
    pub grid_label: &'static str,
    pub line_word: &'static str,
    pub symbols: [&'static str; 6],
}

pub static FR: Texts = Texts {
    title: "Eldorado",
    balance: "Disponibilités",
    stake: "Mise",
    play: "Jouer",
    extra: "Extra",
    reveal_all: "Tout montrer",
    buying: "Achat…",
    ok: "OK",
    retry: "Réessayer",
    retry_safe: "Réessayer ne peut pas acheter un second ticket.",
    connecting: "Connexion au serveur…",
    err_network: "La connexion au serveur a échoué.",
    err_timeout: "Le serveur n'a pas répondu à temps.",
    err_funds: "Vos disponibilités ne suffisent pas pour cette mise.",
    err_sold_out: "Aucun ticket n'est en vente pour cette mise pour le moment.",
    err_session: "Votre session a expiré. Rechargez la page.",
    err_too_many_sessions: "Cette session a été fermée : trop de sessions ouvertes pour ce joueur ; la plus ancienne est fermée en premier. Rouvrez le jeu pour rejouer.",
    err_demo: "Le mode démonstration est fermé sur ce serveur.",
    err_stake: "Cette mise n'est pas proposée.",
    err_server: "Le serveur a rencontré une erreur.",
    err_deal_pending: "Tirage public en attente : votre ticket est payé, il est tiré dès que la balise publique publie son tirage.",
    err_response: "La réponse du serveur est illisible.",
    verified: "Vérifié",
    not_verified: "Non vérifié",
    checks_intro: "Ce ticket a été vérifié dans votre navigateur avant d'être affiché :",
    checks: [
        "engagement du bloc signé par l'opérateur",
        "table des gains conforme au règlement",
        "bloc de 400 000 tickets, comme le veut le règlement",
        "engagement du bloc publié avant l'achat, et identique",
        "vente signée par l'opérateur",
        "ticket du bloc engagé (bloc, taille, mise)",
        "grilles conformes aux règles et gain annoncé exact",
        "preuve de Merkle : ticket présent dans le bloc engagé",
        "mise du ticket égale à la mise jouée",
        "ticket vendu à vous",
        "ticket vendu en réponse à cet achat (nonce)",
        "argent réel ou fictif, comme votre compte",
        "solde = solde précédent − mise + gain",
        "ticket tiré par la balise publique, après l'achat, selon la règle",
    ],
    resume_offer: "Un ticket acheté n'a pas été entièrement dévoilé.",
    resume: "Terminer la partie",
    history: "Historique",
    history_empty: "Aucun ticket pour le moment.",
    history_more: "Tickets plus anciens",
    history_time: "Heure",
    history_result: "Résultat",
    history_status: "État",
    history_actions: "Actions",
    lost: "Perdu",
    won: "Gagné",
    revealed: "dévoilé",
    unrevealed: "non dévoilé",
    main_grid: "Grille principale",
    extra_grid: "Grille Extra",
    rules: "Règles et gains",
    equivocation: "Le serveur a signé deux engagements différents pour le même bloc : achat refusé, rien n'est affiché. Signalez-le à l'opérateur du jeu.",
    beacon_problem: "La balise publique qui tire les tickets n'est pas celle que ce jeu connaît : le jeu est arrêté, rien n'est acheté. Signalez-le à l'opérateur du jeu.",
    balance_reread: "Le solde affiché est celui relu auprès du serveur.",
    play_money: "Jeu gratuit — argent fictif",
    key_label: "Clé de l'opérateur :",
    page_label: "page :",
    demo_draw: "tirage de démonstration",
    key_sources: [
        "fixée dans ce jeu lors de sa construction.",
        "fixée par l'adresse de lancement du jeu (paramètre key).",
        "annoncée par le serveur qui sert ce jeu (non épinglée).",
    ],
    key_mismatch: "La clé de l'opérateur ne correspond pas à la clé attendue : le jeu est arrêté, aucun ticket ne sera acheté.",
    key_unreadable: "La clé de l'opérateur est illisible : le jeu est arrêté, aucun ticket ne sera acheté.",
    config_mismatch: "Échec de la vérification : la configuration du serveur contredit les règles du jeu (les chiffres affichés ici sont ceux des règles) :",
    figures: ["mises", "table des gains", "chances de gain", "taux de retour", "gain maximum"],
    history_hidden: "Résultat caché jusqu'à la révélation",
    history_refused: "Échec de la vérification",
    history_not_revealed: "Ce ticket n'est pas encore dévoilé : terminez-le dans le jeu pour voir son résultat.",
    receipt: "Reçu",
    responsible: "Jouer comporte des risques : endettement, isolement, dépendance. Pour être aidé, appelez le 09 74 75 13 13 (Joueurs Info Service, appel non surtaxé). Jeu interdit aux mineurs.",
    sound_on: "Son activé",
    sound_off: "Son coupé",
    grid_label: "Grille de jeu",
    line_word: "Ligne",
    symbols: ["pyramide", "coffre", "soleil", "dague", "Chance (masque)", "perroquet"],
};

pub static EN: Texts = Texts {
    title: "Eldorado",
    balance: "Balance",
    stake: "Stake",
    play: "Play",
    extra: "Extra",
    reveal_all: "Show all",
    buying: "Buying…",
    ok: "OK",
    retry: "Retry",
    retry_safe: "Retrying can never buy a second ticket.",
    connecting: "Connecting to the server…",
    err_network: "Could not reach the server.",
    err_timeout: "The server did not answer in time.",
    err_funds: "Your balance is too low for this stake.",
    err_sold_out: "No ticket is on sale for this stake right now.",
    err_session: "Your session has expired. Reload the page.",
    err_too_many_sessions: "This session was closed: too many sessions are open for this player, and the oldest is closed first. Open the game again to play.",
    err_demo: "Demo mode is closed on this server.",
    err_stake: "This stake is not offered.",
    err_server: "The server ran into an error.",
    err_deal_pending: "Public draw awaited: your ticket is paid, and is drawn as soon as the public beacon publishes its draw.",
    err_response: "The server's answer could not be read.",
    verified: "Verified",
    not_verified: "Not verified",
    checks_intro: "This ticket was checked in your browser before it was shown:",
    checks: [
        "block commitment signed by the operator",
        "prize table as in the rules",
        "block of 400,000 tickets, as the rules say",
        "block commitment published before the purchase, unchanged",
        "sale signed by the operator",
        "ticket of the committed block (block, size, stake)",
        "grids follow the rules and the prize is exact",
        "Merkle proof: ticket is in the committed block",
        "ticket stake equals the stake played",
        "ticket sold to you",
        "ticket sold in answer to this purchase (nonce)",
        "real or play money, as your account",
        "balance = previous balance − stake + prize",
        "ticket drawn by the public beacon, after the purchase, by the rule",
    ],
    resume_offer: "A ticket you bought was not fully revealed.",
    resume: "Finish the game",
    history: "History",
    history_empty: "No tickets yet.",
    history_more: "Older tickets",
    history_time: "Time",
    history_result: "Result",
    history_status: "Status",
    history_actions: "Actions",
    lost: "No win",
    won: "Won",
    revealed: "revealed",
    unrevealed: "not revealed",
    main_grid: "Main grid",
    extra_grid: "Extra grid",
    rules: "Rules and prizes",
    equivocation: "The server signed two different commitments for the same block: purchase refused, nothing is shown. Please report it to the game operator.",
    beacon_problem: "The public beacon that draws the tickets is not the one this game knows: the game is stopped, nothing is bought. Please report it to the game operator.",
    balance_reread: "The balance shown was read again from the server.",
    play_money: "Free play — no real money",
    key_label: "Operator key:",
    page_label: "page:",
    demo_draw: "demo draw",
    key_sources: [
        "pinned into this game when it was built.",
        "pinned by the game's launch address (key parameter).",
        "announced by the server that serves this game (not pinned).",
    ],
    key_mismatch: "The operator key does not match the expected key: the game is stopped, no ticket will be bought.",
    key_unreadable: "The operator key is unreadable: the game is stopped, no ticket will be bought.",
    config_mismatch: "Verification failed: the server's configuration contradicts the game rules (the figures shown here are the rules'):",
    figures: ["stakes", "prize table", "odds", "return to players", "top prize"],
    history_hidden: "Result hidden until revealed",
    history_refused: "Verification failed",
    history_not_revealed: "This ticket is not revealed yet: finish it in the game to see its result.",
    receipt: "Receipt",
    responsible: "Gambling involves risks: debt, isolation, addiction. For help, call 09 74 75 13 13 (Joueurs Info Service, standard rate). No one under 18 may play.",
    sound_on: "Sound on",
    sound_off: "Sound off",
    grid_label: "Game grid",
    line_word: "Line",
    symbols: ["pyramid", "chest", "sun", "dagger", "Chance (mask)", "parrot"],
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_ended_for_newer_ones_says_so_not_that_it_expired() {
        assert_eq!(
            Lang::Fr.api_error("TOO_MANY_SESSIONS"),
            "Cette session a été fermée : trop de sessions ouvertes pour ce joueur ; \
             la plus ancienne est fermée en premier. Rouvrez le jeu pour rejouer."
        );
        assert_eq!(
            Lang::En.api_error("TOO_MANY_SESSIONS"),
            "This session was closed: too many sessions are open for this player, \
             and the oldest is closed first. Open the game again to play."
        );
        for lang in [Lang::Fr, Lang::En] {
            assert_ne!(
                lang.api_error("TOO_MANY_SESSIONS"),
                lang.texts().err_session
            );
        }
    }

    #[test]
    fn language_from_query() {
        assert_eq!(Lang::from_query(None), Lang::Fr);
        assert_eq!(Lang::from_query(Some("en")), Lang::En);
        assert_eq!(Lang::from_query(Some("EN-gb")), Lang::En);
        assert_eq!(Lang::from_query(Some("de")), Lang::Fr);
        assert_eq!(Lang::from_query(Some("<script>")), Lang::Fr);
    }

    #[test]
    fn grid_description_names_each_row() {
        use Symbol::{Chance as H, Coffre as C, Dague as D, Pyramide as P, Soleil as S};
        let rows = [[P, C, S, D, H], [H, D, S, C, P], [P, P, P, P, P]];
        for lang in [Lang::Fr, Lang::En] {
            let t = lang.texts();
            let mut expected = String::new();
            for (r, row) in rows.iter().enumerate() {
                let names: Vec<&str> = row.iter().map(|s| lang.symbol_name(*s)).collect();
                expected += &format!("{} {} : {}. ", t.line_word, r + 1, names.join(", "));
            }
            assert_eq!(lang.describe_grid(&rows), expected);
        }
    }

    #[test]
    fn dynamic_texts() {
        assert_eq!(Lang::Fr.you_win(150), "Vous gagnez 1,50\u{A0}€");
        assert_eq!(Lang::En.you_win(150), "You win €1.50");
        assert_eq!(Lang::Fr.you_get_extras(2), "Vous obtenez 2 Extras");
        assert_eq!(Lang::En.you_get_extras(1), "You get 1 Extra");
        assert_eq!(
            Lang::Fr.grid_result("Grille Extra 1 / 2", 0),
            "Grille Extra 1 / 2\u{A0}: rien gagné"
        );
        assert_eq!(
            Lang::En.grid_result("Extra grid 2 / 2", 1000),
            "Extra grid 2 / 2: €10.00"
        );
        assert_eq!(Lang::En.extras_left(2), "2 Extras left");
        assert_eq!(Lang::En.extras_left(1), "1 Extra left");
        assert_eq!(Lang::En.extras_left(0), "0 Extras left");
        assert_eq!(Lang::Fr.extras_left(0), "0 Extra restant");
        assert_eq!(Lang::Fr.extras_left(1), "1 Extra restant");
        assert_eq!(Lang::Fr.extras_left(12), "12 Extras restants");
        assert_eq!(Lang::Fr.you_get_extras(1), "Vous obtenez 1 Extra");
        assert_eq!(Lang::En.you_get_extras(10), "You get 10 Extras");
        assert!(Lang::Fr
            .insufficient_funds(200, 150)
            .contains("1,50\u{A0}€"));
    }

    #[test]
    fn every_check_has_a_label() {
        for lang in [Lang::Fr, Lang::En] {
            for check in Check::ALL {
                assert!(!lang.check_label(check).is_empty());
            }
            for symbol in Symbol::ALL {
                assert!(!lang.symbol_name(symbol).is_empty());
            }
        }
    }
}
