//! Timing of the reveal: the three rows together, column by column.

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

    pub fn for_motion(reduced: bool) -> Timing {
        if reduced {
            Timing::REDUCED
        } else {
            Timing::NORMAL
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
    fn faces() {
        assert_eq!(face(0.25), Face::Cover { scale: 0.5 });
        assert_eq!(face(0.75), Face::Symbol { scale: 0.5 });
        assert_eq!(face(1.0), Face::Symbol { scale: 1.0 });
    }
}
