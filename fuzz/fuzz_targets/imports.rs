#![no_main]
//! Fuzzes the benchmark importers: arbitrary text as a flat item file and as
//! MuMA-ToM's questions.json (with and without a texts.json of the same text),
//! each imported tree then validated and exported.
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use moviegraph::trees::import::{items, muma};
use moviegraph::trees::validate::validate;

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let path = Path::new("fuzz-input");
    let mut trees = Vec::new();
    if let Ok(t) = items::from_text(text, path, "fuzz") {
        trees.extend(t);
    }
    for texts in [None, Some((text, path))] {
        if let Ok(t) = muma::from_text(text, path, texts) {
            trees.extend(t);
        }
    }
    for tree in &trees {
        let _ = validate(tree);
    }
    let mut out = Vec::new();
    let _ = items::write_items(&mut out, &trees);
    let _ = items::write_inspect(&mut out, &trees);
});
