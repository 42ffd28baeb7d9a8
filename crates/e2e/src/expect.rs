//! What the page must show, written out independently of the page's code:
//! the seeded block the server sells from, and the French and English
//! texts of amounts, grids and outcomes.

use crate::api::BlockInfo;
use eldorado_engine::generate::demo_rng;
use eldorado_engine::{generate_block, Block, Params, Stake, Symbol, Ticket};

/// The block `eldorado serve --demo-seed seed` generates as block `id`,
/// from the engine's `demo_rng` as the server does. The caller still
/// compares the root with the server's signed commitment, so any drift fails
/// loudly instead of making the test compare against the wrong tickets.
pub fn demo_block(seed: u64, id: u64, stake: Stake) -> Block {
    let mut rng = demo_rng(seed, id);
    generate_block(id, stake, &Params::default(), &mut rng).expect("default parameters are valid")
}

/// The tickets of `open`, the block on sale, as `--demo-seed seed` generates
/// them (on a blocking thread: a whole block takes a while), checked against
/// the root the server signed.
pub async fn seeded_block(open: &BlockInfo, seed: u64, stake: Stake) -> Block {
    let block_id = open.commitment.commitment.block;
    let block = tokio::task::spawn_blocking(move || demo_block(seed, block_id, stake))
        .await
        .expect("generate the seeded block");
    assert_eq!(
        block.root(),
        open.commitment.commitment.root,
        "the test's copy of the seeded block differs from the server's: \
         did the demo seed derivation change?"
    );
    block
}

/// A ticket that wins on its main grid, with no Extras.
pub fn wins_directly(ticket: &Ticket) -> bool {
    ticket.prize_cents > 0 && ticket.extras == 0
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    Fr,
    En,
}

/// `150` → `1,50 €` (no-break space before the sign, narrow no-break space
/// between thousands) or `€1.50`.
pub fn money(cents: u64, lang: Lang) -> String {
    let (euros, rest) = (cents / 100, cents % 100);
    let digits = euros.to_string();
    let mut grouped = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            grouped.push(match lang {
                Lang::Fr => '\u{202F}',
                Lang::En => ',',
            });
        }
        grouped.push(digit);
    }
    match lang {
        Lang::Fr => format!("{grouped},{rest:02}\u{A0}€"),
        Lang::En => format!("€{grouped}.{rest:02}"),
    }
}

fn symbol_name(symbol: Symbol, lang: Lang) -> &'static str {
    match (lang, symbol) {
        (Lang::Fr, Symbol::Pyramide) => "pyramide",
        (Lang::Fr, Symbol::Coffre) => "coffre",
        (Lang::Fr, Symbol::Soleil) => "soleil",
        (Lang::Fr, Symbol::Dague) => "dague",
        (Lang::Fr, Symbol::Chance) => "Chance (masque)",
        (Lang::Fr, Symbol::Perroquet) => "perroquet",
        (Lang::En, Symbol::Pyramide) => "pyramid",
        (Lang::En, Symbol::Coffre) => "chest",
        (Lang::En, Symbol::Soleil) => "sun",
        (Lang::En, Symbol::Dague) => "dagger",
        (Lang::En, Symbol::Chance) => "Chance (mask)",
        (Lang::En, Symbol::Perroquet) => "parrot",
    }
}

/// How the page reads grid `index` of `ticket` out, line by line: the only
/// text form of the symbols drawn on the canvas.
pub fn spoken_grid(ticket: &Ticket, index: usize, lang: Lang) -> String {
    let word = match lang {
        Lang::Fr => "Ligne",
        Lang::En => "Line",
    };
    let mut out = String::new();
    for (r, row) in ticket.grids[index].rows().iter().enumerate() {
        let names: Vec<&str> = row.iter().map(|s| symbol_name(*s, lang)).collect();
        out.push_str(&format!("{word} {} : {}. ", r + 1, names.join(", ")));
    }
    out
}

/// The congratulation window of SPEC §6.
pub fn you_win(cents: u64, lang: Lang) -> String {
    match lang {
        Lang::Fr => format!("Vous gagnez {}", money(cents, lang)),
        Lang::En => format!("You win {}", money(cents, lang)),
    }
}

pub fn you_get_extras(extras: u8) -> String {
    match extras {
        0 | 1 => format!("Vous obtenez {extras} Extra"),
        _ => format!("Vous obtenez {extras} Extras"),
    }
}

/// A history row's result cell.
pub fn history_result(prize_cents: u64, lang: Lang) -> String {
    match (lang, prize_cents) {
        (Lang::Fr, 0) => "Perdu".to_owned(),
        (Lang::En, 0) => "No win".to_owned(),
        (Lang::Fr, prize) => format!("Gagné {}", money(prize, lang)),
        (Lang::En, prize) => format!("Won {}", money(prize, lang)),
    }
}

/// The badge of a ticket verified and proved on the public record.
pub const ON_RECORD: &str = "✓ Vérifié — inscrit au registre public";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts() {
        assert_eq!(money(5000, Lang::Fr), "50,00\u{A0}€");
        assert_eq!(money(5, Lang::Fr), "0,05\u{A0}€");
        assert_eq!(money(700_000, Lang::Fr), "7\u{202F}000,00\u{A0}€");
        assert_eq!(money(123_456_789, Lang::En), "€1,234,567.89");
        assert_eq!(money(4900, Lang::En), "€49.00");
    }
}
