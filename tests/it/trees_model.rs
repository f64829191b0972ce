//! The model question writer over a scripted OpenAI-compatible server on
//! 127.0.0.1: good questions are kept verbatim; a distractor that is true per
//! the graph, a graph id in the question and a give-away by option length are
//! each rejected with the precise reason and replaced by the rules writer's
//! question; and `trees generate` with a model generator whose every question
//! is rejected writes exactly the rules writer's trees.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::common::llm::*;
use moviegraph::graph::analysis::analyse;
use moviegraph::llm::{BlockingModel, LlmOptions};
use moviegraph::store::Store;
use moviegraph::trees::facts::Facts;
use moviegraph::trees::generate::rules::RulesWriter;
use moviegraph::trees::generate::{generate_with, GenerateOptions, QuestionWriter};
use moviegraph::trees::model::{ModelWriter, MAX_LENGTH_RATIO};
use moviegraph::trees::schema::Format;
use moviegraph::trees::source::Source;
use moviegraph::trees::synth;
use serde_json::{json, Value};

/// What the scripted model did with one prompt.
#[derive(Debug, Clone, PartialEq)]
enum Kind {
    Good,
    /// The gold answer offered as a distractor (and a distractor as the answer).
    TrueDistractor,
    /// A graph id in the question.
    LeakedId,
    /// The correct option padded far beyond the distractors.
    LongGold,
}

#[derive(Debug, Clone)]
struct Scripted {
    kind: Kind,
    question: String,
    /// (text, correct) per option, in handle order.
    options: Vec<(String, bool)>,
    /// The reason `verify` must give (bad kinds only).
    expected: Option<String>,
}

/// The prompt's answers: (text, Some(reason) for a wrong one / None for correct).
fn answers(prompt: &str) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    for line in prompt.lines() {
        let Some(rest) = line.strip_prefix('O') else {
            continue;
        };
        let Some((n, rest)) = rest.split_once(": ") else {
            continue;
        };
        if n.parse::<usize>().ok() != Some(out.len() + 1) {
            continue;
        }
        if let Some(at) = rest.find(" — CORRECT") {
            out.push((rest[..at].to_owned(), None));
        } else if let Some(at) = rest.find(" — WRONG (") {
            let reason = rest[at + " — WRONG (".len()..]
                .split(')')
                .next()
                .unwrap_or("")
                .to_owned();
            out.push((rest[..at].to_owned(), Some(reason)));
        }
    }
    out
}

