//! `moviegraph trees stats`: the shape of a tree set, as the reference
//! benchmark tabulates it (depth, format, category, type), plus the checks
//! that options do not give answers away: where the correct option sits and
//! how long it is next to the distractors.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use super::schema::{Format, Tree};

/// Counts over a set of trees.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TreeStats {
    /// Trees.
    pub trees: usize,
    /// Questions (nodes).
    pub nodes: usize,
    /// Questions per depth.
    pub by_depth: BTreeMap<u32, usize>,
    /// Questions per format.
    pub by_format: BTreeMap<String, usize>,
    /// Questions per `level1 / level2` category.
    pub by_category: BTreeMap<String, usize>,
    /// Questions per level-1 category.
    pub by_level1: BTreeMap<String, usize>,
    /// Questions per type.
    pub by_type: BTreeMap<String, usize>,
    /// Distractors per reason.
    pub by_reason: BTreeMap<String, usize>,
    /// Trees tagged with each group-audit level.
    pub by_group_level: BTreeMap<String, usize>,
    /// Single-choice questions: how often the correct option is at each position (A, B, …), per option count.
    pub answer_positions: BTreeMap<usize, Vec<usize>>,
    /// Mean characters of correct options.
    pub mean_correct_len: f64,
    /// Mean characters of distractors.
    pub mean_distractor_len: f64,
    /// Choice questions whose correct option (one of them, for multi) is the longest option.
    pub correct_longest: usize,
    /// Choice questions.
    pub choice_nodes: usize,
    /// Choice questions whose longest correct option is more than 1.5× the mean distractor.
    pub length_giveaways: usize,
}

/// Tabulates trees.
pub fn stats(trees: &[Tree]) -> TreeStats {
    let mut s = TreeStats {
        trees: trees.len(),
        ..TreeStats::default()
    };
    let (mut clen, mut cn, mut dlen, mut dn) = (0usize, 0usize, 0usize, 0usize);
    for tree in trees {
        let mut levels: Vec<String> = Vec::new();
        for node in &tree.nodes {
            s.nodes += 1;
            *s.by_depth.entry(node.depth).or_default() += 1;
            *s.by_format.entry(node.format.as_str().into()).or_default() += 1;
            *s.by_category
                .entry(format!(
                    "{} / {}",
                    node.category.level1, node.category.level2
                ))
                .or_default() += 1;
            *s.by_level1.entry(node.category.level1.clone()).or_default() += 1;
            *s.by_type
                .entry(node.question_type.as_str().into())
                .or_default() += 1;
            if let Some(l) = node.tags.group_level {
                let l = format!("L{l}");
                if !levels.contains(&l) {
                    levels.push(l);
                }
            }
            if node.format == Format::Open || node.options.is_empty() {
                continue;
            }
            s.choice_nodes += 1;
            let len = |t: &str| t.chars().count();
            let mut longest_correct = 0;
            let mut longest_wrong = 0;
            let (mut wl, mut wn) = (0usize, 0usize);
            for (k, o) in node.options.iter().enumerate() {
                if o.correct {
                    clen += len(&o.text);
                    cn += 1;
                    longest_correct = longest_correct.max(len(&o.text));
                    if node.format == Format::Single {
                        let row = s
                            .answer_positions
                            .entry(node.options.len())
                            .or_insert_with(|| vec![0; node.options.len()]);
                        row[k] += 1;
                    }
                } else {
                    dlen += len(&o.text);
                    dn += 1;
                    wl += len(&o.text);
                    wn += 1;
                    longest_wrong = longest_wrong.max(len(&o.text));
                    if let Some(r) = o.reason {
                        *s.by_reason.entry(r.as_str().into()).or_default() += 1;
                    }
                }
            }
            if longest_correct > longest_wrong {
                s.correct_longest += 1;
            }
            if wn > 0 && longest_correct as f64 > 1.5 * (wl as f64 / wn as f64) {
                s.length_giveaways += 1;
            }
        }
        for l in levels {
            *s.by_group_level.entry(l).or_default() += 1;
        }
    }
    s.mean_correct_len = if cn > 0 { clen as f64 / cn as f64 } else { 0.0 };
    s.mean_distractor_len = if dn > 0 { dlen as f64 / dn as f64 } else { 0.0 };
    s
}

fn table<K: std::fmt::Display>(
    out: &mut String,
    title: &str,
    rows: &BTreeMap<K, usize>,
    total: usize,
) {
    let _ = writeln!(out, "{title}");
    for (k, v) in rows {
        let pct = if total > 0 {
            100.0 * *v as f64 / total as f64
        } else {
            0.0
        };
        let _ = writeln!(out, "  {:<52} {v:>6} {pct:>6.1}%", k.to_string());
    }
}

/// The tables as text.
pub fn render(s: &TreeStats) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} trees, {} questions", s.trees, s.nodes);
    table(&mut out, "by depth", &s.by_depth, s.nodes);
    table(&mut out, "by format", &s.by_format, s.nodes);
    table(&mut out, "by type", &s.by_type, s.nodes);
    table(&mut out, "by level-1 category", &s.by_level1, s.nodes);
    table(
        &mut out,
        "by category (level 1 / level 2)",
        &s.by_category,
        s.nodes,
    );
    let reasons: usize = s.by_reason.values().sum();
    table(&mut out, "distractors by reason", &s.by_reason, reasons);
    table(
        &mut out,
        "trees by group-audit level",
        &s.by_group_level,
        s.trees,
    );
    let _ = writeln!(
        out,
        "answer position (single choice; correct option at A, B, …)"
    );
    for (n, row) in &s.answer_positions {
        let total: usize = row.iter().sum();
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(k, c)| {
                format!(
                    "{} {c} ({:.0}%)",
                    super::validate::label_for(k),
                    100.0 * *c as f64 / total.max(1) as f64
                )
            })
            .collect();
        let _ = writeln!(out, "  {n} options: {}", cells.join(", "));
    }
    let _ = writeln!(
        out,
        "option length: correct {:.1} chars, distractors {:.1} chars (ratio {:.2}); correct option longest in {} of {} choice questions ({:.0}%, chance ≈ 1/options); {} with the correct option over 1.5× the mean distractor",
        s.mean_correct_len,
        s.mean_distractor_len,
        if s.mean_distractor_len > 0.0 { s.mean_correct_len / s.mean_distractor_len } else { 0.0 },
        s.correct_longest,
        s.choice_nodes,
        100.0 * s.correct_longest as f64 / s.choice_nodes.max(1) as f64,
        s.length_giveaways
    );
    out
}
