//! Tree generation (`moviegraph trees generate`): anchors from the verified
//! graph, one tree per anchor, every option of a node leading to a follow-up
//! down to the configured depth.
//!
//! The tool decides *what* is asked and which answers are right or wrong
//! ([`Spec`], built and judged with [`Facts`]); a [`QuestionWriter`] only
//! words it. Every written question is checked by [`verify`] before it enters
//! a tree, whichever writer wrote it, so a model cannot smuggle in a gold
//! answer or a distractor the graph does not back.

use std::collections::BTreeSet;

use crate::graph::analysis::Analysis;
use crate::graph::{Attitude, EdgeKind, NodeKind};

use super::facts::{content_words, overlap, Ask, Facts, Verdict};
use super::schema::{
    Anchor, AnchorKind, AnswerOption, Category, DistractorReason, Format, Node, OpenBranches,
    QuestionType, Tags, Tree, Trigger,
};
use super::source::Source;
use super::validate::{find_graph_id, label_for};

/// One answer the tool offers: a graph node (or a character, or a made-up
/// motive), already judged against the graph.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The node it stands for (`None` for a made-up motive).
    pub node: Option<usize>,
    /// For a made-up motive: whose.
    pub character: Option<usize>,
    /// The default wording (a gloss, a name, or the motive).
    pub text: String,
    /// Gold or wrong, and why.
    pub verdict: Verdict,
}

/// A question to be worded: what is asked, in which format, and the judged answers.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    /// What is asked.
    pub ask: Ask,
    /// The answer format.
    pub format: Format,
    /// Gold candidates first, then distractors. For an open question: the
    /// reference, then the wrong answer its "incorrect" branch assumes.
    pub candidates: Vec<Candidate>,
}

impl Spec {
    /// The gold candidates.
    pub fn golds(&self) -> impl Iterator<Item = &Candidate> {
        self.candidates
            .iter()
            .filter(|c| c.verdict == Verdict::Gold)
    }
}

/// A worded question: its text and one option per candidate.
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    /// The question text.
    pub question: String,
    /// One per candidate, any order.
    pub options: Vec<WrittenOption>,
    /// For an open question, the reference answer.
    pub reference: Option<String>,
}

/// One worded option.
#[derive(Debug, Clone, PartialEq)]
pub struct WrittenOption {
    /// Index into [`Spec::candidates`].
    pub candidate: usize,
    /// The option text.
    pub text: String,
    /// What the writer claims: correct or not.
    pub correct: bool,
    /// What the writer claims: why it is wrong.
    pub reason: Option<DistractorReason>,
}

/// A writing backend failed or wrote something unusable.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The backend failed (transport, refusal).
    #[error("{0}")]
    Backend(String),
    /// The output does not check out against the graph.
    #[error("rejected: {0}")]
    Rejected(String),
}

/// Words a [`Spec`] as a question (the `rules` templates, or a model).
pub trait QuestionWriter {
    /// The backend's name, recorded in reports.
    fn name(&self) -> String;
    /// Words one question; `excerpt` is the context the subject will see.
    fn write(&self, facts: &Facts<'_>, spec: &Spec, excerpt: &str) -> Result<Written, WriteError>;
    /// The bound [`verify`] puts on the correct option's length relative to
    /// the mean distractor (`None`: no bound; the templates reuse the graph's
    /// glosses, whose lengths the distractor choice already balances).
    fn max_length_ratio(&self) -> Option<f64> {
        None
    }
}

/// A question a writer failed to word, or worded in a way that does not check out.
#[derive(Debug, Clone, PartialEq)]
pub struct Rejection {
    /// The tree it was for.
    pub tree: String,
    /// The writer's name.
    pub writer: String,
    /// The rejected question text (`None` when the writer returned nothing).
    pub question: Option<String>,
    /// Why: the writer's error or the failed [`verify`] check, verbatim.
    pub reason: String,
    /// Whether the fallback writer's question took its place (else the
    /// question, and the branch it would have opened, was dropped).
    pub replaced: bool,
}

impl std::fmt::Display for Rejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}: ", self.tree, self.writer)?;
        if let Some(q) = &self.question {
            write!(f, "{q:?}: ")?;
        }
        write!(
            f,
            "{} ({})",
            self.reason,
            if self.replaced { "replaced" } else { "dropped" }
        )
    }
}

