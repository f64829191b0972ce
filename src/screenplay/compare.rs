//! Scoring one parse against another: per-kind precision, recall and F1.
//!
//! Used to measure the plain-text reader against the Fountain parse of the
//! same script, and to check that two formats of one script agree. Elements
//! are matched by a longest-common-subsequence alignment on (kind, text), so a
//! single misclassified line costs one element, not everything after it.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use super::element::{Element, ElementKind};

/// Precision, recall and F1 for one element kind.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct KindScore {
    /// Elements of this kind in the reference.
    pub reference: usize,
    /// Elements of this kind in the prediction.
    pub predicted: usize,
    /// Predicted elements aligned to a reference element of the same kind and text.
    pub matched: usize,
    /// matched / predicted (1 when nothing was predicted and nothing expected).
    pub precision: f64,
    /// matched / reference (1 when nothing was expected).
    pub recall: f64,
    /// Harmonic mean of precision and recall.
    pub f1: f64,
}

/// The result of comparing a predicted element list with a reference.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// Scores per kind present in either list.
    pub kinds: BTreeMap<ElementKind, KindScore>,
    /// Micro-averaged F1 over all compared elements.
    pub micro_f1: f64,
    /// Up to 20 reference elements that found no match, for inspection:
    /// (kind, first line, text).
    pub missed: Vec<(ElementKind, usize, String)>,
    /// Up to 20 predicted elements that found no match.
    pub spurious: Vec<(ElementKind, usize, String)>,
}

/// The kinds compared: what is on screen, plus scene headings. Title pages,
/// sections, synopses, notes and page breaks have no plain-text counterpart.
pub fn compared(kind: ElementKind) -> bool {
    kind.is_story()
}

/// Text as compared: emphasis markers dropped, whitespace collapsed, case kept
/// except for cues and headings (which are upper case in every format anyway).
pub fn comparable_text(e: &Element) -> String {
    let stripped: String = e.text.chars().filter(|c| !matches!(c, '*' | '_')).collect();
    let words = stripped.split_whitespace().collect::<Vec<_>>().join(" ");
    match e.kind {
        ElementKind::Character | ElementKind::SceneHeading | ElementKind::Transition => {
            words.to_uppercase()
        }
        _ => words,
    }
}

/// Compares `predicted` against `reference` on the story kinds.
pub fn compare(predicted: &[Element], reference: &[Element]) -> Comparison {
    let p: Vec<(&Element, (ElementKind, String))> = predicted
        .iter()
        .filter(|e| compared(e.kind))
        .map(|e| (e, (e.kind, comparable_text(e))))
        .collect();
    let r: Vec<(&Element, (ElementKind, String))> = reference
        .iter()
        .filter(|e| compared(e.kind))
        .map(|e| (e, (e.kind, comparable_text(e))))
        .collect();

    // LCS table over (kind, text) equality, stored as u32 rows to keep 5k×5k small.
    let (n, m) = (p.len(), r.len());
    let mut table = vec![0u32; (n + 1) * (m + 1)];
    let at = |i: usize, j: usize| i * (m + 1) + j;
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            table[at(i, j)] = if p[i].1 == r[j].1 {
                table[at(i + 1, j + 1)] + 1
            } else {
                table[at(i + 1, j)].max(table[at(i, j + 1)])
            };
        }
    }
    let mut matched_p = vec![false; n];
    let mut matched_r = vec![false; m];
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if p[i].1 == r[j].1 {
            matched_p[i] = true;
            matched_r[j] = true;
            i += 1;
            j += 1;
        } else if table[at(i + 1, j)] >= table[at(i, j + 1)] {
            i += 1;
        } else {
            j += 1;
        }
    }

    let mut counts: BTreeMap<ElementKind, (usize, usize, usize)> = BTreeMap::new();
    for (k, (_, (kind, _))) in r.iter().enumerate() {
        let c = counts.entry(*kind).or_default();
        c.0 += 1;
        if matched_r[k] {
            c.2 += 1;
        }
    }
    for (_, (kind, _)) in &p {
        counts.entry(*kind).or_default().1 += 1;
    }
    let kinds = counts
        .into_iter()
        .map(|(kind, (reference, predicted, matched))| (kind, score(reference, predicted, matched)))
        .collect();
    let total_matched = matched_p.iter().filter(|m| **m).count();
    let micro = score(m, n, total_matched);

    let sample = |items: &[(&Element, (ElementKind, String))], flags: &[bool]| {
        items
            .iter()
            .zip(flags)
            .filter(|(_, f)| !**f)
            .take(20)
            .map(|((e, (k, t)), _)| (*k, e.lines.first, t.clone()))
            .collect()
    };
    Comparison {
        kinds,
        micro_f1: micro.f1,
        missed: sample(&r, &matched_r),
        spurious: sample(&p, &matched_p),
    }
}

