//! `--subject limp:MODEL`, the inverse-planning solver, over loopback HTTP:
//! the server rates each hypothesis by a script, and every answer must be the
//! option the scripted likelihoods make most probable (least, for a LEAST
//! question; ties to the first shown), recorded in the stored reply and in
//! `eval report --format json`, with every rating call cached.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::common::llm::*;
use crate::common::{moviegraph_in, root, said};
use moviegraph::trees::jsonl::read_trees;
use serde_json::Value;

/// The scripted rating of a hypothesis: deterministic, with ties.
fn scripted(hypothesis: &str) -> u64 {
    (hypothesis.len() as u64 * 7) % 11 / 2
}

/// The hypothesis a rating request carries.
fn hypothesis_of(body: &Value) -> Option<String> {
    let user = body["messages"]
        .as_array()?
        .iter()
        .rev()
        .find(|m| m["role"] == "user")?;
    let text = match &user["content"] {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join(""),
        _ => return None,
    };
    let after = text.split("\nHypothesis: ").nth(1)?;
    Some(after.split("\n\n").next()?.to_owned())
}

/// Starts the loopback server on `responder` and writes `dir/mg.toml`
/// naming it as model `loop`.
fn serve_as_loop(dir: &std::path::Path, responder: Responder) -> LoopbackServer {
    let server = LoopbackServer::start(ServerOptions {
        responder,
        ..ServerOptions::default()
    })
    .unwrap();
    std::fs::write(
        dir.join("mg.toml"),
        format!(
            "[models.loop]\nbackend = \"openai\"\nbase_url = \"{}\"\ntimeout_s = 60\n\
             concurrency = 1\n\n[client]\nmax_retries = 2\nbackoff_base_ms = 5\n\
             backoff_max_ms = 50\ndeadline_s = 120\nmax_repairs = 1\n",
            server.url()
        ),
    )
    .unwrap();
    server
}

