//! Agreement between people who walked the same trees (human runs of `moviegraph
//! walk`): raw agreement and Cohen's κ per pair of annotators, on the questions both
//! answered.
//!
//! Two figures per pair. *Answer*: on the choice questions both answered, the chosen
//! option set as the category (κ over the pooled categories, Cohen 1960). *Correctness*:
//! on every shared question (open ones included), right or wrong as the category.
//! A question counts as shared only when both runs hold the same node (same tree id,
//! node id and content), so runs on edited trees never compare different questions.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use serde::Serialize;

use super::protocol::LoadedRun;
use crate::trees::schema::{Format, Node};

/// Agreement of two annotators.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairAgreement {
    /// First run id.
    pub run_a: String,
    /// First annotator.
    pub annotator_a: String,
    /// Second run id.
    pub run_b: String,
    /// Second annotator.
    pub annotator_b: String,
    /// Choice questions both answered.
    pub choice_items: usize,
    /// Share of them with the same chosen options.
    pub answer_raw: f64,
    /// Cohen's κ on the chosen options; `None` when chance agreement is 1 or no items.
    pub answer_kappa: Option<f64>,
    /// Questions of any format both answered.
    pub items: usize,
    /// Share of them both got right or both got wrong.
    pub correct_raw: f64,
    /// Cohen's κ on correctness; `None` when undefined.
    pub correct_kappa: Option<f64>,
}

/// Cohen's κ and raw agreement of two raters' categorical labels (same length).
/// κ is `None` when there are no items or chance agreement is 1.
pub fn cohen_kappa<T: Ord>(a: &[T], b: &[T]) -> (f64, Option<f64>) {
    let n = a.len().min(b.len());
    if n == 0 {
        return (0.0, None);
    }
    let agree = a.iter().zip(b).filter(|(x, y)| x == y).count() as f64 / n as f64;
    let mut marginals: BTreeMap<&T, (usize, usize)> = BTreeMap::new();
    for (x, y) in a.iter().zip(b) {
        marginals.entry(x).or_default().0 += 1;
        marginals.entry(y).or_default().1 += 1;
    }
    let chance: f64 = marginals
        .values()
        .map(|&(ca, cb)| (ca as f64 / n as f64) * (cb as f64 / n as f64))
        .sum();
    let kappa = (chance < 1.0 - 1e-12).then(|| (agree - chance) / (1.0 - chance));
    (agree, kappa)
}

/// Agreement of two human runs (`name_a`, `name_b` their annotators).
pub fn pair_agreement(a: &LoadedRun, name_a: &str, b: &LoadedRun, name_b: &str) -> PairAgreement {
    let nodes = |run: &LoadedRun| -> HashMap<(String, String), Node> {
        run.trees
            .iter()
            .flat_map(|t| {
                t.nodes
                    .iter()
                    .map(|n| ((t.id.clone(), n.id.clone()), n.clone()))
            })
            .collect()
    };
    let (nodes_a, nodes_b) = (nodes(a), nodes(b));
    let answers_b: HashMap<(String, String), (&str, bool)> = b
        .answers
        .iter()
        .map(|x| {
            (
                (x.tree_id.clone(), x.node_id.clone()),
                (x.parsed.as_str(), x.correct),
            )
        })
        .collect();
    let (mut choice_a, mut choice_b, mut right_a, mut right_b) = (vec![], vec![], vec![], vec![]);
    for answer in &a.answers {
        let key = (answer.tree_id.clone(), answer.node_id.clone());
        let Some(&(parsed_b, correct_b)) = answers_b.get(&key) else {
            continue;
        };
        let (Some(node), Some(other)) = (nodes_a.get(&key), nodes_b.get(&key)) else {
            continue;
        };
        if node != other {
            continue;
        }
        right_a.push(answer.correct);
        right_b.push(correct_b);
        if node.format != Format::Open {
            choice_a.push(answer.parsed.clone());
            choice_b.push(parsed_b.to_string());
        }
    }
    let (answer_raw, answer_kappa) = cohen_kappa(&choice_a, &choice_b);
    let (correct_raw, correct_kappa) = cohen_kappa(&right_a, &right_b);
    PairAgreement {
        run_a: a.run.id.clone(),
        annotator_a: name_a.to_string(),
        run_b: b.run.id.clone(),
        annotator_b: name_b.to_string(),
        choice_items: choice_a.len(),
        answer_raw,
        answer_kappa,
        items: right_a.len(),
        correct_raw,
        correct_kappa,
    }
}

