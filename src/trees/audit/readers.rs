//! Shortcut readers: answer choice questions from surface features alone,
//! never from meaning. Each is scored like a subject (single choice: exact;
//! multiple choice: strict exact match), with ties counted as a fair coin
//! (an option among `t` tied best ones earns `1/t`), so a reader that sees
//! nothing scores chance exactly.
//!
//! The learned readers are logistic models over the same features,
//! cross-validated by tree: a tree's questions are answered by a model
//! trained on the other folds only.

use std::collections::BTreeMap;

use crate::trees::schema::{Format, Tree};
use crate::util::hash::fnv1a;

use super::features::{surface, OptionFeatures, SurfaceView};

/// Folds of the by-tree cross-validation.
const FOLDS: u64 = 5;

/// What a reader looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sees {
    /// The options alone.
    Options,
    /// The question and its options, no context.
    Question,
    /// Question, options and the excerpt's surface.
    Context,
}

/// How a reader picks.
#[derive(Debug, Clone, Copy)]
enum Rule {
    /// A score per option (`None`: never picked while another has a score).
    Score(fn(&OptionFeatures) -> Option<f64>),
    /// The option whose value is nearest the median of its question's
    /// options (what remains when neither extreme is right).
    Middle(fn(&OptionFeatures) -> f64),
    /// A logistic model over the features it sees.
    Learned,
}

/// One shortcut reader.
#[derive(Debug, Clone, Copy)]
pub struct Reader {
    /// Short name (`nearest-before-quote`).
    pub name: &'static str,
    /// What it does, for reports.
    pub description: &'static str,
    /// What it sees.
    pub sees: Sees,
    rule: Rule,
}

/// Every shortcut reader, the learned ones last.
pub fn readers() -> Vec<Reader> {
    use Sees::*;
    let r = |name, description, sees, rule| Reader {
        name,
        description,
        sees,
        rule,
    };
    vec![
        r("longest", "the longest option", Options, Rule::Score(|o| Some(o.chars))),
        r("shortest", "the shortest option", Options, Rule::Score(|o| Some(-o.chars))),
        r("letter-A", "always the first option", Options, Rule::Score(|o| Some(f64::from(o.letter == 0)))),
        r("letter-B", "always the second option", Options, Rule::Score(|o| Some(f64::from(o.letter == 1)))),
        r("letter-C", "always the third option", Options, Rule::Score(|o| Some(f64::from(o.letter == 2)))),
        r("letter-D", "always the fourth option", Options, Rule::Score(|o| Some(f64::from(o.letter == 3)))),
        r("middle-length", "the option nearest the middle length of its question's options (neither longest nor shortest)", Options, Rule::Middle(|o| o.chars)),
        r("most-like-others", "the option sharing most words with the others", Options, Rule::Score(|o| Some(o.similarity_to_others))),
        r("options-only-learned", "a logistic model over the options alone (length, words, letter, likeness), cross-validated by tree", Options, Rule::Learned),
        r("question-overlap", "the option sharing most words with the question", Question, Rule::Score(|o| Some(o.question_overlap))),
        r("question-overlap-least", "the option sharing fewest words with the question", Question, Rule::Score(|o| Some(-o.question_overlap))),
        r("no-context-learned", "a logistic model over question and options without context, cross-validated by tree", Question, Rule::Learned),
        r("context-overlap-most", "the option sharing most words with the excerpt", Context, Rule::Score(|o| Some(o.context_overlap))),
        r("context-overlap-middle", "the option nearest the middle word overlap with the excerpt", Context, Rule::Middle(|o| o.context_overlap)),
        r("context-overlap-least", "the option sharing fewest words with the excerpt", Context, Rule::Score(|o| Some(-o.context_overlap))),
        r("nearest-before-quote", "the option whose line is nearest before the line the question quotes", Context, Rule::Score(|o| o.offset.filter(|&d| d < 0).map(|d| d as f64))),
        r("nearest-after-quote", "the option whose line is nearest after the line the question quotes", Context, Rule::Score(|o| o.offset.filter(|&d| d > 0).map(|d| -(d as f64)))),
        r("nearest-quote", "the option whose line is nearest the line the question quotes", Context, Rule::Score(|o| o.offset.map(|d| -(d.abs() as f64)))),
        r("speaker-cue", "the name of the speaker cue nearest above the quoted line", Context, Rule::Score(|o| Some(f64::from(o.cue_above_quote)))),
        r("learned", "a logistic model over every surface feature above, cross-validated by tree", Context, Rule::Learned),
    ]
}

