#![no_main]
//! Fuzzes the MovieNet shot-file parser: any text parses without panicking,
//! and the shot list built from it (at an NTSC rate, with some keyframes
//! present) keeps its invariants; time queries agree with a linear scan.
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use moviegraph::media::shots::{parse_shot_txt, FpsSource, FrameRate, KeyframeDir, ShotList};

#[path = "shots_check.rs"]
mod shots_check;

fuzz_target!(|text: &str| {
    let parsed = parse_shot_txt(text);
    let lines = text.split('\n').count();
    for s in &parsed.shots {
        assert!(s.line >= 1 && s.line <= lines);
        assert!(s.start_frame <= s.end_frame && s.keyframe_frames.len() <= 3);
    }
    for d in &parsed.diagnostics {
        assert!(d.line >= 1 && d.line <= lines);
    }
    let names = (0..64).flat_map(|i| [format!("shot_{i:04}_img_1.jpg"), format!("shot_{i:04}_img0.png")]);
    let dir = KeyframeDir::from_names(Path::new("/film/shot_keyf/f"), names);
    let rate = FrameRate::new(24000, 1001).unwrap();
    let list = ShotList::from_shot_lines("f", rate, FpsSource::Flag, parsed, &dir);
    shots_check::check(&list, text.as_bytes());
});
