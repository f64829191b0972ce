#![no_main]
//! Fuzzes the model layer's parsers: Batch API request and output lines,
//! `moviegraph.toml`, and JSON extraction plus schema validation of model answers.
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use moviegraph::llm::batch::{parse_output_line, parse_request_line};
use moviegraph::llm::schema::{extract_json, validate};
use moviegraph::llm::Config;

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let _ = parse_request_line(text);
    let _ = parse_output_line(text);
    let _ = Config::from_str_at(text, Path::new("fuzz.toml"));
    if let Ok(value) = extract_json(text) {
        // The answer checked against itself as a schema exercises every keyword path.
        let _ = validate(&value, &value);
    }
});
