//! The grid canvas: pre-drawn symbol sprites, the reveal animation and the
//! line highlights. A frame only copies sprites, so the animation does no
//! allocation-heavy work while it runs.

use crate::layout::{backing_size, BoardLayout, Rect};
use crate::money::{format_cents_short, Notation};
use crate::reveal::{face, Face, Reveal, Timing};
use crate::symbols::{draw_cover, draw_symbol};
use crate::verification::LineMark;
use eldorado_engine::grid::{Grid, COLS, ROWS};
use eldorado_engine::Symbol;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{CanvasRenderingContext2d as Ctx, Document, HtmlCanvasElement};

/// What the plate of a line that wins an Extra grid says (the game's word
/// in both languages).
const EXTRA_PLATE: &str = "Extra";

struct Sprite {
    canvas: HtmlCanvasElement,
}

/// What the board shows.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Scene {
    /// Every cell covered.
    Hidden,
    /// Turning columns over since `start` (ms, requestAnimationFrame clock).
    Revealing { start: Option<f64>, reveal: Reveal },
    /// Every cell shown, with the line highlights.
    Shown,
}

pub struct Board {
    canvas: HtmlCanvasElement,
    ctx: Ctx,
    doc: Document,
    layout: BoardLayout,
    /// Symbols in [`Symbol::index`] order, then the cover; `None` until sized.
    sprites: Vec<Sprite>,
    sprite_size: u32,
    grid: Option<Grid>,
    marks: [LineMark; ROWS],
    scene: Scene,
    /// Each column's turning progress as last drawn: a frame repaints only
    /// the columns that moved (at most two at a time), so the browser
    /// rasterises and composites a fraction of the canvas.
    drawn: [f64; COLS],
    /// How the amounts on the winning lines' plates are written.
    notation: Notation,
    /// Each line's plate text (its amount, « Extra » or nothing), written
    /// when the grid arrives (never in a frame).
    labels: [String; ROWS],
}

pub fn context_2d(canvas: &HtmlCanvasElement) -> Result<Ctx, JsValue> {
    canvas
        .get_context("2d")?
        .ok_or_else(|| JsValue::from_str("no 2d context"))?
        .dyn_into()
        .map_err(JsValue::from)
}

impl Board {
    pub fn new(canvas: HtmlCanvasElement) -> Result<Board, JsValue> {
        let ctx = context_2d(&canvas)?;
        let doc = canvas
            .owner_document()
            .ok_or_else(|| JsValue::from_str("detached canvas"))?;
        Ok(Board {
            layout: BoardLayout::new(canvas.width(), canvas.height()),
            canvas,
            ctx,
            doc,
            sprites: Vec::new(),
            sprite_size: 0,
            grid: None,
            marks: [LineMark::Plain; ROWS],
            scene: Scene::Hidden,
            drawn: [0.0; COLS],
            notation: Notation::FRENCH,
            labels: Default::default(),
        })
    }

    pub fn set_notation(&mut self, notation: Notation) {
        self.notation = notation;
    }

    fn set_marks(&mut self, marks: [LineMark; ROWS]) {
        self.marks = marks;
        for (label, mark) in self.labels.iter_mut().zip(marks) {
            *label = match mark {
                LineMark::Win(cents) => format_cents_short(cents, self.notation),
                LineMark::Extra => EXTRA_PLATE.to_owned(),
                LineMark::Plain => String::new(),
            };
        }
    }

    pub fn canvas(&self) -> &HtmlCanvasElement {
        &self.canvas
    }

    /// Matches the backing store to the displayed size × device pixel ratio.
    pub fn fit(&mut self, css_w: f64, css_h: f64, dpr: f64) -> Result<(), JsValue> {
        let (w, h) = backing_size(css_w, css_h, dpr);
        if w != self.canvas.width() || h != self.canvas.height() {
            self.canvas.set_width(w);
            self.canvas.set_height(h);
        }
        self.layout = BoardLayout::new(w, h);
        self.ensure_sprites()?;
        self.draw_static()
    }

    fn ensure_sprites(&mut self) -> Result<(), JsValue> {
        let size = self.layout.cell as u32;
        if size == self.sprite_size && !self.sprites.is_empty() {
            return Ok(());
        }
        let mut sprites = Vec::with_capacity(Symbol::ALL.len() + 1);
        for index in 0..=Symbol::ALL.len() {
            let canvas: HtmlCanvasElement = self.doc.create_element("canvas")?.dyn_into()?;
            canvas.set_width(size);
            canvas.set_height(size);
            let ctx = context_2d(&canvas)?;
            match Symbol::ALL.get(index) {
                Some(symbol) => draw_symbol(&ctx, *symbol, f64::from(size))?,
                None => draw_cover(&ctx, f64::from(size))?,
            }
            sprites.push(Sprite { canvas });
        }
        self.sprites = sprites;
        self.sprite_size = size;
        Ok(())
    }

