//! Run metrics (docs/evaluation.md), computed from a run's trees and recorded answers.
//!
//! Per tree, with phase-1 path length L, correctness c_d of the path's answer at depth d
//! and the tree's maximum depth D: RDS = L; weighted RDS = (1/D) Σ_{d≤L} d·c_d; CRS =
//! mean correctness (and mean score) of the tree's phase-2 answers. Corpus RDS, weighted
//! RDS and CRS are means over trees (CRS over trees that have phase-2 answers). CCF at
//! depth d is the accuracy and mean score of all phase-1 answers at depth d. Breakdowns
//! (format, type, depth, category, film, group level) pool the answers of both phases.
//!
//! Confidence intervals are 95% percentile intervals of a seeded cluster bootstrap over
//! trees: each resample draws as many trees as the run has, with replacement, and
//! recomputes every figure from the drawn trees' answers (answers within a tree are not
//! independent, so trees are the unit). Percentiles interpolate linearly between order
//! statistics (numpy's default). The same inputs and seed give the same intervals.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::parse::Parsed;
use super::protocol::{display_order, Display, LoadedRun};
use super::score::NO_JUDGE_LABEL;
use crate::trees::provenance::Provenance;
use crate::trees::schema::{Format, Node, QuestionType};
use crate::util::rng::SplitMix64;

/// Bootstrap settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BootstrapSettings {
    /// Resamples (0: point estimates only, intervals collapse to the estimate).
    pub resamples: usize,
    /// Seed of the resampling.
    pub seed: u64,
}

impl Default for BootstrapSettings {
    fn default() -> Self {
        BootstrapSettings {
            resamples: 1000,
            seed: 0,
        }
    }
}

/// A figure with its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Estimate {
    /// The point estimate.
    pub mean: f64,
    /// Lower bound.
    pub lo: f64,
    /// Upper bound.
    pub hi: f64,
}

/// One row of a run's figures: a group of answers (or trees) and two figures about it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Figure {
    /// What the rows of this section group by (`all`, `phase`, `format`, `type`, `depth`,
    /// `top_category` (level 1), `category` (level 1 / level 2), `film`,
    /// `belief_goal`, `tag` (`name: value` of an imported benchmark's other
    /// tags), `group_level`, `tier` (individual L1–L3, collective L4–L7),
    /// `transition`, `ccf`, `tree`).
    pub section: &'static str,
    /// The group (`single`, `2`, `Theory of Mind / Belief Tracking`, `RDS`, …).
    pub key: String,
    /// Answers in the group (trees for section `tree`).
    pub n: usize,
    /// Name of the first figure (`accuracy`, `RDS`, `CRS`).
    pub first_name: &'static str,
    /// Accuracy (or RDS / CRS accuracy for section `tree`).
    pub first: Estimate,
    /// Name of the second figure (`score`, `weighted_RDS`, `CRS_score`).
    pub second_name: &'static str,
    /// Mean score (or weighted RDS / CRS score).
    pub second: Estimate,
}

/// Parent/child pairs of answered nodes by the correctness of each.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Dependency {
    /// Parent right, child right.
    pub fully_correct: usize,
    /// Parent right, child wrong.
    pub local_error: usize,
    /// Parent wrong, child right.
    pub apparent_success: usize,
    /// Parent wrong, child wrong.
    pub full_error: usize,
}

/// How the trees of one of a run's files were made, as a report states it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TreesMade {
    /// The trees file, as the run recorded it.
    pub file: String,
    /// Its metadata line, when it has one (and still holds the run's trees).
    pub provenance: Option<Provenance>,
    /// The provenance in one line, or why it is unknown.
    pub summary: String,
    /// The validity audit of the file's trees (`None` when it cannot be
    /// read), so a score is read against the strongest shortcut.
    pub audit: Option<crate::trees::audit::Audit>,
}

