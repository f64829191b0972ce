//! Anchors: the long causal chains and pivotal mental states trees are built
//! around, queued by scene and the scenes visited from both ends of the film
//! inward.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use crate::graph::analysis::Analysis;
use crate::graph::{Attitude, NodeKind};
use crate::trees::facts::{Ask, Facts};
use crate::trees::schema::AnchorKind;

/// One anchor: what a tree is about.
pub type AnchorItem = (AnchorKind, Vec<usize>);

/// The anchors of one scene, by kind, the most telling first.
#[derive(Debug, Default)]
pub struct SceneAnchors {
    chains: VecDeque<Vec<usize>>,
    states: VecDeque<Vec<usize>>,
}

impl SceneAnchors {
    /// Whether no anchor is left.
    pub fn is_empty(&self) -> bool {
        self.chains.is_empty() && self.states.is_empty()
    }

    /// Takes the next anchor, of kind `prefer` while the scene has one.
    pub fn pop(&mut self, prefer: AnchorKind) -> Option<AnchorItem> {
        let chain = |c| (AnchorKind::CausalChain, c);
        let state = |m| (AnchorKind::MentalState, m);
        match prefer {
            AnchorKind::CausalChain => self
                .chains
                .pop_front()
                .map(chain)
                .or_else(|| self.states.pop_front().map(state)),
            AnchorKind::MentalState | AnchorKind::Item => self
                .states
                .pop_front()
                .map(state)
                .or_else(|| self.chains.pop_front().map(chain)),
        }
    }
}

/// The other kind of anchor (generation alternates them).
pub fn other_kind(kind: AnchorKind) -> AnchorKind {
    match kind {
        AnchorKind::CausalChain => AnchorKind::MentalState,
        AnchorKind::MentalState | AnchorKind::Item => AnchorKind::CausalChain,
    }
}

/// Anchors — long causal chains and pivotal mental states — queued by scene
/// (a chain by the scene of its end), in scene order, the most telling first
/// within a scene. Generation takes the film's two ends first (its first and
/// its last scene whose anchors grow a tree), then visits the scenes from
/// the middle outward ([`visit_order`]), taking from each until one anchor
/// grows, alternating the kinds; so every scene with a growable anchor gets a
/// tree before any scene gets a second, and the ends claim their questions
/// first (no question is asked twice in a film).
pub fn anchor_queues(facts: &Facts<'_>, analysis: &Analysis) -> Vec<SceneAnchors> {
    let mut chains: Vec<Vec<usize>> = Vec::new();
    let mut ends = BTreeSet::new();
    for chain in &analysis.chains {
        let nodes: Vec<usize> = chain
            .nodes
            .iter()
            .filter_map(|id| facts.index_of(id))
            .collect();
        if let Some(&end) = nodes.last() {
            if nodes.len() >= 3 && ends.insert(end) {
                chains.push(nodes);
            }
        }
    }
    for &m in &facts.moments {
        if facts.node(m).kind != NodeKind::Event || ends.contains(&m) {
            continue;
        }
        let chain = longest_back(facts, m);
        if chain.len() >= 3 {
            ends.insert(m);
            chains.push(chain);
        }
    }
    let mut states: Vec<usize> = Vec::new();
    for p in &analysis.pivotal {
        if let Some(i) = facts.index_of(&p.id) {
            states.push(i);
        }
    }
    let mut rest: Vec<usize> = facts
        .moments
        .iter()
        .copied()
        .filter(|&m| {
            facts.node(m).kind == NodeKind::MentalState
                && facts.holder(m).is_some()
                && !states.contains(&m)
        })
        .collect();
    rest.sort_by_key(|&m| {
        (
            facts.causes(m).is_empty() && facts.effects(m).is_empty(),
            facts.order(m),
        )
    });
    states.extend(rest);
    let scene = |i: usize| facts.node(i).scene.unwrap_or(usize::MAX);
    let mut by: BTreeMap<usize, SceneAnchors> = BTreeMap::new();
    for chain in chains {
        let end = *chain.last().expect("chains are non-empty");
        by.entry(scene(end)).or_default().chains.push_back(chain);
    }
    for m in states {
        by.entry(scene(m)).or_default().states.push_back(vec![m]);
    }
    by.into_values().collect()
}

/// The longest causal path ending at `end` (ties: the earlier cause).
fn longest_back(facts: &Facts<'_>, end: usize) -> Vec<usize> {
    let mut path = vec![end];
    let mut seen = BTreeSet::from([end]);
    let mut v = end;
    while let Some(&p) = facts
        .causes(v)
        .iter()
        .filter(|p| !seen.contains(*p))
        .max_by_key(|&&p| (facts.ancestors(p).len(), std::cmp::Reverse(facts.order(p))))
    {
        seen.insert(p);
        path.push(p);
        v = p;
    }
    path.reverse();
    path
}

