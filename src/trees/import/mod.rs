//! Other benchmarks' questions as moviegraph trees, and our trees out in flat
//! forms other harnesses read.
//!
//! An imported question becomes a one-node tree whose anchor is an
//! [`AnchorKind::Item`]: no graph behind it, its context the benchmark's own
//! text. [`muma`] reads the MuMA-ToM release files; [`items`] reads and writes
//! the flat item JSONL (one question a line) and writes the Inspect AI
//! dataset JSONL. The formats are documented in `docs/trees-format.md`.

pub mod items;
pub mod muma;

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::schema::{
    Anchor, AnchorKind, AnswerOption, Category, Context, Format, Node, OpenBranches, QuestionType,
    Tags, Tree,
};
use super::validate::label_for;

/// A benchmark file that could not be imported, or trees that could not be exported.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not JSON of the expected shape.
    #[error("{path}: {message}")]
    File {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// One entry of the file is malformed.
    #[error("{path}: {at}: {message}")]
    Entry {
        /// The file.
        path: PathBuf,
        /// Which entry (`episode 4005, question 2`, `line 7 (id "q3")`).
        at: String,
        /// What is wrong.
        message: String,
    },
}

/// What one imported question says, before it becomes a tree.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// Id unique within the import.
    pub id: String,
    /// The text the question is about (a story, an episode, an excerpt).
    pub context: String,
    /// The question.
    pub question: String,
    /// The answer: options with their correctness, or an open reference.
    pub answer: ItemAnswer,
    /// Category (level 1, level 2).
    pub category: Category,
    /// Basic ToM or complex reasoning.
    pub question_type: QuestionType,
    /// Tags (`belief_goal`, `group_level`, ATOMS, any other label).
    pub tags: Tags,
    /// Keyframe or image paths the item shows, relative to the workspace.
    pub keyframes: Vec<String>,
}

/// An item's answer.
#[derive(Debug, Clone, PartialEq)]
pub enum ItemAnswer {
    /// Options in order, each with whether it is correct; single choice when
    /// `multi` is false (then exactly one is correct).
    Choice {
        /// (text, correct) per option.
        options: Vec<(String, bool)>,
        /// One or more correct options, scored by exact set match.
        multi: bool,
    },
    /// Free text scored against this reference.
    Open(String),
}

impl Item {
    /// The one-node tree of this item, in the benchmark `film`.
    pub fn into_tree(self, film: &str) -> Tree {
        let (format, options, reference) = match self.answer {
            ItemAnswer::Choice { options, multi } => (
                if multi { Format::Multi } else { Format::Single },
                options
                    .into_iter()
                    .enumerate()
                    .map(|(i, (text, correct))| AnswerOption {
                        label: label_for(i),
                        text,
                        correct,
                        reason: None,
                        child: None,
                    })
                    .collect(),
                None,
            ),
            ItemAnswer::Open(reference) => (Format::Open, Vec::new(), Some(reference)),
        };
        Tree {
            id: format!("{film}/{}", self.id),
            film: film.to_owned(),
            anchor: Anchor {
                kind: AnchorKind::Item,
                elements: Vec::new(),
            },
            nodes: vec![Node {
                id: "n1".into(),
                depth: 1,
                parent: None,
                trigger: None,
                premise: None,
                question: self.question,
                format,
                options,
                reference,
                open_branches: OpenBranches::default(),
                category: self.category,
                question_type: self.question_type,
                tags: self.tags,
                derived_from: Vec::new(),
                context: Context {
                    blocks: Vec::new(),
                    excerpt: self.context,
                    keyframes: self.keyframes,
                },
            }],
        }
    }
}

/// Counts of imported questions by a tag's value, for the import's summary.
pub fn count_by(trees: &[Tree], tag: impl Fn(&Node) -> Option<String>) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for node in trees.iter().flat_map(|t| &t.nodes) {
        if let Some(value) = tag(node) {
            *counts.entry(value).or_default() += 1;
        }
    }
    counts
}
