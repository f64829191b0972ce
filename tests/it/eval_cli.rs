//! `moviegraph eval run` and `eval report` through the binary: offline baselines on
//! synthetic trees, resuming, byte-identical reports, and the errors for models that
//! are not configured (model subjects: tests/eval_model.rs).

use std::path::Path;
use std::process::Output;

use moviegraph::eval::synth::synthetic_trees;
use moviegraph::trees::jsonl::save_trees;

fn moviegraph(dir: &Path, args: &[&str]) -> Output {
    crate::common::moviegraph_offline()
        .args(args)
        .current_dir(dir)
        .env_remove("MOVIEGRAPH_STORE")
        .output()
        .expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn baselines_run_resume_and_report_side_by_side() {
    let dir = tempfile::tempdir().unwrap();
    save_trees(
        &dir.path().join("trees/synthetic.jsonl"),
        &synthetic_trees(20),
    )
    .unwrap();
    let run = |subject: &str| {
        moviegraph(
            dir.path(),
            &[
                "eval",
                "run",
                "--trees",
                "trees/synthetic.jsonl",
                "--subject",
                subject,
                "--seed",
                "3",
                "--run",
                subject,
                "--store",
                "ws.db",
            ],
        )
    };
    for subject in ["random", "first-option", "lexical"] {
        let out = run(subject);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert!(
            text(&out.stdout)
                .contains("20 trees, 300 answers (300 asked now, 0 from an earlier start)"),
            "{}",
            text(&out.stdout)
        );
        assert!(text(&out.stderr).contains("judge: none (ROUGE-L fallback"));
    }
    // Rerunning a finished run resumes it and asks nothing.
    let again = run("random");
    assert!(again.status.success());
    assert!(text(&again.stdout).contains("(0 asked now, 300 from an earlier start)"));

    let report = |format: &str| {
        moviegraph(
            dir.path(),
            &[
                "eval",
                "report",
                "random",
                "first-option",
                "lexical",
                "--store",
                "ws.db",
                "--format",
                format,
            ],
        )
    };
    let table = report("table");
    assert!(table.status.success(), "{}", text(&table.stderr));
    let table_text = text(&table.stdout);
    assert!(table_text.contains("random (random)") && table_text.contains("lexical (lexical)"));
    assert!(table_text.contains("judge: none (ROUGE-L fallback"));
    assert!(
        table_text
            .lines()
            .any(|l| l.starts_with("tree ") && l.contains(" RDS ")),
        "{table_text}"
    );
    assert_eq!(
        report("table").stdout,
        table.stdout,
        "reports are byte-identical"
    );
    let json: serde_json::Value = serde_json::from_slice(&report("json").stdout).unwrap();
    assert_eq!(json["runs"].as_array().unwrap().len(), 3);
    assert_eq!(json["runs"][1]["subject"], "first-option");
    assert_eq!(json["tables"][0]["rows"].as_array().unwrap().len(), 3);
    let csv = text(&report("csv").stdout);
    assert!(csv
        .lines()
        .any(|l| l.starts_with("first-option,format,single,accuracy,")));
}

#[test]
fn unconfigured_models_are_an_error_not_a_pretence() {
    let dir = tempfile::tempdir().unwrap();
    save_trees(&dir.path().join("t.jsonl"), &synthetic_trees(1)).unwrap();
    let model = moviegraph(
        dir.path(),
        &["eval", "run", "--trees", "t.jsonl", "--subject", "gpt-4o"],
    );
    assert_eq!(model.status.code(), Some(2));
    assert!(text(&model.stderr).contains("random, first-option, lexical"));
    let judge = moviegraph(
        dir.path(),
        &[
            "eval",
            "run",
            "--trees",
            "t.jsonl",
            "--subject",
            "random",
            "--judge",
            "gpt-4o",
        ],
    );
    assert_eq!(judge.status.code(), Some(2));
    assert!(
        text(&judge.stderr).contains("\"gpt-4o\", which is not defined"),
        "{}",
        text(&judge.stderr)
    );
    let missing = moviegraph(dir.path(), &["eval", "report", "nope", "--store", "ws.db"]);
    assert_eq!(missing.status.code(), Some(2));
    std::fs::write(dir.path().join("bad.jsonl"), "{\"id\": 1}\n").unwrap();
    let bad = moviegraph(
        dir.path(),
        &["eval", "run", "--trees", "bad.jsonl", "--subject", "random"],
    );
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad.stderr).contains("bad.jsonl:1:"),
        "{}",
        text(&bad.stderr)
    );
}

