//! The figures of a review (`graph stats`, the review app's front page, `graph
//! review --decisions`): progress per reviewer, people's agreement per kind, the
//! precision a reviewed random sample of the accepted gives, and the decisions
//! for a methods section.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use crate::graph::agreement::{cohen_nominal, krippendorff_nominal};
use crate::graph::review::{kind_of, resolve, wilson, Decision, Estimate, Outcome, Verdict};
use crate::graph::review_store::{Original, ReviewStore};
use crate::graph::schema::{Candidate, EdgeKind, Item, Status};
use crate::graph::store::GraphStore;
use crate::store::{GraphBuildId, Store};

use super::graph::latest_build;
use super::{Context, Result};
use crate::util::time::iso_time;

/// A reviewer's progress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReviewerProgress {
    /// The name.
    pub reviewer: String,
    /// Decisions made (every one, changed minds included).
    pub decisions: usize,
    /// Candidates decided.
    pub candidates: usize,
}

/// People's agreement on one kind of candidate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KindAgreement {
    /// The kind (attitude, or node/edge kind).
    pub kind: String,
    /// Candidates decided by two people or more.
    pub units: usize,
    /// Krippendorff's α (nominal: accept, reject, correct).
    pub alpha: Option<f64>,
    /// Cohen's κ, when exactly two people decided this kind's shared units.
    pub kappa: Option<f64>,
}

/// The figures of a film's review.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReviewSummary {
    /// The film.
    pub film: String,
    /// The generator of the build reviewed.
    pub generator: String,
    /// Candidates a person can review (every one but `holds` edges).
    pub reviewable: usize,
    /// Of them, decided by at least one person.
    pub decided: usize,
    /// People disagree on these with no majority: each waits for another person.
    pub open: usize,
    /// States people added.
    pub added: usize,
    /// Per reviewer.
    pub reviewers: Vec<ReviewerProgress>,
    /// Per kind, and `all`.
    pub agreement: Vec<KindAgreement>,
    /// The verified graph's precision from the reviewed sample of accepted
    /// candidates, per kind and `all` (a correction counts as wrong).
    pub precision: Vec<(String, Estimate)>,
}

/// Every candidate but the `holds` edges, which follow their state's holder.
pub fn reviewable(c: &Candidate) -> bool {
    !matches!(&c.item, Item::Edge(e) if e.kind == EdgeKind::Holds)
}

/// The status the models gave (None: a person added it).
pub fn original_status(c: &Candidate, before: &BTreeMap<String, Original>) -> Option<Status> {
    before.get(&c.id).map_or(Some(c.status), |o| o.status)
}

/// Each reviewer's latest decision per candidate.
fn latest(decisions: &[(String, Decision)]) -> BTreeMap<&str, BTreeMap<&str, &Decision>> {
    let mut out: BTreeMap<&str, BTreeMap<&str, &Decision>> = BTreeMap::new();
    for (_, d) in decisions {
        out.entry(d.candidate.as_str())
            .or_default()
            .insert(d.reviewer.as_str(), d);
    }
    out
}

/// Who decided a kind's shared candidates, and the value pairs of those two decided.
type PeopleAndPairs<'a> = (BTreeSet<&'a str>, Vec<(&'static str, &'static str)>);

