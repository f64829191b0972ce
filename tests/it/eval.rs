//! The two-phase evaluation on a hand-built tree set with a scripted subject whose every
//! answer is known: every metric is computed by hand below (see docs/evaluation.md for
//! the same example worked in prose).

use std::collections::HashMap;

use moviegraph::eval::metrics::{compute, BootstrapSettings, Dependency, RunMetrics};
use moviegraph::eval::prompt::Role;
use moviegraph::eval::protocol::{load_run, run_stored, walk_tree, LoadedRun, WalkSettings};
use moviegraph::eval::report;
use moviegraph::eval::subject::{baseline, ScriptedJudge, ScriptedSubject, Subject};
use moviegraph::eval::synth::synthetic_trees;
use moviegraph::store::{EvalRun, Store};
use moviegraph::trees::schema::*;
use moviegraph::trees::validate::{is_valid, validate};

fn opt(
    label: &str,
    text: &str,
    correct: bool,
    reason: Option<DistractorReason>,
    child: Option<&str>,
) -> AnswerOption {
    AnswerOption {
        label: label.into(),
        text: text.into(),
        correct,
        reason,
        child: child.map(Into::into),
    }
}

#[allow(clippy::too_many_arguments)]
fn node(
    id: &str,
    depth: u32,
    parent: Option<(&str, Trigger, &str)>,
    format: Format,
    category: (&str, &str),
    question_type: QuestionType,
    group_level: Option<u8>,
) -> Node {
    let (parent, trigger, premise) = match parent {
        Some((p, t, premise)) => (Some(p.to_string()), Some(t), Some(premise.to_string())),
        None => (None, None, None),
    };
    Node {
        id: id.into(),
        depth,
        parent,
        trigger,
        premise,
        question: format!("Question {id}?"),
        format,
        options: Vec::new(),
        reference: None,
        open_branches: OpenBranches::default(),
        category: Category {
            level1: category.0.into(),
            level2: category.1.into(),
        },
        question_type,
        tags: Tags {
            group_level,
            ..Tags::default()
        },
        derived_from: vec!["ms:x".into()],
        context: Context {
            blocks: vec![1],
            excerpt: format!("MARA\nI never touched the key. ({id})"),
            keyframes: vec![
                format!("keyframes/{id}_a.jpg"),
                format!("keyframes/{id}_b.jpg"),
            ],
        },
    }
}

const TOM: (&str, &str) = ("Theory of Mind", "Belief Tracking");
const EMO: (&str, &str) = ("Emotion", "Emotion Inference");
use DistractorReason::*;
use QuestionType::*;

/// T1 (film f1): single n1 (A → n2 open, B → n3 multi, C); open n2 (correct → n5,
/// incorrect → n4); n3, n4, n5 leaves.
fn tree_one() -> Tree {
    let mut n1 = node("n1", 1, None, Format::Single, TOM, BasicTom, None);
    n1.options = vec![
        opt("A", "She believes the key is lost", true, None, Some("n2")),
        opt(
            "B",
            "She wants to leave town",
            false,
            Some(LaterEvent),
            Some("n3"),
        ),
        opt("C", "She suspects June", false, Some(OtherCharacter), None),
    ];
    let mut n2 = node(
        "n2",
        2,
        Some((
            "n1",
            Trigger::Option { label: "A".into() },
            "She believes the key is lost",
        )),
        Format::Open,
        TOM,
        ComplexReasoning,
        None,
    );
    n2.reference = Some("Because Quinton told her so".into());
    n2.open_branches = OpenBranches {
        correct: Some("n5".into()),
        incorrect: Some("n4".into()),
    };
    let mut n3 = node(
        "n3",
        2,
        Some((
            "n1",
            Trigger::Option { label: "B".into() },
            "She wants to leave town",
        )),
        Format::Multi,
        EMO,
        ComplexReasoning,
        None,
    );
    n3.options = vec![
        opt("A", "Teo", true, None, None),
        opt("B", "June", true, None, None),
        opt("C", "Hollis", false, Some(NotTheCause), None),
    ];
    let mut n4 = node(
        "n4",
        3,
        Some(("n2", Trigger::OpenIncorrect, "She found it herself")),
        Format::Single,
        TOM,
        BasicTom,
        None,
    );
    n4.options = vec![
        opt("A", "Yes", true, None, None),
        opt("B", "No", false, Some(UnsupportedMotive), None),
    ];
    let mut n5 = node(
        "n5",
        3,
        Some(("n2", Trigger::OpenCorrect, "Because Quinton told her so")),
        Format::Single,
        TOM,
        BasicTom,
        None,
    );
    n5.options = vec![
        opt("A", "Yes", false, Some(NotTheCause), None),
        opt("B", "No", true, None, None),
    ];
    Tree {
        id: "f1/t1".into(),
        film: "f1".into(),
        anchor: Anchor {
            kind: AnchorKind::MentalState,
            elements: vec!["ms:x".into()],
        },
        nodes: vec![n1, n2, n3, n4, n5],
    }
}

