//! Canvas geometry in device pixels, so the grid is sharp at any size and
//! device pixel ratio.

use eldorado_engine::grid::{COLS, ROWS};

/// Largest backing store side: keeps memory bounded on huge zoomed screens.
const MAX_SIDE: f64 = 4096.0;

/// The backing store size for a canvas shown `css_w`×`css_h` CSS pixels at
/// `dpr` device pixels per CSS pixel.
pub fn backing_size(css_w: f64, css_h: f64, dpr: f64) -> (u32, u32) {
    let dpr = if dpr.is_finite() && dpr > 0.0 {
        dpr
    } else {
        1.0
    };
    let side = |css: f64| {
        let css = if css.is_finite() { css.max(0.0) } else { 0.0 };
        (css * dpr).round().clamp(1.0, MAX_SIDE) as u32
    };
    (side(css_w), side(css_h))
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

/// Gaps and margins scale with the cell, so the look is the same at every size.
const GAP_RATIO: f64 = 0.08;
const MARGIN_RATIO: f64 = 0.12;
/// The rail of prize plates beside the lines, in cells: « 0,50 € » fits at
/// the plates' full font, longer amounts at a smaller one.
const RAIL_RATIO: f64 = 0.96;

/// The board's width, in cells: cols·cell + cols·gap + rail + 2·margin.
const ACROSS: f64 = COLS as f64 + COLS as f64 * GAP_RATIO + RAIL_RATIO + 2.0 * MARGIN_RATIO;
/// Its height, in cells: rows·cell + (rows−1)·gap + 2·margin.
const DOWN: f64 = ROWS as f64 + (ROWS as f64 - 1.0) * GAP_RATIO + 2.0 * MARGIN_RATIO;

/// The board's width over its height when the cells fill it both ways:
/// the CSS `aspect-ratio` of the board's and the history's canvases
/// (33 / 17 in www/style.css).
pub const ASPECT: f64 = ACROSS / DOWN;

/// The cells of a 3×5 grid and, beside its lines, a rail for their prize
/// plates, the two centred together in a `width`×`height` device-pixel area.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoardLayout {
    pub width: f64,
    pub height: f64,
    pub cell: f64,
    pub gap: f64,
    /// The plate rail's width.
    pub rail: f64,
    pub origin_x: f64,
    pub origin_y: f64,
}

impl BoardLayout {
    pub fn new(width: u32, height: u32) -> BoardLayout {
        let (width, height) = (f64::from(width), f64::from(height));
        let (cols, rows) = (COLS as f64, ROWS as f64);
        let cell = (width / ACROSS).min(height / DOWN).floor().max(1.0);
        let gap = (cell * GAP_RATIO).round();
        let rail = (cell * RAIL_RATIO).round();
        let used_w = cell * cols + gap * cols + rail;
        let used_h = cell * rows + gap * (rows - 1.0);
        BoardLayout {
            width,
            height,
            cell,
            gap,
            rail,
            origin_x: ((width - used_w) / 2.0).round(),
            origin_y: ((height - used_h) / 2.0).round(),
        }
    }

    /// Line `row`'s prize plate: in the rail beside the line, clear of
    /// every cell and of the line's frame.
    pub fn plate_rect(&self, row: usize) -> Rect {
        let cell = self.cell_rect(row, COLS - 1);
        let h = (self.cell * 0.44).round();
        Rect {
            x: cell.x + cell.w + self.gap,
            y: cell.y + ((cell.h - h) / 2.0).round(),
            w: self.rail,
            h,
        }
    }

    pub fn cell_rect(&self, row: usize, col: usize) -> Rect {
        Rect {
            x: self.origin_x + col as f64 * (self.cell + self.gap),
            y: self.origin_y + row as f64 * (self.cell + self.gap),
            w: self.cell,
            h: self.cell,
        }
    }

    /// The three cells of column `col`, gaps between them included.
    pub fn column_rect(&self, col: usize) -> Rect {
        let top = self.cell_rect(0, col);
        Rect {
            h: self.cell * ROWS as f64 + self.gap * (ROWS as f64 - 1.0),
            ..top
        }
    }

    /// The frame drawn around a highlighted line, half a gap outside it.
    pub fn line_rect(&self, row: usize) -> Rect {
        let first = self.cell_rect(row, 0);
        let pad = (self.gap / 2.0).max(1.0);
        Rect {
            x: first.x - pad,
            y: first.y - pad,
            w: self.cell * COLS as f64 + self.gap * (COLS as f64 - 1.0) + 2.0 * pad,
            h: self.cell + 2.0 * pad,
        }
    }