/// A choice question as the readers see it.
#[derive(Debug, Clone)]
pub struct Item {
    /// Index of its tree in the audited set.
    pub tree: usize,
    /// Single or multiple choice.
    pub format: Format,
    /// Its cross-validation fold.
    pub fold: u64,
    /// Its tree's id (the learned readers deal trees into folds by it).
    pub tree_id: String,
    /// Its surface.
    pub view: SurfaceView,
}

impl Item {
    fn gold(&self) -> Vec<bool> {
        self.view.options.iter().map(|o| o.correct).collect()
    }

    /// What a reader that knows nothing scores: `1/n` for single choice,
    /// `1/(2^n − 1)` for multiple choice.
    pub fn chance(&self) -> f64 {
        let n = self.view.options.len() as i32;
        match self.format {
            Format::Multi => 1.0 / (2f64.powi(n) - 1.0),
            _ => 1.0 / f64::from(n.max(1)),
        }
    }
}

/// The choice questions of a tree set, with their folds.
pub fn items(trees: &[Tree]) -> Vec<Item> {
    let mut out = Vec::new();
    for (t, tree) in trees.iter().enumerate() {
        let fold = fnv1a(tree.id.as_bytes()) % FOLDS;
        for node in &tree.nodes {
            if !matches!(node.format, Format::Single | Format::Multi) {
                continue;
            }
            let Some(view) = surface(node) else { continue };
            if view.options.len() < 2 || !view.options.iter().any(|o| o.correct) {
                continue;
            }
            out.push(Item {
                tree: t,
                format: node.format,
                fold,
                tree_id: tree.id.clone(),
                view,
            });
        }
    }
    out
}

/// A score-rule reader's scores on one question (`None` for learned readers).
fn scores_of(rule: Rule, view: &SurfaceView) -> Option<Vec<Option<f64>>> {
    match rule {
        Rule::Score(score) => Some(view.options.iter().map(score).collect()),
        Rule::Middle(value) => {
            let mut values: Vec<f64> = view.options.iter().map(value).collect();
            values.sort_by(f64::total_cmp);
            let n = values.len();
            let median = if n % 2 == 1 {
                values[n / 2]
            } else {
                (values[n / 2 - 1] + values[n / 2]) / 2.0
            };
            Some(
                view.options
                    .iter()
                    .map(|o| Some(-(value(o) - median).abs()))
                    .collect(),
            )
        }
        Rule::Learned => None,
    }
}

/// A reader's credit on every item (0..1, ties as a fair coin), in item order.
pub fn credits(reader: &Reader, items: &[Item]) -> Vec<f64> {
    if matches!(reader.rule, Rule::Learned) {
        return learned_credits(reader.sees, items);
    }
    let modal = modal_counts(items);
    items
        .iter()
        .map(|item| {
            let scores = scores_of(reader.rule, &item.view).expect("a score rule");
            match item.format {
                Format::Multi => multi_credit(&scores, &item.gold(), modal[&item.fold]),
                _ => single_credit(&scores, &item.gold()),
            }
        })
        .collect()
}

/// The credit of every score-rule reader (the learned ones left out) on one
/// question, `m` being the number of options a multiple-choice reader picks;
/// `(reader name, credit)` in [`readers`] order. Generation balances these.
pub fn heuristic_credits(view: &SurfaceView, format: Format, m: usize) -> Vec<(&'static str, f64)> {
    let gold: Vec<bool> = view.options.iter().map(|o| o.correct).collect();
    readers()
        .into_iter()
        .filter_map(|r| {
            let scores = scores_of(r.rule, view)?;
            let credit = match format {
                Format::Multi => multi_credit(&scores, &gold, m),
                _ => single_credit(&scores, &gold),
            };
            Some((r.name, credit))
        })
        .collect()
}