/// The share of each format to aim for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mix {
    /// Open-ended share.
    pub open: f64,
    /// Single-choice share.
    pub single: f64,
    /// Multiple-choice share.
    pub multi: f64,
}

impl Default for Mix {
    /// The reference benchmark's mix: about 45% open, 38% single, 17% multiple.
    fn default() -> Mix {
        Mix {
            open: 0.45,
            single: 0.38,
            multi: 0.17,
        }
    }
}

/// Generation settings.
#[derive(Debug, Clone, PartialEq)]
pub struct GenerateOptions {
    /// Depth of every tree (the root is depth 1).
    pub depth: u32,
    /// Most trees per film.
    pub max_trees: usize,
    /// Format mix.
    pub mix: Mix,
    /// Seed of the option-order shuffle.
    pub seed: u64,
    /// Options of a single-choice question.
    pub single_options: usize,
    /// Options of a multiple-choice question.
    pub multi_options: usize,
}

impl Default for GenerateOptions {
    fn default() -> GenerateOptions {
        GenerateOptions {
            depth: 3,
            max_trees: 30,
            mix: Mix::default(),
            seed: 0,
            single_options: 3,
            multi_options: 4,
        }
    }
}

/// What generation produced.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Generated {
    /// The trees, in anchor order.
    pub trees: Vec<Tree>,
    /// Questions a writer produced that did not check out, with why.
    pub rejected: Vec<Rejection>,
    /// Options left without a follow-up above the last level (nothing askable).
    pub leaves_early: usize,
}

/// Generates the trees of one film.
pub fn generate(
    facts: &Facts<'_>,
    analysis: &Analysis,
    source: &Source,
    writer: &dyn QuestionWriter,
    opts: &GenerateOptions,
) -> Generated {
    generate_with(facts, analysis, source, writer, None, opts)
}

/// Generates the trees of one film; a question `writer` words in a way that
/// does not check out is worded by `fallback` instead (when given) and
/// recorded in [`Generated::rejected`] either way.
pub fn generate_with(
    facts: &Facts<'_>,
    analysis: &Analysis,
    source: &Source,
    writer: &dyn QuestionWriter,
    fallback: Option<&dyn QuestionWriter>,
    opts: &GenerateOptions,
) -> Generated {
    let mut gen = Builder {
        facts,
        source,
        writer,
        fallback,
        opts,
        counts: [0; 3],
        out: Generated::default(),
    };
    let film = facts.graph.film.clone();
    for (kind, elements) in anchors(facts, analysis) {
        if gen.out.trees.len() >= opts.max_trees {
            break;
        }
        let root = match kind {
            AnchorKind::CausalChain => Ask::Origin {
                end: *elements.last().expect("chains are non-empty"),
            },
            AnchorKind::MentalState => {
                let m = elements[0];
                if !facts.causes(m).is_empty() {
                    Ask::Cause { target: m }
                } else if !facts.effects(m).is_empty() {
                    Ask::Effect { source: m }
                } else {
                    Ask::Holder { state: m }
                }
            }
        };
        let id = format!("{film}/t{:02}", gen.out.trees.len() + 1);
        let saved = gen.counts;
        let mut nodes = Vec::new();
        let built = gen.node(&id, root, None, &mut Vec::new(), &mut nodes);
        if built.is_none() || nodes.iter().map(|n| n.depth).max() != Some(opts.depth) {
            gen.counts = saved;
            continue;
        }
        gen.out.trees.push(Tree {
            id,
            film: film.clone(),
            anchor: Anchor {
                kind,
                elements: elements.iter().map(|&i| facts.node(i).id.clone()).collect(),
            },
            nodes,
        });
    }
    gen.out
}