/// Every pair of `runs` (run, annotator), in the given order.
pub fn all_pairs(runs: &[(&LoadedRun, &str)]) -> Vec<PairAgreement> {
    let mut out = Vec::new();
    for i in 0..runs.len() {
        for j in i + 1..runs.len() {
            out.push(pair_agreement(runs[i].0, runs[i].1, runs[j].0, runs[j].1));
        }
    }
    out
}

/// The terminal table of annotator agreement, one row per pair.
pub fn table(pairs: &[PairAgreement]) -> String {
    let kappa = |k: Option<f64>| k.map_or_else(|| "-".to_string(), |k| format!("{k:.3}"));
    let mut grid = vec![[
        "annotators".to_string(),
        "choice questions".into(),
        "same answer".into(),
        "kappa (answer)".into(),
        "questions".into(),
        "same correctness".into(),
        "kappa (correctness)".into(),
    ]];
    for p in pairs {
        grid.push([
            format!("{} / {}", p.annotator_a, p.annotator_b),
            p.choice_items.to_string(),
            format!("{:.3}", p.answer_raw),
            kappa(p.answer_kappa),
            p.items.to_string(),
            format!("{:.3}", p.correct_raw),
            kappa(p.correct_kappa),
        ]);
    }
    let widths: Vec<usize> = (0..7)
        .map(|c| grid.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out =
        String::from("annotator agreement (human runs, on the questions both answered)\n\n");
    for row in &grid {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(cell, w)| format!("{cell:<w$}"))
            .collect();
        let _ = writeln!(out, "{}", cells.join("  ").trim_end());
    }
    out
}

/// The agreement figures as CSV rows in the report's columns
/// (`run,section,group,metric,n,mean,lo,hi`; run is `A+B`, no interval).
pub fn csv_rows(pairs: &[PairAgreement]) -> String {
    let mut out = String::new();
    for p in pairs {
        let run = format!("{}+{}", p.run_a, p.run_b);
        for (group, metric, n, value) in [
            ("answer", "raw", p.choice_items, Some(p.answer_raw)),
            ("answer", "kappa", p.choice_items, p.answer_kappa),
            ("correctness", "raw", p.items, Some(p.correct_raw)),
            ("correctness", "kappa", p.items, p.correct_kappa),
        ] {
            if let Some(v) = value {
                let _ = writeln!(
                    out,
                    "{run},agreement,{group},{metric},{n},{v:.6},{v:.6},{v:.6}"
                );
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kappa_by_hand() {
        // po = 3/4; pa = (1/2, 1/2), pb = (1/4, 3/4); pe = 1/8 + 3/8 = 1/2; κ = 1/2.
        let (raw, kappa) = cohen_kappa(&["A", "A", "B", "B"], &["A", "B", "B", "B"]);
        assert!((raw - 0.75).abs() < 1e-12);
        assert!((kappa.unwrap() - 0.5).abs() < 1e-12);
        // Perfect agreement on one category: chance is 1, κ undefined.
        assert_eq!(cohen_kappa(&[true, true], &[true, true]), (1.0, None));
        // Perfect disagreement on a balanced binary: κ = -1.
        let (raw, kappa) = cohen_kappa(&[true, false], &[false, true]);
        assert_eq!(raw, 0.0);
        assert!((kappa.unwrap() + 1.0).abs() < 1e-12);
        assert_eq!(cohen_kappa::<u8>(&[], &[]), (0.0, None));
    }
}