/// For each fold: the most common number of correct options among the
/// multiple-choice questions of the other folds (what a reader picks that
/// knows the tree set's habit), at least 1.
fn modal_counts(items: &[Item]) -> BTreeMap<u64, usize> {
    let mut out = BTreeMap::new();
    for fold in 0..FOLDS {
        let mut hist: BTreeMap<usize, usize> = BTreeMap::new();
        for item in items
            .iter()
            .filter(|i| i.fold != fold && i.format == Format::Multi)
        {
            *hist
                .entry(item.gold().iter().filter(|g| **g).count())
                .or_default() += 1;
        }
        let mode = hist
            .iter()
            .max_by_key(|(count, n)| (**n, std::cmp::Reverse(**count)))
            .map_or(1, |(count, _)| *count);
        out.insert(fold, mode.max(1));
    }
    out
}

/// Single choice: the best-scored option; `1/t` when the gold is among `t` tied best.
pub fn single_credit(scores: &[Option<f64>], gold: &[bool]) -> f64 {
    let top = scores
        .iter()
        .flatten()
        .copied()
        .fold(f64::NEG_INFINITY, f64::max);
    let tied: Vec<usize> = (0..scores.len())
        .filter(|&k| match scores[k] {
            Some(s) => s == top,
            None => top == f64::NEG_INFINITY,
        })
        .collect();
    let hits = tied.iter().filter(|&&k| gold[k]).count();
    hits as f64 / tied.len().max(1) as f64
}

/// Multiple choice: the `m` best-scored options, ties at the cut drawn at
/// random; the chance that the drawn set is exactly the gold set.
pub fn multi_credit(scores: &[Option<f64>], gold: &[bool], m: usize) -> f64 {
    let n = scores.len();
    let m = m.clamp(1, n);
    if gold.iter().filter(|g| **g).count() != m {
        return 0.0;
    }
    let key = |k: usize| scores[k].unwrap_or(f64::NEG_INFINITY);
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| key(b).total_cmp(&key(a)));
    let cut = key(order[m - 1]);
    let above: Vec<usize> = (0..n).filter(|&k| key(k) > cut).collect();
    let tied: Vec<usize> = (0..n).filter(|&k| key(k) == cut).collect();
    if above.iter().any(|&k| !gold[k]) {
        return 0.0;
    }
    let need = m - above.len();
    let gold_tied = tied.iter().filter(|&&k| gold[k]).count();
    if gold_tied != need {
        return 0.0;
    }
    1.0 / binomial(tied.len(), need)
}

