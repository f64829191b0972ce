//! The audit's checks beyond shortcut readers: balance of letters, counts and
//! lengths; give-aways; duplicates and follow-ups that re-ask their parent;
//! coverage of the film.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::trees::facts::{content_words, overlap};
use crate::trees::schema::{Format, Node, QuestionKind, QuestionType, Tree};

use super::features::{excerpt_lines, jaccard, quoted_words, LineKind, MIND_VERBS};
use super::{FilmLayout, Finding};

/// How the answers are spread.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Balance {
    /// Single choice: how often the gold is at each letter.
    pub single_gold_letters: BTreeMap<String, usize>,
    /// Multiple choice: questions by number of correct options.
    pub multi_correct_counts: BTreeMap<usize, usize>,
    /// Multiple choice: the share of the most common correct count.
    pub multi_top_count_share: Option<f64>,
    /// Mean characters of correct options.
    pub gold_chars: f64,
    /// Mean characters of wrong options.
    pub distractor_chars: f64,
}

/// Balance of a tree set's choice questions.
pub fn balance(trees: &[Tree]) -> Balance {
    let mut out = Balance::default();
    let (mut gold, mut wrong) = (Vec::new(), Vec::new());
    for node in trees.iter().flat_map(|t| &t.nodes) {
        match node.format {
            Format::Single => {
                for o in node.options.iter().filter(|o| o.correct) {
                    *out.single_gold_letters.entry(o.label.clone()).or_default() += 1;
                }
            }
            Format::Multi => {
                let n = node.options.iter().filter(|o| o.correct).count();
                *out.multi_correct_counts.entry(n).or_default() += 1;
            }
            Format::Open => {}
        }
        for o in &node.options {
            let len = o.text.chars().count() as f64;
            if o.correct {
                gold.push(len);
            } else {
                wrong.push(len);
            }
        }
    }
    let multi: usize = out.multi_correct_counts.values().sum();
    out.multi_top_count_share = out
        .multi_correct_counts
        .values()
        .max()
        .filter(|_| multi > 0)
        .map(|&m| m as f64 / multi as f64);
    let mean = |v: &[f64]| {
        if v.is_empty() {
            0.0
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    };
    out.gold_chars = mean(&gold);
    out.distractor_chars = mean(&wrong);
    out
}

/// The gold answers of a node as text: correct options, or the reference.
fn golds(node: &Node) -> Vec<&str> {
    if node.format == Format::Open {
        node.reference.as_deref().into_iter().collect()
    } else {
        node.options
            .iter()
            .filter(|o| o.correct)
            .map(|o| o.text.as_str())
            .collect()
    }
}

/// Whether a node asks for a state of mind itself (a basic ToM question in
/// a mind category: "what does she believe"), not for its causes or effects.
fn asks_about_mind(node: &Node) -> bool {
    node.question_type == QuestionType::BasicTom
        && (matches!(node.category.level1.as_str(), "Theory of Mind" | "Emotion")
            || node.category.level2.contains("Deception"))
}

/// Give-aways: a question whose text holds its own answer, and a context
/// narration sentence that states the gold state of mind outright.
pub fn giveaways(trees: &[Tree]) -> Vec<Finding> {
    let mut out = Vec::new();
    for tree in trees {
        for node in &tree.nodes {
            for (kind, why) in node_giveaways(node) {
                out.push(Finding::new(tree, node, kind, why));
            }
        }
    }
    out
}

/// The give-aways of one question, each as (kind, why). Generation runs the
/// same check on every question it writes, so what the audit flags is never
/// written.
pub fn node_giveaways(node: &Node) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let question = content_words(&node.question);
    let wrongs: Vec<_> = node
        .options
        .iter()
        .filter(|o| !o.correct)
        .map(|o| content_words(&o.text))
        .collect();
    for gold in golds(node) {
        let words = content_words(gold);
        if words.len() < 2 {
            continue;
        }
        let in_question = overlap(&words, &question);
        if in_question >= 0.8 && stands_out(in_question, &wrongs, &question) {
            out.push((
                "answer-in-question",
                format!(
                    "the question holds {:.0}% of the answer's words: {gold:?}",
                    in_question * 100.0
                ),
            ));
        }
    }
    if !asks_about_mind(node) {
        return out;
    }
    for line in excerpt_lines(&node.context.excerpt) {
        if line.kind != LineKind::Action {
            continue;
        }
        for sentence in sentences(&line.text) {
            let lower = sentence.to_lowercase();
            let has_mind_verb = lower
                .split(|c: char| !c.is_alphanumeric())
                .any(|w| MIND_VERBS.contains(&w));
            if !has_mind_verb {
                continue;
            }
            let said = content_words(sentence);
            for gold in golds(node) {
                let words = content_words(gold);
                let share = overlap(&words, &said);
                if words.len() >= 2 && share >= 0.8 && stands_out(share, &wrongs, &said) {
                    out.push((
                        "context-states-answer",
                        format!("the excerpt says it outright: {sentence:?} (answer {gold:?})"),
                    ));
                }
            }
        }
    }
    out
}

