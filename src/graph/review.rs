//! People verifying a graph (`moviegraph graph review --serve`): what one
//! reviewer decides about one candidate, the rule that turns the decisions of
//! several people into the verified graph (docs/review.md), a candidate as a
//! sentence a person reads, and the precision a reviewed random sample gives.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::schema::{Attitude, Candidate, Edge, EdgeKind, Item, Node, NodeKind, Status};

/// Why a reviewer rejects a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RejectReason {
    /// Someone else holds it.
    WrongHolder,
    /// The holder holds the opposite.
    WrongPolarity,
    /// Its truth value is wrong (a false belief marked true, or the reverse).
    WrongTruth,
    /// It is held, but as another attitude (a wish, not a belief).
    WrongAttitude,
    /// The film does not show it.
    NotSupported,
    /// A person cannot read what it says.
    Unreadable,
}

impl RejectReason {
    /// Every reason, in the order the page offers them (keys 1-6).
    pub const ALL: [RejectReason; 6] = [
        RejectReason::WrongHolder,
        RejectReason::WrongPolarity,
        RejectReason::WrongTruth,
        RejectReason::WrongAttitude,
        RejectReason::NotSupported,
        RejectReason::Unreadable,
    ];

    /// snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            RejectReason::WrongHolder => "wrong_holder",
            RejectReason::WrongPolarity => "wrong_polarity",
            RejectReason::WrongTruth => "wrong_truth",
            RejectReason::WrongAttitude => "wrong_attitude",
            RejectReason::NotSupported => "not_supported",
            RejectReason::Unreadable => "unreadable",
        }
    }

    /// Parses [`RejectReason::as_str`].
    pub fn parse(s: &str) -> Option<RejectReason> {
        RejectReason::ALL.into_iter().find(|r| r.as_str() == s)
    }

    /// In words, for the page.
    pub fn label(self) -> &'static str {
        match self {
            RejectReason::WrongHolder => "wrong holder",
            RejectReason::WrongPolarity => "wrong polarity",
            RejectReason::WrongTruth => "wrong truth",
            RejectReason::WrongAttitude => "wrong attitude",
            RejectReason::NotSupported => "not supported",
            RejectReason::Unreadable => "unreadable",
        }
    }
}

/// A truth value a reviewer sets: true, false, or not known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Truth {
    /// True.
    True,
    /// False (a false belief).
    False,
    /// Not known.
    Unknown,
}

impl Truth {
    fn value(self) -> Option<bool> {
        match self {
            Truth::True => Some(true),
            Truth::False => Some(false),
            Truth::Unknown => None,
        }
    }
}

/// What a reviewer changes in a mental state; fields left `None` stay as
/// proposed. Scenes are 0-based, as in the graph.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Correction {
    /// The holder's character node id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holder: Option<String>,
    /// The attitude.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attitude: Option<Attitude>,
    /// Whether the holder holds the negation of the content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub negated: Option<bool>,
    /// The truth value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truth: Option<Truth>,
    /// What is held, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// The scene where it is first shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scene: Option<usize>,
    /// The last scene where it still holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until_scene: Option<usize>,
    /// A higher-order `about` edge: the node (mental state or event) the
    /// state is really about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub about: Option<String>,
}

impl Correction {
    /// Whether it changes nothing.
    pub fn is_empty(&self) -> bool {
        self == &Correction::default()
    }

    /// `node` with the correction applied (a mental state; other nodes only
    /// take the scenes).
    pub fn apply(&self, node: &Node) -> Node {
        let mut n = node.clone();
        if n.kind == NodeKind::MentalState {
            if let Some(h) = &self.holder {
                n.holder = Some(h.clone());
            }
            if let Some(a) = self.attitude {
                n.attitude = Some(a);
            }
            if let Some(neg) = self.negated {
                n.negated = neg;
            }
            if let Some(t) = self.truth {
                n.truth = t.value();
            }
            if let Some(c) = &self.content {
                n.content = Some(c.clone());
                n.name = c.clone();
            }
        }
        if let Some(s) = self.scene {
            n.scene = Some(s);
        }
        if let Some(u) = self.until_scene {
            n.until_scene = Some(u);
        }
        n
    }

