//! Balancing the surface, so that no feature a reader can see without
//! understanding tells the gold from the distractors (DESIGN.md §3,
//! "Validity"). Generation keeps the running tally of what each score-rule
//! shortcut reader of the audit ([`crate::trees::audit::readers`]) would earn
//! on the questions written so far, and of the gold letters and
//! correct-option counts; each new question takes the distractor set and the
//! gold letters that keep every tally nearest chance.

use std::collections::BTreeMap;

use crate::trees::audit::features::{OptionFeatures, SurfaceView};
use crate::trees::audit::readers::heuristic_credits;
use crate::trees::schema::Format;
use crate::util::rng::SplitMix64;

#[derive(Debug, Clone, Default)]
struct Tally {
    /// Credit earned so far, by reader (and, for multiple choice, by the
    /// number of options it picks).
    credit: BTreeMap<String, f64>,
    /// Chance accumulated over the same questions, by the same keys.
    chance: BTreeMap<String, f64>,
    /// Sum over questions of (gold − mean option) for each continuous
    /// feature a learned reader may weigh.
    drift: BTreeMap<&'static str, f64>,
    /// Gold answers so far at each letter.
    letters: Vec<usize>,
}

/// The running tallies of one film's generation.
#[derive(Debug, Clone, Default)]
pub(super) struct Balancer {
    single: Tally,
    multi: Tally,
    /// Multiple-choice questions by number of correct options.
    counts: BTreeMap<usize, usize>,
}

/// What each reader would earn on a question, keyed as in [`Tally`], with
/// the chance it is measured against.
fn credits(view: &SurfaceView, format: Format) -> Vec<(String, f64, f64)> {
    let n = view.options.len();
    match format {
        Format::Multi => {
            let chance = 1.0 / (2f64.powi(n as i32) - 1.0);
            // A reader may guess any count: keep every guess at chance.
            (1..n.max(2))
                .flat_map(|m| {
                    heuristic_credits(view, format, m)
                        .into_iter()
                        .map(move |(name, c)| (format!("{name}/{m}"), c, chance))
                })
                .collect()
        }
        _ => {
            let chance = 1.0 / n.max(1) as f64;
            heuristic_credits(view, format, 1)
                .into_iter()
                .map(|(name, c)| (name.to_owned(), c, chance))
                .collect()
        }
    }
}

/// Continuous features, gold mean minus option mean, scaled to about one
/// reader's credit: what a learned reader would weigh beyond argmax readers.
fn drifts(view: &SurfaceView) -> Vec<(&'static str, f64)> {
    let opts = &view.options;
    let n = opts.len().max(1) as f64;
    let golds: Vec<&OptionFeatures> = opts.iter().filter(|o| o.correct).collect();
    if golds.is_empty() {
        return Vec::new();
    }
    let g = golds.len() as f64;
    let diff = |f: fn(&OptionFeatures) -> f64, scale: f64| {
        let all = opts.iter().map(f).sum::<f64>() / n;
        let gold = golds.iter().map(|o| f(o)).sum::<f64>() / g;
        (gold - all) / scale
    };
    let mean_chars = opts.iter().map(|o| o.chars).sum::<f64>() / n;
    vec![
        ("chars", diff(|o| o.chars, mean_chars.max(1.0))),
        ("question-overlap", diff(|o| o.question_overlap, 1.0)),
        ("context-overlap", diff(|o| o.context_overlap, 1.0)),
        ("likeness", diff(|o| o.similarity_to_others, 1.0)),
    ]
}

impl Balancer {
    fn tally(&self, format: Format) -> &Tally {
        match format {
            Format::Multi => &self.multi,
            _ => &self.single,
        }
    }

    /// How far the tallies would stray from chance with this question added;
    /// `letters`: whether letter readers count (once the letters are placed).
    fn cost_of(&self, view: &SurfaceView, format: Format, letters: bool) -> f64 {
        let t = self.tally(format);
        let readers: f64 = credits(view, format)
            .into_iter()
            .filter(|(key, ..)| letters || !key.starts_with("letter-"))
            .map(|(key, c, chance)| {
                let d = t.credit.get(&key).copied().unwrap_or(0.0) + c
                    - t.chance.get(&key).copied().unwrap_or(0.0)
                    - chance;
                d * d
            })
            .sum();
        let drift: f64 = drifts(view)
            .into_iter()
            .map(|(key, d)| {
                let x = t.drift.get(key).copied().unwrap_or(0.0) + d;
                x * x
            })
            .sum();
        readers + drift
    }

