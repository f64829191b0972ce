//! Evaluation additions: the individual-vs-group transition gap (hand-computed),
//! concurrent trees (`--jobs`) giving the answers and reports of a sequential run, and
//! the self-contained HTML report.

use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::task::{Context, Poll};

use async_trait::async_trait;
use moviegraph::eval::html::html;
use moviegraph::eval::metrics::{compute, rotation_figures, BootstrapSettings, TRANSITION_KEY};
use moviegraph::eval::parse::Parsed;
use moviegraph::eval::protocol::{
    display_order, load_run, rotation_displays, run_stored_with, LoadedRun, RunOptions,
};
use moviegraph::eval::report;
use moviegraph::eval::subject::{baseline, fnv1a, Ask, Subject, SubjectError};
use moviegraph::eval::synth::synthetic_trees;
use moviegraph::store::{EvalAnswer, EvalRun, Store};
use moviegraph::trees::schema::Format;
use moviegraph::trees::schema::Tree;

fn run_settings(id: &str) -> EvalRun {
    EvalRun {
        id: id.into(),
        subject: "random".into(),
        judge: None,
        text_only: false,
        seed: 5,
        source: "synthetic".into(),
    }
}

fn block_on<F: Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(f)
}

/// Returns `Pending` once, so other walks get to run in between.
struct YieldOnce(bool);

impl Future for YieldOnce {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

/// The random baseline behind a varying number of suspensions per question (as a model
/// behind HTTP would be), logging the order in which questions are asked.
struct Yielding {
    inner: Box<dyn Subject>,
    log: Mutex<Vec<String>>,
}

#[async_trait]
impl Subject for Yielding {
    fn name(&self) -> &str {
        self.inner.name()
    }
    async fn answer(&self, ask: &Ask<'_>) -> Result<String, SubjectError> {
        let pauses = fnv1a(format!("{}{}", ask.tree_id, ask.node_id).as_bytes()) % 7;
        for _ in 0..pauses {
            YieldOnce(false).await;
        }
        self.log
            .lock()
            .unwrap()
            .push(format!("{}/{}", ask.tree_id, ask.node_id));
        self.inner.answer(ask).await
    }
}

fn run_with_jobs(store: &Store, id: &str, trees: &[Tree], jobs: usize) -> Vec<String> {
    let subject = Yielding {
        inner: baseline("random", 5).unwrap(),
        log: Mutex::new(Vec::new()),
    };
    block_on(run_stored_with(
        store,
        &run_settings(id),
        trees,
        &subject,
        None,
        RunOptions {
            jobs,
            ..RunOptions::default()
        },
        &|_| {},
    ))
    .unwrap();
    subject.log.into_inner().unwrap()
}

#[test]
fn concurrent_trees_give_the_answers_and_reports_of_a_sequential_run() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("ws.db")).unwrap();
    let trees = synthetic_trees(12);
    let sequential = run_with_jobs(&store, "seq", &trees, 1);
    let concurrent = run_with_jobs(&store, "par", &trees, 4);
    // The concurrent run really interleaved trees: its questions came in another order.
    assert_eq!(sequential.len(), concurrent.len());
    assert_ne!(sequential, concurrent, "the walks did not interleave");
    let mut a = sequential.clone();
    let mut b = concurrent.clone();
    a.sort();
    b.sort();
    assert_eq!(a, b);

    let seq = load_run(&store, "seq").unwrap();
    let par = load_run(&store, "par").unwrap();
    assert_eq!(seq.answers, par.answers);
    let settings = BootstrapSettings {
        resamples: 200,
        seed: 3,
    };
    let mut m_seq = compute(&seq, settings);
    let mut m_par = compute(&par, settings);
    m_seq.run = "x".into();
    m_par.run = "x".into();
    assert_eq!(
        report::table(&[m_seq.clone()]),
        report::table(&[m_par.clone()])
    );
    assert_eq!(report::json(&[m_seq]), report::json(&[m_par]));

    // A resumed concurrent run asks nothing again.
    let again = run_with_jobs(&store, "par", &trees, 4);
    assert!(again.is_empty());
}

