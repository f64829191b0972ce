//! Rendering run metrics: a terminal table with several runs side by side (the shape
//! of the reference benchmark's results tables), JSON and CSV. Output is a pure
//! function of the metrics: fixed ordering and fixed float formatting, so the same runs
//! give the same bytes.

use super::tables::{paper_tables, Header, Table};
use std::fmt::Write as _;

use super::metrics::{Estimate, Figure, RunMetrics};

/// One row of the flat form: a figure of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct FlatRow<'a> {
    /// The run id.
    pub run: &'a str,
    /// The section.
    pub section: &'static str,
    /// The group.
    pub key: &'a str,
    /// The figure's name.
    pub metric: &'static str,
    /// Answers (or trees) behind it.
    pub n: usize,
    /// The figure.
    pub estimate: Estimate,
}

/// Every figure of every run, one per row, in report order.
pub fn flat_rows(runs: &[RunMetrics]) -> Vec<FlatRow<'_>> {
    let mut rows = Vec::new();
    for run in runs {
        for figure in &run.figures {
            for (metric, estimate) in [
                (figure.first_name, figure.first),
                (figure.second_name, figure.second),
            ] {
                rows.push(FlatRow {
                    run: &run.run,
                    section: figure.section,
                    key: &figure.key,
                    metric,
                    n: figure.n,
                    estimate,
                });
            }
        }
    }
    rows
}

fn cell(estimate: Estimate, n: usize, with_interval: bool) -> String {
    if with_interval {
        format!(
            "{:.3} [{:.3}, {:.3}] n={n}",
            estimate.mean, estimate.lo, estimate.hi
        )
    } else {
        format!("{:.3} n={n}", estimate.mean)
    }
}

/// The terminal report: each run's header, then one table with a column per run.
pub fn table(runs: &[RunMetrics]) -> String {
    let mut out = String::new();
    for run in runs {
        let _ = writeln!(
            out,
            "run {}: subject {}, {}, keyframes {}, films {}, trees {} ({} answered), questions {}, answers {}, unparseable {}, bootstrap {} resamples (95% CI)",
            run.run,
            run.subject,
            run.judge,
            run.keyframes_label(),
            if run.films.is_empty() {
                "none".to_owned()
            } else {
                run.films.join(", ")
            },
            run.trees,
            run.trees_answered,
            run.questions,
            run.answers,
            run.unparseable,
            run.resamples
        );
        for made in &run.made {
            let _ = writeln!(out, "  trees {}: {}", made.file, made.summary);
            if let Some(audit) = &made.audit {
                let _ = writeln!(out, "    {}", audit.summary());
            }
        }
    }
    out.push('\n');
    // Rows in first-seen order across runs, which is the sections' order for each run.
    let mut keys: Vec<(&'static str, &str, &'static str)> = Vec::new();
    for run in runs {
        for f in &run.figures {
            for metric in [f.first_name, f.second_name] {
                let key = (f.section, f.key.as_str(), metric);
                if !keys.contains(&key) {
                    keys.push(key);
                }
            }
        }
    }
    let find = |run: &RunMetrics, (section, key, metric): (&str, &str, &str)| -> Option<String> {
        let f: &Figure = run.figure(section, key)?;
        let estimate = if f.first_name == metric {
            f.first
        } else if f.second_name == metric {
            f.second
        } else {
            return None;
        };
        Some(cell(estimate, f.n, run.resamples > 0))
    };
    let mut grid: Vec<Vec<String>> = vec![{
        let mut header = vec!["section".to_string(), "group".into(), "metric".into()];
        header.extend(runs.iter().map(|r| format!("{} ({})", r.run, r.subject)));
        header
    }];
    for &key in &keys {
        let mut row = vec![key.0.to_string(), key.1.to_string(), key.2.to_string()];
        row.extend(
            runs.iter()
                .map(|r| find(r, key).unwrap_or_else(|| "-".into())),
        );
        grid.push(row);
    }
    let mut dependency = |name: &str, get: &dyn Fn(&RunMetrics) -> usize| {
        let mut row = vec!["dependency".to_string(), name.to_string(), "pairs".into()];
        row.extend(runs.iter().map(|r| {
            let d = r.dependency;
            let total = d.fully_correct + d.local_error + d.apparent_success + d.full_error;
            let count = get(r);
            format!(
                "{count} ({:.1}%)",
                100.0 * count as f64 / total.max(1) as f64
            )
        }));
        grid.push(row);
    };
    dependency("fully_correct", &|r| r.dependency.fully_correct);
    dependency("local_error", &|r| r.dependency.local_error);
    dependency("apparent_success", &|r| r.dependency.apparent_success);
    dependency("full_error", &|r| r.dependency.full_error);
    let mut reasons: Vec<&str> = runs
        .iter()
        .flat_map(|r| r.distractors.iter().map(|(k, _)| k.as_str()))
        .collect();
    reasons.sort_unstable();
    reasons.dedup();
    for reason in reasons {
        let mut row = vec![
            "distractor".to_string(),
            reason.to_string(),
            "wrong answers".into(),
        ];
        row.extend(runs.iter().map(|r| {
            r.distractors
                .iter()
                .find(|(k, _)| k == reason)
                .map_or_else(|| "0".to_string(), |(_, n)| n.to_string())
        }));
        grid.push(row);
    }
    render_grid(&mut out, &grid);
    out
}