    /// How much further from chance the tallies would be with this question
    /// added (negative: nearer), letters left out (they are placed afterwards).
    pub(super) fn cost(&self, view: &SurfaceView, format: Format) -> f64 {
        let t = self.tally(format);
        let now: f64 = t
            .credit
            .iter()
            .filter(|(key, _)| !key.starts_with("letter-"))
            .map(|(key, c)| {
                let d = c - t.chance.get(key).copied().unwrap_or(0.0);
                d * d
            })
            .sum::<f64>()
            + t.drift.values().map(|d| d * d).sum::<f64>();
        self.cost_of(view, format, false) - now
    }

    /// Records a written question.
    pub(super) fn record(&mut self, view: &SurfaceView, format: Format) {
        if format == Format::Multi {
            let correct = view.options.iter().filter(|o| o.correct).count();
            *self.counts.entry(correct).or_default() += 1;
        }
        let t = match format {
            Format::Multi => &mut self.multi,
            _ => &mut self.single,
        };
        for (key, c, chance) in credits(view, format) {
            *t.credit.entry(key.clone()).or_default() += c;
            *t.chance.entry(key).or_default() += chance;
        }
        for (key, d) in drifts(view) {
            *t.drift.entry(key).or_default() += d;
        }
        for o in view.options.iter().filter(|o| o.correct) {
            if t.letters.len() <= o.letter {
                t.letters.resize(o.letter + 1, 0);
            }
            t.letters[o.letter] += 1;
        }
    }

    /// The number of correct options for the next multiple-choice question,
    /// among the feasible ones: the least used so far (ties: fewer first).
    pub(super) fn multi_count(&self, feasible: impl Iterator<Item = usize>) -> Option<usize> {
        feasible.min_by_key(|c| (self.counts.get(c).copied().unwrap_or(0), *c))
    }

    /// The letter order of a question's options: `order[k]` is the option
    /// placed at letter `k`. The correct ones go where the readers (letter
    /// readers included) stay nearest chance, gold answers least often seen
    /// there first; the wrong ones are shuffled with `seed` into the rest.
    pub(super) fn arrange(&self, view: &SurfaceView, format: Format, seed: u64) -> Vec<usize> {
        let n = view.options.len();
        let golds: Vec<usize> = (0..n).filter(|&k| view.options[k].correct).collect();
        let mut wrongs: Vec<usize> = (0..n).filter(|&k| !view.options[k].correct).collect();
        super::shuffle(&mut wrongs, seed);
        let t = self.tally(format);
        let mut rng = SplitMix64::new(seed);
        let mut best: Option<((f64, usize, u64), Vec<usize>)> = None;
        let mut places = Vec::new();
        subsets(n, golds.len(), 0, &mut places, &mut |at: &[usize]| {
            let (mut g, mut w) = (golds.iter(), wrongs.iter());
            let order: Vec<usize> = (0..n)
                .map(|k| *if at.contains(&k) { g.next() } else { w.next() }.expect("n options"))
                .collect();
            let mut placed = view.clone();
            for (k, &i) in order.iter().enumerate() {
                placed.options[k] = view.options[i].clone();
                placed.options[k].letter = k;
            }
            let seen: usize = at
                .iter()
                .map(|&k| t.letters.get(k).copied().unwrap_or(0))
                .sum();
            let key = (self.cost_of(&placed, format, true), seen, rng.next_u64());
            if best.as_ref().is_none_or(|b| {
                key.0 < b.0 .0 - 1e-12
                    || (key.0 <= b.0 .0 + 1e-12 && (key.1, key.2) < (b.0 .1, b.0 .2))
            }) {
                best = Some((key, order));
            }
        });
        best.map_or_else(|| (0..n).collect(), |b| b.1)
    }
}

/// Calls `f` with every `k`-subset of `0..n`.
fn subsets(n: usize, k: usize, from: usize, pick: &mut Vec<usize>, f: &mut impl FnMut(&[usize])) {
    if pick.len() == k {
        f(pick);
        return;
    }
    for i in from..n {
        pick.push(i);
        subsets(n, k, i + 1, pick, f);
        pick.pop();
    }
}