fn score(reference: usize, predicted: usize, matched: usize) -> KindScore {
    let ratio = |a: usize, b: usize| if b == 0 { 1.0 } else { a as f64 / b as f64 };
    let precision = if predicted == 0 && reference > 0 {
        0.0
    } else {
        ratio(matched, predicted)
    };
    let recall = ratio(matched, reference);
    let f1 = if precision + recall == 0.0 {
        0.0
    } else {
        2.0 * precision * recall / (precision + recall)
    };
    KindScore {
        reference,
        predicted,
        matched,
        precision,
        recall,
        f1,
    }
}

/// The per-kind precision/recall/F1 table of a comparison.
pub fn render_table(cmp: &Comparison) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<15} {:>6} {:>6} {:>6} {:>8} {:>8} {:>8}",
        "kind", "ref", "pred", "match", "P %", "R %", "F1 %"
    );
    for (kind, k) in &cmp.kinds {
        let _ = writeln!(
            s,
            "{:<15} {:>6} {:>6} {:>6} {:>8.2} {:>8.2} {:>8.2}",
            kind.as_str(),
            k.reference,
            k.predicted,
            k.matched,
            k.precision * 100.0,
            k.recall * 100.0,
            k.f1 * 100.0
        );
    }
    let _ = writeln!(s, "micro F1: {:.2} %", cmp.micro_f1 * 100.0);
    for (k, line, text) in &cmp.missed {
        let _ = writeln!(s, "  missed   {k} (ref line {line}): {}", clip(text));
    }
    for (k, line, text) in &cmp.spurious {
        let _ = writeln!(s, "  spurious {k} (line {line}): {}", clip(text));
    }
    s
}

fn clip(text: &str) -> String {
    let t: String = text.chars().take(70).collect();
    if t.len() < text.len() {
        format!("{t}…")
    } else {
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::screenplay::element::LineSpan;

    fn el(kind: ElementKind, text: &str) -> Element {
        Element::new(kind, text, LineSpan::line(1))
    }

    #[test]
    fn identical_lists_score_one() {
        let a = vec![
            el(ElementKind::SceneHeading, "INT. A - DAY"),
            el(ElementKind::Action, "She *runs*."),
        ];
        let b = vec![
            el(ElementKind::SceneHeading, "INT. A - DAY"),
            el(ElementKind::Action, "She runs."),
        ];
        let c = compare(&a, &b);
        assert_eq!(c.micro_f1, 1.0);
        assert_eq!(c.kinds[&ElementKind::Action].f1, 1.0);
    }

    #[test]
    fn one_misclassified_line_costs_one_element() {
        let reference = vec![
            el(ElementKind::Action, "One."),
            el(ElementKind::Transition, "CUT TO:"),
            el(ElementKind::Action, "Two."),
            el(ElementKind::Action, "Three."),
        ];
        let predicted = vec![
            el(ElementKind::Action, "One."),
            el(ElementKind::Action, "CUT TO:"),
            el(ElementKind::Action, "Two."),
            el(ElementKind::Action, "Three."),
        ];
        let c = compare(&predicted, &reference);
        let action = c.kinds[&ElementKind::Action];
        assert_eq!(
            (action.reference, action.predicted, action.matched),
            (3, 4, 3)
        );
        assert!((action.precision - 0.75).abs() < 1e-9);
        assert_eq!(action.recall, 1.0);
        let tr = c.kinds[&ElementKind::Transition];
        assert_eq!((tr.precision, tr.recall, tr.f1), (0.0, 0.0, 0.0));
        assert_eq!(c.missed.len(), 1);
        assert_eq!(c.spurious.len(), 1);
    }
}
