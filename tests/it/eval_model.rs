//! The model-backed subject and judge over real HTTP against the loopback server: a
//! hand-built tree set whose every reply is scripted, every metric checked against its
//! value worked by hand in the comments (docs/evaluation.md, "A worked example with a
//! judge", has the same numbers), the conversation the server received, keyframes as
//! image parts, and `eval run` killed mid-run and resumed through the binary.

use std::collections::HashMap;
use std::path::Path;
use std::process::{Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::common::llm::*;
use moviegraph::eval::metrics::{compute, BootstrapSettings, RunMetrics};
use moviegraph::eval::model::{ModelJudge, ModelSubject};
use moviegraph::eval::protocol::{load_run, run_stored};
use moviegraph::eval::synth::synthetic_trees;
use moviegraph::llm::types::base64;
use moviegraph::llm::{LlmOptions, ModelConfig};
use moviegraph::store::{EvalRun, Store};
use moviegraph::trees::jsonl::save_trees;
use moviegraph::trees::schema::*;
use moviegraph::trees::validate::{is_valid, validate};
use serde_json::Value;
use sha2::{Digest, Sha256};

use DistractorReason::*;

fn opt(label: &str, text: &str, correct: bool, reason: Option<DistractorReason>) -> AnswerOption {
    AnswerOption {
        label: label.into(),
        text: text.into(),
        correct,
        reason,
        child: None,
    }
}

fn to(mut option: AnswerOption, child: &str) -> AnswerOption {
    option.child = Some(child.into());
    option
}

/// A node whose question is `Question <id>?` (the scripted server reads the id back
/// from it) with two keyframes, `kf/<id>_a.jpg` and `kf/<id>_b.png`.
fn node(id: &str, depth: u32, parent: Option<(&str, Trigger, &str)>, format: Format) -> Node {
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
            level1: "Theory of Mind".into(),
            level2: "Belief Tracking".into(),
        },
        question_type: QuestionType::BasicTom,
        tags: Tags::default(),
        derived_from: vec!["ms:x".into()],
        context: Context {
            blocks: vec![1],
            excerpt: format!("MARA\nI never touched the key. ({id})"),
            keyframes: vec![format!("kf/{id}_a.jpg"), format!("kf/{id}_b.png")],
        },
    }
}

fn tree(id: &str, film: &str, nodes: Vec<Node>) -> Tree {
    Tree {
        id: id.into(),
        film: film.into(),
        anchor: Anchor {
            kind: AnchorKind::CausalChain,
            elements: vec!["ev:x".into()],
        },
        nodes,
    }
}

/// T1 (the path that goes right): r1 single (A ✓ → r2, B ✗ → r3, C ✗); r2 open
/// (correct → r4, incorrect → r5); r3 single; r4 multi (A ✓, B ✓, C ✗, D ✗); r5 open.
fn tree_right() -> Tree {
    let mut r1 = node("r1", 1, None, Format::Single);
    r1.options = vec![
        to(opt("A", "She believes the key is lost", true, None), "r2"),
        to(
            opt("B", "She wants to leave town", false, Some(LaterEvent)),
            "r3",
        ),
        opt("C", "She suspects June", false, Some(OtherCharacter)),
    ];
    let a = Trigger::Option { label: "A".into() };
    let mut r2 = node(
        "r2",
        2,
        Some(("r1", a, "She believes the key is lost")),
        Format::Open,
    );
    r2.reference = Some("Because Quinton told her so".into());
    r2.open_branches = OpenBranches {
        correct: Some("r4".into()),
        incorrect: Some("r5".into()),
    };
    let b = Trigger::Option { label: "B".into() };
    let mut r3 = node(
        "r3",
        2,
        Some(("r1", b, "She wants to leave town")),
        Format::Single,
    );
    r3.options = vec![
        opt("A", "Teo", true, None),
        opt("B", "June", false, Some(OtherCharacter)),
    ];
    let mut r4 = node(
        "r4",
        3,
        Some(("r2", Trigger::OpenCorrect, "Because Quinton told her so")),
        Format::Multi,
    );
    r4.options = vec![
        opt("A", "She trusts Quinton", true, None),
        opt("B", "She fears Hollis", true, None),
        opt("C", "She wants the reward", false, Some(NotTheCause)),
        opt("D", "She sold the boat", false, Some(LaterEvent)),
    ];
    let mut r5 = node(
        "r5",
        3,
        Some(("r2", Trigger::OpenIncorrect, "She found the key herself")),
        Format::Open,
    );
    r5.reference = Some("She hid the key in the boat".into());
    tree("f1/t1", "f1", vec![r1, r2, r3, r4, r5])
}

