//! `run` on several films at once: each film's own files, one summary line per
//! film, and the corpus report pooled over them.

use crate::common;
use crate::run::{command, copy_dir, read, run, workspace, FILM, GRAPH};

#[test]
fn several_films_run_at_once_and_each_gets_its_own_files() {
    let ws = workspace();
    let cwd = ws.path();
    // A second film: the sample under another name (no keyframes beside it).
    copy_dir(&cwd.join(FILM), &cwd.join("other/copy-film"));
    let out = run(
        cwd,
        &[
            "run",
            FILM,
            "other/copy-film",
            "--jobs",
            "2",
            "--bootstrap",
            "20",
        ],
    );
    assert!(out.contains("done: 2 of 2 films"), "{out}");
    for f in [
        "graphs/copy-film.json",
        "trees/copy-film.jsonl",
        "reports/copy-film/report.html",
        "reports/corpus/report.html",
        "reports/corpus/report.json",
        "reports/corpus/report.csv",
    ] {
        assert!(cwd.join(f).is_file(), "{f}\n{out}");
    }
    // Several films: one line each, then the corpus; the stages behind -v.
    let film_lines: Vec<&str> = out.lines().filter(|l| l.starts_with("film ")).collect();
    assert_eq!(film_lines.len(), 2, "{out}");
    assert!(
        film_lines
            .iter()
            .all(|l| l.contains("stages ran") && l.contains("accuracy random")),
        "{out}"
    );
    assert!(!out.contains("stage align:"), "details only with -v: {out}");
    assert!(out.contains("corpus of 2 films"), "{out}");
    // The corpus pools each subject over both films: twice one film's trees and answers.
    let corpus: serde_json::Value =
        serde_json::from_slice(&read(cwd.join("reports/corpus/report.json"))).unwrap();
    let one: serde_json::Value =
        serde_json::from_slice(&read(cwd.join("reports/the-second-key/report.json"))).unwrap();
    assert_eq!(
        corpus["header"]["films"],
        serde_json::json!(["copy-film", "the-second-key"])
    );
    for (pooled, single) in corpus["runs"]
        .as_array()
        .unwrap()
        .iter()
        .zip(one["runs"].as_array().unwrap())
    {
        assert_eq!(pooled["subject"], single["subject"]);
        assert_eq!(
            pooled["run"],
            format!("corpus-{}", single["subject"].as_str().unwrap())
        );
        assert_eq!(pooled["trees"], 2 * single["trees"].as_u64().unwrap());
        assert_eq!(pooled["answers"], 2 * single["answers"].as_u64().unwrap());
    }
    let verbose = run(cwd, &["run", FILM, "other/copy-film", "-v"]);
    assert!(
        verbose.contains("film copy-film (other/copy-film)"),
        "{verbose}"
    );
    assert!(read(cwd.join(GRAPH)) == read(common::root().join(GRAPH)));
    // Two folders with one name would write the same files.
    copy_dir(&cwd.join(FILM), &cwd.join("b/the-second-key"));
    let o = command(cwd, &["run", FILM, "b/the-second-key"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("same film name"));
}