fn render_grid(out: &mut String, grid: &[Vec<String>]) {
    let columns = grid.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            grid.iter()
                .filter_map(|row| row.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for (i, row) in grid.iter().enumerate() {
        let line: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, s)| format!("{s:<width$}", width = widths[c]))
            .collect();
        let _ = writeln!(out, "{}", line.join("  ").trim_end());
        if i == 0 {
            let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
            let _ = writeln!(out, "{}", rule.join("  "));
        }
    }
}

/// The report as pretty JSON: `{"header", "tables", "runs"}` — what the
/// report is about ([`Header`]), the paper-layout tables
/// ([`paper_tables`]), and every run's metrics.
pub fn json(runs: &[RunMetrics]) -> String {
    #[derive(serde::Serialize)]
    struct Report<'a> {
        header: Header,
        tables: Vec<Table>,
        runs: &'a [RunMetrics],
    }
    let report = Report {
        header: Header::of(runs),
        tables: paper_tables(runs),
        runs,
    };
    let mut text = serde_json::to_string_pretty(&report).unwrap_or_else(|_| "{}".into());
    text.push('\n');
    text
}

/// Every figure as CSV: `run,section,group,metric,n,mean,lo,hi` (floats to 6 places).
pub fn csv(runs: &[RunMetrics]) -> String {
    let mut out = String::from("run,section,group,metric,n,mean,lo,hi\n");
    for row in flat_rows(runs) {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{:.6},{:.6},{:.6}",
            csv_field(row.run),
            row.section,
            csv_field(row.key),
            row.metric,
            row.n,
            row.estimate.mean,
            row.estimate.lo,
            row.estimate.hi
        );
    }
    out
}

fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// The text-only ablation: accuracy with keyframes, without, and the drop (with −
/// without), overall and per category, group level and depth (point estimates; each
/// run's intervals are in its own table).
pub fn ablation_table(with: &RunMetrics, without: &RunMetrics) -> String {
    let mut out = format!(
        "text-only ablation: {} (keyframes shown) vs {} (text-only), accuracy\n\n",
        with.run, without.run
    );
    let mut grid = vec![vec![
        "section".to_string(),
        "group".into(),
        "with keyframes".into(),
        "text-only".into(),
        "drop".into(),
    ]];
    for f in with
        .figures
        .iter()
        .filter(|f| matches!(f.section, "all" | "category" | "group_level" | "depth"))
    {
        let other = without.figure(f.section, &f.key).map(|o| o.first.mean);
        grid.push(vec![
            f.section.to_string(),
            f.key.clone(),
            format!("{:.3}", f.first.mean),
            other.map_or_else(|| "-".into(), |o| format!("{o:.3}")),
            other.map_or_else(|| "-".into(), |o| format!("{:+.3}", f.first.mean - o)),
        ]);
    }
    render_grid(&mut out, &grid);
    out
}
