#![no_main]
//! Fuzzes what the review app reads from a person: a queue name, and a
//! decision as stored (JSON); a decision that parses resolves a candidate
//! without panicking, and a queue that parses writes the name it was read from.
use libfuzzer_sys::fuzz_target;
use moviegraph::graph::review::{resolve, Decision, Verdict};
use moviegraph::graph::schema::{Attitude, Candidate, Item, Node, NodeKind, Status};
use moviegraph::workspace::review::Queue;

fuzz_target!(|text: &str| {
    if let Some(q) = Queue::parse(text) {
        assert_eq!(Queue::parse(&q.name()), Some(q));
    }
    if let Ok(verdict) = serde_json::from_str::<Verdict>(text) {
        let mut n = Node::new("mental_state:m1", NodeKind::MentalState, "x");
        n.attitude = Some(Attitude::Belief);
        n.holder = Some("character:a".into());
        let c = Candidate {
            id: "mental_state:m1@b000".into(),
            block: 0,
            item: Item::Node(n),
            reason: String::new(),
            status: Status::Accepted,
            votes: Vec::new(),
        };
        let d = Decision {
            candidate: c.id.clone(),
            reviewer: "r".into(),
            at_ms: 0,
            queue: "escalated".into(),
            verdict,
        };
        let _ = resolve(&c, &[d.clone(), Decision { reviewer: "s".into(), ..d }]);
    }
});
