//! Tree assembly: the builder grows one tree from its root question, picks
//! the distractors that keep the shortcut readers at chance, writes each
//! question through the writer (or the fallback) and keeps it only when
//! [`verify`] passes, places the gold letters, and opens a follow-up under
//! every option down to the configured depth. No question is asked twice in
//! a film, and no follow-up asks its parent's link again.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

use rustc_hash::FxHashMap;
use std::rc::Rc;

use super::rules::RulesWriter;
use crate::graph::NodeKind;
use crate::trees::audit::features::{strip_narration, surface, SurfaceView};
use crate::trees::audit::{node_giveaways, reasks, Wording};
use crate::trees::facts::{Ask, Facts};
use crate::trees::schema::{
    Anchor, AnchorKind, AnswerOption, Context, Format, Node, OpenBranches, QuestionKind, Tree,
    Trigger,
};
use crate::trees::source::Source;
use crate::trees::validate::label_for;

use super::anchoring::{other_kind, root_asks, SceneAnchors};
use super::balance::Balancer;
use super::context::{evidence_of, places, witness};
use super::options::{slot, Draft, Drafting};
use super::{
    describe, focus_of, follow_up_asks, rough_kind, seed_of, verify, GenerateOptions, Generated,
    QuestionWriter, Rejection, Spec, Written, WrittenOption,
};

pub(super) struct Builder<'a, 'g> {
    pub(super) facts: &'a Facts<'g>,
    pub(super) source: &'a Source,
    pub(super) writer: &'a dyn QuestionWriter,
    pub(super) fallback: Option<&'a dyn QuestionWriter>,
    pub(super) opts: &'a GenerateOptions,
    /// Nodes written per format (open, single, multi), for the mix.
    pub(super) counts: [usize; 3],
    /// Nodes written per question kind, so that no kind crowds out the others.
    pub(super) kinds: BTreeMap<QuestionKind, usize>,
    /// What the shortcut readers would earn so far, letters and counts.
    pub(super) balance: Balancer,
    /// Every question asked so far in the film (none is asked twice).
    pub(super) asked: BTreeSet<Ask>,
    /// The wording of every question written so far in the film (none is
    /// written nearly the same twice, as the audit's redundancy check reads it).
    pub(super) wordings: Vec<Wording>,
    pub(super) out: Generated,
    /// Picks of answers already read (see [`Builder::read`]).
    pub(super) readings: RefCell<FxHashMap<PickKey, Option<Rc<Reading>>>>,
}

/// What identifies a pick of answers: the ask, the format, each candidate
/// (node, character, wording) and the premise node.
pub(super) type PickKey = (
    Ask,
    Format,
    Vec<(Option<usize>, Option<usize>, String)>,
    Option<usize>,
);

/// A pick of answers read: see [`Builder::read`].
pub(super) struct Reading {
    context: Context,
    derived: Vec<String>,
    view: Option<SurfaceView>,
}

/// Where a follow-up hangs: the parent node's id, the option that leads to
/// it, that option's text (the premise) and node, and what the parent asked about.
pub(super) struct Parent<'p> {
    pub(super) id: &'p str,
    pub(super) trigger: Trigger,
    pub(super) premise: String,
    pub(super) premise_node: Option<usize>,
    pub(super) focus: Vec<usize>,
}

/// What taking from one scene's anchors came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Take {
    /// One of its anchors grew a tree.
    Grown,
    /// None did; the scene has no anchor left.
    Exhausted,
    /// The film has all the trees it may have.
    Full,
}

impl Builder<'_, '_> {
    /// Takes a scene's anchors in turn, of kind `prefer` first and then
    /// alternating, until one grows a tree (then `prefer` becomes the other
    /// kind, so the film's trees alternate kinds).
    pub(super) fn take(
        &mut self,
        film: &str,
        scene: &mut SceneAnchors,
        prefer: &mut AnchorKind,
        max_trees: usize,
    ) -> Take {
        let mut want = *prefer;
        while let Some((kind, elements)) = scene.pop(want) {
            if self.out.trees.len() >= max_trees {
                return Take::Full;
            }
            if self.grow(film, kind, &elements) {
                *prefer = other_kind(kind);
                return Take::Grown;
            }
            want = other_kind(kind);
        }
        Take::Exhausted
    }