/// The figures of a build's review (`graph stats`, the review app's front page).
pub fn review_summary(
    store: &Store,
    build: GraphBuildId,
    slug: &str,
    generator: &str,
) -> Result<ReviewSummary> {
    let all = store.graph_candidates(build)?;
    let before = store.review_before(build)?;
    let decisions = store.review_all(build)?;
    let per_candidate = latest(&decisions);
    let reviewable_ids: BTreeMap<&str, &Candidate> = all
        .iter()
        .filter(|c| reviewable(c))
        .map(|c| (c.id.as_str(), c))
        .collect();
    let mut reviewers: BTreeMap<&str, (usize, BTreeSet<&str>)> = BTreeMap::new();
    for (_, d) in &decisions {
        let r = reviewers.entry(d.reviewer.as_str()).or_default();
        r.0 += 1;
        r.1.insert(d.candidate.as_str());
    }
    // Agreement: per kind, the units two people or more decided.
    let mut units: BTreeMap<String, Vec<Vec<&'static str>>> = BTreeMap::new();
    let mut pairs: BTreeMap<String, PeopleAndPairs> = BTreeMap::new();
    for (cand, by) in &per_candidate {
        let Some(c) = reviewable_ids.get(cand) else {
            continue;
        };
        if by.len() < 2 {
            continue;
        }
        let kind = kind_of(before.get(*cand).map_or(&c.item, |o| &o.item));
        let values: Vec<&'static str> = by.values().map(|d| d.verdict.class()).collect();
        for k in [kind.clone(), "all".to_owned()] {
            units.entry(k.clone()).or_default().push(values.clone());
            let p = pairs.entry(k).or_default();
            p.0.extend(by.keys().copied());
            if by.len() == 2 {
                p.1.push((values[0], values[1]));
            }
        }
    }
    let agreement = units
        .iter()
        .map(|(kind, u)| {
            let (people, two) = &pairs[kind];
            KindAgreement {
                kind: kind.clone(),
                units: u.len(),
                alpha: krippendorff_nominal(u),
                kappa: if people.len() == 2 {
                    cohen_nominal(two)
                } else {
                    None
                },
            }
        })
        .collect();
    // Precision from the sample of accepted candidates.
    let mut right: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for (cand, _) in per_candidate.iter() {
        let sampled = decisions
            .iter()
            .any(|(_, d)| d.candidate == *cand && d.queue.starts_with("sample"));
        let Some(c) = reviewable_ids.get(cand) else {
            continue;
        };
        let original = before.get(*cand);
        if !sampled || original.map_or(Some(c.status), |o| o.status) != Some(Status::Accepted) {
            continue;
        }
        let item = original.map_or(&c.item, |o| &o.item);
        let as_proposed = Candidate {
            item: item.clone(),
            status: Status::Accepted,
            ..(*c).clone()
        };
        let ds: Vec<Decision> = decisions
            .iter()
            .filter(|(_, d)| d.candidate == *cand)
            .map(|(_, d)| d.clone())
            .collect();
        let ok = match resolve(&as_proposed, &ds) {
            Outcome::People(Status::Accepted, i) => *i == *item,
            Outcome::People(..) => false,
            Outcome::Models | Outcome::Open => continue,
        };
        for k in [kind_of(item), "all".to_owned()] {
            let e = right.entry(k).or_default();
            e.0 += usize::from(ok);
            e.1 += 1;
        }
    }
    let precision = right
        .into_iter()
        .filter_map(|(k, (r, n))| Some((k, wilson(r, n)?)))
        .collect();
    Ok(ReviewSummary {
        film: slug.to_owned(),
        generator: generator.to_owned(),
        reviewable: reviewable_ids.len(),
        decided: per_candidate
            .keys()
            .filter(|c| reviewable_ids.contains_key(*c))
            .count(),
        open: per_candidate
            .iter()
            .filter(|(c, by)| {
                by.len() >= 2
                    && reviewable_ids
                        .get(*c)
                        .is_some_and(|c| c.status == Status::Escalated)
            })
            .count(),
        added: before.values().filter(|o| o.status.is_none()).count(),
        reviewers: reviewers
            .into_iter()
            .map(|(r, (n, cands))| ReviewerProgress {
                reviewer: r.to_owned(),
                decisions: n,
                candidates: cands.len(),
            })
            .collect(),
        agreement,
        precision,
    })
}

/// The summary as the lines `graph stats` prints.
pub fn render_summary(s: &ReviewSummary) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "people's review of {} ({}): {} of {} candidates decided, {} open (people disagree), {} states added",
        s.film, s.generator, s.decided, s.reviewable, s.open, s.added
    );
    for r in &s.reviewers {
        let _ = writeln!(
            out,
            "  {:<20} {:>5} decisions on {:>5} candidates",
            r.reviewer, r.decisions, r.candidates
        );
    }
    let f = |v: Option<f64>| v.map_or("-".to_owned(), |v| format!("{v:.3}"));
    if !s.agreement.is_empty() {
        let _ = writeln!(
            out,
            "  agreement (accept / reject / correct)   units   Krippendorff α   Cohen κ"
        );
        for a in &s.agreement {
            let _ = writeln!(
                out,
                "    {:<36} {:>5}   {:>14}   {:>7}",
                a.kind,
                a.units,
                f(a.alpha),
                f(a.kappa)
            );
        }
    }
    if !s.precision.is_empty() {
        let _ = writeln!(
            out,
            "  precision of the accepted, from the reviewed sample (95 % Wilson interval)"
        );
        for (k, e) in &s.precision {
            let _ = writeln!(
                out,
                "    {:<36} {:>4}/{:<4} = {:.2}  [{:.2}, {:.2}]",
                k, e.right, e.of, e.share, e.low, e.high
            );
        }
    }
    out
}