/// Anchors: long causal chains and pivotal mental states, alternated and
/// spread over the film (round-robin over scenes).
pub fn anchors(facts: &Facts<'_>, analysis: &Analysis) -> Vec<(AnchorKind, Vec<usize>)> {
    let mut chains: Vec<Vec<usize>> = Vec::new();
    let mut ends = BTreeSet::new();
    for chain in &analysis.chains {
        let nodes: Vec<usize> = chain
            .nodes
            .iter()
            .filter_map(|id| facts.index_of(id))
            .collect();
        if let Some(&end) = nodes.last() {
            if nodes.len() >= 3 && ends.insert(end) {
                chains.push(nodes);
            }
        }
    }
    for &m in &facts.moments {
        if facts.node(m).kind != NodeKind::Event || ends.contains(&m) {
            continue;
        }
        let chain = longest_back(facts, m);
        if chain.len() >= 3 {
            ends.insert(m);
            chains.push(chain);
        }
    }
    let mut states: Vec<usize> = Vec::new();
    for p in &analysis.pivotal {
        if let Some(i) = facts.index_of(&p.id) {
            states.push(i);
        }
    }
    let mut rest: Vec<usize> = facts
        .moments
        .iter()
        .copied()
        .filter(|&m| {
            facts.node(m).kind == NodeKind::MentalState
                && facts.holder(m).is_some()
                && !states.contains(&m)
        })
        .collect();
    rest.sort_by_key(|&m| {
        (
            facts.causes(m).is_empty() && facts.effects(m).is_empty(),
            facts.order(m),
        )
    });
    states.extend(rest);
    let scene = |i: usize| facts.node(i).scene.unwrap_or(usize::MAX);
    let chains = spread(chains, |c| scene(*c.last().expect("non-empty")));
    let states = spread(states.into_iter().map(|m| vec![m]).collect(), |c| {
        scene(c[0])
    });
    let mut out = Vec::new();
    let (mut a, mut b) = (chains.into_iter(), states.into_iter());
    loop {
        let x = a.next();
        let y = b.next();
        if x.is_none() && y.is_none() {
            break;
        }
        out.extend(x.map(|c| (AnchorKind::CausalChain, c)));
        out.extend(y.map(|c| (AnchorKind::MentalState, c)));
    }
    out
}

/// The longest causal path ending at `end` (ties: the earlier cause).
fn longest_back(facts: &Facts<'_>, end: usize) -> Vec<usize> {
    let mut path = vec![end];
    let mut seen = BTreeSet::from([end]);
    let mut v = end;
    while let Some(&p) = facts
        .causes(v)
        .iter()
        .filter(|p| !seen.contains(*p))
        .max_by_key(|&&p| (facts.ancestors(p).len(), std::cmp::Reverse(facts.order(p))))
    {
        seen.insert(p);
        path.push(p);
        v = p;
    }
    path.reverse();
    path
}

/// Reorders items round-robin over their scenes, keeping order within a scene.
fn spread<T>(items: Vec<T>, scene: impl Fn(&T) -> usize) -> Vec<T> {
    let mut by: std::collections::BTreeMap<usize, std::collections::VecDeque<T>> =
        Default::default();
    for item in items {
        by.entry(scene(&item)).or_default().push_back(item);
    }
    let mut out = Vec::new();
    while by.values().any(|q| !q.is_empty()) {
        for q in by.values_mut() {
            out.extend(q.pop_front());
        }
    }
    out
}

struct Builder<'a, 'g> {
    facts: &'a Facts<'g>,
    source: &'a Source,
    writer: &'a dyn QuestionWriter,
    fallback: Option<&'a dyn QuestionWriter>,
    opts: &'a GenerateOptions,
    /// Nodes written per format (open, single, multi), for the mix.
    counts: [usize; 3],
    out: Generated,
}

fn slot(f: Format) -> usize {
    match f {
        Format::Open => 0,
        Format::Single => 1,
        Format::Multi => 2,
    }
}

