//! The model client driven over real HTTP against the loopback server: faults,
//! retries, deadlines, structured output, embeddings, replay, budget, rules.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::common::llm::*;
use moviegraph::llm::{
    ChatRequest, Completion, Config, Llm, LlmError, LlmOptions, Message, ModelConfig, RulesRegistry,
};
use moviegraph::store::Store;
use serde_json::{json, Value};

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {"echo": {"type": "string"}},
        "required": ["echo"],
        "additionalProperties": false
    })
}

/// Answers `{"echo": <first user text>}` as JSON content.
fn json_echo() -> Responder {
    Arc::new(|req: &Request| {
        if req.path.ends_with("/embeddings") {
            return echo_responder()(req);
        }
        Reply::chat(&json!({"echo": req.key}).to_string())
    })
}

fn ask(text: &str) -> ChatRequest {
    ChatRequest::new(vec![Message::system("echo"), Message::user(text)])
        .with_schema("echo", schema())
}

/// Runs `n` requests at once; returns each caller's result (index = request) and the time.
fn run_many(llm: &Llm, n: usize, prefix: &str) -> (Vec<Result<Completion, LlmError>>, Duration) {
    let handle = llm.model("m", "generator").unwrap();
    let rt = runtime();
    let prefix = prefix.to_string();
    rt.block_on(async move {
        let start = Instant::now();
        let mut set = tokio::task::JoinSet::new();
        for i in 0..n {
            let handle = handle.clone();
            let text = format!("{prefix} {i}");
            set.spawn(async move { (i, handle.chat(&ask(&text)).await) });
        }
        let mut out: Vec<Option<Result<Completion, LlmError>>> = (0..n).map(|_| None).collect();
        while let Some(joined) = set.join_next().await {
            let (i, r) = joined.unwrap();
            assert!(out[i].is_none(), "request {i} answered twice");
            out[i] = Some(r);
        }
        (
            out.into_iter()
                .map(|r| r.expect("every request answered"))
                .collect(),
            start.elapsed(),
        )
    })
}