/// Answers to the first nodes of `tree` (file order) with the given correctness.
fn answers_for(tree: &Tree, correct: &[bool]) -> Vec<EvalAnswer> {
    tree.nodes
        .iter()
        .zip(correct)
        .enumerate()
        .map(|(seq, (node, &c))| EvalAnswer {
            tree_id: tree.id.clone(),
            node_id: node.id.clone(),
            phase: if seq == 0 { 1 } else { 2 },
            seq: seq as u32,
            raw: String::new(),
            parsed: serde_json::to_string(&Parsed::Unparseable).unwrap(),
            correct: c,
            score: if c { 1.0 } else { 0.0 },
            rouge: None,
            judge: None,
        })
        .collect()
}

#[test]
fn the_transition_gap_equals_its_hand_computed_value() {
    // Two trees per level: L1 (8 of the first 10 answers right), L2 (2 of 10), L5
    // (4 of 10), untagged trees (ignored by the gap), and one tree at L4 with a
    // single answer, right: a small group, but one answer of the collective
    // tier like any other. Only the first 5 nodes of each tree (1 of the L4
    // tree) are answered.
    let mut trees = synthetic_trees(9);
    let levels = [
        Some(1u8),
        Some(1),
        Some(2),
        Some(2),
        Some(5),
        Some(5),
        None,
        None,
        Some(4),
    ];
    for (tree, level) in trees.iter_mut().zip(levels) {
        for node in &mut tree.nodes {
            node.tags.group_level = level;
        }
    }
    let pattern: [&[bool]; 9] = [
        &[true, true, true, true, false],
        &[true, true, true, true, false],
        &[false, false, true, false, false],
        &[false, false, true, false, false],
        &[true, false, true, false, false],
        &[true, false, true, false, false],
        &[true, true, true, true, true],
        &[true, true, true, true, true],
        &[true],
    ];
    let answers: Vec<EvalAnswer> = trees
        .iter()
        .zip(pattern)
        .flat_map(|(t, p)| answers_for(t, p))
        .collect();
    let loaded = LoadedRun {
        run: run_settings("gap"),
        trees,
        answers,
    };
    let m = compute(
        &loaded,
        BootstrapSettings {
            resamples: 0,
            seed: 0,
        },
    );
    // Individual tier (L1–L3): (8 + 2) / 20 = 1/2; collective tier (L4–L7):
    // (4 + 1) / 11 = 5/11, each pooled over its answers, so L4's single answer
    // weighs one answer, not a level; gap = 1/2 − 5/11 = 1/22.
    let f = m.figure("transition", TRANSITION_KEY).expect("gap figure");
    assert_eq!(f.n, 31);
    assert_eq!(m.figure("group_level", "L4").unwrap().n, 1);
    let individual = m.figure("tier", "individual (L1–L3)").unwrap();
    let collective = m.figure("tier", "collective (L4–L7)").unwrap();
    assert_eq!((individual.n, collective.n), (20, 11));
    assert!((individual.first.mean - 0.5).abs() < 1e-12);
    assert!((collective.first.mean - 5.0 / 11.0).abs() < 1e-12);
    assert!(
        (f.first.mean - 1.0 / 22.0).abs() < 1e-12,
        "{}",
        f.first.mean
    );
    assert!(
        (f.second.mean - 1.0 / 22.0).abs() < 1e-12,
        "{}",
        f.second.mean
    );
    assert_eq!(f.first_name, "accuracy_gap");
    // The per-level accuracies the gap is built from.
    assert!((m.figure("group_level", "L1").unwrap().first.mean - 0.8).abs() < 1e-12);
    assert!((m.figure("group_level", "L5").unwrap().first.mean - 0.4).abs() < 1e-12);

    // With a collective tier of fewer than 10 answers there is no gap: one
    // answer at L4 alone cannot decide it.
    let mut small = loaded.clone();
    small
        .trees
        .retain(|t| t.nodes[0].tags.group_level != Some(5));
    let m = compute(
        &small,
        BootstrapSettings {
            resamples: 0,
            seed: 0,
        },
    );
    assert_eq!(m.figure("tier", "collective (L4–L7)").unwrap().n, 1);
    assert!(m.figure("transition", TRANSITION_KEY).is_none());

    // Without any group level there is no gap figure at all.
    let mut only_individual = loaded.clone();
    only_individual.trees.truncate(4);
    let m = compute(
        &only_individual,
        BootstrapSettings {
            resamples: 0,
            seed: 0,
        },
    );
    assert!(m.figure("transition", TRANSITION_KEY).is_none());
}

