//! SVG charts (plotters' SVG back end: no fonts or system libraries needed; the viewer draws
//! the text).

use std::path::Path;

use anyhow::{Result, anyhow};
use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One line of a chart: a name for the legend and its points.
#[derive(Debug, Clone)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// A chart of lines with markers, optionally on logarithmic axes, with dashed horizontal
/// reference lines (targets).
#[derive(Debug, Clone)]
pub struct LineChart<'a> {
    pub title: &'a str,
    pub x_label: &'a str,
    pub y_label: &'a str,
    pub log_x: bool,
    pub log_y: bool,
    pub series: &'a [Series],
    /// `log_x`: x on a base-2 logarithmic axis labelled at the powers of two (P = 2, 4, 8 …).
    /// `(name, y)`: a dashed line across the chart.
    pub targets: &'a [(String, f64)],
}

const SIZE: (u32, u32) = (900, 560);

fn color(i: usize) -> RGBColor {
    // Okabe–Ito: distinguishable with every common colour-vision deficiency.
    const C: [RGBColor; 8] = [
        RGBColor(0, 114, 178),
        RGBColor(213, 94, 0),
        RGBColor(0, 158, 115),
        RGBColor(204, 121, 167),
        RGBColor(230, 159, 0),
        RGBColor(86, 180, 233),
        RGBColor(240, 228, 66),
        RGBColor(0, 0, 0),
    ];
    C[i % C.len()]
}

fn bounds(values: impl Iterator<Item = f64>, log: bool) -> Result<(f64, f64)> {
    let (lo, hi) = values
        .filter(|v| v.is_finite() && (!log || *v > 0.0))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if !lo.is_finite() {
        return Err(anyhow!("nothing to plot"));
    }
    Ok(if log {
        (lo / 1.25, hi * 1.25)
    } else {
        // From zero when the values are positive (a latency axis that starts elsewhere
        // exaggerates differences).
        let pad = ((hi - lo) * 0.05).max(hi.abs() * 0.05).max(1e-9);
        (if lo >= 0.0 { 0.0 } else { lo - pad }, hi + pad)
    })
}

/// An axis or bar label: whole numbers without a fraction, others with up to three significant
/// digits (0.25, not 0.250), and no fraction from 100 up (190.2 is 190). Only a fraction's
/// trailing zeros go: a number rounded to a whole one keeps its own (it once lost them, and
/// bars of 190.2 and 219.6 MHz read 19 and 22).
fn number(v: f64) -> String {
    if v == v.round() && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        let digits = (2 - v.abs().log10().floor() as i32).max(0) as usize;
        let text = format!("{v:.digits$}");
        if text.contains('.') {
            text.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            text
        }
    }
}

fn draw_err<E: std::error::Error + Send + Sync>(e: DrawingAreaErrorKind<E>) -> anyhow::Error {
    anyhow!("drawing the chart: {e:?}")
}

