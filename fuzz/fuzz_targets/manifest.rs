#![no_main]
//! Fuzzes the keyframe-manifest parser, CSV and JSON, with no file system:
//! any text parses (or, for JSON, fails with a line) without panicking; no
//! accepted path is absolute or climbs with `..`; the shot list built from it
//! keeps its invariants.
use std::path::{Component, Path};

use libfuzzer_sys::fuzz_target;
use moviegraph::media::shots::manifest::{parse_manifest, ManifestFormat, Resolution};
use moviegraph::media::shots::ShotList;

#[path = "shots_check.rs"]
mod shots_check;

fuzz_target!(|text: &str| {
    let lines = text.split('\n').count();
    for format in [ManifestFormat::Csv, ManifestFormat::Json] {
        let manifest = match parse_manifest(text, format) {
            Ok(m) => m,
            Err(e) => {
                assert!(e.line >= 1 && e.line <= lines, "error line {} of {lines}", e.line);
                continue;
            }
        };
        for e in &manifest.entries {
            assert!(e.line >= 1 && e.line <= lines);
            assert!(e.path.components().all(|c| matches!(c, Component::Normal(_))), "{:?}", e.path);
            assert!(!e.path.as_os_str().is_empty());
        }
        for d in &manifest.diagnostics {
            assert!(d.line <= lines);
        }
        let root = Path::new("/film");
        let list = ShotList::from_manifest("f", manifest, None, Some(3_600_000), |e| {
            match e.line % 3 {
                0 => Resolution::Found(root.join(&e.path)),
                1 => Resolution::Missing("missing".into()),
                _ => Resolution::Refused("refused".into()),
            }
        });
        shots_check::check(&list, text.as_bytes());
        for s in &list.shots {
            for k in &s.keyframes {
                assert!(k.path.starts_with(root));
            }
        }
    }
});
