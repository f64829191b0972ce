//! When states end: `until_scene` read from what the film shows later, over
//! the whole verified graph (a block cannot see the scenes after it).
//!
//! A state ends in the scene where
//! - its holder comes to hold the opposite (a later state of the same holder
//!   and attitude family, on the same content, with the other polarity): a
//!   belief corrected, a plan given up, a wish dropped;
//! - its holder does what they intended (a later event whose agent is the
//!   holder and whose words are most of the intention's content): a plan
//!   carried out;
//! - its holder, who did not know something, later knows it (a later
//!   knowledge of theirs holding most of its words): ignorance ended.
//!
//! A belief whose holder later *knows* the opposite was a false belief, and
//! is marked so when nothing else said.
//!
//! A state with neither keeps `until_scene` unknown (`None`), never "to the
//! end of the film". This is part of the offline baseline: lexical, and it
//! says nothing where it cannot tell.

use std::collections::BTreeSet;

use crate::graph::schema::{Attitude, Node, NodeKind};
use crate::graph::score::{content_stems as stems, negated_text};
use crate::graph::Graph;

/// The share of one content's words another must share to be "the same
/// content".
const SAME_CONTENT: f64 = 0.6;

/// The share of what a holder did not know that a later knowledge of theirs
/// must hold for them to have learned it.
const LEARNED_CONTENT: f64 = 0.5;

/// The share of `a`'s words that `b` has (0 when `a` has none).
fn covered(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    if a.is_empty() {
        return 0.0;
    }
    a.intersection(b).count() as f64 / a.len() as f64
}

/// A state's claim: its polarity, flag and content's negation together.
fn claim(n: &Node) -> bool {
    n.negated ^ n.content.as_deref().is_some_and(negated_text)
}