#[test]
fn a_fault_mix_of_30_percent_answers_2000_requests_exactly_once() {
    const N: usize = 2000;
    const CONCURRENCY: usize = 64;
    let timeout = Duration::from_millis(250);

    // The fault-free run, for the time bound.
    let clean = LoopbackServer::start(ServerOptions {
        responder: json_echo(),
        threads: 1,
        ..ServerOptions::default()
    })
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let llm = client(
        config_with("m", &[&clean.url()], CONCURRENCY, timeout),
        Store::open(&dir.path().join("clean.db")).unwrap(),
        LlmOptions::default(),
    );
    let (results, clean_time) = run_many(&llm, N, "q");
    assert!(results.iter().all(Result::is_ok));
    drop(clean);

    let kinds = vec![
        Fault::RateLimited(Some(Duration::from_millis(50))),
        Fault::RateLimited(None),
        Fault::RateLimitedReset(Duration::from_millis(40)),
        Fault::ServerError(500),
        Fault::ServerError(502),
        Fault::ServerError(503),
        Fault::Reset,
        Fault::Slow(Duration::from_millis(600)),
        Fault::Truncated,
        Fault::InvalidJson,
        Fault::SchemaViolation,
    ];
    let faulty = LoopbackServer::start(ServerOptions {
        responder: json_echo(),
        faults: Some(fault_mix(7, 0.30, kinds.clone())),
        threads: 1,
        ..ServerOptions::default()
    })
    .unwrap();
    let db = dir.path().join("faults.db");
    let config = config_with("m", &[&faulty.url()], CONCURRENCY, timeout);
    let policy = config.client.clone();
    let llm = client(config, Store::open(&db).unwrap(), LlmOptions::default());
    let (results, fault_time) = run_many(&llm, N, "q");

    // Every caller got its own answer, once.
    for (i, r) in results.iter().enumerate() {
        let c = r
            .as_ref()
            .unwrap_or_else(|e| panic!("request {i} failed: {e}"));
        assert_eq!(c.json.as_ref().unwrap()["echo"], format!("q {i}"));
        assert!(!c.cached);
    }
    let counters = faulty.counters();
    let faults = counters.faults();
    let injected: u64 = faults.values().sum();
    let per_key = counters.per_key();
    assert_eq!(per_key.len(), N);
    // Each logical request was answered successfully by the server exactly once:
    // no duplicate paid calls, and no duplicate cache rows.
    assert!(
        per_key.values().all(|k| k.successes == 1),
        "a request was answered twice"
    );
    let store = Store::open(&db).unwrap();
    assert_eq!(store.llm_cache_len().unwrap(), N as u64);
    assert_eq!(store.integrity_check().unwrap(), ["ok"]);
    // Retries within the cap (each repair round may retry up to the cap).
    let cap = u64::from((policy.max_retries + 1) * (policy.max_repairs + 1));
    let max_attempts = per_key.values().map(|k| k.attempts).max().unwrap();
    assert!(max_attempts <= cap, "{max_attempts} attempts > cap {cap}");
    let calls = store.llm_calls(llm.run()).unwrap();
    assert_eq!(calls.len(), N);
    for call in &calls {
        assert!(call.error.is_none());
        assert!(
            call.attempts <= (policy.max_retries + 1) * (call.repairs + 1),
            "{call:?}"
        );
    }
    // The mix really was ~30% of attempts, with every kind present.
    let attempts = counters.requests();
    let rate = injected as f64 / attempts as f64;
    assert!((0.25..0.35).contains(&rate), "fault rate {rate}");
    for k in &kinds {
        assert!(
            faults.get(k.label()).copied().unwrap_or(0) > 0,
            "{} never injected",
            k.label()
        );
    }
    // Time: within 2× the fault-free run plus the delays the faults imposed (waits
    // the server asked for, client backoff, timeouts of slow replies) spread over
    // the concurrent callers, plus the slowest single call (the last wave's tail).
    let stats = llm.stats();
    let slow = faults.get("slow").copied().unwrap_or(0);
    let imposed = Duration::from_millis(stats.waited_ms) + timeout * slow as u32;
    let tail = Duration::from_millis(calls.iter().map(|c| c.latency_ms).max().unwrap());
    let bound = clean_time * 2 + imposed / CONCURRENCY as u32 + tail;
    eprintln!(
        "fault mix: {N} requests, {attempts} attempts, {injected} faults ({:.1}%): {faults:?}; \
         retries {}, repairs {}, max attempts per request {max_attempts}; \
         clean {:.2} s, faulty {:.2} s, bound {:.2} s (imposed delays {:.1} s summed, slowest call {:.2} s)",
        rate * 100.0,
        stats.retries,
        stats.repairs,
        clean_time.as_secs_f64(),
        fault_time.as_secs_f64(),
        bound.as_secs_f64(),
        imposed.as_secs_f64(),
        tail.as_secs_f64()
    );
    assert!(fault_time <= bound, "{fault_time:?} > {bound:?}");
}

#[test]
fn retry_after_and_rate_limit_reset_headers_are_honoured() {
    for (fault, wait) in [
        (Fault::RateLimitedSeconds(1), Duration::from_secs(1)),
        (
            Fault::RateLimitedReset(Duration::from_millis(300)),
            Duration::from_millis(300),
        ),
    ] {
        let plan: FaultPlan = {
            let fault = fault.clone();
            Arc::new(move |r: &Request| (r.attempt == 1).then(|| fault.clone()))
        };
        let server = LoopbackServer::start(ServerOptions {
            faults: Some(plan),
            ..ServerOptions::default()
        })
        .unwrap();
        let mut config = config_with("m", &[&server.url()], 4, Duration::from_secs(5));
        config.client.backoff_base_ms = 1;
        let llm = client(
            config,
            Store::open_in_memory().unwrap(),
            LlmOptions::default(),
        );
        let h = llm.model("m", "t").unwrap();
        let start = Instant::now();
        let c = runtime()
            .block_on(h.chat(&ChatRequest::new(vec![Message::user("hi")])))
            .unwrap();
        assert_eq!(c.text, "echo: hi");
        assert!(
            start.elapsed() >= wait,
            "{fault:?}: waited only {:?}",
            start.elapsed()
        );
        assert_eq!(server.counters().requests(), 2);
    }
}

