//! Other benchmarks in: the MuMA-ToM release shape (an original fixture in
//! `tests/fixtures/muma-tom/`) and flat items; our trees out as items and as
//! an Inspect dataset, and back.

use std::path::{Path, PathBuf};

use moviegraph::trees::jsonl::{read_tree_file, read_trees};
use moviegraph::trees::schema::{AnchorKind, Format, Tree};
use serde_json::Value;

use crate::common::{moviegraph_in, root, said};

fn fixture(name: &str) -> PathBuf {
    root().join("tests/fixtures/muma-tom").join(name)
}

/// Imports the MuMA-ToM fixture into `dir/trees/muma-tom.jsonl`.
pub(crate) fn import_muma(dir: &Path) -> std::process::Output {
    let (q, t) = (fixture("questions.json"), fixture("texts.json"));
    moviegraph_in(
        dir,
        &[
            "trees",
            "import",
            "--from",
            "muma-tom",
            q.to_str().unwrap(),
            "--texts",
            t.to_str().unwrap(),
        ],
    )
}

#[test]
fn the_muma_tom_release_shape_imports_every_question_with_its_gold_and_label() {
    let dir = tempfile::tempdir().unwrap();
    let out = import_muma(dir.path());
    assert!(out.status.success(), "{}", said(&out));
    assert!(
        said(&out).contains("by label: belief 6, belief_of_goal 3, social_goal 3"),
        "{}",
        said(&out)
    );
    assert!(
        said(&out).contains("release_label): belief_of_goal → social_goal 1"),
        "{}",
        said(&out)
    );
    let file = read_tree_file(&dir.path().join("trees/muma-tom.jsonl")).unwrap();
    let provenance = file.provenance.expect("the import is recorded");
    assert_eq!(provenance.benchmark.as_ref().unwrap().questions, 12);
    assert!(provenance.describe().contains("another benchmark"));
    let trees = file.trees;
    assert_eq!(trees.len(), 12, "every question, none dropped");
    // Every gold is the option the release's answer line names, by letter and text.
    let release: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("questions.json")).unwrap()).unwrap();
    for tree in &trees {
        assert_eq!(tree.anchor.kind, AnchorKind::Item);
        let (episode, q) = tree.id["muma-tom/".len()..].split_once("/q").unwrap();
        let node = &tree.nodes[0];
        assert_eq!(node.format, Format::Single);
        assert_eq!(node.options.len(), 3);
        let answer = release[episode]["answers"][q].as_str().unwrap();
        let gold = node.options.iter().find(|o| o.correct).unwrap();
        assert_eq!(
            answer,
            format!("{}) {}", gold.label, gold.text),
            "{}",
            tree.id
        );
        let label = release[episode]["labels"][q].as_str();
        if tree.id == "muma-tom/30/q2" {
            // Mislabelled in the file: its wording is a social-goal question.
            assert_eq!(label, Some("belief_of_goal"));
            assert_eq!(node.tags.belief_goal.as_deref(), Some("social_goal"));
            assert_eq!(
                node.tags.other.get("release_label").map(String::as_str),
                label
            );
        } else {
            assert_eq!(node.tags.belief_goal.as_deref(), label, "{}", tree.id);
            assert!(node.tags.other.is_empty(), "{}", tree.id);
        }
        assert!(
            !node.question.contains("A)"),
            "the stem alone: {}",
            node.question
        );
    }
    // Episode 30 is not in texts.json: its bytes-literal description is decoded.
    let e30 = trees.iter().find(|t| t.id == "muma-tom/30/q1").unwrap();
    let context = &e30.nodes[0].context.excerpt;
    assert!(
        context.contains("\"Have you seen the atlas?\"")
            && context.contains("It's on the top shelf.")
            && context.contains("\n\nOmar reached")
            && context.contains("café guide"),
        "{context}"
    );
    assert!(!context.starts_with("b'"));

    // Valid, and evaluated by an offline baseline like any trees, with a
    // report by label.
    let out = moviegraph_in(dir.path(), &["trees", "validate", "trees/muma-tom.jsonl"]);
    assert!(out.status.success(), "{}", said(&out));
    let out = moviegraph_in(
        dir.path(),
        &[
            "eval",
            "run",
            "--trees",
            "trees/muma-tom.jsonl",
            "--subject",
            "random",
            "--store",
            "ws.db",
        ],
    );
    assert!(out.status.success(), "{}", said(&out));
    let run = said(&out)
        .split_whitespace()
        .find(|w| w.starts_with("random-"))
        .map(|w| w.trim_end_matches(':').to_owned())
        .expect("the run id is printed");
    let out = moviegraph_in(
        dir.path(),
        &[
            "eval", "report", &run, "--format", "json", "--store", "ws.db",
        ],
    );
    assert!(out.status.success(), "{}", said(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let figures = report["runs"][0]["figures"].as_array().unwrap();
    let mut labels: Vec<(String, u64)> = figures
        .iter()
        .filter(|f| f["section"] == "belief_goal" && f["first_name"] == "accuracy")
        .map(|f| {
            (
                f["key"].as_str().unwrap().to_owned(),
                f["n"].as_u64().unwrap(),
            )
        })
        .collect();
    labels.sort();
    assert_eq!(
        labels,
        [
            ("belief".to_owned(), 6),
            ("belief_of_goal".to_owned(), 3),
            ("social_goal".to_owned(), 3)
        ]
    );
}

#[test]
fn a_malformed_muma_entry_stops_the_import_naming_episode_and_question() {
    let dir = tempfile::tempdir().unwrap();
    let mut release: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("questions.json")).unwrap()).unwrap();
    release["12"]["answers"]["2"] = Value::from("B) something no option says");
    let bad = dir.path().join("questions.json");
    std::fs::write(&bad, release.to_string()).unwrap();
    let out = moviegraph_in(
        dir.path(),
        &[
            "trees",
            "import",
            "--from",
            "muma-tom",
            bad.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(2), "an error: {}", said(&out));
    let said = said(&out);
    assert!(
        said.contains("questions.json: episode 12, question 2: the answer's text"),
        "{said}"
    );
    assert!(
        !dir.path().join("trees/muma-tom.jsonl").exists(),
        "nothing half-written"
    );
    assert!(!said.contains("panicked"), "{said}");
}

