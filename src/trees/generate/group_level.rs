//! GroupToM-Bench's seven levels (docs/trees-format.md) for the questions the rules
//! generator asks, assigned only where the graph supports them.
//!
//! A question gets a level only when its scene has three or more characters.
//! The individual tier reads the attitude of the state the question asks
//! about: L1 belief (belief, knowledge, suspicion), L2 desire (desire, social
//! goal), L3 intention. The collective tier needs more of the graph:
//! - L4 group tension: the state diverges from another present character's
//!   private state under a shared public act of the scene (an event with two
//!   or more participants): the same attitude family about the same content
//!   with the opposite polarity or truth, or one of them a pretense.
//! - L6 collective outcome prediction: the question asks what a state or event
//!   leads to, and the gold is a group outcome (an event of three or more
//!   people with a mental state among its direct causes).
//! - L7 mechanistic attribution: the question asks why a group outcome happened.
//! - L5 (structural constraint: who may speak to whom) needs relations the
//!   graph does not hold, so the offline generator never assigns it.
//!
//! Emotions, pretenses asked on their own, actions, participants and order
//! questions get no level: GroupToM-Bench has none for them.

use std::collections::BTreeSet;

use crate::graph::{Act, Attitude, NodeKind};
use crate::text::content_words;
use crate::trees::facts::{overlap, Ask, Facts};

/// Attitude families (as the gold annotations match them).
fn family(attitude: Option<Attitude>) -> Option<u8> {
    match attitude? {
        Attitude::Belief | Attitude::Knowledge | Attitude::Suspicion => Some(1),
        Attitude::Desire | Attitude::SocialGoal => Some(2),
        Attitude::Intention => Some(3),
        Attitude::Emotion => Some(4),
        Attitude::Pretense => Some(5),
    }
}

/// An event of three or more people with a mental state among its direct
/// causes: a group outcome and the individual states behind it.
pub fn is_group_outcome(f: &Facts<'_>, i: usize) -> bool {
    f.node(i).kind == NodeKind::Event
        && f.people(i).len() >= 3
        && f.causes(i)
            .iter()
            .any(|&c| f.node(c).kind == NodeKind::MentalState)
}

/// Whether the state `s` diverges from another present character's private
/// state under a shared public act of its scene (see the module docs).
pub fn in_group_tension(f: &Facts<'_>, s: &usize, cast: &BTreeSet<usize>) -> bool {
    let s = *s;
    let node = f.node(s);
    let Some(scene) = node.scene else {
        return false;
    };
    let in_scene = || {
        f.moments
            .iter()
            .copied()
            .filter(move |&m| f.node(m).scene == Some(scene))
    };
    let public_act = in_scene().any(|m| {
        f.node(m).kind == NodeKind::Event
            && (f.people(m).len() >= 2 || f.node(m).act.is_some_and(|a| a != Act::Action))
    });
    if !public_act {
        return false;
    }
    let holder = f.holder(s);
    let words = content_words(&f.content(s));
    in_scene().any(|other| {
        let o = f.node(other);
        if other == s
            || o.kind != NodeKind::MentalState
            || f.holder(other) == holder
            || !f.holder(other).is_some_and(|h| cast.contains(&h))
        {
            return false;
        }
        if node.attitude == Some(Attitude::Pretense) || o.attitude == Some(Attitude::Pretense) {
            return true;
        }
        let same_family =
            family(node.attitude).is_some() && family(node.attitude) == family(o.attitude);
        let opposed = node.negated != o.negated
            || matches!((node.truth, o.truth), (Some(a), Some(b)) if a != b);
        let theirs = content_words(&f.content(other));
        same_family && opposed && overlap(&words, &theirs).max(overlap(&theirs, &words)) >= 0.5
    })
}

