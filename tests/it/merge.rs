//! `moviegraph merge` through the binary: two stores built by the CLI with the
//! offline defaults (the sample film in one, a small film of our own in the
//! other) merge into one whose `graph stats`, `graph export` and `eval report`
//! equal the sources'; merging again, or into itself, changes nothing; a film
//! aligned from other inputs and a store from a newer moviegraph are refused.

use std::path::{Path, PathBuf};
use std::process::Output;

use moviegraph::eval::synth::synthetic_trees;
use moviegraph::store::{CacheEntry, CallRecord, Store};
use moviegraph::trees::jsonl::save_trees;

fn moviegraph(dir: &Path, args: &[&str]) -> Output {
    crate::common::moviegraph_offline()
        .args(args)
        .current_dir(dir)
        .env_remove("MOVIEGRAPH_STORE")
        .output()
        .expect("the binary runs")
}

fn ok(dir: &Path, args: &[&str]) -> String {
    let out = moviegraph(dir, args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("screenplays/the-second-key")
}

const SCRIPT: &str = "Title: Harbour Night

INT. HARBOUR OFFICE - NIGHT

ANNA sorts the mail. BEN comes in, soaked, and hides a letter behind his back.

BEN
Did the ferry come in?

ANNA
An hour ago. You missed it again.

BEN
I was at the lighthouse. Nobody saw me there.

Anna sees the letter. She says nothing.

EXT. QUAY - NIGHT

Ben drops the letter into the sea so that Anna cannot read it.

ANNA
What did you throw away?

BEN
Nothing. Just an old receipt.
";

const SUBTITLES: &str = "1
00:00:05,000 --> 00:00:07,000
Did the ferry come in?

2
00:00:07,500 --> 00:00:10,000
An hour ago. You missed it again.

3
00:00:10,500 --> 00:00:13,000
I was at the lighthouse. Nobody saw me there.

4
00:00:20,000 --> 00:00:22,000
What did you throw away?

5
00:00:22,500 --> 00:00:25,000
Nothing. Just an old receipt.
";

fn write_film(dir: &Path, script: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("script.fountain"), script).unwrap();
    std::fs::write(dir.join("subtitles.srt"), SUBTITLES).unwrap();
    dir.to_path_buf()
}

/// One model answer and its call, written as the model layer writes them.
fn record_call(store: &Path, key: &str, response: &str, started_at_ms: i64) {
    let mut store = Store::open(store).unwrap();
    let run = store.llm_begin_run("graph build", Some(1.0)).unwrap();
    store
        .llm_record(
            &CallRecord {
                run: run.0,
                role: "generator".into(),
                model: "m".into(),
                cache_key: key.into(),
                started_at_ms,
                latency_ms: 12,
                input_tokens: 5,
                output_tokens: 3,
                cost: 0.001,
                attempts: 1,
                ..CallRecord::default()
            },
            Some(&CacheEntry {
                key,
                backend: "openai",
                model: "m",
                kind: "chat",
                request: "{}",
                response,
                input_tokens: 5,
                output_tokens: 3,
                cost: 0.001,
            }),
        )
        .unwrap();
    store
        .put_embeddings(&format!("hashed-{key}"), 2, &[([7u8; 32], &[1.0, 2.0][..])])
        .unwrap();
}

fn eval_run(dir: &Path, store: &str, run: &str, trees: &str) {
    ok(
        dir,
        &[
            "eval",
            "run",
            "--trees",
            trees,
            "--subject",
            "lexical",
            "--run",
            run,
            "--store",
            store,
        ],
    );
}

struct Figures {
    films: Vec<Option<i64>>,
    eval_runs: Vec<String>,
    cache: u64,
    embeddings: usize,
}

fn figures(path: &Path) -> Figures {
    let store = Store::open(path).unwrap();
    Figures {
        films: ["the-second-key", "harbour-night"]
            .iter()
            .map(|s| store.film_id(s).unwrap().map(|f| f.0))
            .collect(),
        eval_runs: store.eval_run_ids().unwrap(),
        cache: store.llm_cache_len().unwrap(),
        embeddings: ["hashed-shared", "hashed-only-b"]
            .iter()
            .map(|m| store.cached_embedding_count(m).unwrap())
            .sum(),
    }
}

