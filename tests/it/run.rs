//! `moviegraph run`: the README's command reproduces the committed sample files,
//! reruns skip, resume or redo exactly the stages they should, and a run killed
//! with SIGKILL anywhere finishes with the same files as an uninterrupted one.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use moviegraph_loopback::{LoopbackServer, Reply, Request, Responder, ServerOptions};
use sha2::{Digest, Sha256};

pub(crate) const FILM: &str = "screenplays/the-second-key";
pub(crate) const GRAPH: &str = "graphs/the-second-key.json";
const TREES: &str = "trees/the-second-key.jsonl";
pub(crate) const REPORTS: [&str; 3] = [
    "reports/the-second-key/report.html",
    "reports/the-second-key/report.json",
    "reports/the-second-key/report.csv",
];

pub(crate) fn copy_dir(from: &Path, to: &Path) {
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

/// A workspace holding the sample film and its keyframes where the repository has them.
pub(crate) fn workspace() -> tempfile::TempDir {
    let ws = tempfile::tempdir().unwrap();
    let root = common::root();
    copy_dir(&root.join(FILM), &ws.path().join(FILM));
    copy_dir(
        &root.join("keyframes/the-second-key"),
        &ws.path().join("keyframes/the-second-key"),
    );
    ws
}

pub(crate) fn command(cwd: &Path, args: &[&str]) -> Command {
    let mut c = crate::common::moviegraph_offline();
    c.args(args)
        .current_dir(cwd)
        .env_remove("MOVIEGRAPH_STORE")
        .env_remove("MOVIEGRAPH_RUN_EVENTS")
        .env_remove("RUST_LOG");
    c
}

pub(crate) fn run(cwd: &Path, args: &[&str]) -> String {
    let o: Output = command(cwd, args).output().unwrap();
    assert!(
        o.status.success(),
        "moviegraph {args:?}: {}\n{}",
        String::from_utf8_lossy(&o.stderr),
        String::from_utf8_lossy(&o.stdout)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// The stage lines of a run's summary: (stage, action, why).
pub(crate) fn actions(out: &str) -> Vec<(String, String, String)> {
    out.lines()
        .filter_map(|l| {
            let t = l.trim_start();
            let mut words = t.split_whitespace();
            let stage = words.next()?;
            if ![
                "parse", "shots", "align", "graph", "trees", "eval", "report",
            ]
            .contains(&stage)
                || !l.starts_with("  ")
                || l.starts_with("   ")
            {
                return None;
            }
            let action = words.next()?.to_owned();
            let why = t.split_once('(').map(|x| x.1).unwrap_or("").to_owned();
            Some((stage.to_owned(), action, why))
        })
        .collect()
}

pub(crate) fn action_of<'a>(
    acts: &'a [(String, String, String)],
    stage: &str,
) -> &'a (String, String, String) {
    acts.iter()
        .find(|a| a.0 == stage)
        .unwrap_or_else(|| panic!("no line for stage {stage} in {acts:?}"))
}

pub(crate) fn read(path: PathBuf) -> Vec<u8> {
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn the_readme_command_writes_the_committed_graph_and_trees_byte_for_byte() {
    let ws = workspace();
    let out = run(ws.path(), &["run", FILM]);
    let root = common::root();
    for file in [GRAPH, TREES] {
        assert!(
            read(ws.path().join(file)) == read(root.join(file)),
            "{file} differs from the committed file; if the change is intended, run \
             `cargo run --release -- run {FILM}` at the project root and commit it"
        );
    }
    for file in REPORTS {
        assert!(ws.path().join(file).is_file(), "{file} missing");
    }
    // The report names its film, says it measures baselines, lays out the
    // paper's tables and draws the main characters' trajectories.
    let html =
        String::from_utf8(read(ws.path().join("reports/the-second-key/report.html"))).unwrap();
    for part in [
        "moviegraph evaluation report — the-second-key",
        "Offline baseline.",
        "Overall and per top-level category",
        "Mental-state trajectories",
        "<th>Mara Ellis</th>",
    ] {
        assert!(html.contains(part), "{part}");
    }
    assert!(ws.path().join("moviegraph.db").is_file());
    let acts = actions(&out);
    assert_eq!(acts.len(), 6, "{out}");
    assert!(acts.iter().all(|a| a.1 == "ran"), "{out}");
    // Every stage says what it ran on; nothing pretends to be a model.
    assert!(out.contains("the offline baseline"), "{out}");
    assert!(
        out.contains("rules backend: a lexical baseline, offline"),
        "{out}"
    );
    assert!(
        out.contains("rules templates, a baseline, offline"),
        "{out}"
    );
    assert!(
        out.contains("offline baselines random, first-option, lexical (not reasoners)"),
        "{out}"
    );
    assert!(out.contains("verification rate"), "{out}");
    assert!(out.contains("next:"), "{out}");
    // Graph and report are what the stage commands give on the same store.
    let g = run(ws.path(), &["graph", "export", FILM, "--out", "exported"]);
    assert!(g.contains("wrote"), "{g}");
    assert!(read(ws.path().join("exported/the-second-key.json")) == read(ws.path().join(GRAPH)));
}

#[test]
fn reruns_skip_current_stages_and_redo_changed_ones_and_those_after() {
    let ws = workspace();
    let cwd = ws.path();
    let args = ARGS;
    run(cwd, &args);
    let first: Vec<Vec<u8>> = [GRAPH, TREES, REPORTS[1]]
        .iter()
        .map(|f| read(cwd.join("o").join(f)))
        .collect();

    // Nothing changed: everything skipped, same bytes.
    let out = run(cwd, &args);
    let acts = actions(&out);
    assert_eq!(acts.len(), 6, "{out}");
    assert!(acts.iter().all(|a| a.1 == "skipped"), "{out}");
    assert!(out.contains("verification rate"), "{out}");
    let again: Vec<Vec<u8>> = [GRAPH, TREES, REPORTS[1]]
        .iter()
        .map(|f| read(cwd.join("o").join(f)))
        .collect();
    assert!(first == again);

    // Another version of the script: parse re-scores it; align reads only the
    // preferred version, so nothing after parse runs.
    let txt = cwd.join(FILM).join("script.txt");
    let mut text = std::fs::read_to_string(&txt).unwrap();
    text.push_str("\n\n");
    std::fs::write(&txt, &text).unwrap();
    let acts = actions(&run(cwd, &args));
    assert_eq!(action_of(&acts, "parse").1, "ran");
    assert!(
        action_of(&acts, "parse").2.contains("script.txt changed"),
        "{acts:?}"
    );
    for s in ["align", "graph", "trees", "eval", "report"] {
        assert_eq!(action_of(&acts, s).1, "skipped", "{s}: {acts:?}");
    }

    // A setting of the eval stage: eval and report run, the rest is current.
    let seeded = [
        "run",
        FILM,
        "--out",
        "o",
        "--store",
        "w.db",
        "--bootstrap",
        "50",
        "--seed",
        "3",
    ];
    let acts = actions(&run(cwd, &seeded));
    for s in ["parse", "align", "graph", "trees"] {
        assert_eq!(action_of(&acts, s).1, "skipped", "{s}: {acts:?}");
    }
    assert_eq!(action_of(&acts, "eval").1, "ran");
    assert!(
        action_of(&acts, "eval").2.contains("seed changed (0 → 3)"),
        "{acts:?}"
    );
    assert_eq!(action_of(&acts, "report").1, "ran");
    assert!(
        action_of(&acts, "report").2.contains("stage eval changed"),
        "{acts:?}"
    );
    // Back to the first settings: the earlier runs are in the store and the report
    // comes out as it did.
    run(cwd, &args);
    assert!(read(cwd.join("o").join(REPORTS[1])) == first[2]);

    // An output removed or edited by hand: that stage alone writes it again.
    std::fs::remove_file(cwd.join("o").join(REPORTS[0])).unwrap();
    let acts = actions(&run(cwd, &args));
    assert_eq!(action_of(&acts, "report").1, "ran");
    assert!(
        action_of(&acts, "report").2.contains("is missing"),
        "{acts:?}"
    );
    for s in ["parse", "align", "graph", "trees", "eval"] {
        assert_eq!(action_of(&acts, s).1, "skipped", "{s}: {acts:?}");
    }
    std::fs::write(cwd.join("o").join(GRAPH), b"{}").unwrap();
    let acts = actions(&run(cwd, &args));
    assert!(
        action_of(&acts, "graph")
            .2
            .contains("was changed since it was written"),
        "{acts:?}"
    );
    assert_eq!(action_of(&acts, "trees").1, "skipped", "{acts:?}");
    assert!(read(cwd.join("o").join(GRAPH)) == first[0]);

    // New subtitles: align and every stage after it run again; parse is current.
    let srt = cwd.join(FILM).join("subtitles.srt");
    let subs = std::fs::read_to_string(&srt).unwrap();
    std::fs::write(&srt, subs + "\n").unwrap();
    let out = run(cwd, &args);
    let acts = actions(&out);
    assert_eq!(action_of(&acts, "parse").1, "skipped", "{out}");
    assert_eq!(action_of(&acts, "align").1, "ran", "{out}");
    assert!(
        action_of(&acts, "align")
            .2
            .contains("subtitles.srt changed"),
        "{out}"
    );
    for (s, up) in [
        ("graph", "align"),
        ("trees", "graph"),
        ("eval", "trees"),
        ("report", "eval"),
    ] {
        // The rebuilt trees are the same trees, so eval finds every answer of
        // the earlier run stored and says it resumed; the other stages run.
        let expected: &[&str] = if s == "eval" {
            &["ran", "resumed"]
        } else {
            &["ran"]
        };
        assert!(
            expected.contains(&action_of(&acts, s).1.as_str()),
            "{s}: {out}"
        );
        assert!(
            action_of(&acts, s)
                .2
                .contains(&format!("stage {up} changed")),
            "{s}: {out}"
        );
    }
    // A trailing newline changes no cue: the same graph comes out of the rebuild.
    assert!(read(cwd.join("o").join(GRAPH)) == first[0]);
}

#[test]
fn a_subject_that_is_neither_a_baseline_nor_configured_is_refused() {
    let ws = workspace();
    let o = command(ws.path(), &["run", FILM, "--subject", "gpt-4o"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("gpt-4o") && err.contains("neither an offline baseline"),
        "{err}"
    );
    assert!(!ws.path().join(GRAPH).exists(), "nothing ran");
}

/// SplitMix64, so the kill points are reproducible from the seed.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

pub(crate) const ARGS: [&str; 8] = [
    "run",
    FILM,
    "--out",
    "o",
    "--store",
    "w.db",
    "--bootstrap",
    "50",
];

/// The steps a whole run reports, as (stage, n), in order.
fn steps(cwd: &Path) -> Vec<(String, u64)> {
    let o = command(cwd, &ARGS)
        .env("MOVIEGRAPH_RUN_EVENTS", "1")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stderr)
        .lines()
        .filter_map(|l| {
            let mut w = l.strip_prefix("moviegraph-event ")?.split(' ');
            let _film = w.next()?;
            Some((w.next()?.to_owned(), w.next()?.parse().ok()?))
        })
        .collect()
}

/// Runs step by step and sends SIGKILL `delay_us` after letting the run go on from
/// its `j`-th step in `stage`; `Err` with the run's exit status and its other
/// stderr lines when it ended before that step.
fn kill_at(cwd: &Path, stage: &str, j: usize, delay_us: u64) -> Result<(), String> {
    let mut child = command(cwd, &ARGS)
        .env("MOVIEGRAPH_RUN_EVENTS", "step")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let mut seen = 0;
    let mut killed = false;
    let mut said = Vec::new();
    for line in stderr.split(b'\n') {
        let Ok(line) = line else { break };
        let line = String::from_utf8_lossy(&line).into_owned();
        let Some(rest) = line.strip_prefix("moviegraph-event ") else {
            said.push(line);
            continue;
        };
        let _ = stdin.write_all(b"\n");
        let _ = stdin.flush();
        if rest.split(' ').nth(1) == Some(stage) {
            seen += 1;
            if seen == j {
                std::thread::sleep(std::time::Duration::from_micros(delay_us));
                child.kill().unwrap(); // SIGKILL on Unix
                killed = true;
                break;
            }
        }
    }
    drop(stdin);
    let status = child.wait().unwrap();
    if killed && !status.success() {
        Ok(())
    } else {
        Err(format!(
            "{status} after {seen} steps of stage {stage}; it said:\n{}",
            said.join("\n")
        ))
    }
}

fn outputs(dir: &Path) -> Vec<(String, Vec<u8>)> {
    [GRAPH, TREES, REPORTS[0], REPORTS[1], REPORTS[2]]
        .iter()
        .map(|f| (f.to_string(), read(dir.join("o").join(f))))
        .collect()
}

/// No temporary file or anything else but the outputs is left in the output folders.
fn only_outputs(dir: &Path) {
    for sub in ["o/graphs", "o/trees", "o/reports/the-second-key"] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
            continue;
        };
        for e in entries {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            assert!(
                !name.starts_with('.') && !name.ends_with(".tmp"),
                "{sub}/{name} left behind"
            );
        }
    }
}