/// The level of a question asking `ask`, whose gold elements are `golds`
/// and whose state of mind (asked about, or its gold) is `state`, in a scene
/// whose characters are `cast`. `None` where no level applies.
pub fn level(
    f: &Facts<'_>,
    ask: &Ask,
    state: Option<usize>,
    golds: &[usize],
    cast: &BTreeSet<usize>,
) -> Option<u8> {
    if cast.len() < 3 {
        return None;
    }
    match *ask {
        Ask::Effect { .. } if golds.iter().any(|&g| is_group_outcome(f, g)) => return Some(6),
        Ask::Cause { target } | Ask::Origin { end: target } if is_group_outcome(f, target) => {
            return Some(7)
        }
        Ask::Order { .. } | Ask::Participants { .. } => return None,
        _ => {}
    }
    let s = state?;
    if in_group_tension(f, &s, cast) {
        return Some(4);
    }
    match f.node(s).attitude? {
        Attitude::Belief | Attitude::Knowledge | Attitude::Suspicion => Some(1),
        Attitude::Desire | Attitude::SocialGoal => Some(2),
        Attitude::Intention => Some(3),
        Attitude::Emotion | Attitude::Pretense => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Edge, EdgeKind, Graph, Node};

    fn state(id: &str, holder: &str, name: &str, attitude: Attitude, order: usize) -> Node {
        let mut n = Node::new(id, NodeKind::MentalState, name);
        n.attitude = Some(attitude);
        n.holder = Some(format!("character:{holder}"));
        n.order = Some(order);
        n.scene = Some(0);
        n
    }

    /// One dinner scene with Mara, Quinton and June: Quinton, meaning to
    /// keep the key, tells the table it is lost (a group outcome of his
    /// intention); Mara believes it is lost, June believes it is not; Mara
    /// wants to leave; June believes the tide is high and is uneasy.
    fn dinner() -> Graph {
        let mut announce = Node::new(
            "event:announce",
            NodeKind::Event,
            "Quinton tells the table the key is lost",
        );
        announce.agent = Some("character:quinton".into());
        announce.participants = ["quinton", "mara", "june"]
            .map(|c| format!("character:{c}"))
            .to_vec();
        announce.act = Some(Act::Reveal);
        announce.order = Some(2);
        announce.scene = Some(0);
        let mut june_doubts = state(
            "mental_state:june-key",
            "june",
            "June: June believes the key is lost",
            Attitude::Belief,
            4,
        );
        june_doubts.negated = true;
        let mut nodes = vec![
            Node::new("character:mara", NodeKind::Character, "Mara"),
            Node::new("character:quinton", NodeKind::Character, "Quinton"),
            Node::new("character:june", NodeKind::Character, "June"),
            announce,
            state(
                "mental_state:keep",
                "quinton",
                "Quinton: Quinton intends to keep the key",
                Attitude::Intention,
                1,
            ),
            state(
                "mental_state:mara-key",
                "mara",
                "Mara: Mara believes the key is lost",
                Attitude::Belief,
                3,
            ),
            june_doubts,
            state(
                "mental_state:leave",
                "mara",
                "Mara: Mara wants to leave the dinner",
                Attitude::Desire,
                5,
            ),
            state(
                "mental_state:tide",
                "june",
                "June: June believes the tide is high",
                Attitude::Belief,
                6,
            ),
            state(
                "mental_state:uneasy",
                "june",
                "June: June feels uneasy",
                Attitude::Emotion,
                7,
            ),
        ];
        nodes.sort_by(|a, b| a.id.cmp(&b.id));
        let mut edges = vec![Edge::new(
            EdgeKind::Motivates,
            "mental_state:keep",
            "event:announce",
        )];
        for n in &nodes {
            if let Some(h) = &n.holder {
                edges.push(Edge::new(EdgeKind::Holds, h, &n.id));
            }
        }
        Graph {
            film: "dinner".into(),
            nodes,
            edges,
        }
    }

    #[test]
    fn levels_follow_the_benchmark_where_the_graph_supports_them() {
        let graph = dinner();
        let f = Facts::new(&graph);
        let at = |id: &str| f.index_of(id).unwrap();
        let cast: BTreeSet<usize> = ["mara", "quinton", "june"]
            .iter()
            .map(|c| at(&format!("character:{c}")))
            .collect();
        let holder_level =
            |id: &str| level(&f, &Ask::Holder { state: at(id) }, Some(at(id)), &[], &cast);
        // Individual tier, by the attitude asked about.
        assert_eq!(holder_level("mental_state:tide"), Some(1), "a belief");
        assert_eq!(holder_level("mental_state:leave"), Some(2), "a desire");
        assert_eq!(holder_level("mental_state:keep"), Some(3), "an intention");
        assert_eq!(
            holder_level("mental_state:uneasy"),
            None,
            "no level for emotions"
        );
        // L4: Mara's and June's beliefs about the key diverge under Quinton's
        // announcement to the table.
        assert_eq!(holder_level("mental_state:mara-key"), Some(4));
        assert_eq!(holder_level("mental_state:june-key"), Some(4));
        // L6: what Quinton's intention leads to is a group outcome; L7: why it happened.
        let announce = at("event:announce");
        let keep = at("mental_state:keep");
        assert_eq!(
            level(
                &f,
                &Ask::Effect { source: keep },
                Some(keep),
                &[announce],
                &cast
            ),
            Some(6)
        );
        assert_eq!(
            level(&f, &Ask::Cause { target: announce }, None, &[keep], &cast),
            Some(7)
        );
        assert_eq!(
            level(&f, &Ask::Participants { event: announce }, None, &[], &cast),
            None
        );
        // Two characters in the scene: no group level at all.
        let pair: BTreeSet<usize> = cast.iter().copied().take(2).collect();
        assert_eq!(
            level(&f, &Ask::Holder { state: keep }, Some(keep), &[], &pair),
            None
        );
    }
}
