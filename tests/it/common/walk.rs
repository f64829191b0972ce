//! Checks shared by the terminal and web walker tests, which both have
//! annotator "ana" walk `tests/fixtures/walk/tiny.jsonl` the same way.

use std::path::Path;

use moviegraph::store::Store;
use moviegraph::trees::jsonl::read_trees;
use moviegraph::walk::session::human_run_id;

/// Checks ana's stored run in the workspace `root` (subject `human`, her name
/// recorded, the answers A → [A, C] → an open answer in phase 2, scored by the
/// eval code) and returns its id.
pub fn check_anas_run(root: &Path) -> String {
    let trees = read_trees(&root.join("trees/tiny.jsonl")).unwrap();
    let store = Store::open(&root.join("ws.db")).unwrap();
    let id = human_run_id("ana", &trees);
    let run = store.eval_run(&id).unwrap().expect("ana's run");
    assert_eq!(run.subject, "human");
    assert_eq!(
        store.eval_run_annotator(&id).unwrap().as_deref(),
        Some("ana")
    );
    let answers = store.eval_answers(&id).unwrap();
    let got: Vec<(&str, u8, &str, bool)> = answers
        .iter()
        .map(|a| (a.node_id.as_str(), a.phase, a.raw.as_str(), a.correct))
        .collect();
    assert_eq!(
        got,
        vec![
            ("n1", 1, "[[A]]", true),
            ("n2", 1, "[[A, C]]", false),
            ("n3", 2, "[[she believes someone took the key]]", true),
        ]
    );
    // n2: Jaccard {A, C} vs {A, B} = 1/3. n3: ROUGE-L of 6 answer tokens, all in
    // order in the 10-token reference: P = 1, R = 0.6, F1 = 0.75 (no judge: the score).
    assert_eq!(answers[0].score, 1.0);
    assert!((answers[1].score - 1.0 / 3.0).abs() < 1e-9);
    assert!((answers[2].score - 0.75).abs() < 1e-9);
    drop(store);
    // The person's run as an Inspect log, the annotator named as the model.
    if let Some(logs) = super::inspect::check_inspect_export(root, &root.join("ws.db"), &[&id]) {
        assert_eq!(logs[0]["model"], "human/ana");
    }
    id
}