    /// Grows the tree of one anchor from the first way into it that reaches
    /// the configured depth (a question already asked elsewhere in the film
    /// is not asked again); `false`, with nothing kept, when none does.
    pub(super) fn grow(&mut self, film: &str, kind: AnchorKind, elements: &[usize]) -> bool {
        let id = format!("{film}/t{:02}", self.out.trees.len() + 1);
        let mut roots: Vec<Ask> = root_asks(self.facts, kind, elements)
            .into_iter()
            .filter(|ask| self.opts.include_trivia || !rough_kind(self.facts, ask).is_trivia())
            .collect();
        roots.sort_by_key(|ask| self.crowded(ask));
        for root in roots {
            let saved = (
                self.counts,
                self.kinds.clone(),
                self.balance.clone(),
                self.asked.clone(),
                self.wordings.len(),
            );
            let mut nodes = Vec::new();
            let built = self.node(&id, root, None, &mut Vec::new(), &mut nodes);
            if built.is_some() && nodes.iter().map(|n| n.depth).max() == Some(self.opts.depth) {
                self.out.trees.push(Tree {
                    id,
                    film: film.to_owned(),
                    anchor: Anchor {
                        kind,
                        elements: elements
                            .iter()
                            .map(|&i| self.facts.node(i).id.clone())
                            .collect(),
                    },
                    nodes,
                });
                return true;
            }
            let kept;
            (self.counts, self.kinds, self.balance, self.asked, kept) = saved;
            self.wordings.truncate(kept);
        }
        false
    }

    /// Whether the film shows a moment: all its evidence is in blocks the
    /// source holds (characters always are).
    pub(super) fn shown(&self, i: usize) -> bool {
        let node = self.facts.node(i);
        node.kind == NodeKind::Character
            || (!node.evidence.is_empty()
                && node
                    .evidence
                    .iter()
                    .all(|ev| self.source.blocks.contains_key(&ev.block)))
    }

    /// The context of a question: the evidence of its focus, golds, premise
    /// and every option, with the narration that states an option's state
    /// of mind outright left out (the film shows behaviour, not thoughts; a
    /// reader must infer them). `None` when the film does not show it all.
    fn context_for(&self, spec: &Spec, premise: Option<usize>) -> Option<(Context, Vec<String>)> {
        let f = self.facts;
        let (mut context_nodes, derived) = evidence_of(f, spec, premise);
        if !context_nodes.iter().all(|&n| self.shown(n)) {
            return None;
        }
        // Every option's own evidence is shown too: an option the excerpt
        // quotes while the others are absent is given away by word overlap.
        for c in &spec.candidates {
            let shown = match c.node {
                Some(n) if f.node(n).kind == NodeKind::Character => {
                    witness(f, n, &focus_of(&spec.ask))
                }
                n => n,
            };
            if let Some(n) = shown.filter(|n| !context_nodes.contains(n) && self.shown(*n)) {
                context_nodes.push(n);
            }
        }
        let (places, frames) = places(f, &context_nodes);
        let mut context = self.source.context(&places, &frames);
        let focus = focus_of(&spec.ask);
        let hidden: Vec<&str> = spec
            .candidates
            .iter()
            .filter_map(|c| c.node)
            .filter(|&n| f.node(n).kind == NodeKind::MentalState && !focus.contains(&n))
            .flat_map(|n| f.node(n).evidence.iter().map(|e| e.quote.trim()))
            .filter(|q| !q.is_empty())
            .collect();
        context.excerpt = strip_narration(&context.excerpt, &hidden);
        if context.excerpt.trim().is_empty() {
            return None;
        }
        Some((context, derived))
    }

    /// Of the ways to pick distractors, the one that keeps the shortcut
    /// readers nearest chance (the most plausible among equals), with its
    /// context.
    fn choose(
        &self,
        draft: &Draft,
        premise: Option<usize>,
    ) -> Option<(Spec, Context, Vec<String>)> {
        self.choose_with_cost(draft.specs(), premise)
            .map(|(_, s, c, d)| (s, c, d))
    }