    /// Covers every cell (a new ticket is being bought).
    pub fn hide(&mut self) -> Result<(), JsValue> {
        self.grid = None;
        self.scene = Scene::Hidden;
        self.draw_static()
    }

    /// Shows `grid` at once, highlights included.
    pub fn show(&mut self, grid: Grid, marks: [LineMark; ROWS]) -> Result<(), JsValue> {
        self.grid = Some(grid);
        self.set_marks(marks);
        self.scene = Scene::Shown;
        self.draw_static()
    }

    /// Starts turning `grid` over; frames come from [`Board::frame`].
    pub fn start_reveal(
        &mut self,
        grid: Grid,
        marks: [LineMark; ROWS],
        timing: Timing,
    ) -> Result<(), JsValue> {
        self.grid = Some(grid);
        self.set_marks(marks);
        self.scene = Scene::Revealing {
            start: None,
            reveal: Reveal::new(timing),
        };
        self.draw_static()
    }

    /// The player uncovers `col` at `now` (the event's time stamp, the
    /// clock of animation frames); the next frame shows it turning.
    pub fn uncover(&mut self, col: usize, now: f64) -> bool {
        let Scene::Revealing { start, mut reveal } = self.scene else {
            return false;
        };
        let start = start.unwrap_or(now);
        let changed = reveal.uncover(col, now - start);
        self.scene = Scene::Revealing {
            start: Some(start),
            reveal,
        };
        changed
    }

    /// The keyboard's turn: the next column still covered.
    pub fn uncover_next(&mut self, now: f64) -> bool {
        let Scene::Revealing { start, reveal } = self.scene else {
            return false;
        };
        let elapsed = start.map_or(0.0, |s| now - s);
        match reveal.next_covered(elapsed) {
            Some(col) => self.uncover(col, now),
            None => false,
        }
    }

    /// The column under a point given in CSS pixels of the canvas box.
    pub fn column_at(&self, css_x: f64, css_y: f64, css_w: f64) -> Option<usize> {
        if css_w <= 0.0 {
            return None;
        }
        let scale = self.layout.width / css_w;
        self.layout.column_at(css_x * scale, css_y * scale)
    }

    pub fn is_revealing(&self) -> bool {
        matches!(self.scene, Scene::Revealing { .. })
    }

    /// Ends a running reveal at once. Returns whether one was running.
    pub fn finish(&mut self) -> Result<bool, JsValue> {
        if !self.is_revealing() {
            return Ok(false);
        }
        self.scene = Scene::Shown;
        self.draw_static()?;
        Ok(true)
    }

    /// Draws one animation frame at `now`; returns true when the reveal has
    /// just ended (the board then shows the highlights).
    pub fn frame(&mut self, now: f64) -> Result<bool, JsValue> {
        let Scene::Revealing { start, reveal } = self.scene else {
            return Ok(false);
        };
        let start = match start {
            Some(start) => start,
            None => {
                self.scene = Scene::Revealing {
                    start: Some(now),
                    reveal,
                };
                now
            }
        };
        let elapsed = now - start;
        if reveal.is_done(elapsed) {
            self.scene = Scene::Shown;
            self.draw_static()?;
            return Ok(true);
        }
        for col in 0..COLS {
            let progress = reveal.progress(col, elapsed);
            if progress == self.drawn[col] {
                continue;
            }
            self.drawn[col] = progress;
            let r = self.layout.column_rect(col);
            self.ctx.clear_rect(r.x, r.y, r.w, r.h);
            let face = face(progress);
            for row in 0..ROWS {
                self.draw_cell(row, col, face)?;
            }
        }
        Ok(false)
    }

    fn clear(&self) {
        self.ctx
            .clear_rect(0.0, 0.0, self.layout.width, self.layout.height);
    }

    fn draw_static(&mut self) -> Result<(), JsValue> {
        self.clear();
        let face = match self.scene {
            Scene::Shown => Face::Symbol { scale: 1.0 },
            _ => Face::Cover { scale: 1.0 },
        };
        self.drawn = [if self.scene == Scene::Shown { 1.0 } else { 0.0 }; COLS];
        for row in 0..ROWS {
            for col in 0..COLS {
                self.draw_cell(row, col, face)?;
            }
        }
        if self.scene == Scene::Shown {
            self.draw_marks()?;
        }
        self.draw_plates()
    }