#[test]
fn jobs_give_the_same_report_and_html_goes_to_a_file() {
    let dir = tempfile::tempdir().unwrap();
    save_trees(
        &dir.path().join("trees/synthetic.jsonl"),
        &synthetic_trees(9),
    )
    .unwrap();
    let run = |id: &str, jobs: &str| {
        let out = moviegraph(
            dir.path(),
            &[
                "eval",
                "run",
                "--trees",
                "trees/synthetic.jsonl",
                "--subject",
                "random",
                "--seed",
                "4",
                "--run",
                id,
                "--jobs",
                jobs,
                "--store",
                "ws.db",
            ],
        );
        assert!(out.status.success(), "{}", text(&out.stderr));
        // stderr is a pipe here: no progress bar is drawn.
        assert!(
            !text(&out.stderr).contains("questions ["),
            "{}",
            text(&out.stderr)
        );
    };
    run("one", "1");
    run("three", "3");
    let csv = |id: &str| {
        let out = moviegraph(
            dir.path(),
            &["eval", "report", id, "--format", "csv", "--store", "ws.db"],
        );
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout).replace(&format!("\n{id},"), "\nRUN,")
    };
    assert_eq!(csv("one"), csv("three"));

    let html = |file: &str| {
        let out = moviegraph(
            dir.path(),
            &[
                "eval", "report", "one", "three", "--format", "html", "--out", file, "--store",
                "ws.db",
            ],
        );
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert!(out.stdout.is_empty());
        std::fs::read_to_string(dir.path().join(file)).unwrap()
    };
    let page = html("a.html");
    assert_eq!(page, html("b.html"));
    assert!(page.contains("<svg") && !page.contains("http"));

    let out = moviegraph(
        dir.path(),
        &[
            "eval",
            "run",
            "--trees",
            "trees/synthetic.jsonl",
            "--subject",
            "random",
            "--jobs",
            "0",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn rotate_stores_five_runs_and_reports_bias() {
    let dir = tempfile::tempdir().unwrap();
    save_trees(
        &dir.path().join("trees/synthetic.jsonl"),
        &synthetic_trees(6),
    )
    .unwrap();
    let args = [
        "eval",
        "run",
        "--trees",
        "trees/synthetic.jsonl",
        "--subject",
        "first-option",
        "--run",
        "fo",
        "--rotate",
        "--jobs",
        "2",
        "--store",
        "ws.db",
    ];
    let out = moviegraph(dir.path(), &args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // 6 trees of 15 questions, five times.
    assert!(
        text(&out.stdout).contains("30 trees, 450 answers (450 asked now"),
        "{}",
        text(&out.stdout)
    );
    let again = moviegraph(dir.path(), &args);
    assert!(text(&again.stdout).contains("(0 asked now, 450 from an earlier start)"));
    for id in ["fo@rot1", "fo@rot2", "fo@rot3", "fo@shuffle"] {
        let out = moviegraph(dir.path(), &["eval", "report", id, "--store", "ws.db"]);
        assert!(out.status.success(), "{id}: {}", text(&out.stderr));
    }
    let out = moviegraph(
        dir.path(),
        &[
            "eval",
            "report",
            "fo",
            "--format",
            "csv",
            "--bootstrap",
            "0",
            "--store",
            "ws.db",
        ],
    );
    let csv = text(&out.stdout);
    // first-option always picks displayed A: every chosen label sits at position A.
    assert!(csv.contains("fo,position,A,chosen_share,"), "{csv}");
    let line = csv
        .lines()
        .find(|l| l.starts_with("fo,position,A,chosen_share,"))
        .unwrap();
    assert!(line.ends_with(",1.000000,1.000000,1.000000"), "{line}");
    assert!(csv.contains("fo,rotation,mean,accuracy,"));
    assert!(csv.contains("fo,position,bias,TVD,"));
    let out = moviegraph(
        dir.path(),
        &[
            "eval",
            "report",
            "fo",
            "--format",
            "html",
            "--bootstrap",
            "0",
            "--store",
            "ws.db",
        ],
    );
    assert!(text(&out.stdout).contains("share of chosen vs correct options per displayed position"));
}