#[test]
fn the_html_report_is_self_contained_escaped_and_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("ws.db")).unwrap();
    let mut trees = synthetic_trees(10);
    for (i, tree) in trees.iter_mut().enumerate() {
        for node in &mut tree.nodes {
            node.tags.group_level = Some((i % 7) as u8 + 1);
        }
    }
    let hostile = "<script>alert('x')</script>&\"run\"";
    for (id, subject) in [(hostile, "random"), ("first", "first-option")] {
        let subject = baseline(subject, 5).unwrap();
        let mut settings = run_settings(id);
        settings.subject = subject.name().into();
        block_on(run_stored_with(
            &store,
            &settings,
            &trees,
            subject.as_ref(),
            None,
            RunOptions::default(),
            &|_| {},
        ))
        .unwrap();
    }
    let settings = BootstrapSettings {
        resamples: 100,
        seed: 1,
    };
    let render = || {
        let metrics: Vec<_> = [hostile, "first"]
            .iter()
            .map(|id| compute(&load_run(&store, id).unwrap(), settings))
            .collect();
        html(&metrics).unwrap()
    };
    let page = render();
    assert_eq!(page, render(), "the same runs give the same bytes");
    assert!(page.starts_with("<!DOCTYPE html>"));
    for chart in [
        "accuracy by depth (both phases)",
        "accuracy by format",
        "CCF (phase-1 accuracy per depth)",
        "CRS",
        "accuracy by group level",
        "share of wrong choice answers by the reason of the chosen distractor",
    ] {
        assert!(
            page.contains(&format!(">\n{chart}\n</text>")),
            "chart {chart}"
        );
    }
    assert_eq!(page.matches("<svg").count(), 6);
    assert_eq!(page.matches("</svg>").count(), 6);
    // Bars and lines really are drawn: one rect per (run, category) plus the legend.
    assert!(page.matches("<rect").count() > 30);
    assert!(page.contains("<polyline"));
    // Nothing loads from anywhere.
    for banned in [
        "http://", "https://", "<link", "<img", "@import", "url(", "src=",
    ] {
        assert!(!page.contains(banned), "page contains {banned}");
    }
    // The hostile run name appears only escaped, in the tables and the legends.
    assert!(!page.contains("<script"));
    assert!(page.contains("&lt;script&gt;alert("));
    // The transition gap is reported (levels L1-L7 are all present).
    assert!(page.contains(TRANSITION_KEY));
}

/// Answers `[[A]]` to everything.
struct AlwaysA;

#[async_trait]
impl Subject for AlwaysA {
    fn name(&self) -> &str {
        "always-a"
    }
    async fn answer(&self, _: &Ask<'_>) -> Result<String, SubjectError> {
        Ok("[[A]]".into())
    }
}