/// A node's question, option texts, gold labels and reference.
type Asked = (String, Vec<String>, Vec<String>, Option<String>);

/// The questions, option texts, gold labels and references of trees, by node.
fn questions(trees: &[Tree]) -> Vec<Asked> {
    trees
        .iter()
        .flat_map(|t| &t.nodes)
        .map(|n| {
            (
                n.question.clone(),
                n.options.iter().map(|o| o.text.clone()).collect(),
                n.correct_labels().into_iter().map(str::to_owned).collect(),
                n.reference.clone(),
            )
        })
        .collect()
}

#[test]
fn our_trees_go_out_as_items_and_come_back_with_the_same_questions_and_gold() {
    let dir = tempfile::tempdir().unwrap();
    let sample = root().join("trees/the-second-key.jsonl");
    let trees = read_trees(&sample).unwrap();
    let items = dir.path().join("tsk-items.jsonl");
    let out = moviegraph_in(
        dir.path(),
        &[
            "trees",
            "export",
            "--to",
            "items",
            sample.to_str().unwrap(),
            "--out",
            items.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", said(&out));
    let out = moviegraph_in(
        dir.path(),
        &[
            "trees",
            "import",
            "--from",
            "items",
            items.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", said(&out));
    let back = read_trees(&dir.path().join("trees/tsk-items.jsonl")).unwrap();
    assert_eq!(
        back.len(),
        trees.iter().map(|t| t.nodes.len()).sum::<usize>()
    );
    assert_eq!(questions(&back), questions(&trees));
    // Formats, categories and tags survive; a follow-up's premise leads its context.
    for (node, item) in trees.iter().flat_map(|t| &t.nodes).zip(&back) {
        let got = &item.nodes[0];
        assert_eq!(got.format, node.format);
        assert_eq!(got.category, node.category);
        assert_eq!(got.question_type, node.question_type);
        assert_eq!(got.tags.group_level, node.tags.group_level);
        assert_eq!(got.tags.belief_goal, node.tags.belief_goal);
        assert_eq!(got.tags.atoms, node.tags.atoms);
        if node.depth > 1 {
            assert!(
                got.context
                    .excerpt
                    .starts_with("Thought experiment. Assuming the previous answer"),
                "{}",
                got.context.excerpt
            );
        } else {
            assert_eq!(got.context.excerpt, node.context.excerpt);
        }
    }
}

#[test]
fn the_inspect_export_is_jsonl_with_the_documented_fields() {
    let dir = tempfile::tempdir().unwrap();
    let sample = root().join("trees/the-second-key.jsonl");
    let trees = read_trees(&sample).unwrap();
    let out = moviegraph_in(
        dir.path(),
        &[
            "trees",
            "export",
            "--to",
            "inspect",
            sample.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", said(&out));
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object a line"))
        .collect();
    let nodes: Vec<(&Tree, &moviegraph::trees::schema::Node)> = trees
        .iter()
        .flat_map(|t| t.nodes.iter().map(move |n| (t, n)))
        .collect();
    assert_eq!(lines.len(), nodes.len());
    for (sample, (tree, node)) in lines.iter().zip(nodes) {
        let keys: Vec<&str> = sample
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        for key in ["id", "input", "target", "metadata"] {
            assert!(keys.contains(&key), "{key} in {sample}");
        }
        assert_eq!(sample["id"], format!("{}/{}", tree.id, node.id));
        let input = sample["input"].as_str().unwrap();
        assert!(
            input.ends_with(&format!("Question: {}", node.question)),
            "{input}"
        );
        assert!(input.contains("Screenplay excerpt:\n"), "{input}");
        assert_eq!(
            node.depth > 1,
            input.starts_with("Thought experiment."),
            "{input}"
        );
        assert_eq!(sample["metadata"]["format"], node.format.as_str());
        match node.format {
            Format::Single => {
                assert_eq!(sample["target"], node.correct_labels()[0]);
                assert_eq!(
                    sample["choices"].as_array().unwrap().len(),
                    node.options.len()
                );
            }
            Format::Multi => {
                let target: Vec<&str> = sample["target"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_str().unwrap())
                    .collect();
                assert_eq!(target, node.correct_labels());
            }
            Format::Open => {
                assert!(sample.get("choices").is_none());
                assert_eq!(sample["target"].as_str(), node.reference.as_deref());
            }
        }
    }
}

#[test]
fn a_bad_item_line_is_named_by_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tomi.jsonl");
    std::fs::write(
        &file,
        "{\"id\":\"a\",\"context\":\"Sally leaves.\",\"question\":\"Where?\",\"options\":[\"box\",\"basket\"],\"answer\":\"B\"}\n\
         {\"id\":\"b\",\"context\":\"Anne moves it.\",\"question\":\"Where?\",\"options\":[\"box\",\"basket\"],\"answer\":\"C\"}\n",
    )
    .unwrap();
    let out = moviegraph_in(
        dir.path(),
        &["trees", "import", "--from", "items", file.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(2), "an error: {}", said(&out));
    assert!(
        said(&out).contains("tomi.jsonl: line 2 (id \"b\"): answer \"C\" is not a letter"),
        "{}",
        said(&out)
    );
}
