//! The self-contained HTML report: several runs side by side, with SVG charts drawn by
//! `plotters` (accuracy by depth and by format, CCF curves, CRS, chosen distractor
//! reasons) inlined into one page with its CSS. It loads nothing: no scripts, fonts,
//! styles or images from anywhere (the SVG namespace attribute, which HTML does not
//! need, is dropped so the page holds no URL at all). Every text from the runs is
//! escaped; the page is a pure function of the metrics, so the same runs give the same
//! bytes.

use std::fmt::Write as _;

use plotters::prelude::*;

use super::metrics::{Estimate, RunMetrics};
use super::report::flat_rows;

/// Why a chart could not be drawn.
#[derive(Debug, thiserror::Error)]
#[error("drawing the {chart} chart: {message}")]
pub struct HtmlError {
    /// The chart.
    pub chart: String,
    /// What plotters said.
    pub message: String,
}

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

const CSS: &str = "body{font-family:sans-serif;margin:2em;color:#222;max-width:1000px}\
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em}\
table{border-collapse:collapse;font-size:.85em}\
td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left}\
td.num{text-align:right;font-variant-numeric:tabular-nums}\
p.note{color:#555;font-size:.9em}";

/// Escapes text for HTML element content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// One value per category per run, for a chart.
struct Series {
    run: String,
    values: Vec<Option<Estimate>>,
}

fn chart_error(chart: &str) -> impl Fn(String) -> HtmlError + '_ {
    move |message| HtmlError {
        chart: chart.to_string(),
        message,
    }
}

/// Keys of `section` over all runs, numbers numerically, in first-seen order otherwise.
fn keys(runs: &[RunMetrics], section: &str) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    for run in runs {
        for f in run.figures.iter().filter(|f| f.section == section) {
            if !keys.contains(&f.key) {
                keys.push(f.key.clone());
            }
        }
    }
    if keys.iter().all(|k| k.parse::<u64>().is_ok()) {
        keys.sort_by_key(|k| k.parse::<u64>().unwrap_or(0));
    }
    keys
}

fn series(runs: &[RunMetrics], section: &str, keys: &[String]) -> Vec<Series> {
    runs.iter()
        .map(|run| Series {
            run: run.run.clone(),
            values: keys
                .iter()
                .map(|k| run.figure(section, k).map(|f| f.first))
                .collect(),
        })
        .collect()
}

/// Grouped bars with their 95% intervals, one group per category, one bar per run.
fn bars(
    title: &str,
    y_desc: &str,
    categories: &[String],
    series: &[Series],
    y_max: f64,
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
                .map_err(|e| err(e.to_string()))?
                .label(s.run.as_str())
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 10, y + 5)], color.filled())
                });
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
            .configure_series_labels()
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .draw()
            .map_err(|e| err(e.to_string()))?;
        root.present().map_err(|e| err(e.to_string()))?;
    }
    Ok(inline(svg))
}

/// One line per run over numeric categories (depths), points where a run has a value,
/// with its 95% interval as a shaded band.
fn lines(title: &str, categories: &[String], series: &[Series]) -> Result<String, HtmlError> {
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
                .map_err(|e| err(e.to_string()))?
                .label(s.run.as_str())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 14, y)], color.stroke_width(2))
                });
            chart
                .draw_series(
                    points
                        .iter()
                        .map(|(x, e)| Circle::new((*x, e.mean), 4, color.filled())),
                )
                .map_err(|e| err(e.to_string()))?;
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .draw()
            .map_err(|e| err(e.to_string()))?;
        root.present().map_err(|e| err(e.to_string()))?;
    }
    Ok(inline(svg))
}

/// The SVG as an inline element of the page: HTML needs no namespace declaration, and
/// dropping it leaves the page without any URL.
fn inline(svg: String) -> String {
    svg.replace(" xmlns=\"http://www.w3.org/2000/svg\"", "")
        .replace(" xmlns:xlink=\"http://www.w3.org/1999/xlink\"", "")
}

