//! An alignment and its evaluation as the text `moviegraph align` prints.

use std::fmt::Write as _;

use super::eval::EvalReport;
use super::Alignment;
use crate::media::subtitles::format_ms;

fn time(ms: Option<u64>) -> String {
    ms.map_or_else(|| "--".to_owned(), format_ms)
}

/// A readable summary of an alignment.
pub fn summary_text(a: &Alignment) -> String {
    let s = &a.summary;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "verdict: {}\ncoverage: {:.1}% ({} of {} dialogue lines, {} cues)\nmean confidence: {:.3}\nanchors: {}  dp cells: {}  moved-scene lines: {}  embedder: {}",
        s.verdict.as_str().to_uppercase(),
        s.coverage * 100.0,
        s.matched,
        s.dialogue_lines,
        s.cues,
        s.mean_confidence,
        s.anchors,
        s.dp_cells,
        s.moved_lines,
        s.embedder
    );
    match &s.unrelated {
        Some(u) => {
            let _ = writeln!(
                out,
                "calibration: unrelated line-cue cosine median {:.3}, 99th percentile {:.3} ({} pairs); lone-gap lines matched: {}",
                u.median, u.high, u.pairs, s.lone_pairs
            );
        }
        None => {
            let _ = writeln!(
                out,
                "calibration: none (fewer than 40 lines or cues to measure unrelated pairs on); no lone-gap pass"
            );
        }
    }
    let _ = writeln!(out, "blocks:");
    for b in &a.blocks {
        let _ = writeln!(
            out,
            "  {:>3}  scene {:>3}  elements {:>4}-{:<4}  {} - {}",
            b.id,
            b.scene + 1,
            b.elements[0],
            b.elements[1],
            time(b.start_ms),
            time(b.end_ms)
        );
    }
    out
}

/// The evaluation figures as text.
pub fn eval_text(r: &EvalReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "eval: precision {:.4} ({} of {} matched lines exact; overlap {:.4})\n      recall {:.4} ({} of {} gold-matched lines)\n      cut lines unmatched {:.4} ({} cut)  ad-lib cues unmatched {:.4} ({} ad-libs)\n      line timing error mean {:.0} ms, median {:.0} ms\n      scene start error mean {:.0} ms, max {} ms",
        r.precision,
        r.exact,
        r.predicted_matched,
        r.precision_overlap,
        r.recall,
        r.exact,
        r.gold_matched,
        r.cut_accuracy,
        r.cut_lines,
        r.adlib_accuracy,
        r.adlib_cues,
        r.timing_mean_ms,
        r.timing_median_ms,
        r.scene_start_mean_ms,
        r.scene_start_max_ms
    );
    for m in &r.misses {
        let _ = writeln!(
            out,
            "      miss: line {} ({}) predicted {:?} gold {:?}",
            m.line, m.status, m.predicted, m.gold
        );
    }
    out
}
