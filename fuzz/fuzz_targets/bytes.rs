#![no_main]
//! Fuzzes the whole front door: arbitrary bytes through decoding (BOMs,
//! UTF-16, Windows-1252, binary detection) and format auto-detection.
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use moviegraph::screenplay::parse_bytes;

fuzz_target!(|bytes: &[u8]| {
    let _ = parse_bytes(bytes, None, Path::new("fuzz-input"));
});
