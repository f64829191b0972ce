//! `moviegraph trees audit`: how valid a tree set is as a benchmark
//! (docs/audit.md). A score means little unless answering takes
//! understanding, so the audit measures, for any tree set:
//!
//! - **shortcut readers** ([`readers`]): readers that never read for meaning
//!   (options only; question without context; surface features of the
//!   excerpt; a learned surface-feature model cross-validated by tree), each
//!   with accuracy, a 95% bootstrap interval over trees and chance, per format;
//! - **balance**: gold letters, correct-option counts, option lengths;
//! - **give-aways**: a question holding its own answer, a narration line
//!   stating the gold state of mind;
//! - **redundancy**: duplicate and near-duplicate questions within a film,
//!   follow-ups that re-ask their parent's link;
//! - **coverage** (given the film's layout): scenes and running time the
//!   anchors span, questions about blocks the film does not contain.
//!
//! [`Thresholds`] turn the figures into a verdict ([`Audit::failures`]).

mod checks;
pub mod features;
pub mod readers;
mod render;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::util::rng::SplitMix64;

use super::schema::{Format, Node, Tree};
pub use checks::{node_giveaways, reasks, Asks, Balance, Coverage, Ended, Redundancy, Wording};
use readers::{credits, items, readers, Item, Sees};

/// Bootstrap resamples of the readers' intervals.
const RESAMPLES: usize = 1000;

/// What the audit knows of the film: its scenes, and which blocks the film
/// contains (a block with no timed line is not in the film).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FilmLayout {
    /// Scenes in the script.
    pub scenes: usize,
    /// Scene of each block.
    pub block_scene: BTreeMap<usize, usize>,
    /// Film-clock span of each block (`None`: no timed line).
    pub block_time: BTreeMap<usize, Option<(u64, u64)>>,
    /// When the film's graph says its states end (`None`: no graph was at
    /// hand, so whether golds rest on ended states is not measured).
    pub state_ends: Option<StateEnds>,
}

/// When a film's graph places its states and events: the 0-based scene
/// each happens or begins in, and the scene each state whose end is known
/// ends in (`until_scene`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct StateEnds {
    /// Where the graph came from (`the store's latest build`, a file).
    pub source: String,
    /// Mental states in the graph.
    pub states: usize,
    /// The scene of each state and event that has one.
    pub scenes: BTreeMap<String, usize>,
    /// The states with a known end, and the scene each ends in.
    pub ends: BTreeMap<String, usize>,
}

impl FilmLayout {
    /// First and last timed moment of the film.
    pub fn running_time(&self) -> (Option<u64>, Option<u64>) {
        let spans = self.block_time.values().flatten();
        (spans.clone().map(|s| s.0).min(), spans.map(|s| s.1).max())
    }
}

/// One flagged question.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// `tree/node`.
    pub at: String,
    /// The kind of problem (`duplicate`, `reask`, `answer-in-question`…).
    pub kind: String,
    /// What was found.
    pub detail: String,
}

impl Finding {
    fn new(tree: &Tree, node: &Node, kind: &str, detail: String) -> Finding {
        Finding {
            at: format!("{}/{}", tree.id, node.id),
            kind: kind.to_owned(),
            detail,
        }
    }
}

/// When a tree set fails the audit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Thresholds {
    /// Most any shortcut reader may score above chance (accuracy − chance).
    pub max_excess: f64,
    /// Most duplicate or near-duplicate questions within a film.
    pub max_duplicates: usize,
    /// Most follow-ups that re-ask their parent.
    pub max_reasks: usize,
    /// Most give-aways.
    pub max_giveaways: usize,
    /// Largest share of multiple-choice questions with the same number of
    /// correct options.
    pub max_count_share: f64,
    /// Least share of the scenes the anchors must span (with a film layout).
    pub min_scene_span: f64,
    /// Most questions about blocks the film does not contain (with a film
    /// layout; not checked for text-only trees).
    pub max_outside_film: usize,
}

impl Default for Thresholds {
    fn default() -> Thresholds {
        Thresholds {
            max_excess: 0.05,
            max_duplicates: 0,
            max_reasks: 0,
            max_giveaways: 0,
            max_count_share: 0.5,
            min_scene_span: 0.9,
            max_outside_film: 0,
        }
    }
}

