//! The scorer on the sample film's gold annotation and on graphs made from
//! it with one thing changed.

use std::path::Path;

use super::*;
use crate::graph::gold::read_gold;
use crate::graph::schema::Edge;

fn sample_gold() -> Gold {
    read_gold(&Path::new(env!("CARGO_MANIFEST_DIR")).join("screenplays/the-second-key/gold.json"))
        .unwrap()
}

fn lexical(graph: &Graph, gold: &Gold) -> GraphScore {
    let sim = Similarity::Lexical;
    let opts = ScoreOptions {
        scene_window: 1,
        threshold: sim.default_threshold(),
    };
    score(graph, gold, &sim, opts).unwrap()
}

/// A gold state with no state about it and not about another, so changing
/// it touches nothing else.
fn lone_state(gold: &Gold, pick: impl Fn(&GoldState) -> bool) -> String {
    gold.mental_states
        .iter()
        .find(|s| {
            s.about.is_none()
                && !gold
                    .mental_states
                    .iter()
                    .any(|o| o.about.as_deref() == Some(s.id.as_str()))
                && pick(s)
        })
        .map(|s| format!("mental_state:{}", s.id))
        .expect("a lone state")
}

#[test]
fn the_gold_scores_one_against_itself() {
    let gold = sample_gold();
    let s = lexical(&gold.to_graph(), &gold);
    for (what, p) in [
        ("states", s.states),
        ("higher order", s.higher_order),
        ("causal", s.causal),
    ] {
        assert_eq!(p.precision(), 1.0, "{what}: {p:?}");
        assert_eq!(p.recall(), 1.0, "{what}: {p:?}");
    }
    assert!(s.higher_order.gold > 0 && s.causal.gold > 0);
    assert_eq!(s.chains_recovered, s.chains);
    assert!(
        s.misses.is_empty() && s.missed_gold.is_empty(),
        "{:?}",
        s.misses
    );
}

#[test]
fn one_flipped_polarity_costs_exactly_that_state() {
    let gold = sample_gold();
    let whole = gold.mental_states.len();
    let mut g = gold.to_graph();
    let id = lone_state(&gold, |_| true);
    g.nodes.iter_mut().find(|n| n.id == id).unwrap().negated ^= true;
    let s = lexical(&g, &gold);
    assert_eq!(s.states.matched_gold, whole - 1);
    assert_eq!(s.states.matched_graph, whole - 1);
    assert_eq!(
        s.errors.get(&ErrorKind::Polarity),
        Some(&1),
        "{:?}",
        s.errors
    );
    assert_eq!(s.errors.values().sum::<usize>(), 1);
    assert_eq!(s.misses[0].graph, id);
    assert_eq!(s.causal.recall(), 1.0);
}

#[test]
fn one_swapped_holder_costs_exactly_that_state() {
    let gold = sample_gold();
    let whole = gold.mental_states.len();
    let mut g = gold.to_graph();
    let id = lone_state(&gold, |s| s.holder.eq_ignore_ascii_case("mara"));
    let other = g
        .nodes
        .iter()
        .find(|n| n.kind == NodeKind::Character && !n.name.eq_ignore_ascii_case("mara"))
        .unwrap()
        .id
        .clone();
    g.nodes.iter_mut().find(|n| n.id == id).unwrap().holder = Some(other);
    let s = lexical(&g, &gold);
    assert_eq!(s.states.matched_gold, whole - 1);
    assert_eq!(s.errors.get(&ErrorKind::Holder), Some(&1), "{:?}", s.errors);
    assert_eq!(s.errors.values().sum::<usize>(), 1);
}

#[test]
fn one_reversed_causal_edge_costs_exactly_that_link() {
    let gold = sample_gold();
    let mut g = gold.to_graph();
    let k = g
        .edges
        .iter()
        .position(|e| e.kind == EdgeKind::Causes)
        .unwrap();
    let e = &g.edges[k];
    g.edges[k] = Edge::new(EdgeKind::Causes, &e.target.clone(), &e.source.clone());
    let s = lexical(&g, &gold);
    assert_eq!(s.causal.matched_gold, gold.causal_links.len() - 1);
    assert_eq!(s.causal.matched_graph, s.causal.graph - 1);
    assert_eq!(
        s.errors.get(&ErrorKind::Direction),
        Some(&1),
        "{:?}",
        s.errors
    );
    assert_eq!(s.errors.values().sum::<usize>(), 1);
    assert_eq!(s.states.recall(), 1.0);
    // A chain through that link is no longer whole.
    let in_chains = gold
        .chains
        .iter()
        .filter(|c| c.contains(&gold.causal_links[0].id))
        .count();
    assert!(s.chains_recovered + in_chains >= s.chains);
}