/// Everything a report shows about one run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunMetrics {
    /// The run id.
    pub run: String,
    /// The subject's name.
    pub subject: String,
    /// How open answers were scored (`judge: NAME` or the fallback label).
    pub judge: String,
    /// Keyframes withheld.
    pub text_only: bool,
    /// Answers to questions that carried at least one keyframe (0 when
    /// `text_only`): the truth behind "keyframes shown".
    pub keyframes_shown: usize,
    /// The films of the run's trees, sorted.
    pub films: Vec<String>,
    /// How the run's trees were made, per trees file (filled from the files'
    /// metadata lines by the report's caller; empty when not looked up).
    pub made: Vec<TreesMade>,
    /// Trees in the run.
    pub trees: usize,
    /// Trees with at least one answer.
    pub trees_answered: usize,
    /// Questions in the run's trees.
    pub questions: usize,
    /// Answers recorded.
    pub answers: usize,
    /// Answers the parser could not read (scored wrong).
    pub unparseable: usize,
    /// Bootstrap resamples behind the intervals.
    pub resamples: usize,
    /// The figures, by section then key.
    pub figures: Vec<Figure>,
    /// Dependency analysis over parent/child pairs.
    pub dependency: Dependency,
    /// Wrong choice answers by the reason of the distractor they chose (`none`: a wrong
    /// answer that chose no distractor; `unparseable`).
    pub distractors: Vec<(String, usize)>,
    /// For a `limp:MODEL` subject, each answer's per-option likelihoods and
    /// posteriors as its reply recorded them (empty for other subjects).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub limp: Vec<super::limp::LimpAnswer>,
}

const SECTIONS: [&str; 15] = [
    "all",
    "phase",
    "format",
    "type",
    "depth",
    "top_category",
    "category",
    "film",
    "belief_goal",
    "tag",
    "group_level",
    "tier",
    "transition",
    "ccf",
    "tree",
];

fn section_rank(section: &str) -> usize {
    SECTIONS
        .iter()
        .position(|s| *s == section)
        .unwrap_or(SECTIONS.len())
}

/// Orders keys numerically where both are numbers, else as text.
fn key_order(a: &str, b: &str) -> std::cmp::Ordering {
    match (a.parse::<u64>(), b.parse::<u64>()) {
        (Ok(x), Ok(y)) => x.cmp(&y),
        _ => a.cmp(b),
    }
}

/// A group of answers (or trees), by borrowed parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum CellKey<'a> {
    All,
    Phase(u8),
    Format(Format),
    Type(QuestionType),
    Depth(u32),
    TopCategory(&'a str),
    Category(&'a str, &'a str),
    Film(&'a str),
    Group(u8),
    /// GroupToM's tiers: individual (L1–L3, `false`) or collective (L4–L7, `true`).
    Tier(bool),
    BeliefGoal(&'a str),
    /// Another tag an imported benchmark gives: (name, value).
    Tag(&'a str, &'a str),
    Ccf(u32),
    Rds,
    Crs,
}

impl CellKey<'_> {
    /// Section and key as reports show them.
    fn name(self) -> (&'static str, String) {
        match self {
            CellKey::All => ("all", "all".into()),
            CellKey::Phase(p) => ("phase", p.to_string()),
            CellKey::Format(f) => ("format", f.as_str().into()),
            CellKey::Type(t) => ("type", t.as_str().into()),
            CellKey::Depth(d) => ("depth", d.to_string()),
            CellKey::TopCategory(l1) => ("top_category", l1.to_string()),
            CellKey::Category(l1, l2) => ("category", format!("{l1} / {l2}")),
            CellKey::Film(f) => ("film", f.to_string()),
            CellKey::Group(g) => ("group_level", format!("L{g}")),
            CellKey::Tier(false) => ("tier", TIER_INDIVIDUAL.into()),
            CellKey::Tier(true) => ("tier", TIER_COLLECTIVE.into()),
            CellKey::BeliefGoal(label) => ("belief_goal", label.to_string()),
            CellKey::Tag(name, value) => ("tag", format!("{name}: {value}")),
            CellKey::Ccf(d) => ("ccf", d.to_string()),
            CellKey::Rds => ("tree", "RDS".into()),
            CellKey::Crs => ("tree", "CRS".into()),
        }
    }
}

/// The Fx hash (rustc's): the report's maps are keyed by short ids and small enums,
/// where SipHash's flooding resistance buys nothing and costs a tenth of the run time.
#[derive(Default, Clone, Copy)]
struct FxHasher(u64);

impl std::hash::Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
    }
    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }
    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }
    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

type FxMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<FxHasher>>;

struct Contribution {
    cell: u32,
    n: u32,
    first: f64,
    second: f64,
}

