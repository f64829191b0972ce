//! The `local` backend through the model layer (`Llm`: cache, accounting,
//! queueing) on SmolLM2-135M-Instruct as `scripts/setup-models` installs it (or
//! `$MOVIEGRAPH_LOCAL_MODEL`), and the graph stage's generator and auditor
//! schemas sent to it. Every test that needs the model skips with a message when
//! it is not installed. A 135M model's graph candidates are poor: these tests
//! check form (schema, parsers), never quality.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use moviegraph::align::{align, AlignOptions, Block};
use moviegraph::graph::build::prepare;
use moviegraph::graph::generate::RulesGenerator;
use moviegraph::graph::model::{
    audit_prompt, generator_prompt, parse_audit, parse_generator, Prompt,
};
use moviegraph::graph::resolve::ResolveOptions;
use moviegraph::graph::{BlockContext, Candidate, Generator, Item, Node};
use moviegraph::llm::local::{
    resolve_model_path, ChatTurn, GenParams, LoadOptions, LocalError, LocalModel,
};
use moviegraph::llm::schema::validate;
use moviegraph::llm::{ChatRequest, Config, Llm, LlmOptions, Message};
use moviegraph::media::subtitles;
use moviegraph::screenplay::{self, Screenplay};
use moviegraph::store::Store;
use serde_json::{json, Value};

fn model_path() -> Option<PathBuf> {
    match resolve_model_path(None) {
        Ok(p) => Some(p),
        Err(e) => {
            eprintln!("skipping local backend test: {e}");
            None
        }
    }
}

/// `[models.NAME]` sections on the GGUF file at `path`, each with backend
/// `local`, a 30-minute timeout and its own extra lines.
fn local_models(path: &Path, models: &[(&str, &str)]) -> String {
    let p = serde_json::to_string(&path.display().to_string()).unwrap();
    models
        .iter()
        .map(|(name, extra)| {
            format!("[models.{name}]\nbackend = \"local\"\npath = {p}\ntimeout_s = 1800\n{extra}\n")
        })
        .collect()
}

/// A model layer with three local entries on one file: a greedy `smollm2`, and
/// two auditors (one greedy, one sampling with a seed).
fn llm(path: &Path) -> Llm {
    // Generous timeouts and no retries: a CPU model on a busy machine is slow, and a
    // timed-out generation still runs to its end on the worker, so a retry would
    // only queue behind it.
    let mut text = String::from(
        "[client]\nmax_retries = 0\ndeadline_s = 3600\n[roles]\ngenerator = \"smollm2\"\n\
         auditors = [\"auditor-a\", \"auditor-b\"]\n",
    );
    text.push_str(&local_models(
        path,
        &[
            ("smollm2", "max_tokens = 48"),
            ("auditor-a", "temperature = 0.0"),
            ("auditor-b", "temperature = 0.7\nseed = 11"),
        ],
    ));
    text.push_str("[models.absent]\nbackend = \"local\"\npath = \"no-such-model.gguf\"\n");
    let config = Config::from_str_at(&text, Path::new("local-test.toml")).unwrap();
    let store = Arc::new(Mutex::new(Store::open_in_memory().unwrap()));
    Llm::new(
        config,
        store,
        LlmOptions {
            run_label: "local backend test".into(),
            ..LlmOptions::default()
        },
    )
    .unwrap()
}