/// T2 (the path that goes wrong and follows a distractor): s1 multi (A ✓ → s2, B ✓,
/// C ✗ → s3, D ✗ → s4); s2, s3 (A ✓, B ✗ → s5), s4 single; s5 open.
fn tree_wrong() -> Tree {
    let mut s1 = node("s1", 1, None, Format::Multi);
    s1.options = vec![
        to(opt("A", "He is ashamed", true, None), "s2"),
        opt("B", "He is afraid", true, None),
        to(
            opt("C", "He is angry at June", false, Some(EffectForCause)),
            "s3",
        ),
        to(
            opt("D", "He plans to sell the house", false, Some(LaterEvent)),
            "s4",
        ),
    ];
    let yes_no = |reason| {
        vec![
            opt("A", "Yes", true, None),
            opt("B", "No", false, Some(reason)),
        ]
    };
    let trig = |label: &str| Trigger::Option {
        label: label.into(),
    };
    let mut s2 = node(
        "s2",
        2,
        Some(("s1", trig("A"), "He is ashamed")),
        Format::Single,
    );
    s2.options = yes_no(NotTheCause);
    let mut s3 = node(
        "s3",
        2,
        Some(("s1", trig("C"), "He is angry at June")),
        Format::Single,
    );
    s3.options = yes_no(OtherCharacter);
    s3.options[1].child = Some("s5".into());
    let mut s4 = node(
        "s4",
        2,
        Some(("s1", trig("D"), "He plans to sell the house")),
        Format::Single,
    );
    s4.options = yes_no(NotTheCause);
    let mut s5 = node("s5", 3, Some(("s3", trig("B"), "No")), Format::Open);
    s5.reference = Some("He wanted revenge".into());
    tree("f2/t1", "f2", vec![s1, s2, s3, s4, s5])
}

/// The subject's reply to each node, whatever the conversation.
fn subject_replies() -> HashMap<&'static str, &'static str> {
    HashMap::from([
        ("r1", "[[A]]"),
        ("r2", "Answer: [[Quinton told her]]"),
        ("r3", "[[B]]"),
        ("r4", "I think [[A, B]]"),
        ("r5", "[[She hid it on the boat]]"),
        ("s1", "[[A, C]]"),
        ("s2", "[[A]]"),
        ("s3", "B"),
        ("s4", "Nobody knows."),
        ("s5", "[[He wanted revenge.]]"),
    ])
}

/// A turn's text (content is a string, or parts of which the text ones count).
fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn messages(body: &Value) -> &Vec<Value> {
    body["messages"].as_array().expect("chat messages")
}

/// The scripted server: model `subj` answers by the node named in the last question;
/// model `judge` grades by the answer. Every body it answers is logged.
fn scripted_server(log: Arc<Mutex<Vec<Value>>>) -> LoopbackServer {
    let replies = subject_replies();
    let responder: Responder = Arc::new(move |req: &Request| {
        log.lock().unwrap().push(req.body.clone());
        let turns = messages(&req.body);
        if req.body["model"] == "judge" {
            let prompt = content_text(&turns[1]["content"]);
            let answer = prompt.rsplit("Answer to grade: ").next().unwrap_or("");
            return Reply::chat(match (answer, turns.len()) {
                ("Quinton told her", _) => "The meaning matches. [[1.0]]",
                ("She hid it on the boat", _) => "[[0.5]]",
                // No grade at first: the judge is re-asked once.
                ("He wanted revenge.", 2) => "A fine answer.",
                ("He wanted revenge.", 4) => "[[1]]",
                _ => "no such answer",
            });
        }
        let last = content_text(&turns.last().unwrap()["content"]);
        // The node's own question comes last: a counterfactual turn names its
        // parent's question first, in the premise.
        let id = last
            .rsplit("Question ")
            .next()
            .and_then(|rest| rest.split('?').next())
            .unwrap_or("");
        Reply::chat(replies.get(id).copied().unwrap_or("no such question"))
    });
    LoopbackServer::start(ServerOptions {
        responder,
        ..ServerOptions::default()
    })
    .unwrap()
}

