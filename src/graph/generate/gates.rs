//! Rule families and their gates: which cue families of the `rules`
//! generator are trusted, by their precision measured on annotated films.
//!
//! A *family* is the cue a mental state or causal link came from (the part
//! of the generator's reason before its first colon) and what it made of it
//! (the attitude, or the edge kind): `mental-state verb with its holder /
//! knowledge`. `moviegraph bench graph --gold FILM…` measures each family's
//! precision on a corpus of annotated films and, with `--write-gates`,
//! writes the measurements to `gates.json` beside this file: the data the
//! generator reads. The file is regenerated, never edited by hand
//! (`scripts/regenerate-gates`).
//!
//! A family's precision is estimated with its cue as the prior: most
//! families are a cue read as one attitude, and a corpus of a few films
//! holds only a handful of each, while the cue across its attitudes holds
//! more. The estimate is `(right + w·p_cue) / (kept + w)`, where `p_cue` is
//! the cue's pooled precision over all its attitudes and `w` is
//! [`PRIOR_WEIGHT`] pseudo-items: a family with many items is judged by its
//! own, one with few mostly by its cue's. A family is on when it was seen
//! at all, its cue was seen on at least [`MIN_KEPT`] kept items, and the
//! estimate is at least [`MIN_PRECISION`]; a family the corpus never saw,
//! or whose cue it saw too rarely to know, is off.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::graph::schema::{Candidate, Item, NodeKind};
use crate::graph::Graph;

/// The lowest pooled precision a family needs to be on by default.
pub const MIN_PRECISION: f64 = 0.8;

/// The fewest kept items a family's cue needs before its precision counts
/// as known.
pub const MIN_KEPT: usize = 5;

/// How many items the cue's precision counts for in a family's estimate.
pub const PRIOR_WEIGHT: f64 = 5.0;

/// The measured gates the generator reads (written by `bench graph --gold
/// … --write-gates`).
const MEASURED: &str = include_str!("gates.json");

/// The family of a generated item: mental states and causal links have one,
/// other items (characters, events, context edges) none.
pub fn family(reason: &str, item: &Item) -> Option<String> {
    let cue = cue(reason);
    match item {
        Item::Node(n) if n.kind == NodeKind::MentalState => {
            let attitude = n.attitude.map_or("belief", |a| a.as_str());
            Some(format!("{cue} / {attitude}"))
        }
        Item::Edge(e) if e.kind.claims_cause() => Some(format!("{cue} / {}", e.kind.as_str())),
        _ => None,
    }
}

/// The cue of a reason: the text before its first colon outside backticks.
fn cue(reason: &str) -> &str {
    let mut quoted = false;
    for (i, c) in reason.char_indices() {
        match c {
            '`' => quoted = !quoted,
            ':' if !quoted => return reason[..i].trim(),
            _ => {}
        }
    }
    reason.trim()
}

/// One family's measurement.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Measure {
    /// Items of the family in the verified graphs.
    pub kept: usize,
    /// Of those, how many matched a gold item.
    pub right: usize,
}

impl Measure {
    /// `right / kept` (0 when nothing was kept).
    pub fn precision(&self) -> f64 {
        if self.kept == 0 {
            0.0
        } else {
            self.right as f64 / self.kept as f64
        }
    }

    /// The sum of two measures.
    pub fn plus(self, other: Measure) -> Measure {
        Measure {
            kept: self.kept + other.kept,
            right: self.right + other.right,
        }
    }

    /// The precision estimated with `prior` counting for `weight` items:
    /// `(right + weight·prior) / (kept + weight)`.
    pub fn shrunk(&self, prior: f64, weight: f64) -> f64 {
        (self.right as f64 + weight * prior) / (self.kept as f64 + weight)
    }
}

/// The cue of a family name: what comes before its last ` / `.
pub fn family_cue(family: &str) -> &str {
    family.rsplit_once(" / ").map_or(family, |(cue, _)| cue)
}

