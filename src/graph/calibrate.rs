//! Calibrating a content similarity for `graph score` on a gold annotation.
//!
//! A graph states a mind in the script's words; a gold file in an
//! annotator's. The matcher has to tell "the same state, other words" from
//! "another state of the same holder nearby". A gold file holds both kinds
//! of pair: each explicit state's content against its own evidence quote
//! (the same state in the script's words: a positive) and against the quotes
//! of the holder's other states of the same attitude family within a scene
//! (a negative, the near misses the matcher faces). The threshold to score
//! with is the one with the best F1 over those pairs among the thresholds
//! whose pairs are at least [`MIN_PRECISION`] right: a score must not count
//! near misses as hits.

use serde::Serialize;

use super::gold::Gold;
use super::score::{family, Similarity};

/// The share of a threshold's pairs that must be same-state pairs for it to
/// be recommended.
pub const MIN_PRECISION: f64 = 0.85;

/// How well one threshold separates the pairs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ThresholdRow {
    /// The threshold (a pair at or above it counts as the same state).
    pub threshold: f64,
    /// Share of positives at or above it.
    pub recall: f64,
    /// Share of pairs at or above it that are positives.
    pub precision: f64,
    /// Harmonic mean of the two.
    pub f1: f64,
}

/// A similarity measured on a gold file's pairs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Calibration {
    /// The measure, as `graph score` names it.
    pub similarity: String,
    /// The threshold `graph score` uses by default for this measure.
    pub default_threshold: f64,
    /// Same-state pairs (content, own quote).
    pub positives: usize,
    /// Near-miss pairs (content, a neighbouring state's quote).
    pub negatives: usize,
    /// Mean similarity of the positives.
    pub positive_mean: f64,
    /// Mean similarity of the negatives.
    pub negative_mean: f64,
    /// Thresholds from 0.20 to 0.90 by 0.05.
    pub rows: Vec<ThresholdRow>,
    /// The recommended row: the best F1 among rows at least
    /// [`MIN_PRECISION`] precise (the lowest threshold on a tie), else the
    /// best F1 of all.
    pub best: ThresholdRow,
}

/// Measures `sim` on the pairs of `gold`.
pub fn calibrate(
    gold: &Gold,
    sim: &Similarity<'_>,
) -> Result<Calibration, crate::embed::EmbedError> {
    let states = &gold.mental_states;
    let mut left: Vec<&str> = Vec::new();
    let mut right: Vec<&str> = Vec::new();
    let mut positive: Vec<bool> = Vec::new();
    for d in states.iter().filter(|d| d.explicit) {
        left.push(&d.content);
        right.push(&d.evidence);
        positive.push(true);
        for e in states {
            let neighbour = e.id != d.id
                && e.evidence != d.evidence
                && e.holder.eq_ignore_ascii_case(&d.holder)
                && family(e.attitude) == family(d.attitude)
                && e.scene.abs_diff(d.scene) <= 1;
            if neighbour {
                left.push(&d.content);
                right.push(&e.evidence);
                positive.push(false);
            }
        }
    }
    let scores = sim.pairwise(&left, &right)?;
    let mean = |want: bool| {
        let v: Vec<f64> = scores
            .iter()
            .zip(&positive)
            .filter(|(_, p)| **p == want)
            .map(|(s, _)| *s)
            .collect();
        if v.is_empty() {
            0.0
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    };
    let positives = positive.iter().filter(|p| **p).count();
    let rows: Vec<ThresholdRow> = (4..=18)
        .map(|k| {
            let threshold = f64::from(k) * 0.05;
            let above = |want: bool| {
                scores
                    .iter()
                    .zip(&positive)
                    .filter(|(s, p)| **p == want && **s >= threshold - 1e-9)
                    .count()
            };
            let (tp, fp) = (above(true), above(false));
            let recall = if positives == 0 {
                0.0
            } else {
                tp as f64 / positives as f64
            };
            let precision = if tp + fp == 0 {
                1.0
            } else {
                tp as f64 / (tp + fp) as f64
            };
            let f1 = if recall + precision == 0.0 {
                0.0
            } else {
                2.0 * recall * precision / (recall + precision)
            };
            ThresholdRow {
                threshold,
                recall,
                precision,
                f1,
            }
        })
        .collect();
    let pick = |precise: bool| {
        rows.iter()
            .copied()
            .filter(|r| !precise || r.precision >= MIN_PRECISION)
            .reduce(|a, b| if b.f1 > a.f1 + 1e-12 { b } else { a })
    };
    let best = pick(true).or_else(|| pick(false)).unwrap_or(ThresholdRow {
        threshold: sim.default_threshold(),
        recall: 0.0,
        precision: 0.0,
        f1: 0.0,
    });
    Ok(Calibration {
        similarity: sim.name(),
        default_threshold: sim.default_threshold(),
        positives,
        negatives: positive.len() - positives,
        positive_mean: mean(true),
        negative_mean: mean(false),
        rows,
        best,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::gold::parse_gold;

    #[test]
    fn own_quotes_score_above_neighbours_and_pick_a_separating_threshold() {
        let gold = parse_gold(
            r#"{"film": "t", "characters": [{"name": "ANNA"}],
            "mental_states": [
              {"id": "m1", "holder": "ANNA", "attitude": "belief", "content": "the gate was locked all night",
               "negated": false, "truth": true, "scene": 1, "explicit": true, "evidence": "The gate was locked all night."},
              {"id": "m2", "holder": "ANNA", "attitude": "knowledge", "content": "Ben stole the silver spoons",
               "negated": false, "scene": 1, "explicit": true, "evidence": "Ben stole the silver spoons."}],
            "causal_links": [], "chains": []}"#,
        )
        .unwrap();
        let c = calibrate(&gold, &Similarity::Lexical).unwrap();
        assert_eq!((c.positives, c.negatives), (2, 2));
        assert!(c.positive_mean > 0.9 && c.negative_mean < 0.1, "{c:?}");
        assert_eq!(c.best.f1, 1.0);
        // The lowest threshold that separates them: anything above the
        // negatives' 0 keeps both positives.
        assert!((c.best.threshold - 0.2).abs() < 1e-9, "{c:?}");
    }
}
