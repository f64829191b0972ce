//! The report's header and the reference paper's three result tables, laid
//! out with subjects as rows: Table 4 (overall and per top-level category,
//! accuracy and score), Table 5 (accuracy by format, question type and
//! depth) and Table 6 (the advanced metrics: RDS, weighted RDS, CCF accuracy
//! and score per depth, CRS). Every cell is a figure of
//! [`RunMetrics::figures`] with its 95% interval and its n; a cell with fewer
//! than [`SMALL_GROUP`] answers is marked `small`.

use std::fmt::Write as _;

use serde::Serialize;

use super::metrics::{Estimate, RunMetrics};
use crate::text::escape_html;

pub use super::metrics::SMALL_GROUP;

/// What a report is about, named before any figure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Header {
    /// The films of the runs' trees.
    pub films: Vec<String>,
    /// The subjects evaluated, in run order (a subject once).
    pub subjects: Vec<String>,
    /// Who made the graphs and the questions (`graph: rules (baseline)`, …).
    pub generators: Vec<String>,
    /// How open answers were scored, per distinct judge.
    pub judges: Vec<String>,
    /// Every subject and maker is an offline baseline: the figures measure
    /// the baselines, not a reasoner.
    pub offline_baseline: bool,
}

impl Header {
    /// The header of a report on `runs`.
    pub fn of(runs: &[RunMetrics]) -> Header {
        let mut h = Header {
            films: Vec::new(),
            subjects: Vec::new(),
            generators: Vec::new(),
            judges: Vec::new(),
            offline_baseline: true,
        };
        // Said only when every maker is known to be one.
        let mut makers_known = 0;
        let add = |list: &mut Vec<String>, item: String| {
            if !list.contains(&item) {
                list.push(item);
            }
        };
        for m in runs {
            for f in &m.films {
                add(&mut h.films, f.clone());
            }
            add(&mut h.subjects, m.subject.clone());
            add(&mut h.judges, m.judge.clone());
            if !crate::eval::subject::BASELINES.contains(&m.subject.as_str()) {
                h.offline_baseline = false;
            }
            for made in &m.made {
                let Some(p) = &made.provenance else {
                    add(&mut h.generators, format!("{}: unknown", made.file));
                    h.offline_baseline = false;
                    continue;
                };
                let mut makers = Vec::new();
                if let Some(g) = &p.graph {
                    makers.push(("graph", &g.generator));
                }
                if let Some(w) = &p.question_writer {
                    makers.push(("questions", w));
                }
                for (role, maker) in makers {
                    let tag = if maker.baseline {
                        " (offline baseline)"
                    } else {
                        ""
                    };
                    add(&mut h.generators, format!("{role}: {}{tag}", maker.name));
                    h.offline_baseline &= maker.baseline;
                    makers_known += 1;
                }
            }
        }
        h.offline_baseline &= makers_known > 0;
        h.films.sort();
        h
    }
}

/// One cell of a paper table.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Cell {
    /// Answers (trees for RDS and CRS) behind the figure.
    pub n: usize,
    /// The figure with its 95% interval.
    #[serde(flatten)]
    pub estimate: Estimate,
    /// Fewer than [`SMALL_GROUP`] answers.
    pub small: bool,
}

/// A column: a group of a section and the figure taken from it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Column {
    /// The column's heading (`overall`, `Theory of Mind`, `single`, `depth 2`).
    pub group: String,
    /// The figure (`accuracy`, `score`, `RDS`, `weighted_RDS`, `CRS`, `CRS_score`).
    pub metric: &'static str,
    #[serde(skip)]
    section: &'static str,
    #[serde(skip)]
    key: String,
    #[serde(skip)]
    second: bool,
}

/// A subject's row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// The subject.
    pub subject: String,
    /// The run the figures come from.
    pub run: String,
    /// One per column; `None` where the run has no such group.
    pub cells: Vec<Option<Cell>>,
}

/// One paper-layout table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Table {
    /// `table4`, `table5` or `table6`.
    pub id: &'static str,
    /// What it shows.
    pub title: &'static str,
    /// The columns, in order.
    pub columns: Vec<Column>,
    /// One row per run.
    pub rows: Vec<Row>,
}

/// The section's keys over all runs, in the runs' figure order.
fn keys(runs: &[RunMetrics], section: &str) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    for f in runs.iter().flat_map(|m| &m.figures) {
        if f.section == section && !keys.contains(&f.key) {
            keys.push(f.key.clone());
        }
    }
    keys
}

fn column(
    group: String,
    section: &'static str,
    key: &str,
    metric: &'static str,
    second: bool,
) -> Column {
    Column {
        group,
        metric,
        section,
        key: key.to_owned(),
        second,
    }
}

