//! `moviegraph llm`: batch files run online, exported for a Batch API, imported back,
//! and what a run cost.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Context};
use clap::{Args, Subcommand};
use moviegraph::llm::batch::{self, BatchRequest};
use moviegraph::llm::config::StructuredMode;
use moviegraph::llm::{ChatResponse, Llm, LlmError};
use moviegraph::store::{self, RoleTotals, RunId, Store};
use tokio::sync::Semaphore;

use super::models::ConfigFlag;
use super::{emit, Outcome};

/// Model calls in bulk: OpenAI Batch API JSONL files run online through the
/// client (cached, retried, resumable), exported, imported, and accounted.
#[derive(Debug, Subcommand)]
pub enum LlmCommand {
    /// Answer every line of a Batch-API request file through the client, as
    /// many at once as the model's concurrency allows. Answers are committed as
    /// they arrive, so an interrupted run started again repeats no paid call.
    RunBatch(RunBatchArgs),
    /// Batch API files: export requests not yet cached, import an output file.
    #[command(subcommand)]
    Batch(BatchCommand),
    /// Calls, cache hits, tokens and cost of a run, per role and model.
    Report(ReportArgs),
}

/// Batch API files.
#[derive(Debug, Subcommand)]
pub enum BatchCommand {
    /// Write the requests of a file that the cache cannot answer yet, with the
    /// configured model's name and structured-output format, for OpenAI's Batch
    /// API or `vllm run-batch`.
    Export(ExportArgs),
    /// Read a Batch API output file into the cache (answers checked against the
    /// request's schema), so later runs take them from there.
    Import(ImportArgs),
}

/// Options shared by the batch commands.
#[derive(Debug, Args)]
pub struct Common {
    /// The workspace database (default: $MOVIEGRAPH_STORE or ./moviegraph.db).
    #[arg(long, value_name = "DB")]
    store: Option<PathBuf>,
    /// The configured model to use.
    #[arg(long, value_name = "NAME")]
    model: String,
    /// The role label the calls are accounted under.
    #[arg(long, default_value = "batch")]
    role: String,
    #[command(flatten)]
    models: ConfigFlag,
}

/// Options of `llm run-batch`.
#[derive(Debug, Args)]
pub struct RunBatchArgs {
    /// The request file (one `{"custom_id", "method", "url", "body"}` per line).
    requests: PathBuf,
    /// Write answers here as a Batch-API output file.
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// Stop cleanly before the run's cost would exceed this (in the configured
    /// price units).
    #[arg(long, value_name = "COST")]
    max_cost: Option<f64>,
    #[command(flatten)]
    common: Common,
}

/// Options of `llm batch export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The request file.
    requests: PathBuf,
    /// Where to write the uncached requests.
    #[arg(long, short)]
    output: PathBuf,
    #[command(flatten)]
    common: Common,
}

/// Options of `llm batch import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The Batch API output file.
    output_file: PathBuf,
    /// The request file the batch was made from (answers are matched by custom_id).
    #[arg(long)]
    requests: PathBuf,
    #[command(flatten)]
    common: Common,
}

/// Options of `llm report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The workspace database (default: $MOVIEGRAPH_STORE or ./moviegraph.db).
    #[arg(long, value_name = "DB")]
    store: Option<PathBuf>,
    /// The run (default: the latest).
    #[arg(long)]
    run: Option<i64>,
}

/// Runs an `llm` subcommand.
pub fn llm(cmd: LlmCommand) -> anyhow::Result<Outcome> {
    match cmd {
        LlmCommand::RunBatch(args) => run_batch(args),
        LlmCommand::Batch(BatchCommand::Export(args)) => export(args),
        LlmCommand::Batch(BatchCommand::Import(args)) => import(args),
        LlmCommand::Report(args) => report(args),
    }
}

fn open(common: &Common, label: String, max_cost: Option<f64>) -> anyhow::Result<Llm> {
    let path = store::resolve_path(common.store.as_deref());
    common.models.open_llm(&path, &label, max_cost)
}

