#![no_main]
//! Fuzzes the SubRip reader: any UTF-8 text reads without panicking, every
//! kept cue has start <= end and lines inside the input, and text
//! normalization for matching copes with anything.
use libfuzzer_sys::fuzz_target;
use moviegraph::media::subtitles::{normalize_for_matching, read, SubtitleFormat};

#[path = "subtitles_common.rs"]
mod common;

fuzz_target!(|text: &str| {
    let subs = read(text, SubtitleFormat::Srt);
    common::check(&subs, text, SubtitleFormat::Srt);
    let _ = normalize_for_matching(text);
});
