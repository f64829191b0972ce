//! Accuracy of an [`Alignment`] against a gold mapping (`alignment_gold.json` format).
//!
//! Definitions, over dialogue lines (gold `dialogue[].index` = position among
//! the script's dialogue elements; cue numbers are 1-based):
//! - a line is *predicted matched* when its predicted cue set is non-empty,
//!   *gold matched* when its gold cue set is;
//! - a prediction is *exact* when the predicted cue set equals the gold set,
//!   *overlapping* when they share at least one cue;
//! - **precision** = exact / predicted matched (a prediction for a gold-cut
//!   line counts as wrong); `precision_overlap` uses overlapping instead;
//! - **recall** = exact / gold matched;
//! - **cut accuracy** = gold-cut lines predicted unmatched / gold-cut lines;
//! - **ad-lib accuracy** = gold ad-lib cues no line uses / ad-lib cues;
//! - **timing error** of a line predicted and gold matched:
//!   (|Δstart| + |Δend|) / 2 between the predicted span and the gold cues'
//!   span; mean and median over such lines;
//! - **scene start error**: |Δ| between each scene's first block start and the
//!   gold scene start, mean over scenes timed on both sides.

use serde::{Deserialize, Serialize};

use super::Alignment;
use crate::media::subtitles::Subtitles;

/// A gold mapping (the parts of `alignment_gold.json` the evaluation uses).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Gold {
    /// One entry per dialogue element.
    pub dialogue: Vec<GoldLine>,
    /// Cue numbers that are ad-libs (no script line).
    #[serde(default)]
    pub adlib_cues: Vec<usize>,
    /// Scene time spans.
    #[serde(default)]
    pub scenes: Vec<GoldScene>,
}

/// Gold for one dialogue line.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GoldLine {
    /// Position among dialogue elements.
    pub index: usize,
    /// `verbatim`, `reworded`, `split`, `merged`, `line_cut`, `scene_cut`, …
    #[serde(default)]
    pub status: String,
    /// 1-based cue numbers (empty when cut).
    #[serde(default)]
    pub cues: Vec<usize>,
}

/// Gold time span of one scene.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GoldScene {
    /// Scene index.
    pub index: usize,
    /// Start (ms), `None` for a cut scene.
    #[serde(default)]
    pub start_ms: Option<u64>,
    /// End (ms, exclusive), `None` for a cut scene.
    #[serde(default)]
    pub end_ms: Option<u64>,
}

impl Gold {
    /// Reads a gold mapping from JSON text.
    pub fn from_json(text: &str) -> Result<Gold, serde_json::Error> {
        serde_json::from_str(text)
    }
}

/// A line whose prediction differs from gold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Miss {
    /// Position among dialogue elements.
    pub line: usize,
    /// Gold status.
    pub status: String,
    /// Predicted cue numbers.
    pub predicted: Vec<usize>,
    /// Gold cue numbers.
    pub gold: Vec<usize>,
}

/// Figures of [`evaluate`] (definitions in the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalReport {
    /// Lines in the gold mapping.
    pub lines: usize,
    /// Lines with gold cues.
    pub gold_matched: usize,
    /// Lines with predicted cues.
    pub predicted_matched: usize,
    /// Predictions equal to gold.
    pub exact: usize,
    /// Predictions overlapping gold.
    pub overlapping: usize,
    /// exact / predicted matched.
    pub precision: f64,
    /// overlapping / predicted matched.
    pub precision_overlap: f64,
    /// exact / gold matched.
    pub recall: f64,
    /// Gold-cut lines.
    pub cut_lines: usize,
    /// Share of gold-cut lines predicted unmatched.
    pub cut_accuracy: f64,
    /// Gold ad-lib cues.
    pub adlib_cues: usize,
    /// Share of ad-lib cues left unmatched.
    pub adlib_accuracy: f64,
    /// Mean line timing error (ms).
    pub timing_mean_ms: f64,
    /// Median line timing error (ms).
    pub timing_median_ms: f64,
    /// Mean scene start error (ms), over scenes timed on both sides.
    pub scene_start_mean_ms: f64,
    /// Largest scene start error (ms).
    pub scene_start_max_ms: u64,
    /// Lines whose prediction is not exact.
    pub misses: Vec<Miss>,
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        1.0
    } else {
        a as f64 / b as f64
    }
}