/// Writes `chart` to `path` as SVG.
pub fn line_chart(path: &Path, chart: &LineChart<'_>) -> Result<()> {
    // A base-2 x axis is drawn linear in log2(x), so its labels fall on the powers of two.
    let tx = |x: f64| if chart.log_x { x.log2() } else { x };
    let (x0, x1) = if chart.log_x {
        let (lo, hi) = bounds(
            chart
                .series
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.0)),
            true,
        )?;
        (
            lo.log2().floor().min(lo.log2() - 0.15),
            hi.log2().ceil().max(hi.log2() + 0.15),
        )
    } else {
        bounds(
            chart
                .series
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.0)),
            false,
        )?
    };
    let x_label = |v: &f64| {
        if chart.log_x {
            if (v - v.round()).abs() < 1e-9 {
                number(2f64.powi(v.round() as i32))
            } else {
                String::new()
            }
        } else {
            number(*v)
        }
    };
    let x_ticks = if chart.log_x {
        (x1 - x0).round() as usize + 1
    } else {
        10
    };
    let (y0, y1) = bounds(
        chart
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.1))
            .chain(chart.targets.iter().map(|t| t.1)),
        chart.log_y,
    )?;
    // Headroom above the data for the legend (upper left): a third of the height.
    let legend_rows = (chart.series.len() + chart.targets.len()) as f64;
    let room = 1.0 + legend_rows.min(12.0) * 0.06;
    let y1 = if chart.log_y {
        y1 * (y1 / y0).powf(room - 1.0)
    } else {
        y0 + (y1 - y0) * room
    };
    let root = SVGBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE).map_err(draw_err)?;
    // The two y axes are two coordinate types: one generic body.
    macro_rules! body {
        ($x:expr, $y:expr) => {{
            let mut c = ChartBuilder::on(&root)
                .caption(chart.title, ("sans-serif", 22))
                .margin(16)
                .x_label_area_size(48)
                .y_label_area_size(72)
                .build_cartesian_2d($x, $y)
                .map_err(draw_err)?;
            c.configure_mesh()
                .x_desc(chart.x_label)
                .y_desc(chart.y_label)
                .x_labels(x_ticks)
                .x_label_formatter(&x_label)
                .y_label_formatter(&|v| number(*v))
                .light_line_style(RGBColor(235, 235, 235))
                .draw()
                .map_err(draw_err)?;
            for (i, s) in chart.series.iter().enumerate() {
                let col = color(i);
                c.draw_series(LineSeries::new(
                    s.points.iter().map(|&(x, y)| (tx(x), y)),
                    col.stroke_width(2),
                ))
                .map_err(draw_err)?
                .label(s.name.as_str())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], col.stroke_width(2))
                });
                c.draw_series(
                    s.points
                        .iter()
                        .map(|&(x, y)| Circle::new((tx(x), y), 3, col.filled())),
                )
                .map_err(draw_err)?;
            }
            for (k, (name, y)) in chart.targets.iter().enumerate() {
                let grey = [RGBColor(90, 90, 90), RGBColor(170, 170, 170)][k % 2];
                c.draw_series(DashedLineSeries::new(
                    [(x0, *y), (x1, *y)],
                    6,
                    4,
                    grey.stroke_width(1),
                ))
                .map_err(draw_err)?
                .label(name.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], grey));
            }
            c.configure_series_labels()
                .position(SeriesLabelPosition::UpperLeft)
                .background_style(WHITE.mix(0.85))
                .border_style(RGBColor(200, 200, 200))
                .draw()
                .map_err(draw_err)?;
        }};
    }
    if chart.log_y {
        body!(x0..x1, (y0..y1).log_scale())
    } else {
        body!(x0..x1, y0..y1)
    }
    root.present().map_err(draw_err)?;
    Ok(())
}

