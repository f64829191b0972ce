#![no_main]
//! Fuzzes the validators of model output (generator, auditor, adjudicator):
//! arbitrary text must give a result or an error, never a panic, and every
//! quote that survives must be the element's text at its offsets.
use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use moviegraph::align::Block;
use moviegraph::graph::model::{generator_prompt, parse_adjudication, parse_audit, parse_generator};
use moviegraph::graph::{BlockContext, Item};
use moviegraph::screenplay::{parse_text, Format};

const SCRIPT: &str = "INT. SHOP - DAY\n\nMara holds the KEY. Quinton watches — ça va.\n\nQUINTON\n(lying)\nI threw it away.\n\nMARA\nI believe you.\n";

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let play = parse_text(SCRIPT, Some(Format::Fountain), None).unwrap();
    let block = Block { id: 0, elements: [0, play.elements.len() - 1], scene: 0, start_ms: None, end_ms: None, keyframes: Vec::new() };
    let entities = BTreeMap::new();
    let ctx = BlockContext { film: "fuzz", block: &block, play: &play, entities: &entities, max_keyframes: 5 };
    let (_, handles) = generator_prompt(&ctx);
    if let Ok((proposal, _)) = parse_generator(&ctx, &handles, text) {
        for (item, _) in &proposal.items {
            let evidence = match item {
                Item::Node(n) => &n.evidence,
                Item::Edge(e) => &e.evidence,
            };
            for ev in evidence {
                let s: String = play.elements[ev.element].text.chars().skip(ev.start).take(ev.end - ev.start).collect();
                assert_eq!(s, ev.quote);
            }
        }
    }
    let _ = parse_audit("fuzz", &[], text);
    let _ = parse_adjudication("fuzz", text);
});