/// Whether the gold's share of words in `text` clearly beats every
/// distractor's (else the text names them all and tells nothing).
fn stands_out(gold: f64, wrongs: &[BTreeSet<String>], text: &BTreeSet<String>) -> bool {
    wrongs.iter().all(|w| overlap(w, text) + 0.3 < gold)
}

/// The sentences of a line.
fn sentences(text: &str) -> Vec<&str> {
    text.split_inclusive(['.', '!', '?'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect()
}

/// Duplicates and re-asks.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Redundancy {
    /// Questions in the set.
    pub questions: usize,
    /// Distinct question texts.
    pub distinct_texts: usize,
    /// A question and its answers asked again in the same film.
    pub duplicates: Vec<Finding>,
    /// Nearly the same question and answers again in the same film.
    pub near_duplicates: Vec<Finding>,
    /// A follow-up whose answer is what its parent asked about (the parent's
    /// link asked again, in reverse).
    pub reasks: Vec<Finding>,
}

fn normal(text: &str) -> String {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// What the redundancy check compares of a question: its content words and
/// its answers' normal forms (options and reference).
#[derive(Debug, Clone, PartialEq)]
pub struct Wording {
    words: BTreeSet<String>,
    answers: BTreeSet<String>,
}

impl Wording {
    /// The wording of a node.
    pub fn of(node: &Node) -> Wording {
        let mut answers: BTreeSet<String> = node.options.iter().map(|o| normal(&o.text)).collect();
        answers.extend(node.reference.as_deref().map(normal));
        Wording {
            words: content_words(&node.question),
            answers,
        }
    }

    /// Whether two questions are nearly the same: at least three quarters of
    /// their content words and of their answers shared (Jaccard).
    pub fn nearly(&self, other: &Wording) -> bool {
        jaccard(&self.answers, &other.answers) >= 0.75 && jaccard(&self.words, &other.words) >= 0.75
    }
}

/// A question with its wording.
type Asked<'t> = (&'t Tree, &'t Node, Wording);

/// Duplicate questions within a film, and follow-ups that re-ask their parent.
pub fn redundancy(trees: &[Tree]) -> Redundancy {
    let mut out = Redundancy::default();
    let mut texts = BTreeSet::new();
    let mut seen: BTreeMap<(String, String, Vec<String>), String> = BTreeMap::new();
    let mut by_film: BTreeMap<&str, Vec<Asked<'_>>> = BTreeMap::new();
    for tree in trees {
        for node in &tree.nodes {
            out.questions += 1;
            texts.insert(normal(&node.question));
            let mut answers: Vec<String> = node.options.iter().map(|o| normal(&o.text)).collect();
            answers.extend(node.reference.as_deref().map(normal));
            answers.sort();
            let key = (tree.film.clone(), normal(&node.question), answers.clone());
            let here = format!("{}/{}", tree.id, node.id);
            if let Some(first) = seen.get(&key) {
                out.duplicates.push(Finding::new(
                    tree,
                    node,
                    "duplicate",
                    format!("same question and answers as {first}"),
                ));
                continue;
            }
            seen.insert(key, here);
            by_film
                .entry(&tree.film)
                .or_default()
                .push((tree, node, Wording::of(node)));
        }
        for node in &tree.nodes {
            if let Some(parent) = node.parent.as_deref().and_then(|p| tree.node(p)) {
                if let Some(why) = reasks(parent, node) {
                    out.reasks.push(Finding::new(tree, node, "reask", why));
                }
            }
        }
    }
    out.distinct_texts = texts.len();
    for list in by_film.values() {
        for (i, a) in list.iter().enumerate() {
            for b in &list[..i] {
                if a.2.nearly(&b.2) {
                    out.near_duplicates.push(Finding::new(
                        a.0,
                        a.1,
                        "near-duplicate",
                        format!("nearly the same as {}/{}", b.0.id, b.1.id),
                    ));
                    break;
                }
            }
        }
    }
    out
}

/// Why `child` re-asks its parent's link, if it does: it is derived from the
/// same causal edge, or its answer is what the parent asked about while it
/// asks about the parent's answer. Generation refuses such a follow-up.
pub fn reasks(parent: &Node, child: &Node) -> Option<String> {
    let edges = |n: &Node| -> BTreeSet<String> {
        n.derived_from
            .iter()
            .filter(|id| id.contains("->"))
            .cloned()
            .collect()
    };
    let (pe, ce) = (edges(parent), edges(child));
    if let Some(shared) = pe.intersection(&ce).next() {
        return Some(format!("asks the parent's link {shared} again"));
    }
    let asked = quoted_words(&parent.question);
    let premise = content_words(child.premise.as_deref().unwrap_or(""));
    let child_q = content_words(&child.question);
    if premise.len() < 2 || overlap(&premise, &child_q) < 0.8 {
        return None;
    }
    golds(child)
        .into_iter()
        .find(|g| {
            let w = content_words(g);
            w.len() >= 2 && overlap(&w, &asked) >= 0.8
        })
        .map(|g| format!("its answer {g:?} is what the parent asked about"))
}

/// How much of the film the tree set covers.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Coverage {
    /// Scenes in the film's script.
    pub scenes: usize,
    /// Distinct scenes the trees' anchors sit in.
    pub anchor_scenes: usize,
    /// First to last anchored scene, as a share of the scenes.
    pub scene_span: f64,
    /// First to last anchored moment, as a share of the film's running time
    /// (`None` without timed blocks).
    pub time_span: Option<f64>,
    /// Questions whose context shows a block the film does not contain
    /// (a cut scene, no timed line).
    pub outside_film: Vec<Finding>,
}

/// The scenes a tree is anchored in: those of the root's blocks holding the
/// line its question quotes (all the root's blocks when none is found).
fn anchor_blocks(root: &Node) -> Vec<usize> {
    let lines = excerpt_lines(&root.context.excerpt);
    let quoted = quoted_words(&root.question);
    let best = lines
        .iter()
        .map(|l| overlap(&quoted, &l.words))
        .fold(0.0, f64::max);
    let parts: BTreeSet<usize> = lines
        .iter()
        .filter(|l| best >= 0.5 && overlap(&quoted, &l.words) == best)
        .map(|l| l.part)
        .collect();
    let blocks = &root.context.blocks;
    let picked: Vec<usize> = parts
        .iter()
        .filter_map(|&p| blocks.get(p).copied())
        .collect();
    if picked.is_empty() {
        blocks.clone()
    } else {
        picked
    }
}

/// Coverage of the film by the trees' anchors.
pub fn coverage(trees: &[Tree], film: &FilmLayout) -> Coverage {
    let mut out = Coverage {
        scenes: film.scenes,
        ..Coverage::default()
    };
    let mut scenes = BTreeSet::new();
    let mut times = Vec::new();
    for tree in trees {
        let Some(root) = tree.root() else { continue };
        for b in anchor_blocks(root) {
            if let Some(&s) = film.block_scene.get(&b) {
                scenes.insert(s);
            }
            if let Some(Some((start, end))) = film.block_time.get(&b) {
                times.push(*start);
                times.push(*end);
            }
        }
        for node in &tree.nodes {
            let missing: Vec<usize> = node
                .context
                .blocks
                .iter()
                .copied()
                .filter(|b| !matches!(film.block_time.get(b), Some(Some(_))))
                .collect();
            if !missing.is_empty() {
                out.outside_film.push(Finding::new(
                    tree,
                    node,
                    "outside-film",
                    format!("context blocks {missing:?} have no timed line in the film"),
                ));
            }
        }
    }
    out.anchor_scenes = scenes.len();
    if let (Some(first), Some(last)) = (scenes.first(), scenes.last()) {
        out.scene_span = (last - first + 1) as f64 / film.scenes.max(1) as f64;
    }
    let (lo, hi) = film.running_time();
    if let (Some(a), Some(b), Some(lo), Some(hi)) = (times.iter().min(), times.iter().max(), lo, hi)
    {
        if hi > lo {
            out.time_span = Some((b - a) as f64 / (hi - lo) as f64);
        }
    }
    out
}

/// Categories whose questions ask what was said, by whom, or in what order
/// (speaker identity, participation, line order): trivia, not minds.
const TRIVIA: &[&str] = &[
    "Social Relations / Interaction Recognition",
    "Communication / Speech Act Understanding",
    "Behavior Understanding / Temporal Reasoning",
];

/// What the questions ask: counts per category and type, and how many test
/// a mental state or a cause.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Asks {
    /// Questions.
    pub questions: usize,
    /// Questions per `level1 / level2` category.
    pub by_category: BTreeMap<String, usize>,
    /// Questions per question type.
    pub by_type: BTreeMap<String, usize>,
    /// Questions per question kind (`tags.kind`: belief, false belief,
    /// knowledge access …); questions without a kind are not counted.
    pub by_kind: BTreeMap<String, usize>,
    /// The largest one kind's share of the questions that have a kind.
    pub largest_kind_share: f64,
    /// Questions in a category of [`TRIVIA`].
    pub trivia: usize,
    /// Questions about a mental state or a cause (every other category).
    pub minds_or_causes: usize,
    /// The largest one category's share of the questions.
    pub largest_share: f64,
    /// The most used opening (a question's first four words, the template
    /// it was written from) and how many questions use it: a category can
    /// hide one template asked again and again.
    pub top_opening: Option<(String, usize)>,
}