#[test]
fn option_rotation_by_hand_with_a_subject_that_always_says_a() {
    // Two one-question trees, four options each: T1's correct option is the first
    // (original A), T2's the third (original C).
    let mut t1 = synthetic_trees(3).remove(2);
    t1.nodes.truncate(1);
    assert_eq!(t1.nodes[0].format, Format::Single);
    for o in &mut t1.nodes[0].options {
        o.child = None;
    }
    t1.id = "rot/t1".into();
    let mut t2 = t1.clone();
    t2.id = "rot/t2".into();
    let reason = t2.nodes[0].options[2].reason;
    t2.nodes[0].options[0].correct = false;
    t2.nodes[0].options[0].reason = reason;
    t2.nodes[0].options[2].correct = true;
    t2.nodes[0].options[2].reason = None;
    let trees = vec![t1, t2];

    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("ws.db")).unwrap();
    let seed = 9;
    let displays = rotation_displays(seed);
    let mut loaded = Vec::new();
    for (display, suffix) in &displays {
        let mut settings = run_settings(&format!("a{suffix}"));
        settings.seed = seed;
        let log = Mutex::new(Vec::new());
        let subject = Recording { log: &log };
        block_on(run_stored_with(
            &store,
            &settings,
            &trees,
            &subject,
            None,
            RunOptions {
                display: *display,
                jobs: 1,
            },
            &|_| {},
        ))
        .unwrap();
        // The subject saw the options in the displayed order, relabelled A-D.
        let shown = log.into_inner().unwrap();
        let order = display_order(*display, "rot/t1", &trees[0].nodes[0].id, 4);
        assert_eq!(
            shown[0],
            order
                .iter()
                .map(|&i| trees[0].nodes[0].options[i].text.clone())
                .collect::<Vec<_>>()
        );
        loaded.push(load_run(&store, &format!("a{suffix}")).unwrap());
    }
    // "A" is displayed position 0, i.e. original option order[0]: rotation k shows
    // original option k first. T1 (correct 0) is right under rot0 only, T2 (correct 2)
    // under rot2 only. The stored answer is the original label.
    let stored: Vec<String> = loaded.iter().map(|l| l.answers[0].parsed.clone()).collect();
    assert!(stored[1].contains("\"B\""), "{}", stored[1]);
    assert!(stored[3].contains("\"D\""), "{}", stored[3]);
    let shuffle1 = display_order(displays[4].0, "rot/t1", &trees[0].nodes[0].id, 4);
    let shuffle2 = display_order(displays[4].0, "rot/t2", &trees[1].nodes[0].id, 4);
    let mut sorted = shuffle1.clone();
    sorted.sort();
    assert_eq!(sorted, vec![0, 1, 2, 3]);
    let s = (f64::from(u8::from(shuffle1[0] == 0)) + f64::from(u8::from(shuffle2[0] == 2))) / 2.0;

    let pairs: Vec<_> = displays
        .iter()
        .map(|(d, _)| *d)
        .zip(loaded.iter())
        .collect();
    let figures = rotation_figures(&pairs);
    let get = |section: &str, key: &str| {
        figures
            .iter()
            .find(|f| f.section == section && f.key == key)
            .unwrap_or_else(|| panic!("{section}/{key}"))
    };
    let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
    for (key, acc) in [
        ("rot0", 0.5),
        ("rot1", 0.0),
        ("rot2", 0.5),
        ("rot3", 0.0),
        ("shuffle", s),
    ] {
        assert!(close(get("rotation", key).first.mean, acc), "{key}");
        assert_eq!(get("rotation", key).n, 2);
    }
    assert!(close(get("rotation", "mean").first.mean, (1.0 + s) / 5.0));
    // Chosen: always displayed A. Gold over the rotations: T1 at A, D, C, B and T2 at
    // C, B, A, D (two per position), plus the shuffle's two positions.
    let pos = |order: &[usize], correct: usize| order.iter().position(|&i| i == correct).unwrap();
    let mut gold = [2.0f64; 4];
    gold[pos(&shuffle1, 0)] += 1.0;
    gold[pos(&shuffle2, 2)] += 1.0;
    for (j, key) in ["A", "B", "C", "D"].iter().enumerate() {
        let f = get("position", key);
        assert!(
            close(f.first.mean, if j == 0 { 1.0 } else { 0.0 }),
            "{key} chosen"
        );
        assert!(close(f.second.mean, gold[j] / 10.0), "{key} gold");
    }
    // TVD = 1 - gold share of A; the largest gap is at A too.
    let bias = get("position", "bias");
    assert!(close(bias.first.mean, 1.0 - gold[0] / 10.0));
    assert!(close(bias.second.mean, 1.0 - gold[0] / 10.0));
    assert_eq!(bias.n, 10);
}

/// Always answers `[[A]]` and logs the option texts it was shown.
struct Recording<'a> {
    log: &'a Mutex<Vec<Vec<String>>>,
}