#[test]
fn an_empty_graph_recalls_nothing_and_asserts_nothing_wrong() {
    let gold = sample_gold();
    let empty = Graph {
        film: gold.film.clone(),
        nodes: Vec::new(),
        edges: Vec::new(),
    };
    let s = lexical(&empty, &gold);
    assert_eq!(s.states.recall(), 0.0);
    assert_eq!(s.causal.recall(), 0.0);
    assert_eq!(s.states.precision(), 1.0);
    assert_eq!(s.states.f1(), 0.0);
    assert_eq!(s.chains_recovered, 0);
    assert!(s.misses.is_empty());
}

#[test]
fn an_inverted_content_is_not_a_match() {
    // "doesn't know the ring has left the safe" written as a false belief
    // that it has: the holder, family and content match, the truth does not.
    let gold = sample_gold();
    let mut g = gold.to_graph();
    let id = lone_state(&gold, |s| {
        s.attitude == Attitude::Belief && s.truth != Some(false)
    });
    g.nodes.iter_mut().find(|n| n.id == id).unwrap().truth = Some(false);
    let s = lexical(&g, &gold);
    assert_eq!(s.errors.get(&ErrorKind::Truth), Some(&1), "{:?}", s.errors);
}

#[test]
fn lexical_similarity_reads_past_endings_and_case() {
    let a = stems("Quinton HIDES the rings");
    let b = stems("quinton hiding a ring");
    assert_eq!(dice(&a, &b), 1.0, "{a:?} {b:?}");
    assert_eq!(dice(&stems("the"), &stems("a")), 0.0);
    // An s that is no plural stays: `jealous` is `jealousy` less its y, not
    // `jealou` (the gold's "she is jealous of Quinton" matched nothing).
    assert_eq!(stems("jealous"), stems("jealousy"));
    assert_eq!(stems("the glass"), stems("glasses"));
}

#[test]
fn contractions_and_auxiliaries_are_no_content() {
    // `it's` read as the word `its`, `we're` as `re`, and `does` as `doe`
    // counted as content and kept true matches under the threshold.
    assert_eq!(stems("This time it's true"), stems("this time, true"));
    assert_eq!(
        stems("Well. We're both in the room."),
        stems("well, both in the room")
    );
    assert_eq!(stems("Quinton doesn't know"), stems("Quinton knows"));
    assert_eq!(stems("Mum's ring"), stems("Mum ring"));
}

#[test]
fn a_state_told_again_in_a_later_scene_it_holds_in_is_right_twice() {
    let gold = crate::graph::gold::parse_gold(
        r#"{"film": "t", "characters": [{"name": "ANNA"}],
        "mental_states": [
          {"id": "m1", "holder": "ANNA", "attitude": "emotion", "content": "jealousy of her brother's boat",
           "negated": false, "scene": 2, "until_scene": 4, "explicit": true, "evidence": "Jealousy."}],
        "causal_links": [], "chains": []}"#,
    )
    .unwrap();
    let mut graph = gold.to_graph();
    let told = graph.node("mental_state:m1").unwrap().clone();
    // Graph scenes are 0-based: told again in the gold's last scene (4),
    // then in scene 5 (the window's edge), then in scene 6 (past it).
    for (suffix, scene) in [("again", 3), ("edge", 4), ("late", 5)] {
        let mut n = told.clone();
        n.id = format!("{}-{suffix}", told.id);
        n.scene = Some(scene);
        graph.nodes.push(n);
    }
    let s = lexical(&graph, &gold);
    assert_eq!(
        (s.states.matched_graph, s.states.graph),
        (3, 4),
        "{:?}",
        s.misses
    );
    assert_eq!(s.states.recall(), 1.0);
    assert_eq!(s.errors.get(&ErrorKind::Scene), Some(&1), "{:?}", s.misses);
    assert_eq!(s.misses[0].graph, "mental_state:m1-late");
}

/// A one-state gold annotation: ANNA's `attitude` towards `content`.
fn one_state(attitude: &str, content: &str, negated: bool) -> Gold {
    crate::graph::gold::parse_gold(&format!(
        r#"{{"film": "t", "characters": [{{"name": "ANNA"}}],
        "mental_states": [
          {{"id": "m1", "holder": "ANNA", "attitude": "{attitude}", "content": "{content}",
           "negated": {negated}, "scene": 2, "until_scene": 4, "explicit": true, "evidence": "x"}}],
        "causal_links": [], "chains": []}}"#
    ))
    .unwrap()
}

/// The score of a graph whose one state is the gold's, rewritten.
fn rewritten(gold: &Gold, content: &str, negated: bool) -> GraphScore {
    let mut graph = gold.to_graph();
    let n = graph
        .nodes
        .iter_mut()
        .find(|n| n.id == "mental_state:m1")
        .unwrap();
    n.content = Some(content.to_owned());
    n.negated = negated;
    lexical(&graph, gold)
}