/// Compares `alignment` with `gold`; cue times come from `subs` (cue number `k` is `subs.cues[k - 1]`).
pub fn evaluate(alignment: &Alignment, gold: &Gold, subs: &Subtitles) -> EvalReport {
    let span = |cues: &[usize]| -> Option<(u64, u64)> {
        let c: Vec<_> = cues
            .iter()
            .filter_map(|&k| subs.cues.get(k.wrapping_sub(1)))
            .collect();
        Some((
            c.iter().map(|c| c.start_ms).min()?,
            c.iter().map(|c| c.end_ms).max()?,
        ))
    };
    let mut r = EvalReport {
        lines: gold.dialogue.len(),
        gold_matched: 0,
        predicted_matched: 0,
        exact: 0,
        overlapping: 0,
        precision: 0.0,
        precision_overlap: 0.0,
        recall: 0.0,
        cut_lines: 0,
        cut_accuracy: 0.0,
        adlib_cues: gold.adlib_cues.len(),
        adlib_accuracy: 0.0,
        timing_mean_ms: 0.0,
        timing_median_ms: 0.0,
        scene_start_mean_ms: 0.0,
        scene_start_max_ms: 0,
        misses: Vec::new(),
    };
    let mut cut_ok = 0;
    let mut errors: Vec<f64> = Vec::new();
    let mut used = std::collections::HashSet::new();
    for a in &alignment.alignments {
        used.extend(a.cues.iter().copied());
    }
    for g in &gold.dialogue {
        let predicted: Vec<usize> = alignment
            .alignments
            .get(g.index)
            .map(|a| a.cues.clone())
            .unwrap_or_default();
        let mut p = predicted.clone();
        p.sort_unstable();
        let mut gc = g.cues.clone();
        gc.sort_unstable();
        if gc.is_empty() {
            r.cut_lines += 1;
            if p.is_empty() {
                cut_ok += 1;
            }
        } else {
            r.gold_matched += 1;
        }
        if !p.is_empty() {
            r.predicted_matched += 1;
            if p == gc {
                r.exact += 1;
            }
            if p.iter().any(|c| gc.contains(c)) {
                r.overlapping += 1;
            }
            if let (Some(ps), Some(gs)) = (span(&p), span(&gc)) {
                let e = (ps.0.abs_diff(gs.0) + ps.1.abs_diff(gs.1)) as f64 / 2.0;
                errors.push(e);
            }
        }
        if p != gc {
            r.misses.push(Miss {
                line: g.index,
                status: g.status.clone(),
                predicted: p,
                gold: gc,
            });
        }
    }
    r.precision = ratio(r.exact, r.predicted_matched);
    r.precision_overlap = ratio(r.overlapping, r.predicted_matched);
    r.recall = ratio(r.exact, r.gold_matched);
    r.cut_accuracy = ratio(cut_ok, r.cut_lines);
    r.adlib_accuracy = ratio(
        gold.adlib_cues.iter().filter(|c| !used.contains(c)).count(),
        r.adlib_cues,
    );
    if !errors.is_empty() {
        r.timing_mean_ms = errors.iter().sum::<f64>() / errors.len() as f64;
        errors.sort_by(f64::total_cmp);
        r.timing_median_ms = errors[errors.len() / 2];
    }
    let mut scene_errs = Vec::new();
    for s in &gold.scenes {
        let block = alignment.blocks.iter().find(|b| b.scene == s.index);
        if let (Some(gs), Some(ps)) = (s.start_ms, block.and_then(|b| b.start_ms)) {
            scene_errs.push(gs.abs_diff(ps));
        }
    }
    if !scene_errs.is_empty() {
        r.scene_start_mean_ms = scene_errs.iter().sum::<u64>() as f64 / scene_errs.len() as f64;
        r.scene_start_max_ms = scene_errs.iter().copied().max().unwrap_or(0);
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::{Alignment, LineAlignment, Summary, Verdict};
    use crate::media::subtitles::{read, SubtitleFormat};

    #[test]
    fn precision_recall_and_cuts_follow_the_definitions() {
        let subs = read(
            "1\n00:00:01,000 --> 00:00:02,000\nA\n\n2\n00:00:03,000 --> 00:00:04,000\nB\n\n3\n00:00:05,000 --> 00:00:06,000\nC\n",
            SubtitleFormat::Srt,
        );
        let line = |line: usize, cues: Vec<usize>| LineAlignment {
            element: line,
            line,
            start_ms: None,
            end_ms: None,
            confidence: 1.0,
            moved: false,
            cues,
        };
        let alignment = Alignment {
            alignments: vec![
                line(0, vec![1]),
                line(1, vec![2, 3]),
                line(2, vec![]),
                line(3, vec![3]),
            ],
            element_times: Vec::new(),
            blocks: Vec::new(),
            summary: Summary {
                dialogue_lines: 4,
                cues: 3,
                matched: 3,
                coverage: 0.75,
                mean_confidence: 1.0,
                anchors: 0,
                dp_cells: 0,
                moved_lines: 0,
                embedder: String::new(),
                verdict: Verdict::Aligned,
                unrelated: None,
                lone_pairs: 0,
            },
        };
        let gold_line = |index: usize, cues: Vec<usize>| GoldLine {
            index,
            status: String::new(),
            cues,
        };
        let gold = Gold {
            dialogue: vec![
                gold_line(0, vec![1]),
                gold_line(1, vec![2]),
                gold_line(2, vec![]),
                gold_line(3, vec![]),
            ],
            adlib_cues: vec![],
            scenes: vec![],
        };
        let r = evaluate(&alignment, &gold, &subs);
        assert_eq!((r.predicted_matched, r.exact, r.overlapping), (3, 1, 2));
        assert!((r.precision - 1.0 / 3.0).abs() < 1e-9);
        assert!((r.recall - 0.5).abs() < 1e-9);
        assert!((r.cut_accuracy - 0.5).abs() < 1e-9);
        // Line 1: predicted 3000..6000 vs gold 3000..4000.
        assert_eq!(r.timing_median_ms, 1000.0);
        assert_eq!(r.misses.len(), 2);
    }
}
