//! The report's SVG charts (drawn with `plotters`): grouped bars with their
//! intervals and reference lines, lines with interval bands, and each chart's key
//! as HTML under it.

use std::fmt::Write as _;

use plotters::prelude::*;

use super::HtmlError;
use crate::eval::metrics::{Estimate, RunMetrics};
use crate::text::escape_html;

const PALETTE: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

/// One value per category per run, for a chart.
pub(super) struct Series {
    /// The legend's name (a run, or a run and what it counts).
    pub(super) run: String,
    /// Per category, when the run has it.
    pub(super) values: Vec<Option<Estimate>>,
}

fn chart_error(chart: &str) -> impl Fn(String) -> HtmlError + '_ {
    move |message| HtmlError {
        chart: chart.to_string(),
        message,
    }
}

/// A horizontal line across one category's bars: what a reader that knows
/// nothing scores there, or the strongest shortcut reader of `trees audit`.
pub(super) struct Reference {
    category: usize,
    value: f64,
    kind: ReferenceKind,
}

#[derive(Clone, Copy, PartialEq)]
pub(super) enum ReferenceKind {
    Chance,
    Shortcut,
}

impl ReferenceKind {
    fn color(self) -> RGBColor {
        match self {
            ReferenceKind::Chance => RGBColor(40, 40, 40),
            ReferenceKind::Shortcut => RGBColor(200, 0, 0),
        }
    }
    fn label(self) -> &'static str {
        match self {
            ReferenceKind::Chance => "chance",
            ReferenceKind::Shortcut => "strongest shortcut reader (trees audit)",
        }
    }
}

fn hex(c: RGBColor) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

/// Chance and the strongest shortcut reader per question format, from the
/// validity audits of the runs' trees files (the strongest over all files
/// where there are several).
pub(super) fn format_references(runs: &[RunMetrics], formats: &[String]) -> Vec<Reference> {
    let mut refs = Vec::new();
    for (category, format) in formats.iter().enumerate() {
        let audit_format = match format.as_str() {
            "single" => "single",
            "multi" => "multi",
            _ => continue,
        };
        let strongest = runs
            .iter()
            .flat_map(|m| &m.made)
            .filter_map(|made| made.audit.as_ref())
            .flat_map(|a| &a.strongest)
            .filter(|r| r.format == audit_format && r.questions > 0)
            .max_by(|a, b| a.accuracy.total_cmp(&b.accuracy));
        if let Some(r) = strongest {
            refs.push(Reference {
                category,
                value: r.chance,
                kind: ReferenceKind::Chance,
            });
            refs.push(Reference {
                category,
                value: r.accuracy,
                kind: ReferenceKind::Shortcut,
            });
        }
    }
    refs
}

/// The chart's key as HTML under it (inside the chart it covered bars).
fn legend(series: &[Series], refs: &[Reference], line: bool) -> String {
    let mut out = String::from("<p class=\"legend\">");
    let mark = if line { "━" } else { "■" };
    for (r, s) in series.iter().enumerate() {
        let _ = write!(
            out,
            "<span><b style=\"color:{}\">{mark}</b> {}</span> ",
            hex(PALETTE[r % PALETTE.len()]),
            escape_html(&s.run)
        );
    }
    for kind in [ReferenceKind::Chance, ReferenceKind::Shortcut] {
        if refs.iter().any(|r| r.kind == kind) {
            let _ = write!(
                out,
                "<span><b style=\"color:{}\">━</b> {}</span> ",
                hex(kind.color()),
                kind.label()
            );
        }
    }
    out.push_str("</p>");
    out
}

