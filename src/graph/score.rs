//! A graph scored against a gold annotation (docs/graph-format.md, "Polarity, explicitness, and scoring against a gold
//! annotations"): precision, recall and F1 of its mental states, its
//! higher-order links and its causal links, gold chains recovered, and its
//! errors by type.
//!
//! A gold state matches a graph state with the same holder, the same
//! attitude family, the same polarity and truth, a scene within ±1 of the
//! scenes it holds in, and similar content. A graph state counts as right
//! when some gold state matches it (its most similar one is its match), a
//! gold state as recalled when some graph state matches it. A
//! causal link matches a graph causal edge whose cause and effect match the
//! gold's the same way (text and scene), in the same direction.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::embed::Embedder;
use crate::util::metrics::{f1, share};

use super::gold::{Gold, GoldState};
use super::schema::{Attitude, EdgeKind, NodeKind};
use super::Graph;

#[path = "score_similarity.rs"]
mod similarity;
/// A text's content words, lightly stemmed, auxiliaries and negations left
/// out: what `graph score` compares (the ends pass reads contents the same way).
pub(crate) use similarity::stems as content_stems;
use similarity::{dice, dot, stems, Sims};

/// How content is compared.
pub enum Similarity<'a> {
    /// Dice overlap of content words (light stemming): the offline measure.
    Lexical,
    /// Cosine of sentence embeddings (all-MiniLM-L6-v2 when installed).
    Embedded(&'a dyn Embedder),
    /// The higher of the lexical Dice and the cosine less [`COSINE_SHIFT`]:
    /// a pair either measure finds similar at its own calibrated threshold
    /// (0.25 Dice, 0.60 cosine) is similar at 0.25.
    Either(&'a dyn Embedder),
}

/// What the cosine is lowered by to sit on the lexical scale in
/// [`Similarity::Either`]: the gap between the two calibrated thresholds.
pub const COSINE_SHIFT: f64 = 0.35;

impl Similarity<'_> {
    /// The measure's name, as the output states it.
    pub fn name(&self) -> String {
        match self {
            Similarity::Lexical => "lexical (Dice of content words)".to_owned(),
            Similarity::Embedded(e) => format!("cosine of {}", e.name()),
            Similarity::Either(e) => format!(
                "lexical Dice or cosine of {} − {COSINE_SHIFT}, the higher",
                e.name()
            ),
        }
    }

    /// The similarity of each `left[i]` to `right[i]`.
    pub fn pairwise(
        &self,
        left: &[&str],
        right: &[&str],
    ) -> Result<Vec<f64>, crate::embed::EmbedError> {
        let lexical = || -> Vec<f64> {
            left.iter()
                .zip(right)
                .map(|(a, b)| dice(&stems(a), &stems(b)))
                .collect()
        };
        let cosine = |e: &dyn Embedder| -> Result<Vec<f64>, crate::embed::EmbedError> {
            let a = e.embed_batch(left)?;
            let b = e.embed_batch(right)?;
            Ok(a.iter().zip(&b).map(|(x, y)| dot(x, y)).collect())
        };
        Ok(match self {
            Similarity::Lexical => lexical(),
            Similarity::Embedded(e) => cosine(*e)?,
            Similarity::Either(e) => lexical()
                .into_iter()
                .zip(cosine(*e)?)
                .map(|(l, c)| l.max(c - COSINE_SHIFT))
                .collect(),
        })
    }

    /// The default threshold at or above which two contents are similar:
    /// what `graph score --calibrate` recommends on the sample film's gold
    /// (the best F1 over same-state and near-miss pairs among thresholds at
    /// least 0.85 precise; docs/graph-format.md has the table).
    pub fn default_threshold(&self) -> f64 {
        match self {
            Similarity::Lexical | Similarity::Either(_) => 0.25,
            Similarity::Embedded(_) => 0.6,
        }
    }
}

/// Settings of a scoring.
#[derive(Debug, Clone, Copy)]
pub struct ScoreOptions {
    /// Scenes a graph item may be off by.
    pub scene_window: usize,
    /// Content similarity needed for a match.
    pub threshold: f64,
}

/// Matched and total counts on each side.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Prf {
    /// Graph items matched to a gold item.
    pub matched_graph: usize,
    /// Graph items.
    pub graph: usize,
    /// Gold items matched by a graph item.
    pub matched_gold: usize,
    /// Gold items.
    pub gold: usize,
}