fn run_settings(id: &str, text_only: bool) -> EvalRun {
    EvalRun {
        id: id.into(),
        subject: "subj".into(),
        judge: Some("judge".into()),
        text_only,
        seed: 0,
        source: "hand-built".into(),
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

fn assert_fig(m: &RunMetrics, section: &str, key: &str, n: usize, first: f64, second: f64) {
    let f = m
        .figure(section, key)
        .unwrap_or_else(|| panic!("no figure {section}/{key}"));
    assert_eq!(f.n, n, "{section}/{key} n");
    let (a, b) = (f.first.mean, f.second.mean);
    assert!(close(a, first), "{section}/{key} first: {a} != {first}");
    assert!(close(b, second), "{section}/{key} second: {b} != {second}");
}

fn keyframe_bytes(path: &str) -> Vec<u8> {
    format!("bytes of {path}").into_bytes()
}

#[test]
fn the_hand_built_trees_are_valid() {
    for tree in [tree_right(), tree_wrong()] {
        let problems = validate(&tree);
        assert!(is_valid(&problems), "{problems:?}");
    }
}

#[test]
fn a_model_subject_and_judge_give_the_hand_computed_metrics() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let server = scripted_server(Arc::clone(&log));
    let workspace = tempfile::tempdir().unwrap();
    let trees = vec![tree_right(), tree_wrong()];
    // Every keyframe exists except kf/r2_b.png.
    for tree in &trees {
        for node in &tree.nodes {
            for path in &node.context.keyframes {
                if path != "kf/r2_b.png" {
                    let file = workspace.path().join(path);
                    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
                    std::fs::write(file, keyframe_bytes(path)).unwrap();
                }
            }
        }
    }
    let mut config = config_with("subj", &[&server.url()], 4, Duration::from_secs(30));
    config.models.insert(
        "judge".into(),
        ModelConfig::openai("judge", &[&server.url()]),
    );
    let llm = client(
        config,
        Store::open_in_memory().unwrap(),
        LlmOptions::default(),
    );
    let subject = ModelSubject::new(llm.model("subj", "subject").unwrap(), workspace.path());
    let judge = ModelJudge::new(llm.model("judge", "judge").unwrap());
    let store = Store::open_in_memory().unwrap();
    let rt = runtime();
    let done = rt
        .block_on(run_stored(
            &store,
            &run_settings("model", false),
            &trees,
            &subject,
            Some(&judge),
            &mut |_, _| {},
        ))
        .unwrap();
    assert_eq!((done.trees, done.answers, done.asked), (2, 10, 10));
    assert_eq!(subject.missing_images(), 1, "kf/r2_b.png, once for r2");

    let loaded = load_run(&store, "model").unwrap();
    let order: Vec<(&str, u8)> = loaded
        .answers
        .iter()
        .map(|a| (a.node_id.as_str(), a.phase))
        .collect();
    // T1: r1 ✓ → r2 (A's child); r2 ✓ → r4 (correct branch); r4 ✓, no child: stop.
    // Phase 2: r3 (depth 2), r5 (depth 3). T2: s1 {A, C} ✗ → s3 (C, the first chosen
    // distractor); s3 B ✗ → s5 (B's child); s5 ✓, no branch: stop. Phase 2: s2, s4.
    assert_eq!(
        order,
        vec![
            ("r1", 1),
            ("r2", 1),
            ("r4", 1),
            ("r3", 2),
            ("r5", 2),
            ("s1", 1),
            ("s3", 1),
            ("s5", 1),
            ("s2", 2),
            ("s4", 2),
        ]
    );
    let answer = |id: &str| loaded.answers.iter().find(|a| a.node_id == id).unwrap();
    // Open answers, score = 0.7 × judge + 0.3 × ROUGE-L F1:
    // r2 "Quinton told her" vs "Because Quinton told her so": LCS 3, P = 3/3, R = 3/5,
    //    F1 = 2·1·0.6/1.6 = 0.75; judge 1.0 → 0.7 + 0.225 = 0.925 ≥ 0.7 ✓.
    // r5 "She hid it on the boat" vs "She hid the key in the boat": LCS 4 (she hid
    //    the boat), P = 4/6, R = 4/7, F1 = 8/13; judge 0.5 → 0.35 + 0.3·8/13 ✗.
    // s5 "He wanted revenge." vs "He wanted revenge": F1 1; judge 1 (after one
    //    re-ask) → 1.0 ✓.
    let r5_score = 0.35 + 0.3 * 8.0 / 13.0;
    for (id, judge, rouge, score, correct) in [
        ("r2", 1.0, 0.75, 0.925, true),
        ("r5", 0.5, 8.0 / 13.0, r5_score, false),
        ("s5", 1.0, 1.0, 1.0, true),
    ] {
        let a = answer(id);
        assert_eq!(a.judge, Some(judge), "{id}");
        assert!(close(a.rouge.unwrap(), rouge), "{id} rouge {:?}", a.rouge);
        assert!(close(a.score, score), "{id} score {}", a.score);
        assert_eq!(a.correct, correct, "{id}");
    }
    // Jaccard: s1 chose {A, C}, correct {A, B}: |{A}| / |{A, B, C}| = 1/3; r4 exact = 1.
    assert!(close(answer("s1").score, 1.0 / 3.0) && !answer("s1").correct);
    assert!(close(answer("r4").score, 1.0) && answer("r4").correct);
    // The unparseable reply is kept verbatim and scored wrong.
    assert_eq!(answer("s4").raw, "Nobody knows.");
    assert!(!answer("s4").correct && answer("s4").score == 0.0);

    let m = compute(
        &loaded,
        BootstrapSettings {
            resamples: 100,
            seed: 1,
        },
    );
    assert_eq!((m.answers, m.unparseable, m.trees_answered), (10, 1, 2));
    assert_eq!(m.judge, "judge: judge");
    // Scores: r1 1, r2 0.925, r4 1, r3 0, r5 0.35 + 2.4/13 | s1 1/3, s3 0, s5 1,
    // s2 1, s4 0. Correct: r1 r2 r4 s5 s2 = 5 of 10.
    let total = 1.0 + 0.925 + 1.0 + 0.0 + r5_score + 1.0 / 3.0 + 0.0 + 1.0 + 1.0 + 0.0;
    assert_fig(&m, "all", "all", 10, 0.5, total / 10.0);
    // Phase 1: r1 r2 r4 s1 s3 s5, 4 correct; phase 2: r3 r5 s2 s4, 1 correct.
    assert_fig(
        &m,
        "phase",
        "1",
        6,
        4.0 / 6.0,
        // r1 1 + r2 0.925 + r4 1 = 2.925; s1 1/3, s3 0, s5 1.
        (2.925 + 1.0 / 3.0 + 1.0) / 6.0,
    );
    assert_fig(&m, "phase", "2", 4, 0.25, (r5_score + 1.0) / 4.0);
    // Accuracy by format: single r1 ✓ r3 ✗ s3 ✗ s2 ✓ s4 ✗ = 2/5; multi r4 ✓ s1 ✗
    // = 1/2, score (1 + 1/3)/2 = 2/3; open r2 ✓ r5 ✗ s5 ✓ = 2/3.
    assert_fig(&m, "format", "single", 5, 0.4, 0.4);
    assert_fig(&m, "format", "multi", 2, 0.5, 2.0 / 3.0);
    assert_fig(
        &m,
        "format",
        "open",
        3,
        2.0 / 3.0,
        (0.925 + r5_score + 1.0) / 3.0,
    );
    // CCF (phase-1 answers by depth): 1 {r1 ✓ 1, s1 ✗ 1/3}; 2 {r2 ✓ 0.925, s3 ✗ 0};
    // 3 {r4 ✓ 1, s5 ✓ 1}.
    assert_fig(&m, "ccf", "1", 2, 0.5, (1.0 + 1.0 / 3.0) / 2.0);
    assert_fig(&m, "ccf", "2", 2, 0.5, 0.925 / 2.0);
    assert_fig(&m, "ccf", "3", 2, 1.0, 1.0);
    // RDS: both paths have length 3 → 3. Weighted RDS (D = 3): T1 (1·1 + 2·1 + 3·1)/3
    // = 2; T2 (1·0 + 2·0 + 3·1)/3 = 1 → mean 1.5.
    assert_fig(&m, "tree", "RDS", 2, 3.0, 1.5);
    // CRS: T1 {r3 ✗, r5 ✗} = 0, score r5_score/2; T2 {s2 ✓, s4 ✗} = 1/2, score 1/2 →
    // CRS 0.25, CRS score (r5_score/2 + 1/2)/2.
    assert_fig(&m, "tree", "CRS", 2, 0.25, (r5_score / 2.0 + 0.5) / 2.0);

    // The server saw 10 subject requests and 4 judge requests (s5's judge re-asked).
    let bodies = log.lock().unwrap().clone();
    let (judged, asked): (Vec<&Value>, Vec<&Value>) =
        bodies.iter().partition(|b| b["model"] == "judge");
    assert_eq!((asked.len(), judged.len()), (10, 4));
    for j in &judged {
        assert_eq!(j["temperature"], 0.0);
        assert_eq!(
            content_text(&messages(j)[0]["content"]),
            moviegraph::eval::prompt::JUDGE_RUBRIC
        );
    }
    let reask = judged.iter().find(|j| messages(j).len() == 4).unwrap();
    assert_eq!(
        content_text(&messages(reask)[2]["content"]),
        "A fine answer."
    );

    // One continuous conversation per tree: the last request of each tree holds every
    // earlier question and verbatim answer, phase 2's premises in order.
    let last_of = |first_question: &str| -> Vec<(String, String)> {
        asked
            .iter()
            .filter(|b| content_text(&messages(b)[1]["content"]).contains(first_question))
            .max_by_key(|b| messages(b).len())
            .map(|b| {
                messages(b)
                    .iter()
                    .map(|m| {
                        (
                            m["role"].as_str().unwrap().to_string(),
                            content_text(&m["content"]),
                        )
                    })
                    .collect()
            })
            .unwrap()
    };
    let t1 = last_of("Question r1?");
    let roles: Vec<&str> = t1.iter().map(|(r, _)| r.as_str()).collect();
    assert_eq!(
        roles,
        vec![
            "system",
            "user",
            "assistant",
            "user",
            "assistant",
            "user",
            "assistant",
            "user",
            "assistant",
            "user"
        ]
    );
    let asks: Vec<&str> = t1
        .iter()
        .filter(|(r, _)| r == "user")
        .map(|(_, t)| t.as_str())
        .collect();
    for (text, id) in asks.iter().zip(["r1", "r2", "r4", "r3", "r5"]) {
        assert!(
            text.contains(&format!("Question: Question {id}?")),
            "{text}"
        );
    }
    assert!(!asks[..3].iter().any(|t| t.contains("Thought experiment")));
    assert!(asks[3].starts_with(
        "Thought experiment. Assuming the previous answer was \"She wants to leave town\" (to the question \"Question r1?\")"
    ));
    assert!(asks[4].starts_with(
        "Thought experiment. Assuming the previous answer was \"She found the key herself\" (to the question \"Question r2?\")"
    ));
    let answers: Vec<&str> = t1
        .iter()
        .filter(|(r, _)| r == "assistant")
        .map(|(_, t)| t.as_str())
        .collect();
    assert_eq!(
        answers,
        vec![
            "[[A]]",
            "Answer: [[Quinton told her]]",
            "I think [[A, B]]",
            "[[B]]"
        ]
    );
    let t2: Vec<String> = last_of("Question s1?")
        .into_iter()
        .filter(|(r, _)| r == "user")
        .map(|(_, t)| t)
        .collect();
    assert_eq!(t2.len(), 5);
    assert!(t2[3].starts_with(
        "Thought experiment. Assuming the previous answer was \"He is ashamed\" (to the question \"Question s1?\")"
    ));
    assert!(t2[4].starts_with(
        "Thought experiment. Assuming the previous answer was \"He plans to sell the house\" (to the question \"Question s1?\")"
    ));
    // The answer format is stated: single, open and multi instructions.
    assert!(asks[0]
        .ends_with("Answer with exactly one letter in double square brackets, for example [[B]]."));
    assert!(asks[1].contains("one short sentence in double square brackets"));
    assert!(asks[2].contains("separated by commas, for example [[A, C]]"));

    // Keyframes: the question asked carries its readable keyframes as data URLs;
    // earlier turns are text (their images are not sent again).
    let images = |body: &Value| -> Vec<Vec<String>> {
        messages(body)
            .iter()
            .map(|m| match &m["content"] {
                Value::Array(parts) => parts
                    .iter()
                    .filter_map(|p| p["image_url"]["url"].as_str().map(str::to_string))
                    .collect(),
                _ => Vec::new(),
            })
            .collect()
    };
    let first = asked.iter().find(|b| messages(b).len() == 2).unwrap();
    let first = images(first);
    assert_eq!(first[1].len(), 2);
    let want = format!(
        "data:image/jpeg;base64,{}",
        base64(&keyframe_bytes("kf/r1_a.jpg"))
    );
    assert_eq!(first[1][0], want);
    assert!(first[1][1].starts_with("data:image/png;base64,"));
    let r2 = asked
        .iter()
        .find(|b| {
            messages(b).len() == 4 && content_text(&messages(b)[1]["content"]).contains("r1?")
        })
        .unwrap();
    let r2 = images(r2);
    assert_eq!(r2[3].len(), 1, "r2_b.png is missing: one image");
    assert!(r2[..3].iter().all(Vec::is_empty));
    for body in &asked {
        let per_turn = images(body);
        let n = per_turn.len();
        assert!(per_turn[..n - 1].iter().all(Vec::is_empty));
    }

    // --text-only: the same trees with no image and no keyframe sentence.
    let before = log.lock().unwrap().len();
    rt.block_on(run_stored(
        &store,
        &run_settings("text", true),
        &trees,
        &subject,
        Some(&judge),
        &mut |_, _| {},
    ))
    .unwrap();
    let bodies = log.lock().unwrap().clone();
    for body in bodies[before..].iter().filter(|b| b["model"] == "subj") {
        assert!(messages(body).iter().all(|m| m["content"].is_string()));
        // (The system prompt mentions keyframes in general; no turn says any are attached.)
        assert!(!body.to_string().contains("attached"));
    }
    // Its answers are the same replies, so its metrics are the same.
    let text = compute(
        &load_run(&store, "text").unwrap(),
        BootstrapSettings::default(),
    );
    assert_fig(&text, "tree", "RDS", 2, 3.0, 1.5);
}

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

/// A subject server whose reply depends only on the request body (so both runs get
/// the same replies); every body it answers is logged.
fn hashing_server(log: Arc<Mutex<Vec<String>>>) -> LoopbackServer {
    let responder: Responder = Arc::new(move |req: &Request| {
        let body = req.body.to_string();
        let h = Sha256::digest(body.as_bytes())[0];
        log.lock().unwrap().push(body);
        Reply::chat(["[[A]]", "[[B]]", "I pick [[A, C]]", "No idea."][usize::from(h % 4)])
    });
    LoopbackServer::start(ServerOptions {
        responder,
        ..ServerOptions::default()
    })
    .unwrap()
}

/// A workspace with 4 synthetic trees (60 questions) and a configuration naming the
/// server as model `loop`.
fn workspace(server: &LoopbackServer) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    // Synthetic trees repeat their wording from tree to tree, and identical
    // conversations are answered from the model layer's cache; numbering the
    // questions makes every request distinct, so requests and answers match 1:1.
    let mut trees = synthetic_trees(4);
    for (i, tree) in trees.iter_mut().enumerate() {
        for node in &mut tree.nodes {
            node.question = format!("{} (set {i})", node.question);
        }
    }
    save_trees(&dir.path().join("t.jsonl"), &trees).unwrap();
    std::fs::write(
        dir.path().join("mg.toml"),
        format!(
            "[models.loop]\nbackend = \"openai\"\nbase_url = \"{}\"\ntimeout_s = 60\n\
             concurrency = 1\n\n[client]\nmax_retries = 2\nbackoff_base_ms = 5\n\
             backoff_max_ms = 50\ndeadline_s = 120\nmax_repairs = 0\n",
            server.url()
        ),
    )
    .unwrap();
    dir
}

