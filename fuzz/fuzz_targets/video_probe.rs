#![no_main]
//! Fuzzes what moviegraph reads from ffprobe about a video (any JSON: missing
//! streams, odd rates, rotations, sizes, subtitle tags) and the timestamp
//! sample that tells a variable frame rate: an answer or a clear error, never
//! a panic.
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use moviegraph::media::video::probe::read_probe;

fuzz_target!(|bytes: &[u8]| {
    if let Ok(json) = serde_json::from_slice::<serde_json::Value>(bytes) {
        if let Ok(info) = read_probe(Path::new("fuzz.mp4"), bytes.len() as u64, &json) {
            assert!(info.width > 0 && info.height > 0);
            assert!(matches!(info.rotation, 0 | 90 | 180 | 270));
            let _ = info.expected_frames();
            for track in &info.subtitles {
                let _ = track.describe();
            }
        }
    }
});