/// Grouped bars with their 95% intervals, one group per category, one bar per
/// run, and `refs` as lines across their categories; the key is under the chart.
pub(super) fn bars(
    title: &str,
    y_desc: &str,
    categories: &[String],
    series: &[Series],
    y_max: f64,
    refs: &[Reference],
) -> Result<String, HtmlError> {
    let err = chart_error(title);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 380)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
        let n = categories.len().max(1);
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(56)
            .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), 0f64..y_max)
            .map_err(|e| err(e.to_string()))?;
        let label = |x: &f64| {
            let i = x.round();
            if (x - i).abs() < 1e-6 && i >= 0.0 {
                categories.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        };
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(n)
            .x_label_formatter(&label)
            .y_desc(y_desc)
            .draw()
            .map_err(|e| err(e.to_string()))?;
        let width = 0.8 / series.len().max(1) as f64;
        for (r, s) in series.iter().enumerate() {
            let color = PALETTE[r % PALETTE.len()];
            let left = |i: usize| i as f64 - 0.4 + r as f64 * width;
            chart
                .draw_series(s.values.iter().enumerate().filter_map(|(i, v)| {
                    v.map(|e| {
                        Rectangle::new(
                            [(left(i), 0.0), (left(i) + width * 0.9, e.mean.min(y_max))],
                            color.filled(),
                        )
                    })
                }))
                .map_err(|e| err(e.to_string()))?;
            chart
                .draw_series(s.values.iter().enumerate().filter_map(|(i, v)| {
                    v.map(|e| {
                        let x = left(i) + width * 0.45;
                        PathElement::new(
                            vec![(x, e.lo.min(y_max)), (x, e.hi.min(y_max))],
                            BLACK.stroke_width(1),
                        )
                    })
                }))
                .map_err(|e| err(e.to_string()))?;
        }
        chart
            .draw_series(refs.iter().map(|r| {
                let x = r.category as f64;
                PathElement::new(
                    vec![
                        (x - 0.45, r.value.min(y_max)),
                        (x + 0.45, r.value.min(y_max)),
                    ],
                    r.kind.color().stroke_width(2),
                )
            }))
            .map_err(|e| err(e.to_string()))?;
        root.present().map_err(|e| err(e.to_string()))?;
    }
    Ok(inline(svg) + &legend(series, refs, false))
}

/// One line per run over numeric categories (depths), points where a run has a value,
/// with its 95% interval as a shaded band.
pub(super) fn lines(
    title: &str,
    categories: &[String],
    series: &[Series],
) -> Result<String, HtmlError> {
    let err = chart_error(title);
    let xs: Vec<f64> = categories
        .iter()
        .map(|k| k.parse::<f64>().unwrap_or(0.0))
        .collect();
    let (lo, hi) = xs
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
    let (lo, hi) = if xs.is_empty() { (1.0, 2.0) } else { (lo, hi) };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 380)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(56)
            .build_cartesian_2d((lo - 0.5)..(hi + 0.5), 0f64..1.05f64)
            .map_err(|e| err(e.to_string()))?;
        chart
            .configure_mesh()
            .x_labels(((hi - lo) as usize + 1).max(2))
            .x_label_formatter(&|x| format!("{x:.0}"))
            .x_desc("depth")
            .y_desc("accuracy")
            .draw()
            .map_err(|e| err(e.to_string()))?;
        for (r, s) in series.iter().enumerate() {
            let color = PALETTE[r % PALETTE.len()];
            let points: Vec<(f64, Estimate)> = xs
                .iter()
                .zip(&s.values)
                .filter_map(|(&x, v)| v.map(|e| (x, e)))
                .collect();
            let mut band: Vec<(f64, f64)> = points.iter().map(|(x, e)| (*x, e.hi)).collect();
            band.extend(points.iter().rev().map(|(x, e)| (*x, e.lo)));
            if band.len() >= 3 {
                chart
                    .draw_series(std::iter::once(Polygon::new(
                        band,
                        color.mix(0.15).filled(),
                    )))
                    .map_err(|e| err(e.to_string()))?;
            }
            chart
                .draw_series(LineSeries::new(
                    points.iter().map(|(x, e)| (*x, e.mean)),
                    color.stroke_width(2),
                ))
                .map_err(|e| err(e.to_string()))?;
            chart
                .draw_series(
                    points
                        .iter()
                        .map(|(x, e)| Circle::new((*x, e.mean), 4, color.filled())),
                )
                .map_err(|e| err(e.to_string()))?;
        }
        root.present().map_err(|e| err(e.to_string()))?;
    }
    Ok(inline(svg) + &legend(series, &[], true))
}

/// The SVG as an inline element of the page: HTML needs no namespace declaration, and
/// dropping it leaves the page without any URL.
fn inline(svg: String) -> String {
    svg.replace(" xmlns=\"http://www.w3.org/2000/svg\"", "")
        .replace(" xmlns:xlink=\"http://www.w3.org/1999/xlink\"", "")
}
