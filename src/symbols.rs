//! The six symbols and the cell cover, drawn with paths (no image files, so
//! the download stays small and every size is sharp). Each symbol has its
//! own silhouette *and* a tile of distinct lightness, so they stay apart in
//! greyscale and for colour-blind players.

use eldorado_engine::Symbol;
use std::f64::consts::PI;
use wasm_bindgen::JsValue;
use web_sys::CanvasRenderingContext2d as Ctx;

/// Tile colour of each symbol, in [`Symbol::index`] order: the temple's
/// stones, each of its own lightness (CIE L* 86, 21, 33, 66, 42, 54), so
/// that they stay apart in greyscale and for colour-blind players.
pub const TILES: [&str; 6] = [
    "#f0d49a", // pyramide: sandstone (lightest)
    "#4a2a10", // coffre: dark wood (darkest)
    "#254a91", // soleil: lapis
    "#96a3b0", // dague: blue-grey stone
    "#a3472f", // Chance: terracotta
    "#4c8f6b", // perroquet: jade
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

/// Draws `symbol` on its tile in an `s`×`s` square at the origin: every
/// symbol is an emblem of the temple, gold (bronze on the pale sandstone)
/// lit from the upper left, casting its shadow to the lower right, with a
/// dark carved outline.
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

const OUTLINE: &str = "#2a1a08";

/// Fills the path just built as a raised emblem of `metal` (light, middle,
/// dark), then outlines it.
fn emblem(ctx: &Ctx, s: f64, metal: [&str; 3]) -> Result<(), JsValue> {
    let shine = ctx.create_linear_gradient(s * 0.2, s * 0.1, s * 0.8, s * 0.9);
    shine.add_color_stop(0.0, metal[0])?;
    shine.add_color_stop(0.45, metal[1])?;
    shine.add_color_stop(1.0, metal[2])?;
    ctx.set_fill_style_canvas_gradient(&shine);
    ctx.set_shadow_color("rgba(0,0,0,.45)");
    ctx.set_shadow_offset_x(s * 0.025);
    ctx.set_shadow_offset_y(s * 0.03);
    ctx.set_shadow_blur(s * 0.03);
    ctx.fill();
    ctx.set_shadow_color("transparent");
    ctx.set_stroke_style_str(OUTLINE);
    ctx.set_line_width(s * 0.022);
    ctx.stroke();
    Ok(())
}

const GOLD: [&str; 3] = ["#fff3b0", "#f0c14b", "#9a6a1c"];
const BRONZE: [&str; 3] = ["#c8923a", "#8a5a18", "#4a2a08"];

/// Starts a path: the closed polygon through `points` (fractions of `s`).
fn polygon(ctx: &Ctx, s: f64, points: &[(f64, f64)]) {
    ctx.begin_path();
    for (i, &(x, y)) in points.iter().enumerate() {
        if i == 0 {
            ctx.move_to(s * x, s * y);
        } else {
            ctx.line_to(s * x, s * y);
        }
    }
    ctx.close_path();
}

/// Carved lines across an emblem, in the outline's colour.
fn carve(ctx: &Ctx, s: f64, lines: &[[f64; 4]]) {
    ctx.set_stroke_style_str(OUTLINE);
    ctx.set_line_width(s * 0.022);
    ctx.begin_path();
    for [x0, y0, x1, y1] in lines {
        ctx.move_to(s * x0, s * y0);
        ctx.line_to(s * x1, s * y1);
    }
    ctx.stroke();
}

fn pyramid(ctx: &Ctx, s: f64) -> Result<(), JsValue> {
    // Its shadow stays clear of the lower left corner, where the tests
    // read each tile's colour.
    polygon(ctx, s, &[(0.5, 0.14), (0.86, 0.78), (0.14, 0.78)]);
    emblem(ctx, s, BRONZE)?;
    // Courses of stone, and the shaded face right of the ridge.
    carve(
        ctx,
        s,
        &[
            [0.41, 0.3, 0.59, 0.3],
            [0.32, 0.46, 0.68, 0.46],
            [0.23, 0.62, 0.77, 0.62],
        ],
    );
    ctx.set_fill_style_str("rgba(0,0,0,.25)");
    polygon(ctx, s, &[(0.5, 0.14), (0.86, 0.78), (0.56, 0.78)]);
    ctx.fill();
    Ok(())
}

fn chest(ctx: &Ctx, s: f64) -> Result<(), JsValue> {
    // Rounded lid over a box, a band where they meet, a lock.
    ctx.begin_path();
    ctx.move_to(s * 0.16, s * 0.46);
    ctx.bezier_curve_to(s * 0.16, s * 0.18, s * 0.84, s * 0.18, s * 0.84, s * 0.46);
    ctx.line_to(s * 0.84, s * 0.8);
    ctx.line_to(s * 0.16, s * 0.8);
    ctx.close_path();
    emblem(ctx, s, GOLD)?;
    carve(
        ctx,
        s,
        &[
            [0.16, 0.48, 0.84, 0.48],
            [0.3, 0.27, 0.3, 0.8],
            [0.7, 0.27, 0.7, 0.8],
        ],
    );
    ctx.set_fill_style_str(OUTLINE);
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
    let (c, r) = (s * 0.5, s * 0.19);
    ctx.begin_path();
    for k in 0..12 {
        let a = f64::from(k) * PI / 6.0;
        let (inner, outer) = (r * 1.1, s * 0.41);
        ctx.move_to(c + inner * cos(a - 0.2), c + inner * sin(a - 0.2));
        ctx.line_to(c + outer * cos(a), c + outer * sin(a));
        ctx.line_to(c + inner * cos(a + 0.2), c + inner * sin(a + 0.2));
        ctx.close_path();
    }
    ctx.move_to(c + r, c);
    ctx.arc(c, c, r, 0.0, 2.0 * PI)?;
    emblem(ctx, s, GOLD)?;
    // A face engraved in the disc.
    ctx.begin_path();
    ctx.arc(c, c, r * 0.62, 0.0, 2.0 * PI)?;
    ctx.set_line_width(s * 0.018);
    ctx.stroke();
    Ok(())
}

fn dagger(ctx: &Ctx, s: f64) -> Result<(), JsValue> {
    // Blade pointing up, cross-guard, grip and pommel: one outline.
    ctx.begin_path();
    ctx.move_to(s * 0.5, s * 0.08);
    ctx.line_to(s * 0.59, s * 0.58);
    ctx.line_to(s * 0.73, s * 0.58);
    ctx.line_to(s * 0.73, s * 0.66);
    ctx.line_to(s * 0.55, s * 0.66);
    ctx.line_to(s * 0.55, s * 0.8);
    ctx.arc(s * 0.5, s * 0.85, s * 0.06, -0.6, PI + 0.6)?;
    ctx.line_to(s * 0.45, s * 0.66);
    ctx.line_to(s * 0.27, s * 0.66);
    ctx.line_to(s * 0.27, s * 0.58);
    ctx.line_to(s * 0.41, s * 0.58);
    ctx.close_path();
    emblem(ctx, s, GOLD)?;
    // The blade's ridge.
    carve(ctx, s, &[[0.5, 0.16, 0.5, 0.54]]);
    Ok(())
}

fn mask(ctx: &Ctx, s: f64) -> Result<(), JsValue> {
    ctx.begin_path();
    ctx.move_to(s * 0.12, s * 0.34);
    ctx.bezier_curve_to(s * 0.3, s * 0.26, s * 0.7, s * 0.26, s * 0.88, s * 0.34);
    ctx.bezier_curve_to(s * 0.88, s * 0.62, s * 0.68, s * 0.7, s * 0.5, s * 0.58);
    ctx.bezier_curve_to(s * 0.32, s * 0.7, s * 0.12, s * 0.62, s * 0.12, s * 0.34);
    ctx.close_path();
    emblem(ctx, s, GOLD)?;
    // Eye holes show the stone behind; a ribbon hangs from the side.
    ctx.set_fill_style_str(TILES[Symbol::Chance.index()]);
    for x in [0.33, 0.67] {
        ctx.begin_path();
        ctx.ellipse(s * x, s * 0.43, s * 0.09, s * 0.05, 0.0, 0.0, 2.0 * PI)?;
        ctx.fill();
        ctx.stroke();
    }
    ctx.set_stroke_style_str("#f0c14b");
    ctx.set_line_width(s * 0.035);
    ctx.begin_path();
    ctx.move_to(s * 0.14, s * 0.42);
    ctx.quadratic_curve_to(s * 0.1, s * 0.66, s * 0.22, s * 0.8);
    ctx.stroke();
    Ok(())
}

fn parrot(ctx: &Ctx, s: f64) -> Result<(), JsValue> {
    // Facing left: a long tail under the body, a crest on the head, a
    // hooked beak.
    polygon(
        ctx,
        s,
        &[(0.56, 0.64), (0.84, 0.93), (0.66, 0.93), (0.5, 0.7)],
    );
    emblem(ctx, s, BRONZE)?;
    ctx.begin_path();
    ctx.move_to(s * 0.42, s * 0.2);
    ctx.quadratic_curve_to(s * 0.5, s * 0.06, s * 0.62, s * 0.1);
    ctx.quadratic_curve_to(s * 0.54, s * 0.14, s * 0.54, s * 0.22);
    ctx.close_path();
    emblem(ctx, s, BRONZE)?;
    ctx.begin_path();
    ctx.ellipse(s * 0.52, s * 0.48, s * 0.18, s * 0.27, -0.35, 0.0, 2.0 * PI)?;
    emblem(ctx, s, GOLD)?;
    // The beak, the wing and the eye, carved.
    ctx.begin_path();
    ctx.move_to(s * 0.37, s * 0.24);
    ctx.quadratic_curve_to(s * 0.18, s * 0.24, s * 0.23, s * 0.44);
    ctx.line_to(s * 0.37, s * 0.36);
    ctx.close_path();
    emblem(ctx, s, BRONZE)?;
    ctx.begin_path();
    ctx.ellipse(s * 0.59, s * 0.55, s * 0.08, s * 0.17, -0.35, 0.0, 2.0 * PI)?;
    ctx.stroke();
    ctx.set_fill_style_str(OUTLINE);
    ctx.begin_path();
    ctx.arc(s * 0.45, s * 0.3, s * 0.035, 0.0, 2.0 * PI)?;
    ctx.fill();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::TILES;

    /// CIE L* of a `#rrggbb` colour (sRGB, D65).
    fn lightness(hex: &str) -> f64 {
        let channel = |i: usize| {
            let c = f64::from(u8::from_str_radix(&hex[i..i + 2], 16).unwrap()) / 255.0;
            if c <= 0.04045 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        let y = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
        116.0 * y.cbrt() - 16.0
    }

    /// Told apart without colour: every two tiles differ in lightness.
    #[test]
    fn the_tiles_differ_in_greyscale() {
        for (i, a) in TILES.iter().enumerate() {
            for b in &TILES[i + 1..] {
                let gap = (lightness(a) - lightness(b)).abs();
                assert!(gap >= 8.0, "{a} and {b}: L* {gap:.1} apart");
            }
        }
    }
}