/// Horizontal bars, one per `(name, value)` (`None`: not measured, drawn as an empty row),
/// with dashed vertical reference lines (targets).
pub fn bar_chart(
    path: &Path,
    title: &str,
    value_label: &str,
    bars: &[(String, Option<f64>)],
    targets: &[(String, f64)],
) -> Result<()> {
    if bars.is_empty() {
        return Err(anyhow!("nothing to plot"));
    }
    let hi = bars
        .iter()
        .filter_map(|b| b.1)
        .chain(targets.iter().map(|t| t.1))
        .fold(0.0f64, f64::max)
        // Room on the right for the legend.
        * 1.6;
    let n = bars.len();
    let height = (120 + 34 * n as u32).max(300);
    let root = SVGBackend::new(path, (SIZE.0, height)).into_drawing_area();
    root.fill(&WHITE).map_err(draw_err)?;
    let names: Vec<String> = bars.iter().map(|b| b.0.clone()).collect();
    let mut c = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(200)
        // Segments 0 ..= n - 1, one per bar (a segmented range includes its end).
        .build_cartesian_2d(0.0..hi, (0..n.max(2) - 1).into_segmented())
        .map_err(draw_err)?;
    c.configure_mesh()
        .x_desc(value_label)
        .x_label_formatter(&|v| number(*v))
        .y_labels(n)
        // The first bar on top.
        .y_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) if *i < n => names[n - 1 - *i].clone(),
            _ => String::new(),
        })
        .disable_y_mesh()
        .light_line_style(RGBColor(235, 235, 235))
        .draw()
        .map_err(draw_err)?;
    let row = |i: usize| n - 1 - i;
    c.draw_series(bars.iter().enumerate().filter_map(|(i, (_, v))| {
        v.map(|v| {
            let mut r = Rectangle::new(
                [
                    (0.0, SegmentValue::Exact(row(i))),
                    (v, SegmentValue::Exact(row(i) + 1)),
                ],
                color(0).mix(0.8).filled(),
            );
            r.set_margin(5, 5, 0, 0);
            r
        })
    }))
    .map_err(draw_err)?;
    // The value at the end of each bar ("-" where none was measured).
    c.draw_series(bars.iter().enumerate().map(|(i, (_, v))| {
        Text::new(
            v.map_or("-".to_string(), |v| format!(" {}", number(v))),
            (v.unwrap_or(0.0), SegmentValue::CenterOf(row(i))),
            TextStyle::from(("sans-serif", 13).into_font()).pos(Pos::new(HPos::Left, VPos::Center)),
        )
    }))
    .map_err(draw_err)?;
    for (k, (name, x)) in targets.iter().enumerate() {
        let col = color(k + 1);
        c.draw_series(DashedLineSeries::new(
            [(*x, SegmentValue::Exact(0)), (*x, SegmentValue::Exact(n))],
            6,
            4,
            col.stroke_width(2),
        ))
        .map_err(draw_err)?
        .label(name.as_str())
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], col.stroke_width(2)));
    }
    if !targets.is_empty() {
        c.configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(200, 200, 200))
            .draw()
            .map_err(draw_err)?;
    }
    root.present().map_err(draw_err)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_labels_have_no_useless_digits() {
        assert_eq!(number(64.0), "64");
        assert_eq!(number(0.25), "0.25");
        assert_eq!(number(0.5), "0.5");
        assert_eq!(number(1.5), "1.5");
        assert_eq!(number(0.125), "0.125");
        assert_eq!(number(1.23456), "1.23");
        // Rounded to a whole number: its zeros are its own.
        assert_eq!(number(190.2), "190");
        assert_eq!(number(219.6), "220");
        assert_eq!(number(179.96), "180");
        assert_eq!(number(1290.4), "1290");
        assert_eq!(number(99.96), "100");
        assert_eq!(number(10.04), "10");
        assert_eq!(number(-150.3), "-150");
    }

    #[test]
    fn a_line_chart_and_a_bar_chart_are_svg_with_every_name() {
        let dir = std::env::temp_dir().join(format!("collwire-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let series = [
            Series {
                name: "ring".into(),
                points: vec![(2.0, 100.0), (4.0, 210.0), (8.0, 400.0)],
            },
            Series {
                name: "tree".into(),
                points: vec![(2.0, 90.0), (4.0, 150.0), (8.0, 190.0)],
            },
        ];
        let line = dir.join("line.svg");
        line_chart(
            &line,
            &LineChart {
                title: "allreduce",
                x_label: "P",
                y_label: "cycles",
                log_x: true,
                log_y: true,
                series: &series,
                targets: &[("target".into(), 120.0)],
            },
        )
        .unwrap();
        let svg = std::fs::read_to_string(&line).unwrap();
        assert!(svg.starts_with("<svg"));
        for name in ["allreduce", "ring", "tree", "target", "cycles"] {
            assert!(svg.contains(name), "{name} in the SVG");
        }
        let bars = dir.join("bars.svg");
        bar_chart(
            &bars,
            "Fmax",
            "MHz",
            &[("cfe".into(), Some(112.0)), ("board".into(), None)],
            &[("125 MHz".into(), 125.0)],
        )
        .unwrap();
        let svg = std::fs::read_to_string(&bars).unwrap();
        for name in ["Fmax", "cfe", "board", "125 MHz"] {
            assert!(svg.contains(name), "{name} in the SVG");
        }
        assert!(
            line_chart(
                &dir.join("empty.svg"),
                &LineChart {
                    title: "",
                    x_label: "",
                    y_label: "",
                    log_x: false,
                    log_y: false,
                    series: &[],
                    targets: &[],
                }
            )
            .is_err()
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