    /// `edge` with the correction applied: an `about` edge takes its new
    /// target (and the id that follows from it); other edges are unchanged.
    pub fn apply_edge(&self, edge: &Edge) -> Edge {
        let mut e = edge.clone();
        if let (EdgeKind::About, Some(target)) = (e.kind, &self.about) {
            e.target = target.clone();
            e.id = Edge::make_id(e.kind, &e.source, &e.target);
        }
        e
    }
}

/// What one reviewer decides about one candidate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Verdict {
    /// It is right as proposed.
    Accept,
    /// It is wrong, for this reason.
    Reject {
        /// Why.
        reason: RejectReason,
    },
    /// It is right once corrected so.
    Correct {
        /// The changes.
        correction: Correction,
    },
}

impl Verdict {
    /// `accept`, `reject` or `correct`: the value agreement is measured on.
    pub fn class(&self) -> &'static str {
        match self {
            Verdict::Accept => "accept",
            Verdict::Reject { .. } => "reject",
            Verdict::Correct { .. } => "correct",
        }
    }
}

/// One reviewer's decision, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    /// The candidate decided.
    pub candidate: String,
    /// The reviewer's name.
    pub reviewer: String,
    /// When, in milliseconds since the Unix epoch.
    pub at_ms: i64,
    /// The queue the reviewer was working through (`sample` counts for
    /// precision; `add` is a state the reviewer added).
    pub queue: String,
    /// What they decided.
    pub verdict: Verdict,
}

/// What the people's decisions make of a candidate.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// No person decided: the models' status stands.
    Models,
    /// The people's majority: this status and item.
    People(Status, Box<Item>),
    /// People disagree with no majority: it stays open for another person.
    Open,
}

/// The rule that turns people's decisions into the verified graph: people over
/// models; each reviewer's latest decision counts; the decision of more than
/// half of the reviewers who decided stands (a correction only with the same
/// correction); otherwise the candidate stays open (escalated) until another
/// person breaks the tie. `original` is the candidate as the models left it.
pub fn resolve(original: &Candidate, decisions: &[Decision]) -> Outcome {
    let mut latest: BTreeMap<&str, &Decision> = BTreeMap::new();
    for d in decisions.iter().filter(|d| d.candidate == original.id) {
        match latest.get(d.reviewer.as_str()) {
            Some(have) if have.at_ms > d.at_ms => {}
            _ => {
                latest.insert(&d.reviewer, d);
            }
        }
    }
    if latest.is_empty() {
        return Outcome::Models;
    }
    let people = latest.len();
    let count =
        |pred: &dyn Fn(&Verdict) -> bool| latest.values().filter(|d| pred(&d.verdict)).count();
    let accepts = count(&|v| matches!(v, Verdict::Accept));
    let rejects = count(&|v| matches!(v, Verdict::Reject { .. }));
    if accepts * 2 > people {
        return Outcome::People(Status::Accepted, Box::new(original.item.clone()));
    }
    if rejects * 2 > people {
        return Outcome::People(Status::Rejected, Box::new(original.item.clone()));
    }
    let mut corrections: BTreeMap<&Correction, usize> = BTreeMap::new();
    for d in latest.values() {
        if let Verdict::Correct { correction } = &d.verdict {
            *corrections.entry(correction).or_default() += 1;
        }
    }
    match corrections.into_iter().find(|(_, n)| n * 2 > people) {
        Some((c, _)) => {
            let item = match &original.item {
                Item::Node(n) => Item::Node(c.apply(n)),
                Item::Edge(e) => Item::Edge(c.apply_edge(e)),
            };
            Outcome::People(Status::Accepted, Box::new(item))
        }
        None => Outcome::Open,
    }
}

/// The verb of an attitude in a sentence, plain and negated.
fn verbs(a: Attitude) -> (&'static str, &'static str) {
    match a {
        Attitude::Belief => ("believes", "does not believe"),
        Attitude::Knowledge => ("knows", "does not know"),
        Attitude::Desire => ("wants", "does not want"),
        Attitude::Intention => ("intends", "does not intend"),
        Attitude::Emotion => ("feels", "does not feel"),
        Attitude::Suspicion => ("suspects", "does not suspect"),
        Attitude::Pretense => ("pretends", "does not pretend"),
        Attitude::SocialGoal => ("aims at", "does not aim at"),
    }
}

