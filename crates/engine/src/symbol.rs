//! The six symbols of SPEC §3 and their one-letter codes.

use std::fmt;

/// A symbol of the grid. The discriminant order is the order of SPEC §3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Symbol {
    /// `P`, pyramide: wins, and a single one gives an Extra.
    Pyramide,
    /// `C`, coffre.
    Coffre,
    /// `S`, soleil.
    Soleil,
    /// `D`, dague.
    Dague,
    /// `M`, Chance (masque): stands in for one missing symbol.
    Chance,
    /// `R`, perroquet: Extra only.
    Perroquet,
}

impl Symbol {
    pub const ALL: [Symbol; 6] = [
        Symbol::Pyramide,
        Symbol::Coffre,
        Symbol::Soleil,
        Symbol::Dague,
        Symbol::Chance,
        Symbol::Perroquet,
    ];

    /// The symbols that can form a combination on their own (all but the Chance).
    pub const COMBINING: [Symbol; 5] = [
        Symbol::Pyramide,
        Symbol::Coffre,
        Symbol::Soleil,
        Symbol::Dague,
        Symbol::Perroquet,
    ];

    /// The code used in every text form, export and signed byte string.
    pub const fn code(self) -> u8 {
        match self {
            Symbol::Pyramide => b'P',
            Symbol::Coffre => b'C',
            Symbol::Soleil => b'S',
            Symbol::Dague => b'D',
            Symbol::Chance => b'M',
            Symbol::Perroquet => b'R',
        }
    }

    pub const fn from_code(code: u8) -> Option<Symbol> {
        Some(match code {
            b'P' => Symbol::Pyramide,
            b'C' => Symbol::Coffre,
            b'S' => Symbol::Soleil,
            b'D' => Symbol::Dague,
            b'M' => Symbol::Chance,
            b'R' => Symbol::Perroquet,
            _ => return None,
        })
    }

    /// Dense index 0..6, for counting arrays.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// French name as printed in the rules.
    pub const fn name_fr(self) -> &'static str {
        match self {
            Symbol::Pyramide => "pyramide",
            Symbol::Coffre => "coffre",
            Symbol::Soleil => "soleil",
            Symbol::Dague => "dague",
            Symbol::Chance => "Chance",
            Symbol::Perroquet => "perroquet",
        }
    }
}

impl fmt::Display for Symbol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.code() as char)
    }
}