/// T2 (film f2, group level 5): multi m1 (A ✓ → m2, B ✓, C ✗ → m3, D ✗ → m4);
/// m3 (B ✗ → m5); m2, m4 (open), m5 leaves.
fn tree_two() -> Tree {
    let g = Some(5);
    let mut m1 = node("m1", 1, None, Format::Multi, EMO, ComplexReasoning, g);
    m1.options = vec![
        opt("A", "He is ashamed", true, None, Some("m2")),
        opt("B", "He is afraid", true, None, None),
        opt(
            "C",
            "He is angry at June",
            false,
            Some(EffectForCause),
            Some("m3"),
        ),
        opt(
            "D",
            "He plans to sell the house",
            false,
            Some(LaterEvent),
            Some("m4"),
        ),
    ];
    let mut m2 = node(
        "m2",
        2,
        Some(("m1", Trigger::Option { label: "A".into() }, "He is ashamed")),
        Format::Single,
        EMO,
        BasicTom,
        g,
    );
    m2.options = vec![
        opt("A", "Yes", true, None, None),
        opt("B", "No", false, Some(NotTheCause), None),
    ];
    let mut m3 = node(
        "m3",
        2,
        Some((
            "m1",
            Trigger::Option { label: "C".into() },
            "He is angry at June",
        )),
        Format::Single,
        TOM,
        BasicTom,
        g,
    );
    m3.options = vec![
        opt("A", "Yes", true, None, None),
        opt("B", "No", false, Some(OtherCharacter), Some("m5")),
    ];
    let mut m4 = node(
        "m4",
        2,
        Some((
            "m1",
            Trigger::Option { label: "D".into() },
            "He plans to sell the house",
        )),
        Format::Open,
        TOM,
        ComplexReasoning,
        g,
    );
    m4.reference = Some("He wanted revenge".into());
    let mut m5 = node(
        "m5",
        3,
        Some(("m3", Trigger::Option { label: "B".into() }, "No")),
        Format::Single,
        TOM,
        BasicTom,
        g,
    );
    m5.options = vec![
        opt("A", "Yes", true, None, None),
        opt("B", "No", false, Some(NotTheCause), None),
    ];
    Tree {
        id: "f2/t1".into(),
        film: "f2".into(),
        anchor: Anchor {
            kind: AnchorKind::CausalChain,
            elements: vec!["ev:y".into()],
        },
        nodes: vec![m1, m2, m3, m4, m5],
    }
}

fn replies() -> Vec<((String, String), String)> {
    [
        // T1 goes right: A ✓, open answer with ROUGE-L 0.75 ✓ (→ correct branch n5), B ✓.
        ("f1/t1", "n1", "[[A]]"),
        ("f1/t1", "n2", "Answer: [[Quinton told her]]"),
        ("f1/t1", "n5", "[[B]]"),
        // Phase 2 of T1: n3 half right (Jaccard 1/2), n4 unparseable.
        ("f1/t1", "n3", "[[A]]"),
        ("f1/t1", "n4", "I refuse to answer."),
        // T2 goes wrong: {A, D} (Jaccard 1/3), first chosen distractor D → open m4,
        // ROUGE-L 2/3 < 0.7 ✗, m4 has no branch: the path ends.
        ("f2/t1", "m1", "I think A and D. [[A, D]]"),
        ("f2/t1", "m4", "[[He wanted money]]"),
        // Phase 2 of T2, by depth then file order: m2 ✓, m3 ✗ (bare letter), m5 ✓.
        ("f2/t1", "m2", "[[A]]"),
        ("f2/t1", "m3", "B"),
        ("f2/t1", "m5", "[[A]]"),
    ]
    .into_iter()
    .map(|(t, n, r)| ((t.to_string(), n.to_string()), r.to_string()))
    .collect()
}