/// `n` choose `k` (`k ≤ n`).
pub fn binomial(n: usize, k: usize) -> f64 {
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

/// The length of an options-only reader's [`row`], and of a question
/// reader's (each row is a prefix of the next reader's).
pub const OPTIONS_FEATURES: usize = 9;
/// See [`OPTIONS_FEATURES`].
pub const QUESTION_FEATURES: usize = 11;

/// Indices in a [`row`] of the letter indicators (the letter of an option
/// is only known once the options are arranged).
pub const LETTER_FEATURES: std::ops::Range<usize> = 5..9;

/// The learned reader's feature row for option `k` (centred within its
/// question, so the model compares options of one question). Generation
/// balances the same rows, so what the audit can learn is what generation
/// keeps level.
pub fn row(view: &SurfaceView, k: usize, sees: Sees) -> Vec<f64> {
    let opts = &view.options;
    let o = &opts[k];
    let n = opts.len() as f64;
    let mean = |f: fn(&OptionFeatures) -> f64| opts.iter().map(f).sum::<f64>() / n;
    let max = |f: fn(&OptionFeatures) -> f64| opts.iter().map(f).fold(f64::NEG_INFINITY, f64::max);
    let min = |f: fn(&OptionFeatures) -> f64| opts.iter().map(f).fold(f64::INFINITY, f64::min);
    let chars = |o: &OptionFeatures| o.chars;
    let words = |o: &OptionFeatures| o.words;
    let like = |o: &OptionFeatures| o.similarity_to_others;
    let mut x = vec![
        (o.chars - mean(chars)) / (mean(chars) + 1.0),
        (o.words - mean(words)) / (mean(words) + 1.0),
        f64::from(o.chars == max(chars)),
        f64::from(o.chars == min(chars)),
        o.similarity_to_others - mean(like),
    ];
    for letter in 0..4 {
        x.push(f64::from(o.letter == letter));
    }
    if sees == Sees::Options {
        return x;
    }
    let q = |o: &OptionFeatures| o.question_overlap;
    x.push(o.question_overlap - mean(q));
    x.push(f64::from(o.question_overlap == max(q)));
    if sees == Sees::Question {
        return x;
    }
    let c = |o: &OptionFeatures| o.context_overlap;
    x.push(o.context_overlap - mean(c));
    x.push(f64::from(o.context_overlap == max(c)));
    x.push(f64::from(o.context_overlap == min(c)));
    let before: Vec<i64> = opts
        .iter()
        .filter_map(|p| p.offset.filter(|&d| d < 0))
        .collect();
    let after: Vec<i64> = opts
        .iter()
        .filter_map(|p| p.offset.filter(|&d| d > 0))
        .collect();
    x.push(f64::from(o.offset.is_some()));
    x.push(f64::from(o.offset.is_some_and(|d| d < 0)));
    x.push(f64::from(o.offset.is_some_and(|d| d > 0)));
    x.push(f64::from(
        o.offset
            .is_some_and(|d| d < 0 && Some(&d) == before.iter().max()),
    ));
    x.push(f64::from(
        o.offset
            .is_some_and(|d| d > 0 && Some(&d) == after.iter().min()),
    ));
    x.push(o.offset.map_or(0.0, |d| (d.abs().min(20) as f64) / 20.0));
    x.push(f64::from(o.cue_above_quote));
    x
}

/// A logistic model: weights over standardised features, then the bias.
#[derive(Debug, Clone)]
pub struct Logistic {
    mean: Vec<f64>,
    scale: Vec<f64>,
    weights: Vec<f64>,
}

impl Logistic {
    /// Fits by full-batch gradient descent with a little L2 (deterministic).
    pub fn fit(rows: &[(Vec<f64>, bool)]) -> Logistic {
        Logistic::fit_from(rows, None, FIT_STEPS)
    }

    /// Fits `steps` steps from the weights of `start` (when its features
    /// match), else from zero: a model refitted as rows arrive.
    pub fn fit_from(rows: &[(Vec<f64>, bool)], start: Option<&Logistic>, steps: usize) -> Logistic {
        let d = rows.first().map_or(0, |r| r.0.len());
        Logistic::fit_prefix(rows, d, start, steps)
    }

    /// [`Logistic::fit_from`] on the first `d` features of every row (a
    /// reader that sees less reads a prefix of the same rows), so nested
    /// readers are refitted without copying their rows.
    pub fn fit_prefix(
        rows: &[(Vec<f64>, bool)],
        d: usize,
        start: Option<&Logistic>,
        steps: usize,
    ) -> Logistic {
        let n = rows.len().max(1) as f64;
        let mut mean = vec![0.0; d];
        for (x, _) in rows {
            for j in 0..d {
                mean[j] += x[j] / n;
            }
        }
        let mut scale = vec![0.0; d];
        for (x, _) in rows {
            for j in 0..d {
                scale[j] += (x[j] - mean[j]).powi(2) / n;
            }
        }
        for s in &mut scale {
            *s = if *s > 1e-12 { s.sqrt() } else { 1.0 };
        }
        let weights = match start {
            Some(m) if m.weights.len() == d + 1 => m.weights.clone(),
            _ => vec![0.0; d + 1],
        };
        let mut model = Logistic {
            mean,
            scale,
            weights,
        };
        // Standardised rows in one flat block: the steps below walk it
        // `steps` times, so it is laid out once, contiguously.
        let mut z = Vec::with_capacity(rows.len() * d);
        for (x, _) in rows {
            z.extend(
                x[..d]
                    .iter()
                    .zip(&model.mean)
                    .zip(&model.scale)
                    .map(|((v, m), s)| (v - m) / s),
            );
        }
        let labels: Vec<f64> = rows.iter().map(|(_, y)| f64::from(*y)).collect();
        let mut grad = vec![0.0; d + 1];
        for _ in 0..steps {
            grad.fill(0.0);
            for (i, y) in labels.iter().enumerate() {
                let zi = &z[i * d..(i + 1) * d];
                let err = sigmoid(dot(zi, &model.weights[..d]) + model.weights[d]) - y;
                for (g, v) in grad.iter_mut().zip(zi) {
                    *g += err * v;
                }
                grad[d] += err;
            }
            for g in &mut grad {
                *g /= n;
            }
            for (g, w) in grad.iter_mut().zip(&model.weights).take(d) {
                *g += 0.01 * w;
            }
            if start.is_some() && grad.iter().all(|g| g.abs() < 1e-3) {
                break;
            }
            for (w, g) in model.weights.iter_mut().zip(&grad) {
                *w -= 0.5 * g;
            }
        }
        model
    }

    /// The probability that an option is correct, from its feature row (or
    /// a longer row: a model reads the prefix it was fitted on).
    fn probability(&self, x: &[f64]) -> f64 {
        let d = self.mean.len();
        let linear = x[..d]
            .iter()
            .zip(&self.mean)
            .zip(&self.scale)
            .zip(&self.weights)
            .map(|(((v, m), s), w)| (v - m) / s * w)
            .sum::<f64>()
            + self.weights[d];
        sigmoid(linear)
    }

    /// What this model earns on a question, read as the learned reader
    /// reads (single: the most probable option, ties a fair coin; multiple:
    /// every option above one half, at least the most probable, exact match).
    pub fn credit(&self, view: &SurfaceView, format: Format, sees: Sees) -> f64 {
        let rows: Vec<Vec<f64>> = (0..view.options.len())
            .map(|j| row(view, j, sees))
            .collect();
        let labelled: Vec<(Vec<f64>, bool)> = rows
            .into_iter()
            .zip(view.options.iter().map(|o| o.correct))
            .collect();
        self.credit_of_rows(&labelled, format)
    }

    /// [`Logistic::credit`] from the options' rows, each with whether it is
    /// right: built once for every model that reads them (each reads its
    /// own prefix).
    pub fn credit_of_rows(&self, rows: &[(Vec<f64>, bool)], format: Format) -> f64 {
        let p: Vec<f64> = rows.iter().map(|(x, _)| self.probability(x)).collect();
        let gold: Vec<bool> = rows.iter().map(|r| r.1).collect();
        match format {
            Format::Multi => {
                let best = p.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let chosen: Vec<bool> = p.iter().map(|&q| q > 0.5 || q == best).collect();
                f64::from(chosen == gold)
            }
            _ => single_credit(&p.iter().map(|&q| Some(q)).collect::<Vec<_>>(), &gold),
        }
    }
}

/// The dot product of two equally long slices, summed in four lanes (the
/// fit's inner loop: one sum chain would wait on every addition).
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut lanes = [0.0; 4];
    let (a4, b4) = (a.chunks_exact(4), b.chunks_exact(4));
    let tail: f64 = a4
        .remainder()
        .iter()
        .zip(b4.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in a4.zip(b4) {
        for k in 0..4 {
            lanes[k] += x[k] * y[k];
        }
    }
    (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]) + tail
}

