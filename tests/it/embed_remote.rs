//! The OpenAI-compatible `/v1/embeddings` embedder, end to end through the model
//! layer and a loopback server that serves the hashed n-gram vectors: the
//! alignment it gives must equal the in-process hashed embedder's exactly, and
//! a failing endpoint must be retried, then reported.

use std::path::PathBuf;
use std::process::Command;
use std::sync::{Arc, Mutex};

use moviegraph::align::{align_with, AlignOptions};
use moviegraph::embed::{Embedder, HashedNgramEmbedder, RemoteEmbedder};
use moviegraph::llm::{Config, Llm, LlmOptions, ModelConfig};
use moviegraph::media::subtitles;
use moviegraph::screenplay;
use moviegraph::store::Store;
use moviegraph_loopback::{LoopbackServer, Reply, Request, Responder, ServerOptions};
use serde_json::{json, Value};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Serves `/v1/embeddings` with the hashed n-gram vectors, unnormalized by a
/// factor of 3 so the client's normalization is exercised too.
fn hashed_server() -> LoopbackServer {
    let responder: Responder = Arc::new(|req: &Request| {
        let inputs: Vec<String> = match &req.body["input"] {
            Value::Array(items) => items
                .iter()
                .map(|v| v.as_str().unwrap_or("").to_string())
                .collect(),
            _ => return Reply::error(400, "input must be a list"),
        };
        let data: Vec<Value> = inputs
            .iter()
            .enumerate()
            .map(|(i, text)| {
                let v: Vec<f32> = HashedNgramEmbedder
                    .embed(text)
                    .unwrap()
                    .iter()
                    .map(|x| x * 3.0)
                    .collect();
                json!({"object": "embedding", "index": i, "embedding": v})
            })
            .collect();
        Reply::ok(
            json!({"object": "list", "data": data, "model": req.body["model"],
                         "usage": {"prompt_tokens": inputs.len(), "total_tokens": inputs.len()}}),
        )
    });
    LoopbackServer::start(ServerOptions {
        responder,
        ..ServerOptions::default()
    })
    .unwrap()
}

fn config(url: &str) -> Config {
    let mut config = Config::offline();
    config
        .models
        .insert("emb".into(), ModelConfig::openai("emb", &[url]));
    config
}

#[test]
fn remote_embeddings_match_the_sample_film_like_the_local_hashed_embedder() {
    let server = hashed_server();
    let llm = Llm::new(
        config(&server.url()),
        Arc::new(Mutex::new(Store::open_in_memory().unwrap())),
        LlmOptions::default(),
    )
    .unwrap();
    let remote = RemoteEmbedder::new(llm.model("emb", "embedder").unwrap()).unwrap();
    let dir = root().join("screenplays/the-second-key");
    let play = screenplay::parse_file(&dir.join("script.fountain"), None).unwrap();
    let subs = subtitles::parse_file(&dir.join("subtitles.srt"), None).unwrap();
    let opts = AlignOptions::default();
    let local = align_with(&play, &subs, &opts, &HashedNgramEmbedder).unwrap();
    let over_http = align_with(&play, &subs, &opts, &remote).unwrap();
    // The local hashed embedder builds a group's vector by adding its items'
    // n-gram counts; over HTTP the joined text is embedded, so confidences differ
    // in the last digits. The matches, times and blocks must not.
    let matches = |a: &moviegraph::align::Alignment| -> Vec<_> {
        a.alignments
            .iter()
            .map(|l| (l.element, l.cues.clone(), l.start_ms, l.end_ms))
            .collect()
    };
    assert_eq!(matches(&over_http), matches(&local));
    assert_eq!(over_http.blocks, local.blocks);
    assert_eq!(over_http.summary.verdict, local.summary.verdict);
    assert_eq!(remote.dims(), moviegraph::embed::HASH_DIMS);
    assert!(remote
        .model_id()
        .starts_with("remote:emb:http://127.0.0.1:"));
    assert!(server.counters().requests() >= 1);
}

#[test]
fn align_with_embedder_model_uses_the_configured_endpoint() {
    let server = hashed_server();
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("moviegraph.toml");
    std::fs::write(
        &cfg,
        format!(
            "[models.emb]\nbackend = \"openai\"\nbase_url = \"{}\"\n\n[roles]\nembedder = \"emb\"\n",
            server.url()
        ),
    )
    .unwrap();
    let dir = root().join("screenplays/the-second-key");
    let out = Command::new(env!("CARGO_BIN_EXE_moviegraph"))
        .args(["align", "--script"])
        .arg(dir.join("script.fountain"))
        .arg("--subtitles")
        .arg(dir.join("subtitles.srt"))
        .args(["--embedder", "model", "--config"])
        .arg(&cfg)
        .arg("--eval")
        .arg(dir.join("alignment_gold.json"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("embedder: emb"), "{stdout}");
    assert!(stdout.contains("precision 1.0000"), "{stdout}");
    assert!(server.counters().requests() >= 1);
}

#[test]
fn an_unreachable_embedding_endpoint_is_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("moviegraph.toml");
    // A port nobody listens on: bind, note the port, close.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    std::fs::write(
        &cfg,
        format!(
            "[models.emb]\nbackend = \"openai\"\nbase_url = \"http://127.0.0.1:{port}/v1\"\ntimeout_s = 2\n\n[roles]\nembedder = \"emb\"\n\n[client]\nmax_retries = 1\n"
        ),
    )
    .unwrap();
    let dir = root().join("screenplays/the-second-key");
    let out = Command::new(env!("CARGO_BIN_EXE_moviegraph"))
        .args(["align", "--script"])
        .arg(dir.join("script.fountain"))
        .arg("--subtitles")
        .arg(dir.join("subtitles.srt"))
        .args(["--embedder", "model", "--config"])
        .arg(&cfg)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("embedding with emb"), "{stderr}");
}
