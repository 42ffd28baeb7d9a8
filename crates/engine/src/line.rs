//! Evaluating one line of five cells (SPEC §4).

use crate::grid::Line;
use crate::symbol::Symbol;

/// What a combination gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Award {
    /// A win of this many stakes.
    Win(u32),
    /// One Extra step.
    Extra,
}

/// A combination: a symbol with its effective count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Combination {
    pub symbol: Symbol,
    pub effective: u8,
}

impl Combination {
    /// The table of SPEC §4, or `None` where the cell of the table is empty.
    pub const fn award(self) -> Option<Award> {
        use Award::{Extra, Win};
        use Symbol::*;
        match (self.symbol, self.effective) {
            (Pyramide, 5) => Some(Win(7000)),
            (Pyramide, 4) => Some(Win(150)),
            (Pyramide, 3) => Some(Win(10)),
            (Pyramide, 2) => Some(Win(2)),
            (Pyramide, 1) => Some(Extra),
            (Coffre, 5) => Some(Win(450)),
            (Coffre, 4) => Some(Win(25)),
            (Coffre, 3) => Some(Win(2)),
            (Coffre, 2) => Some(Extra),
            (Soleil, 5) => Some(Win(150)),
            (Soleil, 4) => Some(Win(5)),
            (Soleil, 3) => Some(Extra),
            (Dague, 5) => Some(Win(50)),
            (Dague, 4) => Some(Extra),
            (Perroquet, 5) => Some(Extra),
            _ => None,
        }
    }

    /// Every combination of the table, in the order of SPEC §4.
    pub fn all() -> impl Iterator<Item = Combination> {
        Symbol::COMBINING.into_iter().flat_map(|symbol| {
            (1..=5).filter_map(move |effective| {
                let combination = Combination { symbol, effective };
                combination.award().map(|_| combination)
            })
        })
    }

    /// The smallest effective count at which `symbol` forms a combination.
    pub const fn threshold(symbol: Symbol) -> u8 {
        match symbol {
            Symbol::Pyramide => 1,
            Symbol::Coffre => 2,
            Symbol::Soleil => 3,
            Symbol::Dague => 4,
            Symbol::Perroquet => 5,
            Symbol::Chance => u8::MAX,
        }
    }
}

/// The outcome of a valid line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LineOutcome {
    Lose,
    Win {
        combination: Combination,
        multiple: u32,
    },
    Extra {
        combination: Combination,
    },
}

/// Why a line breaks the rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
pub enum LineError {
    #[error("a line holds {0} Chance symbols; at most one is allowed")]
    SeveralChance(u8),
    // Display only: the browser's bundle is built without Debug formatting.
    #[error("a line forms two combinations ({} and {})", .0.name_fr(), .1.name_fr())]
    TwoCombinations(Symbol, Symbol),
}

/// Counts of each symbol on a line, indexed by [`Symbol::index`].
pub fn counts(line: &Line) -> [u8; 6] {
    let mut counts = [0u8; 6];
    for symbol in line {
        counts[symbol.index()] += 1;
    }
    counts
}

/// Evaluates a line per SPEC §4: exact counts, the Chance counted with every
/// symbol present, at most one Chance and at most one combination.
pub fn evaluate_line(line: &Line) -> Result<LineOutcome, LineError> {
    let counts = counts(line);
    let chance = counts[Symbol::Chance.index()];
    if chance > 1 {
        return Err(LineError::SeveralChance(chance));
    }
    let mut found: Option<Combination> = None;
    for symbol in Symbol::COMBINING {
        let n = counts[symbol.index()];
        if n == 0 {
            continue;
        }
        let combination = Combination {
            symbol,
            effective: n + chance,
        };
        if combination.award().is_some() {
            if let Some(first) = found {
                return Err(LineError::TwoCombinations(first.symbol, symbol));
            }
            found = Some(combination);
        }
    }
    Ok(match found {
        None => LineOutcome::Lose,
        Some(combination) => match combination.award() {
            Some(Award::Win(multiple)) => LineOutcome::Win {
                combination,
                multiple,
            },
            _ => LineOutcome::Extra { combination },
        },
    })
}
