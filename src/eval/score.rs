//! Per-answer scoring (docs/evaluation.md).
//!
//! single: 1 if exact, else 0. multi: correct on strict set equality, score = Jaccard.
//! open: score = 0.7 × judge + 0.3 × ROUGE-L F1, correct at score ≥ 0.7. With no judge
//! the fallback is ROUGE-L alone (score = ROUGE-L F1, same 0.7 threshold), and every
//! report says so.

use serde::{Deserialize, Serialize};

use super::parse::Parsed;
use crate::trees::schema::{Format, Node};

/// Weight of the judge in an open answer's score.
pub const JUDGE_WEIGHT: f64 = 0.7;
/// Weight of ROUGE-L F1 in an open answer's score.
pub const ROUGE_WEIGHT: f64 = 0.3;
/// An open answer is correct at or above this score.
pub const OPEN_THRESHOLD: f64 = 0.7;

/// The label reports carry when open answers were scored without a judge.
pub const NO_JUDGE_LABEL: &str =
    "judge: none (ROUGE-L fallback: score = ROUGE-L F1, correct at >= 0.7)";

/// How one answer scored.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Scored {
    /// Strict correctness.
    pub correct: bool,
    /// Partial credit in 0..=1.
    pub score: f64,
    /// ROUGE-L F1 of an open answer.
    pub rouge: Option<f64>,
    /// The judge's grade of an open answer, when a judge was asked.
    pub judge: Option<f64>,
}

/// Scores a choice answer (single or multi) against the node's correct options.
pub fn score_choice(node: &Node, parsed: &Parsed) -> Scored {
    let correct: Vec<&str> = node.correct_labels();
    let chosen: Vec<&str> = match parsed {
        Parsed::Choice(labels) => labels.iter().map(String::as_str).collect(),
        _ => Vec::new(),
    };
    let inter = chosen.iter().filter(|l| correct.contains(l)).count();
    let union = chosen.len() + correct.len() - inter;
    let exact = !chosen.is_empty() && inter == correct.len() && inter == chosen.len();
    let score = match node.format {
        Format::Multi if union > 0 => inter as f64 / union as f64,
        _ => f64::from(u8::from(exact)),
    };
    Scored {
        correct: exact,
        score,
        rouge: None,
        judge: None,
    }
}

/// Scores an open answer from its ROUGE-L F1 against the reference and, when a judge
/// graded it, the judge's grade in 0..=1.
pub fn score_open(parsed: &Parsed, reference: &str, judge: Option<f64>) -> Scored {
    let rouge = match parsed {
        Parsed::Open(text) => rouge_l_f1(reference, text),
        _ => 0.0,
    };
    let judge = judge.map(|j| j.clamp(0.0, 1.0));
    let score = match (parsed, judge) {
        (Parsed::Open(_), Some(j)) => JUDGE_WEIGHT * j + ROUGE_WEIGHT * rouge,
        (Parsed::Open(_), None) => rouge,
        _ => 0.0,
    };
    Scored {
        // A hair of tolerance so 0.7 × 1 + 0.3 × 0 counts as the 0.7 it is meant to be.
        correct: score >= OPEN_THRESHOLD - 1e-9,
        score,
        rouge: Some(rouge),
        judge,
    }
}

/// Tokens as rouge-score's default tokenizer makes them: lowercase, every run of
/// characters other than `a-z0-9` a separator, no stemming.
pub fn rouge_tokens(text: &str) -> Vec<String> {
    let lower = text.to_lowercase();
    lower
        .split(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit()))
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}

/// ROUGE-L F1 of `prediction` against `target` (0 when either has no tokens).
pub fn rouge_l_f1(target: &str, prediction: &str) -> f64 {
    let t = rouge_tokens(target);
    let p = rouge_tokens(prediction);
    if t.is_empty() || p.is_empty() {
        return 0.0;
    }
    let lcs = lcs_len(&t, &p) as f64;
    let precision = lcs / p.len() as f64;
    let recall = lcs / t.len() as f64;
    if precision + recall == 0.0 {
        0.0
    } else {
        2.0 * precision * recall / (precision + recall)
    }
}

fn lcs_len(a: &[String], b: &[String]) -> usize {
    let mut row = vec![0usize; b.len() + 1];
    for x in a {
        let mut diag = 0;
        for (j, y) in b.iter().enumerate() {
            let up = row[j + 1];
            row[j + 1] = if x == y { diag + 1 } else { up.max(row[j]) };
            diag = up;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn tokens_follow_rouge_score() {
        assert_eq!(
            rouge_tokens("Mara's KEY—lost, (again) in 1999!"),
            vec!["mara", "s", "key", "lost", "again", "in", "1999"]
        );
        // Non-ASCII letters are separators in rouge-score's default tokenizer.
        assert_eq!(rouge_tokens("café noir"), vec!["caf", "noir"]);
        assert!(rouge_tokens(" ... ").is_empty());
    }

    #[test]
    fn rouge_l_matches_hand_computed_values() {
        // LCS "the cat on mat" = 4 of 6 and 6 tokens: P = R = F = 2/3.
        assert!(close(
            rouge_l_f1("the cat sat on the mat", "the cat lay on a mat"),
            2.0 / 3.0
        ));
        // LCS "quinton told her" = 3; P = 3/3, R = 3/5, F = 2·1·0.6/1.6 = 0.75.
        assert!(close(
            rouge_l_f1("Because Quinton told her so", "quinton TOLD her."),
            0.75
        ));
        // Order matters: LCS of "a b c d" and "d c b a" is 1; P = R = 1/4.
        assert!(close(rouge_l_f1("a b c d", "d c b a"), 0.25));
        // LCS "b d" = 2 of target 4 and prediction 3: P = 2/3, R = 1/2, F = 4/7.
        assert!(close(rouge_l_f1("a b c d", "b x d"), 4.0 / 7.0));
        assert_eq!(rouge_l_f1("", "anything"), 0.0);
        assert_eq!(rouge_l_f1("same words", "Same, words!"), 1.0);
        assert_eq!(rouge_l_f1("one", "two"), 0.0);
    }

    #[test]
    fn open_scores_combine_judge_and_rouge() {
        let answer = Parsed::Open("quinton told her".into());
        let with_judge = score_open(&answer, "Because Quinton told her so", Some(1.0));
        assert!(close(with_judge.score, 0.7 + 0.3 * 0.75));
        assert!(with_judge.correct);
        let half = score_open(&answer, "Because Quinton told her so", Some(0.5));
        assert!(close(half.score, 0.35 + 0.225));
        assert!(!half.correct);
        let fallback = score_open(&answer, "Because Quinton told her so", None);
        assert!(close(fallback.score, 0.75));
        assert!(fallback.correct);
        let lost = score_open(&Parsed::Unparseable, "x", Some(1.0));
        assert_eq!((lost.correct, lost.score), (false, 0.0));
        // Exactly at the threshold counts as correct.
        let edge = score_open(&Parsed::Open("zzz".into()), "yyy", Some(1.0));
        assert!(edge.correct && close(edge.score, 0.7));
    }
}