/// What the trees ask, by category and type.
pub fn asks(trees: &[Tree]) -> Asks {
    let mut a = Asks::default();
    for node in trees.iter().flat_map(|t| &t.nodes) {
        a.questions += 1;
        let category = format!("{} / {}", node.category.level1, node.category.level2);
        // The kind says it where there is one; else the category.
        let trivia = match node.tags.kind {
            Some(kind) => kind.is_trivia(),
            None => TRIVIA.contains(&category.as_str()),
        };
        if let Some(kind) = node.tags.kind {
            *a.by_kind.entry(kind.as_str().to_owned()).or_default() += 1;
        }
        if trivia {
            a.trivia += 1;
        } else {
            a.minds_or_causes += 1;
        }
        *a.by_category.entry(category).or_default() += 1;
        *a.by_type
            .entry(node.question_type.as_str().to_owned())
            .or_default() += 1;
    }
    let mut openings: BTreeMap<String, usize> = BTreeMap::new();
    for node in trees.iter().flat_map(|t| &t.nodes) {
        let opening: Vec<&str> = node.question.split_whitespace().take(4).collect();
        *openings.entry(opening.join(" ")).or_default() += 1;
    }
    a.top_opening = openings
        .into_iter()
        .max_by(|x, y| x.1.cmp(&y.1).then(y.0.cmp(&x.0)));
    let largest = a.by_category.values().copied().max().unwrap_or(0);
    a.largest_share = largest as f64 / a.questions.max(1) as f64;
    let kinded: usize = a.by_kind.values().sum();
    let largest_kind = a.by_kind.values().copied().max().unwrap_or(0);
    a.largest_kind_share = largest_kind as f64 / kinded.max(1) as f64;
    a
}

