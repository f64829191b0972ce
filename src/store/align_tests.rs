//! Unit tests of the alignment tables: rows in, the same rows out.

use super::*;

fn rows() -> AlignmentRows {
    let file = |path: &str| InputFile::of_bytes(Path::new(path), path.as_bytes());
    AlignmentRows {
        run: RunRow {
            dialogue_lines: 1,
            cues: 1,
            matched: 1,
            coverage: 1.0,
            mean_confidence: 0.75,
            anchors: 1,
            dp_cells: 4,
            moved_lines: 0,
            embedder: "hashed".into(),
            verdict: "aligned".into(),
            unrelated: Some((0.12, 0.31, 600)),
            lone_pairs: 2,
        },
        sources: AlignmentSources {
            script: file("script.fountain"),
            subtitles: file("subtitles.srt"),
            shots: Some(file("shots.txt")),
        },
        elements: vec![
            ElementRow {
                index: 0,
                kind: "scene_heading".into(),
                text: "INT. ROOM - DAY".into(),
                scene: Some(0),
                speaker: None,
                extension: None,
                lines: [1, 1],
                start_ms: Some(0),
                end_ms: Some(900),
                interpolated: Some(true),
            },
            ElementRow {
                index: 1,
                kind: "dialogue".into(),
                text: "Hello.".into(),
                scene: Some(0),
                speaker: Some("ANA".into()),
                extension: Some("V.O.".into()),
                lines: [3, 4],
                start_ms: Some(1_000),
                end_ms: Some(2_000),
                interpolated: Some(false),
            },
            ElementRow {
                index: 2,
                kind: "note".into(),
                text: "later".into(),
                scene: None,
                speaker: None,
                extension: None,
                lines: [5, 5],
                start_ms: None,
                end_ms: None,
                interpolated: None,
            },
        ],
        scenes: vec![SceneRow {
            index: 0,
            heading: "INT. ROOM - DAY".into(),
            location: "ROOM".into(),
            time_of_day: Some("DAY".into()),
            elements: [0, 2],
        }],
        cues: vec![CueRow {
            index: 1,
            start_ms: 1_000,
            end_ms: 2_000,
            text: "Hello.".into(),
        }],
        shots: vec![ShotRow {
            index: 0,
            start_frame: 0,
            end_frame: 47,
            start_ms: 0,
            end_ms: 2_000,
            keyframes: vec![KeyframeRow {
                slot: 0,
                frame: Some(12),
                path: "k/0.jpg".into(),
            }],
        }],
        lines: vec![LineRow {
            line: 0,
            element: 1,
            cues: vec![1],
            start_ms: Some(1_000),
            end_ms: Some(2_000),
            confidence: 0.75,
            moved: false,
        }],
        blocks: vec![BlockRow {
            id: 0,
            scene: 0,
            elements: [0, 2],
            start_ms: Some(0),
            end_ms: Some(2_000),
            keyframes: vec![BlockKeyframeRow {
                path: "k/0.jpg".into(),
                representative: true,
            }],
        }],
    }
}

#[test]
fn alignment_rows_round_trip() {
    let store = Store::open_in_memory().unwrap();
    let saved = rows();
    let film = store.save_alignment_rows("f", Some("F"), &saved).unwrap();
    let back = store.alignment_rows(film).unwrap().unwrap();
    assert_eq!(back.run, saved.run);
    assert_eq!(back.sources, saved.sources);
    assert_eq!(back.elements, saved.elements);
    assert_eq!(back.lines, saved.lines);
    assert_eq!(back.blocks, saved.blocks);
    assert_eq!((back.cues, back.shots), (1, 1));
    assert_eq!(store.block_rows(film).unwrap(), saved.blocks);
    assert_eq!(
        store.element_rows(film, 1, 1).unwrap(),
        saved.elements[1..2]
    );
    // Saving again replaces the rows; deleting leaves the film without any.
    let fewer = AlignmentRows {
        shots: Vec::new(),
        ..saved.clone()
    };
    assert_eq!(store.save_alignment_rows("f", None, &fewer).unwrap(), film);
    assert_eq!(store.alignment_rows(film).unwrap().unwrap().shots, 0);
    store.delete_alignment(film).unwrap();
    assert_eq!(store.alignment_rows(film).unwrap(), None);
    assert!(store.block_rows(film).unwrap().is_empty());
    assert_eq!(store.integrity_check().unwrap(), vec!["ok".to_string()]);
}

#[test]
fn a_film_never_aligned_has_no_rows() {
    let store = Store::open_in_memory().unwrap();
    let film = store.ensure_film("x", None).unwrap();
    assert_eq!(store.alignment_rows(film).unwrap(), None);
    assert!(store.block_rows(film).unwrap().is_empty());
    assert!(store.element_rows(film, 0, usize::MAX).unwrap().is_empty());
}
