//! Every trees file says how it was made (its first, metadata line), and only
//! what is in the film is asked: the committed sample's metadata line, files
//! without it still read and import, a film whose script is not its subtitles'
//! stops after align unless `--text-only` (which every output then records),
//! and no question comes from a scene the film does not contain.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Output;

use moviegraph::trees::jsonl::{read_provenance, read_tree_file, read_trees, save_trees};
use moviegraph::trees::provenance::{Origin, Provenance};
use moviegraph::trees::schema::Tree;

use crate::common;

const SAMPLE: &str = "screenplays/the-second-key";

fn moviegraph(cwd: &Path, args: &[&str]) -> Output {
    crate::common::moviegraph_offline()
        .args(args)
        .current_dir(cwd)
        .env_remove("MOVIEGRAPH_STORE")
        .env_remove("MOVIEGRAPH_RUN_EVENTS")
        .env_remove("RUST_LOG")
        .output()
        .unwrap()
}

fn ok(o: &Output, what: &str) -> String {
    assert!(
        o.status.success(),
        "{what}: {}\n{}",
        String::from_utf8_lossy(&o.stderr),
        String::from_utf8_lossy(&o.stdout)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn first_line(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_json::from_str(text.lines().next().unwrap()).unwrap()
}

#[test]
fn the_committed_trees_file_says_how_it_was_made_and_readers_skip_that_line() {
    let path = common::root().join("trees/the-second-key.jsonl");
    let head = first_line(&path);
    assert_eq!(head["format"], "moviegraph.trees");
    assert_eq!(head["version"], 1);
    let p = &head["provenance"];
    assert_eq!(p["source"], "generated");
    assert_eq!(p["film"], "the-second-key");
    assert_eq!(p["film_dir"], SAMPLE);
    assert_eq!(p["graph"]["generator"]["name"], "rules");
    assert_eq!(p["graph"]["generator"]["baseline"], true);
    assert_eq!(p["graph"]["auditors"].as_array().unwrap().len(), 2);
    for a in p["graph"]["auditors"].as_array().unwrap() {
        assert_eq!(a["baseline"], true, "{a}");
    }
    assert_eq!(p["graph"]["adjudicator"]["baseline"], true);
    assert_eq!(p["question_writer"]["name"], "rules");
    assert_eq!(p["question_writer"]["baseline"], true);
    assert_eq!(p["models"], serde_json::json!([]));
    assert_eq!(p["alignment"]["verdict"], "aligned");
    assert_eq!(p["alignment"]["untimed_blocks"], 1);
    assert_eq!(p["keyframes"], true);
    assert_eq!(p["text_only"], false);
    assert_eq!(p["settings"]["depth"], 3);
    // No cap given: the tree count grows with the film.
    assert!(p["settings"]["max_trees"].is_null());
    // Readers: the line is provenance, never a tree.
    let lines = std::fs::read_to_string(&path).unwrap().lines().count();
    let trees = read_trees(&path).unwrap();
    assert_eq!(trees.len(), lines - 1);
    let file = read_tree_file(&path).unwrap();
    assert_eq!(file.trees, trees);
    let prov = file.provenance.expect("a provenance line");
    assert_eq!(prov.source, Origin::Generated);
    assert_eq!(read_provenance(&path).unwrap(), Some(prov));
    // `trees validate` reads it as trees too.
    let out = ok(
        &moviegraph(
            &common::root(),
            &["trees", "validate", path.to_str().unwrap()],
        ),
        "validate",
    );
    assert!(
        out.contains(&format!(
            "{} trees checked: {} valid",
            trees.len(),
            trees.len()
        )),
        "{out}"
    );
}

#[test]
fn a_file_without_the_line_still_reads_validates_and_imports() {
    let committed = read_trees(&common::root().join("trees/the-second-key.jsonl")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let bare = dir.path().join("hand.jsonl");
    save_trees(&bare, &committed).unwrap();
    let text = std::fs::read_to_string(&bare).unwrap();
    assert!(
        text.starts_with("{\"id\":"),
        "no metadata line was asked for"
    );
    assert_eq!(read_trees(&bare).unwrap(), committed);
    assert_eq!(read_provenance(&bare).unwrap(), None);
    ok(
        &moviegraph(dir.path(), &["trees", "validate", "hand.jsonl"]),
        "validate",
    );
    // Import: the stored file records the import, with nothing carried over.
    ok(
        &moviegraph(
            dir.path(),
            &["trees", "import", "hand.jsonl", "--out", "in"],
        ),
        "import",
    );
    let imported = dir.path().join("in/the-second-key.jsonl");
    let file = read_tree_file(&imported).unwrap();
    assert_eq!(file.trees, committed);
    let p = file.provenance.expect("import writes a metadata line");
    assert_eq!(p.source, Origin::Import);
    assert_eq!(p.film.as_deref(), Some("the-second-key"));
    assert_eq!(p.keyframes, Some(true));
    assert_eq!(p.imported, None);
    assert_eq!(p.graph, None, "an import does not know the graph");
    // Importing a file that has a metadata line keeps it under `imported`.
    let with_line = common::root().join("trees/the-second-key.jsonl");
    ok(
        &moviegraph(
            dir.path(),
            &[
                "trees",
                "import",
                with_line.to_str().unwrap(),
                "--out",
                "in2",
            ],
        ),
        "import",
    );
    let p: Provenance = read_provenance(&dir.path().join("in2/the-second-key.jsonl"))
        .unwrap()
        .unwrap();
    assert_eq!(p.source, Origin::Import);
    let carried = p.imported.expect("the carried line");
    assert_eq!(carried.source, Origin::Generated);
    assert_eq!(carried.text_only, Some(false));
    // A metadata line that is not the first line is refused, naming the line.
    let mut doubled = std::fs::read_to_string(&with_line).unwrap();
    doubled.push_str(&std::fs::read_to_string(&with_line).unwrap());
    let cat = dir.path().join("cat.jsonl");
    std::fs::write(&cat, doubled).unwrap();
    let err = read_trees(&cat).unwrap_err().to_string();
    let at = committed.len() + 2;
    assert!(
        err.contains(&format!("cat.jsonl:{at}: ")) && err.contains("first line"),
        "{err}"
    );
}

/// A film folder whose script is the lighthouse's and whose subtitles are
/// the bakery's: its alignment verdict is `mismatch`. (The lighthouse, not
/// the bakery, gives the script: since other characters' states in a scene
/// the asked character shares are no distractors, the bakery's five-scene
/// script gives no full tree.)
fn mismatched_workspace() -> tempfile::TempDir {
    let ws = tempfile::tempdir().unwrap();
    let films = common::root().join("tests/fixtures/films");
    let film = ws.path().join("films/mixed");
    std::fs::create_dir_all(&film).unwrap();
    std::fs::copy(
        films.join("lighthouse/script.fountain"),
        film.join("script.fountain"),
    )
    .unwrap();
    std::fs::copy(
        films.join("bakery/subtitles.srt"),
        film.join("subtitles.srt"),
    )
    .unwrap();
    ws
}

#[test]
fn run_stops_a_film_whose_script_is_not_the_films_unless_text_only() {
    let ws = mismatched_workspace();
    let trees = ws.path().join("trees/mixed.jsonl");
    let o = moviegraph(ws.path(), &["run", "films/mixed", "-q"]);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert_eq!(o.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("verdict is mismatch") && stderr.contains("--text-only"),
        "{stderr}"
    );
    assert!(stdout.contains("stopped after align"), "{stdout}");
    assert!(stdout.contains("  align "), "align ran: {stdout}");
    assert!(
        !stdout.contains("  graph "),
        "nothing after align: {stdout}"
    );
    assert!(!trees.exists(), "no trees file after a mismatch");
    assert!(!ws.path().join("graphs/mixed.json").exists());
    // `trees generate` follows the same rule.
    let o = moviegraph(
        ws.path(),
        &["trees", "generate", "films/mixed", "--out", "gen"],
    );
    assert_eq!(o.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("mismatch") && stderr.contains("--text-only"),
        "{stderr}"
    );
    assert!(!ws.path().join("gen/mixed.jsonl").exists());

    // With --text-only the film goes on, and every output records it.
    let out = ok(
        &moviegraph(ws.path(), &["run", "films/mixed", "-q", "--text-only"]),
        "run --text-only",
    );
    assert!(out.contains("text-only"), "{out}");
    let p = read_provenance(&trees).unwrap().expect("a provenance line");
    assert_eq!(p.text_only, Some(true));
    let a = p.alignment.expect("the alignment");
    assert_eq!(a.verdict.as_str(), "mismatch");
    assert!(!read_trees(&trees).unwrap().is_empty());
    let report: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(ws.path().join("reports/mixed/report.json")).unwrap(),
    )
    .unwrap();
    for run in report["runs"].as_array().unwrap() {
        assert_eq!(run["films"], serde_json::json!(["mixed"]));
        let made = &run["made"][0];
        assert_eq!(made["provenance"]["text_only"], true, "{made}");
        let summary = made["summary"].as_str().unwrap();
        assert!(
            summary.contains("text-only") && summary.contains("alignment mismatch"),
            "{summary}"
        );
        // The fixture film has no shots: the report must not claim keyframes.
        assert_eq!(run["keyframes_shown"], 0);
    }
    let html = std::fs::read_to_string(ws.path().join("reports/mixed/report.html")).unwrap();
    assert!(html.contains("How the trees were made"), "html");
    assert!(html.contains("text-only (script-only trees"), "html");
    assert!(!html.contains("<td>shown"), "no keyframes were shown");
    // The table report says it too, and that the generators are baselines.
    let ids: Vec<String> = report["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["run"].as_str().unwrap().to_owned())
        .collect();
    let mut args = vec!["eval", "report", "--bootstrap", "0"];
    args.extend(ids.iter().map(String::as_str));
    let table = ok(&moviegraph(ws.path(), &args), "eval report");
    for want in [
        "films mixed",
        "keyframes none",
        "graph generator rules (baseline)",
        "question writer rules (baseline)",
        "alignment mismatch",
        "text-only",
    ] {
        assert!(table.contains(want), "{want}: {table}");
    }
}

#[test]
fn the_report_says_unknown_for_trees_without_a_provenance_line() {
    let ws = tempfile::tempdir().unwrap();
    // Bare trees (no metadata line) evaluated directly.
    let committed = read_trees(&common::root().join("trees/the-second-key.jsonl")).unwrap();
    let bare = ws.path().join("bare.jsonl");
    save_trees(&bare, &committed[..2]).unwrap();
    let out = ok(
        &moviegraph(
            ws.path(),
            &[
                "eval",
                "run",
                "--trees",
                "bare.jsonl",
                "--subject",
                "random",
                "-q",
            ],
        ),
        "eval run",
    );
    let id = out
        .split_whitespace()
        .find(|w| w.starts_with("random-s0-"))
        .unwrap_or_else(|| panic!("no run id in {out}"))
        .trim_end_matches([':', ',', ')', '.']);
    let table = ok(
        &moviegraph(ws.path(), &["eval", "report", id, "--bootstrap", "0"]),
        "eval report",
    );
    assert!(
        table.contains("trees bare.jsonl: unknown (trees file has no provenance line)"),
        "{table}"
    );
    // The sample's trees carry keyframes: the report says they were shown.
    assert!(table.contains("keyframes shown with"), "{table}");
}

fn context_blocks(trees: &[Tree]) -> BTreeSet<usize> {
    trees
        .iter()
        .flat_map(|t| &t.nodes)
        .flat_map(|n| n.context.blocks.iter().copied())
        .collect()
}

/// The blocks of the sample film with no timed subtitle cue (scene 7, cut
/// from the film), from the offline alignment `run` uses.
fn untimed_blocks(ws: &Path) -> BTreeSet<usize> {
    ok(
        &moviegraph(
            ws,
            &[
                "align",
                "--script",
                &format!("{SAMPLE}/script.fountain"),
                "--subtitles",
                &format!("{SAMPLE}/subtitles.srt"),
                "--embedder",
                "hashed",
                "--jsonl",
                "align.jsonl",
            ],
        ),
        "align",
    );
    std::fs::read_to_string(ws.join("align.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["type"] == "block" && v["start_ms"].is_null())
        .map(|v| v["id"].as_u64().unwrap() as usize)
        .collect()
}

#[test]
fn no_question_comes_from_a_scene_the_film_does_not_contain_unless_text_only() {
    let ws = tempfile::tempdir().unwrap();
    let root = common::root();
    copy_dir(&root.join(SAMPLE), &ws.path().join(SAMPLE));
    copy_dir(
        &root.join("keyframes/the-second-key"),
        &ws.path().join("keyframes/the-second-key"),
    );
    let cut = untimed_blocks(ws.path());
    assert!(!cut.is_empty(), "the sample's scene 7 has no subtitles");
    ok(
        &moviegraph(ws.path(), &["run", SAMPLE, "--until", "trees", "-q"]),
        "run",
    );
    let film: Vec<Tree> = read_trees(&ws.path().join("trees/the-second-key.jsonl")).unwrap();
    assert!(!film.is_empty());
    let shown = context_blocks(&film);
    assert!(
        shown.is_disjoint(&cut),
        "contexts from cut blocks {:?}",
        shown.intersection(&cut).collect::<Vec<_>>()
    );
    // No question is derived from a graph element seen only in a cut scene.
    let graph: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(ws.path().join("graphs/the-second-key.json")).unwrap(),
    )
    .unwrap();
    let only_cut: BTreeSet<String> = graph["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| {
            let blocks: BTreeSet<usize> = n["evidence"]
                .as_array()
                .map(|e| {
                    e.iter()
                        .map(|ev| ev["block"].as_u64().unwrap() as usize)
                        .collect()
                })
                .unwrap_or_default();
            !blocks.is_empty() && blocks.is_subset(&cut)
        })
        .map(|n| n["id"].as_str().unwrap().to_owned())
        .collect();
    assert!(!only_cut.is_empty(), "the cut scene has graph elements");
    for node in film.iter().flat_map(|t| &t.nodes) {
        for id in &node.derived_from {
            assert!(
                !only_cut.contains(id),
                "{}: derived from {id}, seen only in a cut scene",
                node.question
            );
        }
    }
    // Text-only trees may use the cut scene, and say so.
    let out: PathBuf = ws.path().join("text");
    ok(
        &moviegraph(
            ws.path(),
            &[
                "trees",
                "generate",
                SAMPLE,
                "--text-only",
                "--out",
                out.to_str().unwrap(),
            ],
        ),
        "trees generate --text-only",
    );
    let path = out.join("the-second-key.jsonl");
    let script = read_trees(&path).unwrap();
    assert!(
        !context_blocks(&script).is_disjoint(&cut),
        "text-only trees use the whole script"
    );
    assert_eq!(
        read_provenance(&path).unwrap().unwrap().text_only,
        Some(true)
    );
}
