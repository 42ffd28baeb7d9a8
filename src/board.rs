//! The grid canvas: pre-drawn symbol sprites, the reveal animation and the
//! line highlights. A frame only copies sprites, so the animation does no
//! allocation-heavy work while it runs.

use crate::layout::{backing_size, BoardLayout};
use crate::reveal::{face, Face, Timing};
use crate::symbols::{draw_cover, draw_symbol};
use crate::verification::LineMark;
use eldorado_engine::grid::{Grid, COLS, ROWS};
use eldorado_engine::Symbol;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{CanvasRenderingContext2d as Ctx, Document, HtmlCanvasElement};

struct Sprite {
    canvas: HtmlCanvasElement,
}

/// What the board shows.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Scene {
    /// Every cell covered.
    Hidden,
    /// Turning columns over since `start` (ms, requestAnimationFrame clock).
    Revealing { start: Option<f64>, timing: Timing },
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
        })
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
        self.marks = marks;
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
        self.marks = marks;
        self.scene = Scene::Revealing {
            start: None,
            timing,
        };
        self.draw_static()
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
        let Scene::Revealing { start, timing } = self.scene else {
            return Ok(false);
        };
        let start = match start {
            Some(start) => start,
            None => {
                self.scene = Scene::Revealing {
                    start: Some(now),
                    timing,
                };
                now
            }
        };
        let elapsed = now - start;
        if timing.is_done(elapsed) {
            self.scene = Scene::Shown;
            self.draw_static()?;
            return Ok(true);
        }
        for col in 0..COLS {
            let progress = timing.progress(col, elapsed);
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
        Ok(())
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
        ctx.set_line_dash(&js_sys::Array::new())?;
        Ok(())
    }
}