#[async_trait]
impl Subject for Recording<'_> {
    fn name(&self) -> &str {
        "always-a"
    }
    async fn answer(&self, ask: &Ask<'_>) -> Result<String, SubjectError> {
        let texts = ask
            .question
            .options
            .iter()
            .map(|(_, t)| t.clone())
            .collect();
        self.log.lock().unwrap().push(texts);
        AlwaysA.answer(ask).await
    }
}

#[test]
fn the_paper_tables_hold_hand_computed_figures_and_mark_small_groups() {
    use moviegraph::eval::tables::{paper_tables, Header};
    // Three trees of category A (5 answers each: 3, 2 and 4 right) and one of
    // category B (5 answers, 1 right).
    let mut trees = synthetic_trees(4);
    for (i, tree) in trees.iter_mut().enumerate() {
        for node in &mut tree.nodes {
            node.category.level1 = if i < 3 { "A" } else { "B" }.into();
        }
    }
    let pattern: [&[bool]; 4] = [
        &[true, true, true, false, false],
        &[true, false, true, false, false],
        &[true, true, true, true, false],
        &[false, false, false, true, false],
    ];
    let answers: Vec<EvalAnswer> = trees
        .iter()
        .zip(pattern)
        .flat_map(|(t, p)| answers_for(t, p))
        .collect();
    let loaded = LoadedRun {
        run: run_settings("tables"),
        trees,
        answers,
    };
    let m = compute(
        &loaded,
        BootstrapSettings {
            resamples: 0,
            seed: 0,
        },
    );
    let tables = paper_tables(std::slice::from_ref(&m));
    let ids: Vec<&str> = tables.iter().map(|t| t.id).collect();
    assert_eq!(ids, ["table4", "table5", "table6"]);
    let t4 = &tables[0];
    let heads: Vec<(&str, &str)> = t4
        .columns
        .iter()
        .map(|c| (c.group.as_str(), c.metric))
        .collect();
    assert_eq!(
        heads,
        [
            ("overall", "accuracy"),
            ("overall", "score"),
            ("A", "accuracy"),
            ("A", "score"),
            ("B", "accuracy"),
            ("B", "score")
        ]
    );
    assert_eq!(t4.rows.len(), 1);
    assert_eq!(t4.rows[0].subject, "random");
    let cell = |k: usize| t4.rows[0].cells[k].expect("a cell");
    // Overall: 10 of 20; A: 9 of 15; B: 1 of 5 (scores are 1 or 0 here).
    let expect = [
        (0.5, 20, false),
        (0.5, 20, false),
        (0.6, 15, false),
        (0.6, 15, false),
        (0.2, 5, true),
        (0.2, 5, true),
    ];
    for (k, (mean, n, small)) in expect.into_iter().enumerate() {
        let c = cell(k);
        assert!((c.estimate.mean - mean).abs() < 1e-12, "column {k}: {c:?}");
        assert_eq!((c.n, c.small), (n, small), "column {k}");
    }
    // Table 6 carries RDS, weighted RDS, CCF per depth and CRS, each a figure of the run.
    let t6 = &tables[2];
    let groups: Vec<&str> = t6.columns.iter().map(|c| c.group.as_str()).collect();
    assert_eq!(groups.first(), Some(&"RDS"));
    assert_eq!(groups.last(), Some(&"CRS"));
    assert!(groups.contains(&"CCF depth 1"), "{groups:?}");
    let rds = m.figure("tree", "RDS").unwrap();
    assert_eq!(t6.rows[0].cells[0].unwrap().estimate, rds.first);
    assert_eq!(t6.rows[0].cells[1].unwrap().estimate, rds.second);
    // The JSON carries the header, the tables and the runs.
    let json: serde_json::Value =
        serde_json::from_str(&report::json(std::slice::from_ref(&m))).unwrap();
    assert_eq!(json["tables"][0]["id"], "table4");
    assert_eq!(json["tables"][0]["rows"][0]["cells"][4]["small"], true);
    assert_eq!(json["header"]["subjects"], serde_json::json!(["random"]));
    assert_eq!(json["runs"][0]["run"], "tables");
    // No trees provenance looked up: the report does not claim an offline baseline.
    assert!(!Header::of(std::slice::from_ref(&m)).offline_baseline);
}