impl Prf {
    /// Matched share of the graph's items (1 when it has none).
    pub fn precision(&self) -> f64 {
        share(self.matched_graph, self.graph)
    }

    /// Matched share of the gold items (1 when there are none).
    pub fn recall(&self) -> f64 {
        share(self.matched_gold, self.gold)
    }

    /// Harmonic mean of precision and recall.
    pub fn f1(&self) -> f64 {
        f1(self.precision(), self.recall())
    }
}

/// Why a graph item matched no gold item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// A gold state matches but for its polarity (`negated`).
    Polarity,
    /// A gold belief matches but for its truth (a false belief or not).
    Truth,
    /// A gold state matches but for its holder.
    Holder,
    /// A gold state matches but for its attitude family.
    Attitude,
    /// A gold state matches but for its scene.
    Scene,
    /// A gold causal link matches, the other way round.
    Direction,
    /// Nothing in the gold supports it.
    Unsupported,
}

/// One graph item that matched nothing, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Miss {
    /// The error.
    pub kind: ErrorKind,
    /// The graph node or edge id.
    pub graph: String,
    /// The gold item it nearly matched.
    pub gold: Option<String>,
    /// The graph item in words.
    pub text: String,
}

/// How well a graph knows when states end: over the gold states with a
/// `until_scene`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Ends {
    /// Gold states that end within the film.
    pub gold: usize,
    /// Of those, recalled by some graph state.
    pub recalled: usize,
    /// Of those, recalled by a graph state whose end scene is the gold's
    /// (within the scene window).
    pub right_end: usize,
}

/// A graph's score against a gold annotation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GraphScore {
    /// The film.
    pub film: String,
    /// How content was compared.
    pub similarity: String,
    /// The similarity needed for a match.
    pub threshold: f64,
    /// Mental states.
    pub states: Prf,
    /// Mental states by attitude family (the gold's family for recall, the
    /// graph's for precision).
    pub by_family: BTreeMap<String, Prf>,
    /// Recall of the gold states the script states outright.
    pub explicit: Prf,
    /// Recall of the gold states a reader infers.
    pub implicit: Prf,
    /// Higher-order links: a state about another state.
    pub higher_order: Prf,
    /// Causal links (direction included).
    pub causal: Prf,
    /// Gold chains every link of which the graph has.
    pub chains_recovered: usize,
    /// Gold chains.
    pub chains: usize,
    /// The gold states that end (a `until_scene`) and how many of them the
    /// graph recalled with the right end scene.
    pub ends: Ends,
    /// The gold false beliefs, how many the graph recalled, and how many of
    /// those it marked false itself (`right_end` here: the truth right).
    pub false_beliefs: Ends,
    /// Each graph mental state that matched, with the gold state it matched.
    pub matched_states: Vec<(String, String)>,
    /// Graph items matched to nothing, by error.
    pub errors: BTreeMap<ErrorKind, usize>,
    /// Every graph item matched to nothing.
    pub misses: Vec<Miss>,
    /// Gold items no graph item matched (ids).
    pub missed_gold: Vec<String>,
}

impl GraphScore {
    /// The errors by type in words (`polarity 1, unsupported 3`), or `none`.
    pub fn error_summary(&self) -> String {
        if self.errors.is_empty() {
            return "none".to_owned();
        }
        self.errors
            .iter()
            .map(|(k, n)| format!("{k:?} {n}").to_lowercase())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The attitude families of docs/graph-format.md ([`Attitude::family`]).
pub fn family(a: Attitude) -> &'static str {
    a.family()
}

/// A mental state on either side, reduced to what matching compares.
#[derive(Debug, Clone)]
struct State {
    id: String,
    holder: BTreeSet<String>,
    family: &'static str,
    /// Whether the attitude is one a negation raises out of its content
    /// (belief, suspicion, desire, intention): "doesn't think X" is "thinks
    /// not-X". Knowledge is not: not knowing X is not knowing not-X.
    neg_raising: bool,
    negated: bool,
    /// Whether the content itself is negated (an odd count of `not`, `n't`,
    /// `never`, `cannot`).
    content_negated: bool,
    /// A belief's truth as its side says it: `Some(false)` a false belief,
    /// `Some(true)` a true one, `None` not said (a graph that cannot tell;
    /// a gold belief the annotator left unmarked, which is not a false
    /// one).
    truth: Option<bool>,
    scene: Option<usize>,
    /// The last scene the state holds in (a gold `until_scene`).
    until: Option<usize>,
    text: String,
}

/// The names a character goes by, uppercased, with their first words.
fn names<'a>(all: impl IntoIterator<Item = &'a String>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for n in all {
        let n = n
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_uppercase();
        if let Some(first) = n.split(' ').next() {
            out.insert(first.to_owned());
        }
        out.insert(n);
    }
    out
}

