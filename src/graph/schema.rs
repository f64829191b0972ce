//! The graph's types (docs/graph-format.md). **API boundary**: their serde form is the
//! exchange format of `graphs/<film>.json` (docs/graph-format.md).

use serde::{Deserialize, Serialize};

/// The kind of a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    /// A person in the story.
    Character,
    /// A prop that matters.
    Object,
    /// A place (from scene headings).
    Location,
    /// A plot point: who, what, where, when.
    Event,
    /// A belief, desire, intention, emotion… held by a character.
    MentalState,
}

impl NodeKind {
    /// Every kind, in table order.
    pub const ALL: [NodeKind; 5] = [
        NodeKind::Character,
        NodeKind::Object,
        NodeKind::Location,
        NodeKind::Event,
        NodeKind::MentalState,
    ];

    /// snake_case name, also the id prefix.
    pub fn as_str(self) -> &'static str {
        match self {
            NodeKind::Character => "character",
            NodeKind::Object => "object",
            NodeKind::Location => "location",
            NodeKind::Event => "event",
            NodeKind::MentalState => "mental_state",
        }
    }

    /// Parses [`NodeKind::as_str`].
    pub fn parse(s: &str) -> Option<NodeKind> {
        NodeKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// The kind of an edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EdgeKind {
    /// ToM: character → mental state.
    Holds,
    /// ToM: mental state → any node (a mental state for higher-order ToM).
    About,
    /// ToM: character → event.
    Perceives,
    /// ToM: event → mental state it makes known.
    Reveals,
    /// ToM: event → mental state it hides.
    Conceals,
    /// Causal: event → event.
    Causes,
    /// Causal: event → event.
    Enables,
    /// Causal: event → event.
    Prevents,
    /// Causal: mental state → event.
    Motivates,
    /// Causal: event → mental state.
    Triggers,
    /// Story order only, event → event: the source happens before the
    /// target; no causal claim (docs/graph-format.md).
    Precedes,
    /// Context: character → event.
    ParticipatesIn,
    /// Context: event or character → location.
    LocatedAt,
    /// Context: character → object.
    Possesses,
    /// Context: character → character; `label` names the relation.
    SocialRelation,
}

/// The three edge families of docs/graph-format.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EdgeFamily {
    /// Theory-of-Mind edges.
    Tom,
    /// Causal edges (their subgraph must be a DAG).
    Causal,
    /// Context edges.
    Context,
}

impl EdgeKind {
    /// Every kind, in table order.
    pub const ALL: [EdgeKind; 15] = [
        EdgeKind::Holds,
        EdgeKind::About,
        EdgeKind::Perceives,
        EdgeKind::Reveals,
        EdgeKind::Conceals,
        EdgeKind::Causes,
        EdgeKind::Enables,
        EdgeKind::Prevents,
        EdgeKind::Motivates,
        EdgeKind::Triggers,
        EdgeKind::Precedes,
        EdgeKind::ParticipatesIn,
        EdgeKind::LocatedAt,
        EdgeKind::Possesses,
        EdgeKind::SocialRelation,
    ];

