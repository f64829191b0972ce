//! The question-tree data model (docs/trees-format.md) and its JSONL exchange form.
//!
//! **API boundary**: the serde form of [`Tree`] is the line format of
//! `trees/<film>.jsonl`, documented in `docs/trees-format.md`; trees written by
//! hand or by another tool in this form can be validated and evaluated.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One hierarchical question tree, anchored to a significant subgraph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tree {
    /// Stable id, unique within the film (e.g. `the-second-key/t07`).
    pub id: String,
    /// The film's slug (its folder name).
    pub film: String,
    /// What the tree is about.
    pub anchor: Anchor,
    /// The nodes, root first; children refer to parents by id.
    pub nodes: Vec<Node>,
}

/// The subgraph a tree is anchored to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Anchor {
    /// A causal chain or a pivotal mental state.
    pub kind: AnchorKind,
    /// Graph element ids of the anchor, in chain order.
    pub elements: Vec<String>,
}

/// Kinds of anchor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnchorKind {
    /// A long-range causal chain n1 → n2 → … → nk.
    CausalChain,
    /// A pivotal mental state.
    MentalState,
    /// One question of another benchmark (`trees import --from muma-tom|items`):
    /// no graph behind it, so its nodes derive from no graph element.
    Item,
}

/// Answer formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// Exactly one correct option.
    Single,
    /// One or more correct options; accuracy is strict set equality.
    Multi,
    /// Free text scored against a reference answer.
    Open,
}

impl Format {
    /// The snake_case name used in files and tables.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Single => "single",
            Format::Multi => "multi",
            Format::Open => "open",
        }
    }
}

/// Question type (the reference benchmark's two types).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuestionType {
    /// A single mental-state attribution.
    BasicTom,
    /// Multi-step causal or higher-order reasoning.
    ComplexReasoning,
}

impl QuestionType {
    /// The snake_case name used in files and tables.
    pub fn as_str(self) -> &'static str {
        match self {
            QuestionType::BasicTom => "basic_tom",
            QuestionType::ComplexReasoning => "complex_reasoning",
        }
    }
}

/// Why a distractor is wrong (docs/trees-format.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DistractorReason {
    /// A real event of the film that is not the cause.
    NotTheCause,
    /// The effect mistaken for the cause.
    EffectForCause,
    /// Another character's mental state.
    OtherCharacter,
    /// An event that happens later (anachronism).
    LaterEvent,
    /// A plausible motive the film does not support.
    UnsupportedMotive,
    /// Held, but true: the holder is right about it (a false-belief question).
    TrueBelief,
    /// The holder does not know it: the graph says they do not (a
    /// knowledge-access question).
    NotKnown,
    /// The holder only believes it, and it is false: believed, not known.
    Mistaken,
    /// Still held at that point: it has not changed (a belief-change question).
    StillHeld,
}

impl DistractorReason {
    /// Every reason, in report order.
    pub const ALL: [DistractorReason; 9] = [
        DistractorReason::NotTheCause,
        DistractorReason::EffectForCause,
        DistractorReason::OtherCharacter,
        DistractorReason::LaterEvent,
        DistractorReason::UnsupportedMotive,
        DistractorReason::TrueBelief,
        DistractorReason::NotKnown,
        DistractorReason::Mistaken,
        DistractorReason::StillHeld,
    ];

    /// The snake_case name used in files and tables.
    pub fn as_str(self) -> &'static str {
        match self {
            DistractorReason::NotTheCause => "not_the_cause",
            DistractorReason::EffectForCause => "effect_for_cause",
            DistractorReason::OtherCharacter => "other_character",
            DistractorReason::LaterEvent => "later_event",
            DistractorReason::UnsupportedMotive => "unsupported_motive",
            DistractorReason::TrueBelief => "true_belief",
            DistractorReason::NotKnown => "not_known",
            DistractorReason::Mistaken => "mistaken",
            DistractorReason::StillHeld => "still_held",
        }
    }
}

