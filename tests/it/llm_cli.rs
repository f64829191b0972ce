//! The model layer's commands, run as processes against the loopback server: a run
//! killed with SIGKILL and resumed, keys kept out of everything written, batch files
//! exported and imported, `models list` and `models check`.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::common::llm::*;
use moviegraph::store::Store;
use serde_json::json;

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_moviegraph"));
    c.env_remove("RUST_LOG").env_remove("MOVIEGRAPH_STORE");
    c
}

fn write_requests(path: &Path, n: usize, prefix: &str) {
    let mut text = String::new();
    for i in 0..n {
        let line = json!({
            "custom_id": format!("r{i}"),
            "method": "POST",
            "url": "/v1/chat/completions",
            "body": {"model": "ignored", "messages": [{"role": "user", "content": format!("{prefix} {i}")}]}
        });
        text.push_str(&line.to_string());
        text.push('\n');
    }
    std::fs::write(path, text).unwrap();
}

fn write_config(path: &Path, url: &str, extra: &str) {
    std::fs::write(
        path,
        format!(
            "[models.m]\nbackend = \"openai\"\nmodel = \"loop\"\nbase_url = \"{url}\"\nconcurrency = 32\ntimeout_s = 10\n{extra}\n\
             [client]\nbackoff_base_ms = 5\nbackoff_max_ms = 100\n"
        ),
    )
    .unwrap();
}