/// As [`only_outputs`], allowing the temporary file of an output (`.NAME.tmp`).
fn only_outputs_or_their_temporaries(dir: &Path) {
    for sub in ["o/graphs", "o/trees", "o/reports/the-second-key"] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
            continue;
        };
        let names: Vec<String> = entries
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        for name in &names {
            let output = name
                .strip_prefix('.')
                .and_then(|n| n.strip_suffix(".tmp"))
                .unwrap_or(name);
            let known = [GRAPH, TREES, REPORTS[0], REPORTS[1], REPORTS[2]]
                .iter()
                .any(|f| f.ends_with(&format!("/{output}")));
            assert!(known, "{sub}/{name} left behind");
        }
    }
}

#[test]
fn sigkill_anywhere_then_rerun_gives_the_files_of_an_uninterrupted_run() {
    let reference = workspace();
    let all = steps(reference.path());
    let expected = outputs(reference.path());
    let stages = ["parse", "align", "graph", "trees", "eval", "report"];
    for s in stages {
        assert!(
            all.iter().any(|(st, _)| st == s),
            "no step in stage {s}: {all:?}"
        );
    }
    for seed in 1..=3u64 {
        let mut rng = Rng(seed);
        let ws = workspace();
        // One kill inside every stage, in pipeline order, each on a fresh start that
        // resumes what the previous kill left. A kill lets the run go on from its
        // step, so a kill at a stage's last step may finish the next stage's first
        // step before the signal lands: that stage then has one step fewer to show.
        let mut may_have_done_first = false;
        for s in stages {
            let steps_in_stage = all.iter().filter(|(st, _)| st == s).count();
            let showable = steps_in_stage - usize::from(may_have_done_first);
            if showable == 0 {
                // The one step of this stage may be done already.
                may_have_done_first = false;
                continue;
            }
            let j = 1 + rng.below(showable);
            may_have_done_first = j == showable;
            let delay = rng.below(3000) as u64;
            if let Err(e) = kill_at(ws.path(), s, j, delay) {
                panic!("seed {seed}: the run ended before step {j} of stage {s}: {e}");
            }
            // A SIGKILL between create and rename may leave the one temporary
            // name of an output (no code runs after SIGKILL); its next write
            // replaces it, so the check after the final run below is strict.
            only_outputs_or_their_temporaries(ws.path());
        }
        let out = run(ws.path(), &ARGS);
        assert!(out.contains("done: 1 of 1 films"), "{out}");
        only_outputs(ws.path());
        for ((name, want), (_, got)) in expected.iter().zip(outputs(ws.path())) {
            assert!(
                *want == got,
                "seed {seed}: {name} differs from the uninterrupted run's"
            );
        }
        // And once more: all current.
        let acts = actions(&run(ws.path(), &ARGS));
        assert!(
            acts.iter().all(|a| a.1 == "skipped"),
            "seed {seed}: {acts:?}"
        );
    }
}

