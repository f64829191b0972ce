//! `moviegraph llm`: batch files run online, exported for a Batch API, imported back,
//! and what a run cost.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use moviegraph::workspace::llm_batch::{
    export_batch, import_batch, run_batch as run_batch_file, run_totals, BatchModel,
};
use moviegraph::workspace::store_path;

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

impl Common {
    fn model(&self) -> anyhow::Result<BatchModel> {
        Ok(BatchModel {
            config: self.models.load()?,
            store: store_path(self.store.as_deref()),
            model: self.model.clone(),
            role: self.role.clone(),
        })
    }
}

/// Success when every request went through, else a failed check.
fn outcome(complete: bool) -> Outcome {
    if complete {
        Outcome::Success
    } else {
        Outcome::CheckFailed
    }
}

fn run_batch(args: RunBatchArgs) -> anyhow::Result<Outcome> {
    let model = args.common.model()?;
    let (text, complete) = run_batch_file(
        &model,
        &args.requests,
        args.output.as_deref(),
        args.max_cost,
    )?;
    emit(&text)?;
    Ok(outcome(complete))
}

fn export(args: ExportArgs) -> anyhow::Result<Outcome> {
    let model = args.common.model()?;
    emit(&export_batch(&model, &args.requests, &args.output)?)?;
    Ok(Outcome::Success)
}

fn import(args: ImportArgs) -> anyhow::Result<Outcome> {
    let model = args.common.model()?;
    let (text, complete) = import_batch(&model, &args.requests, &args.output_file)?;
    emit(&text)?;
    Ok(outcome(complete))
}

fn report(args: ReportArgs) -> anyhow::Result<Outcome> {
    let path = store_path(args.store.as_deref());
    emit(&run_totals(&path, args.run)?)?;
    Ok(Outcome::Success)
}