fn fruit_schema() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["fruit", "colour", "ripe"],
        "properties": {
            "fruit": {"type": "string", "maxLength": 24},
            "colour": {"enum": ["red", "green", "yellow", "orange", "purple"]},
            "ripe": {"type": "boolean"}
        }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_schema_chat_validates_and_repeats_from_the_cache() {
    let Some(path) = model_path() else { return };
    let llm = llm(&path);
    let h = llm.model("smollm2", "generator").unwrap();
    let req = ChatRequest::new(vec![
        Message::system("You answer in JSON."),
        Message::user("Name a fruit, its colour, and whether it is ripe."),
    ])
    .with_schema("fruit", fruit_schema());
    let a = h.chat(&req).await.unwrap();
    println!("answer: {}", a.text);
    assert!(!a.cached);
    validate(a.json.as_ref().unwrap(), &fruit_schema()).unwrap();
    assert!(a.usage.input_tokens > 10, "{:?}", a.usage);
    assert!(a.usage.output_tokens > 0 && a.usage.output_tokens <= 48);
    let b = h.chat(&req).await.unwrap();
    assert!(b.cached);
    assert_eq!((b.text, b.key), (a.text.clone(), a.key.clone()));
    let s = llm.stats();
    assert_eq!((s.calls, s.cache_hits, s.attempts, s.repairs), (2, 1, 1, 0));
    let totals = llm.totals().unwrap();
    let t = totals.iter().find(|t| t.model == "smollm2").unwrap();
    assert_eq!((t.calls, t.cache_hits, t.errors), (2, 1, 0));
    assert_eq!(t.input_tokens, a.usage.input_tokens);
    assert_eq!(t.output_tokens, a.usage.output_tokens);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_calls_queue_and_equal_sequential_ones() {
    let Some(path) = model_path() else { return };
    let llm = llm(&path);
    let prompts = ["apple", "banana", "cherry", "plum", "lime"];
    let request = |fruit: &str| {
        let mut user = Message::user(format!("Describe a {fruit} in JSON."));
        if fruit == "plum" {
            // Image parts are dropped by the text-only engine, with a warning.
            user = user.with_image("image/png", &[137, 80, 78, 71]);
        }
        let mut r = ChatRequest::new(vec![user]).with_schema("fruit", fruit_schema());
        r.max_tokens = Some(24);
        r
    };
    let mut tasks = Vec::new();
    // Two model names on one file share one worker: both queue into it.
    for (i, fruit) in prompts.iter().enumerate() {
        let name = if i % 2 == 0 { "smollm2" } else { "auditor-a" };
        let h = llm.model(name, "test").unwrap();
        let req = request(fruit);
        tasks.push(tokio::spawn(async move { h.chat(&req).await }));
    }
    let mut texts = Vec::new();
    for t in tasks {
        let c = t.await.unwrap().unwrap();
        validate(c.json.as_ref().unwrap(), &fruit_schema()).unwrap();
        texts.push(c.text);
    }
    println!("concurrent answers: {texts:?}");
    assert_eq!(llm.stats().attempts, prompts.len() as u64);
    assert_eq!(llm.stats().failures, 0);
    // A fresh store (no cache), one call at a time: the same answers, so queued
    // generations do not disturb each other's KV cache.
    let fresh = self::llm(&path);
    for (i, fruit) in prompts.iter().enumerate() {
        let name = if i % 2 == 0 { "smollm2" } else { "auditor-a" };
        let c = fresh
            .model(name, "test")
            .unwrap()
            .chat(&request(fruit))
            .await
            .unwrap();
        assert!(!c.cached);
        assert_eq!(c.text, texts[i], "{fruit}");
    }
}

#[tokio::test]
async fn a_missing_model_file_is_a_clear_error_only_when_called() {
    // Needs no model: the layer builds, and only the call to the absent model fails.
    let llm = llm(Path::new("/nonexistent/model.gguf"));
    let err = llm
        .model("absent", "subject")
        .unwrap()
        .chat(&ChatRequest::new(vec![Message::user("hi")]))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("no-such-model.gguf") && err.contains("scripts/setup-models"),
        "{err}"
    );
    let err = llm.check("smollm2").await.unwrap_err();
    assert!(err.contains("/nonexistent/model.gguf"), "{err}");
}

fn sample() -> (Screenplay, Vec<Block>) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("screenplays/the-second-key");
    let play = screenplay::parse_file(&dir.join("script.fountain"), None).unwrap();
    let subs = subtitles::parse_file(&dir.join("subtitles.srt"), None).unwrap();
    let blocks = align(&play, &subs, &AlignOptions::default()).blocks;
    (play, blocks)
}

fn ctx<'a>(
    play: &'a Screenplay,
    block: &'a Block,
    entities: &'a BTreeMap<String, Node>,
) -> BlockContext<'a> {
    BlockContext {
        film: "the-second-key",
        block,
        play,
        entities,
        max_keyframes: 0,
    }
}

