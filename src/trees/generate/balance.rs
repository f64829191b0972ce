//! Balancing the surface, so that no feature a reader can see without
//! understanding tells the gold from the distractors (docs/trees-format.md,
//! "Validity"). Generation keeps the running tally of what each score-rule
//! shortcut reader of the audit ([`crate::trees::audit::readers`]) would earn
//! on the questions written so far, and of the gold letters and
//! correct-option counts; each new question takes the distractor set and the
//! gold letters that keep every tally nearest chance.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use crate::trees::audit::features::SurfaceView;
use crate::trees::audit::readers::{
    binomial, heuristic_credits, row, Logistic, Sees, LETTER_FEATURES, OPTIONS_FEATURES,
    QUESTION_FEATURES,
};
use crate::trees::schema::Format;
use crate::util::rng::SplitMix64;

/// How a placing of the gold letters ranks, lowest first: how often its
/// set of gold letters and its gold letters were used, the readers' cost,
/// a seeded tie-break.
type Placing = ((usize, usize), f64, u64);

/// A tally key: the reader's name and, for multiple choice, how many
/// options it picks (0 for single choice and the learned readers).
type Key = (&'static str, usize);

#[derive(Debug, Clone, Default)]
struct Tally {
    /// Credit earned so far, by reader (and, for multiple choice, by the
    /// number of options it picks).
    credit: FxHashMap<Key, f64>,
    /// Chance accumulated over the same questions, by the same keys.
    chance: FxHashMap<Key, f64>,
    /// Sum over questions of (gold − mean option) for each feature of the
    /// learned reader's row, by index.
    drift: BTreeMap<usize, f64>,
    /// Gold answers so far at each letter.
    /// (a multiple-choice reader guesses one count at a time: kept per
    /// number of correct options).
    letters: BTreeMap<(usize, usize), usize>,
    /// Gold answers so far at each set of letters (a bit per letter): what a
    /// multiple-choice reader that always picks the same letters earns.
    gold_sets: BTreeMap<u64, usize>,
    /// Every option written so far: its learned-reader row (everything it
    /// sees) and whether it is right.
    rows: Vec<(Vec<f64>, bool)>,
    /// Each question's rows in `rows`: where they start, how many.
    spans: Vec<(usize, usize)>,
    /// The learned readers refitted on `rows` (options only, question,
    /// everything), as the audit's are on the other folds.
    models: Vec<(Sees, Logistic)>,
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
fn credits(view: &SurfaceView, format: Format) -> Vec<(Key, f64, f64)> {
    let n = view.options.len();
    match format {
        Format::Multi => {
            let chance = 1.0 / (2f64.powi(n as i32) - 1.0);
            // A reader may guess any count: keep every guess at chance.
            (1..n.max(2))
                .flat_map(|m| {
                    heuristic_credits(view, format, m)
                        .into_iter()
                        .map(move |(name, c)| ((name, m), c, chance))
                })
                .collect()
        }
        _ => {
            let chance = 1.0 / n.max(1) as f64;
            heuristic_credits(view, format, 1)
                .into_iter()
                .map(|(name, c)| ((name, 0), c, chance))
                .collect()
        }
    }
}

/// Every feature the audit's learned reader sees, gold mean minus option
/// mean (letters left out until the options are arranged): a learned reader
/// can only weigh a feature whose gold and distractor means differ.
fn drifts(view: &SurfaceView, letters: bool) -> Vec<(usize, f64)> {
    let n = view.options.len();
    let golds: Vec<usize> = (0..n).filter(|&k| view.options[k].correct).collect();
    if golds.is_empty() || n == 0 {
        return Vec::new();
    }
    let rows: Vec<Vec<f64>> = (0..n).map(|k| row(view, k, Sees::Context)).collect();
    (0..rows[0].len())
        .filter(|j| letters || !LETTER_FEATURES.contains(j))
        .map(|j| {
            let all = rows.iter().map(|r| r[j]).sum::<f64>() / n as f64;
            let gold = golds.iter().map(|&k| rows[k][j]).sum::<f64>() / golds.len() as f64;
            (j, gold - all)
        })
        .collect()
}

/// How much a reader's tally straying `d` (credit minus chance, in
/// questions) costs. Multiple choice counts only what lies above chance: a
/// reader's credit there comes in whole questions against a chance of 1/15
/// each, so a symmetric cost would reward a hit as soon as the reader fell
/// half a question behind chance — on a film with a handful of such
/// questions, one hit puts that reader above chance + 0.05.
fn strain(d: f64, format: Format, n: usize) -> f64 {
    let base = match format {
        Format::Multi => d.max(0.0).powi(2),
        _ => d * d,
    };
    // What the audit fails: a reader more than `AUDIT_EXCESS` of the
    // questions above chance. On a film with a handful of multiple-choice
    // questions one hit is that much; it costs more than any balance bought
    // with it.
    let over = (d - AUDIT_EXCESS * n as f64).max(0.0);
    base + OVER_THE_LINE * over * over
}

/// The audit's default threshold: a reader's accuracy above chance + 0.05.
const AUDIT_EXCESS: f64 = 0.05;

/// How much more a reader's excess beyond the audit's threshold weighs than
/// its excess below it.
const OVER_THE_LINE: f64 = 4.0;

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
            .filter(|(key, ..)| letters || !key.0.starts_with("letter-"))
            .map(|(key, c, chance)| {
                let d = t.credit.get(&key).copied().unwrap_or(0.0) + c
                    - t.chance.get(&key).copied().unwrap_or(0.0)
                    - chance;
                strain(d, format, t.spans.len() + 1)
            })
            .sum();
        let rows: Vec<(Vec<f64>, bool)> = if letters && !t.models.is_empty() {
            context_rows(view)
                .into_iter()
                .zip(view.options.iter().map(|o| o.correct))
                .collect()
        } else {
            Vec::new()
        };
        let learned: f64 = t
            .models
            .iter()
            .filter(|_| letters)
            .map(|(sees, model)| {
                let key = learned_key(*sees);
                let d = t.credit.get(&key).copied().unwrap_or(0.0)
                    + model.credit_of_rows(&rows, format)
                    - t.chance.get(&key).copied().unwrap_or(0.0)
                    - chance_of(view, format);
                strain(d, format, t.spans.len() + 1)
            })
            .sum();
        let drift: f64 = drifts(view, letters)
            .into_iter()
            .map(|(key, d)| {
                let x = t.drift.get(&key).copied().unwrap_or(0.0) + d;
                x * x
            })
            .sum();
        readers + learned + drift
    }

    /// How much further from chance the tallies would be with this question
    /// added (negative: nearer), letters left out (they are placed afterwards).
    pub(super) fn cost(&self, view: &SurfaceView, format: Format) -> f64 {
        let t = self.tally(format);
        let now: f64 = t
            .credit
            .iter()
            .filter(|(key, _)| !key.0.starts_with("letter-"))
            .map(|(key, c)| {
                let d = c - t.chance.get(key).copied().unwrap_or(0.0);
                strain(d, format, t.spans.len())
            })
            .sum::<f64>()
            + t.drift
                .iter()
                .filter(|(j, _)| !LETTER_FEATURES.contains(j))
                .map(|(_, d)| d * d)
                .sum::<f64>();
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
            *t.credit.entry(key).or_default() += c;
            *t.chance.entry(key).or_default() += chance;
        }
        for (key, d) in drifts(view, true) {
            *t.drift.entry(key).or_default() += d;
        }
        t.spans.push((t.rows.len(), view.options.len()));
        for (x, o) in context_rows(view).into_iter().zip(&view.options) {
            t.rows.push((x, o.correct));
        }
        if t.rows.iter().any(|r| r.1) && t.rows.iter().any(|r| !r.1) {
            let refit = |sees: Sees, start: Option<&Logistic>| {
                let d = row_len(sees).min(t.rows[0].0.len());
                let steps = if start.is_some() {
                    REFIT_STEPS
                } else {
                    FIRST_FIT_STEPS
                };
                Logistic::fit_prefix(&t.rows, d, start, steps)
            };
            let models = [Sees::Options, Sees::Question, Sees::Context]
                .into_iter()
                .map(|sees| {
                    let start = t.models.iter().find(|m| m.0 == sees).map(|m| &m.1);
                    (sees, refit(sees, start))
                })
                .collect();
            t.models = models;
        }
        // A learned reader's credit so far is what its current model earns
        // on every question written so far: the audit's is fitted on the
        // whole film, so a pattern learned late counts on early questions.
        for (sees, model) in &t.models {
            let key = learned_key(*sees);
            let (credit, chance) = t.spans.iter().fold((0.0, 0.0), |(c, p), &(at, n)| {
                (
                    c + model.credit_of_rows(&t.rows[at..at + n], format),
                    p + chance_for(n, format),
                )
            });
            t.credit.insert(key, credit);
            t.chance.insert(key, chance);
        }
        let golds = view.options.iter().filter(|o| o.correct).count();
        for o in view.options.iter().filter(|o| o.correct) {
            *t.letters.entry((golds, o.letter)).or_default() += 1;
        }
        *t.gold_sets.entry(letter_set(view)).or_default() += 1;
    }

    /// Whether a score-rule reader is already above chance on the
    /// single-choice questions written so far.
    pub(super) fn ahead(&self, reader: &'static str) -> bool {
        let t = &self.single;
        let key = (reader, 0);
        t.credit.get(&key).copied().unwrap_or(0.0)
            > t.chance.get(&key).copied().unwrap_or(0.0) + 1e-9
    }

    /// The number of correct options for the next multiple-choice question,
    /// among the feasible ones of `1..k`.
    ///
    /// Each count `c` is aimed at its share of the `2^k − 2` sets of letters
    /// a question may have as gold, `C(k, c)` of them: then every fixed set
    /// of letters is gold equally often, and a reader that always picks the
    /// same letters (any count) earns `1/(2^k − 2)`. Uniform counts would
    /// let "always only A" earn `1/(4(k−1))`: 1/12 against chance 1/15 for
    /// four options. The count furthest behind its share is taken (ties:
    /// fewer first); `None` when every feasible count is more than
    /// [`COUNT_SLACK`] questions ahead of its share of the least used one,
    /// so the question is asked another way.
    pub(super) fn multi_count(
        &self,
        k: usize,
        feasible: impl Iterator<Item = usize>,
    ) -> Option<usize> {
        let used = |c: usize| self.counts.get(&c).copied().unwrap_or(0) as f64;
        let sets = |c: usize| binomial(k, c);
        let least = (1..k)
            .map(|c| used(c) / sets(c))
            .min_by(f64::total_cmp)
            .unwrap_or(0.0);
        feasible
            .filter(|&c| used(c) <= least * sets(c) + COUNT_SLACK as f64 + 1e-9)
            .min_by(|&a, &b| {
                ((used(a) + 1.0) / sets(a))
                    .total_cmp(&((used(b) + 1.0) / sets(b)))
                    .then(a.cmp(&b))
            })
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
        let mut best: Option<(Placing, Vec<usize>)> = None;
        let mut places = Vec::new();
        combos(n, golds.len(), 0, &mut places, &mut |at: &[usize]| {
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
                .map(|&k| t.letters.get(&(golds.len(), k)).copied().unwrap_or(0))
                .sum();
            let set_seen = t.gold_sets.get(&letter_set(&placed)).copied().unwrap_or(0);
            // Gold letter sets, then gold letters stay level first (a letter
            // reader is exact), then the other readers.
            let key = (
                (set_seen, seen),
                self.cost_of(&placed, format, true),
                rng.next_u64(),
            );
            if best.as_ref().is_none_or(|b| {
                key.0 < b.0 .0
                    || (key.0 == b.0 .0
                        && (key.1 < b.0 .1 - 1e-12 || (key.1 <= b.0 .1 + 1e-12 && key.2 < b.0 .2)))
            }) {
                best = Some((key, order));
            }
        });
        best.map_or_else(|| (0..n).collect(), |b| b.1)
    }
}