    /// The draft of `ask` as a follow-up of a parent that settled `focus`:
    /// an answer that is what the parent asked about, or one of its answers,
    /// would ask the parent's link again, so such golds are left out (the
    /// order of two moments excepted: that is why a distractor was wrong, a
    /// new fact).
    fn draft_under(&self, ask: &Ask, focus: Option<&[usize]>) -> Option<Draft> {
        let shown = |i: usize| self.shown(i);
        let mut draft = Drafting {
            facts: self.facts,
            opts: self.opts,
            counts: &self.counts,
            balance: &self.balance,
            shown: &shown,
        }
        .draft(ask)?;
        match focus {
            Some(focus) if !matches!(ask, Ask::Order { .. }) => {
                draft.drop_golds(focus).then_some(draft)
            }
            _ => Some(draft),
        }
    }

    /// How the best pick for `ask` under this parent would move the tallies
    /// (`None`: it cannot be asked here).
    fn preview(&self, ask: &Ask, parent: &Parent<'_>) -> Option<f64> {
        if self.asked.contains(ask) || !focus_of(ask).iter().all(|&m| self.shown(m)) {
            return None;
        }
        let draft = self.draft_under(ask, Some(&parent.focus))?;
        self.choose_with_cost(draft.picks(PREVIEW_PICKS), parent.premise_node)
            .map(|b| b.0)
    }

    fn choose_with_cost(
        &self,
        specs: Vec<Spec>,
        premise: Option<usize>,
    ) -> Option<(f64, Spec, Context, Vec<String>)> {
        let mut best: Option<(f64, Spec, Rc<Reading>)> = None;
        for spec in specs {
            let Some(reading) = self.read(&spec, premise) else {
                continue;
            };
            let cost = match &reading.view {
                Some(view) => self.balance.cost(view, spec.format),
                None => 0.0,
            };
            let open = spec.format == Format::Open;
            if best.as_ref().is_none_or(|b| cost < b.0 - 1e-12) {
                best = Some((cost, spec, reading));
            }
            // Any pick of an open question does: no options to balance.
            if open {
                break;
            }
        }
        best.map(|(cost, spec, r)| (cost, spec, r.context.clone(), r.derived.clone()))
    }

    /// A pick of answers as a reader meets it: its context and, for a choice
    /// question, what a surface reader sees in its provisional wording
    /// (`None`: the film does not show it, or it cannot be worded). Read once
    /// per film: previews of follow-ups meet the same picks again.
    fn read(&self, spec: &Spec, premise: Option<usize>) -> Option<Rc<Reading>> {
        let key: PickKey = (
            spec.ask.clone(),
            spec.format,
            spec.candidates
                .iter()
                .map(|c| (c.node, c.character, c.text.clone()))
                .collect(),
            premise,
        );
        if let Some(known) = self.readings.borrow().get(&key) {
            return known.clone();
        }
        let reading = self
            .context_for(spec, premise)
            .and_then(|(context, derived)| {
                let view = if spec.format == Format::Open {
                    None
                } else {
                    let w = RulesWriter.write(self.facts, spec, &context.excerpt).ok()?;
                    surface(&probe_node(&w, spec, &context))
                };
                Some(Rc::new(Reading {
                    context,
                    derived,
                    view,
                }))
            });
        self.readings.borrow_mut().insert(key, reading.clone());
        reading
    }

