//! The rules panel's page, one per language: the rules, the combinations
//! with their symbols, the prize table, the odds, the return and the top
//! prize, all from the engine (never a copy of the rules, never the
//! server's figures).
//!
//! Written once at build time (`src/bin/rules-pages.rs`, run by
//! `scripts/build-web.sh`) into `www/pkg/rules-<lang>.html`, which the page
//! fetches the first time the rules are opened: neither this code nor these
//! texts are in the first download (docs/BENCHMARKS.md, issue 13). The page
//! then draws each `canvas[data-symbol]` with the board's own symbol art
//! ([`symbol_at`]). The tests' in-memory backend serves the same pages by
//! calling [`rules_page`].

use crate::dom::fill;
use crate::i18n::Lang;
use crate::money::{format_cents_short, format_ratio};
use crate::rules_check::{odds, stakes};
use crate::text::decimal;
use eldorado_engine::line::Award;
use eldorado_engine::prize_table::{max_win_cents, rtp_basis_points, RANKS};
use eldorado_engine::{Combination, Stake, Symbol};

/// The side, in canvas pixels, of a symbol's picture in the paytable.
pub const SYMBOL_SIDE: u32 = 56;

/// The symbol a picture's `data-symbol` names: its one-letter code, as in
/// every text form of a grid ([`Symbol::code`]).
pub fn symbol_at(data_symbol: &str) -> Option<Symbol> {
    match data_symbol.as_bytes() {
        [code] => Symbol::from_code(*code),
        _ => None,
    }
}

/// The panel's HTML for `lang`, each text escaped.
pub fn rules_page(lang: Lang) -> String {
    let t = lang.rules_texts();
    let money = lang.money_notation();
    let stakes = stakes();
    let cell = |tag: &str, text: &str| tagged(tag, "", text);
    let amounts = |multiple: u64| -> String {
        stakes
            .iter()
            .map(|&stake| cell("td", &format_cents_short(multiple * stake, money)))
            .collect()
    };
    let stake_heads: String = stakes
        .iter()
        .map(|&stake| cell("th", &format_cents_short(stake, money)))
        .collect();

    let mut page = String::new();
    for paragraph in [t.rules_intro, t.rules_lines, t.rules_chance, t.rules_extra] {
        page += &cell("p", paragraph);
    }

    page += &cell("h2", t.combinations);
    page += "<table class='eld-combos' id='eld-combos'><tr>";
    page += &cell("th", t.combination);
    page += &cell("th", t.gives);
    page += &stake_heads;
    page += "</tr>";
    for combination in Combination::all() {
        let Some(award) = combination.award() else {
            continue;
        };
        page += "<tr><td>";
        page += &picture(combination.symbol);
        page += &escaped(&describe_combination(lang, combination));
        page += "</td>";
        match award {
            Award::Win(multiple) => {
                page += &cell("td", &format!("{multiple} {}", t.times_stake));
                page += &amounts(u64::from(multiple));
            }
            Award::Extra => {
                page += &tagged(
                    "td",
                    &format!(" colspan='{}'", stakes.len() + 1),
                    t.gives_extra,
                );
            }
        }
        page += "</tr>";
    }
    page += "</table>";

    page += &cell("h2", t.prize_table);
    page += "<table class='eld-prizes'><tr>";
    page += &cell("th", t.rank);
    page += &stake_heads;
    page += &cell("th", t.tickets_per_block);
    page += "</tr>";
    for row in &RANKS {
        page += "<tr>";
        page += &cell("td", &decimal(row.rank.into()));
        page += &amounts(u64::from(row.multiple));
        page += &cell("td", &decimal(row.count.into()));
        page += "</tr>";
    }
    page += "</table>";

    page += "<ul class='eld-facts'>";
    page += &cell("li", &odds_line(lang));
    page += &cell("li", &rtp_line(lang));
    page += &cell("li", &max_win_line(lang));
    page += "</ul>";
    page
}

fn escaped(text: &str) -> String {
    let mut out = String::new();
    crate::dom::push_escaped(&mut out, text);
    out
}

/// `<tag attributes>text</tag>`, the text escaped; `attributes` are ours.
fn tagged(tag: &str, attributes: &str, text: &str) -> String {
    format!("<{tag}{attributes}>{}</{tag}>", escaped(text))
}

