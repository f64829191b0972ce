use super::*;
use crate::graph::generate::cast::character_id;
use crate::graph::OneBlock;

const SCRIPT: &str = "INT. SHOP - DAY\n\nMara holds the KEY. Quinton watches.\n\nQUINTON\n(lying)\nI threw it away.\n\nMARA\nI believe you.\n";

fn setup() -> OneBlock {
    let mut one = OneBlock::parse(SCRIPT);
    for name in ["MARA", "QUINTON"] {
        let n = Node::new(character_id(name), NodeKind::Character, name.to_owned());
        one.entities.insert(n.id.clone(), n);
    }
    one
}

#[test]
fn the_generator_prompt_shows_handles_not_ids() {
    let one = setup();
    let ents = &one.entities;
    let (p, h) = generator_prompt(&one.ctx());
    assert_eq!(h.ids.len(), 2);
    assert!(p.user.contains("E1 character MARA"), "{}", p.user);
    assert!(p.user.contains("I threw it away."));
    assert!(!leaks_ids(&p.user, ents.keys()), "{}", p.user);
    let endpoint =
        &p.schema["properties"]["edges"]["items"]["properties"]["source"]["anyOf"][0]["enum"];
    assert_eq!(endpoint, &json!(["E1", "E2"]));
}

#[test]
fn generator_output_is_repaired_or_dropped_with_reasons() {
    let one = setup();
    let c = one.ctx();
    let (_, h) = generator_prompt(&c);
    let answer = r#"```json
    {"entities": [
      {"handle": "N1", "kind": "mental_state", "name": "Mara believes the lie", "attitude": "belief",
       "truth": false, "holder": "E1", "target": "E2", "evidence": [{"element": 1, "quote": "i believe you."}]},
      {"handle": "N2", "kind": "object", "name": "Key", "evidence": [{"element": 2, "quote": "the KEY"}]},
      {"handle": "N3", "kind": "event", "name": "Invented", "evidence": [{"element": 2, "quote": "never said"}]},
      {"handle": "N4", "kind": "mental_state", "name": "No holder", "attitude": "desire", "holder": "E9",
       "evidence": [{"element": 2, "quote": "Quinton watches"}]}
    ],
    "edges": [
      {"kind": "holds", "source": "E1", "target": "N1", "evidence": [{"element": 9, "quote": "I believe you."}]},
      {"kind": "about", "source": "N1", "target": "N3", "evidence": [{"element": 2, "quote": "Quinton watches"}]}
    ]}
    ```"#;
    let (proposal, dropped) = parse_generator(&c, &h, answer).unwrap();
    assert_eq!(dropped.len(), 3, "{dropped:?}");
    assert!(
        dropped[0].contains("N3")
            && dropped[1].contains("No holder")
            && dropped[2].starts_with("about edge")
    );
    let Item::Node(ms) = &proposal.items[0].0 else {
        panic!()
    };
    assert_eq!(ms.holder.as_deref(), Some("character:mara"));
    assert_eq!(ms.truth, Some(false));
    // The quote was re-located: right element, exact text and offsets.
    let ev = &ms.evidence[0];
    assert_eq!(one.play.elements[ev.element].text, "I believe you.");
    assert_eq!(
        (ev.start, ev.end, ev.quote.as_str()),
        (0, 14, "I believe you.")
    );
    assert!(ms.id.starts_with("mental_state:e"));
    let Item::Edge(e) = &proposal.items[2].0 else {
        panic!()
    };
    assert_eq!(
        (e.source.as_str(), e.target.as_str()),
        ("character:mara", ms.id.as_str())
    );
    assert!(parse_generator(&c, &h, "no json here").is_err());
}

#[test]
fn audit_and_adjudication_answers_are_validated() {
    let one = setup();
    let c = one.ctx();
    let mut n = Node::new("object:key", NodeKind::Object, "Key");
    n.evidence = vec![Evidence {
        block: 0,
        element: 2,
        start: 10,
        end: 17,
        quote: "the KEY".into(),
        keyframes: vec![],
    }];
    let cand = |id: &str| Candidate {
        id: id.into(),
        block: 0,
        item: Item::Node(n.clone()),
        reason: String::new(),
        status: Status::Candidate,
        votes: vec![],
    };
    let batch = vec![cand("a"), cand("b")];
    let p = audit_prompt(&c, &batch);
    assert!(
        p.user.contains("C2 object “Key”") && !p.user.contains("object:key"),
        "{}",
        p.user
    );
    let ok = r#"{"verdicts": [{"candidate": "C2", "accept": false, "rationale": "no"}, {"candidate": "C1", "accept": true, "rationale": "yes"}, {"candidate": "C1", "accept": false, "rationale": "dup"}]}"#;
    let votes = parse_audit("m", &batch, ok).unwrap();
    assert_eq!(
        votes.iter().map(|v| v.accept).collect::<Vec<_>>(),
        vec![true, false]
    );
    let err = parse_audit(
        "m",
        &batch,
        r#"{"verdicts": [{"candidate": "C1", "accept": true, "rationale": ""}]}"#,
    )
    .unwrap_err();
    assert!(err.contains("C2"), "{err}");
    let mut escalated = cand("a");
    escalated.votes = votes;
    let p = adjudicator_prompt(&c, &escalated, &[]);
    assert!(p.user.contains("Auditor 2: reject — no"), "{}", p.user);
    let v = parse_adjudication("judge", r#"{"accept": true, "rationale": "quoted"}"#).unwrap();
    assert!(v.accept && v.role == Role::Adjudicator);
    assert!(parse_adjudication("judge", r#"{"rationale": "?"}"#).is_err());
}

#[test]
fn audit_verdicts_keyed_by_handle_parse_and_the_schema_requires_every_handle() {
    let schema = audit_schema(2);
    assert_eq!(
        schema["properties"]["verdicts"]["required"],
        serde_json::json!(["C1", "C2"])
    );
    let c = |id: &str| Candidate {
        id: id.into(),
        block: 0,
        item: Item::Node(Node::new("object:key", NodeKind::Object, "Key")),
        reason: String::new(),
        status: Status::Candidate,
        votes: vec![],
    };
    let batch = vec![c("a"), c("b")];
    let text = r#"{"verdicts": {"C2": {"accept": false, "rationale": "no"}, "C1": {"accept": true, "rationale": "yes"}}}"#;
    let votes = parse_audit("m", &batch, text).unwrap();
    assert_eq!(
        votes
            .iter()
            .map(|v| (v.accept, v.rationale.as_str()))
            .collect::<Vec<_>>(),
        vec![(true, "yes"), (false, "no")]
    );
    let err = parse_audit(
        "m",
        &batch,
        r#"{"verdicts": {"C1": {"accept": true, "rationale": ""}}}"#,
    )
    .unwrap_err();
    assert!(err.contains("no verdict for C2"), "{err}");
}
