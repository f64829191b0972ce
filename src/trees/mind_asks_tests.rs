//! The verdicts of the questions that test a mind at a moment (issue 39):
//! what a character actually knows, what they wrongly believe, what they no
//! longer hold, and how a state reads as a sentence; on a small hand-made
//! graph of one character's states around one event.

use crate::graph::{Attitude, Edge, EdgeKind, Graph, Node, NodeKind};

use super::facts::{Ask, Facts, Verdict};
use super::schema::DistractorReason as R;

/// Mara's states, each `(id, attitude, content, negated, truth, scene,
/// until_scene)`, and the moment `event:now` in scene 3 (order 30).
struct State {
    id: &'static str,
    attitude: Attitude,
    content: &'static str,
    negated: bool,
    truth: Option<bool>,
    scene: usize,
    until: Option<usize>,
}

fn state(id: &'static str, attitude: Attitude, content: &'static str, scene: usize) -> State {
    State {
        id,
        attitude,
        content,
        negated: false,
        truth: None,
        scene,
        until: None,
    }
}

fn graph(states: &[State]) -> Graph {
    let mut nodes = vec![
        Node::new("character:mara", NodeKind::Character, "Mara Ellis"),
        Node::new("character:teo", NodeKind::Character, "Teo Barnes"),
    ];
    let mut now = Node::new("event:now", NodeKind::Event, "Mara opens the safe");
    now.agent = Some("character:mara".into());
    now.participants = vec!["character:mara".into()];
    now.order = Some(30);
    now.scene = Some(3);
    nodes.push(now);
    let mut edges = Vec::new();
    for s in states {
        let id = format!("mental_state:{}", s.id);
        let mut n = Node::new(&id, NodeKind::MentalState, format!("Mara: {}", s.content));
        n.attitude = Some(s.attitude);
        n.content = Some(s.content.into());
        n.holder = Some("character:mara".into());
        n.negated = s.negated;
        n.truth = s.truth;
        n.scene = Some(s.scene);
        n.order = Some(s.scene * 10 + 1);
        n.until_scene = s.until;
        nodes.push(n);
        edges.push(Edge::new(EdgeKind::Holds, "character:mara", &id));
    }
    nodes.sort_by(|a, b| a.id.cmp(&b.id));
    Graph {
        film: "t".into(),
        nodes,
        edges,
    }
}

/// Mara's state `id` made to begin after the moment: an event in scene 4
/// triggers it (Teo tells her, say).
fn caused_later(mut g: Graph, id: &str) -> Graph {
    let mut told = Node::new("event:told", NodeKind::Event, "Teo tells Mara");
    told.agent = Some("character:teo".into());
    told.order = Some(40);
    told.scene = Some(4);
    g.nodes.push(told);
    g.nodes.sort_by(|a, b| a.id.cmp(&b.id));
    g.edges.push(Edge::new(
        EdgeKind::Triggers,
        "event:told",
        &format!("mental_state:{id}"),
    ));
    g
}

/// The verdict on Mara's state `id` as an answer to `ask(mara, now)`.
fn verdict(g: &Graph, ask: fn(usize, usize) -> Ask, id: &str) -> Verdict {
    let f = Facts::new(g);
    let mara = f.index_of("character:mara").unwrap();
    let now = f.index_of("event:now").unwrap();
    f.classify(
        &ask(mara, now),
        f.index_of(&format!("mental_state:{id}")).unwrap(),
    )
}

fn knows_at(character: usize, moment: usize) -> Ask {
    Ask::KnowsAt { character, moment }
}

fn false_belief(character: usize, moment: usize) -> Ask {
    Ask::FalseBelief { character, moment }
}

fn no_longer(character: usize, moment: usize) -> Ask {
    Ask::NoLonger { character, moment }
}

#[test]
fn what_a_character_knows_is_told_from_what_they_wrongly_believe_or_do_not_know() {
    let wrong = State {
        truth: Some(false),
        ..state(
            "wrong",
            Attitude::Belief,
            "the key is at the bottom of the harbour",
            2,
        )
    };
    let unknown = State {
        negated: true,
        ..state(
            "unknown",
            Attitude::Knowledge,
            "the ring has left the safe",
            2,
        )
    };
    let g = graph(&[
        state("known", Attitude::Knowledge, "her brother took the key", 2),
        wrong,
        unknown,
        state("later", Attitude::Knowledge, "the safe is empty", 4),
    ]);
    assert_eq!(verdict(&g, knows_at, "known"), Verdict::Gold);
    assert_eq!(verdict(&g, knows_at, "wrong"), Verdict::Wrong(R::Mistaken));
    assert_eq!(
        verdict(&g, knows_at, "unknown"),
        Verdict::Wrong(R::NotKnown)
    );
    // First voiced after the moment: perhaps held before it, unless the
    // graph shows what began it later.
    assert_eq!(verdict(&g, knows_at, "later"), Verdict::Unusable);
    let g = caused_later(g, "later");
    assert_eq!(
        verdict(&g, knows_at, "later"),
        Verdict::Wrong(R::LaterEvent)
    );
}

#[test]
fn a_false_belief_is_gold_a_true_one_or_knowledge_is_not() {
    let g = graph(&[
        State {
            truth: Some(false),
            ..state(
                "wrong",
                Attitude::Belief,
                "the key is at the bottom of the harbour",
                2,
            )
        },
        State {
            truth: Some(true),
            ..state("right", Attitude::Belief, "Teo is lying", 2)
        },
        state("known", Attitude::Knowledge, "her brother took the key", 2),
        State {
            truth: Some(false),
            until: Some(2),
            ..state("corrected", Attitude::Belief, "the ring was sold", 1)
        },
    ]);
    assert_eq!(verdict(&g, false_belief, "wrong"), Verdict::Gold);
    assert_eq!(
        verdict(&g, false_belief, "right"),
        Verdict::Wrong(R::TrueBelief)
    );
    assert_eq!(
        verdict(&g, false_belief, "known"),
        Verdict::Wrong(R::TrueBelief)
    );
    // Corrected in scene 2: at a moment in scene 3 it is no longer believed,
    // so it is neither the gold nor a safe distractor.
    assert_eq!(verdict(&g, false_belief, "corrected"), Verdict::Unusable);
}

