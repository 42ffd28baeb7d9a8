//! A 3×5 grid and its text form `SDRCD/PPSDR/RSDCM` (SPEC §3).

use crate::symbol::Symbol;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

pub const ROWS: usize = 3;
pub const COLS: usize = 5;
pub const CELLS: usize = ROWS * COLS;

/// One line (row) of a grid.
pub type Line = [Symbol; COLS];

/// A grid, row by row. Any arrangement of symbols can be held; whether it is
/// valid under the rules is decided by [`crate::evaluate`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Grid {
    rows: [Line; ROWS],
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GridParseError {
    // Display only: the browser's bundle is built without Debug formatting.
    #[error("a grid is 3 rows of 5 symbols separated by '/', got \"{0}\"")]
    Shape(String),
    #[error("unknown symbol '{0}' (the codes are P C S D M R)")]
    UnknownSymbol(char),
}

impl Grid {
    pub const fn from_rows(rows: [Line; ROWS]) -> Grid {
        Grid { rows }
    }

    pub fn rows(&self) -> &[Line; ROWS] {
        &self.rows
    }

    pub fn cell(&self, row: usize, col: usize) -> Symbol {
        self.rows[row][col]
    }

    /// The 15 one-letter codes row by row, without separators: the form hashed
    /// and signed (docs/PROTOCOL.md).
    pub fn codes(&self) -> [u8; CELLS] {
        let mut out = [0u8; CELLS];
        for (i, symbol) in self.rows.iter().flatten().enumerate() {
            out[i] = symbol.code();
        }
        out
    }

    pub fn from_codes(codes: &[u8]) -> Result<Grid, GridParseError> {
        match codes.try_into() {
            Ok(cells) => Grid::from_cells(cells),
            Err(_) => Err(GridParseError::Shape(
                String::from_utf8_lossy(codes).into_owned(),
            )),
        }
    }

    // The text form reaches here with its shape already checked, so the
    // browser's module does not carry the lossy UTF-8 decoder of
    // `from_codes`' error.
    fn from_cells(codes: &[u8; CELLS]) -> Result<Grid, GridParseError> {
        let mut rows = [[Symbol::Pyramide; COLS]; ROWS];
        for (i, &code) in codes.iter().enumerate() {
            rows[i / COLS][i % COLS] =
                Symbol::from_code(code).ok_or(GridParseError::UnknownSymbol(code as char))?;
        }
        Ok(Grid { rows })
    }
}

impl FromStr for Grid {
    type Err = GridParseError;
    fn from_str(text: &str) -> Result<Grid, GridParseError> {
        // Rows of COLS bytes with a '/' after each but the last, and no other
        // '/': the separators have fixed places, so the bytes are read
        // directly rather than through `split` (issue 13: the page's size).
        let bytes = text.as_bytes();
        let shaped = bytes.len() == ROWS * (COLS + 1) - 1
            && bytes
                .iter()
                .enumerate()
                .all(|(i, &b)| (b == b'/') == (i % (COLS + 1) == COLS));
        if !shaped {
            return Err(GridParseError::Shape(text.to_owned()));
        }
        if let Some(bad) = text.chars().find(|c| *c != '/' && !c.is_ascii()) {
            return Err(GridParseError::UnknownSymbol(bad));
        }
        let mut codes = [0u8; CELLS];
        for (code, &b) in codes.iter_mut().zip(bytes.iter().filter(|&&b| b != b'/')) {
            *code = b;
        }
        Grid::from_cells(&codes)
    }
}

impl fmt::Display for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (r, row) in self.rows.iter().enumerate() {
            if r > 0 {
                f.write_str("/")?;
            }
            for symbol in row {
                write!(f, "{symbol}")?;
            }
        }
        Ok(())
    }
}

impl TryFrom<String> for Grid {
    type Error = GridParseError;
    fn try_from(text: String) -> Result<Self, Self::Error> {
        text.parse()
    }
}

impl From<Grid> for String {
    fn from(grid: Grid) -> String {
        grid.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_form_round_trips() {
        let grid: Grid = "SDRCD/PPSDR/RSDCM".parse().unwrap();
        assert_eq!(grid.to_string(), "SDRCD/PPSDR/RSDCM");
        assert_eq!(grid.cell(2, 4), Symbol::Chance);
        assert_eq!(&grid.codes(), b"SDRCDPPSDRRSDCM");
    }

    #[test]
    fn malformed_text_is_rejected() {
        for bad in [
            "",
            "SDRCD/PPSDR",
            "SDRCD/PPSDR/RSDC",
            "SDRCD/PPSDR/RSDCMM",
            "SDRCD/PPSDR/RSDCX",
            "SDRCD/PPSDR/RSDCé",
        ] {
            assert!(bad.parse::<Grid>().is_err(), "{bad:?} parsed");
        }
        assert_eq!(
            "SDRCD/PPSDR/RSDCX".parse::<Grid>(),
            Err(GridParseError::UnknownSymbol('X'))
        );
    }
}