fn run_batch(dir: &Path, extra: &[&str]) -> Command {
    let mut c = bin();
    c.current_dir(dir).args([
        "llm",
        "run-batch",
        "req.jsonl",
        "--model",
        "m",
        "--config",
        "m.toml",
        "--store",
        "ws.db",
    ]);
    c.args(extra);
    c
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn a_run_killed_mid_way_resumes_without_repeating_a_successful_call() {
    const N: usize = 2000;
    const BEFORE_KILL: u64 = 700;
    let server = LoopbackServer::start(ServerOptions {
        latency: Duration::from_millis(2),
        threads: 1,
        ..ServerOptions::default()
    })
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    write_requests(&dir.path().join("req.jsonl"), N, "kill");
    write_config(&dir.path().join("m.toml"), &server.url(), "");
    server.hold_after(Some(BEFORE_KILL));
    let mut child = run_batch(dir.path(), &[])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();

    // Kill once the server has answered BEFORE_KILL requests (later ones hang, as
    // calls in flight do) and every answer it gave has been committed.
    let db = dir.path().join("ws.db");
    // Equal counts must hold for a while (far longer than the server's latency), so
    // no reply is still on its way when the kill comes.
    let start = Instant::now();
    let mut steady = 0;
    loop {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the run never got going"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before the kill"
        );
        let answered = server.counters().successes();
        if answered >= BEFORE_KILL && db.exists() && rusqlite_count(&db) == answered {
            steady += 1;
            if steady == 10 {
                break;
            }
        } else {
            steady = 0;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let store = Store::open(&db).unwrap();
    assert_eq!(store.integrity_check().unwrap(), ["ok"]);
    let before = store.llm_cache_len().unwrap();
    assert!(before >= BEFORE_KILL && before < N as u64, "{before}");
    drop(store);

    server.hold_after(None);
    let out = run_batch(dir.path(), &["--output", "out.jsonl"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains(&format!("{before} from the cache")),
        "{}",
        text(&out)
    );
    let per_key = server.counters().per_key();
    assert_eq!(per_key.len(), N);
    let repeated: Vec<_> = per_key.iter().filter(|(_, k)| k.successes != 1).collect();
    assert!(
        repeated.is_empty(),
        "answered more (or less) than once: {repeated:?}"
    );
    let store = Store::open(&db).unwrap();
    assert_eq!(store.integrity_check().unwrap(), ["ok"]);
    assert_eq!(store.llm_cache_len().unwrap(), N as u64);
    let lines = std::fs::read_to_string(dir.path().join("out.jsonl")).unwrap();
    assert_eq!(lines.lines().count(), N);
}

/// Rows in the cache, read with a plain connection beside the writer.
fn rusqlite_count(db: &Path) -> u64 {
    match Store::open(db) {
        Ok(s) => s.llm_cache_len().unwrap_or(0),
        Err(_) => 0,
    }
}

#[test]
fn the_api_key_appears_in_nothing_a_run_writes() {
    const KEY: &str = "sk-test-7f3a9c0e51d24b8aa6c1";
    const VAR: &str = "MOVIEGRAPH_TEST_KEY_SECRECY";
    // The server checks the key, and echoes it back in errors for some requests,
    // as careless proxies do.
    let responder: Responder = Arc::new(|r: &Request| {
        let auth = r.header("authorization").unwrap_or("").to_string();
        if auth != format!("Bearer {KEY}") {
            return Reply::error(401, "missing key");
        }
        if r.key.ends_with('7') {
            return Reply::error(403, &format!("key {auth} may not use this model"));
        }
        Reply::chat(&format!("echo: {}", r.key))
    });
    let server = LoopbackServer::start(ServerOptions {
        responder,
        ..ServerOptions::default()
    })
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    write_requests(&dir.path().join("req.jsonl"), 20, "secret");
    write_config(
        &dir.path().join("m.toml"),
        &server.url(),
        &format!("api_key_env = \"{VAR}\""),
    );
    let out = run_batch(dir.path(), &["--output", "out.jsonl", "-vv"])
        .env(VAR, KEY)
        .output()
        .unwrap();
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(
        all.contains("18 answered") && all.contains("[redacted]"),
        "{all}"
    );
    let help = bin()
        .args(["llm", "run-batch", "--help"])
        .env(VAR, KEY)
        .output()
        .unwrap();
    let mut written = all.into_bytes();
    written.extend(help.stdout);
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        written.extend(std::fs::read(entry.unwrap().path()).unwrap());
    }
    let list = bin()
        .current_dir(dir.path())
        .args(["models", "list", "--config", "m.toml"])
        .env(VAR, KEY)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&list.stdout).contains(&format!("key from ${VAR} (set)")));
    written.extend(list.stdout);
    let hay = String::from_utf8_lossy(&written);
    assert!(!hay.contains(KEY), "the key was written somewhere");
    assert!(
        !hay.contains(&KEY[3..20]),
        "part of the key was written somewhere"
    );
    // The test can fail: the server did get the key.
    assert_eq!(server.counters().successes(), 18);
}

