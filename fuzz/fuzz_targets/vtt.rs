#![no_main]
//! Fuzzes the WebVTT reader: any UTF-8 text reads without panicking, every
//! kept cue has start <= end and lines inside the input.
use libfuzzer_sys::fuzz_target;
use moviegraph::media::subtitles::{read, SubtitleFormat};

#[path = "subtitles_common.rs"]
mod common;

fuzz_target!(|text: &str| {
    let subs = read(text, SubtitleFormat::WebVtt);
    common::check(&subs, text, SubtitleFormat::WebVtt);
});