/// Computes a run's metrics.
pub fn compute<'a>(loaded: &'a LoadedRun, bootstrap: BootstrapSettings) -> RunMetrics {
    let run = &loaded.run;
    // Cells are keyed by borrowed parts while counting (no allocation per answer) and
    // named once at the end.
    let mut cells: Vec<CellKey<'a>> = Vec::new();
    let mut cell_index: FxMap<CellKey<'a>, u32> = FxMap::default();
    let mut cell = |key: CellKey<'a>| -> u32 {
        *cell_index.entry(key).or_insert_with(|| {
            cells.push(key);
            (cells.len() - 1) as u32
        })
    };

    let mut answers_by_tree: FxMap<&str, Vec<&crate::store::EvalAnswer>> = FxMap::default();
    for answer in &loaded.answers {
        answers_by_tree
            .entry(answer.tree_id.as_str())
            .or_default()
            .push(answer);
    }

    let mut contributions: Vec<Contribution> = Vec::new();
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let mut dependency = Dependency::default();
    let mut distractors: BTreeMap<String, usize> = BTreeMap::new();
    let mut unparseable = 0;
    let mut answers_total = 0;
    let mut keyframes_shown = 0;
    let mut trees_answered = 0;
    let unparseable_json = serde_json::to_string(&Parsed::Unparseable).unwrap_or_default();

    for tree in &loaded.trees {
        let Some(answers) = answers_by_tree.get(tree.id.as_str()) else {
            continue;
        };
        trees_answered += 1;
        let nodes: FxMap<&str, &Node> = tree.nodes.iter().map(|n| (n.id.as_str(), n)).collect();
        let start = contributions.len();
        // Per-tree sums per cell, merged so each tree adds one contribution per cell.
        let mut sums: Vec<(u32, u32, f64, f64)> = Vec::new();
        let mut add = |c: u32, correct: bool, score: f64| {
            let at = match sums.iter().position(|e| e.0 == c) {
                Some(at) => at,
                None => {
                    sums.push((c, 0, 0.0, 0.0));
                    sums.len() - 1
                }
            };
            let e = &mut sums[at];
            e.1 += 1;
            e.2 += f64::from(u8::from(correct));
            e.3 += score;
        };
        let mut path_len = 0u32;
        let mut weighted = 0.0;
        let mut crs = (0u32, 0.0, 0.0);
        let correct_of: FxMap<&str, bool> = answers
            .iter()
            .map(|a| (a.node_id.as_str(), a.correct))
            .collect();
        for answer in answers {
            let Some(node) = nodes.get(answer.node_id.as_str()) else {
                continue;
            };
            answers_total += 1;
            if !run.text_only && !node.context.keyframes.is_empty() {
                keyframes_shown += 1;
            }
            let (c, s) = (answer.correct, answer.score);
            add(cell(CellKey::All), c, s);
            add(cell(CellKey::Phase(answer.phase)), c, s);
            add(cell(CellKey::Format(node.format)), c, s);
            add(cell(CellKey::Type(node.question_type)), c, s);
            add(cell(CellKey::Depth(node.depth)), c, s);
            add(cell(CellKey::TopCategory(&node.category.level1)), c, s);
            add(
                cell(CellKey::Category(
                    &node.category.level1,
                    &node.category.level2,
                )),
                c,
                s,
            );
            add(cell(CellKey::Film(&tree.film)), c, s);
            if let Some(level) = node.tags.group_level {
                add(cell(CellKey::Group(level)), c, s);
                add(cell(CellKey::Tier(level >= 4)), c, s);
            }
            if let Some(label) = &node.tags.belief_goal {
                add(cell(CellKey::BeliefGoal(label)), c, s);
            }
            for (name, value) in &node.tags.other {
                add(cell(CellKey::Tag(name, value)), c, s);
            }
            if answer.phase == 1 {
                add(cell(CellKey::Ccf(node.depth)), c, s);
                path_len += 1;
                if c {
                    weighted += f64::from(node.depth);
                }
            } else {
                crs.0 += 1;
                crs.1 += f64::from(u8::from(c));
                crs.2 += s;
            }
            if let Some(parent_correct) = node
                .parent
                .as_deref()
                .and_then(|p| correct_of.get(p).copied())
            {
                match (parent_correct, c) {
                    (true, true) => dependency.fully_correct += 1,
                    (true, false) => dependency.local_error += 1,
                    (false, true) => dependency.apparent_success += 1,
                    (false, false) => dependency.full_error += 1,
                }
            }
            if answer.parsed == unparseable_json {
                unparseable += 1;
                if node.format != Format::Open {
                    *distractors.entry("unparseable".into()).or_default() += 1;
                }
            } else if !c && node.format != Format::Open {
                let chosen = match serde_json::from_str::<Parsed>(&answer.parsed) {
                    Ok(Parsed::Choice(labels)) => labels,
                    _ => Vec::new(),
                };
                let mut any = false;
                for option in node
                    .options
                    .iter()
                    .filter(|o| !o.correct && chosen.contains(&o.label))
                {
                    any = true;
                    let reason = option.reason.map_or("unspecified", |r| r.as_str());
                    *distractors.entry(reason.into()).or_default() += 1;
                }
                if !any {
                    *distractors.entry("none".into()).or_default() += 1;
                }
            }
        }
        let max_depth = tree.max_depth().max(1);
        sums.push((
            cell(CellKey::Rds),
            1,
            f64::from(path_len),
            weighted / f64::from(max_depth),
        ));
        if crs.0 > 0 {
            sums.push((
                cell(CellKey::Crs),
                1,
                crs.1 / f64::from(crs.0),
                crs.2 / f64::from(crs.0),
            ));
        }
        contributions.extend(
            sums.into_iter()
                .map(|(cell, n, first, second)| Contribution {
                    cell,
                    n,
                    first,
                    second,
                }),
        );
        spans.push((start, contributions.len()));
    }

    let n_cells = cells.len();
    let mut total = vec![(0u64, 0.0f64, 0.0f64); n_cells];
    for c in &contributions {
        let t = &mut total[c.cell as usize];
        t.0 += u64::from(c.n);
        t.1 += c.first;
        t.2 += c.second;
    }
    // The tier cells (individual L1–L3, collective L4–L7), for the transition
    // gap; none when either tier has fewer than SMALL_GROUP answers, so one
    // answer at L4 cannot decide it.
    let tier = |collective: bool| cells.iter().position(|k| *k == CellKey::Tier(collective));
    let tiers: Option<(usize, usize)> = match (tier(false), tier(true)) {
        (Some(a), Some(b))
            if total[a].0 >= SMALL_GROUP as u64 && total[b].0 >= SMALL_GROUP as u64 =>
        {
            Some((a, b))
        }
        _ => None,
    };
    let mut gap_samples: (Vec<f64>, Vec<f64>) = (Vec::new(), Vec::new());
    let mut samples_first: Vec<Vec<f64>> = vec![Vec::with_capacity(bootstrap.resamples); n_cells];
    let mut samples_second: Vec<Vec<f64>> = vec![Vec::with_capacity(bootstrap.resamples); n_cells];
    if !spans.is_empty() {
        let mut rng = SplitMix64::new(bootstrap.seed ^ 0x6d6f_7669_6567_7261);
        let mut acc = vec![(0u64, 0.0f64, 0.0f64); n_cells];
        let mut weights = vec![0u32; spans.len()];
        for _ in 0..bootstrap.resamples {
            acc.iter_mut().for_each(|a| *a = (0, 0.0, 0.0));
            weights.iter_mut().for_each(|w| *w = 0);
            // Draw the resample as a count per tree, then add each drawn tree's sums
            // once, times its count: a third of the trees are not drawn at all.
            for _ in 0..spans.len() {
                weights[rng.below(spans.len())] += 1;
            }
            for (&(start, end), &w) in spans.iter().zip(&weights) {
                if w == 0 {
                    continue;
                }
                let wf = f64::from(w);
                for c in &contributions[start..end] {
                    let a = &mut acc[c.cell as usize];
                    a.0 += u64::from(c.n * w);
                    a.1 += c.first * wf;
                    a.2 += c.second * wf;
                }
            }
            for (i, a) in acc.iter().enumerate() {
                if a.0 > 0 {
                    samples_first[i].push(a.1 / a.0 as f64);
                    samples_second[i].push(a.2 / a.0 as f64);
                }
            }
            if let Some((first, second)) = transition_gap(tiers, &acc) {
                gap_samples.0.push(first);
                gap_samples.1.push(second);
            }
        }
    }

    let mut figures: Vec<Figure> = cells
        .iter()
        .enumerate()
        .map(|(i, key)| {
            let (section, key) = key.name();
            let (n, first, second) = total[i];
            let mean_first = first / n.max(1) as f64;
            let mean_second = second / n.max(1) as f64;
            let (first_name, second_name) = match (section, key.as_str()) {
                ("tree", "RDS") => ("RDS", "weighted_RDS"),
                ("tree", _) => ("CRS", "CRS_score"),
                _ => ("accuracy", "score"),
            };
            Figure {
                section,
                key,
                n: n as usize,
                first_name,
                first: interval(mean_first, &mut samples_first[i]),
                second_name,
                second: interval(mean_second, &mut samples_second[i]),
            }
        })
        .collect();
    if let Some((first, second)) = transition_gap(tiers, &total) {
        let n: u64 = tiers.map_or(0, |(a, b)| total[a].0 + total[b].0);
        figures.push(Figure {
            section: "transition",
            key: TRANSITION_KEY.into(),
            n: n as usize,
            first_name: "accuracy_gap",
            first: interval(first, &mut gap_samples.0),
            second_name: "score_gap",
            second: interval(second, &mut gap_samples.1),
        });
    }
    figures.sort_by(|a, b| {
        section_rank(a.section)
            .cmp(&section_rank(b.section))
            .then_with(|| key_order(&a.key, &b.key))
    });

    RunMetrics {
        run: run.id.clone(),
        subject: run.subject.clone(),
        judge: run
            .judge
            .as_ref()
            .map_or_else(|| NO_JUDGE_LABEL.to_string(), |j| format!("judge: {j}")),
        text_only: run.text_only,
        keyframes_shown,
        films: {
            let mut films: Vec<String> = loaded.trees.iter().map(|t| t.film.clone()).collect();
            films.sort();
            films.dedup();
            films
        },
        made: Vec::new(),
        trees: loaded.trees.len(),
        trees_answered,
        questions: loaded.trees.iter().map(|t| t.nodes.len()).sum(),
        answers: answers_total,
        unparseable,
        resamples: bootstrap.resamples,
        figures,
        dependency,
        distractors: distractors.into_iter().collect(),
        limp: super::limp::answers_of(loaded),
    }
}