/// Gradient steps of a full fit.
const FIT_STEPS: usize = 300;

fn sigmoid(v: f64) -> f64 {
    1.0 / (1.0 + (-v).exp())
}

/// Credits of a learned reader: per fold, a model fitted on the other folds'
/// options answers this fold's questions (single: the most probable option;
/// multiple: every option above one half, at least the most probable). The
/// cross-validation is repeated over [`REPEATS`] ways of dealing the trees
/// into folds and a question's credit is the mean, so the figure does not
/// hang on one deal (with a few dozen questions, one deal alone moves a
/// reader that sees nothing by several points).
fn learned_credits(sees: Sees, items: &[Item]) -> Vec<f64> {
    let mut out = vec![0.0; items.len()];
    for repeat in 0..REPEATS {
        let fold_of = |item: &Item| {
            if repeat == 0 {
                item.fold
            } else {
                fnv1a(format!("{repeat}:{}", item.tree_id).as_bytes()) % FOLDS
            }
        };
        for fold in 0..FOLDS {
            let train: Vec<(Vec<f64>, bool)> = items
                .iter()
                .filter(|i| fold_of(i) != fold)
                .flat_map(|i| {
                    (0..i.view.options.len())
                        .map(|k| (row(&i.view, k, sees), i.view.options[k].correct))
                })
                .collect();
            let model = (train.iter().any(|r| r.1)).then(|| Logistic::fit(&train));
            for (k, item) in items.iter().enumerate().filter(|(_, i)| fold_of(i) == fold) {
                out[k] += match &model {
                    Some(model) => model.credit(&item.view, item.format, sees),
                    None => item.chance(),
                } / REPEATS as f64;
            }
        }
    }
    out
}