#[test]
fn the_retry_cap_and_fatal_errors_stop_attempts() {
    let always: FaultPlan = Arc::new(|_| Some(Fault::ServerError(503)));
    let server = LoopbackServer::start(ServerOptions {
        faults: Some(always),
        ..ServerOptions::default()
    })
    .unwrap();
    let mut config = config_with("m", &[&server.url()], 4, Duration::from_secs(5));
    config.client.max_retries = 3;
    let llm = client(
        config,
        Store::open_in_memory().unwrap(),
        LlmOptions::default(),
    );
    let h = llm.model("m", "t").unwrap();
    let err = runtime()
        .block_on(h.chat(&ChatRequest::new(vec![Message::user("x")])))
        .unwrap_err();
    assert!(matches!(err, LlmError::Failed { attempts: 4, .. }), "{err}");
    assert!(err.to_string().contains("HTTP 503"), "{err}");
    assert_eq!(server.counters().requests(), 4);

    let bad: Responder = Arc::new(|_| Reply::error(400, "model does not exist"));
    let server = LoopbackServer::start(ServerOptions {
        responder: bad,
        ..ServerOptions::default()
    })
    .unwrap();
    let llm = client(
        config_with("m", &[&server.url()], 4, Duration::from_secs(5)),
        Store::open_in_memory().unwrap(),
        LlmOptions::default(),
    );
    let err = runtime()
        .block_on(
            llm.model("m", "t")
                .unwrap()
                .chat(&ChatRequest::new(vec![Message::user("x")])),
        )
        .unwrap_err();
    assert!(matches!(err, LlmError::Failed { attempts: 1, .. }), "{err}");
    assert!(err.to_string().contains("model does not exist"));
}