    /// snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            EdgeKind::Holds => "holds",
            EdgeKind::About => "about",
            EdgeKind::Perceives => "perceives",
            EdgeKind::Reveals => "reveals",
            EdgeKind::Conceals => "conceals",
            EdgeKind::Causes => "causes",
            EdgeKind::Enables => "enables",
            EdgeKind::Prevents => "prevents",
            EdgeKind::Motivates => "motivates",
            EdgeKind::Triggers => "triggers",
            EdgeKind::Precedes => "precedes",
            EdgeKind::ParticipatesIn => "participates_in",
            EdgeKind::LocatedAt => "located_at",
            EdgeKind::Possesses => "possesses",
            EdgeKind::SocialRelation => "social_relation",
        }
    }

    /// Parses [`EdgeKind::as_str`].
    pub fn parse(s: &str) -> Option<EdgeKind> {
        EdgeKind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// The family this kind belongs to.
    pub fn family(self) -> EdgeFamily {
        use EdgeKind::*;
        match self {
            Holds | About | Perceives | Reveals | Conceals => EdgeFamily::Tom,
            Causes | Enables | Prevents | Motivates | Triggers | Precedes => EdgeFamily::Causal,
            ParticipatesIn | LocatedAt | Possesses | SocialRelation => EdgeFamily::Context,
        }
    }

    /// Whether the edge claims that its source brings its target about: every
    /// causal-family kind but `precedes`, which only orders two events.
    pub fn claims_cause(self) -> bool {
        self.family() == EdgeFamily::Causal && self != EdgeKind::Precedes
    }

    /// The node kinds allowed at (source, target); `None` means any kind.
    pub fn endpoints(self) -> (Option<NodeKind>, Option<NodeKind>) {
        use EdgeKind::*;
        use NodeKind as N;
        match self {
            Holds => (Some(N::Character), Some(N::MentalState)),
            About => (Some(N::MentalState), None),
            Perceives => (Some(N::Character), Some(N::Event)),
            Reveals | Conceals | Triggers => (Some(N::Event), Some(N::MentalState)),
            Causes | Enables | Prevents | Precedes => (Some(N::Event), Some(N::Event)),
            Motivates => (Some(N::MentalState), Some(N::Event)),
            ParticipatesIn => (Some(N::Character), Some(N::Event)),
            LocatedAt => (None, Some(N::Location)),
            Possesses => (Some(N::Character), Some(N::Object)),
            SocialRelation => (Some(N::Character), Some(N::Character)),
        }
    }
}

/// What a mental state is (docs/graph-format.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Attitude {
    /// Takes something to be true (see [`Node::truth`] for false beliefs).
    Belief,
    /// Knows or comes to know (realizes, understands).
    Knowledge,
    /// Wants, hopes.
    Desire,
    /// Plans, decides, means to.
    Intention,
    /// Fear, guilt, jealousy, relief…
    Emotion,
    /// Suspects, doubts.
    Suspicion,
    /// Pretends or lies: deception.
    Pretense,
    /// A goal toward another character (help, hinder, independent).
    SocialGoal,
}

impl Attitude {
    /// The attitude family states are matched in (docs/graph-format.md): belief
    /// (belief, knowledge, suspicion), desire (desire, social goal),
    /// intention, emotion, pretense.
    pub fn family(self) -> &'static str {
        match self {
            Attitude::Belief | Attitude::Knowledge | Attitude::Suspicion => "belief",
            Attitude::Desire | Attitude::SocialGoal => "desire",
            Attitude::Intention => "intention",
            Attitude::Emotion => "emotion",
            Attitude::Pretense => "pretense",
        }
    }

    /// snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Attitude::Belief => "belief",
            Attitude::Knowledge => "knowledge",
            Attitude::Desire => "desire",
            Attitude::Intention => "intention",
            Attitude::Emotion => "emotion",
            Attitude::Suspicion => "suspicion",
            Attitude::Pretense => "pretense",
            Attitude::SocialGoal => "social_goal",
        }
    }
}

/// A speech act or action class of an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Act {
    /// Something done, from an action paragraph.
    Action,
    /// Makes something known.
    Reveal,
    /// Says what the speaker knows to be false.
    Lie,
    /// Commits the speaker.
    Promise,
    /// Announces harm.
    Threat,
    /// Tells another to do something.
    Order,
    /// Admits a wrong.
    Confession,
    /// Declines a request.
    Refusal,
}

impl Act {
    /// snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Act::Action => "action",
            Act::Reveal => "reveal",
            Act::Lie => "lie",
            Act::Promise => "promise",
            Act::Threat => "threat",
            Act::Order => "order",
            Act::Confession => "confession",
            Act::Refusal => "refusal",
        }
    }
}

/// A quote that supports a node or edge: where it is and what it says.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Evidence {
    /// Block id.
    pub block: usize,
    /// Screenplay element index.
    pub element: usize,
    /// Character (not byte) offset of the quote's start in the element text.
    pub start: usize,
    /// Character offset just past the quote's end.
    pub end: usize,
    /// The quoted text.
    pub quote: String,
    /// Keyframe paths, where the evidence is visual.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keyframes: Vec<String>,
}