/// Groups with fewer answers than this are small: the report marks them in
/// its tables and keeps them out of its charts, and the transition gap
/// leaves such group levels out.
pub const SMALL_GROUP: usize = 10;

/// Key of the individual tier (GroupToM L1–L3, section `tier`).
pub const TIER_INDIVIDUAL: &str = "individual (L1–L3)";
/// Key of the collective tier (GroupToM L4–L7, section `tier`).
pub const TIER_COLLECTIVE: &str = "collective (L4–L7)";

/// Key of the transition-gap figure (section `transition`).
pub const TRANSITION_KEY: &str = "L1-L3 minus L4-L7";

/// The individual-vs-collective transition gap from per-cell sums `(n,
/// correct, score)`: accuracy and score of the individual tier (L1–L3) minus
/// those of the collective tier (L4–L7), each pooled over its answers.
fn transition_gap(tiers: Option<(usize, usize)>, sums: &[(u64, f64, f64)]) -> Option<(f64, f64)> {
    let (individual, collective) = tiers?;
    let mean = |i: usize| {
        let (n, c, s) = sums[i];
        (n > 0).then(|| (c / n as f64, s / n as f64))
    };
    let (a, b) = (mean(individual)?, mean(collective)?);
    Some((a.0 - b.0, a.1 - b.1))
}