#[test]
fn the_total_deadline_ends_a_call_that_keeps_being_rate_limited() {
    let always: FaultPlan =
        Arc::new(|_| Some(Fault::RateLimited(Some(Duration::from_millis(300)))));
    let server = LoopbackServer::start(ServerOptions {
        faults: Some(always),
        ..ServerOptions::default()
    })
    .unwrap();
    let mut config = config_with("m", &[&server.url()], 4, Duration::from_secs(5));
    config.client.deadline_s = 1.0;
    config.client.max_retries = 100;
    let llm = client(
        config,
        Store::open_in_memory().unwrap(),
        LlmOptions::default(),
    );
    let start = Instant::now();
    let err = runtime()
        .block_on(
            llm.model("m", "t")
                .unwrap()
                .chat(&ChatRequest::new(vec![Message::user("x")])),
        )
        .unwrap_err();
    assert!(matches!(err, LlmError::Deadline { .. }), "{err}");
    assert!(
        start.elapsed() < Duration::from_millis(1500),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn slow_replies_time_out_and_are_retried() {
    let plan: FaultPlan =
        Arc::new(|r: &Request| (r.attempt == 1).then_some(Fault::Slow(Duration::from_secs(3))));
    let server = LoopbackServer::start(ServerOptions {
        faults: Some(plan),
        ..ServerOptions::default()
    })
    .unwrap();
    let llm = client(
        config_with("m", &[&server.url()], 4, Duration::from_millis(200)),
        Store::open_in_memory().unwrap(),
        LlmOptions::default(),
    );
    let start = Instant::now();
    let c = runtime()
        .block_on(
            llm.model("m", "t")
                .unwrap()
                .chat(&ChatRequest::new(vec![Message::user("s")])),
        )
        .unwrap();
    assert_eq!(c.text, "echo: s");
    assert!(start.elapsed() < Duration::from_secs(2));
    assert_eq!(llm.stats().retries, 1);
}

#[test]
fn concurrency_is_bounded_per_endpoint_and_balanced_over_base_urls() {
    let opts = || ServerOptions {
        latency: Duration::from_millis(20),
        ..ServerOptions::default()
    };
    let (a, b) = (
        LoopbackServer::start(opts()).unwrap(),
        LoopbackServer::start(opts()).unwrap(),
    );
    let llm = client(
        config_with("m", &[&a.url(), &b.url()], 3, Duration::from_secs(5)),
        Store::open_in_memory().unwrap(),
        LlmOptions::default(),
    );
    let h = llm.model("m", "t").unwrap();
    runtime().block_on(async {
        let mut set = tokio::task::JoinSet::new();
        for i in 0..60 {
            let h = h.clone();
            set.spawn(async move {
                h.chat(&ChatRequest::new(vec![Message::user(format!("c{i}"))]))
                    .await
                    .unwrap()
            });
        }
        while set.join_next().await.is_some() {}
    });
    for s in [&a, &b] {
        assert_eq!(s.counters().requests(), 30);
        assert!(
            s.counters().max_in_flight() <= 3,
            "{}",
            s.counters().max_in_flight()
        );
        assert!(s.counters().max_in_flight() >= 2);
    }
}

#[test]
fn broken_structured_output_is_repaired_or_kept_raw() {
    // Fenced JSON on the first try is accepted; prose first, JSON after a repair.
    let responder: Responder = Arc::new(|r: &Request| {
        let turns = r.body["messages"].as_array().unwrap().len();
        match (r.key.as_str(), turns) {
            ("fenced", _) => Reply::chat("```json\n{\"echo\": \"fenced\"}\n```"),
            ("repairable", 2) => Reply::chat("I think the answer is yes."),
            ("repairable", _) => Reply::chat("{\"echo\": \"fixed\"}"),
            _ => Reply::chat("{\"wrong\": 1}"),
        }
    });
    let server = LoopbackServer::start(ServerOptions {
        responder,
        ..ServerOptions::default()
    })
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let mut config = config_with("m", &[&server.url()], 4, Duration::from_secs(5));
    config.client.max_repairs = 2;
    let llm = client(config, Store::open(&db).unwrap(), LlmOptions::default());
    let h = llm.model("m", "judge").unwrap();
    let rt = runtime();
    assert_eq!(
        rt.block_on(h.chat(&ask("fenced"))).unwrap().json.unwrap()["echo"],
        "fenced"
    );
    let fixed = rt.block_on(h.chat(&ask("repairable"))).unwrap();
    assert_eq!(fixed.json.unwrap()["echo"], "fixed");
    let err = rt.block_on(h.chat(&ask("hopeless"))).unwrap_err();
    match &err {
        LlmError::InvalidOutput { repairs, raw, .. } => {
            assert_eq!(*repairs, 2);
            assert_eq!(raw, "{\"wrong\": 1}");
        }
        other => panic!("{other}"),
    }
    // The repair turn told the model what was wrong.
    let calls = Store::open(&db).unwrap().llm_calls(llm.run()).unwrap();
    let failed = calls.iter().find(|c| c.error.is_some()).unwrap();
    assert_eq!(failed.raw_text.as_deref(), Some("{\"wrong\": 1}"));
    assert_eq!(failed.attempts, 3);
    // Failures are not cached: two answers are.
    assert_eq!(Store::open(&db).unwrap().llm_cache_len().unwrap(), 2);
}

#[test]
fn a_server_that_refuses_json_schema_gets_json_mode() {
    let seen = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let log = seen.clone();
    let responder: Responder = Arc::new(move |r: &Request| {
        let ty = r
            .body
            .pointer("/response_format/type")
            .and_then(Value::as_str)
            .unwrap_or("none")
            .to_string();
        log.lock().unwrap().push(ty.clone());
        if ty == "json_schema" {
            Reply::error(
                400,
                "response_format json_schema is not supported by this server",
            )
        } else {
            Reply::chat(&json!({"echo": r.key}).to_string())
        }
    });
    let server = LoopbackServer::start(ServerOptions {
        responder,
        ..ServerOptions::default()
    })
    .unwrap();
    let llm = client(
        config_with("m", &[&server.url()], 4, Duration::from_secs(5)),
        Store::open_in_memory().unwrap(),
        LlmOptions::default(),
    );
    let h = llm.model("m", "t").unwrap();
    let rt = runtime();
    rt.block_on(h.chat(&ask("one"))).unwrap();
    rt.block_on(h.chat(&ask("two"))).unwrap();
    // One refusal, then the model stays on JSON mode.
    assert_eq!(
        *seen.lock().unwrap(),
        ["json_schema", "json_object", "json_object"]
    );
}

#[test]
fn a_rerun_is_served_from_the_cache_and_repeats_no_call() {
    let server = LoopbackServer::start(ServerOptions {
        responder: json_echo(),
        ..ServerOptions::default()
    })
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.db");
    let config = config_with("m", &[&server.url()], 8, Duration::from_secs(5));
    for round in 0..2 {
        let llm = client(
            config.clone(),
            Store::open(&db).unwrap(),
            LlmOptions::default(),
        );
        let (results, _) = run_many(&llm, 50, "r");
        assert!(results
            .iter()
            .all(|r| r.as_ref().unwrap().cached == (round == 1)));
        let totals = llm.totals().unwrap();
        assert_eq!(totals[0].cache_hits, if round == 1 { 50 } else { 0 });
    }
    assert_eq!(server.counters().requests(), 50);
}

#[test]
fn embeddings_are_retried_cached_and_in_order() {
    let plan: FaultPlan =
        Arc::new(|r: &Request| (r.attempt == 1).then_some(Fault::ServerError(502)));
    let server = LoopbackServer::start(ServerOptions {
        faults: Some(plan),
        ..ServerOptions::default()
    })
    .unwrap();
    let mut config = config_with("emb", &[&server.url()], 4, Duration::from_secs(5));
    config.models.get_mut("emb").unwrap().price_input_per_1k = 1.0;
    let llm = client(
        config,
        Store::open_in_memory().unwrap(),
        LlmOptions::default(),
    );
    let h = llm.model("emb", "embedder").unwrap();
    let texts: Vec<String> = ["a door", "a key", "a lie"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let rt = runtime();
    let v = rt.block_on(h.embed(&texts)).unwrap();
    assert_eq!(v, texts.iter().map(|t| fake_vector(t)).collect::<Vec<_>>());
    assert_eq!(server.counters().requests(), 2);
    assert_eq!(rt.block_on(h.embed(&texts)).unwrap(), v);
    assert_eq!(server.counters().requests(), 2);
    let totals = llm.totals().unwrap();
    assert_eq!(
        (
            totals[0].calls,
            totals[0].cache_hits,
            totals[0].input_tokens
        ),
        (2, 1, 12)
    );
    assert!((llm.spent() - 0.012).abs() < 1e-9);
}

#[test]
fn replay_serves_recorded_answers_and_refuses_the_rest() {
    let server = LoopbackServer::start(ServerOptions::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let recorded = dir.path().join("recorded.db");
    let config = config_with("m", &[&server.url()], 4, Duration::from_secs(5));
    let llm = client(
        config.clone(),
        Store::open(&recorded).unwrap(),
        LlmOptions::default(),
    );
    let rt = runtime();
    let first = rt
        .block_on(
            llm.model("m", "subject")
                .unwrap()
                .chat(&ChatRequest::new(vec![Message::user("seen")])),
        )
        .unwrap();
    drop(llm);

    let mut config = config;
    config.models.insert(
        "again".into(),
        ModelConfig {
            replay_of: Some("m".into()),
            replay_store: Some(recorded.clone()),
            ..ModelConfig {
                backend: moviegraph::llm::BackendKind::Replay,
                ..ModelConfig::rules()
            }
        },
    );
    let llm = client(
        config,
        Store::open_in_memory().unwrap(),
        LlmOptions::default(),
    );
    let h = llm.model("again", "subject").unwrap();
    let replayed = rt
        .block_on(h.chat(&ChatRequest::new(vec![Message::user("seen")])))
        .unwrap();
    assert_eq!(replayed.text, first.text);
    assert!(replayed.cached);
    let err = rt
        .block_on(h.chat(&ChatRequest::new(vec![Message::user("never")])))
        .unwrap_err();
    assert!(matches!(err, LlmError::NotRecorded { .. }), "{err}");
    assert_eq!(server.counters().requests(), 1);
}

#[test]
fn the_budget_stops_calls_before_the_cap_is_exceeded() {
    let server = LoopbackServer::start(ServerOptions::default()).unwrap();
    let mut config = config_with("m", &[&server.url()], 1, Duration::from_secs(5));
    {
        let m = config.models.get_mut("m").unwrap();
        m.price_input_per_1k = 1.0;
        m.price_output_per_1k = 1.0;
        m.max_tokens = Some(50);
    }
    let cap = 0.5;
    let llm = client(
        config,
        Store::open_in_memory().unwrap(),
        LlmOptions {
            max_cost: Some(cap),
            ..LlmOptions::default()
        },
    );
    let h = llm.model("m", "generator").unwrap();
    let rt = runtime();
    let mut answered = 0;
    let mut stopped = false;
    for i in 0..200 {
        match rt.block_on(h.chat(&ChatRequest::new(vec![Message::user(format!(
            "budget {i}"
        ))]))) {
            Ok(_) => answered += 1,
            Err(LlmError::Budget { spent, .. }) => {
                assert!(spent <= cap);
                stopped = true;
                break;
            }
            Err(e) => panic!("{e}"),
        }
    }
    assert!(stopped && answered > 5, "answered {answered}");
    assert!(llm.spent() <= cap, "{}", llm.spent());
    assert_eq!(server.counters().requests(), answered);
}

#[test]
fn rules_tasks_run_through_the_client_with_validation_and_cache() {
    let calls = Arc::new(AtomicU64::new(0));
    let counted = calls.clone();
    let mut rules = RulesRegistry::new();
    rules.register("test.upper", move |call| {
        counted.fetch_add(1, Ordering::SeqCst);
        let word = call.task.payload["word"].as_str().ok_or("no word")?;
        Ok(json!({"echo": word.to_uppercase()}).to_string())
    });
    let llm = client(
        Config::offline(),
        Store::open_in_memory().unwrap(),
        LlmOptions {
            rules,
            ..LlmOptions::default()
        },
    );
    let h = llm
        .role(moviegraph::llm::Role::Generator)
        .unwrap()
        .remove(0);
    let rt = runtime();
    let req = ask("x").with_task("test.upper", json!({"word": "key"}));
    assert_eq!(
        rt.block_on(h.chat(&req)).unwrap().json.unwrap()["echo"],
        "KEY"
    );
    assert!(rt.block_on(h.chat(&req)).unwrap().cached);
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    let err = rt
        .block_on(h.chat(&ask("x").with_task("unknown.kind", json!({}))))
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("no handler for task kind \"unknown.kind\""),
        "{err}"
    );
    let by_role: HashMap<String, u64> = llm
        .totals()
        .unwrap()
        .into_iter()
        .map(|t| (t.role, t.calls))
        .collect();
    assert_eq!(by_role["generator"], 3);
}
