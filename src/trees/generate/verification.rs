//! The check every written question passes before it enters a tree: each
//! answer worded once, no graph ids, verdicts rechecked against the graph,
//! options that still say their answer, the format's gold count, no answer
//! given away by the question, and the correct option's length bound.

use std::collections::BTreeSet;

use crate::graph::NodeKind;
use crate::trees::facts::{content_words, overlap, Facts, Verdict};
use crate::trees::schema::{DistractorReason, Format};
use crate::trees::validate::find_graph_id;

use super::{Spec, Written, WrittenOption};

/// Checks a written question against its spec and the graph. `max_length_ratio`
/// bounds how much longer the correct option may be than the mean distractor.
pub fn verify(
    f: &Facts<'_>,
    spec: &Spec,
    w: &Written,
    max_length_ratio: Option<f64>,
) -> Result<(), String> {
    if w.question.trim().is_empty() {
        return Err("the question is empty".into());
    }
    let mut covered = vec![false; spec.candidates.len()];
    for o in &w.options {
        let Some(seen) = covered.get_mut(o.candidate) else {
            return Err(format!("option names unknown answer {}", o.candidate + 1));
        };
        if std::mem::replace(seen, true) {
            return Err(format!("answer {} is worded twice", o.candidate + 1));
        }
    }
    if let Some(k) = covered.iter().position(|c| !c) {
        return Err(format!("answer {} is missing", k + 1));
    }
    let mut texts = BTreeSet::new();
    for (what, text) in std::iter::once(("question", &w.question))
        .chain(w.options.iter().map(|o| ("an option", &o.text)))
        .chain(w.reference.iter().map(|r| ("the reference", r)))
    {
        if let Some(id) = find_graph_id(text) {
            return Err(format!("{what} contains the graph id {id:?}"));
        }
    }
    for o in &w.options {
        let c = &spec.candidates[o.candidate];
        if o.text.trim().is_empty() {
            return Err(format!("answer {} has no text", o.candidate + 1));
        }
        if !texts.insert(o.text.trim().to_lowercase()) {
            return Err(format!("two options read {:?}", o.text));
        }
        // Recheck the verdict against the graph, not only against the spec.
        let verdict = match (c.node, c.character) {
            (Some(n), _) => f.classify(&spec.ask, n),
            (None, Some(ch)) if !f.motive_supported(ch, &c.text) => {
                Verdict::Wrong(DistractorReason::UnsupportedMotive)
            }
            _ => Verdict::Unusable,
        };
        if verdict != c.verdict {
            return Err(format!(
                "answer {} ({:?}) does not check out against the graph",
                o.candidate + 1,
                c.text
            ));
        }
        let claimed = if o.correct {
            Verdict::Gold
        } else {
            match o.reason {
                Some(r) => Verdict::Wrong(r),
                None => return Err(format!("distractor {:?} gives no reason", o.text)),
            }
        };
        if claimed != c.verdict {
            return Err(format!(
                "option {:?} is marked {} but the graph says {}",
                o.text,
                verdict_name(claimed),
                verdict_name(c.verdict)
            ));
        }
        // The wording must still say what the answer is.
        match c.node.filter(|&n| f.node(n).kind == NodeKind::Character) {
            Some(ch) => {
                if !o.text.contains(f.first_name(ch)) {
                    return Err(format!("option {:?} does not name {}", o.text, f.name(ch)));
                }
            }
            None => {
                let words = content_words(&o.text);
                let own = overlap(&content_words(&c.text), &words);
                let best = spec
                    .candidates
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| *k != o.candidate)
                    .map(|(k, other)| (overlap(&content_words(&other.text), &words), k))
                    .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)));
                if let Some((_, k)) = best.filter(|(score, _)| *score > own) {
                    return Err(format!(
                        "option {:?} reads more like answer {} than its own",
                        o.text,
                        k + 1
                    ));
                }
            }
        }
    }
    let golds: Vec<&WrittenOption> = w.options.iter().filter(|o| o.correct).collect();
    match spec.format {
        Format::Single if golds.len() != 1 => {
            return Err(format!(
                "single choice with {} correct options",
                golds.len()
            ))
        }
        Format::Open => {
            let reference = w.reference.as_deref().unwrap_or("").trim();
            if reference.is_empty() {
                return Err("an open question without a reference answer".into());
            }
            let gold = &spec.candidates[golds
                .first()
                .ok_or("an open question without its gold answer")?
                .candidate];
            if overlap(&content_words(&gold.text), &content_words(reference)) < 0.5 {
                return Err("the reference answer does not say the gold answer".into());
            }
        }
        _ => {}
    }
    let asked = content_words(&w.question);
    for g in &golds {
        let gold = &spec.candidates[g.candidate].text;
        let words = content_words(gold);
        let quoted = gold.len() > 3
            && w.question
                .to_lowercase()
                .contains(&gold.trim().to_lowercase());
        if quoted || (words.len() >= 3 && overlap(&words, &asked) >= 0.9) {
            return Err("the question gives the answer away".into());
        }
    }
    if let (Some(max), Format::Single | Format::Multi) = (max_length_ratio, spec.format) {
        let len = |o: &&WrittenOption| o.text.chars().count() as f64;
        let wrong: Vec<&WrittenOption> = w.options.iter().filter(|o| !o.correct).collect();
        if !wrong.is_empty() && !golds.is_empty() {
            let mean_wrong = wrong.iter().map(len).sum::<f64>() / wrong.len() as f64;
            let mean_gold = golds.iter().map(len).sum::<f64>() / golds.len() as f64;
            if mean_gold > max * mean_wrong {
                return Err(format!(
                    "the correct option is {:.1}× as long as the distractors (limit {max})",
                    mean_gold / mean_wrong
                ));
            }
        }
    }
    Ok(())
}

fn verdict_name(v: Verdict) -> String {
    match v {
        Verdict::Gold => "correct".into(),
        Verdict::Wrong(r) => format!("wrong ({})", r.as_str()),
        Verdict::Unusable => "unusable".into(),
    }
}