fn run_settings(id: &str, subject: &str) -> EvalRun {
    EvalRun {
        id: id.into(),
        subject: subject.into(),
        judge: None,
        text_only: false,
        seed: 0,
        source: "hand-built".into(),
    }
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(f)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

fn fig(m: &RunMetrics, section: &str, key: &str) -> (usize, f64, f64) {
    let f = m
        .figure(section, key)
        .unwrap_or_else(|| panic!("no figure {section}/{key}"));
    (f.n, f.first.mean, f.second.mean)
}

fn assert_fig(m: &RunMetrics, section: &str, key: &str, n: usize, first: f64, second: f64) {
    let (got_n, a, b) = fig(m, section, key);
    assert_eq!(got_n, n, "{section}/{key} n");
    assert!(close(a, first), "{section}/{key} first: {a} != {first}");
    assert!(close(b, second), "{section}/{key} second: {b} != {second}");
}

#[test]
fn the_hand_built_trees_are_valid() {
    for tree in [tree_one(), tree_two()] {
        let problems = validate(&tree);
        assert!(is_valid(&problems), "{problems:?}");
    }
}

#[test]
fn every_metric_equals_its_hand_computed_value() {
    let store = Store::open_in_memory().unwrap();
    let subject = ScriptedSubject::new(replies());
    let trees = vec![tree_one(), tree_two()];
    let done = block_on(run_stored(
        &store,
        &run_settings("hand", "scripted"),
        &trees,
        &subject,
        None,
        &mut |_, _| {},
    ))
    .unwrap();
    assert_eq!((done.trees, done.answers, done.asked), (2, 10, 10));
    assert_eq!(subject.calls(), 10);

    let loaded = load_run(&store, "hand").unwrap();
    let order: Vec<(&str, u8)> = loaded
        .answers
        .iter()
        .map(|a| (a.node_id.as_str(), a.phase))
        .collect();
    assert_eq!(
        order,
        vec![
            ("n1", 1),
            ("n2", 1),
            ("n5", 1),
            ("n3", 2),
            ("n4", 2),
            ("m1", 1),
            ("m4", 1),
            ("m2", 2),
            ("m3", 2),
            ("m5", 2),
        ]
    );
    let m = compute(
        &loaded,
        BootstrapSettings {
            resamples: 200,
            seed: 3,
        },
    );
    assert_eq!((m.answers, m.unparseable, m.trees_answered), (10, 1, 2));
    // Scores: n1 1, n2 0.75, n5 1, n3 0.5, n4 0 | m1 1/3, m4 2/3, m2 1, m3 0, m5 1.
    assert_fig(&m, "all", "all", 10, 0.5, 0.625);
    assert_fig(&m, "phase", "1", 5, 0.6, 0.75);
    assert_fig(&m, "phase", "2", 5, 0.4, 0.5);
    assert_fig(&m, "format", "single", 6, 4.0 / 6.0, 4.0 / 6.0);
    assert_fig(&m, "format", "multi", 2, 0.0, (0.5 + 1.0 / 3.0) / 2.0);
    assert_fig(&m, "format", "open", 2, 0.5, (0.75 + 2.0 / 3.0) / 2.0);
    assert_fig(&m, "depth", "1", 2, 0.5, (1.0 + 1.0 / 3.0) / 2.0);
    assert_fig(
        &m,
        "depth",
        "2",
        5,
        0.4,
        (0.75 + 0.5 + 2.0 / 3.0 + 1.0) / 5.0,
    );
    assert_fig(&m, "depth", "3", 3, 2.0 / 3.0, 2.0 / 3.0);
    // basic_tom: n1 n4 n5 m2 m3 m5; complex: n2 n3 m1 m4.
    assert_fig(&m, "type", "basic_tom", 6, 4.0 / 6.0, 4.0 / 6.0);
    assert_fig(
        &m,
        "type",
        "complex_reasoning",
        4,
        0.25,
        (0.75 + 0.5 + 1.0 / 3.0 + 2.0 / 3.0) / 4.0,
    );
    // Emotion: n3 m1 m2; ToM: the other seven.
    assert_fig(
        &m,
        "category",
        "Emotion / Emotion Inference",
        3,
        1.0 / 3.0,
        (0.5 + 1.0 / 3.0 + 1.0) / 3.0,
    );
    assert_fig(
        &m,
        "category",
        "Theory of Mind / Belief Tracking",
        7,
        4.0 / 7.0,
        (1.0 + 0.75 + 1.0 + 0.0 + 2.0 / 3.0 + 0.0 + 1.0) / 7.0,
    );
    assert_fig(&m, "film", "f1", 5, 0.6, 3.25 / 5.0);
    assert_fig(&m, "film", "f2", 5, 0.4, 3.0 / 5.0);
    assert_fig(&m, "group_level", "L5", 5, 0.4, 3.0 / 5.0);
    // CCF: depth 1 {n1 ✓, m1 ✗}, depth 2 {n2 ✓ 0.75, m4 ✗ 2/3}, depth 3 {n5 ✓}.
    assert_fig(&m, "ccf", "1", 2, 0.5, (1.0 + 1.0 / 3.0) / 2.0);
    assert_fig(&m, "ccf", "2", 2, 0.5, (0.75 + 2.0 / 3.0) / 2.0);
    assert_fig(&m, "ccf", "3", 1, 1.0, 1.0);
    // RDS: T1 L = 3, T2 L = 2 → 2.5. Weighted RDS: T1 (1+2+3)/3 = 2, T2 0 → 1.
    assert_fig(&m, "tree", "RDS", 2, 2.5, 1.0);
    // CRS: T1 0/2 (score 0.25), T2 2/3 (score 2/3) → 1/3 and 11/24.
    assert_fig(&m, "tree", "CRS", 2, 1.0 / 3.0, 11.0 / 24.0);
    assert_eq!(
        m.dependency,
        Dependency {
            fully_correct: 2,    // n1→n2, n2→n5
            local_error: 2,      // n1→n3, n2→n4
            apparent_success: 2, // m1→m2, m3→m5
            full_error: 2,       // m1→m3, m1→m4
        }
    );
    // Wrong choice answers: n3 chose no distractor, n4 unparseable, m1 chose D
    // (later_event), m3 chose B (other_character).
    assert_eq!(
        m.distractors,
        vec![
            ("later_event".to_string(), 1),
            ("none".to_string(), 1),
            ("other_character".to_string(), 1),
            ("unparseable".to_string(), 1),
        ]
    );
    // Intervals bracket the estimate.
    for f in &m.figures {
        assert!(
            f.first.lo <= f.first.mean + 1e-12 && f.first.mean <= f.first.hi + 1e-12,
            "{f:?}"
        );
    }
    // The unparseable answer is kept verbatim.
    let n4 = loaded.answers.iter().find(|a| a.node_id == "n4").unwrap();
    assert_eq!(n4.raw, "I refuse to answer.");
    assert!(!n4.correct);
}

#[test]
fn one_conversation_per_tree_with_premises_and_images() {
    let subject = ScriptedSubject::new(replies());
    let walk = block_on(walk_tree(
        &tree_one(),
        &subject,
        None,
        WalkSettings::default(),
        &HashMap::new(),
        &mut |_| Ok(()),
    ))
    .unwrap();
    // system + 5 × (question, answer)
    assert_eq!(walk.conversation.len(), 11);
    assert_eq!(walk.conversation[0].role, Role::System);
    let seen = subject.conversations();
    assert_eq!(seen.len(), 5);
    // Each call sees the whole conversation so far, ending with its question.
    for (i, conversation) in seen.iter().enumerate() {
        assert_eq!(conversation.as_slice(), &walk.conversation[..2 + 2 * i]);
    }
    let n3_question = &walk.conversation[7];
    assert!(
        n3_question.text.starts_with(
            "Thought experiment. Assuming the previous answer was \"She wants to leave town\" (to the question \"Question n1?\")"
        ),
        "{}",
        n3_question.text
    );
    assert!(n3_question.text.contains("A. Teo\nB. June\nC. Hollis\n"));
    assert!(n3_question.text.contains("[[A, C]]"));
    assert_eq!(
        n3_question.images,
        vec!["keyframes/n3_a.jpg", "keyframes/n3_b.jpg"]
    );
    // Phase-1 questions carry no premise.
    assert!(walk.conversation[1].text.starts_with("Screenplay excerpt:"));
    assert_eq!(walk.conversation[4].text, "Answer: [[Quinton told her]]");

    let text_only = block_on(walk_tree(
        &tree_one(),
        &ScriptedSubject::new(replies()),
        None,
        WalkSettings {
            text_only: true,
            ..WalkSettings::default()
        },
        &HashMap::new(),
        &mut |_| Ok(()),
    ))
    .unwrap();
    assert!(text_only.conversation.iter().all(|m| m.images.is_empty()));
    assert!(!text_only.conversation[1].text.contains("keyframe"));
}

#[test]
fn a_judge_changes_scores_and_the_path() {
    // With the judge's 0.5, n2 scores 0.7·0.5 + 0.3·0.75 = 0.575 < 0.7: wrong, so the
    // path takes the incorrect branch n4 (whose reply is unparseable) instead of n5.
    let judge = ScriptedJudge::new([("Quinton told her".to_string(), 0.5)]);
    let walk = block_on(walk_tree(
        &tree_one(),
        &ScriptedSubject::new(replies()),
        Some(&judge),
        WalkSettings::default(),
        &HashMap::new(),
        &mut |_| Ok(()),
    ))
    .unwrap();
    let path: Vec<&str> = walk
        .answers
        .iter()
        .filter(|a| a.phase == 1)
        .map(|a| a.node_id.as_str())
        .collect();
    assert_eq!(path, vec!["n1", "n2", "n4"]);
    let n2 = &walk.answers[1];
    assert!(close(n2.score, 0.575) && !n2.correct);
    assert_eq!(n2.judge, Some(0.5));
    assert!(close(n2.rouge.unwrap(), 0.75));
    assert_eq!(judge.calls(), 1, "the judge grades open answers only");
}

#[test]
fn a_killed_run_resumes_to_the_same_report_without_repeating_a_call() {
    let dir = tempfile::tempdir().unwrap();
    let trees = vec![tree_one(), tree_two()];
    let reference = {
        let store = Store::open(&dir.path().join("whole.db")).unwrap();
        let subject = ScriptedSubject::new(replies());
        block_on(run_stored(
            &store,
            &run_settings("r", "scripted"),
            &trees,
            &subject,
            None,
            &mut |_, _| {},
        ))
        .unwrap();
        (
            report::table(&[compute(
                &load_run(&store, "r").unwrap(),
                BootstrapSettings::default(),
            )]),
            subject.conversations(),
        )
    };
    let path = dir.path().join("killed.db");
    {
        let store = Store::open(&path).unwrap();
        // Dies on its 8th call: the second tree's first phase-2 question (m2).
        let dying = ScriptedSubject::new(replies()).failing_after(7);
        let err = block_on(run_stored(
            &store,
            &run_settings("r", "scripted"),
            &trees,
            &dying,
            None,
            &mut |_, _| {},
        ))
        .unwrap_err();
        assert!(err.to_string().contains("f2/t1/m2"), "{err}");
        assert_eq!(load_run(&store, "r").unwrap().answers.len(), 7);
    }
    let store = Store::open(&path).unwrap();
    let counting = ScriptedSubject::new(replies());
    let done = block_on(run_stored(
        &store,
        &run_settings("r", "scripted"),
        &trees,
        &counting,
        None,
        &mut |_, _| {},
    ))
    .unwrap();
    assert_eq!(
        counting.calls(),
        3,
        "only the three missing answers are asked"
    );
    assert_eq!((done.answers, done.asked), (10, 3));
    // The resumed calls saw exactly the conversations of the uninterrupted run.
    assert_eq!(counting.conversations(), reference.1[7..].to_vec());
    let resumed = report::table(&[compute(
        &load_run(&store, "r").unwrap(),
        BootstrapSettings::default(),
    )]);
    assert_eq!(resumed, reference.0);
    // Resuming a finished run asks nothing.
    let idle = ScriptedSubject::new(replies());
    block_on(run_stored(
        &store,
        &run_settings("r", "scripted"),
        &trees,
        &idle,
        None,
        &mut |_, _| {},
    ))
    .unwrap();
    assert_eq!(idle.calls(), 0);
    // Resuming with other settings or other trees is refused.
    let mut other = run_settings("r", "scripted");
    other.text_only = true;
    assert!(block_on(run_stored(
        &store,
        &other,
        &trees,
        &idle,
        None,
        &mut |_, _| {}
    ))
    .is_err());
    assert!(block_on(run_stored(
        &store,
        &run_settings("r", "scripted"),
        &trees[..1],
        &idle,
        None,
        &mut |_, _| {}
    ))
    .is_err());
}

#[test]
fn reports_are_byte_identical_and_name_the_fallback() {
    let store = Store::open_in_memory().unwrap();
    let trees = vec![tree_one(), tree_two()];
    block_on(run_stored(
        &store,
        &run_settings("a", "scripted"),
        &trees,
        &ScriptedSubject::new(replies()),
        None,
        &mut |_, _| {},
    ))
    .unwrap();
    let loaded = load_run(&store, "a").unwrap();
    let one = compute(&loaded, BootstrapSettings::default());
    let two = compute(&loaded, BootstrapSettings::default());
    for render in [report::table, report::json, report::csv] {
        assert_eq!(
            render(std::slice::from_ref(&one)),
            render(std::slice::from_ref(&two))
        );
    }
    let table = report::table(std::slice::from_ref(&one));
    assert!(table.contains("judge: none (ROUGE-L fallback"), "{table}");
    assert!(table.contains("run a: subject scripted"));
    assert!(report::json(std::slice::from_ref(&one)).contains("ROUGE-L fallback"));
    let csv = report::csv(std::slice::from_ref(&one));
    assert!(csv.starts_with("run,section,group,metric,n,mean,lo,hi\n"));
    assert!(csv.contains("a,all,all,accuracy,10,0.500000,"));
    assert!(csv.contains("a,tree,RDS,RDS,2,2.500000,"));
    // Another bootstrap seed moves the intervals, not the estimates.
    let other = compute(
        &loaded,
        BootstrapSettings {
            resamples: 1000,
            seed: 99,
        },
    );
    assert_eq!(other.figure("all", "all").unwrap().first.mean, 0.5);
}

fn run_baseline(store: &Store, name: &str, trees: &[Tree]) -> LoadedRun {
    let subject: Box<dyn Subject> = baseline(name, 11).unwrap();
    let mut settings = run_settings(name, name);
    settings.seed = 11;
    block_on(run_stored(
        store,
        &settings,
        trees,
        subject.as_ref(),
        None,
        &mut |_, _| {},
    ))
    .unwrap();
    load_run(store, name).unwrap()
}

#[test]
fn the_synthetic_trees_are_valid() {
    for tree in synthetic_trees(12) {
        let problems = validate(&tree);
        assert!(is_valid(&problems), "{}: {problems:?}", tree.id);
        assert_eq!(tree.nodes.len(), 15);
    }
}

#[test]
fn random_accuracy_is_close_to_its_theoretical_value() {
    // Synthetic choice questions have four options: single accuracy 1/4; multi has
    // two correct options and the random subject draws one of the 15 non-empty subsets
    // uniformly, so its strict accuracy is 1/15.
    let store = Store::open_in_memory().unwrap();
    let trees = synthetic_trees(400);
    let loaded = run_baseline(&store, "random", &trees);
    let m = compute(&loaded, BootstrapSettings::default());
    let (n_single, single, _) = fig(&m, "format", "single");
    let (n_multi, multi, _) = fig(&m, "format", "multi");
    assert!(n_single > 1500 && n_multi > 1500, "{n_single} {n_multi}");
    // Within four binomial standard errors.
    let se = |p: f64, n: usize| (p * (1.0 - p) / n as f64).sqrt();
    assert!(
        (single - 0.25).abs() < 4.0 * se(0.25, n_single),
        "single {single}"
    );
    assert!(
        (multi - 1.0 / 15.0).abs() < 4.0 * se(1.0 / 15.0, n_multi),
        "multi {multi}"
    );
    // Its figures appear with intervals in the report.
    let f = m.figure("format", "multi").unwrap();
    assert!(
        f.first.lo < f.first.mean && f.first.mean < f.first.hi,
        "{f:?}"
    );
    let table = report::table(&[m]);
    assert!(table.contains("run random: subject random"), "{table}");
}

#[test]
fn the_baselines_run_offline_side_by_side() {
    let store = Store::open_in_memory().unwrap();
    let trees = synthetic_trees(30);
    let metrics: Vec<RunMetrics> = ["random", "first-option", "lexical"]
        .iter()
        .map(|name| {
            compute(
                &run_baseline(&store, name, &trees),
                BootstrapSettings::default(),
            )
        })
        .collect();
    // first-option always answers A: right on every single question (A is the correct
    // option there), wrong on every multi question (two options are correct).
    let first = &metrics[1];
    assert_eq!(fig(first, "format", "single").1, 1.0);
    assert_eq!(fig(first, "format", "multi").1, 0.0);
    // Every tree is answered completely by every baseline.
    for m in &metrics {
        assert_eq!(m.answers, 30 * 15);
    }
    let table = report::table(&metrics);
    let header = table.lines().find(|l| l.starts_with("section")).unwrap();
    assert!(
        header.contains("random (random)")
            && header.contains("first-option (first-option)")
            && header.contains("lexical (lexical)"),
        "{header}"
    );
}

#[test]
fn the_text_only_ablation_reports_the_drop() {
    let store = Store::open_in_memory().unwrap();
    let trees = vec![tree_one(), tree_two()];
    block_on(run_stored(
        &store,
        &run_settings("with", "scripted"),
        &trees,
        &ScriptedSubject::new(replies()),
        None,
        &mut |_, _| {},
    ))
    .unwrap();
    // Without keyframes the subject now misses n1 ([[B]] → n3 on the path, wrong), so
    // T1 has n1 ✗, n3 ✗, n2 ✓, n4 ✗, n5 ✓ and the run 4/10 = 0.4 against 0.5.
    let mut blind: Vec<((String, String), String)> = replies();
    blind[0].1 = "[[B]]".into();
    let mut settings = run_settings("without", "scripted");
    settings.text_only = true;
    block_on(run_stored(
        &store,
        &settings,
        &trees,
        &ScriptedSubject::new(blind),
        None,
        &mut |_, _| {},
    ))
    .unwrap();
    let with = compute(
        &load_run(&store, "with").unwrap(),
        BootstrapSettings::default(),
    );
    let without = compute(
        &load_run(&store, "without").unwrap(),
        BootstrapSettings::default(),
    );
    assert!(close(fig(&without, "all", "all").1, 0.4));
    let table = report::ablation_table(&with, &without);
    let all = table.lines().find(|l| l.starts_with("all ")).unwrap();
    assert!(
        all.ends_with("0.500           0.400      +0.100"),
        "{table}"
    );
    // T2 is unchanged: its group level shows no drop.
    let level = table
        .lines()
        .find(|l| l.starts_with("group_level"))
        .unwrap();
    assert!(level.ends_with("+0.000"), "{table}");
}
