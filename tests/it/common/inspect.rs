//! Inspect logs read back by Inspect itself: a Python with `inspect-ai`
//! (pinned to the release the export targets) is made once under
//! `target/inspect-venv` from PyPI; where that cannot be done, the checks are
//! skipped with the reason printed.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use moviegraph::eval::inspect_log::INSPECT_TARGET;
use moviegraph::store::Store;
use serde_json::Value;

/// The venv's Python, or the reason there is none.
pub fn inspect_python() -> Result<PathBuf, String> {
    static PYTHON: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    PYTHON.get_or_init(make_venv).clone()
}

fn make_venv() -> Result<PathBuf, String> {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/inspect-venv");
    let python = venv.join("bin/python");
    let ready = venv.join(format!(".inspect-ai-{INSPECT_TARGET}"));
    if ready.is_file() {
        return Ok(python);
    }
    let _ = std::fs::remove_dir_all(&venv);
    let run = |c: &mut Command| -> Result<(), String> {
        let out = c.output().map_err(|e| format!("{c:?}: {e}"))?;
        if out.status.success() {
            Ok(())
        } else {
            let said = String::from_utf8_lossy(&out.stderr);
            Err(format!(
                "{c:?} failed: {}",
                said.lines().rev().take(3).collect::<Vec<_>>().join(" / ")
            ))
        }
    };
    run(Command::new("python3").args(["-m", "venv"]).arg(&venv))?;
    run(Command::new(&python).args([
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        &format!("inspect-ai=={INSPECT_TARGET}"),
    ]))?;
    std::fs::write(&ready, "").map_err(|e| e.to_string())?;
    Ok(python)
}

fn figure(report: &Value, run: &str, section: &str, key: &str, second: bool) -> Option<f64> {
    let runs = report["runs"].as_array()?;
    let r = runs.iter().find(|r| r["run"] == run)?;
    let f = r["figures"]
        .as_array()?
        .iter()
        .find(|f| f["section"] == section && f["key"] == key)?;
    f[if second { "second" } else { "first" }]["mean"].as_f64()
}

fn close(a: Option<f64>, b: Option<f64>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => (a - b).abs() < 1e-9,
        (None, None) => true,
        _ => false,
    }
}

/// Exports `runs` of the store `db` (in `dir`) with `eval export --to
/// inspect`, reads every log back with `inspect_ai.log.read_eval_log`
/// (warnings are errors), and checks it against `eval report --format json`
/// and the stored answers: the overall figures, one sample per answered tree
/// with its answers, and each sample's accuracy and score. Returns the logs
/// as Inspect read them, or `None` when Inspect is not installable here.
pub fn check_inspect_export(dir: &Path, db: &Path, runs: &[&str]) -> Option<Vec<Value>> {
    let python = match inspect_python() {
        Ok(p) => p,
        Err(why) => {
            eprintln!("SKIPPED: the Inspect read-back (inspect-ai from PyPI: {why})");
            return None;
        }
    };
    let out_dir = dir.join("inspect-logs");
    let db_arg = db.display().to_string();
    let mut args = vec!["eval", "export", "--to", "inspect", "--bootstrap", "0"];
    args.extend(runs);
    let out_arg = out_dir.display().to_string();
    args.extend(["--out", &out_arg, "--store", &db_arg]);
    let out = super::moviegraph_in(dir, &args);
    assert!(out.status.success(), "{}", super::said(&out));
    let mut report_args = vec!["eval", "report", "--format", "json", "--bootstrap", "0"];
    report_args.extend(runs);
    report_args.extend(["--store", &db_arg]);
    let report = super::moviegraph_in(dir, &report_args);
    assert!(report.status.success(), "{}", super::said(&report));
    let report: Value = serde_json::from_slice(&report.stdout).unwrap();

    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/inspect/read_logs.py");
    // Named as Inspect names its logs: `<created>_<task>_<run>.json`.
    let names: Vec<String> = std::fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let logs: Vec<PathBuf> = runs
        .iter()
        .map(|r| {
            let mine: Vec<&String> = names
                .iter()
                .filter(|n| n.ends_with(&format!("_{r}.json")))
                .collect();
            assert_eq!(mine.len(), 1, "one log for {r} in {names:?}");
            assert!(
                mine[0].as_bytes()[..19]
                    .iter()
                    .filter(|b| **b == b'-')
                    .count()
                    == 4,
                "{}",
                mine[0]
            );
            out_dir.join(mine[0])
        })
        .collect();
    let read = Command::new(&python)
        .arg(&script)
        .args(&logs)
        .output()
        .unwrap();
    assert!(
        read.status.success(),
        "Inspect could not read the logs: {}",
        String::from_utf8_lossy(&read.stderr)
    );
    let store = Store::open(db).unwrap();
    let mut back = Vec::new();
    for (line, run) in String::from_utf8(read.stdout).unwrap().lines().zip(runs) {
        let log: Value = serde_json::from_str(line).unwrap();
        assert_eq!(log["run_id"], *run);
        assert_eq!(log["version"], 2);
        let m = &log["metrics"];
        for (name, section, key, second) in [
            ("accuracy", "all", "all", false),
            ("score", "all", "all", true),
            ("RDS", "tree", "RDS", false),
            ("weighted_RDS", "tree", "RDS", true),
            ("CRS", "tree", "CRS", false),
            ("phase1_accuracy", "phase", "1", false),
            ("phase2_score", "phase", "2", true),
        ] {
            assert!(
                close(m[name].as_f64(), figure(&report, run, section, key, second)),
                "{run} {name}: Inspect {} vs eval report {:?}",
                m[name],
                figure(&report, run, section, key, second)
            );
        }
        // One sample per answered tree, holding exactly its stored answers.
        let answers = store.eval_answers(run).unwrap();
        let samples = log["samples"].as_array().unwrap();
        let trees: std::collections::BTreeSet<&str> =
            answers.iter().map(|a| a.tree_id.as_str()).collect();
        assert_eq!(samples.len(), trees.len(), "{run}");
        for s in samples {
            let id = s["id"].as_str().unwrap();
            let mut mine: Vec<_> = answers.iter().filter(|a| a.tree_id == id).collect();
            mine.sort_by_key(|a| a.seq);
            let got: Vec<(String, bool, f64)> = s["questions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|q| {
                    (
                        q[0].as_str().unwrap().to_owned(),
                        q[1].as_bool().unwrap(),
                        q[2].as_f64().unwrap(),
                    )
                })
                .collect();
            let want: Vec<(String, bool, f64)> = mine
                .iter()
                .map(|a| (a.node_id.clone(), a.correct, a.score))
                .collect();
            // Scores pass through two JSON printers: equal to the last bits of a double.
            let same = got.len() == want.len()
                && got
                    .iter()
                    .zip(&want)
                    .all(|(g, w)| g.0 == w.0 && g.1 == w.1 && (g.2 - w.2).abs() < 1e-12);
            assert!(same, "{run}/{id}: Inspect {got:?} vs stored {want:?}");
            let n = mine.len() as f64;
            let accuracy = mine.iter().filter(|a| a.correct).count() as f64 / n;
            let score = mine.iter().map(|a| a.score).sum::<f64>() / n;
            assert!(
                close(s["value"]["accuracy"].as_f64(), Some(accuracy)),
                "{s}"
            );
            assert!(close(s["value"]["score"].as_f64(), Some(score)), "{s}");
            // System prompt, then a question and a reply per answer.
            assert_eq!(s["messages"].as_u64().unwrap() as usize, 1 + 2 * mine.len());
        }
        back.push(log);
    }
    Some(back)
}