/// The symbol as drawn on the board, beside its name (which says it for
/// screen readers); the page draws it.
fn picture(symbol: Symbol) -> String {
    fill(
        "<canvas class='eld-sym' aria-hidden='true' width='{}' height='{}' data-symbol='{}'></canvas>",
        &[
            &SYMBOL_SIDE.to_string(),
            &SYMBOL_SIDE.to_string(),
            &char::from(symbol.code()).to_string(),
        ],
    )
    .unwrap_or_default()
}

/// "4 soleils" style description of a combination, Chance included.
fn describe_combination(lang: Lang, combination: Combination) -> String {
    let name = lang.symbol_name(combination.symbol);
    let n = combination.effective;
    match (lang, combination.symbol, n) {
        (Lang::Fr, Symbol::Pyramide, 1) => "1 pyramide seule (sans Chance)".to_owned(),
        (Lang::En, Symbol::Pyramide, 1) => "1 lone pyramid (no Chance)".to_owned(),
        (Lang::Fr, _, _) => format!("{n} × {name} (Chance comprise)"),
        (Lang::En, _, _) => format!("{n} × {name} (Chance included)"),
    }
}

/// The odds as the rules panel words them.
fn odds_line(lang: Lang) -> String {
    let odds = odds();
    let ratio = format_ratio(odds.tickets, odds.winners, 2, lang.money_notation());
    format!("{} {ratio}", lang.rules_texts().odds)
}

/// The return to players as the rules panel words it.
fn rtp_line(lang: Lang) -> String {
    let rtp = format_ratio(rtp_basis_points(), 100, 0, lang.money_notation());
    let percent = match lang {
        Lang::Fr => "\u{A0}%",
        Lang::En => "%",
    };
    format!("{} {rtp}{percent}", lang.rules_texts().rtp)
}

/// The top prize at each stake.
fn max_win_line(lang: Lang) -> String {
    let t = lang.rules_texts();
    let money = lang.money_notation();
    let each: Vec<String> = Stake::ALL
        .into_iter()
        .map(|stake| {
            format!(
                "{} ({} {})",
                format_cents_short(max_win_cents(stake), money),
                t.stake_word,
                format_cents_short(stake.cents(), money)
            )
        })
        .collect();
    format!("{} {}", t.max_win, each.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    const NBSP: char = '\u{A0}';

    #[test]
    fn the_facts_are_the_engines() {
        let fr = rules_page(Lang::Fr);
        assert!(fr.contains("<li>Chances de gain : 1 ticket gagnant sur 6,62</li>"));
        assert!(fr.contains(&format!("<li>Taux de retour aux joueurs : 70{NBSP}%</li>")));
        let en = rules_page(Lang::En);
        assert!(en.contains("<li>Odds of winning: 1 winning ticket in 6.62</li>"));
        assert!(en.contains("<li>Return to players: 70%</li>"));
        assert!(en.contains("€14,000 (stake €2)"), "{en}");
    }

    #[test]
    fn every_rank_and_every_paying_combination_has_a_row() {
        let page = rules_page(Lang::Fr);
        let paying = Combination::all().filter(|c| c.award().is_some()).count();
        assert_eq!(page.matches("<canvas class='eld-sym'").count(), paying);
        // Both tables' heads, one row per paying combination, one per rank.
        assert_eq!(page.matches("<tr>").count(), 2 + paying + RANKS.len());
        assert_eq!(
            page.matches("colspan='4'").count(),
            page.matches("1 Extra<").count()
        );
    }

    #[test]
    fn texts_are_escaped_and_pictures_name_their_symbol() {
        let en = rules_page(Lang::En);
        assert!(en.contains("press &quot;Play&quot;"));
        assert!(!en.contains("\"Play\""));
        for symbol in Symbol::ALL {
            let code = char::from(symbol.code()).to_string();
            assert_eq!(symbol_at(&code), Some(symbol));
            assert!(en.contains(&format!("data-symbol='{code}'")) || symbol == Symbol::Chance);
        }
        assert_eq!(symbol_at("X"), None);
        assert_eq!(symbol_at("PP"), None);
        assert_eq!(symbol_at(""), None);
    }
}