/// A subject and judge server whose reply depends only on the request body, so
/// two runs get the same replies; every body it answers is logged (a request
/// held unanswered is not).
fn hashing_server(log: Arc<Mutex<Vec<String>>>) -> LoopbackServer {
    let responder: Responder = Arc::new(move |req: &Request| {
        let body = req.body.to_string();
        let h = usize::from(Sha256::digest(body.as_bytes())[0]);
        log.lock().unwrap().push(body.clone());
        if body.contains("Answer to grade:") {
            Reply::chat(["[[0.2]]", "[[0.9]]", "Grade: [[0.5]]"][h % 3])
        } else {
            Reply::chat(["[[A]]", "[[B]]", "I pick [[A, C]]", "No idea."][h % 4])
        }
    });
    LoopbackServer::start(ServerOptions {
        responder,
        ..ServerOptions::default()
    })
    .unwrap()
}

/// The sample film's workspace with a configuration that makes the server the
/// subject and the judge; the graph and trees roles stay on the rules backend.
fn model_workspace(server: &LoopbackServer) -> tempfile::TempDir {
    let ws = workspace();
    std::fs::write(
        ws.path().join("mg.toml"),
        format!(
            "[roles]\nsubject = \"loop\"\njudge = \"loop\"\n\n\
             [models.loop]\nbackend = \"openai\"\nbase_url = \"{}\"\ntimeout_s = 60\n\
             concurrency = 1\nprice_input_per_1k = 1.0\n\n\
             [client]\nmax_retries = 2\nbackoff_base_ms = 5\nbackoff_max_ms = 50\n\
             deadline_s = 120\nmax_repairs = 0\n",
            server.url()
        ),
    )
    .unwrap();
    ws
}

