//! Tree validation (`moviegraph trees validate`): every tree must be well formed
//! before a model sees it. Invalid trees are reported with a precise message,
//! never silently kept or repaired.

use std::collections::{BTreeSet, HashMap};
use std::fmt;

use super::schema::{Format, Node, Tree, Trigger};

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// The tree may be used, but something is worth a look.
    Warning,
    /// The tree must not be used.
    Error,
}

/// One finding about a tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Error or warning.
    pub severity: Severity,
    /// The tree's id.
    pub tree: String,
    /// The node's id, when the finding is about one node.
    pub node: Option<String>,
    /// What is wrong, in words.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        match &self.node {
            Some(node) => write!(
                f,
                "{level}: tree {}, node {node}: {}",
                self.tree, self.message
            ),
            None => write!(f, "{level}: tree {}: {}", self.tree, self.message),
        }
    }
}

/// Most keyframes a question may carry.
pub const MAX_KEYFRAMES: usize = 5;

/// Checks one tree and returns every finding (empty when the tree is sound).
pub fn validate(tree: &Tree) -> Vec<Problem> {
    let mut check = Checker {
        tree,
        problems: Vec::new(),
    };
    check.tree_shape();
    for node in &tree.nodes {
        check.node(node);
    }
    check.leaks();
    check.problems
}

/// True when none of the findings is an error.
pub fn is_valid(problems: &[Problem]) -> bool {
    problems.iter().all(|p| p.severity != Severity::Error)
}

struct Checker<'a> {
    tree: &'a Tree,
    problems: Vec<Problem>,
}

impl Checker<'_> {
    fn push(&mut self, severity: Severity, node: Option<&Node>, message: String) {
        self.problems.push(Problem {
            severity,
            tree: self.tree.id.clone(),
            node: node.map(|n| n.id.clone()),
            message,
        });
    }

    fn error(&mut self, node: &Node, message: String) {
        self.push(Severity::Error, Some(node), message);
    }

    fn tree_shape(&mut self) {
        let tree = self.tree;
        if tree.id.trim().is_empty() {
            self.push(Severity::Error, None, "the tree has an empty id".into());
        }
        let Some(root) = tree.nodes.first() else {
            self.push(Severity::Error, None, "the tree has no nodes".into());
            return;
        };
        if root.depth != 1 || root.parent.is_some() || root.trigger.is_some() {
            self.error(
                root,
                "the first node must be the root: depth 1, no parent, no trigger".into(),
            );
        }
        let mut seen = HashMap::new();
        for node in &tree.nodes {
            if seen.insert(node.id.as_str(), ()).is_some() {
                self.error(node, format!("node id {:?} is used twice", node.id));
            }
        }
        for node in tree.nodes.iter().skip(1) {
            if node.parent.is_none() {
                self.error(node, "a node after the root has no parent".into());
            }
        }
    }

    fn node(&mut self, node: &Node) {
        if node.question.trim().is_empty() {
            self.error(node, "the question text is empty".into());
        }
        match node.format {
            Format::Single | Format::Multi => self.choice(node),
            Format::Open => self.open(node),
        }
        self.parent_link(node);
        for child_id in node.children() {
            match self.tree.node(child_id) {
                None => self.error(node, format!("child {child_id:?} does not exist")),
                Some(child) if child.parent.as_deref() != Some(node.id.as_str()) => self.error(
                    node,
                    format!(
                        "child {child_id:?} names {:?} as its parent",
                        child.parent.as_deref().unwrap_or("no node")
                    ),
                ),
                Some(_) => {}
            }
        }
        if node.context.excerpt.trim().is_empty() {
            self.error(node, "the context has no script excerpt".into());
        }
        if node.context.keyframes.len() > MAX_KEYFRAMES {
            self.error(
                node,
                format!(
                    "the context has {} keyframes; at most {MAX_KEYFRAMES} are allowed",
                    node.context.keyframes.len()
                ),
            );
        }
        if node.derived_from.is_empty() && !self.tree.is_item() {
            self.error(
                node,
                "the node names no graph elements it derives from".into(),
            );
        }
        if let Some(level) = node.tags.group_level {
            if !(1..=7).contains(&level) {
                self.error(node, format!("group level L{level} is outside L1–L7"));
            }
        }
    }

    fn choice(&mut self, node: &Node) {
        let format = node.format.as_str();
        if node.options.len() < 2 {
            self.error(
                node,
                format!(
                    "a {format}-choice question needs at least two options, it has {}",
                    node.options.len()
                ),
            );
        }
        let correct = node.correct_labels();
        match node.format {
            Format::Single if correct.len() != 1 => self.error(
                node,
                format!(
                    "a single-choice question needs exactly one correct option, it has {} ({})",
                    correct.len(),
                    correct.join(", ")
                ),
            ),
            Format::Multi if correct.is_empty() => self.error(
                node,
                "a multiple-choice question has no correct option".into(),
            ),
            _ => {}
        }
        let mut labels = BTreeSet::new();
        let mut texts = BTreeSet::new();
        for (position, option) in node.options.iter().enumerate() {
            let expected = label_for(position);
            if option.label != expected {
                self.error(
                    node,
                    format!(
                        "option {} is labelled {:?}; expected {expected:?}",
                        position + 1,
                        option.label
                    ),
                );
            }
            if !labels.insert(option.label.as_str()) {
                self.error(
                    node,
                    format!("option label {:?} is used twice", option.label),
                );
            }
            if option.text.trim().is_empty() {
                self.error(node, format!("option {} has no text", option.label));
            } else if !texts.insert(option.text.trim().to_lowercase()) {
                self.error(
                    node,
                    format!("option {} repeats another option's text", option.label),
                );
            }
            if !option.correct && option.reason.is_none() && !self.tree.is_item() {
                self.push(
                    Severity::Warning,
                    Some(node),
                    format!("distractor {} says no reason why it is wrong", option.label),
                );
            }
        }
        if node.reference.is_some() {
            self.error(
                node,
                format!("a {format}-choice question carries an open reference answer"),
            );
        }
        if node.open_branches != Default::default() {
            self.error(
                node,
                format!("a {format}-choice question has open-answer branches"),
            );
        }
    }

    fn open(&mut self, node: &Node) {
        if node
            .reference
            .as_deref()
            .is_none_or(|r| r.trim().is_empty())
        {
            self.error(node, "an open question has no reference answer".into());
        }
        if !node.options.is_empty() {
            self.error(node, "an open question has answer options".into());
        }
    }

    fn parent_link(&mut self, node: &Node) {
        let Some(parent_id) = node.parent.as_deref() else {
            return;
        };
        let Some(parent) = self.tree.node(parent_id) else {
            self.error(node, format!("parent {parent_id:?} does not exist"));
            return;
        };
        if node.depth != parent.depth + 1 {
            self.error(
                node,
                format!(
                    "depth {} under a parent at depth {}; expected {}",
                    node.depth,
                    parent.depth,
                    parent.depth + 1
                ),
            );
        }
        if node.premise.as_deref().is_none_or(|p| p.trim().is_empty()) {
            self.error(
                node,
                "a follow-up has no premise (the parent answer it assumes)".into(),
            );
        }
        let Some(trigger) = &node.trigger else {
            self.error(node, "a follow-up has no trigger".into());
            return;
        };
        let leads_here = |target: Option<&str>| target == Some(node.id.as_str());
        match trigger {
            Trigger::Option { label } => match parent.option(label) {
                None => self.error(
                    node,
                    format!("trigger option {label:?} does not exist in parent {parent_id:?}"),
                ),
                Some(option) if !leads_here(option.child.as_deref()) => self.error(
                    node,
                    format!("trigger option {label:?} of parent {parent_id:?} does not lead to this node"),
                ),
                Some(_) => {}
            },
            Trigger::OpenCorrect | Trigger::OpenIncorrect => {
                let branch = if *trigger == Trigger::OpenCorrect {
                    parent.open_branches.correct.as_deref()
                } else {
                    parent.open_branches.incorrect.as_deref()
                };
                if parent.format != Format::Open {
                    self.error(node, format!("an open-answer trigger under the choice question {parent_id:?}"));
                } else if !leads_here(branch) {
                    self.error(node, format!("the open branch of parent {parent_id:?} does not lead to this node"));
                }
            }
        }
    }

    /// No text shown to a model may contain a graph id.
    fn leaks(&mut self) {
        let tree = self.tree;
        let mut ids: BTreeSet<&str> = tree.anchor.elements.iter().map(String::as_str).collect();
        for node in &tree.nodes {
            ids.extend(node.derived_from.iter().map(String::as_str));
        }
        ids.retain(|id| id.len() >= 3);
        for node in &tree.nodes {
            let mut shown: Vec<(&str, &str)> = vec![
                ("question", &node.question),
                ("context excerpt", &node.context.excerpt),
            ];
            if let Some(premise) = &node.premise {
                shown.push(("premise", premise));
            }
            if let Some(reference) = &node.reference {
                shown.push(("reference answer", reference));
            }
            for option in &node.options {
                shown.push(("an option", &option.text));
            }
            for (what, text) in shown {
                if let Some(id) = ids.iter().find(|id| text.contains(**id)) {
                    self.error(node, format!("graph id {id:?} leaks into the {what}"));
                } else if let Some(id) = find_graph_id(text) {
                    self.error(node, format!("graph id {id:?} leaks into the {what}"));
                }
            }
        }
    }
}