    fn draw_cell(&self, row: usize, col: usize, face: Face) -> Result<(), JsValue> {
        let (sprite, scale) = match (face, self.grid) {
            (Face::Symbol { scale }, Some(grid)) => (grid.cell(row, col).index(), scale),
            (Face::Cover { scale }, _) => (Symbol::ALL.len(), scale),
            (Face::Symbol { .. }, None) => (Symbol::ALL.len(), 1.0),
        };
        let Some(sprite) = self.sprites.get(sprite) else {
            return Ok(());
        };
        let rect = self.layout.cell_rect(row, col);
        // Turning on the horizontal axis: the face is squeezed vertically.
        let h = (rect.h * scale).max(0.0);
        if h < 0.5 {
            return Ok(());
        }
        self.ctx.draw_image_with_html_canvas_element_and_dw_and_dh(
            &sprite.canvas,
            rect.x,
            rect.y + (rect.h - h) / 2.0,
            rect.w,
            h,
        )
    }

    fn draw_marks(&self) -> Result<(), JsValue> {
        let ctx = &self.ctx;
        let width = (self.layout.gap * 0.55).max(2.0);
        for (row, mark) in self.marks.iter().enumerate() {
            let (colour, dashed) = match mark {
                LineMark::Plain => continue,
                LineMark::Win(_) => ("#ffd43b", false),
                LineMark::Extra => ("#5ce1e6", true),
            };
            let r = self.layout.line_rect(row);
            ctx.set_stroke_style_str(colour);
            ctx.set_line_width(width);
            let dash = js_sys::Array::new();
            if dashed {
                dash.push(&JsValue::from_f64(width * 3.0));
                dash.push(&JsValue::from_f64(width * 2.0));
            }
            ctx.set_line_dash(&dash)?;
            ctx.begin_path();
            ctx.round_rect_with_f64(r.x, r.y, r.w, r.h, self.layout.cell * 0.16)?;
            ctx.stroke();
        }
        ctx.set_line_dash(&js_sys::Array::new())
    }

    /// The rail beside the lines: an empty slot for each line, which on a
    /// win holds a gold plate with the line's amount and on an Extra says
    /// so; read with its line, covering none of its symbols. The slots are
    /// always there, so nothing moves when a plate appears.
    fn draw_plates(&self) -> Result<(), JsValue> {
        let ctx = &self.ctx;
        let font_px = (self.layout.cell * 0.26).max(9.0).round();
        for row in 0..ROWS {
            let r = self.layout.plate_rect(row);
            let radius = r.h / 2.0;
            let mark = match self.scene {
                Scene::Shown => self.marks[row],
                _ => LineMark::Plain,
            };
            let (text_colour, edge) = match mark {
                LineMark::Plain => {
                    ctx.set_fill_style_str("rgba(0,0,0,.35)");
                    ("", "rgba(224,165,38,.35)")
                }
                LineMark::Win(_) => {
                    ctx.set_shadow_color("rgba(0,0,0,.55)");
                    ctx.set_shadow_blur(font_px * 0.4);
                    let plate = ctx.create_linear_gradient(0.0, r.y, 0.0, r.y + r.h);
                    plate.add_color_stop(0.0, "#fff3b0")?;
                    plate.add_color_stop(1.0, "#e0a526")?;
                    ctx.set_fill_style_canvas_gradient(&plate);
                    ("#2a1a08", "#7a4510")
                }
                LineMark::Extra => {
                    ctx.set_fill_style_str("#0d3436");
                    ("#5ce1e6", "#5ce1e6")
                }
            };
            ctx.begin_path();
            ctx.round_rect_with_f64(r.x, r.y, r.w, r.h, radius)?;
            ctx.fill();
            ctx.set_shadow_blur(0.0);
            ctx.set_shadow_color("transparent");
            ctx.set_stroke_style_str(edge);
            ctx.set_line_width((font_px * 0.08).max(1.0));
            ctx.stroke();
            let label = &self.labels[row];
            if !label.is_empty() {
                self.write_plate(label, text_colour, r, font_px)?;
            }
        }
        Ok(())
    }

    /// `label` centred on a plate, at `font_px` or as much smaller as it
    /// takes to fit (the longest amounts are the rarest).
    fn write_plate(&self, label: &str, colour: &str, r: Rect, font_px: f64) -> Result<(), JsValue> {
        let ctx = &self.ctx;
        let room = r.w - r.h * 0.5;
        let font = |px: f64| {
            // Whole pixels, formatted as an integer: no float formatting code.
            crate::text::around("700 ", u64::from(px as u32), "px system-ui, sans-serif")
        };
        ctx.set_font(&font(font_px));
        let wide = ctx.measure_text(label)?.width();
        let px = if wide > room {
            (font_px * room / wide).floor().max(6.0)
        } else {
            font_px
        };
        ctx.set_font(&font(px));
        ctx.set_fill_style_str(colour);
        ctx.set_text_align("center");
        ctx.set_text_baseline("middle");
        ctx.fill_text(label, r.x + r.w / 2.0, r.y + r.h / 2.0 + px * 0.04)
    }
}