/// Gradient steps of a learned reader's first fit, and of each refit after
/// a question is written (from the weights it had).
const FIRST_FIT_STEPS: usize = 300;
const REFIT_STEPS: usize = 40;

/// The tally key of a learned reader.
fn learned_key(sees: Sees) -> Key {
    let name = match sees {
        Sees::Options => "learned-Options",
        Sees::Question => "learned-Question",
        Sees::Context => "learned-Context",
    };
    (name, 0)
}

/// The length of a learned reader's row (a prefix of the full row).
/// Every option's feature row as the reader that sees the context reads it
/// (the readers that see less read a prefix of it).
fn context_rows(view: &SurfaceView) -> Vec<Vec<f64>> {
    (0..view.options.len())
        .map(|k| row(view, k, Sees::Context))
        .collect()
}

fn row_len(sees: Sees) -> usize {
    match sees {
        Sees::Options => OPTIONS_FEATURES,
        Sees::Question => QUESTION_FEATURES,
        Sees::Context => usize::MAX,
    }
}

/// What a reader that knows nothing earns on a question.
fn chance_of(view: &SurfaceView, format: Format) -> f64 {
    chance_for(view.options.len(), format)
}

/// What a reader that knows nothing earns on a question of `n` options.
fn chance_for(n: usize, format: Format) -> f64 {
    let n = n.max(1);
    match format {
        Format::Multi => 1.0 / (2f64.powi(n as i32) - 1.0),
        _ => 1.0 / n as f64,
    }
}

