//! The six symbols and the cell cover, drawn with paths (no image files, so
//! the download stays small and every size is sharp). Each symbol has its
//! own silhouette *and* a tile of distinct lightness, so they stay apart in
//! greyscale and for colour-blind players.

use eldorado_engine::Symbol;
use std::f64::consts::PI;
use wasm_bindgen::JsValue;
use web_sys::CanvasRenderingContext2d as Ctx;

/// Tile colour of each symbol, in [`Symbol::index`] order.
pub const TILES: [&str; 6] = [
    "#f7dd8e", // pyramide: pale sand (lightest)
    "#4a2a10", // coffre: dark wood (darkest)
    "#2152b8", // soleil: deep blue
    "#8fa3b8", // dague: steel grey
    "#9a4fc4", // Chance: purple
    "#8fd197", // perroquet: leaf green
];
pub const COVER: &str = "#b8893a";

fn tile(ctx: &Ctx, s: f64, colour: &str) -> Result<(), JsValue> {
    ctx.clear_rect(0.0, 0.0, s, s);
    ctx.set_fill_style_str(colour);
    ctx.begin_path();
    ctx.round_rect_with_f64(0.0, 0.0, s, s, s * 0.12)?;
    ctx.fill();
    Ok(())
}

/// Draws the cover of a hidden cell in an `s`×`s` square at the origin.
pub fn draw_cover(ctx: &Ctx, s: f64) -> Result<(), JsValue> {
    tile(ctx, s, COVER)?;
    ctx.set_stroke_style_str("#8a6322");
    ctx.set_line_width(s * 0.04);
    ctx.begin_path();
    ctx.round_rect_with_f64(s * 0.08, s * 0.08, s * 0.84, s * 0.84, s * 0.08)?;
    ctx.stroke();
    // A small diamond: the "to scratch" mark, the same on every cell.
    ctx.set_fill_style_str("#e8c678");
    ctx.begin_path();
    ctx.move_to(s * 0.5, s * 0.3);
    ctx.line_to(s * 0.7, s * 0.5);
    ctx.line_to(s * 0.5, s * 0.7);
    ctx.line_to(s * 0.3, s * 0.5);
    ctx.close_path();
    ctx.fill();
    Ok(())
}

/// Draws `symbol` on its tile in an `s`×`s` square at the origin.
pub fn draw_symbol(ctx: &Ctx, symbol: Symbol, s: f64) -> Result<(), JsValue> {
    tile(ctx, s, TILES[symbol.index()])?;
    ctx.set_line_join("round");
    ctx.set_line_cap("round");
    match symbol {
        Symbol::Pyramide => pyramid(ctx, s),
        Symbol::Coffre => chest(ctx, s),
        Symbol::Soleil => sun(ctx, s),
        Symbol::Dague => dagger(ctx, s),
        Symbol::Chance => mask(ctx, s),
        Symbol::Perroquet => parrot(ctx, s),
    }
}

fn pyramid(ctx: &Ctx, s: f64) -> Result<(), JsValue> {
    ctx.set_fill_style_str("#7a4510");
    ctx.begin_path();
    ctx.move_to(s * 0.5, s * 0.16);
    ctx.line_to(s * 0.88, s * 0.8);
    ctx.line_to(s * 0.12, s * 0.8);
    ctx.close_path();
    ctx.fill();
    // Courses of stone, lighter lines across the dark triangle.
    ctx.set_stroke_style_str("#f7dd8e");
    ctx.set_line_width(s * 0.025);
    for k in 1..4 {
        let y = s * (0.16 + 0.64 * f64::from(k) / 4.0);
        let half = s * 0.38 * f64::from(k) / 4.0;
        ctx.begin_path();
        ctx.move_to(s * 0.5 - half, y);
        ctx.line_to(s * 0.5 + half, y);
        ctx.stroke();
    }
    Ok(())
}

fn chest(ctx: &Ctx, s: f64) -> Result<(), JsValue> {
    ctx.set_fill_style_str("#f0c14b");
    ctx.begin_path();
    // Rounded lid over a box.
    ctx.move_to(s * 0.16, s * 0.46);
    ctx.bezier_curve_to(s * 0.16, s * 0.18, s * 0.84, s * 0.18, s * 0.84, s * 0.46);
    ctx.line_to(s * 0.84, s * 0.8);
    ctx.line_to(s * 0.16, s * 0.8);
    ctx.close_path();
    ctx.fill();
    ctx.set_stroke_style_str("#4a2a10");
    ctx.set_line_width(s * 0.04);
    ctx.begin_path();
    ctx.move_to(s * 0.16, s * 0.48);
    ctx.line_to(s * 0.84, s * 0.48);
    ctx.stroke();
    ctx.set_fill_style_str("#4a2a10");
    ctx.fill_rect(s * 0.44, s * 0.42, s * 0.12, s * 0.18);
    Ok(())
}