/// A shortcut reader's result on one format.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReaderScore {
    /// The reader's name.
    pub reader: String,
    /// What it does.
    pub description: String,
    /// What it sees: `options`, `question` or `context`.
    pub sees: String,
    /// `single` or `multi`.
    pub format: String,
    /// Questions answered.
    pub questions: usize,
    /// Mean credit (strict exact match for multiple choice).
    pub accuracy: f64,
    /// 95% bootstrap interval over trees.
    pub ci: [f64; 2],
    /// What a reader that knows nothing scores.
    pub chance: f64,
    /// accuracy − chance.
    pub excess: f64,
}

/// The validity report of a tree set.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Audit {
    /// Trees audited.
    pub trees: usize,
    /// Questions by format.
    pub questions: BTreeMap<String, usize>,
    /// Every reader on every choice format.
    pub readers: Vec<ReaderScore>,
    /// Per format, the reader furthest above chance.
    pub strongest: Vec<ReaderScore>,
    /// Letters, counts and lengths.
    pub balance: Balance,
    /// Questions that give their answer away.
    pub giveaways: Vec<Finding>,
    /// Duplicates and re-asks.
    pub redundancy: Redundancy,
    /// What the questions ask: categories, types, trivia against minds and
    /// causes.
    pub asks: Asks,
    /// Coverage of the film (`None` without the film's layout).
    pub coverage: Option<Coverage>,
    /// Golds that rest on a state the graph ends before the question's
    /// moment (`None` without the film's layout and graph).
    pub ended: Option<Ended>,
    /// Whether the trees are text-only (then questions outside the film are allowed).
    pub text_only: bool,
    /// The thresholds applied.
    pub thresholds: Thresholds,
    /// Each broken threshold, in words (empty: the set passes).
    pub failures: Vec<String>,
}

impl Audit {
    /// Whether every threshold holds.
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }

    /// The audit as a plain-text table for the terminal and reports.
    pub fn render(&self) -> String {
        render::render(self)
    }

    /// One line: passed or failed, and the strongest shortcut per format.
    pub fn summary(&self) -> String {
        render::summary(self)
    }
}

/// Audits a tree set; `film` adds coverage, `text_only` allows questions
/// outside the film. Deterministic for a given `seed`.
pub fn audit(
    trees: &[Tree],
    film: Option<&FilmLayout>,
    text_only: bool,
    thresholds: Thresholds,
    seed: u64,
) -> Audit {
    let all = items(trees);
    let mut scores = Vec::new();
    let per_reader: Vec<(readers::Reader, Vec<f64>)> = readers()
        .into_iter()
        .map(|r| {
            // Learned readers train on every choice question, whatever its format.
            let c = credits(&r, &all);
            (r, c)
        })
        .collect();
    for format in [Format::Single, Format::Multi] {
        let subset: Vec<Item> = all.iter().filter(|i| i.format == format).cloned().collect();
        if subset.is_empty() {
            continue;
        }
        let chance = subset.iter().map(Item::chance).sum::<f64>() / subset.len() as f64;
        for (reader, credit) in &per_reader {
            let credit: Vec<f64> = all
                .iter()
                .zip(credit)
                .filter(|(i, _)| i.format == format)
                .map(|(_, c)| *c)
                .collect();
            let accuracy = credit.iter().sum::<f64>() / credit.len() as f64;
            // The resampled means are summed in another order than the
            // accuracy, so a reader at exactly its value everywhere (ties of
            // 1/3) could show an interval a rounding error off its accuracy.
            let [lo, hi] = bootstrap(&subset, &credit, seed);
            let ci = [lo.min(accuracy), hi.max(accuracy)];
            scores.push(ReaderScore {
                reader: reader.name.to_owned(),
                description: reader.description.to_owned(),
                sees: match reader.sees {
                    Sees::Options => "options",
                    Sees::Question => "question",
                    Sees::Context => "context",
                }
                .to_owned(),
                format: format.as_str().to_owned(),
                questions: credit.len(),
                accuracy,
                ci,
                chance,
                excess: accuracy - chance,
            });
        }
    }
    let mut strongest = Vec::new();
    for format in ["single", "multi"] {
        if let Some(best) = scores
            .iter()
            .filter(|s| s.format == format)
            .max_by(|a, b| a.excess.total_cmp(&b.excess))
        {
            strongest.push(best.clone());
        }
    }
    let mut questions = BTreeMap::new();
    for node in trees.iter().flat_map(|t| &t.nodes) {
        *questions
            .entry(node.format.as_str().to_owned())
            .or_default() += 1;
    }
    let mut out = Audit {
        trees: trees.len(),
        questions,
        readers: scores,
        strongest,
        balance: checks::balance(trees),
        giveaways: checks::giveaways(trees),
        redundancy: checks::redundancy(trees),
        asks: checks::asks(trees),
        coverage: film.map(|f| checks::coverage(trees, f)),
        ended: film.and_then(|f| checks::ended(trees, f)),
        text_only,
        thresholds,
        failures: Vec::new(),
    };
    out.failures = failures(&out);
    out
}