fn run_batch(args: RunBatchArgs) -> anyhow::Result<Outcome> {
    let requests = batch::read_requests(&args.requests)?;
    let llm = open(
        &args.common,
        format!("run-batch {}", args.requests.display()),
        args.max_cost,
    )?;
    let handle = llm.model(&args.common.model, &args.common.role)?;
    let in_flight = handle.config().concurrency * handle.config().urls().len().max(1) * 2;
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let start = Instant::now();
    let stopped = Arc::new(AtomicBool::new(false));
    let results = runtime.block_on(async {
        let slots = Arc::new(Semaphore::new(in_flight.max(1)));
        let mut set = tokio::task::JoinSet::new();
        for (i, BatchRequest { request, .. }) in requests.iter().cloned().enumerate() {
            let slot = slots.clone().acquire_owned().await.expect("never closed");
            if stopped.load(Ordering::SeqCst) {
                break;
            }
            let handle = handle.clone();
            let stopped = stopped.clone();
            set.spawn(async move {
                let result = handle.chat(&request).await;
                if matches!(result, Err(LlmError::Budget { .. })) {
                    stopped.store(true, Ordering::SeqCst);
                }
                drop(slot);
                (i, result)
            });
        }
        let mut results: Vec<Option<Result<ChatResponse, String>>> = vec![None; requests.len()];
        let mut cached = 0usize;
        while let Some(joined) = set.join_next().await {
            let (i, result) = joined.expect("a call task panicked");
            results[i] = Some(match result {
                Ok(c) => {
                    cached += usize::from(c.cached);
                    Ok(ChatResponse {
                        text: c.text,
                        usage: c.usage,
                        finish_reason: c.finish_reason,
                        logprobs: c.logprobs,
                    })
                }
                Err(e) => Err(e.to_string()),
            });
        }
        (results, cached)
    });
    let elapsed = start.elapsed();
    let (results, cached) = results;
    if let Some(path) = &args.output {
        let file = std::fs::File::create(path)
            .with_context(|| format!("cannot create {}", path.display()))?;
        let mut w = std::io::BufWriter::new(file);
        for (req, result) in requests.iter().zip(&results) {
            if let Some(result) = result {
                writeln!(w, "{}", batch::output_line(&req.custom_id, result))?;
            }
        }
        w.flush()?;
    }
    let answered = results.iter().filter(|r| matches!(r, Some(Ok(_)))).count();
    let failed: Vec<(&str, &String)> = requests
        .iter()
        .zip(&results)
        .filter_map(|(q, r)| match r {
            Some(Err(e)) => Some((q.custom_id.as_str(), e)),
            _ => None,
        })
        .collect();
    let not_sent = results.iter().filter(|r| r.is_none()).count();
    let mut out = format!(
        "{} requests: {answered} answered ({cached} from the cache), {} failed, {not_sent} not sent; {:.2} s, {:.0} requests/s\n",
        requests.len(),
        failed.len(),
        elapsed.as_secs_f64(),
        requests.len() as f64 / elapsed.as_secs_f64().max(1e-9)
    );
    for (id, err) in failed.iter().take(10) {
        let _ = writeln!(out, "  failed {id}: {err}");
    }
    if stopped.load(Ordering::SeqCst) {
        let _ = writeln!(out, "stopped: the next calls could exceed --max-cost");
    }
    out.push_str(&totals_table(llm.run(), &llm.totals()?));
    emit(&out)?;
    Ok(if failed.is_empty() && not_sent == 0 {
        Outcome::Success
    } else {
        Outcome::CheckFailed
    })
}

