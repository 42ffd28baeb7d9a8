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

/// The cells of a 3×5 grid centred in a `width`×`height` device-pixel area.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoardLayout {
    pub width: f64,
    pub height: f64,
    pub cell: f64,
    pub gap: f64,
    pub origin_x: f64,
    pub origin_y: f64,
}

impl BoardLayout {
    pub fn new(width: u32, height: u32) -> BoardLayout {
        let (width, height) = (f64::from(width), f64::from(height));
        // Gaps and margins scale with the cell so the look is the same at
        // every size; solve cell from: cols·cell + (cols−1)·gap + 2·margin.
        let (gap_ratio, margin_ratio) = (0.08, 0.12);
        let across = |n: f64| n + (n - 1.0) * gap_ratio + 2.0 * margin_ratio;
        let cell = (width / across(COLS as f64))
            .min(height / across(ROWS as f64))
            .floor()
            .max(1.0);
        let gap = (cell * gap_ratio).round();
        let used_w = cell * COLS as f64 + gap * (COLS as f64 - 1.0);
        let used_h = cell * ROWS as f64 + gap * (ROWS as f64 - 1.0);
        BoardLayout {
            width,
            height,
            cell,
            gap,
            origin_x: ((width - used_w) / 2.0).round(),
            origin_y: ((height - used_h) / 2.0).round(),
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
