//! Timing of the reveal: the three rows together, column by column, and
//! the player's hand on it (a column uncovered early by a tap, a drag or
//! the keyboard). Pure: what is uncovered when is decided here alone.

use eldorado_engine::grid::COLS;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timing {
    /// How long one column takes to turn over.
    pub column_ms: f64,
    /// Delay between the starts of two neighbouring columns.
    pub stagger_ms: f64,
}

impl Timing {
    pub const NORMAL: Timing = Timing {
        column_ms: 380.0,
        stagger_ms: 330.0,
    };
    /// `prefers-reduced-motion`: no turning, columns simply appear quickly.
    pub const REDUCED: Timing = Timing {
        column_ms: 0.0,
        stagger_ms: 70.0,
    };

    /// The « Turbo » choice: the same turn, three times quicker.
    pub const TURBO: Timing = Timing {
        column_ms: 150.0,
        stagger_ms: 110.0,
    };

    pub fn for_motion(reduced: bool) -> Timing {
        if reduced {
            Timing::REDUCED
        } else {
            Timing::NORMAL
        }
    }

    /// The timing for the player's motion preference and turbo choice
    /// (reduced motion wins: it never turns).
    pub fn chosen(reduced: bool, turbo: bool) -> Timing {
        match (reduced, turbo) {
            (true, _) => Timing::REDUCED,
            (false, true) => Timing::TURBO,
            (false, false) => Timing::NORMAL,
        }
    }

    pub fn total_ms(self) -> f64 {
        self.stagger_ms * (COLS as f64 - 1.0) + self.column_ms
    }

    /// How far column `col` has turned (0 hidden, 1 shown) `elapsed` ms in.
    pub fn progress(self, col: usize, elapsed: f64) -> f64 {
        let local = elapsed - self.stagger_ms * col as f64;
        if local < 0.0 {
            0.0
        } else if self.column_ms <= 0.0 || local >= self.column_ms {
            1.0
        } else {
            local / self.column_ms
        }
    }

    pub fn is_done(self, elapsed: f64) -> bool {
        elapsed >= self.total_ms()
    }
}

/// One running reveal: when each column starts turning, `elapsed` ms after
/// the reveal began. Columns start one after another on their own; the
/// player may start any column sooner, never later.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reveal {
    timing: Timing,
    starts: [f64; COLS],
}

impl Reveal {
    pub fn new(timing: Timing) -> Reveal {
        let mut starts = [0.0; COLS];
        for (col, start) in starts.iter_mut().enumerate() {
            *start = timing.stagger_ms * col as f64;
        }
        Reveal { timing, starts }
    }

    /// The player uncovers `col` at `elapsed`: it starts turning now if it
    /// had not started yet. Returns whether that changed anything.
    pub fn uncover(&mut self, col: usize, elapsed: f64) -> bool {
        match self.starts.get_mut(col) {
            Some(start) if *start > elapsed => {
                *start = elapsed.max(0.0);
                true
            }
            _ => false,
        }
    }

    /// How far `col` has turned (0 hidden, 1 shown) `elapsed` ms in.
    pub fn progress(&self, col: usize, elapsed: f64) -> f64 {
        let Some(start) = self.starts.get(col) else {
            return 1.0;
        };
        let local = elapsed - start;
        if local < 0.0 {
            0.0
        } else if self.timing.column_ms <= 0.0 || local >= self.timing.column_ms {
            1.0
        } else {
            local / self.timing.column_ms
        }
    }

    /// Every column fully turned.
    pub fn is_done(&self, elapsed: f64) -> bool {
        (0..COLS).all(|col| self.progress(col, elapsed) >= 1.0)
    }

    /// The first column not yet started at `elapsed` (for the keyboard).
    pub fn next_covered(&self, elapsed: f64) -> Option<usize> {
        (0..COLS).find(|&col| self.starts[col] > elapsed)
    }
}

/// How a cell looks at a given turning progress: the cover shrinks to a
/// line, then the symbol grows back, like a card turned on its axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Face {
    Cover { scale: f64 },
    Symbol { scale: f64 },
}

