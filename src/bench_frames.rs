//! The reveal animation driven by the page's own frames, to time them with
//! Chromium's CPU throttled (`www/bench/frames.html`). Built only with the
//! `bench` feature.

use crate::board::Board;
use crate::reveal::Timing;
use crate::verification::LineMark;
use eldorado_engine::Grid;
use wasm_bindgen::prelude::*;
use web_sys::HtmlCanvasElement;

#[wasm_bindgen]
pub struct BenchBoard {
    board: Board,
    grid: Grid,
}

#[wasm_bindgen]
impl BenchBoard {
    /// A board on `canvas`, sized as the game sizes it.
    #[wasm_bindgen(constructor)]
    pub fn new(
        canvas: HtmlCanvasElement,
        css_w: f64,
        css_h: f64,
        dpr: f64,
    ) -> Result<BenchBoard, JsValue> {
        let mut board = Board::new(canvas)?;
        board.fit(css_w, css_h, dpr)?;
        let grid = "PPPDR/CCCDR/SDRMS"
            .parse::<Grid>()
            .map_err(|_| JsValue::from_str("bad grid"))?;
        Ok(BenchBoard { board, grid })
    }

    /// Starts turning the grid over, two winning lines marked.
    pub fn start(&mut self) -> Result<(), JsValue> {
        let marks = [LineMark::Win(500), LineMark::Win(200), LineMark::Plain];
        self.board.start_reveal(self.grid, marks, Timing::NORMAL)
    }

    /// One frame; true when the reveal has ended.
    pub fn frame(&mut self, now: f64) -> Result<bool, JsValue> {
        self.board.frame(now)
    }
}
