//! Data-driven expectation tests: every fixture film under
//! `tests/fixtures/films/<film>/` (a screenplay and its subtitles) goes through the
//! pipeline offline, and its alignment (JSONL), graph (JSON), trees (JSONL) and
//! report (JSON) are compared with the files in its `expect/` folder.
//!
//! A behaviour change shows up as a diff of those files. When the change is
//! intended, rewrite them with `UPDATE_EXPECT=1 cargo test --release expect` and
//! review the diff like code.

use std::path::{Path, PathBuf};

use crate::common;

/// The outputs compared, as (file in expect/, file the run wrote relative to its workspace).
fn outputs(film: &str) -> Vec<(String, String)> {
    vec![
        ("align.jsonl".to_owned(), "align.jsonl".to_owned()),
        ("graph.json".to_owned(), format!("o/graphs/{film}.json")),
        ("trees.jsonl".to_owned(), format!("o/trees/{film}.jsonl")),
        (
            "report.json".to_owned(),
            format!("o/reports/{film}/report.json"),
        ),
    ]
}

fn fixture_films() -> Vec<PathBuf> {
    let dir = common::root().join("tests/fixtures/films");
    let mut films: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("script.fountain").is_file())
        .collect();
    films.sort();
    films
}

fn moviegraph(cwd: &Path, args: &[&str]) {
    let o = crate::common::moviegraph_offline()
        .args(args)
        .current_dir(cwd)
        .env_remove("MOVIEGRAPH_STORE")
        .env_remove("MOVIEGRAPH_RUN_EVENTS")
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "moviegraph {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Runs a fixture film in a fresh workspace and gives each output's text.
fn run_film(src: &Path) -> Vec<(String, String)> {
    let name = src.file_name().unwrap().to_string_lossy().into_owned();
    let ws = tempfile::tempdir().unwrap();
    let film = ws.path().join("films").join(&name);
    std::fs::create_dir_all(&film).unwrap();
    for f in ["script.fountain", "subtitles.srt"] {
        std::fs::copy(src.join(f), film.join(f)).unwrap();
    }
    let film_arg = format!("films/{name}");
    moviegraph(
        ws.path(),
        &[
            "align",
            "--script",
            &format!("{film_arg}/script.fountain"),
            "--subtitles",
            &format!("{film_arg}/subtitles.srt"),
            "--embedder",
            "hashed",
            "--jsonl",
            "align.jsonl",
        ],
    );
    moviegraph(
        ws.path(),
        &[
            "run",
            &film_arg,
            "--out",
            "o",
            "--store",
            "w.db",
            "--bootstrap",
            "20",
        ],
    );
    outputs(&name)
        .into_iter()
        .map(|(expect, written)| {
            let text = std::fs::read_to_string(ws.path().join(&written))
                .unwrap_or_else(|e| panic!("{name}: {written}: {e}"));
            (expect, text)
        })
        .collect()
}

/// The first line where two texts differ, for the failure message.
fn first_difference(want: &str, got: &str) -> String {
    let (mut w, mut g) = (want.lines(), got.lines());
    for n in 1.. {
        match (w.next(), g.next()) {
            (None, None) => return "no difference".to_owned(),
            (a, b) if a == b => continue,
            (a, b) => {
                let cut = |s: Option<&str>| {
                    s.map_or("<end of file>".to_owned(), |s| {
                        s.chars().take(300).collect()
                    })
                };
                return format!("line {n}:\n  expected: {}\n  actual:   {}", cut(a), cut(b));
            }
        }
    }
    unreachable!()
}

#[test]
fn fixture_films_match_their_expected_alignment_graph_trees_and_report() {
    let update = std::env::var_os("UPDATE_EXPECT").is_some_and(|v| v != "0");
    let films = fixture_films();
    assert!(films.len() >= 2, "fixture films missing: {films:?}");
    let mut failures = Vec::new();
    for film in &films {
        let expect_dir = film.join("expect");
        for (name, got) in run_film(film) {
            let path = expect_dir.join(&name);
            if update {
                std::fs::create_dir_all(&expect_dir).unwrap();
                std::fs::write(&path, &got).unwrap();
                continue;
            }
            let want = std::fs::read_to_string(&path).unwrap_or_else(|_| {
                panic!(
                    "{} is missing; write it with UPDATE_EXPECT=1 cargo test --release expect",
                    path.display()
                )
            });
            if want != got {
                failures.push(format!(
                    "{} differs at {}",
                    path.display(),
                    first_difference(&want, &got)
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{}\n(if the change is intended: UPDATE_EXPECT=1 cargo test --release expect, then review the diff)",
        failures.join("\n")
    );
}

#[test]
fn the_difference_report_names_the_first_differing_line() {
    assert_eq!(first_difference("a\nb\n", "a\nb\n"), "no difference");
    let d = first_difference("a\nb\nc", "a\nx\nc");
    assert!(d.starts_with("line 2:") && d.contains("expected: b") && d.contains("actual:   x"));
    assert!(first_difference("a", "a\nb").contains("<end of file>"));
}