    /// The column under a point (device pixels), gaps going to neither.
    pub fn column_at(&self, x: f64, y: f64) -> Option<usize> {
        let top = self.origin_y;
        let bottom = top + self.cell * ROWS as f64 + self.gap * (ROWS as f64 - 1.0);
        if y < top || y >= bottom {
            return None;
        }
        (0..COLS).find(|&c| {
            let r = self.cell_rect(0, c);
            x >= r.x && x < r.x + r.w
        })
    }

    /// The cell under a point, for hit tests.
    pub fn cell_at(&self, x: f64, y: f64) -> Option<(usize, usize)> {
        (0..ROWS)
            .flat_map(|r| (0..COLS).map(move |c| (r, c)))
            .find(|&(r, c)| {
                let rect = self.cell_rect(r, c);
                x >= rect.x && x < rect.x + rect.w && y >= rect.y && y < rect.y + rect.h
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backing_store_follows_device_pixels() {
        assert_eq!(backing_size(300.0, 180.0, 2.0), (600, 360));
        assert_eq!(backing_size(300.5, 180.2, 1.5), (451, 270));
        assert_eq!(backing_size(0.0, 0.0, 1.0), (1, 1));
        assert_eq!(backing_size(100.0, 60.0, f64::NAN), (100, 60));
        assert_eq!(backing_size(10_000.0, 10.0, 3.0).0, 4096);
    }

    #[test]
    fn cells_fit_and_do_not_overlap() {
        for (w, h) in [(600, 360), (288, 173), (2000, 1200), (100, 400)] {
            let layout = BoardLayout::new(w, h);
            let last = layout.cell_rect(2, 4);
            assert!(layout.origin_x >= 0.0 && layout.origin_y >= 0.0);
            assert!(last.x + last.w <= f64::from(w));
            assert!(last.y + last.h <= f64::from(h));
            let next = layout.cell_rect(0, 1);
            assert!(next.x >= layout.cell_rect(0, 0).x + layout.cell);
        }
    }

    #[test]
    fn plates_sit_beside_their_lines_inside_the_board() {
        for (w, h) in [
            (660, 340),
            (288, 173),
            (2000, 1200),
            (100, 400),
            (1089, 561),
        ] {
            let layout = BoardLayout::new(w, h);
            for row in 0..ROWS {
                let plate = layout.plate_rect(row);
                let line = layout.line_rect(row);
                let cell = layout.cell_rect(row, COLS - 1);
                assert!(
                    plate.x >= line.x + line.w,
                    "{w}×{h}: the plate is beside the line's frame"
                );
                assert!(
                    plate.x + plate.w <= f64::from(w),
                    "{w}×{h}: inside the board"
                );
                assert!(plate.y >= cell.y && plate.y + plate.h <= cell.y + cell.h);
            }
            // The grid and its rail are centred together.
            let right = f64::from(w) - (layout.plate_rect(0).x + layout.rail);
            assert!(
                (layout.origin_x - right).abs() <= 1.0,
                "{w}×{h}: {} against {right}",
                layout.origin_x
            );
        }
    }

    #[test]
    fn the_board_aspect_fills_both_ways() {
        // At the CSS aspect ratio the cells fill it across as down: only
        // the margins (and a cell's rounding down) are left over.
        let layout = BoardLayout::new(3300, 1700);
        assert!((ASPECT - 33.0 / 17.0).abs() < 1e-9, "{ASPECT}");
        assert!(
            layout.origin_x <= layout.cell * MARGIN_RATIO + 4.0,
            "{layout:?}"
        );
        assert!(
            layout.origin_y <= layout.cell * MARGIN_RATIO + 4.0,
            "{layout:?}"
        );
    }

    #[test]
    fn a_column_covers_its_three_cells() {
        let layout = BoardLayout::new(600, 360);
        let c = layout.column_rect(2);
        let (top, bottom) = (layout.cell_rect(0, 2), layout.cell_rect(2, 2));
        assert_eq!((c.x, c.y, c.w), (top.x, top.y, top.w));
        assert_eq!(c.y + c.h, bottom.y + bottom.h);
    }

    #[test]
    fn hit_test() {
        let layout = BoardLayout::new(600, 360);
        let r = layout.cell_rect(1, 3);
        assert_eq!(layout.cell_at(r.x + 1.0, r.y + 1.0), Some((1, 3)));
        assert_eq!(layout.cell_at(0.0, 0.0), None);
        assert_eq!(layout.column_at(r.x + 1.0, r.y + 1.0), Some(3));
        assert_eq!(layout.column_at(r.x + 1.0, 0.0), None);
        assert_eq!(layout.column_at(r.x - 1.0, r.y), None, "in the gap");
    }
}