fn fnv(text: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

const PADDING: &str =
    ", as anyone who watched that whole stretch closely could have told you straight away";

/// Mean correct option length over mean distractor length, in characters.
fn length_ratio(options: &[(String, bool, Option<String>)]) -> f64 {
    let mean = |gold: bool| {
        let v: Vec<f64> = options
            .iter()
            .filter(|o| o.1 == gold)
            .map(|o| o.0.chars().count() as f64)
            .collect();
        v.iter().sum::<f64>() / v.len().max(1) as f64
    };
    mean(true) / mean(false)
}

fn length_reason(ratio: f64) -> String {
    format!(
        "rejected: the correct option is {ratio:.1}× as long as the distractors (limit {MAX_LENGTH_RATIO})"
    )
}

/// The scripted model: the kind of reply is a function of the prompt, so a
/// cached answer and a fresh one agree.
fn script(prompt: &str, all_bad: bool) -> (Scripted, Value) {
    let h = fnv(prompt);
    let open = prompt.contains("\nFORMAT: open");
    let mut kind = match (all_bad, h % 6) {
        (true, _) => Kind::LeakedId,
        (_, 3) => Kind::TrueDistractor,
        (_, 4) => Kind::LeakedId,
        (_, 5) if !open => Kind::LongGold,
        _ => Kind::Good,
    };
    let given = answers(prompt);
    assert!(
        given.len() >= 2,
        "no answers parsed from the prompt:\n{prompt}"
    );
    let mut question = format!("Question #{:x}, which answer fits this moment?", h >> 40);
    let mut options: Vec<(String, bool, Option<String>)> = given
        .iter()
        .map(|(t, r)| (t.clone(), r.is_none(), r.clone()))
        .collect();
    let mut expected = None;
    match kind {
        Kind::Good => {}
        Kind::TrueDistractor => {
            let gold = options.iter().position(|o| o.1).expect("a gold answer");
            let wrong = options.iter().position(|o| !o.1).expect("a distractor");
            // Handle order puts the gold answer first, so verify meets it first.
            assert!(gold < wrong);
            options[gold].1 = false;
            options[gold].2 = Some("not_the_cause".into());
            options[wrong].1 = true;
            options[wrong].2 = None;
            expected = Some(format!(
                "rejected: option {:?} is marked wrong (not_the_cause) but the graph says correct",
                options[gold].0
            ));
        }
        Kind::LeakedId => {
            question = format!("Question #{:x}: what does character:alma do next?", h >> 40);
            expected = Some("rejected: question contains the graph id \"character:alma\"".into());
        }
        Kind::LongGold => {
            for o in options.iter_mut().filter(|o| o.1) {
                o.0.push_str(PADDING);
            }
            let ratio = length_ratio(&options);
            assert!(ratio > MAX_LENGTH_RATIO);
            expected = Some(length_reason(ratio));
        }
    }
    // Reworded verbatim, a correct answer may already be too long next to
    // short distractors: the bound applies to the model's wording all the same.
    let ratio = length_ratio(&options);
    if kind == Kind::Good && !open && ratio > MAX_LENGTH_RATIO {
        kind = Kind::LongGold;
        expected = Some(length_reason(ratio));
    }
    let reference = open.then(|| {
        options
            .iter()
            .filter(|o| o.1)
            .map(|o| o.0.clone())
            .collect::<Vec<_>>()
            .join(" and ")
    });
    let body = json!({
        "question": question,
        "reference": reference,
        "options": options.iter().enumerate().map(|(k, o)| json!({
            "handle": format!("O{}", k + 1),
            "text": o.0,
            "correct": o.1,
            "reason": o.2,
        })).collect::<Vec<_>>(),
    });
    let scripted = Scripted {
        kind,
        question,
        options: options.iter().map(|o| (o.0.clone(), o.1)).collect(),
        expected,
    };
    (scripted, body)
}

fn prompt_of(request: &Request) -> String {
    request.body["messages"]
        .as_array()
        .and_then(|m| m.iter().rev().find(|m| m["role"] == "user"))
        .and_then(|m| m["content"].as_str())
        .unwrap_or("")
        .to_owned()
}

fn scripted_server(all_bad: bool) -> (LoopbackServer, Arc<Mutex<Vec<Scripted>>>) {
    let log: Arc<Mutex<Vec<Scripted>>> = Arc::default();
    let seen = Arc::clone(&log);
    let responder: Responder = Arc::new(move |request: &Request| {
        let (scripted, body) = script(&prompt_of(request), all_bad);
        seen.lock().unwrap().push(scripted);
        Reply::chat(&body.to_string())
    });
    let server = LoopbackServer::start(ServerOptions {
        responder,
        ..ServerOptions::default()
    })
    .expect("loopback server");
    (server, log)
}

#[test]
fn good_questions_are_kept_verbatim_and_bad_ones_rejected_with_the_reason() {
    let (server, log) = scripted_server(false);
    let url = server.url();
    let config = config_with("loop", &[&url], 2, Duration::from_secs(10));
    let llm = client(
        config,
        Store::open_in_memory().unwrap(),
        LlmOptions::default(),
    );
    let model = BlockingModel::new(llm.model("loop", "generator").unwrap()).unwrap();
    let writer = ModelWriter::new(model);
    assert_eq!(writer.name(), "loop");

    let graph = synth::film(5, 8);
    let facts = Facts::new(&graph);
    let source = Source::from_evidence(&graph);
    let opts = GenerateOptions {
        max_trees: Some(12),
        ..GenerateOptions::default()
    };
    let out = generate_with(
        &facts,
        &analyse(&graph),
        &source,
        &writer,
        Some(&RulesWriter),
        &opts,
    );
    let scripted = log.lock().unwrap().clone();
    let count = |k: Kind| scripted.iter().filter(|s| s.kind == k).count();
    for k in [
        Kind::Good,
        Kind::TrueDistractor,
        Kind::LeakedId,
        Kind::LongGold,
    ] {
        let n = count(k.clone());
        assert!(n >= 2, "too few {k:?} replies: {n}");
    }

    // Every rejection is of a bad reply, with exactly the reason it earned,
    // and the rules writer's question took its place.
    let mut rejected_questions = BTreeSet::new();
    for r in &out.rejected {
        if r.writer == "rules" {
            // The templates could not word the stand-in either: dropped.
            assert!(r.question.is_none() && !r.replaced, "{r}");
            continue;
        }
        assert_eq!(r.writer, "loop", "{r}");
        let q = r.question.as_deref().expect("the model wrote a question");
        let s = scripted
            .iter()
            .find(|s| s.question == q)
            .unwrap_or_else(|| panic!("rejected a question the model never wrote: {r}"));
        assert_ne!(s.kind, Kind::Good, "a good question was rejected: {r}");
        assert_eq!(Some(&r.reason), s.expected.as_ref(), "{s:?}");
        assert!(
            r.replaced
                || out
                    .rejected
                    .iter()
                    .any(|x| x.writer == "rules" && x.tree == r.tree),
            "{r}"
        );
        rejected_questions.insert(q.to_owned());
    }
    for s in scripted.iter().filter(|s| s.kind != Kind::Good) {
        assert!(
            rejected_questions.contains(&s.question),
            "a bad reply was not rejected: {s:?}"
        );
    }

    // No bad wording reached a tree; good ones are there word for word.
    let nodes: Vec<_> = out.trees.iter().flat_map(|t| &t.nodes).collect();
    let mut kept = 0;
    for node in &nodes {
        let Some(s) = scripted.iter().find(|s| s.question == node.question) else {
            // A rules question, standing in for a rejected one.
            assert!(
                !node.question.starts_with("Question #"),
                "{}",
                node.question
            );
            continue;
        };
        assert_eq!(s.kind, Kind::Good, "{}", node.question);
        kept += 1;
        match node.format {
            Format::Open => {
                let gold: Vec<&str> = s
                    .options
                    .iter()
                    .filter(|o| o.1)
                    .map(|o| o.0.as_str())
                    .collect();
                assert_eq!(node.reference.as_deref(), Some(gold.join(" and ").as_str()));
            }
            _ => {
                let mut got: Vec<(String, bool)> = node
                    .options
                    .iter()
                    .map(|o| (o.text.clone(), o.correct))
                    .collect();
                let mut want = s.options.clone();
                got.sort();
                want.sort();
                assert_eq!(got, want, "{}", node.question);
            }
        }
    }
    assert!(
        kept >= 5,
        "only {kept} model-written questions in the trees"
    );
    assert!(
        nodes.len() > kept,
        "no rules question replaced a rejected one"
    );
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn moviegraph(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_moviegraph"))
        .args(args)
        .current_dir(root())
        .env_remove("MOVIEGRAPH_STORE")
        .output()
        .expect("run moviegraph")
}

/// Every model question rejected → every question is the rules writer's, so
/// the file is the committed rules file byte for byte.
#[test]
fn trees_generate_with_a_model_falls_back_to_the_rules_writer() {
    let (server, log) = scripted_server(true);
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("ws.db");
    let s = store.to_str().unwrap();
    let config = dir.path().join("models.toml");
    std::fs::write(
        &config,
        format!(
            "[roles]\ngenerator = \"loop\"\n[models.loop]\nbackend = \"openai\"\nmodel = \"scripted\"\nbase_url = \"{}\"\n",
            server.url()
        ),
    )
    .unwrap();
    let b = moviegraph(&["graph", "build", "screenplays/the-second-key", "--store", s]);
    assert!(b.status.success(), "{}", String::from_utf8_lossy(&b.stderr));
    let out = dir.path().join("trees");
    let g = moviegraph(&[
        "trees",
        "generate",
        "screenplays/the-second-key",
        "--store",
        s,
        "--config",
        config.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&g.stdout);
    assert!(
        g.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&g.stderr)
    );
    let asked = log.lock().unwrap().len();
    assert!(asked > 50, "{asked} model calls");
    assert!(text.contains("generator loop"), "{text}");
    assert!(
        text.contains("rejected: question contains the graph id \"character:alma\" (replaced)"),
        "{text}"
    );
    assert!(text.contains(" dropped)"), "{text}");
    let written = out.join("the-second-key.jsonl");
    assert!(
        moviegraph::trees::jsonl::read_trees(&written).unwrap()
            == moviegraph::trees::jsonl::read_trees(&root().join("trees/the-second-key.jsonl"))
                .unwrap(),
        "the fallback trees differ from the rules writer's"
    );
    // The metadata line names the model writer (not a baseline) and its model, never a key.
    let p = moviegraph::trees::jsonl::read_provenance(&written)
        .unwrap()
        .expect("a provenance line");
    let writer = p.question_writer.expect("the question writer");
    assert_eq!(writer.name, "loop");
    assert!(!writer.baseline);
    assert_eq!(writer.backend.as_deref(), Some("openai"));
    assert_eq!(writer.model.as_deref(), Some("scripted"));
    assert_eq!(p.models, vec!["openai/scripted".to_owned()]);
    assert!(p.graph.expect("the graph roles").generator.baseline);
}