fn graph_states(g: &Graph) -> Vec<State> {
    g.nodes
        .iter()
        .filter(|n| n.kind == NodeKind::MentalState)
        .map(|n| {
            let holder = n
                .holder
                .as_deref()
                .and_then(|h| g.node(h))
                .map(|c| names(std::iter::once(&c.name).chain(&c.aliases)))
                .unwrap_or_default();
            let attitude = n.attitude.unwrap_or(Attitude::Belief);
            let text = n.content.clone().unwrap_or_else(|| n.name.clone());
            State {
                id: n.id.clone(),
                holder,
                family: family(attitude),
                neg_raising: neg_raising(attitude),
                negated: n.negated,
                content_negated: negated_text(&text),
                truth: n.truth.filter(|_| attitude == Attitude::Belief),
                scene: n.scene.map(|s| s + 1),
                until: n.until_scene.map(|s| s + 1),
                text,
            }
        })
        .collect()
}

fn gold_states(gold: &Gold) -> Vec<State> {
    gold.mental_states
        .iter()
        .map(|s: &GoldState| {
            let character = gold.characters.iter().find(|c| {
                c.name.eq_ignore_ascii_case(&s.holder)
                    || c.aliases.iter().any(|a| a.eq_ignore_ascii_case(&s.holder))
            });
            let holder = match character {
                Some(c) => names(std::iter::once(&c.name).chain(&c.aliases)),
                None => names([&s.holder]),
            };
            State {
                id: s.id.clone(),
                holder,
                family: family(s.attitude),
                neg_raising: neg_raising(s.attitude),
                negated: s.negated,
                content_negated: negated_text(&s.content),
                truth: s.truth.filter(|_| s.attitude == Attitude::Belief),
                scene: Some(s.scene),
                until: s.until_scene,
                text: s.content.clone(),
            }
        })
        .collect()
}

/// Whether a negation of the attitude is a claim about the negated content
/// (neg-raising): "I don't think he'll come" is "I think he won't come".
fn neg_raising(a: Attitude) -> bool {
    matches!(
        a,
        Attitude::Belief
            | Attitude::Suspicion
            | Attitude::Desire
            | Attitude::SocialGoal
            | Attitude::Intention
    )
}

/// Whether a content negates what it says: an odd count of negations
/// (`not`, `n't`, `never`, `cannot`, `no longer`), so "he won't not come"
/// says he comes.
pub(crate) fn negated_text(text: &str) -> bool {
    let text = text.to_lowercase().replace('’', "'");
    let count = text
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| matches!(*w, "not" | "never" | "cannot") || w.ends_with("n't"))
        .count();
    count % 2 == 1
}

/// Whether two states make the same claim for or against their content.
/// The same flag is the same polarity (a negation inside one content and not
/// the other is a matter of content). A flag on one side only is the same
/// claim when the attitude raises negation (belief, suspicion, desire,
/// intention) and the other side's content carries the negation instead:
/// "doesn't think you'd read them" is "thinks you would not read them", and
/// "doesn't think you don't mind" is "thinks you mind". Knowledge is read
/// strictly: not knowing X is neither knowing not-X nor knowing X.
fn same_polarity(g: &State, d: &State) -> bool {
    if g.negated == d.negated {
        true
    } else {
        g.neg_raising && d.neg_raising && g.content_negated != d.content_negated
    }
}

/// Whether a graph state's truth agrees with a gold state's. A graph that
/// does not say (`None`) claims nothing about truth, so it agrees with
/// either: "Mara believes the key is in the harbour" is right of a false
/// belief too, only less informative, and [`GraphScore::false_beliefs`]
/// counts how often the graph knew. A graph that says false is right only
/// of a gold false belief; one that says true, of any other.
fn same_truth(g: &State, d: &State) -> bool {
    let gold_false = d.truth == Some(false);
    match g.truth {
        None => true,
        Some(false) => gold_false,
        Some(true) => !gold_false,
    }
}