#[test]
fn what_a_character_no_longer_holds_is_a_state_the_graph_ends_before_the_moment() {
    let g = graph(&[
        State {
            until: Some(2),
            ..state("ended", Attitude::Intention, "sell the boat", 1)
        },
        State {
            until: Some(5),
            ..state("held", Attitude::Desire, "keep the ring", 1)
        },
        State {
            until: Some(3),
            ..state(
                "ends_now",
                Attitude::Emotion,
                "fear of what Teo will say",
                2,
            )
        },
        state(
            "recent",
            Attitude::Emotion,
            "relief that the ring is safe",
            2,
        ),
        state(
            "old",
            Attitude::Emotion,
            "jealousy of her brother's wife",
            1,
        ),
        state(
            "later",
            Attitude::Emotion,
            "shame at what she said to Teo",
            4,
        ),
    ]);
    assert_eq!(verdict(&g, no_longer, "ended"), Verdict::Gold);
    assert_eq!(verdict(&g, no_longer, "held"), Verdict::Wrong(R::StillHeld));
    // Ends in the moment's own scene: before or after it, the graph does not say.
    assert_eq!(verdict(&g, no_longer, "ends_now"), Verdict::Unusable);
    // No recorded end, in a graph that records ends: held if it began in the
    // last scene, unknown if earlier.
    assert_eq!(
        verdict(&g, no_longer, "recent"),
        Verdict::Wrong(R::StillHeld)
    );
    assert_eq!(verdict(&g, no_longer, "old"), Verdict::Unusable);
    // First voiced after the moment: perhaps held before it, unless the
    // graph shows what began it later.
    assert_eq!(verdict(&g, no_longer, "later"), Verdict::Unusable);
    let g = caused_later(g, "later");
    assert_eq!(
        verdict(&g, no_longer, "later"),
        Verdict::Wrong(R::LaterEvent)
    );
}

#[test]
fn another_characters_state_is_never_an_answer_about_this_one() {
    let mut g = graph(&[state(
        "known",
        Attitude::Knowledge,
        "her brother took the key",
        2,
    )]);
    for e in &mut g.edges {
        e.source = "character:teo".into();
    }
    for n in &mut g.nodes {
        if n.kind == NodeKind::MentalState {
            n.holder = Some("character:teo".into());
        }
    }
    assert_eq!(verdict(&g, knows_at, "known"), Verdict::Unusable);
}

#[test]
fn a_state_reads_as_a_sentence_and_a_moment_as_a_time_in_the_story() {
    let g = graph(&[
        state("plan", Attitude::Intention, "sell the boat to Teo", 1),
        State {
            negated: true,
            ..state(
                "unknown",
                Attitude::Knowledge,
                "the ring has left the safe",
                1,
            )
        },
        state("gerund", Attitude::Intention, "selling Teo the boat", 1),
        state(
            "line",
            Attitude::Belief,
            "That was the last thing of hers",
            1,
        ),
    ]);
    let f = Facts::new(&g);
    let at = |id: &str| f.index_of(&format!("mental_state:{id}")).unwrap();
    assert_eq!(
        f.statement(at("plan")),
        "Mara intends to sell the boat to Teo"
    );
    assert_eq!(
        f.when(at("plan")),
        "When Mara decides to sell the boat to Teo"
    );
    assert_eq!(
        f.when(at("unknown")),
        "While Mara does not know the ring has left the safe"
    );
    assert_eq!(
        f.when(at("gerund")),
        "When Mara decides on selling Teo the boat"
    );
    assert_eq!(
        f.statement(at("line")),
        "Mara believes that was the last thing of hers"
    );
    assert_eq!(
        f.claim(at("unknown"), "Mara", "knows"),
        "Mara knows the ring has left the safe"
    );
}

#[test]
fn anothers_state_about_this_character_is_no_distractor_of_their_mind() {
    // "Quinton knows Quinton owes money to a moneylender" was offered as
    // a state of another's, wrong for him; it was his own.
    let g = graph(&[state(
        "about",
        Attitude::Knowledge,
        "Teo owes money to a moneylender",
        2,
    )]);
    let plain = graph(&[state("plain", Attitude::Knowledge, "the safe is empty", 2)]);
    let teos_mind = |g: &Graph, id: &str| {
        let f = Facts::new(g);
        let teo = f.index_of("character:teo").unwrap();
        let now = f.index_of("event:now").unwrap();
        let ask = Ask::MindBefore {
            character: teo,
            moment: now,
        };
        f.classify(&ask, f.index_of(&format!("mental_state:{id}")).unwrap())
    };
    assert_eq!(teos_mind(&g, "about"), Verdict::Unusable);
    assert_eq!(
        teos_mind(&plain, "plain"),
        Verdict::Wrong(R::OtherCharacter)
    );
    // Teo in the scene where Mara comes to know it: he may know it too.
    let mut present = plain.clone();
    for n in &mut present.nodes {
        if n.id == "event:now" {
            n.scene = Some(2);
            n.participants.push("character:teo".into());
        }
    }
    assert_eq!(teos_mind(&present, "plain"), Verdict::Unusable);
}