/// What a question asks, in the terms of the field's ToM benchmarks
/// (MovieGraph-ToM, ToMi, BigToM, OpenToM, FANToM; docs/trees-format.md): the kind a
/// researcher filters and reports by. Speaker, participants and line order
/// are trivia, asked only with `--include-trivia`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuestionKind {
    /// What a character believes or suspects at a point.
    Belief,
    /// Which of a character's beliefs is false.
    FalseBelief,
    /// What a character knows at a point, against what they only believe or do not know.
    KnowledgeAccess,
    /// What a character thinks about another's mind.
    HigherOrder,
    /// What a character wants or intends, or why.
    Intention,
    /// What a character feels, or why.
    Emotion,
    /// What a character pretends, or whom they deceive.
    Deception,
    /// Which of a character's states has ended (a belief corrected, a plan given up or carried out).
    BeliefChange,
    /// The cause or effect of an event, or the origin of a chain.
    Cause,
    /// What a character's state of mind leads them to do.
    Prediction,
    /// Who holds a state (trivia: mostly who said the line).
    Holder,
    /// Who takes part in an exchange (trivia).
    Participants,
    /// Which of two moments comes first (trivia).
    Order,
}

impl QuestionKind {
    /// Every kind, in report order.
    pub const ALL: [QuestionKind; 13] = [
        QuestionKind::Belief,
        QuestionKind::FalseBelief,
        QuestionKind::KnowledgeAccess,
        QuestionKind::HigherOrder,
        QuestionKind::Intention,
        QuestionKind::Emotion,
        QuestionKind::Deception,
        QuestionKind::BeliefChange,
        QuestionKind::Cause,
        QuestionKind::Prediction,
        QuestionKind::Holder,
        QuestionKind::Participants,
        QuestionKind::Order,
    ];

    /// The snake_case name used in files and tables.
    pub fn as_str(self) -> &'static str {
        match self {
            QuestionKind::Belief => "belief",
            QuestionKind::FalseBelief => "false_belief",
            QuestionKind::KnowledgeAccess => "knowledge_access",
            QuestionKind::HigherOrder => "higher_order",
            QuestionKind::Intention => "intention",
            QuestionKind::Emotion => "emotion",
            QuestionKind::Deception => "deception",
            QuestionKind::BeliefChange => "belief_change",
            QuestionKind::Cause => "cause",
            QuestionKind::Prediction => "prediction",
            QuestionKind::Holder => "holder",
            QuestionKind::Participants => "participants",
            QuestionKind::Order => "order",
        }
    }

    /// Whether the kind asks what was said, by whom or when, not about a
    /// mind or a cause.
    pub fn is_trivia(self) -> bool {
        matches!(
            self,
            QuestionKind::Holder | QuestionKind::Participants | QuestionKind::Order
        )
    }
}

/// A category: MovieGraph level 1 (e.g. `Theory of Mind`) and level 2 (e.g. `Belief Tracking`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Category {
    /// Level-1 category.
    pub level1: String,
    /// Level-2 sub-category.
    pub level2: String,
}

/// Tags from taxonomies other than MovieGraph's.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tags {
    /// What the question asks ([`QuestionKind`]); absent in trees written
    /// before kinds existed or by another tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<QuestionKind>,
    /// Seven-level group audit level, 1..=7, for scenes with three or more characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_level: Option<u8>,
    /// `belief`, `social_goal` or `belief_of_goal`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub belief_goal: Option<String>,
    /// ATOMS abilities (e.g. `beliefs`, `intentions`, `emotions`, `knowledge`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub atoms: Vec<String>,
    /// Any other label an imported benchmark gives its items (name → value,
    /// e.g. `ability` → `second-order belief`); reports break accuracy down by each.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub other: BTreeMap<String, String>,
}

/// One answer option of a choice question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnswerOption {
    /// The letter shown to the subject (`A`, `B`, …).
    pub label: String,
    /// The option's text.
    pub text: String,
    /// Whether it is (one of) the right answer(s).
    pub correct: bool,
    /// For a distractor, why it is wrong.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<DistractorReason>,
    /// The node this option leads to, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub child: Option<String>,
}

/// Where an open question leads, by the correctness of the answer.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenBranches {
    /// The child asked after a correct answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correct: Option<String>,
    /// The child asked after an incorrect answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incorrect: Option<String>,
}

/// What a child node assumes its parent's answer was.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Trigger {
    /// The parent's option with this label was chosen.
    Option {
        /// The option's label.
        label: String,
    },
    /// The parent's open question was answered correctly.
    OpenCorrect,
    /// The parent's open question was answered incorrectly.
    OpenIncorrect,
}

/// The context a question carries: what the subject may see. Never the graph.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Context {
    /// Ids of the blocks the excerpt comes from.
    pub blocks: Vec<usize>,
    /// The script excerpt.
    pub excerpt: String,
    /// Up to five keyframe paths, relative to the workspace.
    #[serde(default)]
    pub keyframes: Vec<String>,
}