/// The first graph-id-shaped string in `text`: a node kind of the graph
/// schema (`character`, `object`, `location`, `event`, `mental_state`, or the
/// short `ms`), a colon, and a slug character, at a word start
/// (`event:e0053-000-lie`). Edge ids contain node ids, so they are caught too.
pub fn find_graph_id(text: &str) -> Option<&str> {
    use crate::graph::NodeKind;
    let kinds = NodeKind::ALL.map(NodeKind::as_str);
    let bytes = text.as_bytes();
    for (at, _) in text.match_indices(':') {
        let next = bytes.get(at + 1).copied().unwrap_or(b' ');
        if !(next.is_ascii_lowercase() || next.is_ascii_digit()) {
            continue;
        }
        for kind in kinds.iter().copied().chain(["ms"]) {
            let Some(start) = at.checked_sub(kind.len()) else {
                continue;
            };
            if text.get(start..at) != Some(kind) {
                continue;
            }
            let boundary = start == 0 || {
                let b = bytes[start - 1];
                !(b.is_ascii_alphanumeric() || b == b'_')
            };
            if boundary {
                let end = text[at + 1..]
                    .find(|c: char| !(c.is_ascii_alphanumeric() || "-_.".contains(c)))
                    .map_or(text.len(), |k| at + 1 + k);
                return Some(text[start..end].trim_end_matches(['.', '-', '_']));
            }
        }
    }
    None
}

/// The label of the option at `position` (0 → `A`, 25 → `Z`, 26 → `AA`).
pub fn label_for(position: usize) -> String {
    let mut n = position;
    let mut out = Vec::new();
    loop {
        out.push(b'A' + (n % 26) as u8);
        if n < 26 {
            break;
        }
        n = n / 26 - 1;
    }
    out.reverse();
    String::from_utf8(out).expect("ASCII letters")
}
