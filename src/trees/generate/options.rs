//! What a question offers: the answer format the mix needs most, the gold
//! answers, and distractors chosen to be plausible (same characters, similar
//! length and wording, close in time) and wrong in different ways, including
//! a made-up motive the film does not support.

use std::collections::BTreeSet;

use crate::graph::NodeKind;
use crate::trees::facts::{Ask, Facts, Verdict};
use crate::trees::schema::{DistractorReason, Format};

use super::assembly::{slot, Builder};
use super::{focus_of, seed_of, Candidate, Spec};

impl Builder<'_, '_> {
    /// The judged answers of `ask` in the format the mix needs most; `None`
    /// when the graph offers too little to ask it.
    pub(super) fn spec(&self, ask: &Ask) -> Option<Spec> {
        let f = self.facts;
        let pool = f.pool(ask);
        let mut golds = Vec::new();
        let mut wrongs = Vec::new();
        for &i in &pool {
            match f.classify(ask, i) {
                Verdict::Gold => golds.push(i),
                Verdict::Wrong(r) => wrongs.push((i, r)),
                Verdict::Unusable => {}
            }
        }
        let focus = focus_of(ask);
        let subject: Vec<String> = focus.iter().map(|&m| f.gloss(m)).collect();
        if !matches!(ask, Ask::Order { .. }) {
            golds.retain(|&g| !subject.contains(&f.gloss(g)));
            wrongs.retain(|&(i, _)| !subject.contains(&f.gloss(i)));
        }
        if golds.is_empty() || wrongs.is_empty() {
            return None;
        }
        let people: BTreeSet<usize> = focus.iter().flat_map(|&m| f.people(m)).copied().collect();
        let cast = cast_of(f, &focus);
        // The gold a single answer names: the nearest in story time.
        let anchor_time = focus.first().map_or(0, |&m| f.order(m));
        golds.sort_by_key(|&g| {
            let t = f.order(g);
            match ask {
                Ask::Origin { .. } => (t, g),
                _ => (anchor_time.abs_diff(t), g),
            }
        });
        let mut motives = Vec::new();
        if let Ask::Cause { target } = ask {
            if let Some(agent) = f.node(*target).agent.as_deref().and_then(|a| f.index_of(a)) {
                if let Some(m) = made_up_motive(f, agent, *target) {
                    motives.push(m);
                }
            }
        }
        let mut formats = vec![Format::Single, Format::Open];
        let multi_golds = golds.len().min(2);
        let multi_ok = match ask {
            Ask::Participants { .. } => true,
            Ask::Order { .. } => false,
            _ => multi_golds >= 2,
        };
        if multi_ok && wrongs.len() + motives.len() >= self.opts.multi_options - multi_golds {
            formats.push(Format::Multi);
        }
        if matches!(ask, Ask::Order { .. }) {
            formats = vec![Format::Single];
        }
        if matches!(ask, Ask::Participants { .. }) && formats.contains(&Format::Multi) {
            formats.retain(|&x| x != Format::Single);
        }
        let total: usize = self.counts.iter().sum::<usize>() + 1;
        let share = |x: Format| match x {
            Format::Open => self.opts.mix.open,
            Format::Single => self.opts.mix.single,
            Format::Multi => self.opts.mix.multi,
        };
        let format = formats
            .iter()
            .copied()
            .max_by(|&a, &b| {
                let da = share(a) * total as f64 - self.counts[slot(a)] as f64;
                let db = share(b) * total as f64 - self.counts[slot(b)] as f64;
                da.total_cmp(&db).then(slot(b).cmp(&slot(a)))
            })
            .expect("at least one format");
        let (n_gold, n_opts) = match format {
            Format::Single => (1, self.opts.single_options),
            Format::Multi => match ask {
                Ask::Participants { .. } => (golds.len().min(3), self.opts.multi_options),
                _ => (multi_golds, self.opts.multi_options),
            },
            Format::Open => match ask {
                Ask::Participants { .. } => (golds.len().min(3), golds.len().min(3) + 1),
                _ => (1, 2),
            },
        };
        if matches!(ask, Ask::Order { .. }) {
            // Two moments: the earlier is gold, the later the distractor.
        } else if wrongs.len() + motives.len() < n_opts.saturating_sub(n_gold).max(1) {
            return None;
        }
        let gold_text: Vec<String> = golds[..n_gold]
            .iter()
            .map(|&g| text_of(f, ask, g))
            .collect();
        let gold_len = gold_text.iter().map(|t| t.chars().count()).sum::<usize>() / n_gold;
        let gold_words = gold_text.iter().map(|t| word_count(t)).sum::<usize>() / n_gold;
        // Plausible first: shares a character with the question, close in
        // length to the gold (no give-away by length), close in time.
        wrongs.sort_by_cached_key(|&(i, _)| {
            let shares = f.people(i).intersection(&people).next().is_some() || people.contains(&i);
            let text = text_of(f, ask, i);
            let (len, words) = (text.chars().count(), word_count(&text));
            (
                // a character who is in the scene, so the name alone does not tell
                f.node(i).kind == NodeKind::Character && !cast.contains(&i),
                !shares,
                // Distinct words first: with every option's evidence in the
                // excerpt, an option's word overlap with it is its word count.
                words.abs_diff(gold_words) / 2,
                words < gold_words,
                len.abs_diff(gold_len) / 12,
                // at equal distance, not shorter than the gold (no "longest is right")
                len < gold_len,
                f.order(i).abs_diff(anchor_time),
                i,
            )
        });
        let want = n_opts.saturating_sub(n_gold).max(1);
        let mut picked: Vec<Candidate> = Vec::new();
        let mut reasons = BTreeSet::new();
        let as_cand = |(i, r): (usize, DistractorReason)| Candidate {
            node: Some(i),
            character: None,
            text: text_of(f, ask, i),
            verdict: Verdict::Wrong(r),
        };
        // The most plausible first, then a made-up motive where there is one,
        // then one of each other reason, so distractors are wrong in different ways.
        if let Some(&(i, r)) = wrongs.first() {
            picked.push(as_cand((i, r)));
            reasons.insert(r);
        }
        for m in motives {
            if picked.len() < want && reasons.insert(DistractorReason::UnsupportedMotive) {
                picked.push(m);
            }
        }
        for &(i, r) in &wrongs {
            if picked.len() < want && reasons.insert(r) {
                picked.push(as_cand((i, r)));
            }
        }
        for &(i, r) in &wrongs {
            if picked.len() < want && !picked.iter().any(|c| c.node == Some(i)) {
                picked.push(as_cand((i, r)));
            }
        }
        let mut candidates: Vec<Candidate> = golds[..n_gold]
            .iter()
            .zip(gold_text)
            .map(|(&g, text)| Candidate {
                node: Some(g),
                character: None,
                text,
                verdict: Verdict::Gold,
            })
            .collect();
        candidates.extend(picked);
        let mut seen = BTreeSet::new();
        if !candidates
            .iter()
            .all(|c| seen.insert(c.text.trim().to_lowercase()))
        {
            return None;
        }
        Some(Spec {
            ask: ask.clone(),
            format,
            candidates,
        })
    }
}