/// A node of the graph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// Stable id derived from content (`character:quinton`, `event:e0042-lie`).
    pub id: String,
    /// Its kind.
    pub kind: NodeKind,
    /// Display name (a character's name, an event's or mental state's gloss).
    pub name: String,
    /// Other names (characters: full names from introductions, cue variants).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// Mental states: the attitude.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attitude: Option<Attitude>,
    /// Mental states: the holder's node id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holder: Option<String>,
    /// Mental states: what it is about (a node id), also an `about` edge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// Mental states: the content in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Beliefs: `Some(false)` marks a false belief.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truth: Option<bool>,
    /// Mental states: the scene (0-based) in which the state ends: corrected,
    /// given up, carried out, exposed or resolved. `None`: not known to end
    /// (it may still hold, or the film does not say).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until_scene: Option<usize>,
    /// Mental states: the holder holds the negation of the content ("doesn't
    /// know the ring is gone": knowledge of "the ring is gone", negated; the
    /// content itself is never inverted).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub negated: bool,
    /// Mental states: `Some(true)` when the script states it in so many
    /// words, `Some(false)` when a reader infers it, `None` when the
    /// generator did not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explicit: Option<bool>,
    /// Events: the acting character's node id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// Events: every character involved (agent first), as node ids.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub participants: Vec<String>,
    /// Events: the act.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub act: Option<Act>,
    /// Events and mental states: story time, the element index where it happens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<usize>,
    /// Events and mental states: the scene index.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scene: Option<usize>,
    /// Blocks where it holds or appears, ascending.
    pub blocks: Vec<usize>,
    /// Supporting quotes.
    pub evidence: Vec<Evidence>,
}

impl Node {
    /// A node with only id, kind and name set.
    pub fn new(id: impl Into<String>, kind: NodeKind, name: impl Into<String>) -> Node {
        Node {
            id: id.into(),
            kind,
            name: name.into(),
            aliases: Vec::new(),
            attitude: None,
            holder: None,
            target: None,
            content: None,
            truth: None,
            until_scene: None,
            negated: false,
            explicit: None,
            agent: None,
            participants: Vec::new(),
            act: None,
            order: None,
            scene: None,
            blocks: Vec::new(),
            evidence: Vec::new(),
        }
    }
}

/// A directed, typed edge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Edge {
    /// Stable id: `<kind>:<source>-><target>`.
    pub id: String,
    /// Its kind.
    pub kind: EdgeKind,
    /// Source node id.
    pub source: String,
    /// Target node id.
    pub target: String,
    /// Social relations: the relation (`sibling`, `creditor`…); else absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// A causal edge allowed to run backwards in story time.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub flashback: bool,
    /// Causal links from an annotation: the script states the link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explicit: Option<bool>,
    /// Causal links from an annotation: the link's id there (`c4`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
    /// Causal links from an annotation: each annotated chain the link is a
    /// step of, as (chain, step), both 0-based.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chains: Vec<(usize, usize)>,
    /// Blocks where it holds, ascending.
    pub blocks: Vec<usize>,
    /// Supporting quotes.
    pub evidence: Vec<Evidence>,
}

impl Edge {
    /// The id an edge of this kind between these nodes has.
    pub fn make_id(kind: EdgeKind, source: &str, target: &str) -> String {
        format!("{}:{source}->{target}", kind.as_str())
    }

    /// A new edge with its id derived from kind and endpoints.
    pub fn new(kind: EdgeKind, source: &str, target: &str) -> Edge {
        Edge {
            id: Edge::make_id(kind, source, target),
            kind,
            source: source.to_owned(),
            target: target.to_owned(),
            label: None,
            flashback: false,
            explicit: None,
            link: None,
            chains: Vec::new(),
            blocks: Vec::new(),
            evidence: Vec::new(),
        }
    }
}

/// A proposed node or edge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Item {
    /// A node.
    Node(Node),
    /// An edge.
    Edge(Edge),
}

