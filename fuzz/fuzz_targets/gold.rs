#![no_main]
//! Fuzzes the gold-annotation reader (`gold.json`, DESIGN.md §2): any text
//! parses or fails with a line within the text, without panicking; an
//! accepted file turns into a graph that scores against it without
//! panicking, every count within its total, and that graph written back in
//! the gold format (`graph export --format gold`) is a gold file again.
use libfuzzer_sys::fuzz_target;
use moviegraph::graph::gold::{parse_gold, Gold};
use moviegraph::graph::score::{score, ScoreOptions, Similarity};

fuzz_target!(|text: &str| {
    match parse_gold(text) {
        Err((line, _)) => assert!(line >= 1 && line <= text.split('\n').count().max(1)),
        Ok(gold) => {
            let graph = gold.to_graph();
            let sim = Similarity::Lexical;
            let opts = ScoreOptions {
                scene_window: 1,
                threshold: sim.default_threshold(),
            };
            let s = score(&graph, &gold, &sim, opts).expect("lexical scoring cannot fail");
            for p in [s.states, s.higher_order, s.causal] {
                assert!(p.matched_gold <= p.gold && p.matched_graph <= p.graph);
            }
            let back = Gold::from_graph(&graph);
            let text = serde_json::to_string_pretty(&back).expect("a gold annotation serializes");
            parse_gold(&text).expect("an exported annotation reads back");
        }
    }
});
