//! `run` on a film folder holding only a video and the script: the shots
//! stage takes shots, keyframes and subtitles out of the video, and the
//! film's graph and trees are those of the committed keyframes and
//! subtitles, keyframe references aside.

use std::path::Path;

use serde_json::Value;

use crate::common::video::{have_ffmpeg, render_sample};
use crate::run::{actions, run, workspace, FILM};

/// A JSON value without the fields that name keyframes or where the film
/// folder is (they differ by construction: other shots, another folder).
fn without_keyframes(v: &Value) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| !k.contains("keyframe") && *k != "film_dir" && *k != "provenance")
                .map(|(k, v)| (k.clone(), without_keyframes(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_keyframes).collect()),
        other => other.clone(),
    }
}

fn trees(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| without_keyframes(&serde_json::from_str(l).unwrap()))
        .collect()
}

fn graph(path: &Path) -> Value {
    without_keyframes(&serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap())
}

#[test]
fn the_sample_from_its_video_gives_the_same_graph_and_trees_keyframes_aside() {
    if !have_ffmpeg() {
        return;
    }
    let root = crate::common::root();
    let from_files = workspace();
    let out = run(from_files.path(), &["run", FILM]);
    assert!(!out.contains("  shots "), "no video, no shots stage: {out}");

    let from_video = tempfile::tempdir().unwrap();
    let film = from_video.path().join("films/the-second-key");
    std::fs::create_dir_all(&film).unwrap();
    std::fs::copy(
        root.join(FILM).join("script.fountain"),
        film.join("script.fountain"),
    )
    .unwrap();
    render_sample(&root, &film);
    let out = run(from_video.path(), &["run", "films/the-second-key"]);
    let stages = actions(&out);
    assert_eq!(stages[1].0, "shots", "{out}");
    assert_eq!(stages[1].1, "ran", "{out}");
    assert!(
        out.contains("subtitles: subtitle track 0 (eng, mov_text) written to films/the-second-key/subtitles.srt"),
        "{out}"
    );
    let shots: usize = out
        .split("shots: ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{out}"));
    // The sample's 140 shots are stills of one cartoon set: a cut between two
    // framings of it changes few pixels. PySceneDetect's adaptive rule (under
    // `robust`, the default without TransNetV2's weights) wants a score of 15;
    // about a third of the cuts reach it. Either default finds no cut where
    // there is none.
    let committed =
        std::fs::read_to_string(root.join("keyframes/the-second-key/shot_txt/the-second-key.txt"))
            .unwrap();
    let starts: Vec<u64> = committed
        .lines()
        .map(|l| l.split(' ').next().unwrap().parse().unwrap())
        .collect();
    let found =
        std::fs::read_to_string(film.join("keyframes/shot_txt/the-second-key.txt")).unwrap();
    for line in found.lines() {
        let start: u64 = line.split(' ').next().unwrap().parse().unwrap();
        assert!(
            starts.contains(&start),
            "a cut at {start} where the sample has none"
        );
    }
    eprintln!(
        "{shots} shots of the sample's {} found from its video",
        starts.len()
    );
    assert!(shots > 30 && shots <= starts.len(), "{shots} shots: {out}");

    assert_eq!(
        trees(&from_files.path().join("trees/the-second-key.jsonl")),
        trees(&from_video.path().join("trees/the-second-key.jsonl")),
        "the trees differ beyond their keyframes"
    );
    assert_eq!(
        graph(&from_files.path().join("graphs/the-second-key.json")),
        graph(&from_video.path().join("graphs/the-second-key.json")),
        "the graphs differ beyond their keyframes"
    );
    // Nothing to do the second time.
    let again = run(from_video.path(), &["run", "films/the-second-key"]);
    assert!(
        actions(&again)
            .iter()
            .all(|(_, action, _)| action == "skipped"),
        "{again}"
    );
}