/// Families measured on a corpus, and which are on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Gates {
    /// How the file was made (the command line).
    pub generated_by: String,
    /// The films measured.
    pub corpus: Vec<String>,
    /// The lowest precision a family needs ([`MIN_PRECISION`] when written).
    pub min_precision: f64,
    /// The fewest kept items a family's cue needs ([`MIN_KEPT`] when
    /// written).
    pub min_kept: usize,
    /// How many items the cue's precision counts for in a family's
    /// estimate ([`PRIOR_WEIGHT`] when written).
    #[serde(default = "default_prior_weight")]
    pub prior_weight: f64,
    /// Each family's pooled measurement.
    pub families: BTreeMap<String, Measure>,
}

impl Gates {
    /// Gates from pooled measurements.
    pub fn fit(
        families: BTreeMap<String, Measure>,
        corpus: Vec<String>,
        generated_by: String,
    ) -> Gates {
        Gates {
            generated_by,
            corpus,
            min_precision: MIN_PRECISION,
            min_kept: MIN_KEPT,
            prior_weight: PRIOR_WEIGHT,
            families,
        }
    }

    /// The gates in the repository's `gates.json`.
    pub fn measured() -> &'static Gates {
        static GATES: OnceLock<Gates> = OnceLock::new();
        GATES.get_or_init(|| {
            serde_json::from_str(MEASURED).expect("gates.json is written by bench graph --gold")
        })
    }

    /// The pooled measure of a cue over all its families.
    pub fn cue_measure(&self, cue: &str) -> Measure {
        self.families
            .iter()
            .filter(|(f, _)| family_cue(f) == cue)
            .fold(Measure::default(), |sum, (_, m)| sum.plus(*m))
    }

    /// A family's estimated precision (its own items, with its cue's
    /// precision as the prior; see the module's doc), or `None` when the
    /// corpus never saw it or saw its cue on too few items to know.
    pub fn estimate(&self, family: &str) -> Option<f64> {
        let own = self.families.get(family).filter(|m| m.kept > 0)?;
        let cue = self.cue_measure(family_cue(family));
        (cue.kept >= self.min_kept).then(|| own.shrunk(cue.precision(), self.prior_weight))
    }

    /// Whether `family` is on: measured, its cue on enough items, and its
    /// estimated precision high enough.
    pub fn is_on(&self, family: &str) -> bool {
        self.estimate(family)
            .is_some_and(|p| p >= self.min_precision)
    }

    /// The families that are on.
    pub fn on(&self) -> Vec<&str> {
        self.families
            .keys()
            .filter(|f| self.is_on(f))
            .map(String::as_str)
            .collect()
    }
}

fn default_prior_weight() -> f64 {
    PRIOR_WEIGHT
}

/// Which rule families the `rules` generator uses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Families {
    /// Only the families the measured gates put on (the `rules-gated`
    /// generator).
    Measured,
    /// Every family (the `rules` generator, the default): what the gates are
    /// measured on.
    #[default]
    All,
}

impl Families {
    /// Whether an item with this family (or none) is proposed.
    pub fn allows(self, family: Option<&str>) -> bool {
        match (self, family) {
            (_, None) | (Families::All, _) => true,
            (Families::Measured, Some(f)) => Gates::measured().is_on(f),
        }
    }
}

/// Each node or edge of the verified graph with the families of the
/// accepted candidates that proposed it.
pub fn graph_families(candidates: &[Candidate]) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for c in candidates
        .iter()
        .filter(|c| c.status == crate::graph::schema::Status::Accepted)
    {
        if let Some(f) = family(&c.reason, &c.item) {
            out.entry(c.item.id().to_owned()).or_default().insert(f);
        }
    }
    out
}

/// `graph` less the mental states and causal links none of whose families
/// `on` keeps, and the edges that touched a removed state: the graph the
/// generator would have proposed with those families off.
pub fn keep_families(
    graph: &Graph,
    families: &BTreeMap<String, BTreeSet<String>>,
    on: impl Fn(&str) -> bool,
) -> Graph {
    let kept = |id: &str| {
        families
            .get(id)
            .is_none_or(|fs| fs.iter().any(|f| on(f.as_str())))
    };
    let nodes: Vec<_> = graph
        .nodes
        .iter()
        .filter(|n| kept(&n.id))
        .cloned()
        .collect();
    let ids: BTreeSet<&str> = nodes.iter().map(|n| n.id.as_str()).collect();
    let edges = graph
        .edges
        .iter()
        .filter(|e| {
            kept(&e.id) && ids.contains(e.source.as_str()) && ids.contains(e.target.as_str())
        })
        .cloned()
        .collect();
    Graph {
        film: graph.film.clone(),
        nodes,
        edges,
    }
}