#[test]
fn two_stores_merge_into_one_with_the_same_graphs_and_reports() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let second = write_film(&dir.join("films/harbour-night"), SCRIPT);
    let sample = sample();
    let (sample_s, second_s) = (sample.to_str().unwrap(), second.to_str().unwrap());
    save_trees(&dir.join("t1.jsonl"), &synthetic_trees(4)).unwrap();
    save_trees(&dir.join("t2.jsonl"), &synthetic_trees(6)).unwrap();

    // Machine 1: the sample film; machine 2: the second film. Each its own store.
    ok(dir, &["graph", "build", sample_s, "--store", "a.db"]);
    eval_run(dir, "a.db", "run-a", "t1.jsonl");
    ok(dir, &["graph", "build", second_s, "--store", "b.db"]);
    eval_run(dir, "b.db", "run-b", "t2.jsonl");
    // The same request answered on both machines, and one only on machine 2.
    record_call(&dir.join("a.db"), "shared", "{\"a\":1}", 1_000);
    record_call(&dir.join("b.db"), "shared", "{\"b\":1}", 2_000);
    record_call(&dir.join("b.db"), "only-b", "{\"b\":2}", 3_000);

    let first = ok(dir, &["merge", "--into", "all.db", "a.db", "b.db"]);
    assert!(first.contains("merged 2 store(s) into all.db"), "{first}");
    assert!(first.contains("0 present, 1 differing, kept)"), "{first}");
    let all = figures(&dir.join("all.db"));
    assert!(all.films.iter().all(Option::is_some), "both films merged");
    assert_eq!(
        all.eval_runs,
        vec!["run-a".to_string(), "run-b".to_string()]
    );
    let keys = |db: &str| -> std::collections::BTreeSet<String> {
        let conn = rusqlite::Connection::open(dir.join(db)).unwrap();
        let mut stmt = conn.prepare("SELECT key FROM llm_cache").unwrap();
        let keys = stmt.query_map([], |r| r.get(0)).unwrap();
        keys.map(Result::unwrap).collect()
    };
    let union: std::collections::BTreeSet<String> =
        keys("a.db").union(&keys("b.db")).cloned().collect();
    assert!(union.contains("shared") && union.contains("only-b"));
    assert_eq!(all.cache as usize, union.len(), "the shared key once");
    assert_eq!(all.embeddings, 2);
    let merged = Store::open(&dir.join("all.db")).unwrap();
    assert_eq!(merged.integrity_check().unwrap(), vec!["ok".to_string()]);
    // The destination's answer to a shared request wins: a's, merged first.
    assert_eq!(
        merged.llm_cache_get("shared").unwrap().unwrap().response,
        "{\"a\":1}"
    );
    let last = |db: &str| {
        Store::open(&dir.join(db))
            .unwrap()
            .llm_last_run()
            .unwrap()
            .unwrap()
            .0
    };
    let runs = merged.llm_last_run().unwrap().unwrap();
    assert_eq!(
        runs.0,
        last("a.db") + last("b.db"),
        "every model run, ids renumbered"
    );
    assert_eq!(merged.llm_calls(runs).unwrap()[0].cache_key, "only-b");
    drop(merged);

    // Every stage's view of the merged store equals its view of the source.
    for (film, src) in [(sample_s, "a.db"), (second_s, "b.db")] {
        let stats = |store: &str| ok(dir, &["graph", "stats", film, "--json", "--store", store]);
        assert_eq!(stats(src), stats("all.db"), "graph stats of {film}");
        let export = |store: &str, out: &str| {
            ok(
                dir,
                &["graph", "export", film, "--store", store, "--out", out],
            );
            let name = Path::new(film).file_name().unwrap().to_str().unwrap();
            std::fs::read(dir.join(out).join(format!("{name}.json"))).unwrap()
        };
        assert_eq!(export(src, "src"), export("all.db", "merged"));
    }
    for (run, src) in [("run-a", "a.db"), ("run-b", "b.db")] {
        let report = |store: &str| ok(dir, &["eval", "report", run, "--store", store]);
        assert_eq!(report(src), report("all.db"), "eval report of {run}");
    }
    // A rebuild on the merged store resumes the merged build: nothing new.
    let rebuild = ok(dir, &["graph", "build", second_s, "--store", "all.db"]);
    let after = ok(
        dir,
        &["graph", "stats", second_s, "--json", "--store", "all.db"],
    );
    assert_eq!(
        after,
        ok(
            dir,
            &["graph", "stats", second_s, "--json", "--store", "b.db"]
        )
    );
    assert!(!rebuild.is_empty());

    // Idempotent: again, and into itself, nothing is added.
    let bytes = dump(&dir.join("all.db"));
    let again = ok(
        dir,
        &["merge", "--into", "all.db", "a.db", "b.db", "all.db"],
    );
    assert!(
        again.contains("all.db: the destination itself, skipped"),
        "{again}"
    );
    for line in again
        .lines()
        .filter(|l| l.starts_with("a.db") || l.starts_with("b.db"))
    {
        assert!(
            line.contains("films +0")
                && line.contains("alignments +0")
                && line.contains("graph builds +0")
                && line.contains("eval runs +0")
                && line.contains("llm cache +0")
                && line.contains("llm runs +0")
                && line.contains("llm calls +0")
                && line.contains("embeddings +0"),
            "{line}"
        );
    }
    assert_eq!(dump(&dir.join("all.db")), bytes, "nothing changed");
}