pub fn face(progress: f64) -> Face {
    if progress >= 1.0 {
        Face::Symbol { scale: 1.0 }
    } else if progress < 0.5 {
        Face::Cover {
            scale: 1.0 - progress * 2.0,
        }
    } else {
        Face::Symbol {
            scale: (progress - 0.5) * 2.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_turn_left_to_right() {
        let t = Timing::NORMAL;
        assert_eq!(t.progress(0, 0.0), 0.0);
        assert!(t.progress(0, 200.0) > t.progress(1, 200.0));
        assert_eq!(t.progress(4, t.total_ms()), 1.0);
        assert!(t.is_done(t.total_ms()));
        assert!(!t.is_done(t.total_ms() - 1.0));
    }

    #[test]
    fn reduced_motion_is_short_and_has_no_turn() {
        let t = Timing::REDUCED;
        assert!(t.total_ms() < Timing::NORMAL.total_ms() / 4.0);
        assert_eq!(t.progress(1, 70.0), 1.0);
        assert_eq!(face(t.progress(2, 10.0)), Face::Cover { scale: 1.0 });
    }

    #[test]
    fn without_the_player_a_reveal_follows_its_timing() {
        let t = Timing::NORMAL;
        let r = Reveal::new(t);
        for elapsed in [0.0, 100.0, 500.0, 1000.0, t.total_ms()] {
            for col in 0..COLS {
                assert_eq!(r.progress(col, elapsed), t.progress(col, elapsed));
            }
            assert_eq!(r.is_done(elapsed), t.is_done(elapsed));
        }
    }

    #[test]
    fn a_tapped_column_starts_at_once_and_the_others_keep_their_turn() {
        let t = Timing::NORMAL;
        let mut r = Reveal::new(t);
        assert!(r.uncover(4, 100.0));
        assert_eq!(r.progress(4, 100.0), 0.0);
        assert_eq!(r.progress(4, 100.0 + t.column_ms), 1.0);
        assert_eq!(r.progress(3, 100.0 + t.column_ms), 0.0, "3 still waits");
        assert_eq!(r.progress(0, 100.0), t.progress(0, 100.0));
        // Never later: a second tap, or one on a column already turning, changes nothing.
        assert!(!r.uncover(4, 200.0));
        assert!(!r.uncover(0, 100.0));
        assert!(!r.uncover(COLS, 0.0), "no such column");
    }

    #[test]
    fn uncovering_every_column_ends_the_reveal_sooner() {
        let t = Timing::NORMAL;
        let mut r = Reveal::new(t);
        for col in 0..COLS {
            r.uncover(col, 50.0);
        }
        assert!(r.is_done(50.0 + t.column_ms));
        assert!(!Reveal::new(t).is_done(50.0 + t.column_ms));
        assert_eq!(r.next_covered(60.0), None);
    }

    #[test]
    fn the_keyboard_takes_the_next_covered_column() {
        let t = Timing::NORMAL;
        let mut r = Reveal::new(t);
        assert_eq!(r.next_covered(0.0), Some(1), "column 0 starts at once");
        r.uncover(1, 10.0);
        assert_eq!(r.next_covered(10.0), Some(2));
        assert_eq!(r.next_covered(t.stagger_ms * 3.0), Some(4));
    }

    #[test]
    fn turbo_is_quicker_and_reduced_motion_wins() {
        assert!(Timing::TURBO.total_ms() * 2.5 < Timing::NORMAL.total_ms());
        assert_eq!(Timing::chosen(false, true), Timing::TURBO);
        assert_eq!(Timing::chosen(true, true), Timing::REDUCED);
        assert_eq!(Timing::chosen(false, false), Timing::NORMAL);
    }

    #[test]
    fn faces() {
        assert_eq!(face(0.25), Face::Cover { scale: 0.5 });
        assert_eq!(face(0.75), Face::Symbol { scale: 0.5 });
        assert_eq!(face(1.0), Face::Symbol { scale: 1.0 });
    }
}