fn table(
    runs: &[RunMetrics],
    id: &'static str,
    title: &'static str,
    columns: Vec<Column>,
) -> Table {
    let rows = runs
        .iter()
        .map(|m| Row {
            subject: m.subject.clone(),
            run: m.run.clone(),
            cells: columns
                .iter()
                .map(|c| {
                    m.figure(c.section, &c.key).map(|f| Cell {
                        n: f.n,
                        estimate: if c.second { f.second } else { f.first },
                        small: f.n < SMALL_GROUP,
                    })
                })
                .collect(),
        })
        .collect();
    Table {
        id,
        title,
        columns,
        rows,
    }
}

/// Tables 4, 5 and 6 of the reference paper over `runs`.
pub fn paper_tables(runs: &[RunMetrics]) -> Vec<Table> {
    let mut t4 = vec![
        column("overall".into(), "all", "all", "accuracy", false),
        column("overall".into(), "all", "all", "score", true),
    ];
    for k in keys(runs, "top_category") {
        t4.push(column(k.clone(), "top_category", &k, "accuracy", false));
        t4.push(column(k.clone(), "top_category", &k, "score", true));
    }
    let mut t5 = Vec::new();
    for section in ["format", "type"] {
        for k in keys(runs, section) {
            t5.push(column(k.clone(), section, &k, "accuracy", false));
        }
    }
    for k in keys(runs, "depth") {
        t5.push(column(format!("depth {k}"), "depth", &k, "accuracy", false));
    }
    let mut t6 = vec![
        column("RDS".into(), "tree", "RDS", "RDS", false),
        column("weighted RDS".into(), "tree", "RDS", "weighted_RDS", true),
    ];
    for k in keys(runs, "ccf") {
        t6.push(column(
            format!("CCF depth {k}"),
            "ccf",
            &k,
            "accuracy",
            false,
        ));
        t6.push(column(format!("CCF depth {k}"), "ccf", &k, "score", true));
    }
    t6.push(column("CRS".into(), "tree", "CRS", "CRS", false));
    t6.push(column("CRS".into(), "tree", "CRS", "CRS_score", true));
    vec![
        table(
            runs,
            "table4",
            "Overall and per top-level category: accuracy and score",
            t4,
        ),
        table(
            runs,
            "table5",
            "Accuracy by question format, question type and depth",
            t5,
        ),
        table(
            runs,
            "table6",
            "Advanced metrics: RDS and weighted RDS per tree, CCF (phase-1 accuracy and score per depth), CRS (phase-2 accuracy and score per tree)",
            t6,
        ),
    ]
}

/// The header as HTML: films, subjects, generators, judges, and a warning
/// when everything measured is an offline baseline.
pub fn header_html(h: &Header) -> String {
    let list = |items: &[String]| {
        if items.is_empty() {
            "—".to_owned()
        } else {
            escape_html(&items.join(", "))
        }
    };
    let mut out = String::from("<table class=\"header\">\n");
    for (name, items) in [
        ("films", &h.films),
        ("subjects", &h.subjects),
        ("made by", &h.generators),
        ("open answers", &h.judges),
    ] {
        let _ = writeln!(out, "<tr><th>{name}</th><td>{}</td></tr>", list(items));
    }
    out.push_str("</table>\n");
    if h.offline_baseline {
        out.push_str(
            "<p class=\"baseline\"><strong>Offline baseline.</strong> The graph, the questions \
             and every subject are moviegraph's offline baselines (rules generators; random, \
             first-option and lexical readers): figures to beat, not measurements of a \
             reasoner.</p>\n",
        );
    }
    out
}

/// The paper tables as HTML: one table each, subjects as rows, every cell
/// `mean [lo, hi]` with its n; small groups are marked.
pub fn tables_html(tables: &[Table]) -> String {
    let mut out = String::new();
    for t in tables {
        if t.columns.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "<h3>{}</h3>\n<div class=\"scroll\"><table class=\"paper\">\n<tr><th>subject</th>",
            escape_html(t.title)
        );
        for c in &t.columns {
            let _ = write!(
                out,
                "<th>{}<br><span class=\"metric\">{}</span></th>",
                escape_html(&c.group),
                escape_html(c.metric)
            );
        }
        out.push_str("</tr>\n");
        for r in &t.rows {
            let _ = write!(
                out,
                "<tr><th title=\"{}\">{}</th>",
                escape_html(&r.run),
                escape_html(&r.subject)
            );
            for cell in &r.cells {
                match cell {
                    Some(c) => {
                        let _ = write!(
                            out,
                            "<td class=\"num{}\">{:.3}<br><span class=\"ci\">[{:.3}, {:.3}] n={}{}</span></td>",
                            if c.small { " small" } else { "" },
                            c.estimate.mean,
                            c.estimate.lo,
                            c.estimate.hi,
                            c.n,
                            if c.small { " †" } else { "" }
                        );
                    }
                    None => out.push_str("<td class=\"num\">—</td>"),
                }
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</table></div>\n");
    }
    let _ = writeln!(
        out,
        "<p class=\"note\">† fewer than {SMALL_GROUP} answers (trees for RDS and CRS): shown, but \
         kept out of the charts' scale; the transition gap is left out while either tier has \
         fewer.</p>"
    );
    out
}