/// 95% interval of the mean credit, resampling whole trees.
fn bootstrap(items: &[Item], credit: &[f64], seed: u64) -> [f64; 2] {
    let mut by_tree: BTreeMap<usize, (f64, usize)> = BTreeMap::new();
    for (item, c) in items.iter().zip(credit) {
        let e = by_tree.entry(item.tree).or_default();
        e.0 += c;
        e.1 += 1;
    }
    let groups: Vec<(f64, usize)> = by_tree.into_values().collect();
    if groups.is_empty() {
        return [0.0, 0.0];
    }
    let mut rng = SplitMix64::new(seed ^ 0x5eed_a0d1);
    let mut means = Vec::with_capacity(RESAMPLES);
    for _ in 0..RESAMPLES {
        let (mut sum, mut n) = (0.0, 0usize);
        for _ in 0..groups.len() {
            let g = groups[rng.below(groups.len())];
            sum += g.0;
            n += g.1;
        }
        means.push(sum / n.max(1) as f64);
    }
    means.sort_by(f64::total_cmp);
    let at = |q: f64| means[((q * (RESAMPLES - 1) as f64).round() as usize).min(RESAMPLES - 1)];
    [at(0.025), at(0.975)]
}

/// Every broken threshold, in words.
fn failures(a: &Audit) -> Vec<String> {
    let t = &a.thresholds;
    let mut out = Vec::new();
    for s in &a.readers {
        if s.excess > t.max_excess + 1e-9 {
            out.push(format!(
                "shortcut reader {} answers {} choice at {:.2}, chance {:.2} (+{:.2} > +{:.2})",
                s.reader, s.format, s.accuracy, s.chance, s.excess, t.max_excess
            ));
        }
    }
    if let Some(share) = a.balance.multi_top_count_share {
        if share > t.max_count_share + 1e-9 {
            out.push(format!(
                "{:.0}% of multiple-choice questions have the same number of correct options (> {:.0}%)",
                share * 100.0,
                t.max_count_share * 100.0
            ));
        }
    }
    let count = |what: &str, n: usize, max: usize, out: &mut Vec<String>| {
        if n > max {
            out.push(format!("{n} {what} (most allowed: {max})"));
        }
    };
    count("give-aways", a.giveaways.len(), t.max_giveaways, &mut out);
    count(
        "duplicate or near-duplicate questions",
        a.redundancy.duplicates.len() + a.redundancy.near_duplicates.len(),
        t.max_duplicates,
        &mut out,
    );
    count(
        "follow-ups that re-ask their parent",
        a.redundancy.reasks.len(),
        t.max_reasks,
        &mut out,
    );
    if let Some(c) = &a.coverage {
        if c.scenes > 0 && c.scene_span + 1e-9 < t.min_scene_span {
            out.push(format!(
                "anchors span {:.0}% of the scenes (least allowed: {:.0}%)",
                c.scene_span * 100.0,
                t.min_scene_span * 100.0
            ));
        }
        if !a.text_only {
            count(
                "questions about blocks the film does not contain",
                c.outside_film.len(),
                t.max_outside_film,
                &mut out,
            );
        }
    }
    out
}

#[cfg(test)]
mod tests;