/// How many more questions one correct-option count may have than its
/// share of the least used one.
const COUNT_SLACK: usize = 1;

/// The letters of a question's gold options, a bit per letter.
fn letter_set(view: &SurfaceView) -> u64 {
    view.options
        .iter()
        .filter(|o| o.correct && o.letter < 64)
        .fold(0, |set, o| set | 1 << o.letter)
}

/// Calls `f` with every `k`-subset of `0..n`, in lexicographic order.
pub(super) fn combos(
    n: usize,
    k: usize,
    from: usize,
    pick: &mut Vec<usize>,
    f: &mut impl FnMut(&[usize]),
) {
    if pick.len() == k {
        f(pick);
        return;
    }
    for i in from..n {
        pick.push(i);
        combos(n, k, i + 1, pick, f);
        pick.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trees::audit::features::OptionFeatures;

    /// A question of `n` options whose first `golds` are right, every
    /// option alike on the surface.
    fn view(n: usize, golds: usize) -> SurfaceView {
        SurfaceView {
            options: (0..n)
                .map(|k| OptionFeatures {
                    letter: k,
                    chars: 30.0,
                    words: 6.0,
                    context_overlap: 0.5,
                    question_overlap: 0.2,
                    similarity_to_others: 0.1,
                    offset: None,
                    cue_above_quote: false,
                    correct: k < golds,
                })
                .collect(),
            quoted_line: None,
        }
    }

    /// `v` with its options put at the letters `order` gives.
    fn placed(v: &SurfaceView, order: &[usize]) -> SurfaceView {
        let mut out = v.clone();
        for (k, &i) in order.iter().enumerate() {
            out.options[k] = v.options[i].clone();
            out.options[k].letter = k;
        }
        out
    }

    #[test]
    fn a_learned_readers_credit_so_far_is_its_current_models_on_every_question() {
        // Early questions written while the model knew little must count
        // as the model now reads them (the audit's reader is fitted on the
        // whole film): the gold is always the longest option here.
        let mut b = Balancer::default();
        for i in 0..12 {
            let mut v = view(3, 1);
            v.options[0].chars = 60.0 + f64::from(i);
            v.options[0].words = 12.0;
            b.record(&v, Format::Single);
        }
        let t = &b.single;
        for (sees, model) in &t.models {
            let key = learned_key(*sees);
            let now: f64 = t
                .spans
                .iter()
                .map(|&(at, n)| model.credit_of_rows(&t.rows[at..at + n], Format::Single))
                .sum();
            assert_eq!(t.credit[&key], now, "{sees:?}");
            assert_eq!(t.chance[&key], 12.0 / 3.0, "{sees:?}");
        }
        // The longest option is the gold every time: the fitted readers
        // see it on every question, the first one included.
        let key = learned_key(Sees::Options);
        assert!(t.credit[&key] > 11.0, "{}", t.credit[&key]);
    }

    #[test]
    fn a_multiple_choice_hit_never_pays_for_a_reader_behind_chance() {
        // Eight questions in, a reader with no hit is 8/15 of a question
        // behind chance; a symmetric cost made a hit (7/15 ahead) the cheaper
        // choice, and one hit in eight is 0.125 against a bar of 0.117.
        let behind = -8.0 / 15.0;
        assert_eq!(strain(behind, Format::Multi, 20), 0.0);
        assert!(strain(behind + 1.0, Format::Multi, 20) > strain(behind, Format::Multi, 20));
        // Single choice stays symmetric: a reader far below chance is
        // a reader too (pick anything but its choice).
        assert_eq!(
            strain(-0.5, Format::Single, 20),
            strain(0.5, Format::Single, 20)
        );
        // Past the audit's line (0.05 of the questions above chance) a
        // reader's excess weighs far more: on 10 multiple-choice questions
        // one hit more than chance fails the film.
        let plain = |d: f64| d * d;
        assert_eq!(strain(0.5, Format::Multi, 10), plain(0.5));
        assert!(strain(0.9, Format::Multi, 10) > plain(0.9) + 0.5);
    }

    #[test]
    fn a_correct_count_used_more_than_the_others_is_not_offered() {
        let mut b = Balancer::default();
        assert_eq!(b.multi_count(4, [1].into_iter()), Some(1));
        b.record(&view(4, 1), Format::Multi);
        assert_eq!(b.multi_count(4, [1].into_iter()), Some(1));
        b.record(&view(4, 1), Format::Multi);
        // Two questions with one correct option, none with two or three: a
        // reader guessing "one" would beat chance.
        assert_eq!(b.multi_count(4, [1].into_iter()), None);
        assert_eq!(b.multi_count(4, [1, 2].into_iter()), Some(2));
    }

    #[test]
    fn correct_counts_follow_the_number_of_letter_sets_each_has() {
        // Four options: 4 sets of one letter, 6 of two, 4 of three. Counts
        // used evenly would make "always only A" earn 1/12 against 1/15.
        let mut b = Balancer::default();
        for _ in 0..28 {
            let c = b.multi_count(4, 1..4).expect("a count");
            b.record(&view(4, c), Format::Multi);
        }
        assert_eq!(b.counts, BTreeMap::from([(1, 8), (2, 12), (3, 8)]));
    }

    #[test]
    fn every_set_of_gold_letters_is_used_alike() {
        let mut b = Balancer::default();
        for seed in 0..12 {
            let v = view(4, 2);
            let order = b.arrange(&v, Format::Multi, seed);
            let placed = placed(&v, &order);
            b.record(&placed, Format::Multi);
        }
        // Six sets of two letters out of four, twice each.
        assert_eq!(b.multi.gold_sets.len(), 6);
        assert!(
            b.multi.gold_sets.values().all(|&n| n == 2),
            "{:?}",
            b.multi.gold_sets
        );
    }

    #[test]
    fn gold_letters_stay_level_per_correct_count() {
        let mut b = Balancer::default();
        let mut seen = [0usize; 4];
        for seed in 0..8 {
            let v = view(4, 1);
            let order = b.arrange(&v, Format::Multi, seed);
            let gold_at = order.iter().position(|&i| i == 0).unwrap();
            seen[gold_at] += 1;
            let placed = placed(&v, &order);
            b.record(&placed, Format::Multi);
        }
        assert_eq!(seen, [2, 2, 2, 2]);
    }
}