    /// Builds the node for `ask` and its subtree; returns its id.
    pub(super) fn node(
        &mut self,
        tree: &str,
        ask: Ask,
        parent: Option<Parent<'_>>,
        path: &mut Vec<Ask>,
        nodes: &mut Vec<Node>,
    ) -> Option<String> {
        let depth = path.len() as u32 + 1;
        if self.asked.contains(&ask) || !focus_of(&ask).iter().all(|&m| self.shown(m)) {
            return None;
        }
        let draft = self.draft_under(&ask, parent.as_ref().map(|p| p.focus.as_slice()))?;
        let premise_node = parent.as_ref().and_then(|p| p.premise_node);
        let (spec, context, derived) = self.choose(&draft, premise_node)?;
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
        // What the audit would flag is not written: an answer the question
        // or its excerpt gives away, a follow-up re-asking its parent.
        let mut probe = probe_node(&written, &spec, &context);
        probe.premise = parent.as_ref().map(|p| p.premise.clone());
        probe.derived_from = derived.clone();
        (probe.category, probe.question_type, _) = describe(self.facts, &spec);
        probe.reference = written.reference.clone();
        if !node_giveaways(&probe).is_empty() {
            return None;
        }
        let wording = Wording::of(&probe);
        if self.wordings.iter().any(|w| w.nearly(&wording)) {
            return None;
        }
        if let Some(p) = &parent {
            let parent_node = nodes.iter().find(|n| n.id == p.id);
            if parent_node.is_some_and(|pn| reasks(pn, &probe).is_some()) {
                return None;
            }
        }
        self.asked.insert(ask.clone());
        self.wordings.push(wording);
        self.counts[slot(spec.format)] += 1;
        let id = match &parent {
            None => "n1".to_owned(),
            Some(p) => {
                let siblings = nodes
                    .iter()
                    .filter(|n| n.parent.as_deref() == Some(p.id))
                    .count();
                format!("{}.{}", p.id, siblings + 1)
            }
        };
        let (category, question_type, tags) = describe(self.facts, &spec);
        if let Some(k) = tags.kind {
            *self.kinds.entry(k).or_default() += 1;
        }
        let seed = seed_of(self.opts.seed, tree, &id);
        let mut written_opts = written.options.clone();
        // `placed[k]`: which written option sits at letter `k`.
        let mut placed: Vec<usize> = (0..written_opts.len()).collect();
        let (parent_id, trigger, premise) = match parent {
            Some(p) => (Some(p.id.to_owned()), Some(p.trigger), Some(p.premise)),
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
            if let Some(view) = surface(&node) {
                let order = self.balance.arrange(&view, spec.format, seed);
                placed = order.clone();
                written_opts = order.iter().map(|&i| written_opts[i].clone()).collect();
                let options: Vec<AnswerOption> =
                    order.iter().map(|&i| node.options[i].clone()).collect();
                node.options = options;
                for (k, o) in node.options.iter_mut().enumerate() {
                    o.label = label_for(k);
                }
                if let Some(view) = surface(&node) {
                    self.balance.record(&view, spec.format);
                }
            }
        }
        let at = nodes.len();
        nodes.push(node);
        if depth >= self.opts.depth {
            return Some(id);
        }
        path.push(ask.clone());
        // What this question settled: its moments and its gold answers.
        let mut focus = focus_of(&spec.ask);
        focus.extend(spec.golds().filter_map(|c| c.node));
        if spec.format == Format::Open {
            let gold = written.options.iter().find(|w| w.correct);
            let wrong = written.options.iter().find(|w| !w.correct);
            for (w, trigger) in [
                (gold, Trigger::OpenCorrect),
                (wrong, Trigger::OpenIncorrect),
            ] {
                let Some(w) = w else { continue };
                let child =
                    self.follow_up(tree, &id, &spec, w, trigger.clone(), &focus, path, nodes);
                if child.is_none() {
                    self.out.leaves_early += 1;
                }
                match trigger {
                    Trigger::OpenCorrect => nodes[at].open_branches.correct = child,
                    _ => nodes[at].open_branches.incorrect = child,
                }
            }
        } else {
            // Follow-ups open in the order the options were written, not
            // the order their letters were drawn in: the seed places the
            // letters and nothing else, so which questions a tree asks (and
            // which are left for later trees) does not depend on it.
            let letters: Vec<usize> = (0..placed.len())
                .map(|i| placed.iter().position(|&p| p == i).expect("a permutation"))
                .collect();
            for k in letters {
                let w = &written_opts[k];
                let trigger = Trigger::Option {
                    label: label_for(k),
                };
                let child = self.follow_up(tree, &id, &spec, w, trigger, &focus, path, nodes);
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
    pub(super) fn write_checked(
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
    pub(super) fn follow_up(
        &mut self,
        tree: &str,
        parent: &str,
        spec: &Spec,
        option: &WrittenOption,
        trigger: Trigger,
        focus: &[usize],
        path: &mut Vec<Ask>,
        nodes: &mut Vec<Node>,
    ) -> Option<String> {
        let cand = &spec.candidates[option.candidate];
        let from = || Parent {
            id: parent,
            trigger: trigger.clone(),
            premise: option.text.clone(),
            premise_node: cand.node,
            focus: focus.to_vec(),
        };
        // Of the first few follow-ups that can be asked, the one that keeps
        // the shortcut readers nearest chance (the most telling among equals):
        // a cause's gold sits before its target, an effect's after, so the
        // choice between them keeps position from telling the answer.
        let mut asks: Vec<(f64, usize, Ask)> = follow_up_asks(self.facts, &spec.ask, cand)
            .into_iter()
            .filter(|ask| !path.contains(ask) && *ask != spec.ask)
            .filter(|ask| self.opts.include_trivia || !rough_kind(self.facts, ask).is_trivia())
            .enumerate()
            .filter_map(|(rank, ask)| {
                let cost = self.preview(&ask, &from())?;
                Some((cost, rank, ask))
            })
            .take(FOLLOW_UPS_WEIGHED)
            .collect();
        // Costs equal but for rounding (sums taken in another option order)
        // are ties, which the rank settles.
        let level = |cost: f64| (cost * 1e9).round();
        // A kind that already has more than its share comes last.
        asks.sort_by(|a, b| {
            (self.crowded(&a.2).cmp(&self.crowded(&b.2)))
                .then(level(a.0).total_cmp(&level(b.0)))
                .then(a.1.cmp(&b.1))
        });
        for (_, _, ask) in asks {
            if let Some(id) = self.node(tree, ask, Some(from()), path, nodes) {
                return Some(id);
            }
        }
        None
    }
}

/// The most one question kind should take of a film's questions: beyond
/// it, its asks are tried after every other.
const KIND_SHARE: f64 = 0.15;

impl Builder<'_, '_> {
    /// Whether the kind an ask would have already holds more than its share
    /// of the questions written so far (once there are a few).
    fn crowded(&self, ask: &Ask) -> bool {
        let total: usize = self.kinds.values().sum();
        let k = rough_kind(self.facts, ask);
        let have = self.kinds.get(&k).copied().unwrap_or(0);
        total >= 10 && (have + 1) as f64 > KIND_SHARE * (total + 1) as f64
    }
}

/// Follow-ups weighed per option (the most telling of those that can be asked).
const FOLLOW_UPS_WEIGHED: usize = 5;

/// Distractor picks per pick of golds a follow-up is weighed on (the most
/// plausible): the one written is then chosen among all its picks. Weighing
/// every pick of every follow-up took a third longer and made the trees no
/// more valid (sample film, seeds 0–9; synthetic corpus).
const PREVIEW_PICKS: usize = 2;

/// A node with a provisional wording, to read its surface before choosing.
fn probe_node(w: &Written, spec: &Spec, context: &Context) -> Node {
    Node {
        id: String::new(),
        depth: 1,
        parent: None,
        trigger: None,
        premise: None,
        question: w.question.clone(),
        format: spec.format,
        // An open question is written with no options (its wrong answer only
        // picks a branch), so the probe has none either: the audit judges a
        // give-away against the options the reader sees.
        options: if spec.format == Format::Open {
            Vec::new()
        } else {
            w.options
                .iter()
                .enumerate()
                .map(|(k, o)| AnswerOption {
                    label: label_for(k),
                    text: o.text.clone(),
                    correct: o.correct,
                    reason: o.reason,
                    child: None,
                })
                .collect()
        },
        reference: None,
        open_branches: OpenBranches::default(),
        category: crate::trees::schema::Category {
            level1: String::new(),
            level2: String::new(),
        },
        question_type: crate::trees::schema::QuestionType::BasicTom,
        tags: Default::default(),
        derived_from: Vec::new(),
        context: context.clone(),
    }
}