/// A candidate as a sentence a person reads (`Mara believes Quinton threw the
/// key into the harbour (a false belief)`); `name` gives a node id's name.
pub fn sentence(item: &Item, name: &dyn Fn(&str) -> String) -> String {
    match item {
        Item::Node(n) if n.kind == NodeKind::MentalState => {
            let holder = n.holder.as_deref().map_or("someone".to_owned(), name);
            let (plain, negated) = n.attitude.map_or(("holds", "does not hold"), verbs);
            let content = n.content.as_deref().unwrap_or(&n.name);
            let truth = match n.truth {
                Some(false) => " (a false belief)",
                _ => "",
            };
            let verb = if n.negated { negated } else { plain };
            format!("{holder} {verb} {content}{truth}")
        }
        Item::Node(n) => format!("{} “{}”", n.kind.as_str().replace('_', " "), n.name),
        Item::Edge(e) => format!(
            "{} {} {}",
            name(&e.source),
            e.kind.as_str().replace('_', " "),
            name(&e.target)
        ),
    }
}

/// An estimated share with its 95 % Wilson score interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// Right.
    pub right: usize,
    /// Judged.
    pub of: usize,
    /// right / of.
    pub share: f64,
    /// Lower end of the 95 % interval.
    pub low: f64,
    /// Upper end of the 95 % interval.
    pub high: f64,
}

/// `right` of `of` as a share with its 95 % Wilson score interval (`None`
/// when nothing was judged).
pub fn wilson(right: usize, of: usize) -> Option<Estimate> {
    if of == 0 {
        return None;
    }
    let (n, z) = (of as f64, 1.959_963_984_540_054_f64);
    let p = right as f64 / n;
    let z2 = z * z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = z / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    Some(Estimate {
        right,
        of,
        share: p,
        low: (centre - half).max(0.0),
        high: (centre + half).min(1.0),
    })
}