impl Item {
    /// The node or edge id.
    pub fn id(&self) -> &str {
        match self {
            Item::Node(n) => &n.id,
            Item::Edge(e) => &e.id,
        }
    }

    /// `node:<kind>` or `edge:<kind>`, the row label of the construction table.
    pub fn kind_label(&self) -> String {
        match self {
            Item::Node(n) => format!("node:{}", n.kind.as_str()),
            Item::Edge(e) => format!("edge:{}", e.kind.as_str()),
        }
    }

    /// The evidence of the node or edge.
    pub fn evidence(&self) -> &[Evidence] {
        match self {
            Item::Node(n) => &n.evidence,
            Item::Edge(e) => &e.evidence,
        }
    }
}

/// Where a candidate stands (the pipeline in ARCHITECTURE.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Proposed, not yet judged.
    Candidate,
    /// Verified: in the graph.
    Accepted,
    /// Judged wrong.
    Rejected,
    /// Auditors disagreed; waiting for the adjudicator or a person.
    Escalated,
}

impl Status {
    /// snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Candidate => "candidate",
            Status::Accepted => "accepted",
            Status::Rejected => "rejected",
            Status::Escalated => "escalated",
        }
    }

    /// Parses [`Status::as_str`].
    pub fn parse(s: &str) -> Option<Status> {
        [
            Status::Candidate,
            Status::Accepted,
            Status::Rejected,
            Status::Escalated,
        ]
        .into_iter()
        .find(|k| k.as_str() == s)
    }
}

/// Who cast a vote.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// One of the independent auditors.
    Auditor,
    /// The judge model for escalated candidates.
    Adjudicator,
    /// A person, through `moviegraph graph review`.
    Human,
}

/// One judgement of one candidate, with its reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Vote {
    /// The judge's name (`rules-grounding`, a model name, `human`).
    pub judge: String,
    /// Its role.
    pub role: Role,
    /// Accept (true) or reject.
    pub accept: bool,
    /// Why.
    pub rationale: String,
}

/// A proposed node or edge of one block, with its judgements.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    /// `<item id>@b<block>`: one candidate per item and block.
    pub id: String,
    /// The block that proposed it.
    pub block: usize,
    /// The node or edge (endpoints already resolved to graph ids).
    pub item: Item,
    /// The generator's reason (the rule, or the model's note).
    pub reason: String,
    /// Where it stands.
    pub status: Status,
    /// Every vote, auditors first, then adjudicator or person.
    pub votes: Vec<Vote>,
}

impl Candidate {
    /// The candidate id of an item proposed in a block.
    pub fn make_id(item_id: &str, block: usize) -> String {
        format!("{item_id}@b{block:03}")
    }
}

/// A recorded entity-resolution merge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Merge {
    /// The block whose candidate was merged.
    pub block: usize,
    /// The name the generator proposed.
    pub name: String,
    /// The id the generator proposed.
    pub proposed: String,
    /// The existing node it was merged into.
    pub into: String,
    /// Which tier matched: `exact`, `identity`, `fuzzy`, `head`, `embedding`.
    pub tier: String,
    /// The tier's similarity (1 for exact matches).
    pub score: f64,
}

/// Lowercase words joined by `-`, for ids.
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        if !out.is_empty() {
            out.push('-');
        }
        out.extend(word.chars().flat_map(char::to_lowercase));
        if out.len() > 48 {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_lowercase_words() {
        assert_eq!(
            slug("ELLIS WATCH & PAWN - Workshop"),
            "ellis-watch-pawn-workshop"
        );
        assert_eq!(slug("  "), "");
    }

    #[test]
    fn kinds_round_trip_through_their_names() {
        for k in NodeKind::ALL {
            assert_eq!(NodeKind::parse(k.as_str()), Some(k));
        }
        for k in EdgeKind::ALL {
            assert_eq!(EdgeKind::parse(k.as_str()), Some(k));
        }
        assert_eq!(EdgeKind::Causes.family(), EdgeFamily::Causal);
    }
}
