//! The verified Social-Causal Graph (docs/graph-format.md; the pipeline in ARCHITECTURE.md).
//!
//! Per block: a [`Generator`] proposes nodes and edges with evidence; [`resolve`]
//! merges them with the entities known so far; every [`Auditor`] judges the
//! block's candidates independently; [`consensus`] accepts, rejects or
//! escalates; an [`Adjudicator`] (or a person, with `--review`) decides the
//! escalated ones. [`build`] runs this block by block and commits each block to
//! the store, so a killed build resumes where it stopped.
//!
//! Every model-facing piece is a trait here; the `rules` implementations are the
//! offline baseline (lexical, documented as such, never a reasoner); the
//! model-backed roles ([`model::backed`]) send their prompts through the model
//! layer (`crate::llm`), never over HTTP themselves.

pub mod agreement;
pub mod analysis;
pub mod audit;
pub mod build;
pub mod calibrate;
pub mod consensus;
pub mod ends;
pub mod export;
pub mod generate;
pub mod gold;
pub mod model;
pub mod resolve;
pub mod review;
pub mod review_store;
pub mod schema;
pub mod score;
pub mod stats;
pub mod store;
pub mod trajectory;

use std::collections::BTreeMap;

use crate::align::Block;
use crate::screenplay::{Element, Screenplay};

pub use schema::*;

/// What can go wrong building a graph.
#[derive(Debug, thiserror::Error)]
pub enum GraphError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    /// A model role failed (transport, refusal, unusable output after repair).
    #[error("{role} failed on block {block}: {message}")]
    Role {
        /// `generator`, `auditor <name>`, `adjudicator`.
        role: String,
        /// The block.
        block: usize,
        /// What went wrong.
        message: String,
    },
    /// The film has nothing to build from.
    #[error("film {film}: {message}")]
    Input {
        /// The film.
        film: String,
        /// What is missing.
        message: String,
    },
}

/// Everything a role sees of one block: the script segment, keyframes, the
/// characters known so far and the entity list.
#[derive(Debug, Clone, Copy)]
pub struct BlockContext<'a> {
    /// The film's slug.
    pub film: &'a str,
    /// The block.
    pub block: &'a Block,
    /// The whole screenplay (elements are addressed by index).
    pub play: &'a Screenplay,
    /// Entities known before this block (not rejected), by id.
    pub entities: &'a BTreeMap<String, Node>,
    /// At most this many keyframes go to a model as images.
    pub max_keyframes: usize,
}

impl<'a> BlockContext<'a> {
    /// The block's elements with their indices.
    pub fn elements(&self) -> impl Iterator<Item = (usize, &'a Element)> + 'a {
        let [first, last] = self.block.elements;
        let play = self.play;
        (first..=last.min(play.elements.len().saturating_sub(1)))
            .filter(move |&i| i < play.elements.len())
            .map(move |i| (i, &play.elements[i]))
    }

    /// The keyframes to attach, representatives first, at most `max_keyframes`.
    pub fn keyframes(&self) -> Vec<&'a str> {
        let mut frames: Vec<&'a str> = self
            .block
            .keyframes
            .iter()
            .filter(|k| k.representative)
            .map(|k| k.path.as_str())
            .collect();
        for k in &self.block.keyframes {
            if !k.representative {
                frames.push(k.path.as_str());
            }
        }
        frames.truncate(self.max_keyframes);
        frames
    }

    /// The scene's location as written in the heading.
    pub fn location(&self) -> Option<&'a str> {
        self.play
            .scenes
            .get(self.block.scene)
            .map(|s| s.location.as_str())
            .filter(|l| !l.trim().is_empty())
    }
}

/// What a generator proposes for one block: nodes first, then edges whose
/// endpoints are ids of those nodes or of entities already known.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Proposal {
    /// Proposed items with the generator's reason for each.
    pub items: Vec<(Item, String)>,
    /// Why items of the generator's answer were dropped before they became
    /// candidates (a model's output that failed validation), one line each.
    pub dropped: Vec<String>,
}

