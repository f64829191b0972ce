//! `moviegraph graph score`: a graph against a gold annotation.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;

use crate::args::SimilarityArg;
use moviegraph::graph::calibrate::Calibration;
use moviegraph::graph::score::{GraphScore, Prf};
use moviegraph::workspace::score::{calibrate_similarity, score_graph, ScoreRequest};
use moviegraph::workspace::store_path;

use super::{emit, Outcome};

/// Arguments of `graph score`.
#[derive(Debug, Args)]
pub struct ScoreArgs {
    /// A film folder (its latest graph build in the store, scored against
    /// its gold.json) or a graph export (graphs/<film>.json, with --gold).
    target: PathBuf,
    /// The gold annotation (the gold format of docs/graph-format.md; default: the film folder's
    /// gold.json).
    #[arg(long, value_name = "GOLD.json")]
    gold: Option<PathBuf>,
    /// The workspace database (default: $MOVIEGRAPH_STORE or moviegraph.db).
    #[arg(long)]
    store: Option<PathBuf>,
    /// How contents are compared: MiniLM cosine when installed, else lexical.
    #[arg(long, value_enum, default_value_t = SimilarityArg::Auto)]
    similarity: SimilarityArg,
    /// The all-MiniLM-L6-v2 folder (default: as `align --model-dir`).
    #[arg(long, value_name = "DIR")]
    model_dir: Option<PathBuf>,
    /// Content similarity needed for a match (default 0.25 lexical, 0.6
    /// MiniLM: the thresholds `--calibrate` recommends on the sample film's
    /// gold).
    #[arg(long)]
    threshold: Option<f64>,
    /// Exit 1 when the mental states' or the causal links' F1 is below this.
    #[arg(long, value_name = "F1")]
    min_f1: Option<f64>,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Instead of scoring, measure the similarity on the gold file itself:
    /// each explicit state's content against its own quote (same state)
    /// and its neighbours' quotes (near misses), with the threshold that
    /// separates them best. The defaults were set this way.
    #[arg(long)]
    calibrate: bool,
}

/// Runs `graph score`.
pub fn score_cmd(a: ScoreArgs) -> anyhow::Result<Outcome> {
    let req = ScoreRequest {
        target: a.target.clone(),
        gold: a.gold.clone(),
        store: store_path(a.store.as_deref()),
        similarity: a.similarity.into(),
        model_dir: a.model_dir.clone(),
        threshold: a.threshold,
    };
    if a.calibrate {
        let c = calibrate_similarity(&req)?;
        if a.json {
            emit(&(serde_json::to_string_pretty(&c)? + "\n"))?;
        } else {
            emit(&render_calibration(&c))?;
        }
        return Ok(Outcome::Success);
    }
    let s = score_graph(&req)?;
    if a.json {
        emit(&(serde_json::to_string_pretty(&s)? + "\n"))?;
    } else {
        emit(&render(&s))?;
    }
    let below = a
        .min_f1
        .is_some_and(|min| s.states.f1() < min || s.causal.f1() < min);
    Ok(if below {
        Outcome::CheckFailed
    } else {
        Outcome::Success
    })
}

fn row(out: &mut String, name: &str, p: &Prf) {
    if p.graph == 0 && p.matched_graph == 0 && name.contains("(recall)") {
        let _ = writeln!(
            out,
            "  {name:<22} {:>11} {:>9}   {:>5}/{:<5} {:>5.3}",
            "",
            "",
            p.matched_gold,
            p.gold,
            p.recall()
        );
        return;
    }
    let _ = writeln!(
        out,
        "  {name:<22} {:>5}/{:<5} {:>5.3}   {:>5}/{:<5} {:>5.3}   {:>5.3}",
        p.matched_graph,
        p.graph,
        p.precision(),
        p.matched_gold,
        p.gold,
        p.recall(),
        p.f1()
    );
}

/// The score as a table.
pub fn render(s: &GraphScore) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "graph score of {} against its gold annotation (content: {}, match at ≥ {}; scene ±1)",
        s.film, s.similarity, s.threshold
    );
    let _ = writeln!(
        out,
        "  {:<22} {:>11} {:>9}   {:>11} {:>6}   {:>5}",
        "", "graph", "precision", "gold", "recall", "F1"
    );
    row(&mut out, "mental states", &s.states);
    for (family, p) in &s.by_family {
        row(&mut out, &format!("  {family}"), p);
    }
    row(&mut out, "  explicit (recall)", &s.explicit);
    row(&mut out, "  implicit (recall)", &s.implicit);
    row(&mut out, "higher-order (about)", &s.higher_order);
    row(&mut out, "causal links", &s.causal);
    let _ = writeln!(
        out,
        "  gold chains recovered: {} of {}",
        s.chains_recovered, s.chains
    );
    let _ = writeln!(
        out,
        "  gold states that end: {}; recalled {}, with the right last scene (±1) {}",
        s.ends.gold, s.ends.recalled, s.ends.right_end
    );
    let _ = writeln!(
        out,
        "  gold false beliefs: {}; recalled {}, marked false by the graph {} (a belief whose truth the graph leaves unsaid matches either way)",
        s.false_beliefs.gold, s.false_beliefs.recalled, s.false_beliefs.right_end
    );
    let _ = writeln!(
        out,
        "errors (graph items matching no gold item): {}",
        s.error_summary()
    );
    for m in s.misses.iter().filter(|m| m.gold.is_some()).take(20) {
        let _ = writeln!(
            out,
            "  {:?} {} ~ gold {}: {}",
            m.kind,
            m.graph,
            m.gold.as_deref().unwrap_or(""),
            m.text
        );
    }
    let _ = writeln!(
        out,
        "(--json lists every miss and every gold item not found)"
    );
    out
}

/// A calibration as a table.
pub fn render_calibration(c: &Calibration) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} on the gold file's own pairs: {} same-state pairs (mean {:.3}), {} near misses (mean {:.3})",
        c.similarity, c.positives, c.positive_mean, c.negatives, c.negative_mean
    );
    let _ = writeln!(out, "  threshold  recall  precision     F1");
    for r in &c.rows {
        let mark = if r.threshold == c.best.threshold {
            "  ← recommended"
        } else if (r.threshold - c.default_threshold).abs() < 1e-9 {
            "  ← default"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "  {:>9.2}  {:>6.3}  {:>9.3}  {:>5.3}{mark}",
            r.threshold, r.recall, r.precision, r.f1
        );
    }
    let _ = writeln!(
        out,
        "default threshold {:.2}; recommended on this file {:.2} (best F1 with precision ≥ {}: {:.3})",
        c.default_threshold, c.best.threshold, moviegraph::graph::calibrate::MIN_PRECISION, c.best.f1
    );
    out
}