#[test]
fn the_limp_subject_answers_with_the_scripted_likeliest_option_and_records_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = crate::trees_import::import_muma(dir.path());
    assert!(out.status.success(), "{}", said(&out));
    let asked: Arc<Mutex<Vec<String>>> = Arc::default();
    let log = Arc::clone(&asked);
    let responder: Responder = Arc::new(move |req: &Request| {
        let Some(h) = hypothesis_of(&req.body) else {
            return Reply::chat("no hypothesis in the request");
        };
        log.lock().unwrap().push(h.clone());
        Reply::chat(&format!("{{\"rating\": {}}}", scripted(&h)))
    });
    let _server = serve_as_loop(dir.path(), responder);
    let eval_run = |id: &str| {
        moviegraph_in(
            dir.path(),
            &[
                "eval",
                "run",
                "--trees",
                "trees/muma-tom.jsonl",
                "--subject",
                "limp:loop",
                "--config",
                "mg.toml",
                "--run",
                id,
                "--store",
                "ws.db",
            ],
        )
    };
    let out = eval_run("limp");
    assert!(out.status.success(), "{}", said(&out));
    let trees = read_trees(&dir.path().join("trees/muma-tom.jsonl")).unwrap();
    assert_eq!(asked.lock().unwrap().len(), 12 * 3, "one rating per option");

    let out = moviegraph_in(
        dir.path(),
        &[
            "eval", "report", "limp", "--format", "json", "--store", "ws.db",
        ],
    );
    assert!(out.status.success(), "{}", said(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let run = &report["runs"][0];
    assert_eq!(run["subject"], "limp:loop");
    let records: HashMap<String, &Value> = run["limp"]
        .as_array()
        .expect("the report carries the likelihoods")
        .iter()
        .map(|a| (a["tree"].as_str().unwrap().to_owned(), a))
        .collect();
    assert_eq!(records.len(), 12);
    let mut ties = 0;
    for tree in &trees {
        let node = &tree.nodes[0];
        let ratings: Vec<u64> = node.options.iter().map(|o| scripted(&o.text)).collect();
        let least = node.question.to_lowercase().contains("least likely");
        let target = if least {
            *ratings.iter().min().unwrap()
        } else {
            *ratings.iter().max().unwrap()
        };
        if ratings.iter().filter(|&&r| r == target).count() > 1 {
            ties += 1;
        }
        // The first option shown with the winning rating.
        let expected = &node.options[ratings.iter().position(|&r| r == target).unwrap()].label;
        let answer = records[&tree.id];
        let record = &answer["record"];
        assert_eq!(
            record["choice"],
            serde_json::json!([expected]),
            "{}",
            tree.id
        );
        assert_eq!(record["least"], least);
        let options = record["options"].as_array().unwrap();
        for (o, r) in options.iter().zip(&ratings) {
            assert_eq!(o["rating"].as_u64(), Some(*r));
            let likelihood = (*r as f64 + 0.5) / 11.0;
            assert!((o["likelihood"].as_f64().unwrap() - likelihood).abs() < 1e-9);
        }
        let total: f64 = options
            .iter()
            .map(|o| o["posterior"].as_f64().unwrap())
            .sum();
        assert!((total - 1.0).abs() < 1e-9, "{}", tree.id);
        let gold = node.options.iter().find(|o| o.correct).unwrap();
        assert_eq!(answer["correct"], gold.label == *expected, "{}", tree.id);
    }
    eprintln!("{ties} of 12 questions had a tie, broken to the first shown");

    // Rerun as a new run: every rating is answered from the model layer's cache.
    let before = asked.lock().unwrap().len();
    let out = eval_run("limp-again");
    assert!(out.status.success(), "{}", said(&out));
    assert_eq!(
        asked.lock().unwrap().len(),
        before,
        "cached, not asked again"
    );
}

/// The scripted probabilities of ratings 2 and 9 for a hypothesis: p(9)
/// from its length, the rest on 2. The written rating is the likelier one.
fn scripted_split(hypothesis: &str) -> f64 {
    (hypothesis.len() % 10) as f64 / 10.0 + 0.05
}

#[test]
fn with_token_logprobs_the_expected_rating_decides() {
    let dir = tempfile::tempdir().unwrap();
    let out = crate::trees_import::import_muma(dir.path());
    assert!(out.status.success(), "{}", said(&out));
    let asked_logprobs = Arc::new(Mutex::new(0usize));
    let counted = Arc::clone(&asked_logprobs);
    let responder: Responder = Arc::new(move |req: &Request| {
        let Some(h) = hypothesis_of(&req.body) else {
            return Reply::chat("no hypothesis in the request");
        };
        if req.body["logprobs"] == true && req.body["top_logprobs"].as_u64().unwrap_or(0) >= 11 {
            *counted.lock().unwrap() += 1;
        }
        let p9 = scripted_split(&h);
        let (written, lp) = if p9 >= 0.5 {
            ("9", p9.ln())
        } else {
            ("2", (1.0 - p9).ln())
        };
        Reply::ok(serde_json::json!({
            "id": "x", "object": "chat.completion", "created": 0, "model": "loopback",
            "choices": [{
                "index": 0,
                "message": {"role": "assistant", "content": format!("{{\"rating\": {written}}}")},
                "logprobs": {"content": [
                    {"token": "{\"rating\": ", "logprob": -0.01, "top_logprobs": []},
                    {"token": written, "logprob": lp, "top_logprobs": [
                        {"token": "9", "logprob": p9.ln()},
                        {"token": "2", "logprob": (1.0 - p9).ln()}
                    ]},
                    {"token": "}", "logprob": -0.01, "top_logprobs": []}
                ]},
                "finish_reason": "stop"
            }],
            "usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13}
        }))
    });
    let _server = serve_as_loop(dir.path(), responder);
    let out = moviegraph_in(
        dir.path(),
        &[
            "eval",
            "run",
            "--trees",
            "trees/muma-tom.jsonl",
            "--subject",
            "limp:loop",
            "--config",
            "mg.toml",
            "--run",
            "lp",
            "--store",
            "ws.db",
        ],
    );
    assert!(out.status.success(), "{}", said(&out));
    assert_eq!(
        *asked_logprobs.lock().unwrap(),
        36,
        "every rating asks for log-probabilities"
    );
    let out = moviegraph_in(
        dir.path(),
        &[
            "eval", "report", "lp", "--format", "json", "--store", "ws.db",
        ],
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let trees = read_trees(&dir.path().join("trees/muma-tom.jsonl")).unwrap();
    let answers = report["runs"][0]["limp"].as_array().unwrap();
    assert_eq!(answers.len(), 12);
    for (tree, answer) in trees.iter().zip(answers) {
        assert_eq!(answer["tree"], tree.id.as_str());
        let record = &answer["record"];
        assert_eq!(record["method"], "logprob", "{record}");
        let node = &tree.nodes[0];
        let expected: Vec<f64> = node
            .options
            .iter()
            .map(|o| {
                let p9 = scripted_split(&o.text);
                9.0 * p9 + 2.0 * (1.0 - p9)
            })
            .collect();
        for (o, e) in record["options"].as_array().unwrap().iter().zip(&expected) {
            assert!(
                (o["expected_rating"].as_f64().unwrap() - e).abs() < 1e-6,
                "{record}"
            );
        }
        let least = node.question.to_lowercase().contains("least likely");
        let mut best = 0;
        for (i, e) in expected.iter().enumerate() {
            if (least && *e < expected[best]) || (!least && *e > expected[best]) {
                best = i;
            }
        }
        assert_eq!(
            record["choice"],
            serde_json::json!([node.options[best].label]),
            "{record}"
        );
    }
}

#[test]
fn limp_needs_a_model_that_answers() {
    let dir = tempfile::tempdir().unwrap();
    let out = moviegraph_in(
        dir.path(),
        &[
            "eval",
            "run",
            "--trees",
            root().join("trees/the-second-key.jsonl").to_str().unwrap(),
            "--subject",
            "limp:nosuch",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(
        said(&out).contains("LIMP solver needs a model"),
        "{}",
        said(&out)
    );
}
