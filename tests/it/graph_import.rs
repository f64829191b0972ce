//! `graph import --gold`: an expert annotation as the film's graph build,
//! scored against itself, imported once, and grown into valid trees.

use crate::common;
use moviegraph::trees::jsonl::read_trees;
use moviegraph::trees::validate::{is_valid, validate};

const FILM: &str = "screenplays/the-second-key";

#[test]
fn an_imported_annotation_is_the_films_graph_and_grows_valid_trees() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("ws.db");
    let s = store.to_str().unwrap();
    let root = common::root();
    let run = |args: &[&str]| {
        let out = common::moviegraph_in(&root, args);
        assert!(out.status.success(), "{args:?}: {}", common::said(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let first = run(&["graph", "import", FILM, "--store", s]);
    assert!(
        first.contains("imported") && first.contains("expert-annotation"),
        "{first}"
    );
    let again = run(&["graph", "import", FILM, "--store", s]);
    assert!(again.contains("already imported"), "{again}");
    // The build is the annotation: it scores 1 against it.
    let score = run(&[
        "graph",
        "score",
        FILM,
        "--store",
        s,
        "--similarity",
        "lexical",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&score).unwrap();
    let states = &v["states"];
    assert_eq!(states["matched_graph"], states["graph"], "{score}");
    assert_eq!(states["matched_gold"], states["gold"], "{score}");
    // Trees grow from it, valid, and say where their graph came from.
    let out = dir.path().join("trees");
    run(&[
        "trees",
        "generate",
        FILM,
        "--store",
        s,
        "--out",
        out.to_str().unwrap(),
    ]);
    let path = out.join("the-second-key.jsonl");
    let trees = read_trees(&path).unwrap();
    assert!(trees.len() >= 10, "{} trees", trees.len());
    assert!(trees.iter().all(|t| is_valid(&validate(t))));
    let first_line = std::fs::read_to_string(&path).unwrap();
    assert!(
        first_line
            .lines()
            .next()
            .unwrap()
            .contains("\"expert-annotation\""),
        "the provenance names the annotation"
    );
    // Characters read as the story names them, not as cues.
    assert!(first_line.contains("on Mara's mind"), "names title-cased");
}

#[test]
fn a_bad_annotation_is_refused_with_its_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"film\": 3}").unwrap();
    let store = dir.path().join("ws.db");
    let out = common::moviegraph_in(
        &common::root(),
        &[
            "graph",
            "import",
            FILM,
            "--gold",
            bad.to_str().unwrap(),
            "--store",
            store.to_str().unwrap(),
        ],
    );
    assert!(!out.status.success());
    let said = common::said(&out);
    assert!(said.contains("bad.json:1"), "{said}");
}