impl Builder<'_, '_> {
    /// Builds the node for `ask` and its subtree; returns its id.
    fn node(
        &mut self,
        tree: &str,
        ask: Ask,
        parent: Option<(&str, Trigger, String, Option<usize>)>,
        path: &mut Vec<Ask>,
        nodes: &mut Vec<Node>,
    ) -> Option<String> {
        let depth = path.len() as u32 + 1;
        let spec = self.spec(&ask)?;
        let premise_node = parent.as_ref().and_then(|p| p.3);
        let (mut context_nodes, derived) = evidence_of(self.facts, &spec, premise_node);
        // Every option's own evidence is shown too: an option the excerpt
        // quotes while the others are absent is given away by word overlap.
        for c in &spec.candidates {
            let shown = match c.node {
                Some(n) if self.facts.node(n).kind == NodeKind::Character => {
                    witness(self.facts, n, &focus_of(&spec.ask))
                }
                n => n,
            };
            if let Some(n) = shown.filter(|n| !context_nodes.contains(n)) {
                context_nodes.push(n);
            }
        }
        let context = {
            let (places, frames) = places(self.facts, &context_nodes);
            self.source.context(&places, &frames)
        };
        let written = match self.write_checked(self.writer, tree, &spec, &context.excerpt) {
            Some(w) => w,
            None => {
                let fallback = self.fallback?;
                let w = self.write_checked(fallback, tree, &spec, &context.excerpt)?;
                if let Some(r) = self.out.rejected.iter_mut().rev().find(|r| r.tree == tree) {
                    r.replaced = true;
                }
                w
            }
        };
        self.counts[slot(spec.format)] += 1;
        let id = match &parent {
            None => "n1".to_owned(),
            Some((pid, ..)) => {
                let siblings = nodes
                    .iter()
                    .filter(|n| n.parent.as_deref() == Some(*pid))
                    .count();
                format!("{pid}.{}", siblings + 1)
            }
        };
        let (category, question_type, tags) = describe(self.facts, &spec);
        let mut written_opts = written.options.clone();
        shuffle(&mut written_opts, seed_of(self.opts.seed, tree, &id));
        let (parent_id, trigger, premise) = match parent {
            Some((p, t, premise, _)) => (Some(p.to_owned()), Some(t), Some(premise)),
            None => (None, None, None),
        };
        let mut node = Node {
            id: id.clone(),
            depth,
            parent: parent_id,
            trigger,
            premise,
            question: written.question.clone(),
            format: spec.format,
            options: Vec::new(),
            reference: None,
            open_branches: OpenBranches::default(),
            category,
            question_type,
            tags,
            derived_from: derived,
            context,
        };
        if spec.format == Format::Open {
            node.reference = written.reference.clone();
        } else {
            node.options = written_opts
                .iter()
                .enumerate()
                .map(|(k, w)| AnswerOption {
                    label: label_for(k),
                    text: w.text.clone(),
                    correct: w.correct,
                    reason: w.reason,
                    child: None,
                })
                .collect();
        }
        let at = nodes.len();
        nodes.push(node);
        if depth >= self.opts.depth {
            return Some(id);
        }
        path.push(ask.clone());
        if spec.format == Format::Open {
            let gold = written.options.iter().find(|w| w.correct);
            let wrong = written.options.iter().find(|w| !w.correct);
            for (w, trigger) in [
                (gold, Trigger::OpenCorrect),
                (wrong, Trigger::OpenIncorrect),
            ] {
                let Some(w) = w else { continue };
                let child = self.follow_up(tree, &id, &spec, w, trigger.clone(), path, nodes);
                if child.is_none() {
                    self.out.leaves_early += 1;
                }
                match trigger {
                    Trigger::OpenCorrect => nodes[at].open_branches.correct = child,
                    _ => nodes[at].open_branches.incorrect = child,
                }
            }
        } else {
            for (k, w) in written_opts.iter().enumerate() {
                let trigger = Trigger::Option {
                    label: label_for(k),
                };
                let child = self.follow_up(tree, &id, &spec, w, trigger, path, nodes);
                if child.is_none() {
                    self.out.leaves_early += 1;
                }
                nodes[at].options[k].child = child;
            }
        }
        path.pop();
        Some(id)
    }

    /// One writer's wording of `spec`, if it checks out; else the rejection is recorded.
    fn write_checked(
        &mut self,
        writer: &dyn QuestionWriter,
        tree: &str,
        spec: &Spec,
        excerpt: &str,
    ) -> Option<Written> {
        let (question, reason) = match writer.write(self.facts, spec, excerpt) {
            Err(err) => (None, err.to_string()),
            Ok(w) => match verify(self.facts, spec, &w, writer.max_length_ratio()) {
                Ok(()) => return Some(w),
                Err(why) => (Some(w.question), format!("rejected: {why}")),
            },
        };
        self.out.rejected.push(Rejection {
            tree: tree.to_owned(),
            writer: writer.name(),
            question,
            reason,
            replaced: false,
        });
        None
    }