/// The HTML report of `runs`.
pub fn html(runs: &[RunMetrics]) -> Result<String, HtmlError> {
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>moviegraph evaluation report</title>\n<style>{CSS}</style>\n</head>\n<body>\n\
         <h1>moviegraph evaluation report</h1>\n"
    );
    out.push_str(
        "<table>\n<tr><th>run</th><th>subject</th><th>open answers</th><th>keyframes</th>\
         <th>films</th><th>trees</th><th>answers</th><th>unparseable</th><th>resamples</th></tr>\n",
    );
    for m in runs {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{}/{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            escape(&m.run),
            escape(&m.subject),
            escape(&m.judge),
            escape(&m.keyframes_label()),
            escape(&m.films.join(", ")),
            m.trees_answered,
            m.trees,
            m.answers,
            m.unparseable,
            m.resamples
        );
    }
    out.push_str("</table>\n");
    provenance(&mut out, runs);
    out.push_str("<p class=\"note\">Bars and bands show 95% cluster-bootstrap intervals over trees (docs/evaluation.md).</p>\n");

    let depth = keys(runs, "depth");
    section(
        &mut out,
        "Accuracy by depth",
        &bars(
            "accuracy by depth (both phases)",
            "accuracy",
            &depth,
            &series(runs, "depth", &depth),
            1.05,
        )?,
    );
    let formats = keys(runs, "format");
    section(
        &mut out,
        "Accuracy by format",
        &bars(
            "accuracy by format",
            "accuracy",
            &formats,
            &series(runs, "format", &formats),
            1.05,
        )?,
    );
    let ccf = keys(runs, "ccf");
    section(
        &mut out,
        "CCF: phase-1 accuracy by depth",
        &lines(
            "CCF (phase-1 accuracy per depth)",
            &ccf,
            &series(runs, "ccf", &ccf),
        )?,
    );
    let crs = vec!["CRS".to_string()];
    section(
        &mut out,
        "CRS: counterfactual (phase-2) accuracy",
        &bars(
            "CRS",
            "mean phase-2 accuracy per tree",
            &crs,
            &series(runs, "tree", &crs),
            1.05,
        )?,
    );
    let levels = keys(runs, "group_level");
    if !levels.is_empty() {
        section(
            &mut out,
            "Accuracy by group level",
            &bars(
                "accuracy by group level",
                "accuracy",
                &levels,
                &series(runs, "group_level", &levels),
                1.05,
            )?,
        );
    }
    let positions: Vec<String> = keys(runs, "position")
        .into_iter()
        .filter(|k| k != "bias")
        .collect();
    if !positions.is_empty() {
        let mut shares = Vec::new();
        for m in runs
            .iter()
            .filter(|m| m.figure("position", "bias").is_some())
        {
            for (label, gold) in [("chosen", false), ("gold", true)] {
                shares.push(Series {
                    run: format!("{} {label}", m.run),
                    values: positions
                        .iter()
                        .map(|k| {
                            m.figure("position", k)
                                .map(|f| if gold { f.second } else { f.first })
                        })
                        .collect(),
                });
            }
        }
        section(
            &mut out,
            "Option rotation: positional bias",
            &bars(
                "share of chosen vs correct options per displayed position",
                "share",
                &positions,
                &shares,
                1.05,
            )?,
        );
    }
    let (reasons, shares) = distractor_shares(runs);
    section(
        &mut out,
        "Chosen distractor reasons",
        &bars(
            "share of wrong choice answers by the reason of the chosen distractor",
            "share",
            &reasons,
            &shares,
            1.05,
        )?,
    );

    out.push_str(
        "<h2>All figures</h2>\n<table>\n<tr><th>section</th><th>group</th><th>metric</th>",
    );
    for m in runs {
        let _ = write!(out, "<th>{}</th>", escape(&m.run));
    }
    out.push_str("</tr>\n");
    let rows = flat_rows(runs);
    let mut order: Vec<(&str, &str, &str)> = Vec::new();
    for r in &rows {
        let key = (r.section, r.key, r.metric);
        if !order.contains(&key) {
            order.push(key);
        }
    }
    for (section_name, key, metric) in order {
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td>",
            escape(section_name),
            escape(key),
            escape(metric)
        );
        for m in runs {
            let cell = rows
                .iter()
                .find(|r| {
                    r.run == m.run
                        && r.section == section_name
                        && r.key == key
                        && r.metric == metric
                })
                .map(|r| {
                    format!(
                        "{:.3} [{:.3}, {:.3}] n={}",
                        r.estimate.mean, r.estimate.lo, r.estimate.hi, r.n
                    )
                })
                .unwrap_or_default();
            let _ = write!(out, "<td class=\"num\">{cell}</td>");
        }
        out.push_str("</tr>\n");
    }
    out.push_str(
        "</table>\n<h2>Dependency and distractor counts</h2>\n<table>\n<tr><th>count</th>",
    );
    for m in runs {
        let _ = write!(out, "<th>{}</th>", escape(&m.run));
    }
    out.push_str("</tr>\n");
    let mut count_rows: Vec<(String, Vec<usize>)> = vec![
        (
            "fully correct".into(),
            runs.iter().map(|m| m.dependency.fully_correct).collect(),
        ),
        (
            "local error".into(),
            runs.iter().map(|m| m.dependency.local_error).collect(),
        ),
        (
            "apparent success".into(),
            runs.iter().map(|m| m.dependency.apparent_success).collect(),
        ),
        (
            "full error".into(),
            runs.iter().map(|m| m.dependency.full_error).collect(),
        ),
    ];
    for reason in &reasons {
        count_rows.push((
            format!("distractor: {reason}"),
            runs.iter().map(|m| distractor_count(m, reason)).collect(),
        ));
    }
    for (name, counts) in count_rows {
        let _ = write!(out, "<tr><td>{}</td>", escape(&name));
        for c in counts {
            let _ = write!(out, "<td class=\"num\">{c}</td>");
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n</body>\n</html>\n");
    Ok(out)
}

/// `page` with a section on the graph the trees came from, scored against
/// the film's gold annotation (`graph score`), before the page's end.
pub fn with_graph_score(page: &str, s: &crate::graph::score::GraphScore) -> String {
    let mut sec = String::new();
    let _ = write!(
        sec,
        "<h2>Graph fidelity against the gold annotation</h2>\n<p class=\"note\">The film's graph \
         scored against its gold.json (content: {}, match at ≥ {}; scene ±1). Precision is the \
         share of what the graph asserts that the gold supports; recall the share of the gold the \
         graph finds.</p>\n<table>\n<tr><th></th><th>graph matched</th><th>precision</th>\
         <th>gold matched</th><th>recall</th><th>F1</th></tr>\n",
        escape(&s.similarity),
        s.threshold
    );
    let mut row = |name: &str, p: &crate::graph::score::Prf| {
        if p.graph == 0 && p.matched_graph == 0 && name.contains("(recall)") {
            // A breakdown of the gold side only: no precision to show.
            let _ = writeln!(
                sec,
                "<tr><td>{}</td><td></td><td></td><td class=\"num\">{}/{}</td>\
                 <td class=\"num\">{:.3}</td><td></td></tr>",
                escape(name),
                p.matched_gold,
                p.gold,
                p.recall()
            );
            return;
        }
        let _ = writeln!(
            sec,
            "<tr><td>{}</td><td class=\"num\">{}/{}</td><td class=\"num\">{:.3}</td>\
             <td class=\"num\">{}/{}</td><td class=\"num\">{:.3}</td><td class=\"num\">{:.3}</td></tr>",
            escape(name),
            p.matched_graph,
            p.graph,
            p.precision(),
            p.matched_gold,
            p.gold,
            p.recall(),
            p.f1()
        );
    };
    row("mental states", &s.states);
    for (family, p) in &s.by_family {
        row(&format!("— {family}"), p);
    }
    row("— explicit in the script (recall)", &s.explicit);
    row("— implicit, inferred (recall)", &s.implicit);
    row("higher-order (about)", &s.higher_order);
    row("causal links", &s.causal);
    sec.push_str("</table>\n");
    let _ = writeln!(
        sec,
        "<p>Gold chains recovered: {} of {}. Graph items matching no gold item: {}.</p>",
        s.chains_recovered,
        s.chains,
        escape(&s.error_summary())
    );
    match page.rfind("</body>") {
        Some(at) => format!("{}{sec}{}", &page[..at], &page[at..]),
        None => format!("{page}{sec}"),
    }
}

/// How each run's trees were made (one row per trees file; rows a run shares
/// with the run above are not repeated).
fn provenance(out: &mut String, runs: &[RunMetrics]) {
    let mut rows: Vec<(&str, &str, String)> = Vec::new();
    for m in runs {
        for made in &m.made {
            if !rows
                .iter()
                .any(|r| r.0 == made.file.as_str() && r.1 == made.summary.as_str())
            {
                let audit = made
                    .audit
                    .as_ref()
                    .map_or_else(|| "not measured".to_owned(), |a| a.summary());
                rows.push((&made.file, &made.summary, audit));
            }
        }
    }
    if rows.is_empty() {
        return;
    }
    out.push_str("<h2>How the trees were made</h2>\n<p>A score is only worth its distance above the strongest shortcut reader: <code>moviegraph trees audit FILE</code> prints the full validity audit.</p>\n<table>\n<tr><th>trees file</th><th>provenance</th><th>validity audit</th></tr>\n");
    for (file, summary, audit) in rows {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(file),
            escape(summary),
            escape(&audit)
        );
    }
    out.push_str("</table>\n");
}

