//! Building valid lines and grids directly from what they must show.
//!
//! Every line is assembled from its combination plus "filler" symbols drawn
//! only among those that cannot form a second combination, so no grid is
//! ever rejected and retried.

use crate::grid::{Grid, Line, COLS, ROWS};
use crate::line::{Award, Combination};
use crate::symbol::Symbol;
use rand::seq::{IndexedRandom, SliceRandom};
use rand::Rng;

/// How often a combination of two or more uses the Chance (cosmetic).
const CHANCE_IN_COMBINATION: f64 = 0.25;
/// How often a losing line shows a harmless Chance (cosmetic).
const CHANCE_IN_LOSING_LINE: f64 = 0.15;

/// What one line must show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineKind {
    Lose,
    Show(Combination),
}

/// The combinations that realise each line amount, and the Extra combinations.
#[derive(Clone, Debug)]
pub struct Palette {
    wins: Vec<(u32, Vec<Combination>)>,
    extras: Vec<Combination>,
}

impl Palette {
    pub fn new() -> Palette {
        let mut wins: Vec<(u32, Vec<Combination>)> = Vec::new();
        let mut extras = Vec::new();
        for combination in Combination::all() {
            match combination.award() {
                Some(Award::Win(amount)) => match wins.iter_mut().find(|(a, _)| *a == amount) {
                    Some((_, list)) => list.push(combination),
                    None => wins.push((amount, vec![combination])),
                },
                Some(Award::Extra) => extras.push(combination),
                None => {}
            }
        }
        Palette { wins, extras }
    }

    /// A random combination paying `amount` stakes; `None` if no line pays it.
    pub fn win<R: Rng + ?Sized>(&self, rng: &mut R, amount: u32) -> Option<LineKind> {
        let (_, list) = self.wins.iter().find(|(a, _)| *a == amount)?;
        list.choose(rng).copied().map(LineKind::Show)
    }

    pub fn extra<R: Rng + ?Sized>(&self, rng: &mut R) -> LineKind {
        LineKind::Show(
            *self
                .extras
                .choose(rng)
                .expect("the table has Extra combinations"),
        )
    }
}

impl Default for Palette {
    fn default() -> Self {
        Palette::new()
    }
}

/// Builds a line showing exactly `kind` and nothing else.
pub fn build_line<R: Rng + ?Sized>(rng: &mut R, kind: LineKind) -> Line {
    let mut cells = [Symbol::Perroquet; COLS];
    let mut filled = 0;
    let (shown, chance) = match kind {
        LineKind::Lose => (None, rng.random_bool(CHANCE_IN_LOSING_LINE)),
        LineKind::Show(c) => (
            Some(c.symbol),
            c.effective >= 2 && rng.random_bool(CHANCE_IN_COMBINATION),
        ),
    };
    if let LineKind::Show(c) = kind {
        let own = c.effective - u8::from(chance);
        for _ in 0..own {
            cells[filled] = c.symbol;
            filled += 1;
        }
    }
    if chance {
        cells[filled] = Symbol::Chance;
        filled += 1;
    }
    // A filler Y may appear while n(Y) + m stays below Y's threshold.
    let mut room: Vec<(Symbol, u8)> = Symbol::COMBINING
        .into_iter()
        .filter(|&y| Some(y) != shown)
        .map(|y| {
            (
                y,
                Combination::threshold(y).saturating_sub(1 + u8::from(chance)),
            )
        })
        .filter(|&(_, n)| n > 0)
        .collect();
    while filled < COLS {
        let pick = rng.random_range(0..room.len());
        cells[filled] = room[pick].0;
        filled += 1;
        room[pick].1 -= 1;
        if room[pick].1 == 0 {
            room.swap_remove(pick);
        }
    }
    cells.shuffle(rng);
    cells
}

/// Builds a grid whose lines show `kinds`, in a random row order.
pub fn build_grid<R: Rng + ?Sized>(rng: &mut R, mut kinds: [LineKind; ROWS]) -> Grid {
    kinds.shuffle(rng);
    Grid::from_rows(kinds.map(|kind| build_line(rng, kind)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::line::{evaluate_line, LineOutcome};
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    #[test]
    fn built_lines_show_exactly_what_was_asked() {
        let mut rng = ChaCha20Rng::seed_from_u64(7);
        for _ in 0..2_000 {
            assert_eq!(
                evaluate_line(&build_line(&mut rng, LineKind::Lose)),
                Ok(LineOutcome::Lose)
            );
            for combination in Combination::all() {
                let line = build_line(&mut rng, LineKind::Show(combination));
                let shown = match evaluate_line(&line).unwrap() {
                    LineOutcome::Win { combination, .. } | LineOutcome::Extra { combination } => {
                        combination
                    }
                    LineOutcome::Lose => panic!("{line:?} loses"),
                };
                assert_eq!(shown, combination, "{line:?}");
            }
        }
    }
}