    #[allow(clippy::too_many_arguments)]
    fn follow_up(
        &mut self,
        tree: &str,
        parent: &str,
        spec: &Spec,
        option: &WrittenOption,
        trigger: Trigger,
        path: &mut Vec<Ask>,
        nodes: &mut Vec<Node>,
    ) -> Option<String> {
        let cand = &spec.candidates[option.candidate];
        for ask in follow_up_asks(self.facts, &spec.ask, cand) {
            if path.contains(&ask) || ask == spec.ask {
                continue;
            }
            let premise = option.text.clone();
            let from = (parent, trigger.clone(), premise, cand.node);
            if let Some(id) = self.node(tree, ask, Some(from), path, nodes) {
                return Some(id);
            }
        }
        None
    }

    /// The judged answers of `ask` in the format the mix needs most; `None`
    /// when the graph offers too little to ask it.
    fn spec(&self, ask: &Ask) -> Option<Spec> {
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

/// The moment that shows `character` on screen nearest the question's focus:
/// in the focus's scene, closest in story order (for a character option's
/// context, so every named option is seen in the excerpt).
fn witness(f: &Facts<'_>, character: usize, focus: &[usize]) -> Option<usize> {
    let at = *focus.first()?;
    let scene = f.node(at).scene?;
    f.moments
        .iter()
        .copied()
        .filter(|&m| f.node(m).scene == Some(scene) && f.people(m).contains(&character))
        .min_by_key(|&m| (f.order(m).abs_diff(f.order(at)), m))
}

/// The moments a question is about.
pub fn focus_of(ask: &Ask) -> Vec<usize> {
    match *ask {
        Ask::Origin { end } => vec![end],
        Ask::Cause { target } => vec![target],
        Ask::Effect { source } => vec![source],
        Ask::Participants { event } => vec![event],
        Ask::Holder { state } => vec![state],
        Ask::Order { a, b } => vec![a, b],
        Ask::MindBefore { moment, .. } => vec![moment],
    }
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

/// Follow-up questions for an option, most telling first: the justification
/// or consequence of what the option names, or, for a wrong option, the fact
/// that shows why it is wrong (which came first, who really holds it).
pub fn follow_up_asks(f: &Facts<'_>, ask: &Ask, cand: &Candidate) -> Vec<Ask> {
    let mut out = Vec::new();
    let moment = focus_of(ask)[0];
    match (cand.node, cand.character) {
        (None, Some(c)) => out.push(Ask::MindBefore {
            character: c,
            moment,
        }),
        (Some(x), _) if f.node(x).kind == NodeKind::Character => out.push(Ask::MindBefore {
            character: x,
            moment,
        }),
        (Some(x), _) => {
            if matches!(
                cand.verdict,
                Verdict::Wrong(DistractorReason::LaterEvent | DistractorReason::EffectForCause)
            ) && !matches!(ask, Ask::Order { .. })
            {
                out.push(Ask::Order { a: moment, b: x });
            }
            if let Verdict::Wrong(DistractorReason::OtherCharacter) = cand.verdict {
                if f.node(x).kind == NodeKind::MentalState {
                    out.push(Ask::Holder { state: x });
                }
            }
            let effect_first = matches!(ask, Ask::Effect { .. });
            if effect_first {
                out.push(Ask::Effect { source: x });
                out.push(Ask::Cause { target: x });
            } else {
                out.push(Ask::Cause { target: x });
                out.push(Ask::Effect { source: x });
            }
            match f.node(x).kind {
                NodeKind::MentalState => out.push(Ask::Holder { state: x }),
                _ => out.push(Ask::Participants { event: x }),
            }
            for &c in f.people(x) {
                out.push(Ask::MindBefore {
                    character: c,
                    moment: x,
                });
            }
        }
        (None, None) => {}
    }
    out
}

/// The moments whose evidence a question's context must hold, and the graph
/// ids it derives from (nodes, then the edges that connect them).
fn evidence_of(f: &Facts<'_>, spec: &Spec, premise: Option<usize>) -> (Vec<usize>, Vec<String>) {
    let focus = focus_of(&spec.ask);
    let golds: Vec<usize> = spec.golds().filter_map(|c| c.node).collect();
    let mut shown: Vec<usize> = focus.clone();
    for &g in &golds {
        if f.node(g).kind != NodeKind::Character {
            shown.push(g);
        }
    }
    shown.extend(premise.filter(|&p| f.node(p).kind != NodeKind::Character));
    let mut ids: Vec<String> = focus.iter().map(|&i| f.node(i).id.clone()).collect();
    for &g in &golds {
        let id = &f.node(g).id;
        if !ids.contains(id) {
            ids.push(id.clone());
        }
    }
    let node_ids: BTreeSet<&str> = ids.iter().map(String::as_str).collect();
    let wanted = |k: EdgeKind| match spec.ask {
        Ask::Cause { .. } | Ask::Effect { .. } | Ask::Origin { .. } => matches!(
            k,
            EdgeKind::Causes | EdgeKind::Enables | EdgeKind::Motivates | EdgeKind::Triggers
        ),
        Ask::Participants { .. } => k == EdgeKind::ParticipatesIn,
        Ask::Holder { .. } | Ask::MindBefore { .. } => k == EdgeKind::Holds,
        Ask::Order { .. } => false,
    };
    let mut edges: Vec<String> = f
        .graph
        .edges
        .iter()
        .filter(|e| {
            wanted(e.kind)
                && node_ids.contains(e.source.as_str())
                && node_ids.contains(e.target.as_str())
        })
        .map(|e| e.id.clone())
        .collect();
    edges.sort();
    ids.extend(edges);
    (shown, ids)
}

/// (block, element) evidence places and evidence keyframes of these nodes.
fn places(f: &Facts<'_>, nodes: &[usize]) -> (BTreeSet<(usize, usize)>, Vec<String>) {
    let mut places = BTreeSet::new();
    let mut frames = Vec::new();
    for &n in nodes {
        for ev in &f.node(n).evidence {
            places.insert((ev.block, ev.element));
            for k in &ev.keyframes {
                if !frames.contains(k) {
                    frames.push(k.clone());
                }
            }
        }
    }
    (places, frames)
}

/// Category, type and taxonomy tags of a question.
pub fn describe(f: &Facts<'_>, spec: &Spec) -> (Category, QuestionType, Tags) {
    let cat = |a: &str, b: &str| Category {
        level1: a.to_owned(),
        level2: b.to_owned(),
    };
    let gold_state = spec
        .golds()
        .filter_map(|c| c.node)
        .find(|&g| f.node(g).kind == NodeKind::MentalState);
    let focus = focus_of(&spec.ask)[0];
    let state = match spec.ask {
        Ask::Holder { state } => Some(state),
        Ask::Cause { target } | Ask::Effect { source: target }
            if f.node(target).kind == NodeKind::MentalState =>
        {
            Some(target)
        }
        _ => gold_state,
    };
    let by_attitude = |a: Option<Attitude>| match a {
        Some(Attitude::Belief | Attitude::Knowledge | Attitude::Suspicion) => {
            cat("Theory of Mind", "Belief Tracking")
        }
        Some(Attitude::Desire | Attitude::Intention | Attitude::SocialGoal) => {
            cat("Theory of Mind", "Intention Recognition")
        }
        Some(Attitude::Emotion) => cat("Emotion", "Emotion Inference"),
        Some(Attitude::Pretense) => cat("Communication", "Deception Detection"),
        None => cat("Theory of Mind", "Mental State Attribution"),
    };
    let (category, qtype) = match spec.ask {
        Ask::Origin { .. } => (
            cat("Behavior Understanding", "Causal Attribution"),
            QuestionType::ComplexReasoning,
        ),
        Ask::Order { .. } => (
            cat("Behavior Understanding", "Temporal Reasoning"),
            QuestionType::ComplexReasoning,
        ),
        Ask::Participants { event } => {
            let act = f.node(event).act;
            let c = match act {
                Some(crate::graph::Act::Action) | None => {
                    cat("Social Relations", "Interaction Recognition")
                }
                Some(_) => cat("Communication", "Speech Act Understanding"),
            };
            (c, QuestionType::BasicTom)
        }
        Ask::Holder { .. } | Ask::MindBefore { .. } => (
            by_attitude(state.and_then(|s| f.node(s).attitude)),
            QuestionType::BasicTom,
        ),
        Ask::Cause { .. } | Ask::Effect { .. } => match state {
            Some(s) => (
                by_attitude(f.node(s).attitude),
                QuestionType::ComplexReasoning,
            ),
            None if matches!(spec.ask, Ask::Effect { .. }) => (
                cat("Behavior Understanding", "Behavior Prediction"),
                QuestionType::ComplexReasoning,
            ),
            None => (
                cat("Behavior Understanding", "Causal Attribution"),
                QuestionType::ComplexReasoning,
            ),
        },
    };
    let mut tags = Tags::default();
    if let Some(s) = state {
        let node = f.node(s);
        let about = node.target.as_deref().and_then(|t| f.index_of(t));
        let about_kind = about.map(|a| f.node(a).kind);
        tags.belief_goal = match node.attitude {
            Some(Attitude::Belief | Attitude::Knowledge | Attitude::Suspicion) => {
                let goal = about.is_some_and(|a| {
                    matches!(
                        f.node(a).attitude,
                        Some(Attitude::Desire | Attitude::Intention | Attitude::SocialGoal)
                    )
                });
                Some(if goal { "belief_of_goal" } else { "belief" })
            }
            Some(Attitude::SocialGoal) => Some("social_goal"),
            Some(Attitude::Desire | Attitude::Intention)
                if about_kind == Some(NodeKind::Character) =>
            {
                Some("social_goal")
            }
            _ => None,
        }
        .map(str::to_owned);
        let ability = match node.attitude {
            Some(Attitude::Belief | Attitude::Suspicion) => "beliefs",
            Some(Attitude::Knowledge) => "knowledge",
            Some(Attitude::Desire) => "desires",
            Some(Attitude::Intention | Attitude::SocialGoal) => "intentions",
            Some(Attitude::Emotion) => "emotions",
            Some(Attitude::Pretense) => "non_literal_communication",
            None => "beliefs",
        };
        tags.atoms.push(ability.to_owned());
    }
    if let Some(act) = f.node(focus).act {
        if matches!(act, crate::graph::Act::Lie)
            && !tags.atoms.iter().any(|a| a == "non_literal_communication")
        {
            tags.atoms.push("non_literal_communication".to_owned());
        }
    }
    // The seven-level group audit applies where three or more characters share
    // the scene. Levels this generator assigns (docs/trees-format.md): L1 an
    // action, L2 one character's own state, L3 a state about another
    // character, L4 a state about a state (second order), L5 a joint event of
    // three or more people. L6–L7 (group norms, collective belief) are not
    // derived by the rules templates.
    let scene = f.node(focus).scene;
    let cast: BTreeSet<usize> = f
        .moments
        .iter()
        .filter(|&&m| scene.is_some() && f.node(m).scene == scene)
        .flat_map(|&m| f.people(m))
        .copied()
        .collect();
    if cast.len() >= 3 {
        tags.group_level = Some(match (spec.ask.clone(), state) {
            (Ask::Participants { event }, _) if f.people(event).len() >= 3 => 5,
            (_, Some(s)) => {
                let about = f.node(s).target.as_deref().and_then(|t| f.index_of(t));
                match about.map(|a| f.node(a).kind) {
                    Some(NodeKind::MentalState) => 4,
                    Some(NodeKind::Character) => 3,
                    _ => 2,
                }
            }
            _ => 1,
        });
    }
    (category, qtype, tags)
}

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

/// A deterministic seed per (film-wide seed, tree, node).
pub fn seed_of(seed: u64, tree: &str, node: &str) -> u64 {
    // FNV-1a: stable across platforms and Rust versions, unlike `DefaultHasher`.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ seed;
    for b in tree.bytes().chain([0]).chain(node.bytes()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Seeded Fisher–Yates shuffle (xorshift64*), so answer positions are balanced
/// and reruns give the same order.
pub fn shuffle<T>(items: &mut [T], seed: u64) {
    let mut x = seed | 1;
    for i in (1..items.len()).rev() {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        let r = x.wrapping_mul(0x2545_f491_4f6c_dd1d);
        items.swap(i, (r % (i as u64 + 1)) as usize);
    }
}
