#![no_main]
//! Fuzzes the fountain reader: any UTF-8 text parses without panicking, and the
//! result keeps the element-model invariants.
use libfuzzer_sys::fuzz_target;
use moviegraph::screenplay::{parse_text, Format};

#[path = "common.rs"]
mod common;

fuzz_target!(|text: &str| {
    let play = parse_text(text, Some(Format::Fountain), None).expect("fountain text never fails");
    common::check(&play, text);
});
