//! SPEC §2 and §4 transcribed by hand, and a line evaluator written from the
//! SPEC text alone. The tests compare the engine with this, so nothing here
//! may call the engine: a mistake shared by both would go unseen.

/// A cell of the SPEC §4 table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell {
    /// "win k·s"
    Win(u32),
    /// "Extra"
    Extra,
    /// "Extra only if `m = 0`"
    ExtraIfNoChance,
    /// "–"
    Dash,
}

use Cell::{Dash, Extra, ExtraIfNoChance, Win};

/// The columns of SPEC §4, left to right.
pub const COLUMNS: [u8; 5] = *b"PCSDR";

/// SPEC §4, row by row as printed: e(X), then the cells for P, C, S, D, R.
pub const LINE_TABLE: [(u8, [Cell; 5]); 5] = [
    (5, [Win(7000), Win(450), Win(150), Win(50), Extra]),
    (4, [Win(150), Win(25), Win(5), Extra, Dash]),
    (3, [Win(10), Win(2), Extra, Dash, Dash]),
    (2, [Win(2), Extra, Dash, Dash, Dash]),
    (1, [ExtraIfNoChance, Dash, Dash, Dash, Dash]),
];

/// SPEC §2: rank, prize in stakes, allowed decompositions (largest line first).
pub const PRIZE_TABLE: [(u8, u32, &[&[u32]]); 10] = [
    (1, 7000, &[&[7000]]),
    (2, 450, &[&[450], &[150, 150, 150]]),
    (3, 150, &[&[150], &[50, 50, 50]]),
    (4, 50, &[&[50], &[25, 25]]),
    (5, 25, &[&[25], &[10, 10, 5]]),
    (6, 10, &[&[10], &[5, 5]]),
    (7, 7, &[&[5, 2]]),
    (8, 5, &[&[5]]),
    (9, 4, &[&[2, 2]]),
    (10, 2, &[&[2]]),
];

/// The rank whose allowed decompositions include `lines` (largest first).
pub fn rank_of_lines(lines: &[u32]) -> Option<(u8, u32)> {
    PRIZE_TABLE
        .iter()
        .find(|(_, _, decompositions)| decompositions.contains(&lines))
        .map(|&(rank, prize, _)| (rank, prize))
}

/// What SPEC §4 says of one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Lose,
    Win {
        symbol: u8,
        effective: u8,
        multiple: u32,
    },
    Extra {
        symbol: u8,
        effective: u8,
    },
    /// Two or more `M`: the count.
    SeveralChance(u8),
    /// Every symbol that forms a combination (two or more).
    TwoCombinations(Vec<u8>),
}

impl Verdict {
    pub fn is_valid(&self) -> bool {
        !matches!(
            self,
            Verdict::SeveralChance(_) | Verdict::TwoCombinations(_)
        )
    }

    pub fn win(&self) -> Option<u32> {
        match self {
            Verdict::Win { multiple, .. } => Some(*multiple),
            _ => None,
        }
    }

    pub fn is_extra(&self) -> bool {
        matches!(self, Verdict::Extra { .. })
    }
}

/// SPEC §4 read literally: at most one `M`; `e(X) = n(X) + m` when `n(X) >= 1`;
/// exact counts; at most one combination per line.
pub fn judge_line(codes: &[u8; 5]) -> Verdict {
    let count = |code: u8| codes.iter().filter(|&&c| c == code).count() as u8;
    let m = count(b'M');
    if m >= 2 {
        return Verdict::SeveralChance(m);
    }
    let mut found = Vec::new();
    for (column, &symbol) in COLUMNS.iter().enumerate() {
        let n = count(symbol);
        if n == 0 {
            continue;
        }
        let effective = n + m;
        let (_, cells) = LINE_TABLE
            .iter()
            .find(|(e, _)| *e == effective)
            .expect("e(X) is 1..=5 on a line of five");
        match cells[column] {
            Win(multiple) => found.push(Verdict::Win {
                symbol,
                effective,
                multiple,
            }),
            Extra => found.push(Verdict::Extra { symbol, effective }),
            ExtraIfNoChance if m == 0 => found.push(Verdict::Extra { symbol, effective }),
            ExtraIfNoChance | Dash => {}
        }
    }
    match found.len() {
        0 => Verdict::Lose,
        1 => found.pop().unwrap(),
        _ => Verdict::TwoCombinations(
            found
                .iter()
                .map(|v| match v {
                    Verdict::Win { symbol, .. } | Verdict::Extra { symbol, .. } => *symbol,
                    _ => unreachable!(),
                })
                .collect(),
        ),
    }
}

/// All 6^5 lines over `PCSDMR`.
pub fn every_line() -> impl Iterator<Item = [u8; 5]> {
    const CODES: &[u8; 6] = b"PCSDMR";
    (0..6usize.pow(5)).map(|mut n| {
        let mut line = [0u8; 5];
        for cell in &mut line {
            *cell = CODES[n % 6];
            n /= 6;
        }
        line
    })
}
