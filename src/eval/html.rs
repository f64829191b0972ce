//! The self-contained HTML report: several runs side by side, with SVG charts drawn by
//! `plotters` (accuracy by depth and by format, CCF curves, CRS, chosen distractor
//! reasons) inlined into one page with its CSS. It loads nothing: no scripts, fonts,
//! styles or images from anywhere (the SVG namespace attribute, which HTML does not
//! need, is dropped so the page holds no URL at all). Every text from the runs is
//! escaped; the page is a pure function of the metrics, so the same runs give the same
//! bytes.

use super::metrics::SMALL_GROUP;
use super::tables::{header_html, paper_tables, tables_html, Header};
use crate::text::escape_html;
use std::fmt::Write as _;

use super::metrics::{Estimate, RunMetrics};
use super::report::flat_rows;

mod charts;
use charts::{bars, format_references, lines, Series};

/// Why a chart could not be drawn.
#[derive(Debug, thiserror::Error)]
#[error("drawing the {chart} chart: {message}")]
pub struct HtmlError {
    /// The chart.
    pub chart: String,
    /// What plotters said.
    pub message: String,
}

const CSS: &str = "body{font-family:sans-serif;margin:2em;color:#222;max-width:1000px}\
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em}\
table{border-collapse:collapse;font-size:.85em}\
td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left}\
td.num{text-align:right;font-variant-numeric:tabular-nums}\
p.note{color:#555;font-size:.9em}\
div.scroll{overflow-x:auto;max-width:100%}\
table.paper span.ci,table.paper span.metric{color:#666;font-size:.8em;white-space:nowrap}\
table.paper td.small{background:#f4f4f4;color:#777}\
p.baseline{background:#fff4d6;border-left:4px solid #d9a400;padding:.5em .8em}\
svg{max-width:100%;height:auto}\
p.legend span{margin-right:1em;white-space:nowrap;font-size:.85em}\
@media(max-width:700px){body{margin:.6em}table{display:block;overflow-x:auto}}";

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

/// Each run's first figure per key; small groups (fewer than
/// [`SMALL_GROUP`] answers) are left out, so one answer is never the
/// tallest bar.
fn series(runs: &[RunMetrics], section: &str, keys: &[String]) -> Vec<Series> {
    runs.iter()
        .map(|run| Series {
            run: run.run.clone(),
            values: keys
                .iter()
                .map(|k| {
                    run.figure(section, k)
                        .filter(|f| f.n >= SMALL_GROUP)
                        .map(|f| f.first)
                })
                .collect(),
        })
        .collect()
}

/// ` — film, film` for the page's heading (the first three films, then a count).
fn title_films(runs: &[RunMetrics]) -> String {
    let mut films: Vec<&str> = runs
        .iter()
        .flat_map(|m| m.films.iter().map(String::as_str))
        .collect();
    films.sort_unstable();
    films.dedup();
    match films.len() {
        0 => String::new(),
        1..=3 => format!(" — {}", escape_html(&films.join(", "))),
        n => format!(
            " — {} and {} more films",
            escape_html(&films[..3].join(", ")),
            n - 3
        ),
    }
}