/// The text of a node as an option: a character's name, a moment's gloss.
fn text_of(f: &Facts<'_>, ask: &Ask, i: usize) -> String {
    if matches!(ask, Ask::MindBefore { .. }) && f.node(i).kind == NodeKind::MentalState {
        f.content(i)
    } else if f.node(i).kind == NodeKind::Character {
        f.name(i).to_owned()
    } else {
        f.gloss(i)
    }
}

/// Distinct lowercase words of a text (what a word-overlap reader counts).
fn word_count(text: &str) -> usize {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect::<BTreeSet<_>>()
        .len()
}

/// The characters of the scenes of these moments.
fn cast_of(f: &Facts<'_>, focus: &[usize]) -> BTreeSet<usize> {
    let scenes: BTreeSet<usize> = focus.iter().filter_map(|&m| f.node(m).scene).collect();
    f.moments
        .iter()
        .filter(|&&m| f.node(m).scene.is_some_and(|s| scenes.contains(&s)))
        .flat_map(|&m| f.people(m))
        .copied()
        .collect()
}

/// A motive the film does not support, for a made-up distractor.
fn made_up_motive(f: &Facts<'_>, agent: usize, target: usize) -> Option<Candidate> {
    let name = f.first_name(agent);
    let other = f
        .characters
        .iter()
        .copied()
        .find(|&c| c != agent && f.people(target).contains(&c))
        .or_else(|| f.characters.iter().copied().find(|&c| c != agent))?;
    let other = f.first_name(other);
    let templates = [
        format!("{name} wanted revenge on {other} for an old insult"),
        format!("{name} was trying to impress {other}"),
        format!("{name} was paid by a stranger to do it"),
        format!("{name} wanted to leave town for good"),
    ];
    let k = (seed_of(0, &f.node(target).id, "motive") % templates.len() as u64) as usize;
    (0..templates.len())
        .map(|j| &templates[(k + j) % templates.len()])
        .find(|t| !f.motive_supported(agent, t))
        .map(|t| Candidate {
            node: None,
            character: Some(agent),
            text: t.clone(),
            verdict: Verdict::Wrong(DistractorReason::UnsupportedMotive),
        })
}