/// Proposes candidates for a block.
pub trait Generator {
    /// The name recorded with the build (`rules`, a model name).
    fn name(&self) -> String;
    /// What else makes a build with this role a different build (a model's
    /// backend, model and sampling values); `None` for the rules roles.
    fn identity(&self) -> Option<String> {
        None
    }
    /// One call per block.
    fn generate(&self, ctx: &BlockContext<'_>) -> Result<Proposal, GraphError>;
}

/// Judges a block's candidates; never sees another auditor's votes.
pub trait Auditor {
    /// The judge's name, recorded with each vote.
    fn name(&self) -> String;
    /// What else identifies the judge in the build settings (see [`Generator::identity`]).
    fn identity(&self) -> Option<String> {
        None
    }
    /// One vote per candidate, in the order given (one call per block).
    fn audit(&self, ctx: &BlockContext<'_>, batch: &[Candidate]) -> Result<Vec<Vote>, GraphError>;
}

/// Decides a candidate the auditors disagreed on; sees their votes.
pub trait Adjudicator {
    /// The judge's name.
    fn name(&self) -> String;
    /// What else identifies the judge in the build settings (see [`Generator::identity`]).
    fn identity(&self) -> Option<String> {
        None
    }
    /// One call per escalated candidate. `block` holds every candidate of the
    /// block (with the auditors' votes), so that an edge whose endpoints are
    /// new in this block can be described by their names.
    fn adjudicate(
        &self,
        ctx: &BlockContext<'_>,
        candidate: &Candidate,
        block: &[Candidate],
    ) -> Result<Vote, GraphError>;
}

/// A finished graph: accepted nodes and the accepted edges between them,
/// sorted by id.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Graph {
    /// The film's slug.
    pub film: String,
    /// Accepted nodes.
    pub nodes: Vec<Node>,
    /// Accepted edges with both endpoints accepted.
    pub edges: Vec<Edge>,
}

impl Graph {
    /// Assembles the graph from a build's candidates: a node or edge is in the
    /// graph when at least one of its per-block candidates was accepted; its
    /// blocks and evidence are the union over those candidates. The states'
    /// ends are then read from the later scenes ([`ends::infer_ends`]).
    pub fn assemble(film: &str, candidates: &[Candidate]) -> Graph {
        let mut nodes: BTreeMap<String, Node> = BTreeMap::new();
        let mut edges: BTreeMap<String, Edge> = BTreeMap::new();
        for c in candidates.iter().filter(|c| c.status == Status::Accepted) {
            match &c.item {
                Item::Node(n) => match nodes.get_mut(&n.id) {
                    Some(have) => merge_node(have, n),
                    None => {
                        nodes.insert(n.id.clone(), n.clone());
                    }
                },
                Item::Edge(e) => match edges.get_mut(&e.id) {
                    Some(have) => {
                        union(&mut have.blocks, &e.blocks);
                        union(&mut have.evidence, &e.evidence);
                    }
                    None => {
                        edges.insert(e.id.clone(), e.clone());
                    }
                },
            }
        }
        // A mental state is held by its holder: a `holds` edge from anyone
        // else goes (a reviewer corrected the holder) and a missing one is made.
        for n in nodes.values().filter(|n| n.kind == NodeKind::MentalState) {
            let Some(holder) = n.holder.as_deref() else {
                continue;
            };
            edges
                .retain(|_, e| e.kind != EdgeKind::Holds || e.target != n.id || e.source == holder);
            if nodes.contains_key(holder) {
                let e = Edge::new(EdgeKind::Holds, holder, &n.id);
                edges.entry(e.id.clone()).or_insert(e);
            }
        }
        let edges = edges
            .into_values()
            .filter(|e| nodes.contains_key(&e.source) && nodes.contains_key(&e.target))
            .collect();
        let mut graph = Graph {
            film: film.to_owned(),
            nodes: nodes.into_values().collect(),
            edges,
        };
        ends::infer_ends(&mut graph);
        graph
    }

    /// The node with this id.
    pub fn node(&self, id: &str) -> Option<&Node> {
        self.nodes
            .binary_search_by(|n| n.id.as_str().cmp(id))
            .ok()
            .map(|i| &self.nodes[i])
    }
}

/// Folds `other` (the same entity seen again) into `have`.
pub fn merge_node(have: &mut Node, other: &Node) {
    let mut aliases = other.aliases.clone();
    if other.name != have.name {
        aliases.push(other.name.clone());
    }
    aliases.retain(|a| a != &have.name);
    union(&mut have.aliases, &aliases);
    union(&mut have.blocks, &other.blocks);
    union(&mut have.evidence, &other.evidence);
}

/// Sorted union, in place.
fn union<T: Ord + Clone>(into: &mut Vec<T>, other: &[T]) {
    into.extend(other.iter().cloned());
    into.sort();
    into.dedup();
}

/// Tests' one-block film: a script parsed whole as a single block, with the
/// entities known before it.
#[cfg(test)]
pub(crate) struct OneBlock {
    pub play: Screenplay,
    pub block: Block,
    pub entities: BTreeMap<String, Node>,
}

#[cfg(test)]
impl OneBlock {
    /// `script` (Fountain) as one block of scene 0, no entities known.
    pub fn parse(script: &str) -> OneBlock {
        let play =
            crate::screenplay::parse_text(script, Some(crate::screenplay::Format::Fountain), None)
                .expect("test script parses");
        let block = Block {
            id: 0,
            elements: [0, play.elements.len() - 1],
            scene: 0,
            start_ms: None,
            end_ms: None,
            keyframes: Vec::new(),
        };
        OneBlock {
            play,
            block,
            entities: BTreeMap::new(),
        }
    }

    /// The block's context (film `t`, at most 5 keyframes).
    pub fn ctx(&self) -> BlockContext<'_> {
        BlockContext {
            film: "t",
            block: &self.block,
            play: &self.play,
            entities: &self.entities,
            max_keyframes: 5,
        }
    }
}