/// [`ARGS`] with the model configuration.
fn model_args() -> Vec<&'static str> {
    ARGS.iter()
        .copied()
        .chain(["--config", "mg.toml"])
        .collect()
}

/// The "no repeated model call": a run whose subject and judge are a
/// model, killed with SIGKILL while the server holds a request (three times,
/// at points drawn from a seed), resumes to the uninterrupted run's files, and
/// the server answered exactly the uninterrupted run's requests, each once.
#[test]
fn a_model_subject_run_killed_mid_eval_resumes_without_repeating_a_call() {
    let whole_log = Arc::new(Mutex::new(Vec::new()));
    let whole_server = hashing_server(Arc::clone(&whole_log));
    let whole = model_workspace(&whole_server);
    let out = run(whole.path(), &model_args());
    assert!(out.contains("model subject loop"), "{out}");
    assert!(out.contains("open answers: judge loop"), "{out}");
    assert!(out.contains("rules backend: a lexical baseline"), "{out}");
    let needed = whole_log.lock().unwrap().clone();
    let n = needed.len();
    // Identical questions (the same wording in two trees) are answered once
    // and then from the response cache: calls = requests + cache hits.
    let (calls, hits) = model_calls(&out);
    assert_eq!(calls - hits, n, "{n} requests: {out}");
    let mut unique = needed.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), n, "no body twice in the uninterrupted run");
    // Every question (over 40) asked once, plus the judge's grades of open answers.
    assert!(n > 40, "{n}");
    let expected = outputs(whole.path());
    let report = String::from_utf8(expected[3].1.clone()).unwrap();
    assert!(report.contains("\"subject\": \"loop\""), "{report}");
    // A rerun is current and calls nothing.
    let again = run(whole.path(), &model_args());
    assert!(actions(&again).iter().all(|a| a.1 == "skipped"), "{again}");
    assert_eq!(whole_server.counters().requests(), n as u64);

    let log = Arc::new(Mutex::new(Vec::new()));
    let server = hashing_server(Arc::clone(&log));
    let ws = model_workspace(&server);
    let mut rng = Rng(7);
    let mut kills = 0u64;
    let mut answered_before = 0u64;
    for _ in 0..3 {
        // Answer some more requests, then hold the next one and kill the run.
        let stop = answered_before + 1 + rng.below(n / 4) as u64;
        server.hold_after(Some(stop));
        let mut child = command(ws.path(), &model_args())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let start = Instant::now();
        while server.counters().requests() < stop + kills + 1 {
            assert!(child.try_wait().unwrap().is_none(), "the run ended early");
            assert!(
                start.elapsed() < Duration::from_secs(120),
                "no request after the {stop}th"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        child.kill().unwrap();
        child.wait().unwrap();
        kills += 1;
        answered_before = log.lock().unwrap().len() as u64;
        assert_eq!(answered_before, stop, "the server answered up to the hold");
    }
    server.hold_after(None);
    let out = run(ws.path(), &model_args());
    assert!(out.contains("done: 1 of 1 films"), "{out}");
    let eval = actions(&out)
        .into_iter()
        .find(|a| a.0 == "eval")
        .expect("an eval line");
    assert_eq!(eval.1, "resumed", "{out}");
    for ((name, want), (_, got)) in expected.iter().zip(outputs(ws.path())) {
        assert!(*want == got, "{name} differs from the uninterrupted run's");
    }
    let mut answered = log.lock().unwrap().clone();
    let mut needed = needed;
    answered.sort();
    needed.sort();
    assert_eq!(
        answered, needed,
        "every request answered once, none repeated"
    );
    assert_eq!(server.counters().requests(), n as u64 + kills);
}

/// (calls, cache hits) from the summary's "(N model calls, M from the cache)".
fn model_calls(out: &str) -> (usize, usize) {
    let at = out.find(" model calls, ").expect("a model calls figure");
    let calls = out[..at]
        .rsplit('(')
        .next()
        .and_then(|n| n.parse().ok())
        .expect("a call count");
    let hits = out[at + " model calls, ".len()..]
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .expect("a cache hit count");
    (calls, hits)
}

/// Starts `run` paused at its first step (the step hook waits on stdin), so it
/// holds the store's writer lock until `release` is called.
struct Paused {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
}

impl Paused {
    fn start(cwd: &Path) -> Paused {
        let mut child = command(cwd, &ARGS)
            .env("MOVIEGRAPH_RUN_EVENTS", "step")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        // The first step line: the run holds the lock and waits for us.
        let mut line = String::new();
        while stderr.read_line(&mut line).unwrap() > 0 {
            if line.starts_with("moviegraph-event ") {
                break;
            }
            line.clear();
        }
        std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
        Paused { child, stdin }
    }

    /// Lets the run go on to the end (end of input: no more waiting) and waits for it.
    fn release(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        self.child.wait().unwrap()
    }
}

#[test]
fn a_second_run_on_a_store_in_use_waits_its_turn_and_both_write_the_same_files() {
    for trial in 0..3 {
        let ws = workspace();
        let first = Paused::start(ws.path());
        let second = command(ws.path(), &ARGS)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Give the second time to reach the lock, then let the first go on.
        std::thread::sleep(Duration::from_millis(300 + 200 * trial));
        assert!(
            first.release().success(),
            "trial {trial}: the first run failed"
        );
        let after_first = outputs(ws.path());
        let second = second.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&second.stderr);
        assert!(second.status.success(), "trial {trial}: {err}");
        assert!(
            err.contains("waiting for the store") && err.contains("moviegraph run"),
            "trial {trial}: the second run did not say it waited: {err}"
        );
        assert_eq!(after_first, outputs(ws.path()), "trial {trial}");
        only_outputs(ws.path());
    }
}

#[test]
fn no_wait_stops_at_once_naming_the_store_and_the_process_that_holds_it() {
    let ws = workspace();
    let first = Paused::start(ws.path());
    let pid = first.child.id();
    let mut args = ARGS.to_vec();
    args.push("--no-wait");
    let o = command(ws.path(), &args).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("the store w.db is in use"), "{err}");
    assert!(err.contains(&format!("process {pid}")), "{err}");
    assert!(!err.contains("SQL") && !err.contains("UNIQUE"), "{err}");
    assert!(first.release().success());
}