fn export(args: ExportArgs) -> anyhow::Result<Outcome> {
    let requests = batch::read_requests(&args.requests)?;
    let llm = open(
        &args.common,
        format!("batch export {}", args.requests.display()),
        None,
    )?;
    let handle = llm.model(&args.common.model, &args.common.role)?;
    let config = handle.config();
    let model_name = config
        .model
        .clone()
        .unwrap_or_else(|| handle.name().to_string());
    let mode = config.structured.unwrap_or(StructuredMode::JsonSchema);
    let store = llm.store().lock().expect("store lock");
    let file = std::fs::File::create(&args.output)
        .with_context(|| format!("cannot create {}", args.output.display()))?;
    let mut w = std::io::BufWriter::new(file);
    let mut pending = 0;
    for req in &requests {
        if store
            .llm_cache_get(&handle.cache_key(&req.request))?
            .is_some()
        {
            continue;
        }
        let prepared = handle.prepare(&req.request);
        writeln!(
            w,
            "{}",
            batch::request_line(&req.custom_id, &model_name, &prepared, mode)
        )?;
        pending += 1;
    }
    w.flush()?;
    emit(&format!(
        "{pending} of {} requests are not cached yet; written to {}\n",
        requests.len(),
        args.output.display()
    ))?;
    Ok(Outcome::Success)
}

fn import(args: ImportArgs) -> anyhow::Result<Outcome> {
    let requests = batch::read_requests(&args.requests)?;
    let outputs = batch::read_outputs(&args.output_file)?;
    let llm = open(
        &args.common,
        format!("batch import {}", args.output_file.display()),
        None,
    )?;
    let handle = llm.model(&args.common.model, &args.common.role)?;
    let by_id: std::collections::HashMap<&str, &BatchRequest> =
        requests.iter().map(|r| (r.custom_id.as_str(), r)).collect();
    let (mut stored, mut refused) = (0, Vec::new());
    for out in &outputs {
        let Some(req) = by_id.get(out.custom_id.as_str()) else {
            bail!(
                "{}: custom_id {:?} is not in {}",
                args.output_file.display(),
                out.custom_id,
                args.requests.display()
            );
        };
        match &out.result {
            Ok(resp) => match handle.import(&req.request, resp)? {
                Ok(_) => stored += 1,
                Err(problem) => refused.push(format!("{}: {problem}", out.custom_id)),
            },
            Err(e) => refused.push(format!("{}: the batch reported {e}", out.custom_id)),
        }
    }
    let mut text = format!("{stored} answers cached, {} not\n", refused.len());
    for r in refused.iter().take(10) {
        let _ = writeln!(text, "  {r}");
    }
    emit(&text)?;
    Ok(if refused.is_empty() {
        Outcome::Success
    } else {
        Outcome::CheckFailed
    })
}

fn report(args: ReportArgs) -> anyhow::Result<Outcome> {
    let path = store::resolve_path(args.store.as_deref());
    if !path.is_file() {
        bail!("no store at {}", path.display());
    }
    let store = Store::open(&path)?;
    let run = match args.run {
        Some(id) => RunId(id),
        None => store
            .llm_last_run()?
            .with_context(|| format!("{} records no model runs", path.display()))?,
    };
    emit(&totals_table(run, &store.llm_run_totals(run)?))?;
    Ok(Outcome::Success)
}

fn totals_table(run: RunId, totals: &[RoleTotals]) -> String {
    let mut out = format!(
        "run {}:\n  {:<12} {:<18} {:>7} {:>7} {:>6} {:>8} {:>10} {:>10} {:>10}\n",
        run.0,
        "role",
        "model",
        "calls",
        "cached",
        "errors",
        "attempts",
        "input tok",
        "output tok",
        "cost"
    );
    let mut cost = 0.0;
    for t in totals {
        cost += t.cost;
        let _ = writeln!(
            out,
            "  {:<12} {:<18} {:>7} {:>7} {:>6} {:>8} {:>10} {:>10} {:>10.4}",
            t.role,
            t.model,
            t.calls,
            t.cache_hits,
            t.errors,
            t.attempts,
            t.input_tokens,
            t.output_tokens,
            t.cost
        );
    }
    let _ = writeln!(out, "  total cost {cost:.4}");
    out
}