#[test]
fn batch_files_export_the_uncached_and_import_answers_into_the_cache() {
    let server = LoopbackServer::start(ServerOptions::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_requests(&d.join("req.jsonl"), 10, "batch");
    write_config(&d.join("m.toml"), &server.url(), "");
    // Answer the first 4 online, in a separate store that stands in for the batch service.
    write_requests(&d.join("first.jsonl"), 4, "batch");
    let out = bin()
        .current_dir(d)
        .args([
            "llm",
            "run-batch",
            "first.jsonl",
            "--model",
            "m",
            "--config",
            "m.toml",
            "--store",
            "ws.db",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let export = |name: &str| {
        let out = bin()
            .current_dir(d)
            .args([
                "llm",
                "batch",
                "export",
                "req.jsonl",
                "-o",
                name,
                "--model",
                "m",
                "--config",
                "m.toml",
                "--store",
                "ws.db",
            ])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
        std::fs::read_to_string(d.join(name)).unwrap()
    };
    let pending = export("pending.jsonl");
    assert_eq!(pending.lines().count(), 6);
    let first: serde_json::Value = serde_json::from_str(pending.lines().next().unwrap()).unwrap();
    assert_eq!(first["custom_id"], "r4");
    assert_eq!(first["url"], "/v1/chat/completions");
    assert_eq!(first["body"]["model"], "loop");

    // The "batch service": answer the pending file with run-batch into another store.
    let out = bin()
        .current_dir(d)
        .args([
            "llm",
            "run-batch",
            "pending.jsonl",
            "-o",
            "answers.jsonl",
            "--model",
            "m",
            "--config",
            "m.toml",
            "--store",
            "service.db",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let served = server.counters().requests();
    let out = bin()
        .current_dir(d)
        .args([
            "llm",
            "batch",
            "import",
            "answers.jsonl",
            "--requests",
            "req.jsonl",
            "--model",
            "m",
            "--config",
            "m.toml",
            "--store",
            "ws.db",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("6 answers cached"), "{}", text(&out));
    assert_eq!(export("none.jsonl").lines().count(), 0);
    // Everything is now answered from the cache, with no further traffic.
    let out = run_batch(d, &[]).output().unwrap();
    assert!(
        text(&out).contains("10 answered (10 from the cache)"),
        "{}",
        text(&out)
    );
    assert_eq!(server.counters().requests(), served);

    let bad = d.join("bad.jsonl");
    std::fs::write(&bad, "{\"custom_id\": \"x\"}\n").unwrap();
    let out = bin()
        .current_dir(d)
        .args([
            "llm",
            "run-batch",
            "bad.jsonl",
            "--model",
            "m",
            "--config",
            "m.toml",
            "--store",
            "ws.db",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out).contains("bad.jsonl:1: no \"body\""),
        "{}",
        text(&out)
    );
}

#[test]
fn models_list_shows_roles_and_check_reports_latency_or_the_error() {
    let server = LoopbackServer::start(ServerOptions::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    std::fs::write(
        dir.path().join("moviegraph.toml"),
        format!(
            "[roles]\njudge = \"good\"\n\
             [models.good]\nbackend = \"openai\"\nbase_url = \"{}\"\n\
             [models.down]\nbackend = \"openai\"\nbase_url = \"http://127.0.0.1:{closed}/v1\"\ntimeout_s = 2\n",
            server.url()
        ),
    )
    .unwrap();
    let list = bin()
        .current_dir(dir.path())
        .args(["models", "list", "--subject", "good"])
        .output()
        .unwrap();
    let listed = text(&list);
    assert!(list.status.success(), "{listed}");
    assert!(
        listed.contains("judge        good") && listed.contains("subject      good"),
        "{listed}"
    );
    assert!(
        listed.contains("generator    rules")
            && listed.contains("auditors     rules-grounding, rules-schema")
    );
    assert!(!listed.contains("answers no questions"), "{listed}");
    // The defaults' subject is on the rules backend, which `eval run`
    // refuses: the list says so where the subject is shown.
    let empty = tempfile::tempdir().unwrap();
    let defaults = bin()
        .current_dir(empty.path())
        .args(["models", "list"])
        .output()
        .unwrap();
    let defaults = text(&defaults);
    assert!(
        defaults.contains("subject      rules  (the rules backend answers no questions"),
        "{defaults}"
    );

    let check = bin()
        .current_dir(dir.path())
        .args(["models", "check"])
        .output()
        .unwrap();
    let checked = text(&check);
    assert_eq!(check.status.code(), Some(1), "{checked}");
    assert!(
        checked.contains("ok      good:") && checked.contains("answered \"echo:"),
        "{checked}"
    );
    assert!(
        checked.contains("ok      rules: ") && checked.contains("\"pong\""),
        "{checked}"
    );
    assert!(
        checked.contains(&format!(
            "FAILED  down: POST http://127.0.0.1:{closed}/v1/chat/completions"
        )),
        "{checked}"
    );

    let bad = bin()
        .current_dir(dir.path())
        .args(["models", "list", "--judge", "nope"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad).contains("role judge names the model \"nope\""),
        "{}",
        text(&bad)
    );
}