// The browser's trigonometry: Rust's own would add a libm to the download
// for twelve rays drawn once.
fn cos(a: f64) -> f64 {
    js_sys::Math::cos(a)
}
fn sin(a: f64) -> f64 {
    js_sys::Math::sin(a)
}

fn sun(ctx: &Ctx, s: f64) -> Result<(), JsValue> {
    let (c, r) = (s * 0.5, s * 0.2);
    ctx.set_fill_style_str("#ffd43b");
    ctx.begin_path();
    for k in 0..12 {
        let a = f64::from(k) * PI / 6.0;
        let (inner, outer) = (r * 1.15, s * 0.4);
        ctx.move_to(c + inner * cos(a - 0.2), c + inner * sin(a - 0.2));
        ctx.line_to(c + outer * cos(a), c + outer * sin(a));
        ctx.line_to(c + inner * cos(a + 0.2), c + inner * sin(a + 0.2));
        ctx.close_path();
    }
    ctx.fill();
    ctx.begin_path();
    ctx.arc(c, c, r, 0.0, 2.0 * PI)?;
    ctx.fill();
    Ok(())
}

fn dagger(ctx: &Ctx, s: f64) -> Result<(), JsValue> {
    // Blade pointing up, cross-guard, grip and pommel.
    ctx.set_fill_style_str("#2b3440");
    ctx.begin_path();
    ctx.move_to(s * 0.5, s * 0.1);
    ctx.line_to(s * 0.58, s * 0.6);
    ctx.line_to(s * 0.42, s * 0.6);
    ctx.close_path();
    ctx.fill();
    ctx.fill_rect(s * 0.28, s * 0.6, s * 0.44, s * 0.07);
    ctx.fill_rect(s * 0.46, s * 0.67, s * 0.08, s * 0.16);
    ctx.begin_path();
    ctx.arc(s * 0.5, s * 0.86, s * 0.05, 0.0, 2.0 * PI)?;
    ctx.fill();
    Ok(())
}

fn mask(ctx: &Ctx, s: f64) -> Result<(), JsValue> {
    ctx.set_fill_style_str("#ffffff");
    ctx.begin_path();
    ctx.move_to(s * 0.12, s * 0.36);
    ctx.bezier_curve_to(s * 0.3, s * 0.28, s * 0.7, s * 0.28, s * 0.88, s * 0.36);
    ctx.bezier_curve_to(s * 0.88, s * 0.62, s * 0.68, s * 0.7, s * 0.5, s * 0.58);
    ctx.bezier_curve_to(s * 0.32, s * 0.7, s * 0.12, s * 0.62, s * 0.12, s * 0.36);
    ctx.close_path();
    ctx.fill();
    ctx.set_fill_style_str("#9a4fc4");
    for x in [0.33, 0.67] {
        ctx.begin_path();
        ctx.ellipse(s * x, s * 0.44, s * 0.09, s * 0.05, 0.0, 0.0, 2.0 * PI)?;
        ctx.fill();
    }
    // The ribbon, so the mask does not read as a plain white blob.
    ctx.set_stroke_style_str("#ffffff");
    ctx.set_line_width(s * 0.03);
    ctx.begin_path();
    ctx.move_to(s * 0.14, s * 0.42);
    ctx.quadratic_curve_to(s * 0.08, s * 0.7, s * 0.2, s * 0.84);
    ctx.stroke();
    Ok(())
}

fn parrot(ctx: &Ctx, s: f64) -> Result<(), JsValue> {
    // Body and tail in red, facing left, with a hooked yellow beak.
    ctx.set_fill_style_str("#c92a2a");
    ctx.begin_path();
    ctx.ellipse(s * 0.52, s * 0.5, s * 0.18, s * 0.26, -0.35, 0.0, 2.0 * PI)?;
    ctx.fill();
    ctx.begin_path();
    ctx.move_to(s * 0.6, s * 0.68);
    ctx.line_to(s * 0.78, s * 0.92);
    ctx.line_to(s * 0.62, s * 0.9);
    ctx.close_path();
    ctx.fill();
    ctx.set_fill_style_str("#1c3f94");
    ctx.begin_path();
    ctx.ellipse(s * 0.58, s * 0.55, s * 0.08, s * 0.17, -0.35, 0.0, 2.0 * PI)?;
    ctx.fill();
    ctx.set_fill_style_str("#ffd43b");
    ctx.begin_path();
    ctx.move_to(s * 0.36, s * 0.26);
    ctx.quadratic_curve_to(s * 0.2, s * 0.26, s * 0.24, s * 0.42);
    ctx.line_to(s * 0.36, s * 0.36);
    ctx.close_path();
    ctx.fill();
    ctx.set_fill_style_str("#ffffff");
    ctx.begin_path();
    ctx.arc(s * 0.44, s * 0.3, s * 0.045, 0.0, 2.0 * PI)?;
    ctx.fill();
    ctx.set_fill_style_str("#111111");
    ctx.begin_path();
    ctx.arc(s * 0.44, s * 0.3, s * 0.02, 0.0, 2.0 * PI)?;
    ctx.fill();
    Ok(())
}