const RUN: &[&str] = &[
    "eval",
    "run",
    "--trees",
    "t.jsonl",
    "--subject",
    "loop",
    "--config",
    "mg.toml",
    "--run",
    "m",
    "--store",
    "ws.db",
];

fn report_json(dir: &Path) -> String {
    let out = moviegraph(
        dir,
        &[
            "eval", "report", "m", "--format", "json", "--store", "ws.db",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
}

#[test]
fn a_killed_model_run_resumes_to_the_same_report_without_asking_twice() {
    // The uninterrupted run.
    let whole_log = Arc::new(Mutex::new(Vec::new()));
    let whole_server = hashing_server(Arc::clone(&whole_log));
    let whole = workspace(&whole_server);
    let out = moviegraph(whole.path(), RUN);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("4 trees, 60 answers (60 asked now, 0 from an earlier start)"),
        "{}",
        text(&out.stdout)
    );
    assert!(
        text(&out.stdout).contains("model calls: 60 (0 from the cache)"),
        "{}",
        text(&out.stdout)
    );
    assert!(text(&out.stderr).contains("subject: model loop"));
    assert!(text(&out.stderr).contains("judge: none (ROUGE-L fallback"));
    let whole_report = report_json(whole.path());
    assert!(
        whole_report.contains("\"subject\": \"loop\""),
        "{whole_report}"
    );
    // The run as an Inspect log: read back by Inspect, its calls' tokens with it.
    if let Some(logs) = crate::common::inspect::check_inspect_export(
        whole.path(),
        &whole.path().join("ws.db"),
        &["m"],
    ) {
        assert_eq!(logs[0]["model"], "moviegraph/loop");
        let usage = logs[0]["model_usage"].as_object().unwrap();
        assert!(
            !usage.is_empty() && usage.values().all(|t| t.as_u64().unwrap() > 0),
            "{usage:?}"
        );
    }

    // The killed run: the server answers 20 requests, then holds the 21st unanswered;
    // the process is killed (SIGKILL) while it waits.
    let log = Arc::new(Mutex::new(Vec::new()));
    let server = hashing_server(Arc::clone(&log));
    let dir = workspace(&server);
    server.hold_after(Some(20));
    let mut child = crate::common::moviegraph_offline()
        .args(RUN)
        .current_dir(dir.path())
        .env_remove("MOVIEGRAPH_STORE")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while server.counters().requests() < 21 {
        assert!(child.try_wait().unwrap().is_none(), "the run ended early");
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no 21st request"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let stored = Store::open(&dir.path().join("ws.db"))
        .unwrap()
        .eval_answers("m")
        .unwrap();
    assert_eq!(stored.len(), 20, "every answered question is stored");

    server.hold_after(None);
    let out = moviegraph(dir.path(), RUN);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("4 trees, 60 answers (40 asked now, 20 from an earlier start)"),
        "{}",
        text(&out.stdout)
    );
    assert_eq!(report_json(dir.path()), whole_report);

    // Per body: the answered requests are exactly the uninterrupted run's, each once;
    // the only extra request is the one held when the process was killed.
    let mut answered = log.lock().unwrap().clone();
    let mut needed = whole_log.lock().unwrap().clone();
    answered.sort();
    needed.sort();
    assert_eq!(needed.len(), 60);
    let mut unique = needed.clone();
    unique.dedup();
    assert_eq!(unique.len(), 60, "no body twice in the uninterrupted run");
    assert_eq!(answered, needed);
    assert_eq!(server.counters().requests(), 61);
    assert_eq!(whole_server.counters().requests(), 60);
}

#[test]
fn subjects_and_judges_that_are_not_configured_are_refused() {
    let server = hashing_server(Arc::new(Mutex::new(Vec::new())));
    let dir = workspace(&server);
    let base = ["eval", "run", "--trees", "t.jsonl", "--store", "ws.db"];
    let run = |extra: &[&str]| {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        moviegraph(dir.path(), &args)
    };
    let unknown = run(&["--subject", "gpt-9"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(text(&unknown.stderr).contains("random, first-option, lexical"));
    let none = run(&[]);
    assert_eq!(none.status.code(), Some(2));
    assert!(
        text(&none.stderr).contains("no --subject given"),
        "{}",
        text(&none.stderr)
    );
    let two = run(&["--subject", "random", "--subject", "lexical"]);
    assert_eq!(two.status.code(), Some(2));
    assert!(
        text(&two.stderr).contains("takes one --subject"),
        "{}",
        text(&two.stderr)
    );
    let rules = run(&["--subject", "rules"]);
    assert_eq!(rules.status.code(), Some(2));
    assert!(text(&rules.stderr).contains("rules backend"));
    let judge = run(&["--subject", "random", "--judge", "gpt-9"]);
    assert_eq!(judge.status.code(), Some(2));
    assert!(
        text(&judge.stderr).contains("gpt-9"),
        "{}",
        text(&judge.stderr)
    );
    assert_eq!(server.counters().requests(), 0);
}