/// What agreement is measured by: the attitude of a mental state, else the
/// node or edge kind.
pub fn kind_of(item: &Item) -> String {
    match item {
        Item::Node(n) => n
            .attitude
            .map_or_else(|| item.kind_label(), |a| a.as_str().to_owned()),
        Item::Edge(_) => item.kind_label(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::schema::Vote;

    fn state() -> Candidate {
        let mut n = Node::new("mental_state:m1", NodeKind::MentalState, "the key is lost");
        n.attitude = Some(Attitude::Belief);
        n.holder = Some("character:mara".into());
        n.content = Some("the key is lost".into());
        Candidate {
            id: "mental_state:m1@b000".into(),
            block: 0,
            item: Item::Node(n),
            reason: "r".into(),
            status: Status::Accepted,
            votes: Vec::<Vote>::new(),
        }
    }

    fn d(reviewer: &str, at_ms: i64, verdict: Verdict) -> Decision {
        Decision {
            candidate: "mental_state:m1@b000".into(),
            reviewer: reviewer.into(),
            at_ms,
            queue: "escalated".into(),
            verdict,
        }
    }

    fn holder(h: &str) -> Verdict {
        Verdict::Correct {
            correction: Correction {
                holder: Some(h.into()),
                ..Correction::default()
            },
        }
    }

    fn reject() -> Verdict {
        Verdict::Reject {
            reason: RejectReason::WrongHolder,
        }
    }

    #[test]
    fn people_outrank_models_and_a_tie_stays_open_for_a_third() {
        let c = state();
        assert_eq!(resolve(&c, &[]), Outcome::Models);
        let one = [d("ana", 1, reject())];
        assert!(matches!(
            resolve(&c, &one),
            Outcome::People(Status::Rejected, _)
        ));
        let tie = [d("ana", 1, reject()), d("ben", 2, Verdict::Accept)];
        assert_eq!(resolve(&c, &tie), Outcome::Open);
        let third = [
            d("ana", 1, reject()),
            d("ben", 2, Verdict::Accept),
            d("cy", 3, Verdict::Accept),
        ];
        assert!(matches!(
            resolve(&c, &third),
            Outcome::People(Status::Accepted, _)
        ));
    }

    #[test]
    fn a_reviewers_latest_decision_counts_and_corrections_must_agree() {
        let c = state();
        let changed = [
            d("ana", 1, reject()),
            d("ana", 5, holder("character:quinton")),
        ];
        match resolve(&c, &changed) {
            Outcome::People(Status::Accepted, item) => match *item {
                Item::Node(n) => assert_eq!(n.holder.as_deref(), Some("character:quinton")),
                Item::Edge(_) => panic!("an edge"),
            },
            other => panic!("{other:?}"),
        }
        let split = [
            d("ana", 1, holder("character:quinton")),
            d("ben", 1, holder("character:ivy")),
        ];
        assert_eq!(resolve(&c, &split), Outcome::Open);
        let same = [
            d("ana", 1, holder("character:ivy")),
            d("ben", 1, holder("character:ivy")),
            d("cy", 1, Verdict::Accept),
        ];
        assert!(matches!(
            resolve(&c, &same),
            Outcome::People(Status::Accepted, _)
        ));
    }

    #[test]
    fn a_correction_changes_only_what_it_names() {
        let Item::Node(n) = state().item else {
            panic!()
        };
        let c = Correction {
            negated: Some(true),
            truth: Some(Truth::False),
            ..Correction::default()
        };
        let m = c.apply(&n);
        assert!(m.negated);
        assert_eq!(m.truth, Some(false));
        assert_eq!(m.holder, n.holder);
        assert_eq!(m.content, n.content);
        assert!(Correction::default().is_empty());
    }

    #[test]
    fn a_majority_correction_of_about_retargets_the_higher_order_edge() {
        let about = |target: &str| Correction {
            about: Some(target.into()),
            ..Correction::default()
        };
        let edge = Edge::new(EdgeKind::About, "mental_state:m1", "mental_state:m2");
        let c = Candidate {
            id: "about@b000".into(),
            block: 0,
            item: Item::Edge(edge.clone()),
            reason: "r".into(),
            status: Status::Accepted,
            votes: Vec::new(),
        };
        let said = |r: &str, t: &str| Decision {
            candidate: c.id.clone(),
            verdict: Verdict::Correct {
                correction: about(t),
            },
            ..d(r, 1, Verdict::Accept)
        };
        let two = [
            said("ana", "mental_state:m3"),
            said("ben", "mental_state:m3"),
        ];
        let Outcome::People(Status::Accepted, item) = resolve(&c, &two) else {
            panic!("two people agree on the correction")
        };
        let Item::Edge(e) = *item else { panic!() };
        assert_eq!(e.target, "mental_state:m3");
        assert_eq!(e.id, "about:mental_state:m1->mental_state:m3");
        assert_eq!(e.source, edge.source);
        // Two different targets: no majority.
        let split = [
            said("ana", "mental_state:m3"),
            said("ben", "mental_state:m4"),
        ];
        assert_eq!(resolve(&c, &split), Outcome::Open);
        // `about` leaves a causal edge and a state alone.
        let causes = Edge::new(EdgeKind::Causes, "event:a", "event:b");
        assert_eq!(about("event:c").apply_edge(&causes), causes);
        let Item::Node(n) = state().item else {
            panic!()
        };
        assert_eq!(about("event:c").apply(&n), n);
    }

    #[test]
    fn sentences_read_as_english() {
        let name = |id: &str| id.trim_start_matches("character:").to_owned();
        let mut c = state();
        assert_eq!(sentence(&c.item, &name), "mara believes the key is lost");
        if let Item::Node(n) = &mut c.item {
            n.negated = true;
            n.truth = Some(false);
        }
        assert_eq!(
            sentence(&c.item, &name),
            "mara does not believe the key is lost (a false belief)"
        );
    }

    #[test]
    fn wilson_interval_by_hand() {
        // 45 of 50: p = .9, z = 1.96: centre .8846, half .0841 (published tables: .786–.957).
        let e = wilson(45, 50).unwrap();
        assert!((e.low - 0.7864).abs() < 0.001, "{e:?}");
        assert!((e.high - 0.9565).abs() < 0.001, "{e:?}");
        assert_eq!(wilson(0, 0), None);
        let all = wilson(10, 10).unwrap();
        assert!(all.high <= 1.0 && all.low > 0.6);
    }
}