/// The HTML report of `runs`.
pub fn html(runs: &[RunMetrics]) -> Result<String, HtmlError> {
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>moviegraph evaluation report</title>\n<style>{CSS}</style>\n</head>\n<body>\n\
         <h1>moviegraph evaluation report{}</h1>\n",
        title_films(runs)
    );
    out.push_str(&header_html(&Header::of(runs)));
    out.push_str(
        "<table>\n<tr><th>run</th><th>subject</th><th>open answers</th><th>keyframes</th>\
         <th>films</th><th>trees</th><th>answers</th><th>unparseable</th><th>resamples</th></tr>\n",
    );
    for m in runs {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{}/{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            escape_html(&m.run),
            escape_html(&m.subject),
            escape_html(&m.judge),
            escape_html(&m.keyframes_label()),
            escape_html(&m.films.join(", ")),
            m.trees_answered,
            m.trees,
            m.answers,
            m.unparseable,
            m.resamples
        );
    }
    out.push_str("</table>\n");
    provenance(&mut out, runs);
    out.push_str("<h2>Results in the reference paper's layout</h2>\n");
    out.push_str(&tables_html(&paper_tables(runs)));
    out.push_str("<p class=\"note\">Bars and bands show 95% cluster-bootstrap intervals over trees (docs/evaluation.md). Groups with fewer than 10 answers are left out of the charts; the tables above and the full table below show them.</p>\n");

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
            &[],
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
            &format_references(runs, &formats),
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
            &[],
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
                &[],
            )?,
        );
    }
    let labels = keys(runs, "belief_goal");
    if !labels.is_empty() {
        section(
            &mut out,
            "Accuracy by belief / social goal / belief of goal",
            &bars(
                "accuracy by belief_goal label",
                "accuracy",
                &labels,
                &series(runs, "belief_goal", &labels),
                1.05,
                &[],
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
                &[],
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
            &[],
        )?,
    );

    out.push_str(
        "<h2>All figures</h2>\n<table>\n<tr><th>section</th><th>group</th><th>metric</th>",
    );
    for m in runs {
        let _ = write!(out, "<th>{}</th>", escape_html(&m.run));
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
            escape_html(section_name),
            escape_html(key),
            escape_html(metric)
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
        let _ = write!(out, "<th>{}</th>", escape_html(&m.run));
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
        let _ = write!(out, "<tr><td>{}</td>", escape_html(&name));
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
        escape_html(&s.similarity),
        s.threshold
    );
    let mut row = |name: &str, p: &crate::graph::score::Prf| {
        if p.graph == 0 && p.matched_graph == 0 && name.contains("(recall)") {
            // A breakdown of the gold side only: no precision to show.
            let _ = writeln!(
                sec,
                "<tr><td>{}</td><td></td><td></td><td class=\"num\">{}/{}</td>\
                 <td class=\"num\">{:.3}</td><td></td></tr>",
                escape_html(name),
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
            escape_html(name),
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
        escape_html(&s.error_summary())
    );
    match page.rfind("</body>") {
        Some(at) => format!("{}{sec}{}", &page[..at], &page[at..]),
        None => format!("{page}{sec}"),
    }
}

/// `page` with the main characters' mental-state trajectories (a row per
/// character, a column per scene, each cell the families of the states held
/// there, shaded by how many), before the page's end.
pub fn with_trajectories(page: &str, t: &crate::graph::trajectory::Trajectories) -> String {
    use crate::graph::trajectory::{cell_text, FAMILIES};
    if t.characters.is_empty() {
        return page.to_owned();
    }
    let mut sec = String::from(
        "<h2>Mental-state trajectories</h2>\n<p>The states each main character holds, scene by \
         scene, in the graph the questions came from: ",
    );
    let key: Vec<String> = FAMILIES
        .iter()
        .map(|(family, letter)| format!("{letter} {family}"))
        .collect();
    let _ = write!(
        sec,
        "{} (a number: how many).</p>\n<div class=\"scroll\"><table class=\"paper\">\n<tr><th>character</th><th>states</th>",
        escape_html(&key.join(", "))
    );
    for s in 1..=t.scene_count {
        let _ = write!(sec, "<th>{s}</th>");
    }
    sec.push_str("</tr>\n");
    for c in &t.characters {
        let _ = write!(
            sec,
            "<tr><th>{}</th><td class=\"num\">{}</td>",
            escape_html(&c.name),
            c.states
        );
        for counts in &c.scenes {
            let n: usize = counts.iter().sum();
            // Shade by the number of states: none, one, two, three or more.
            let shade = ["#fff", "#e8f0fa", "#c9dcf2", "#9fc1e8"][n.min(3)];
            let _ = write!(
                sec,
                "<td style=\"background:{shade};text-align:center\">{}</td>",
                escape_html(&cell_text(counts))
            );
        }
        sec.push_str("</tr>\n");
    }
    sec.push_str("</table></div>\n");
    match page.rfind("<h2>All figures</h2>") {
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
            escape_html(file),
            escape_html(summary),
            escape_html(&audit)
        );
    }
    out.push_str("</table>\n");
}

fn section(out: &mut String, title: &str, svg: &str) {
    let _ = write!(
        out,
        "<h2>{}</h2>\n<figure>\n{svg}\n</figure>\n",
        escape_html(title)
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