fn section(out: &mut String, title: &str, svg: &str) {
    let _ = write!(
        out,
        "<h2>{}</h2>\n<figure>\n{svg}\n</figure>\n",
        escape(title)
    );
}

fn distractor_count(m: &RunMetrics, reason: &str) -> usize {
    m.distractors
        .iter()
        .find(|(r, _)| r == reason)
        .map_or(0, |(_, c)| *c)
}

/// Reasons over all runs (sorted) and each run's share of its wrong choice answers per
/// reason (a wrong answer choosing two distractors counts under both, so shares can
/// sum past 1).
fn distractor_shares(runs: &[RunMetrics]) -> (Vec<String>, Vec<Series>) {
    let mut reasons: Vec<String> = runs
        .iter()
        .flat_map(|m| m.distractors.iter().map(|(r, _)| r.clone()))
        .collect();
    reasons.sort();
    reasons.dedup();
    let shares = runs
        .iter()
        .map(|m| {
            let total: usize = m.distractors.iter().map(|(_, c)| c).sum();
            Series {
                run: m.run.clone(),
                values: reasons
                    .iter()
                    .map(|r| {
                        let share = distractor_count(m, r) as f64 / total.max(1) as f64;
                        Some(Estimate {
                            mean: share,
                            lo: share,
                            hi: share,
                        })
                    })
                    .collect(),
            }
        })
        .collect();
    (reasons, shares)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::gold::parse_gold;
    use crate::graph::score::{score, ScoreOptions, Similarity};

    #[test]
    fn the_graph_score_section_sits_before_the_end_and_shows_no_precision_for_gold_only_rows() {
        let gold = parse_gold(
            r#"{"film": "t", "characters": [{"name": "ANN"}],
            "mental_states": [
              {"id": "m1", "holder": "ANN", "attitude": "knowledge", "content": "the ring has left the safe",
               "negated": true, "scene": 1, "explicit": true, "evidence": "Ann doesn't know the ring has left the safe."}],
            "causal_links": [], "chains": []}"#,
        )
        .unwrap();
        let opts = ScoreOptions {
            scene_window: 1,
            threshold: 0.25,
        };
        let s = score(&gold.to_graph(), &gold, &Similarity::Lexical, opts).unwrap();
        let page = with_graph_score("<html><body><h1>r</h1>\n</body>\n</html>\n", &s);
        let at = page.find("Graph fidelity").unwrap();
        assert!(at < page.find("</body>").unwrap());
        let explicit = page
            .lines()
            .find(|l| l.contains("explicit in the script"))
            .unwrap();
        assert_eq!(
            explicit,
            "<tr><td>— explicit in the script (recall)</td><td></td><td></td>\
             <td class=\"num\">1/1</td><td class=\"num\">1.000</td><td></td></tr>"
        );
        assert!(page.contains("<td>mental states</td><td class=\"num\">1/1</td>"));
    }
}