/// The summary as a section of the run's HTML report: who reviewed how much,
/// people's agreement per kind, and the precision from the reviewed sample.
pub fn summary_html(s: &ReviewSummary) -> String {
    use crate::text::escape_html as esc;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<h2>People's review of the graph</h2>\n<p>The graph the questions came from ({}) \
         was reviewed by {} people in <code>graph review --serve</code>: {} of {} candidates \
         decided, {} open (people disagree, no majority), {} states added by hand. A person's \
         decision stands over the models'.</p>",
        esc(&s.generator),
        s.reviewers.len(),
        s.decided,
        s.reviewable,
        s.open,
        s.added
    );
    out.push_str("<table>\n<tr><th>reviewer</th><th>decisions</th><th>candidates</th></tr>\n");
    for r in &s.reviewers {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            esc(&r.reviewer),
            r.decisions,
            r.candidates
        );
    }
    out.push_str("</table>\n");
    let f = |v: Option<f64>| v.map_or("–".to_owned(), |v| format!("{v:.3}"));
    if s.agreement.is_empty() {
        out.push_str(
            "<p>Agreement: no candidate was decided by two people yet (<code>--overlap 2</code> \
             sends each to two).</p>\n",
        );
    } else {
        out.push_str(
            "<p>Agreement between people on accept / reject / correct, over the candidates two \
             or more decided (nominal Krippendorff's α; Cohen's κ where exactly two people \
             shared a kind).</p>\n<table>\n<tr><th>kind</th><th>units</th><th>α</th><th>κ</th></tr>\n",
        );
        for a in &s.agreement {
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                esc(&a.kind),
                a.units,
                f(a.alpha),
                f(a.kappa)
            );
        }
        out.push_str("</table>\n");
    }
    if !s.precision.is_empty() {
        out.push_str(
            "<p>Precision of what the models accepted, from the reviewed random sample (a \
             correction counts as wrong; 95 % Wilson interval).</p>\n<table>\n<tr><th>kind</th>\
             <th>right</th><th>precision</th><th>interval</th></tr>\n",
        );
        for (k, e) in &s.precision {
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td class=\"num\">{}/{}</td><td class=\"num\">{:.2}</td>\
                 <td class=\"num\">[{:.2}, {:.2}]</td></tr>",
                esc(k),
                e.right,
                e.of,
                e.share,
                e.low,
                e.high
            );
        }
        out.push_str("</table>\n");
    }
    out
}

/// One decision as the export writes it.
#[derive(Debug, Serialize)]
struct DecisionOut<'a> {
    reviewer: &'a str,
    time: String,
    element: &'a str,
    decision: &'static str,
    reason: Option<&'static str>,
    correction: Option<String>,
    queue: &'a str,
}

/// The decisions for a methods section: CSV (`reviewer,time,element,decision,reason,correction,queue`) or JSON lines.
pub fn decisions_text(decisions: &[(String, Decision)], csv: bool) -> Result<String> {
    let mut out = String::new();
    if csv {
        out.push_str("reviewer,time,element,decision,reason,correction,queue\n");
    }
    for (_, d) in decisions {
        let (reason, correction) = match &d.verdict {
            Verdict::Accept => (None, None),
            Verdict::Reject { reason } => (Some(reason.as_str()), None),
            Verdict::Correct { correction } => (None, Some(serde_json::to_string(correction)?)),
        };
        let row = DecisionOut {
            reviewer: &d.reviewer,
            time: iso_time(d.at_ms),
            element: &d.candidate,
            decision: d.verdict.class(),
            reason,
            correction,
            queue: &d.queue,
        };
        if csv {
            let cell = |s: &str| {
                if s.contains([',', '"', '\n', '\r']) {
                    format!("\"{}\"", s.replace('"', "\"\""))
                } else {
                    s.to_owned()
                }
            };
            let _ = writeln!(
                out,
                "{},{},{},{},{},{},{}",
                cell(row.reviewer),
                row.time,
                cell(row.element),
                row.decision,
                row.reason.unwrap_or(""),
                cell(row.correction.as_deref().unwrap_or("")),
                cell(row.queue)
            );
        } else {
            out.push_str(&serde_json::to_string(&row)?);
            out.push('\n');
        }
    }
    Ok(out)
}

/// `graph review --decisions FILE`: every decision on the film's latest
/// build written to `file` (CSV, or JSON lines when it ends in `.jsonl`).
pub fn write_decisions(film_dir: &Path, store_path: &Path, file: &Path) -> Result<String> {
    let slug = super::film::slug(film_dir);
    let store = Store::open(store_path)?;
    let (build, _) = latest_build(&store, &slug)?;
    let decisions = store.review_all(build)?;
    let csv = file.extension().is_none_or(|e| e != "jsonl");
    std::fs::write(file, decisions_text(&decisions, csv)?)
        .with_context(|| format!("writing {}", file.display()))?;
    Ok(format!(
        "film {slug}: wrote {} decision(s) to {}\n",
        decisions.len(),
        file.display()
    ))
}