/// Deals of the trees into folds that a learned reader's figure averages.
pub const REPEATS: u64 = 5;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefix_fit_is_the_fit_of_the_rows_cut_to_that_prefix() {
        let rows: Vec<(Vec<f64>, bool)> = (0..40)
            .map(|i| {
                let x = f64::from(i);
                (vec![x.sin(), (x * 0.3).cos(), x % 3.0, x % 5.0], i % 3 == 0)
            })
            .collect();
        let cut: Vec<(Vec<f64>, bool)> = rows.iter().map(|(x, y)| (x[..2].to_vec(), *y)).collect();
        let whole = Logistic::fit_from(&cut, None, 50);
        let prefix = Logistic::fit_prefix(&rows, 2, None, 50);
        assert_eq!(whole.weights, prefix.weights);
        // A model reads the prefix it was fitted on from a longer row.
        assert_eq!(
            whole.probability(&rows[7].0[..2]),
            prefix.probability(&rows[7].0)
        );
        // Warm-started refits stop once the gradient is flat: refitting a
        // converged model leaves it (nearly) where it was.
        let converged = Logistic::fit_from(&cut, None, 5000);
        let again = Logistic::fit_from(&cut, Some(&converged), 40);
        assert_eq!(converged.weights, again.weights);
    }

    #[test]
    fn the_four_lane_dot_product_is_the_dot_product() {
        for n in 0..11 {
            let a: Vec<f64> = (0..n).map(|i| f64::from(i) * 0.5 - 1.0).collect();
            let b: Vec<f64> = (0..n).map(|i| 2.0 - f64::from(i)).collect();
            let plain: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
            assert!((dot(&a, &b) - plain).abs() < 1e-12, "{n}");
        }
    }

    #[test]
    fn ties_are_a_fair_coin() {
        assert_eq!(
            single_credit(&[Some(1.0), Some(1.0), Some(0.0)], &[true, false, false]),
            0.5
        );
        assert_eq!(
            single_credit(&[None, None, None], &[false, true, false]),
            1.0 / 3.0
        );
        assert_eq!(
            single_credit(&[Some(2.0), None, None], &[false, true, false]),
            0.0
        );
    }

    #[test]
    fn multi_credit_is_the_chance_of_drawing_the_gold_set() {
        let gold = [true, true, false, false];
        assert_eq!(
            multi_credit(&[Some(3.0), Some(2.0), Some(1.0), Some(0.0)], &gold, 2),
            1.0
        );
        assert_eq!(multi_credit(&[Some(1.0); 4], &gold, 2), 1.0 / 6.0);
        assert_eq!(multi_credit(&[Some(1.0); 4], &gold, 3), 0.0);
        assert_eq!(
            multi_credit(&[Some(2.0), Some(1.0), Some(1.0), Some(1.0)], &gold, 2),
            1.0 / 3.0
        );
    }
}
