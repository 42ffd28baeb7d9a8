//! The overview's charts, drawn on the server as SVG by plotters: the page
//! needs no script, and the text of the axes is the page's own language.

use plotters::prelude::*;

pub const GOLD: RGBColor = RGBColor(0xb8, 0x86, 0x0b);
pub const BLUE: RGBColor = RGBColor(0x1f, 0x4e, 0x8c);

pub struct Series<'a> {
    pub name: &'a str,
    pub colour: RGBColor,
    /// (hours before now, value).
    pub points: Vec<(f64, f64)>,
}

const SIZE: (u32, u32) = (760, 280);

/// A line chart of the last 24 hours, as an `<svg>` element. A chart that
/// cannot be drawn is left out (and logged): it is never worth an error page.
pub fn line_chart(title: &str, x_desc: &str, series: &[Series<'_>]) -> String {
    let mut svg = String::new();
    if let Err(e) = draw(&mut svg, title, x_desc, series) {
        tracing::warn!(error = %e, chart = title, "a console chart could not be drawn");
        return String::new();
    }
    svg
}

fn draw(
    svg: &mut String,
    title: &str,
    x_desc: &str,
    series: &[Series<'_>],
) -> Result<(), Box<dyn std::error::Error>> {
    let top = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(0.0f64, f64::max);
    let y_max = if top > 0.0 { top * 1.1 } else { 1.0 };
    let root = SVGBackend::with_string(svg, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(64)
        .build_cartesian_2d(-24.0f64..0.0f64, 0.0f64..y_max)?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .x_labels(13)
        .x_label_formatter(&|h| format!("{:.0}", h.abs()))
        .y_labels(6)
        .y_label_formatter(&|v| {
            if y_max < 10.0 {
                format!("{v:.1}")
            } else {
                format!("{v:.0}")
            }
        })
        .light_line_style(RGBColor(0xee, 0xee, 0xee))
        .draw()?;
    for s in series {
        let colour = s.colour;
        chart
            .draw_series(LineSeries::new(
                s.points.iter().copied(),
                colour.stroke_width(2),
            ))?
            .label(s.name)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 16, y)], colour.stroke_width(2))
            });
    }
    if series.len() > 1 {
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK.mix(0.3))
            .position(SeriesLabelPosition::UpperLeft)
            .draw()?;
    }
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chart_is_an_svg_with_its_title_and_no_style_attribute() {
        let svg = line_chart(
            "Plays",
            "hours ago",
            &[Series {
                name: "plays",
                colour: GOLD,
                points: vec![(-24.0, 0.0), (-1.0, 12.0), (0.0, 3.0)],
            }],
        );
        assert!(svg.starts_with("<svg"), "{svg}");
        assert!(svg.contains("<text") && svg.contains("Plays"), "{svg}");
        // The console's policy allows no inline style.
        assert!(!svg.contains("style="), "{svg}");
    }
}
