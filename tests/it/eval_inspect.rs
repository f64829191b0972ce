//! `eval export --to inspect`: the offline baselines' runs of the sample
//! film's trees (one of them in all five `--rotate` displays) read back by
//! Inspect's own `read_eval_log`, with no warning, and agree with `eval
//! report` and the stored answers (the checks of `common::inspect`). The
//! loopback model run and the walker's human run are checked the same way in
//! their own tests.

use crate::common;
use crate::common::inspect::check_inspect_export;

#[test]
fn the_baselines_runs_of_the_sample_film_read_back_in_inspect() {
    let dir = tempfile::tempdir().unwrap();
    let trees = common::root().join("trees/the-second-key.jsonl");
    // One sample per tree walk: as many as the file has trees (its first
    // line is the provenance header).
    let tree_count = std::fs::read_to_string(&trees)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("{\"id\""))
        .count();
    assert!(tree_count > 0);
    let trees = trees.display().to_string();
    for (subject, extra) in [
        ("random", &[][..]),
        ("first-option", &[][..]),
        ("lexical", &["--rotate"][..]),
    ] {
        let mut args = vec![
            "eval",
            "run",
            "--trees",
            &trees,
            "--subject",
            subject,
            "--store",
            "ws.db",
        ];
        args.extend(extra);
        let out = common::moviegraph_in(dir.path(), &args);
        assert!(out.status.success(), "{}", common::said(&out));
    }
    let store = moviegraph::store::Store::open(&dir.path().join("ws.db")).unwrap();
    let ids = store.eval_run_ids().unwrap();
    let pick = |prefix: &str, suffix: &str| {
        ids.iter()
            .find(|i| {
                i.starts_with(prefix)
                    && (suffix.is_empty() && !i.contains('@') || i.ends_with(suffix))
            })
            .unwrap_or_else(|| panic!("{prefix}…{suffix} in {ids:?}"))
            .clone()
    };
    let runs = [
        pick("random-", ""),
        pick("first-option-", ""),
        pick("lexical-", ""),
        pick("lexical-", "@rot2"),
        pick("lexical-", "@shuffle"),
    ];
    drop(store);
    let refs: Vec<&str> = runs.iter().map(String::as_str).collect();
    let Some(logs) = check_inspect_export(dir.path(), &dir.path().join("ws.db"), &refs) else {
        return;
    };
    assert_eq!(logs[0]["model"], "moviegraph-baseline/random");
    assert_eq!(logs[1]["model"], "moviegraph-baseline/first-option");
    for log in &logs {
        assert_eq!(log["status"], "success");
        assert_eq!(log["samples"].as_array().unwrap().len(), tree_count);
        assert!(log["model_usage"].as_object().unwrap().is_empty());
    }
    // The rotated passes answer differently from the original display.
    assert_ne!(logs[2]["metrics"], logs[4]["metrics"]);
}
