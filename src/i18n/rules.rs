//! The words of the rules panel: what `rules_page` writes into the pages
//! the page fetches when the rules are first opened, never into the
//! bundle (docs/BENCHMARKS.md, issue 13).

use super::Lang;

pub struct RulesTexts {
    /// "mise" inside a sentence.
    pub stake_word: &'static str,
    pub rules_intro: &'static str,
    pub rules_lines: &'static str,
    pub rules_chance: &'static str,
    pub rules_extra: &'static str,
    pub combinations: &'static str,
    pub combination: &'static str,
    pub gives: &'static str,
    pub gives_extra: &'static str,
    pub prize_table: &'static str,
    pub rank: &'static str,
    pub tickets_per_block: &'static str,
    pub odds: &'static str,
    pub rtp: &'static str,
    pub max_win: &'static str,
    pub times_stake: &'static str,
}

static FR: RulesTexts = RulesTexts {
    stake_word: "mise",
    rules_intro: "Choisissez une mise de 0,50 €, 1 € ou 2 €, puis appuyez sur « Jouer » : la mise est débitée et les 15 cases de la grille se dévoilent colonne par colonne.",
    rules_lines: "La grille a 3 lignes de 5 cases. Chaque ligne est jugée seule ; les gains de plusieurs lignes s'additionnent. Le nombre de symboles est exact (ni plus, ni moins).",
    rules_chance: "Le symbole Chance (masque) remplace un symbole manquant d'une combinaison, s'il y a au moins un de ces symboles sur la ligne.",
    rules_extra: "Une ligne Extra donne une grille Extra gratuite : la zone « Extra » à droite de la grille compte celles qui restent, et le bouton « Extra » remplace « Jouer ». Le gain éventuel du ticket s'affiche alors sur les grilles Extra.",
    combinations: "Combinaisons (sur une ligne)",
    combination: "Combinaison",
    gives: "Gain",
    gives_extra: "1 Extra",
    prize_table: "Gains par bloc de tickets",
    rank: "Rang",
    tickets_per_block: "Tickets par bloc",
    odds: "Chances de gain : 1 ticket gagnant sur",
    rtp: "Taux de retour aux joueurs :",
    max_win: "Gain maximum :",
    times_stake: "× la mise",
};

static EN: RulesTexts = RulesTexts {
    stake_word: "stake",
    rules_intro: "Choose a stake of €0.50, €1 or €2 and press \"Play\": the stake is debited and the 15 cells of the grid are revealed column by column.",
    rules_lines: "The grid has 3 lines of 5 cells. Each line counts on its own; wins on several lines add up. Symbol counts are exact (no more, no less).",
    rules_chance: "The Chance symbol (mask) stands in for one missing symbol of a combination, if at least one of those symbols is on the line.",
    rules_extra: "An Extra line gives a free Extra grid: the \"Extra\" zone right of the grid counts those left, and the \"Extra\" button replaces \"Play\". The ticket's win, if any, then shows on the Extra grids.",
    combinations: "Combinations (on one line)",
    combination: "Combination",
    gives: "Prize",
    gives_extra: "1 Extra",
    prize_table: "Prizes per block of tickets",
    rank: "Rank",
    tickets_per_block: "Tickets per block",
    odds: "Odds of winning: 1 winning ticket in",
    rtp: "Return to players:",
    max_win: "Top prize:",
    times_stake: "× the stake",
};

impl Lang {
    pub fn rules_texts(self) -> &'static RulesTexts {
        match self {
            Lang::Fr => &FR,
            Lang::En => &EN,
        }
    }
}