fn near(a: Option<usize>, b: Option<usize>, window: usize) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a.abs_diff(b) <= window,
        _ => true,
    }
}

/// Whether a graph state's scene falls within a gold state's scenes (from
/// `scene` to `until_scene`), give or take the window.
fn within(g: &State, d: &State, window: usize) -> bool {
    match (g.scene, d.scene) {
        (Some(at), Some(from)) => {
            let to = d.until.unwrap_or(from).max(from);
            at + window >= from && at <= to + window
        }
        _ => true,
    }
}

/// Which field keeps a graph state from matching a gold one (`None`: none,
/// they match), content and scene taken as given.
fn mismatch(g: &State, d: &State) -> Option<ErrorKind> {
    if g.holder.is_disjoint(&d.holder) {
        Some(ErrorKind::Holder)
    } else if g.family != d.family {
        Some(ErrorKind::Attitude)
    } else if !same_polarity(g, d) {
        Some(ErrorKind::Polarity)
    } else if !same_truth(g, d) {
        Some(ErrorKind::Truth)
    } else {
        None
    }
}

/// One-to-one matching of admissible pairs, most similar first: (graph
/// index, gold index) pairs.
fn greedy(mut pairs: Vec<(usize, usize, f64)>) -> Vec<(usize, usize)> {
    pairs.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.0.cmp(&b.0)).then(a.1.cmp(&b.1)));
    let (mut used_g, mut used_d) = (BTreeSet::new(), BTreeSet::new());
    let mut out = Vec::new();
    for (g, d, _) in pairs {
        if !used_g.contains(&g) && !used_d.contains(&d) {
            used_g.insert(g);
            used_d.insert(d);
            out.push((g, d));
        }
    }
    out
}

/// A causal link on either side: its two ends' texts and scenes.
struct Link {
    id: String,
    cause: (String, Option<usize>),
    effect: (String, Option<usize>),
}

fn graph_links(g: &Graph) -> Vec<Link> {
    // A state's end reads "<holder> <content>" (a gold end names who feels
    // it: "Mara is jealous…"), an event's its name.
    let end = |id: &str| {
        g.node(id).map_or((id.to_owned(), None), |n| {
            let text = match (&n.content, n.holder.as_deref().and_then(|h| g.node(h))) {
                (Some(c), Some(h)) => format!("{} {c}", h.name),
                (Some(c), None) => c.clone(),
                (None, _) => n.name.clone(),
            };
            (text, n.scene.map(|s| s + 1))
        })
    };
    g.edges
        .iter()
        .filter(|e| e.kind.claims_cause())
        .map(|e| Link {
            id: e.id.clone(),
            cause: end(&e.source),
            effect: end(&e.target),
        })
        .collect()
}

