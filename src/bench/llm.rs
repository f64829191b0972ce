//! `moviegraph bench llm`: client throughput against the loopback server, beside the
//! Python `openai` client on the same server in the same run.

use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::Args;
use moviegraph::llm::{ChatRequest, Config, Llm, LlmOptions, Message, ModelConfig};
use moviegraph::store::Store;
use moviegraph_loopback::{LoopbackServer, ServerOptions};

use super::emit;

/// Options of `bench llm`.
#[derive(Debug, Args)]
pub struct BenchLlmArgs {
    /// Requests in the zero-latency run.
    #[arg(long, default_value_t = 4000)]
    requests: usize,
    /// Requests in the latency run (1,920 at 64 × 100 ms is 3 s ideally).
    #[arg(long, default_value_t = 1920)]
    latency_requests: usize,
    /// Server latency of the second run, milliseconds.
    #[arg(long, default_value_t = 100)]
    latency_ms: u64,
    /// Calls in flight.
    #[arg(long, default_value_t = 64)]
    concurrency: usize,
    /// A Python interpreter with the `openai` package (benches/llm.sh makes one);
    /// without it the Python column is skipped.
    #[arg(long)]
    python: Option<String>,
}

const PY_SCRIPT: &str = include_str!("../../benches/llm_openai.py");

/// Runs the benchmark.
pub fn bench_llm(args: BenchLlmArgs) -> anyhow::Result<()> {
    let dir = tempfile_dir()?;
    let script = dir.join("llm_openai.py");
    std::fs::write(&script, PY_SCRIPT)?;
    let mut out = format!(
        "bench llm: {} logical CPUs; loopback server on 1 thread; every Rust answer is committed to SQLite\n",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    for (label, latency, n) in [
        ("zero latency", Duration::ZERO, args.requests),
        (
            "latency",
            Duration::from_millis(args.latency_ms),
            args.latency_requests,
        ),
    ] {
        let rust = rust_rps(&dir, latency, n, args.concurrency)?;
        let py = match &args.python {
            Some(python) => python_rps(python, &script, latency, n, args.concurrency)?,
            None => None,
        };
        let mut line = format!(
            "{label} ({} ms, {n} requests, concurrency {}): moviegraph {rust:.0} req/s",
            latency.as_millis(),
            args.concurrency
        );
        if !latency.is_zero() {
            let ideal = args.concurrency as f64 * 1000.0 / latency.as_millis() as f64;
            line.push_str(&format!(
                " ({:.1}% of the ideal {ideal:.0}/s)",
                rust / ideal * 100.0
            ));
        }
        match py {
            Some(p) => line.push_str(&format!(
                "; python openai+asyncio {p:.0} req/s; ratio {:.2}×\n",
                rust / p
            )),
            None => line.push_str("; python: skipped (no --python with the openai package)\n"),
        }
        emit(&line)?;
        out.push_str(&line);
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

fn tempfile_dir() -> anyhow::Result<std::path::PathBuf> {
    let dir = std::env::temp_dir().join(format!("moviegraph-bench-llm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    Ok(dir)
}

fn rust_rps(dir: &Path, latency: Duration, n: usize, concurrency: usize) -> anyhow::Result<f64> {
    let server = LoopbackServer::start(ServerOptions {
        latency,
        ..ServerOptions::default()
    })?;
    let db = dir.join(format!("bench-{}.db", latency.as_millis()));
    let _ = std::fs::remove_file(&db);
    let mut config = Config::offline();
    let mut model = ModelConfig::openai("bench", &[&server.url()]);
    model.concurrency = concurrency;
    config.models.insert("bench".into(), model);
    let llm = Llm::new(
        config,
        Arc::new(Mutex::new(Store::open(&db)?)),
        LlmOptions {
            run_label: "bench llm".into(),
            ..LlmOptions::default()
        },
    )?;
    let handle = llm.model("bench", "bench")?;
    let runtime = tokio::runtime::Runtime::new()?;
    let tag = latency.as_millis();
    let (elapsed, ok) = runtime.block_on(async {
        let start = Instant::now();
        let mut set = tokio::task::JoinSet::new();
        for i in 0..n {
            let handle = handle.clone();
            set.spawn(async move {
                let req = ChatRequest::new(vec![Message::user(format!("rust {tag} request {i}"))]);
                handle.chat(&req).await.is_ok()
            });
        }
        let mut ok = 0;
        while let Some(r) = set.join_next().await {
            ok += usize::from(r.unwrap_or(false));
        }
        (start.elapsed(), ok)
    });
    if ok != n {
        bail!("only {ok} of {n} requests were answered");
    }
    Ok(n as f64 / elapsed.as_secs_f64())
}

fn python_rps(
    python: &str,
    script: &Path,
    latency: Duration,
    n: usize,
    concurrency: usize,
) -> anyhow::Result<Option<f64>> {
    let server = LoopbackServer::start(ServerOptions {
        latency,
        ..ServerOptions::default()
    })?;
    let output = Command::new(python)
        .arg(script)
        .args(["--url", &server.url()])
        .args(["--requests", &n.to_string()])
        .args(["--concurrency", &concurrency.to_string()])
        .output()
        .with_context(|| format!("cannot run {python}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        eprintln!(
            "python baseline failed: {}",
            stderr.lines().last().unwrap_or("")
        );
        return Ok(None);
    }
    let rps = stdout
        .split_whitespace()
        .find_map(|w| w.strip_prefix("rps="))
        .and_then(|v| v.parse::<f64>().ok());
    Ok(rps)
}