/// Golds resting on ended states. A question's first graph element is what
/// it is about (the moment "When Mara decides …", the event asked after);
/// the question is set in that element's scene, and its other mental states
/// (its golds) must still hold there. A question about the change itself
/// (`tags.kind` `belief_change`: what a character no longer holds) rests on
/// an ended state by design, so it is counted apart.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Ended {
    /// Where the graph came from.
    pub source: String,
    /// Mental states in the graph, and how many have a known end.
    pub states: usize,
    /// States with a known end.
    pub states_with_end: usize,
    /// Questions placed in a scene (what they are about has one in the
    /// graph).
    pub placed: usize,
    /// Questions about the change (they rest on an ended state by design).
    pub about_the_change: usize,
    /// The other questions that rest on a state ended before their scene.
    pub on_ended: Vec<Finding>,
}

impl Ended {
    /// The share of placed questions, not about the change, whose gold rests
    /// on an ended state.
    pub fn share(&self) -> f64 {
        let asked = self.placed.saturating_sub(self.about_the_change);
        self.on_ended.len() as f64 / asked.max(1) as f64
    }
}

/// Which questions rest on an ended state (`None` without the graph's ends).
pub fn ended(trees: &[Tree], film: &FilmLayout) -> Option<Ended> {
    let ends = film.state_ends.as_ref()?;
    let mut out = Ended {
        source: ends.source.clone(),
        states: ends.states,
        states_with_end: ends.ends.len(),
        ..Ended::default()
    };
    for tree in trees {
        for node in &tree.nodes {
            let Some((moment, golds)) = node.derived_from.split_first() else {
                continue;
            };
            let Some(&scene) = ends.scenes.get(moment) else {
                continue;
            };
            out.placed += 1;
            if node.tags.kind == Some(QuestionKind::BeliefChange) {
                out.about_the_change += 1;
                continue;
            }
            let ended: Vec<String> = golds
                .iter()
                .filter_map(|id| ends.ends.get(id).map(|u| (id, *u)))
                .filter(|(_, until)| *until < scene)
                .map(|(id, until)| {
                    format!(
                        "{id} ends in scene {}; the question is set in scene {} ({moment})",
                        until + 1,
                        scene + 1
                    )
                })
                .collect();
            if !ended.is_empty() {
                out.on_ended
                    .push(Finding::new(tree, node, "ended-state", ended.join("; ")));
            }
        }
    }
    Some(out)
}