#[test]
fn a_negated_belief_is_the_belief_in_the_negation() {
    // "I didn't think you'd read them" is one claim, whichever side the
    // negation is written on.
    for attitude in ["belief", "suspicion", "desire", "intention"] {
        let gold = one_state(attitude, "you would read the letters", true);
        let s = rewritten(&gold, "you would not read the letters", false);
        assert_eq!(s.states.matched_graph, 1, "{attitude}: {:?}", s.misses);
        // The same content with no negation anywhere is the opposite claim.
        let s = rewritten(&gold, "you would read the letters", false);
        assert_eq!(s.errors.get(&ErrorKind::Polarity), Some(&1), "{attitude}");
    }
}

#[test]
fn a_negation_in_flag_and_content_is_a_double_negation() {
    // "I don't think you don't mind": a belief that you mind.
    let gold = one_state("belief", "you mind the noise", false);
    let s = rewritten(&gold, "you don't mind the noise", true);
    assert_eq!(s.states.matched_graph, 1, "{:?}", s.misses);
    // A flag alone is the plain negation: "doesn't think you mind".
    let s = rewritten(&gold, "you mind the noise", true);
    assert_eq!(s.errors.get(&ErrorKind::Polarity), Some(&1));
}

#[test]
fn knowledge_is_read_strictly() {
    // Not knowing the door is locked is not knowing it is not locked.
    let gold = one_state("knowledge", "the door is locked", true);
    let s = rewritten(&gold, "the door is not locked", false);
    assert_eq!(
        s.errors.get(&ErrorKind::Polarity),
        Some(&1),
        "{:?}",
        s.misses
    );
    // "I know you don't": knowledge of "you don't mind", not its negation.
    let gold = one_state("knowledge", "you don't mind", false);
    let s = rewritten(&gold, "you don't mind", true);
    assert_eq!(
        s.errors.get(&ErrorKind::Polarity),
        Some(&1),
        "{:?}",
        s.misses
    );
    let s = rewritten(&gold, "you don't mind", false);
    assert_eq!(s.states.matched_graph, 1);
}

#[test]
fn an_end_counts_only_at_the_gold_end_scene() {
    let gold = one_state("belief", "the boat is hers", false);
    let mut graph = gold.to_graph();
    let s = lexical(&graph, &gold);
    assert_eq!((s.ends.gold, s.ends.recalled, s.ends.right_end), (1, 1, 1));
    // Gold ends in scene 4 (graph scenes are 0-based): 6 is past the window.
    for (until, right) in [(None, 0), (Some(4), 1), (Some(5), 0)] {
        graph
            .nodes
            .iter_mut()
            .find(|n| n.id == "mental_state:m1")
            .unwrap()
            .until_scene = until;
        let s = lexical(&graph, &gold);
        assert_eq!((s.ends.recalled, s.ends.right_end), (1, right), "{until:?}");
    }
}

#[test]
fn a_truth_left_unsaid_matches_either_way_and_a_truth_said_must_be_right() {
    let gold = sample_gold();
    let false_belief = lone_state(&gold, |s| {
        s.attitude == Attitude::Belief && s.truth == Some(false)
    });
    let true_belief = lone_state(&gold, |s| {
        s.attitude == Attitude::Belief && s.truth == Some(true)
    });
    let whole = lexical(&gold.to_graph(), &gold);
    assert_eq!(
        whole.false_beliefs.right_end, whole.false_beliefs.gold,
        "the gold graph knows every false belief"
    );
    // The graph does not say whether the false belief is true: still right,
    // but one false belief fewer known as false.
    let mut unsaid = gold.to_graph();
    unsaid
        .nodes
        .iter_mut()
        .find(|n| n.id == false_belief)
        .unwrap()
        .truth = None;
    let s = lexical(&unsaid, &gold);
    assert_eq!(s.errors.get(&ErrorKind::Truth), None, "{:?}", s.errors);
    assert_eq!(s.states.matched_graph, whole.states.matched_graph);
    assert_eq!(s.false_beliefs.recalled, whole.false_beliefs.recalled);
    assert_eq!(s.false_beliefs.right_end + 1, whole.false_beliefs.right_end);
    // Saying a false belief is true, or a true one false, is a truth error.
    let mut said_true = gold.to_graph();
    said_true
        .nodes
        .iter_mut()
        .find(|n| n.id == false_belief)
        .unwrap()
        .truth = Some(true);
    assert_eq!(
        lexical(&said_true, &gold).errors.get(&ErrorKind::Truth),
        Some(&1)
    );
    let mut said_false = gold.to_graph();
    said_false
        .nodes
        .iter_mut()
        .find(|n| n.id == true_belief)
        .unwrap()
        .truth = Some(false);
    assert_eq!(
        lexical(&said_false, &gold).errors.get(&ErrorKind::Truth),
        Some(&1)
    );
}