fn send(prompt: &Prompt, max_tokens: u32) -> ChatRequest {
    let mut r = ChatRequest::new(vec![
        Message::system(prompt.system.clone()),
        Message::user(prompt.user.clone()),
    ])
    .with_schema(prompt.schema_name, prompt.schema.clone());
    r.max_tokens = Some(max_tokens);
    r
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_graph_generator_and_auditor_schemas_round_trip_through_the_local_model() {
    let Some(path) = model_path() else { return };
    let llm = llm(&path);
    let (play, blocks) = sample();
    // Entities known before block 1: what the rules generator found in block 0.
    let mut known: BTreeMap<String, Node> = BTreeMap::new();
    let first = prepare(
        &ctx(&play, &blocks[0], &known),
        RulesGenerator::all_families()
            .generate(&ctx(&play, &blocks[0], &known))
            .unwrap(),
        &ResolveOptions::default(),
    );
    for c in first.candidates {
        if let Item::Node(n) = c.item {
            known.insert(n.id.clone(), n);
        }
    }
    let block = &blocks[1];
    let cx = ctx(&play, block, &known);

    let (prompt, handles) = generator_prompt(&cx);
    let generated = llm
        .model("smollm2", "generator")
        .unwrap()
        .chat(&send(&prompt, 120))
        .await
        .unwrap();
    println!(
        "generator ({} prompt tokens, {} generated, finish {:?}): {}",
        generated.usage.input_tokens,
        generated.usage.output_tokens,
        generated.finish_reason,
        generated.text
    );
    validate(generated.json.as_ref().unwrap(), &prompt.schema).unwrap();
    let (proposal, dropped) = parse_generator(&cx, &handles, &generated.text).unwrap();
    println!(
        "parsed: {} item(s), {} dropped: {dropped:?}",
        proposal.items.len(),
        dropped.len()
    );
    for (item, reason) in proposal.items.iter().take(5) {
        println!("  candidate: {item:?} ({reason})");
    }
    let mut batch: Vec<Candidate> = prepare(&cx, proposal, &ResolveOptions::default()).candidates;
    if batch.is_empty() {
        println!(
            "the model's proposal left no valid candidate; auditing the rules generator's \
             candidates for this block instead"
        );
        batch = prepare(
            &cx,
            RulesGenerator::all_families().generate(&cx).unwrap(),
            &ResolveOptions::default(),
        )
        .candidates;
    }
    batch.truncate(3);
    assert!(!batch.is_empty());

    let audit = audit_prompt(&cx, &batch);
    for name in ["auditor-a", "auditor-b"] {
        let answer = llm
            .model(name, "auditors")
            .unwrap()
            .chat(&send(&audit, 96))
            .await
            .unwrap();
        println!("{name}: {}", answer.text);
        validate(answer.json.as_ref().unwrap(), &audit.schema).unwrap();
        match parse_audit(name, &batch, &answer.text) {
            Ok(votes) => {
                assert_eq!(votes.len(), batch.len());
                for (c, v) in batch.iter().zip(&votes) {
                    println!(
                        "  {name} on {}: accept {} — {}",
                        c.id, v.accept, v.rationale
                    );
                }
            }
            Err(e) => panic!("{name}: parse_audit: {e}"),
        }
    }
}

#[test]
fn a_generation_whose_caller_gave_up_stops_before_the_next_forward_pass() {
    let Some(path) = model_path() else { return };
    let model = LocalModel::load(&path, &LoadOptions::default()).unwrap();
    let turns = [ChatTurn {
        role: "user".into(),
        text: "Count from one to one hundred in words.".into(),
    }];
    let params = GenParams {
        max_tokens: 64,
        ..GenParams::default()
    };
    // The worker asks before every forward pass: the prompt's chunk(s), then
    // one per generated token. Give up on the fourth question.
    let asked = Cell::new(0usize);
    let err = model
        .generate_cancellable(&turns, &params, None, &|| {
            asked.set(asked.get() + 1);
            asked.get() >= 4
        })
        .unwrap_err();
    assert!(
        matches!(err, LocalError::Cancelled { tokens } if tokens <= 3),
        "{err}"
    );
    assert_eq!(asked.get(), 4, "no question after the answer was yes");
    // The model is usable at once, and the cut generation left no trace in
    // its KV cache: the next answer equals a fresh model's.
    let after = model.generate(&turns, &params, None).unwrap();
    let fresh = LocalModel::load(&path, &LoadOptions::default())
        .unwrap()
        .generate(&turns, &params, None)
        .unwrap();
    assert_eq!(after.text, fresh.text);
    assert!(after.completion_tokens > 4);
}

/// The acceptance check: `moviegraph graph build` on one block of the
/// sample film with SmolLM2 as the generator, both auditors and the
/// adjudicator completes, and every generator and auditor answer stored in the
/// response cache validates against the schema its request carried.
#[test]
fn graph_build_on_one_block_with_local_roles_validates_every_answer() {
    let Some(path) = model_path() else { return };
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("moviegraph.toml");
    let mut text = String::from(
        "[client]\nmax_retries = 0\nmax_repairs = 1\ndeadline_s = 3600\n[roles]\n\
         generator = \"smol-gen\"\nauditors = [\"smol-a\", \"smol-b\"]\nadjudicator = \"smol-adj\"\n",
    );
    text.push_str(&local_models(
        &path,
        &[
            ("smol-gen", "max_tokens = 200"),
            ("smol-a", "max_tokens = 160"),
            ("smol-b", "max_tokens = 160\ntemperature = 0.7\nseed = 3"),
            ("smol-adj", "max_tokens = 80"),
        ],
    ));
    std::fs::write(&config, text).unwrap();
    let store = dir.path().join("store.db");
    let film = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("screenplays/the-second-key");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_moviegraph"))
        .args(["graph", "build"])
        .arg(&film)
        .arg("--store")
        .arg(&store)
        .arg("--config")
        .arg(&config)
        .args(["--stop-after", "1"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}\n{stderr}");
    assert!(out.status.success(), "graph build failed");
    assert!(stdout.contains("1 built now"), "{stdout}");

    let db = rusqlite::Connection::open(&store).unwrap();
    let calls: Vec<(String, String, Option<String>)> = db
        .prepare("SELECT role, model, error FROM llm_calls ORDER BY id")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    println!("calls: {calls:?}");
    assert!(calls.iter().all(|c| c.2.is_none()), "{calls:?}");
    let by = |model: &str| calls.iter().filter(|c| c.1 == model).count();
    assert_eq!(by("smol-gen"), 1, "one generator call for the block");
    // Greedy decoding under the key-order fix declares entities before edges,
    // so the block yields candidates and both auditors are asked once each.
    assert_eq!((by("smol-a"), by("smol-b")), (1, 1), "{stdout}");

    let answers: Vec<(String, String, String)> = db
        .prepare("SELECT model, request, response FROM llm_cache ORDER BY rowid")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let mut checked = 0;
    for (model, request, response) in &answers {
        let request: Value = serde_json::from_str(request).unwrap();
        let response: Value = serde_json::from_str(response).unwrap();
        let schema = &request["schema"]["schema"];
        assert!(
            schema.is_object(),
            "{model}: the request carries its schema"
        );
        let text = response["text"].as_str().unwrap();
        let answer: Value = serde_json::from_str(text)
            .unwrap_or_else(|e| panic!("{model}: answer is not JSON ({e}): {text}"));
        validate(&answer, schema).unwrap_or_else(|e| panic!("{model}: {e}: {text}"));
        println!("{model} ({}): {text}", request["schema"]["name"]);
        checked += 1;
    }
    assert!(checked >= 3, "generator and both auditors answered");
}

#[test]
fn the_limp_subject_runs_end_to_end_on_the_local_model() {
    let Some(path) = model_path() else { return };
    let dir = tempfile::tempdir().unwrap();
    let bin = env!("CARGO_BIN_EXE_moviegraph");
    let fixture = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/muma-tom");
    let out = std::process::Command::new(bin)
        .args(["trees", "import", "--from", "muma-tom"])
        .arg(fixture.join("questions.json"))
        .arg("--texts")
        .arg(fixture.join("texts.json"))
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // One question (three rating calls) is enough to show the path works.
    let file = dir.path().join("trees/muma-tom.jsonl");
    let text = std::fs::read_to_string(&file).unwrap();
    let first_two: Vec<&str> = text.lines().take(2).collect();
    std::fs::write(&file, first_two.join("\n") + "\n").unwrap();
    let mut config =
        String::from("[client]\nmax_retries = 0\nmax_repairs = 1\ndeadline_s = 3600\n");
    config.push_str(&local_models(&path, &[("smol", "max_tokens = 16")]));
    std::fs::write(dir.path().join("mg.toml"), config).unwrap();
    let out = std::process::Command::new(bin)
        .args([
            "eval",
            "run",
            "--trees",
            "trees/muma-tom.jsonl",
            "--subject",
            "limp:smol",
            "--config",
            "mg.toml",
            "--run",
            "limp",
            "--store",
            "ws.db",
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    println!("{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "limp over the local model failed");
    let out = std::process::Command::new(bin)
        .args([
            "eval", "report", "limp", "--format", "json", "--store", "ws.db",
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let answers = report["runs"][0]["limp"]
        .as_array()
        .expect("likelihoods reported");
    assert_eq!(answers.len(), 1);
    let record = &answers[0]["record"];
    println!("{record}");
    let options = record["options"].as_array().unwrap();
    assert_eq!(options.len(), 3);
    assert!(options
        .iter()
        .all(|o| o["rating"].as_u64().is_some_and(|r| r <= 10)));
    assert_eq!(record["choice"].as_array().unwrap().len(), 1);
    // The local backend gives token log-probabilities: the expected ratings decide.
    assert_eq!(record["method"], "logprob", "{record}");
    assert!(options.iter().all(|o| o["expected_rating"]
        .as_f64()
        .is_some_and(|e| (0.0..=10.0).contains(&e))));
}
