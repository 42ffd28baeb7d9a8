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
    // Lit from above: a soft glow that keeps each tile's own lightness
    // (greyscale still tells them apart), and a dark rim for a carved edge.
    let glow =
        ctx.create_radial_gradient(s * 0.5, s * 0.3, s * 0.05, s * 0.5, s * 0.45, s * 0.75)?;
    glow.add_color_stop(0.0, "rgba(255,255,255,.30)")?;
    glow.add_color_stop(1.0, "rgba(0,0,0,.18)")?;
    ctx.set_fill_style_canvas_gradient(&glow);
    ctx.fill();
    ctx.set_stroke_style_str("rgba(0,0,0,.35)");
    ctx.set_line_width(s * 0.03);
    ctx.begin_path();
    ctx.round_rect_with_f64(s * 0.015, s * 0.015, s * 0.97, s * 0.97, s * 0.11)?;
    ctx.stroke();
    Ok(())
}

/// Draws the cover of a hidden cell in an `s`×`s` square at the origin: a
/// golden temple tablet with an engraved sun disc, to be turned over.
pub fn draw_cover(ctx: &Ctx, s: f64) -> Result<(), JsValue> {
    ctx.clear_rect(0.0, 0.0, s, s);
    let gold = ctx.create_linear_gradient(0.0, 0.0, s, s);
    gold.add_color_stop(0.0, "#f6d77a")?;
    gold.add_color_stop(0.5, COVER)?;
    gold.add_color_stop(1.0, "#7a4f16")?;
    ctx.set_fill_style_canvas_gradient(&gold);
    ctx.begin_path();
    ctx.round_rect_with_f64(0.0, 0.0, s, s, s * 0.12)?;
    ctx.fill();
    // Bevel: light upper-left edge, dark lower-right edge.
    ctx.set_line_width(s * 0.05);
    ctx.set_stroke_style_str("rgba(255,244,200,.75)");
    ctx.begin_path();
    ctx.move_to(s * 0.06, s * 0.8);
    ctx.line_to(s * 0.06, s * 0.14);
    ctx.quadratic_curve_to(s * 0.06, s * 0.06, s * 0.14, s * 0.06);
    ctx.line_to(s * 0.86, s * 0.06);
    ctx.stroke();
    ctx.set_stroke_style_str("rgba(60,34,6,.7)");
    ctx.begin_path();
    ctx.move_to(s * 0.94, s * 0.2);
    ctx.line_to(s * 0.94, s * 0.86);
    ctx.quadratic_curve_to(s * 0.94, s * 0.94, s * 0.86, s * 0.94);
    ctx.line_to(s * 0.14, s * 0.94);
    ctx.stroke();
    // The engraved sun disc: drawn light and offset, then dark, so it
    // reads as cut into the metal.
    for (offset, colour) in [(s * 0.012, "rgba(255,240,190,.55)"), (0.0, "#7a4f16")] {
        sun_disc(ctx, s, s * 0.5 + offset, s * 0.5 + offset, colour)?;
    }
    // A glint in the corner: something precious lies beneath.
    ctx.set_fill_style_str("rgba(255,255,255,.85)");
    let (gx, gy, g) = (s * 0.8, s * 0.2, s * 0.07);
    ctx.begin_path();
    ctx.move_to(gx, gy - g);
    ctx.quadratic_curve_to(gx, gy, gx + g, gy);
    ctx.quadratic_curve_to(gx, gy, gx, gy + g);
    ctx.quadratic_curve_to(gx, gy, gx - g, gy);
    ctx.quadratic_curve_to(gx, gy, gx, gy - g);
    ctx.fill();
    Ok(())
}

fn sun_disc(ctx: &Ctx, s: f64, cx: f64, cy: f64, colour: &str) -> Result<(), JsValue> {
    ctx.set_stroke_style_str(colour);
    ctx.set_fill_style_str(colour);
    ctx.set_line_width(s * 0.035);
    ctx.begin_path();
    ctx.arc(cx, cy, s * 0.2, 0.0, 2.0 * PI)?;
    ctx.stroke();
    ctx.begin_path();
    ctx.arc(cx, cy, s * 0.07, 0.0, 2.0 * PI)?;
    ctx.fill();
    ctx.begin_path();
    for k in 0..8 {
        let a = f64::from(k) * PI / 4.0;
        let (inner, outer) = (s * 0.25, s * 0.33);
        ctx.move_to(cx + inner * cos(a - 0.22), cy + inner * sin(a - 0.22));
        ctx.line_to(cx + outer * cos(a), cy + outer * sin(a));
        ctx.line_to(cx + inner * cos(a + 0.22), cy + inner * sin(a + 0.22));
        ctx.close_path();
    }
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