/// Every table's rows, as text, in a stable order.
fn dump(path: &Path) -> Vec<String> {
    let conn = rusqlite::Connection::open(path).unwrap();
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut out = Vec::new();
    for table in tables {
        let mut stmt = conn.prepare(&format!("SELECT * FROM {table}")).unwrap();
        let n = stmt.column_count();
        let mut rows: Vec<String> = stmt
            .query_map([], |r| {
                let v: Vec<rusqlite::types::Value> =
                    (0..n).map(|i| r.get(i)).collect::<Result<_, _>>()?;
                Ok(format!("{table}: {v:?}"))
            })
            .unwrap()
            .map(Result::unwrap)
            .collect();
        rows.sort();
        out.extend(rows);
    }
    out
}

#[test]
fn a_film_aligned_from_other_inputs_is_refused_and_nothing_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let one = write_film(&dir.join("m1/harbour-night"), SCRIPT);
    let edited = SCRIPT.replace("soaked", "dripping wet");
    let two = write_film(&dir.join("m2/harbour-night"), &edited);
    ok(
        dir,
        &["graph", "build", one.to_str().unwrap(), "--store", "one.db"],
    );
    ok(
        dir,
        &["graph", "build", two.to_str().unwrap(), "--store", "two.db"],
    );
    ok(dir, &["merge", "--into", "all.db", "one.db"]);
    let before = dump(&dir.join("all.db"));

    let out = moviegraph(dir, &["merge", "--into", "all.db", "two.db"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("merge refused: 2 conflict(s); all.db is unchanged"),
        "{err}"
    );
    // The graph built from the edited script conflicts too: same settings, other work.
    assert!(
        err.contains("two.db: graph build of film harbour-night")
            && err.contains("different work under the same settings"),
        "{err}"
    );
    assert!(
        err.contains("two.db: film harbour-night: aligned from different inputs"),
        "{err}"
    );
    assert_eq!(dump(&dir.join("all.db")), before);

    // Both in one command: refused too, and the new destination holds nothing.
    let out = moviegraph(dir, &["merge", "--into", "new.db", "one.db", "two.db"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(figures(&dir.join("new.db")).films, vec![None, None]);
}

#[test]
fn stores_from_a_newer_moviegraph_and_missing_files_are_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    drop(Store::open(&dir.join("new.db")).unwrap());
    let conn = rusqlite::Connection::open(dir.join("new.db")).unwrap();
    conn.execute(
        "INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, 'future', 0)",
        [],
    )
    .unwrap();
    drop(conn);
    let out = moviegraph(dir, &["merge", "--into", "all.db", "new.db"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot merge new.db: it has schema migration 9999"),
        "{err}"
    );

    let out = moviegraph(dir, &["merge", "--into", "all.db", "nope.db"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot merge nope.db: no such file"));
    std::fs::write(dir.join("junk.db"), "not a database at all, just text").unwrap();
    let out = moviegraph(dir, &["merge", "--into", "all.db", "junk.db"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("cannot merge junk.db: not a moviegraph store"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_human_run_keeps_its_annotator_through_a_merge() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("walked.db");
    {
        let store = Store::open(&src).unwrap();
        store
            .create_eval_run(
                &moviegraph::store::EvalRun {
                    id: "human-ana-1".into(),
                    subject: "human".into(),
                    judge: None,
                    text_only: false,
                    seed: 0,
                    source: "trees/t.jsonl".into(),
                },
                &[],
            )
            .unwrap();
        store.set_eval_run_annotator("human-ana-1", "ana").unwrap();
    }
    let mut out = Store::open(&tmp.path().join("all.db")).unwrap();
    out.merge_from(&[src]).unwrap();
    assert!(out.eval_run("human-ana-1").unwrap().is_some());
    assert_eq!(
        out.eval_run_annotator("human-ana-1").unwrap().as_deref(),
        Some("ana"),
        "a merged human run is still labelled with its annotator"
    );
}