/// One family's row in `graph stats`: what it proposed in a build and what
/// was verified, with its gate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FamilyRow {
    /// The family.
    pub family: String,
    /// Candidates it proposed.
    pub proposed: usize,
    /// Of those, accepted.
    pub verified: usize,
    /// Its measurement in the repository's gates, if measured.
    pub measured: Option<Measure>,
    /// Whether the measured gates put it on.
    pub on: bool,
}

/// The families of a build's candidates, most proposed first.
pub fn family_rows(candidates: &[Candidate]) -> Vec<FamilyRow> {
    let mut counts: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for c in candidates {
        if let Some(f) = family(&c.reason, &c.item) {
            let e = counts.entry(f).or_default();
            e.0 += 1;
            e.1 += usize::from(c.status == crate::graph::schema::Status::Accepted);
        }
    }
    let gates = Gates::measured();
    let mut rows: Vec<FamilyRow> = counts
        .into_iter()
        .map(|(family, (proposed, verified))| FamilyRow {
            measured: gates.families.get(&family).copied(),
            on: gates.is_on(&family),
            family,
            proposed,
            verified,
        })
        .collect();
    rows.sort_by(|a, b| b.proposed.cmp(&a.proposed).then(a.family.cmp(&b.family)));
    rows
}

/// The families table of `graph stats`, for a build whose generator is
/// `generator` (`rules`: every family; `rules-gated`: the measured ones).
pub fn render_families(generator: &str, rows: &[FamilyRow]) -> String {
    use std::fmt::Write as _;
    let gates = Gates::measured();
    let mut out = String::new();
    let mode = if generator != "rules" {
        format!(
            "only the families measured at precision ≥ {} over ≥ {} kept ({} of {} measured are on; gates.json, corpus: {})",
            gates.min_precision,
            gates.min_kept,
            gates.on().len(),
            gates.families.len(),
            gates.corpus.join(", ")
        )
    } else {
        format!(
            "every family; `--generator rules-gated` keeps only the {} of {} measured at precision ≥ {} over ≥ {} kept (gates.json)",
            gates.on().len(),
            gates.families.len(),
            gates.min_precision,
            gates.min_kept
        )
    };
    let _ = writeln!(
        out,
        "rule families of the `{generator}` generator (a lexical baseline): {mode}"
    );
    let _ = writeln!(out, "  proposed verified  measured      gate  family");
    for r in rows {
        let measured = r.measured.map_or("never".to_owned(), |m| {
            format!("{:>3}/{:<3} {:.2}", m.right, m.kept, m.precision())
        });
        let _ = writeln!(
            out,
            "  {:>8} {:>8}  {measured:<13} {:<4}  {}",
            r.proposed,
            r.verified,
            if r.on { "on" } else { "off" },
            r.family
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::schema::{Attitude, Edge, EdgeKind, Node};

    fn state(attitude: Attitude) -> Item {
        let mut n = Node::new("mental_state:x", NodeKind::MentalState, "x");
        n.attitude = Some(attitude);
        Item::Node(n)
    }

    #[test]
    fn a_family_is_the_cue_and_what_it_made() {
        let f = family(
            "a verdict (`it's: not enough`): the speaker's belief",
            &state(Attitude::Belief),
        );
        assert_eq!(
            f.as_deref(),
            Some("a verdict (`it's: not enough`) / belief")
        );
        let f = family(
            "mental-state verb with its holder",
            &state(Attitude::Knowledge),
        );
        assert_eq!(
            f.as_deref(),
            Some("mental-state verb with its holder / knowledge")
        );
        let edge = Item::Edge(Edge::new(EdgeKind::Causes, "event:a", "event:b"));
        assert_eq!(
            family("`So`: then", &edge).as_deref(),
            Some("`So` / causes")
        );
        let context = Item::Edge(Edge::new(EdgeKind::LocatedAt, "event:a", "location:b"));
        assert_eq!(family("scene heading", &context), None);
    }

    #[test]
    fn a_family_is_on_only_when_measured_precise_on_enough_items() {
        let m = |kept, right| Measure { kept, right };
        let gates = Gates::fit(
            [
                ("precise / belief".to_owned(), m(10, 9)),
                ("imprecise / belief".to_owned(), m(10, 7)),
                ("rare / belief".to_owned(), m(MIN_KEPT - 1, MIN_KEPT - 1)),
            ]
            .into(),
            vec!["f".into()],
            "test".into(),
        );
        assert!(gates.is_on("precise / belief"));
        assert!(!gates.is_on("imprecise / belief"));
        // A cue seen on too few items is not known, however right it was.
        assert!(!gates.is_on("rare / belief"));
        assert!(!gates.is_on("never measured / belief"));
        assert_eq!(gates.on(), ["precise / belief"]);
    }

    #[test]
    fn a_rare_family_is_judged_mostly_by_its_cue() {
        let m = |kept, right| Measure { kept, right };
        let gates = Gates::fit(
            [
                // A precise cue: its rare attitudes borrow its precision.
                ("sure cue / knowledge".to_owned(), m(12, 12)),
                ("sure cue / desire".to_owned(), m(1, 1)),
                // A rare attitude that was wrong twice stays off even so.
                ("sure cue / intention".to_owned(), m(2, 0)),
                // An imprecise cue: a lucky rare attitude stays off.
                ("loose cue / belief".to_owned(), m(10, 5)),
                ("loose cue / emotion".to_owned(), m(1, 1)),
            ]
            .into(),
            vec!["f".into()],
            "test".into(),
        );
        assert!(gates.is_on("sure cue / knowledge"));
        assert!(gates.is_on("sure cue / desire"));
        assert!(!gates.is_on("sure cue / intention"));
        assert!(!gates.is_on("loose cue / belief"));
        assert!(!gates.is_on("loose cue / emotion"));
        // The estimate: (right + w·p_cue) / (kept + w).
        let p_cue = 13.0 / 15.0;
        let want = (1.0 + PRIOR_WEIGHT * p_cue) / (1.0 + PRIOR_WEIGHT);
        assert!((gates.estimate("sure cue / desire").unwrap() - want).abs() < 1e-12);
        assert_eq!(family_cue("a / b / knowledge"), "a / b");
    }

    #[test]
    fn the_measured_gates_parse_and_agree_with_their_own_rule() {
        let gates = Gates::measured();
        assert!(!gates.corpus.is_empty(), "gates.json names its corpus");
        assert_eq!(gates.min_precision, MIN_PRECISION);
        assert_eq!(gates.min_kept, MIN_KEPT);
        assert_eq!(gates.prior_weight, PRIOR_WEIGHT);
        for (f, m) in &gates.families {
            assert!(m.right <= m.kept, "{f}: {m:?}");
            let cue = gates.cue_measure(family_cue(f));
            let want = m.kept > 0
                && cue.kept >= MIN_KEPT
                && m.shrunk(cue.precision(), PRIOR_WEIGHT) >= MIN_PRECISION;
            assert_eq!(gates.is_on(f), want, "{f}");
        }
    }

    #[test]
    fn removing_a_family_removes_its_states_and_their_edges() {
        let mut a = Node::new("mental_state:a", NodeKind::MentalState, "a");
        a.attitude = Some(Attitude::Belief);
        let b = Node::new("character:b", NodeKind::Character, "B");
        let holds = Edge::new(EdgeKind::Holds, "character:b", "mental_state:a");
        let graph = Graph {
            film: "f".into(),
            nodes: vec![a, b],
            edges: vec![holds],
        };
        let families = [(
            "mental_state:a".to_owned(),
            BTreeSet::from(["off / belief".to_owned()]),
        )]
        .into();
        let g = keep_families(&graph, &families, |f| f != "off / belief");
        assert_eq!(g.nodes.len(), 1);
        assert!(g.edges.is_empty());
        let g = keep_families(&graph, &families, |_| true);
        assert_eq!((g.nodes.len(), g.edges.len()), (2, 1));
    }
}
