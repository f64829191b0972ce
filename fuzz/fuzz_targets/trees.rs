#![no_main]
//! Fuzzes the tree inputs: arbitrary text as a line of a tree file (then
//! validated) and as a model's question JSON (then verified against a graph).
use libfuzzer_sys::fuzz_target;
use moviegraph::graph::{Edge, EdgeKind, Graph, Node, NodeKind};
use moviegraph::trees::facts::{Ask, Facts, Verdict};
use moviegraph::trees::generate::{verify, Candidate, Spec};
use moviegraph::trees::model::parse_output;
use moviegraph::trees::schema::{DistractorReason, Format, Tree};
use moviegraph::trees::validate::validate;

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    if let Ok(tree) = serde_json::from_str::<Tree>(text) {
        let _ = validate(&tree);
    }
    let mut a = Node::new("event:a", NodeKind::Event, "Ann opens the safe");
    a.order = Some(1);
    let mut b = Node::new("event:b", NodeKind::Event, "Bo sells the boat");
    b.order = Some(2);
    let mut c = Node::new("event:c", NodeKind::Event, "Cy calls the bank");
    c.order = Some(3);
    let g = Graph {
        film: "f".into(),
        nodes: vec![a, b, c],
        edges: vec![Edge::new(EdgeKind::Causes, "event:a", "event:b")],
    };
    let f = Facts::new(&g);
    let cand = |i: usize, verdict| Candidate {
        node: Some(i),
        character: None,
        text: f.gloss(i),
        verdict,
    };
    let spec = Spec {
        ask: Ask::Cause { target: 1 },
        format: Format::Single,
        candidates: vec![
            cand(0, Verdict::Gold),
            cand(2, Verdict::Wrong(DistractorReason::LaterEvent)),
        ],
    };
    if let Ok(w) = parse_output(&spec, text) {
        let _ = verify(&f, &spec, &w, Some(1.8));
    }
});