/// Sets `until_scene` of the graph's mental states from what later scenes
/// show; states already carrying an end keep it.
pub fn infer_ends(graph: &mut Graph) {
    let states: Vec<(usize, String, Attitude, usize, bool, BTreeSet<String>)> = graph
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.kind == NodeKind::MentalState)
        .filter_map(|(i, n)| {
            Some((
                i,
                n.holder.clone()?,
                n.attitude?,
                n.scene?,
                claim(n),
                stems(n.content.as_deref()?),
            ))
        })
        .collect();
    let events: Vec<(String, usize, BTreeSet<String>)> = graph
        .nodes
        .iter()
        .filter(|n| n.kind == NodeKind::Event)
        .filter_map(|n| {
            let text = n
                .evidence
                .first()
                .map_or(n.name.as_str(), |e| e.quote.as_str());
            Some((n.agent.clone()?, n.scene?, stems(text)))
        })
        .collect();
    let mut ends: Vec<(usize, usize, bool)> = Vec::new();
    for (i, holder, attitude, scene, polarity, words) in &states {
        if graph.nodes[*i].until_scene.is_some() || words.is_empty() {
            continue;
        }
        // The first later scene where the holder holds the opposite.
        let reversed = states
            .iter()
            .filter(|(_, h, a, s, p, w)| {
                h == holder
                    && a.family() == attitude.family()
                    && s > scene
                    && p != polarity
                    && covered(words, w).min(covered(w, words)) >= SAME_CONTENT
            })
            .map(|s| s.3)
            .min();
        // Not knowing: the first later scene where the holder knows it
        // (most of what they did not know is in what they now know).
        let learned = (*attitude == Attitude::Knowledge && graph.nodes[*i].negated)
            .then(|| {
                states
                    .iter()
                    .filter(|(j, h, a, s, _, w)| {
                        h == holder
                            && *a == Attitude::Knowledge
                            && s > scene
                            && !graph.nodes[*j].negated
                            && covered(words, w) >= LEARNED_CONTENT
                    })
                    .map(|s| s.3)
                    .min()
            })
            .flatten();
        // An intention: the first later scene where the holder does it.
        let done = (*attitude == Attitude::Intention)
            .then(|| {
                events
                    .iter()
                    .filter(|(agent, s, w)| {
                        agent == holder && s > scene && covered(words, w) >= SAME_CONTENT
                    })
                    .map(|e| e.1)
                    .min()
            })
            .flatten();
        // A belief the holder later knows the opposite of was false.
        let corrected = (*attitude == Attitude::Belief)
            .then(|| {
                states
                    .iter()
                    .filter(|(_, h, a, s, p, w)| {
                        h == holder
                            && *a == Attitude::Knowledge
                            && s > scene
                            && p != polarity
                            && covered(words, w).min(covered(w, words)) >= SAME_CONTENT
                    })
                    .map(|s| s.3)
                    .min()
            })
            .flatten();
        if let Some(end) = [reversed, learned, done].into_iter().flatten().min() {
            ends.push((*i, end, corrected.is_some()));
        }
    }
    for (i, end, was_false) in ends {
        graph.nodes[i].until_scene = Some(end);
        if was_false && graph.nodes[i].truth.is_none() {
            graph.nodes[i].truth = Some(false);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::schema::Evidence;

    fn state(id: &str, attitude: Attitude, scene: usize, content: &str, negated: bool) -> Node {
        let mut n = Node::new(id, NodeKind::MentalState, content);
        n.attitude = Some(attitude);
        n.holder = Some("character:ann".into());
        n.scene = Some(scene);
        n.content = Some(content.into());
        n.negated = negated;
        n
    }

    fn graph(nodes: Vec<Node>) -> Graph {
        Graph {
            film: "f".into(),
            nodes,
            edges: Vec::new(),
        }
    }

    #[test]
    fn a_belief_ends_where_its_holder_comes_to_believe_the_opposite() {
        let mut g = graph(vec![
            state(
                "a",
                Attitude::Belief,
                1,
                "the boat is safe in the harbour",
                false,
            ),
            state(
                "b",
                Attitude::Belief,
                3,
                "the boat is safe in the harbour",
                true,
            ),
            state(
                "c",
                Attitude::Belief,
                5,
                "the boat is not safe in the harbour",
                false,
            ),
        ]);
        infer_ends(&mut g);
        assert_eq!(g.nodes[0].until_scene, Some(3));
        // "b" and "c" make the same claim: nothing ends "b".
        assert_eq!(g.nodes[1].until_scene, None);
    }

    #[test]
    fn another_holder_or_another_content_ends_nothing() {
        let mut other = state(
            "b",
            Attitude::Belief,
            3,
            "the boat is safe in the harbour",
            true,
        );
        other.holder = Some("character:bo".into());
        let mut g = graph(vec![
            state(
                "a",
                Attitude::Belief,
                1,
                "the boat is safe in the harbour",
                false,
            ),
            other,
            state("c", Attitude::Belief, 4, "the rent is due on Friday", true),
        ]);
        infer_ends(&mut g);
        assert!(g.nodes.iter().all(|n| n.until_scene.is_none()));
    }

    #[test]
    fn not_knowing_ends_where_the_holder_learns_it_and_a_corrected_belief_was_false() {
        let mut g = graph(vec![
            state(
                "a",
                Attitude::Knowledge,
                1,
                "the ring has left the safe",
                true,
            ),
            state(
                "b",
                Attitude::Knowledge,
                4,
                "the ring has left the safe on Friday",
                false,
            ),
            state("c", Attitude::Belief, 2, "the key is in the harbour", false),
            state(
                "d",
                Attitude::Knowledge,
                6,
                "the key is in the harbour",
                true,
            ),
        ]);
        infer_ends(&mut g);
        assert_eq!(g.nodes[0].until_scene, Some(4));
        assert_eq!(g.nodes[0].truth, None);
        // Knowing it is not so ends the belief, and shows it was false.
        assert_eq!(g.nodes[2].until_scene, Some(6));
        assert_eq!(g.nodes[2].truth, Some(false));
        // What is known is not ended by anything here.
        assert_eq!(g.nodes[1].until_scene, None);
    }

    #[test]
    fn an_intention_ends_where_its_holder_carries_it_out() {
        let mut act = Node::new("event:e1", NodeKind::Event, "Ann sells the boat");
        act.agent = Some("character:ann".into());
        act.scene = Some(6);
        act.evidence = vec![Evidence {
            block: 6,
            element: 1,
            start: 0,
            end: 18,
            quote: "Ann sells the boat to the harbour master.".into(),
            keyframes: Vec::new(),
        }];
        let mut g = graph(vec![
            state("a", Attitude::Intention, 2, "sell the boat", false),
            act,
        ]);
        infer_ends(&mut g);
        assert_eq!(g.nodes[0].until_scene, Some(6));
    }
}