/// The estimate with the 2.5th and 97.5th percentiles of its resamples.
fn interval(mean: f64, samples: &mut [f64]) -> Estimate {
    if samples.is_empty() {
        return Estimate {
            mean,
            lo: mean,
            hi: mean,
        };
    }
    samples.sort_by(f64::total_cmp);
    Estimate {
        mean,
        lo: percentile(samples, 0.025),
        hi: percentile(samples, 0.975),
    }
}

/// Linear interpolation between order statistics of sorted `values`.
pub fn percentile(values: &[f64], q: f64) -> f64 {
    let pos = q * (values.len() - 1) as f64;
    let below = pos.floor() as usize;
    let above = (below + 1).min(values.len() - 1);
    let frac = pos - below as f64;
    values[below] + (values[above] - values[below]) * frac
}

impl RunMetrics {
    /// Whether keyframes were shown, as the run's answers say: withheld
    /// (text-only), none (no asked question carried one: a film without
    /// keyframes), or shown, with how many answers' questions carried them.
    pub fn keyframes_label(&self) -> String {
        if self.text_only {
            "withheld (text-only)".into()
        } else if self.keyframes_shown == 0 {
            "none (no asked question carried a keyframe)".into()
        } else {
            format!(
                "shown with {} of {} answers",
                self.keyframes_shown, self.answers
            )
        }
    }

    /// The figure of `section`/`key`, if the run has it.
    pub fn figure(&self, section: &str, key: &str) -> Option<&Figure> {
        self.figures
            .iter()
            .find(|f| f.section == section && f.key == key)
    }
}

