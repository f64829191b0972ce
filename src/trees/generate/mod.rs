//! Tree generation (`moviegraph trees generate`): anchors from the verified
//! graph, one tree per anchor, every option of a node leading to a follow-up
//! down to the configured depth.
//!
//! The tool decides *what* is asked and which answers are right or wrong
//! ([`Spec`], built and judged with [`Facts`]); a [`QuestionWriter`] only
//! words it. Every written question is checked by [`verify`] before it enters
//! a tree, whichever writer wrote it, so a model cannot smuggle in a gold
//! answer or a distractor the graph does not back.
//!
//! By step: `anchoring` picks what each tree is about ([`anchor_queues`]);
//! `assembly` grows a tree node by node; `options` chooses each question's
//! format and judged candidates (gold answers and distractors); `questions`
//! says what a question asks about and which follow-ups an option opens
//! ([`focus_of`], [`follow_up_asks`], [`describe`]); `context` gathers the
//! evidence the excerpt must hold; `verification` checks every written
//! question ([`verify`]); `order` fixes the option order ([`seed_of`],
//! [`shuffle`]).

mod anchoring;
mod assembly;
mod balance;
mod context;
mod group_level;
mod options;
mod order;
mod questions;
pub mod rules;
mod verification;

use crate::graph::analysis::Analysis;

use super::facts::{Ask, Facts, Verdict};
use super::schema::{AnchorKind, DistractorReason, Format, Tree};
use super::source::Source;
use assembly::{Builder, Take};

use anchoring::visit_order;
pub use anchoring::{anchor_queues, AnchorItem, SceneAnchors};
pub use order::{seed_of, shuffle};
pub use questions::{describe, focus_of, follow_up_asks, kind_of, rough_kind};
pub use verification::verify;

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
    /// Most trees per film; `None`: grows with the film ([`default_max_trees`]).
    pub max_trees: Option<usize>,
    /// Format mix.
    pub mix: Mix,
    /// Seed of the option-order shuffle.
    pub seed: u64,
    /// Options of a single-choice question.
    pub single_options: usize,
    /// Options of a multiple-choice question.
    pub multi_options: usize,
    /// Ask trivia too: who holds a state (mostly who said the line), who
    /// takes part in an exchange, which of two moments comes first.
    pub include_trivia: bool,
}

impl Default for GenerateOptions {
    fn default() -> GenerateOptions {
        GenerateOptions {
            depth: 3,
            max_trees: None,
            mix: Mix::default(),
            seed: 0,
            single_options: 3,
            multi_options: 4,
            include_trivia: false,
        }
    }
}

/// The number of trees a film of `scenes` scenes gets by default: 30, or
/// one and a half per scene for a longer film, so a feature film gets trees
/// from its first act to its last.
pub fn default_max_trees(scenes: usize) -> usize {
    (scenes * 3 / 2).max(30)
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
        kinds: Default::default(),
        balance: Default::default(),
        asked: Default::default(),
        wordings: Vec::new(),
        out: Generated::default(),
        readings: Default::default(),
    };
    let film = facts.graph.film.clone();
    let scenes = facts
        .graph
        .nodes
        .iter()
        .filter_map(|n| n.scene)
        .max()
        .map_or(0, |s| s + 1);
    let max_trees = opts.max_trees.unwrap_or_else(|| default_max_trees(scenes));
    // The film's two ends first (its first and its last scene that yields a
    // tree), then scene by scene from the middle outward, each scene's first
    // anchor that grows; then a second round, and so on.
    let mut queues = anchor_queues(facts, analysis);
    let mut prefer = AnchorKind::CausalChain;
    let mut ends = Vec::new();
    let n = queues.len();
    for scenes in [
        &mut (0..n) as &mut dyn Iterator<Item = usize>,
        &mut (0..n).rev(),
    ] {
        for k in scenes {
            if ends.contains(&k) {
                break;
            }
            match gen.take(&film, &mut queues[k], &mut prefer, max_trees) {
                Take::Full => return gen.out,
                Take::Grown => {
                    ends.push(k);
                    break;
                }
                Take::Exhausted => {}
            }
        }
    }
    let order = visit_order(n);
    let mut round = 0;
    while queues.iter().any(|q| !q.is_empty()) {
        for &k in &order {
            if round == 0 && ends.contains(&k) {
                continue;
            }
            if gen.take(&film, &mut queues[k], &mut prefer, max_trees) == Take::Full {
                return gen.out;
            }
        }
        round += 1;
    }
    gen.out
}