/// The order in which `n` places along the film are visited: the first and
/// the last, then the nearest to ½, ¼, ¾, ⅛, ⅜… (the van der Corput
/// sequence), each place once.
pub fn visit_order(n: usize) -> Vec<usize> {
    let mut seen = vec![false; n];
    let mut order = Vec::with_capacity(n);
    let mut take = |k: usize, order: &mut Vec<usize>| {
        if k < n && !seen[k] {
            seen[k] = true;
            order.push(k);
        }
    };
    take(0, &mut order);
    take(n.saturating_sub(1), &mut order);
    let last = n.saturating_sub(1) as f64;
    let mut i: u32 = 1;
    while order.len() < n {
        let u = f64::from(i.reverse_bits()) / 2f64.powi(32);
        take((u * last).round() as usize, &mut order);
        i += 1;
        // Every place is reached once the sequence is finer than the places.
        if i > 4 * n as u32 + 4 {
            (0..n).for_each(|k| take(k, &mut order));
        }
    }
    order
}

/// The asks that put a state itself to the test, at a later moment of its
/// holder: whether it has ended (once its recorded end has passed), whether
/// it is a false belief (while still held), whether it is knowledge.
fn state_asks(f: &Facts<'_>, m: usize) -> Vec<Ask> {
    let node = f.node(m);
    let Some(h) = f.holder(m) else {
        return Vec::new();
    };
    let involves = |x: usize| f.holder(x) == Some(h) || f.people(x).contains(&h);
    let after = |x: usize| f.order(x) > f.order(m) && x != m;
    let mut asks = Vec::new();
    if let Some(end) = node.until_scene {
        if let Some(&moment) = f
            .moments
            .iter()
            .find(|&&x| after(x) && involves(x) && f.node(x).scene.is_some_and(|s| s > end))
        {
            asks.push(Ask::NoLonger {
                character: h,
                moment,
            });
        }
    }
    let held_until = node.until_scene.unwrap_or(usize::MAX);
    let later = f
        .moments
        .iter()
        .copied()
        .find(|&x| after(x) && involves(x) && f.node(x).scene.is_some_and(|s| s <= held_until));
    if let Some(moment) = later {
        let believed = matches!(node.attitude, Some(Attitude::Belief | Attitude::Suspicion));
        if believed && node.truth == Some(false) && !node.negated {
            asks.push(Ask::FalseBelief {
                character: h,
                moment,
            });
        }
        if node.attitude == Some(Attitude::Knowledge) {
            asks.push(Ask::KnowsAt {
                character: h,
                moment,
            });
        }
    }
    asks
}

/// The questions that may open a tree on this anchor, the most telling
/// first: a chain asks where it began, else what caused its end; a state of
/// mind asks whether it has ended, is false or is knowledge, what caused
/// it, what it led to, who holds it, or what else is on its holder's mind
/// by then.
pub(super) fn root_asks(facts: &Facts<'_>, kind: AnchorKind, elements: &[usize]) -> Vec<Ask> {
    match kind {
        AnchorKind::CausalChain => {
            let end = *elements.last().expect("chains are non-empty");
            vec![Ask::Origin { end }, Ask::Cause { target: end }]
        }
        // The generator anchors on the graph only; an imported item has no anchor elements.
        AnchorKind::Item => Vec::new(),
        AnchorKind::MentalState => {
            let m = elements[0];
            let mut asks = state_asks(facts, m);
            if !facts.causes(m).is_empty() {
                asks.push(Ask::Cause { target: m });
            }
            if !facts.effects(m).is_empty() {
                asks.push(Ask::Effect { source: m });
            }
            asks.push(Ask::Holder { state: m });
            // Else what else is on the holder's mind by then: a state whose
            // wording cannot hide its holder ("I want him to be all right")
            // and that has no known cause or effect still opens a tree.
            if let Some(holder) = facts.holder(m) {
                asks.push(Ask::MindBefore {
                    character: holder,
                    moment: m,
                });
                asks.push(Ask::KnowsAt {
                    character: holder,
                    moment: m,
                });
            }
            asks
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_place_is_visited_once_the_ends_first() {
        for n in 0..70 {
            let order = visit_order(n);
            let mut sorted = order.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..n).collect::<Vec<_>>(), "n = {n}");
            if n >= 2 {
                assert_eq!(order[..2], [0, n - 1]);
            }
        }
        assert_eq!(visit_order(20)[..5], [0, 19, 10, 5, 14]);
    }

    #[test]
    fn a_state_with_no_cause_or_effect_still_opens_a_tree_on_its_holders_mind() {
        use crate::graph::{Attitude, Edge, EdgeKind, Graph, Node, NodeKind};
        let mut m = Node::new(
            "mental_state:m1",
            NodeKind::MentalState,
            "Mara: I want him to be all right",
        );
        m.attitude = Some(Attitude::Desire);
        m.holder = Some("character:mara".into());
        m.order = Some(3);
        let g = Graph {
            film: "t".into(),
            nodes: vec![
                Node::new("character:mara", NodeKind::Character, "Mara Ellis"),
                m,
            ],
            edges: vec![Edge::new(
                EdgeKind::Holds,
                "character:mara",
                "mental_state:m1",
            )],
        };
        let f = Facts::new(&g);
        let m = f.index_of("mental_state:m1").unwrap();
        let asks = root_asks(&f, AnchorKind::MentalState, &[m]);
        assert_eq!(
            asks,
            vec![
                Ask::Holder { state: m },
                Ask::MindBefore {
                    character: f.index_of("character:mara").unwrap(),
                    moment: m
                },
                Ask::KnowsAt {
                    character: f.index_of("character:mara").unwrap(),
                    moment: m
                }
            ]
        );
    }
}
