//! Use cases of `moviegraph llm`: a Batch API request file answered online
//! through the client (cached, retried, resumable, capped), exported for a
//! Batch API, its output imported into the cache, and what a run cost.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::Semaphore;

use crate::llm::batch::{self, BatchRequest};
use crate::llm::config::StructuredMode;
use crate::llm::{ChatResponse, Config, Llm, LlmError};
use crate::store::{RoleTotals, RunId, Store};

use super::cast::open_llm;
use super::{bail, Context, Result};

/// The model a batch command calls, and where its calls are cached.
#[derive(Debug, Clone)]
pub struct BatchModel {
    /// The configuration.
    pub config: Config,
    /// The workspace database.
    pub store: PathBuf,
    /// The configured model's name.
    pub model: String,
    /// The role the calls are accounted under.
    pub role: String,
}

impl BatchModel {
    fn open(&self, label: String, max_cost: Option<f64>) -> Result<Llm> {
        open_llm(self.config.clone(), &self.store, &label, max_cost)
    }
}

/// `llm run-batch`: every request of the file at `requests` answered through
/// the client, as many at once as the model allows, the answers written to
/// `output` when given. Returns the summary and whether every request was
/// answered.
pub fn run_batch(
    model: &BatchModel,
    requests_path: &Path,
    output: Option<&Path>,
    max_cost: Option<f64>,
) -> Result<(String, bool)> {
    let requests = batch::read_requests(requests_path)?;
    let llm = model.open(format!("run-batch {}", requests_path.display()), max_cost)?;
    let handle = llm.model(&model.model, &model.role)?;
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
    if let Some(path) = output {
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
    Ok((out, failed.is_empty() && not_sent == 0))
}

/// `llm batch export`: the requests of `requests_path` not cached yet,
/// written to `output` as a Batch API request file; returns the line to print.
pub fn export_batch(model: &BatchModel, requests_path: &Path, output: &Path) -> Result<String> {
    let requests = batch::read_requests(requests_path)?;
    let llm = model.open(format!("batch export {}", requests_path.display()), None)?;
    let handle = llm.model(&model.model, &model.role)?;
    let config = handle.config();
    let model_name = config
        .model
        .clone()
        .unwrap_or_else(|| handle.name().to_string());
    let mode = config.structured.unwrap_or(StructuredMode::JsonSchema);
    let store = llm.store().lock().expect("store lock");
    let file = std::fs::File::create(output)
        .with_context(|| format!("cannot create {}", output.display()))?;
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
    Ok(format!(
        "{pending} of {} requests are not cached yet; written to {}\n",
        requests.len(),
        output.display()
    ))
}

/// `llm batch import`: a Batch API output file's answers cached as answers
/// to the requests of `requests_path`; returns the summary and whether every
/// answer was taken.
pub fn import_batch(
    model: &BatchModel,
    requests_path: &Path,
    output_file: &Path,
) -> Result<(String, bool)> {
    let requests = batch::read_requests(requests_path)?;
    let outputs = batch::read_outputs(output_file)?;
    let llm = model.open(format!("batch import {}", output_file.display()), None)?;
    let handle = llm.model(&model.model, &model.role)?;
    let by_id: std::collections::HashMap<&str, &BatchRequest> =
        requests.iter().map(|r| (r.custom_id.as_str(), r)).collect();
    let (mut stored, mut refused) = (0, Vec::new());
    for out in &outputs {
        let Some(req) = by_id.get(out.custom_id.as_str()) else {
            bail!(
                "{}: custom_id {:?} is not in {}",
                output_file.display(),
                out.custom_id,
                requests_path.display()
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
    Ok((text, refused.is_empty()))
}

/// `llm report`: what each role of a run (default: the latest) called and cost.
pub fn run_totals(path: &Path, run: Option<i64>) -> Result<String> {
    if !path.is_file() {
        bail!("no store at {}", path.display());
    }
    let store = Store::open(path)?;
    let run = match run {
        Some(id) => RunId(id),
        None => store
            .llm_last_run()?
            .with_context(|| format!("{} records no model runs", path.display()))?,
    };
    Ok(totals_table(run, &store.llm_run_totals(run)?))
}

/// The per-role totals of a run as a table.
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
