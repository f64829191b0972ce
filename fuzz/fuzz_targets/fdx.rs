#![no_main]
//! Fuzzes the FDX reader: any text either parses (and keeps the invariants) or
//! is refused with an error naming a line inside the input; never a panic.
use libfuzzer_sys::fuzz_target;
use moviegraph::screenplay::{parse_text, Format, ParseError};

#[path = "common.rs"]
mod common;

fuzz_target!(|text: &str| {
    match parse_text(text, Some(Format::Fdx), None) {
        Ok(play) => common::check(&play, text),
        Err(ParseError::Xml { line, .. }) => {
            assert!(line >= 1 && line <= text.replace("\r\n", "\n").replace('\r', "\n").split('\n').count().max(1), "error line {line} outside the input");
        }
        Err(other) => panic!("unexpected error kind: {other}"),
    }
});