/// One displayed variant of a `--rotate` run: the display and the run's data.
pub type Variant<'a> = (Display, &'a LoadedRun);

/// The option-rotation figures of the variants of one `--rotate` run (choice answers
/// only; both phases): section `rotation` has each variant's accuracy and score
/// (`rot0`…`rot3`, `shuffle`, in the order given) and their unweighted `mean`; section
/// `position` has, per displayed position (`A`, `B`, …), the share of all chosen
/// labels shown there (`chosen_share`) against the share of all correct options shown
/// there (`gold_share`), and key `bias`: the total variation distance between the two
/// distributions (`TVD`, ½ Σ |chosen − gold|) and the largest single gap (`max_gap`).
/// Point estimates only: the intervals equal the estimate.
pub fn rotation_figures(variants: &[Variant<'_>]) -> Vec<Figure> {
    let point = |v: f64| Estimate {
        mean: v,
        lo: v,
        hi: v,
    };
    let mut figures = Vec::new();
    let mut chosen: Vec<f64> = Vec::new();
    let mut gold: Vec<f64> = Vec::new();
    let (mut sum_acc, mut sum_score, mut total_n) = (0.0, 0.0, 0usize);
    for (display, loaded) in variants {
        let nodes: HashMap<(&str, &str), &Node> = loaded
            .trees
            .iter()
            .flat_map(|t| {
                t.nodes
                    .iter()
                    .map(move |n| ((t.id.as_str(), n.id.as_str()), n))
            })
            .collect();
        let (mut n, mut correct, mut score) = (0usize, 0.0, 0.0);
        for answer in &loaded.answers {
            let Some(node) = nodes.get(&(answer.tree_id.as_str(), answer.node_id.as_str())) else {
                continue;
            };
            if node.format == Format::Open {
                continue;
            }
            n += 1;
            correct += f64::from(u8::from(answer.correct));
            score += answer.score;
            let order = display_order(*display, &answer.tree_id, &node.id, node.options.len());
            if chosen.len() < order.len() {
                chosen.resize(order.len(), 0.0);
                gold.resize(order.len(), 0.0);
            }
            let labels = match serde_json::from_str::<Parsed>(&answer.parsed) {
                Ok(Parsed::Choice(labels)) => labels,
                _ => Vec::new(),
            };
            for (j, &i) in order.iter().enumerate() {
                let option = &node.options[i];
                if labels.contains(&option.label) {
                    chosen[j] += 1.0;
                }
                if option.correct {
                    gold[j] += 1.0;
                }
            }
        }
        let name = match display {
            Display::Original => "original".to_string(),
            Display::Rotate(k) => format!("rot{k}"),
            Display::Shuffle(_) => "shuffle".to_string(),
        };
        let (acc, sc) = (correct / n.max(1) as f64, score / n.max(1) as f64);
        sum_acc += acc;
        sum_score += sc;
        total_n += n;
        figures.push(Figure {
            section: "rotation",
            key: name,
            n,
            first_name: "accuracy",
            first: point(acc),
            second_name: "score",
            second: point(sc),
        });
    }
    let k = variants.len().max(1) as f64;
    figures.push(Figure {
        section: "rotation",
        key: "mean".into(),
        n: total_n,
        first_name: "accuracy",
        first: point(sum_acc / k),
        second_name: "score",
        second: point(sum_score / k),
    });
    let (chosen_total, gold_total): (f64, f64) = (chosen.iter().sum(), gold.iter().sum());
    let (mut tvd, mut max_gap) = (0.0f64, 0.0f64);
    for j in 0..chosen.len() {
        let c = chosen[j] / chosen_total.max(1.0);
        let g = gold[j] / gold_total.max(1.0);
        tvd += (c - g).abs() / 2.0;
        max_gap = max_gap.max((c - g).abs());
        figures.push(Figure {
            section: "position",
            key: position_label(j),
            n: chosen[j] as usize,
            first_name: "chosen_share",
            first: point(c),
            second_name: "gold_share",
            second: point(g),
        });
    }
    figures.push(Figure {
        section: "position",
        key: "bias".into(),
        n: chosen_total as usize,
        first_name: "TVD",
        first: point(tvd),
        second_name: "max_gap",
        second: point(max_gap),
    });
    figures
}

/// `A`, `B`, … for display positions 0, 1, ….
fn position_label(j: usize) -> String {
    if j < 26 {
        char::from(b'A' + j as u8).to_string()
    } else {
        format!("#{}", j + 1)
    }
}
