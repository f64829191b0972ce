//! Tree assembly: the builder grows one tree from its root question, writes
//! each question through the writer (or the fallback) and keeps it only when
//! [`verify`] passes, shuffles the options, and opens a follow-up under
//! every option down to the configured depth.

use crate::graph::NodeKind;
use crate::trees::facts::{Ask, Facts};
use crate::trees::schema::{AnswerOption, Format, Node, OpenBranches, Trigger};
use crate::trees::source::Source;
use crate::trees::validate::label_for;

use super::context::{evidence_of, places, witness};
use super::{
    describe, focus_of, follow_up_asks, seed_of, shuffle, verify, GenerateOptions, Generated,
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
    pub(super) out: Generated,
}

pub(super) fn slot(f: Format) -> usize {
    match f {
        Format::Open => 0,
        Format::Single => 1,
        Format::Multi => 2,
    }
}

impl Builder<'_, '_> {
    /// Builds the node for `ask` and its subtree; returns its id.
    pub(super) fn node(
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
}