/// One question of a tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// Id unique within the tree (e.g. `n1`, `n1.b`).
    pub id: String,
    /// 1 for the root.
    pub depth: u32,
    /// The parent's id, `None` for the root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// The parent answer this node follows from (`None` for the root).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<Trigger>,
    /// The parent answer stated as a premise in phase 2 ("Assuming the previous
    /// answer was …"): the trigger option's text, or for an open parent's
    /// incorrect branch, a representative wrong answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub premise: Option<String>,
    /// The question text.
    pub question: String,
    /// The answer format.
    pub format: Format,
    /// Options of a choice question (empty for open).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<AnswerOption>,
    /// Reference answer of an open question.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// Children of an open question.
    #[serde(default, skip_serializing_if = "is_default")]
    pub open_branches: OpenBranches,
    /// MovieGraph category.
    pub category: Category,
    /// Basic ToM or complex reasoning.
    #[serde(rename = "type")]
    pub question_type: QuestionType,
    /// Tags from other taxonomies.
    #[serde(default, skip_serializing_if = "is_default")]
    pub tags: Tags,
    /// Graph element ids the question and its gold answer derive from.
    pub derived_from: Vec<String>,
    /// What the subject sees with the question.
    pub context: Context,
}

fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

impl Tree {
    /// Whether this is an imported benchmark item rather than a tree of a film's graph.
    pub fn is_item(&self) -> bool {
        self.anchor.kind == AnchorKind::Item
    }

    /// The premise a phase-2 question is asked under: the node's `premise`,
    /// else the text of its trigger option (or the parent's reference for an
    /// open parent's correct branch); `None` for the root and for an open
    /// parent's incorrect branch without a premise.
    pub fn premise_text(&self, node: &Node) -> Option<String> {
        if let Some(premise) = &node.premise {
            return Some(premise.clone());
        }
        let parent = self.node(node.parent.as_deref()?)?;
        match node.trigger.as_ref()? {
            Trigger::Option { label } => parent.option(label).map(|o| o.text.clone()),
            Trigger::OpenCorrect => parent.reference.clone(),
            Trigger::OpenIncorrect => None,
        }
    }

    /// The sentence that opens a follow-up asked out of its path (phase 2, or
    /// a flat export): the parent's question and the answer assumed for it.
    /// `None` for the root.
    pub fn counterfactual_lead(&self, node: &Node) -> Option<String> {
        let parent = self.node(node.parent.as_deref()?)?;
        let question = &parent.question;
        Some(match self.premise_text(node) {
            Some(premise) => format!(
                "Thought experiment. Assuming the previous answer was \"{premise}\" (to the \
                 question \"{question}\"), answer the following question."
            ),
            None => format!(
                "Thought experiment. Assuming the previous answer to the question \
                 \"{question}\" was wrong, answer the following question."
            ),
        })
    }

    /// What the context is called where a person or model reads it: a film's
    /// trees quote the screenplay; an imported item's context is the
    /// benchmark's own text (a story, an episode).
    pub fn context_heading(&self) -> &'static str {
        if self.is_item() {
            "Context"
        } else {
            "Screenplay excerpt"
        }
    }

    /// The root node (the first node), if the tree has any.
    pub fn root(&self) -> Option<&Node> {
        self.nodes.first()
    }

    /// The node with this id.
    pub fn node(&self, id: &str) -> Option<&Node> {
        self.nodes.iter().find(|node| node.id == id)
    }

    /// The deepest depth in the tree (`D` in docs/evaluation.md).
    pub fn max_depth(&self) -> u32 {
        self.nodes.iter().map(|node| node.depth).max().unwrap_or(0)
    }
}

impl Node {
    /// Labels of the correct options, in option order.
    pub fn correct_labels(&self) -> Vec<&str> {
        self.options
            .iter()
            .filter(|option| option.correct)
            .map(|option| option.label.as_str())
            .collect()
    }

    /// The option with this label.
    pub fn option(&self, label: &str) -> Option<&AnswerOption> {
        self.options.iter().find(|option| option.label == label)
    }

    /// Ids of this node's children, in option order (open: correct, then incorrect).
    pub fn children(&self) -> Vec<&str> {
        let mut out: Vec<&str> = self
            .options
            .iter()
            .filter_map(|option| option.child.as_deref())
            .collect();
        out.extend(self.open_branches.correct.as_deref());
        out.extend(self.open_branches.incorrect.as_deref());
        out
    }
}