/// Scores `graph` against `gold`.
pub fn score(
    graph: &Graph,
    gold: &Gold,
    sim: &Similarity<'_>,
    opts: ScoreOptions,
) -> Result<GraphScore, crate::embed::EmbedError> {
    let window = opts.scene_window;
    let gs = graph_states(graph);
    let ds = gold_states(gold);
    let sims = Sims::new(
        sim,
        &gs.iter().map(|s| s.text.as_str()).collect::<Vec<_>>(),
        &ds.iter().map(|s| s.text.as_str()).collect::<Vec<_>>(),
    )?;
    let mut pairs = Vec::new();
    for (i, g) in gs.iter().enumerate() {
        for (j, d) in ds.iter().enumerate() {
            let s = sims.get(i, j);
            if s >= opts.threshold && within(g, d, window) && mismatch(g, d).is_none() {
                pairs.push((i, j, s));
            }
        }
    }
    // Each graph state is supported by its most similar admissible gold
    // state; a gold state is recalled when any graph state is. A state told
    // twice (in two scenes it holds in) is right twice, not once wrong.
    let mut gold_of: BTreeMap<usize, (usize, f64)> = BTreeMap::new();
    for &(i, j, s) in &pairs {
        let best = gold_of.entry(i).or_insert((j, s));
        if s > best.1 || (s == best.1 && j < best.0) {
            *best = (j, s);
        }
    }
    let gold_of: BTreeMap<usize, usize> = gold_of.into_iter().map(|(i, (j, _))| (i, j)).collect();
    let mut graph_of: BTreeMap<usize, usize> = BTreeMap::new();
    for (&i, &j) in &gold_of {
        graph_of.entry(j).or_insert(i);
    }

    let mut misses = Vec::new();
    for (i, g) in gs
        .iter()
        .enumerate()
        .filter(|(i, _)| !gold_of.contains_key(i))
    {
        // The nearest gold state in content that differs in one field.
        let near_miss = ds
            .iter()
            .enumerate()
            .filter(|(j, _)| sims.get(i, *j) >= opts.threshold)
            .map(|(j, d)| {
                // Off in exactly one respect: a field, or the scene.
                let kind = match (within(g, d, window), mismatch(g, d)) {
                    (true, field) => field,
                    (false, None) => Some(ErrorKind::Scene),
                    (false, Some(_)) => None,
                };
                (j, kind, sims.get(i, j))
            })
            .filter(|(_, kind, _)| kind.is_some())
            .max_by(|a, b| a.2.total_cmp(&b.2).then(b.0.cmp(&a.0)));
        let (kind, gold_id) = match near_miss {
            Some((j, Some(kind), _)) => (kind, Some(ds[j].id.clone())),
            _ => (ErrorKind::Unsupported, None),
        };
        misses.push(Miss {
            kind,
            graph: g.id.clone(),
            gold: gold_id,
            text: g.text.clone(),
        });
    }

    let states = Prf {
        matched_graph: gold_of.len(),
        graph: gs.len(),
        matched_gold: graph_of.len(),
        gold: ds.len(),
    };
    let mut by_family: BTreeMap<String, Prf> = BTreeMap::new();
    for (i, g) in gs.iter().enumerate() {
        let p = by_family.entry(g.family.to_owned()).or_default();
        p.graph += 1;
        p.matched_graph += usize::from(gold_of.contains_key(&i));
    }
    let (mut explicit, mut implicit) = (Prf::default(), Prf::default());
    for (j, (d, s)) in ds.iter().zip(&gold.mental_states).enumerate() {
        let hit = usize::from(graph_of.contains_key(&j));
        let p = by_family.entry(d.family.to_owned()).or_default();
        p.gold += 1;
        p.matched_gold += hit;
        let side = if s.explicit {
            &mut explicit
        } else {
            &mut implicit
        };
        side.gold += 1;
        side.matched_gold += hit;
    }

    // Higher-order: a graph `about` edge between two states, both matched,
    // whose gold states are linked the same way.
    let index_of: BTreeMap<&str, usize> = gs
        .iter()
        .enumerate()
        .map(|(i, s)| (s.id.as_str(), i))
        .collect();
    let gold_index: BTreeMap<&str, usize> = ds
        .iter()
        .enumerate()
        .map(|(j, s)| (s.id.as_str(), j))
        .collect();
    let about_edges: Vec<(usize, usize)> = graph
        .edges
        .iter()
        .filter(|e| e.kind == EdgeKind::About)
        .filter_map(|e| {
            Some((
                *index_of.get(e.source.as_str())?,
                *index_of.get(e.target.as_str())?,
            ))
        })
        .collect();
    let gold_about: BTreeSet<(usize, usize)> = gold
        .mental_states
        .iter()
        .filter_map(|s| {
            Some((
                gold_index[s.id.as_str()],
                *gold_index.get(s.about.as_deref()?)?,
            ))
        })
        .collect();
    // The graph's `about` edges that land on a gold `about` pair.
    let hits: Vec<(usize, usize)> = about_edges
        .iter()
        .filter_map(|(a, b)| Some((*gold_of.get(a)?, *gold_of.get(b)?)))
        .filter(|pair| gold_about.contains(pair))
        .collect();
    let higher_order = Prf {
        matched_graph: hits.len(),
        graph: about_edges.len(),
        matched_gold: hits.iter().collect::<BTreeSet<_>>().len(),
        gold: gold_about.len(),
    };

    // Causal links.
    let gl = graph_links(graph);
    let dl = &gold.causal_links;
    let mut texts: Vec<&str> = Vec::new();
    for l in &gl {
        texts.push(&l.cause.0);
        texts.push(&l.effect.0);
    }
    let mut gold_texts: Vec<&str> = Vec::new();
    for l in dl {
        gold_texts.push(&l.cause);
        gold_texts.push(&l.effect);
    }
    let link_sims = Sims::new(sim, &texts, &gold_texts)?;
    let end_fits = |i: usize, end: usize, j: usize, gold_end: usize| {
        let (scene, gold_scene) = (
            if end == 0 {
                gl[i].cause.1
            } else {
                gl[i].effect.1
            },
            if gold_end == 0 {
                dl[j].cause_scene
            } else {
                dl[j].effect_scene
            },
        );
        let s = link_sims.get(2 * i + end, 2 * j + gold_end);
        (s >= opts.threshold && near(scene, Some(gold_scene), window)).then_some(s)
    };
    let mut link_pairs = Vec::new();
    for i in 0..gl.len() {
        for j in 0..dl.len() {
            if let (Some(a), Some(b)) = (end_fits(i, 0, j, 0), end_fits(i, 1, j, 1)) {
                link_pairs.push((i, j, a.min(b)));
            }
        }
    }
    let link_matched = greedy(link_pairs);
    let link_gold: BTreeMap<usize, usize> = link_matched.iter().copied().collect();
    let gold_linked: BTreeSet<usize> = link_matched.iter().map(|p| p.1).collect();
    for (i, l) in gl
        .iter()
        .enumerate()
        .filter(|(i, _)| !link_gold.contains_key(i))
    {
        let reversed = (0..dl.len())
            .find(|&j| end_fits(i, 0, j, 1).is_some() && end_fits(i, 1, j, 0).is_some());
        misses.push(Miss {
            kind: if reversed.is_some() {
                ErrorKind::Direction
            } else {
                ErrorKind::Unsupported
            },
            graph: l.id.clone(),
            gold: reversed.map(|j| dl[j].id.clone()),
            text: format!("{} → {}", l.cause.0, l.effect.0),
        });
    }
    let causal = Prf {
        matched_graph: link_matched.len(),
        graph: gl.len(),
        matched_gold: link_matched.len(),
        gold: dl.len(),
    };
    let linked_ids: BTreeSet<&str> = gold_linked.iter().map(|&j| dl[j].id.as_str()).collect();
    let chains_recovered = gold
        .chains
        .iter()
        .filter(|c| c.iter().all(|id| linked_ids.contains(id.as_str())))
        .count();

    let mut ends = Ends::default();
    for (j, d) in ds.iter().enumerate() {
        let Some(until) = d.until else { continue };
        ends.gold += 1;
        let mut matching = gold_of
            .iter()
            .filter(|(_, &dj)| dj == j)
            .map(|(&i, _)| &gs[i]);
        let mut recalled = false;
        let mut right = false;
        for g in &mut matching {
            recalled = true;
            right |= g.until.is_some_and(|u| u.abs_diff(until) <= window);
        }
        ends.recalled += usize::from(recalled);
        ends.right_end += usize::from(right);
    }
    let mut false_beliefs = Ends::default();
    for (j, d) in ds.iter().enumerate() {
        if d.truth != Some(false) {
            continue;
        }
        false_beliefs.gold += 1;
        let matching: Vec<&State> = gold_of
            .iter()
            .filter(|(_, &dj)| dj == j)
            .map(|(&i, _)| &gs[i])
            .collect();
        false_beliefs.recalled += usize::from(!matching.is_empty());
        false_beliefs.right_end += usize::from(matching.iter().any(|g| g.truth == Some(false)));
    }
    let matched_states = gold_of
        .iter()
        .map(|(&i, &j)| (gs[i].id.clone(), ds[j].id.clone()))
        .collect();

    let mut errors = BTreeMap::new();
    for m in &misses {
        *errors.entry(m.kind).or_default() += 1;
    }
    let missed_gold = ds
        .iter()
        .enumerate()
        .filter(|(j, _)| !graph_of.contains_key(j))
        .map(|(_, d)| d.id.clone())
        .chain(
            dl.iter()
                .enumerate()
                .filter(|(j, _)| !gold_linked.contains(j))
                .map(|(_, l)| l.id.clone()),
        )
        .collect();
    Ok(GraphScore {
        film: gold.film.clone(),
        similarity: sim.name(),
        threshold: opts.threshold,
        states,
        by_family,
        explicit,
        implicit,
        higher_order,
        causal,
        chains_recovered,
        chains: gold.chains.len(),
        ends,
        false_beliefs,
        matched_states,
        errors,
        misses,
        missed_gold,
    })
}

#[cfg(test)]
#[path = "score_tests.rs"]
mod tests;
