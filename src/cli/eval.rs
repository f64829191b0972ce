//! `moviegraph eval`: run a subject on question trees, and report runs.

use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Subcommand, ValueEnum};
use moviegraph::eval::metrics::BootstrapSettings;
use moviegraph::workspace::eval_export::export_inspect;
use moviegraph::workspace::eval_report::{report_runs, ReportForm, ReportRequest};
use moviegraph::workspace::eval_run::{run_eval, EvalRequest};
use moviegraph::workspace::store_path;

use super::models::EvalRoleFlags;
use super::report::Terminal;
use super::{emit, Outcome};

/// Two-phase evaluation: `eval run` asks, `eval report` computes the metrics.
#[derive(Debug, Subcommand)]
pub enum EvalCommand {
    /// Run (or resume) a subject on question trees. Each tree is walked as one
    /// conversation: phase 1 follows the subject's own answers, phase 2 asks every
    /// unvisited node under a counterfactual premise. Every answer is stored as it
    /// arrives; rerunning the same command resumes a stopped run without asking
    /// anything twice.
    ///
    /// --subject takes an offline baseline (no model, no network): random (seeded),
    /// first-option, lexical (baselines, not reasoners); or the name of a model in the
    /// configuration (moviegraph.toml or --config), asked through the model layer with
    /// the question's keyframes as images (workspace-relative paths, read from the
    /// working directory). Without --subject the configuration's subject role is used.
    /// --judge names the model that grades open answers (default: the configuration's
    /// judge role); with none, or one on the rules backend, open answers are scored
    /// by ROUGE-L alone and every report says so.
    ///
    /// Examples:
    ///   moviegraph eval run --trees trees/the-second-key.jsonl --subject random --seed 7
    ///   moviegraph eval run --trees trees/the-second-key.jsonl --subject qwen --judge gpt
    #[command(verbatim_doc_comment)]
    Run(EvalRunArgs),
    /// Metrics of one or more runs side by side: accuracy and score by phase, format,
    /// type, depth, category, film and group level; CCF per depth; RDS, weighted RDS,
    /// CRS; dependency analysis; chosen distractor reasons; bootstrap 95% intervals.
    ///
    /// Example:
    ///   moviegraph eval report random-s7-1a2b3c4d first-option-s0-1a2b3c4d
    #[command(verbatim_doc_comment)]
    Report(EvalReportArgs),
    /// Write runs as Inspect evaluation logs (JSON log format, version 2, read by
    /// `inspect_ai.log.read_eval_log` and shown by `inspect view`): one log per run,
    /// one sample per tree walk with the whole two-phase conversation, each answer's
    /// score and correctness, the path and counterfactual premises in metadata, the
    /// tree's accuracy, score, RDS, weighted RDS and CRS as its score; the run's
    /// figures with bootstrap intervals as results; subject (a person as
    /// human/NAME), judge, seed, the trees' provenance and model usage.
    ///
    /// Example:
    ///   moviegraph eval export --to inspect random-s0-f77f72d0 --out logs
    ///   inspect view --log-dir logs
    #[command(verbatim_doc_comment)]
    Export(EvalExportArgs),
}

/// Options of `eval export`.
#[derive(Debug, Args)]
pub struct EvalExportArgs {
    /// Run ids (as `eval report` takes them).
    #[arg(required = true)]
    runs: Vec<String>,
    /// The form to write.
    #[arg(long, value_enum)]
    to: ExportTo,
    /// The folder the logs go to (one `<created>_moviegraph-<film>_<run>.json` per run, named as Inspect names its logs; an earlier export of a run is replaced).
    #[arg(long, default_value = "logs")]
    out: PathBuf,
    /// Bootstrap resamples behind the results' 95% intervals (0: none).
    #[arg(long, default_value_t = 1000)]
    bootstrap: usize,
    /// The workspace database (default: $MOVIEGRAPH_STORE, then moviegraph.db).
    #[arg(long)]
    store: Option<PathBuf>,
}

/// The forms `eval export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportTo {
    /// Inspect evaluation logs (JSON).
    Inspect,
}

/// Options of `eval run`.
#[derive(Debug, Args)]
pub struct EvalRunArgs {
    /// Tree files (`trees/<film>.jsonl`); their trees are run in file order.
    #[arg(long = "trees", value_name = "FILE", required = true, num_args = 1..)]
    trees: Vec<PathBuf>,
    /// The configuration and role flags: --subject (a baseline name or a configured
    /// model), --judge (a configured model), --config.
    #[command(flatten)]
    models: EvalRoleFlags,
    /// Stop before the run's model calls would cost more than this (in the
    /// configured price units); rerun to resume.
    #[arg(long, value_name = "COST")]
    max_cost: Option<f64>,
    /// The run id (default: subject, seed, text-only flag and a hash of the trees).
    #[arg(long)]
    run: Option<String>,
    /// Seed of the random baseline.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Withhold keyframes (the text-only ablation).
    #[arg(long)]
    text_only: bool,
    /// The workspace database (default: $MOVIEGRAPH_STORE, then moviegraph.db).
    #[arg(long)]
    store: Option<PathBuf>,
    /// Trees walked at once (each tree is its own conversation; the answers and
    /// reports are those of a one-at-a-time run).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=256))]
    jobs: u64,
    #[command(flatten)]
    wait: super::WaitArgs,
    /// Option rotation: walk every tree five times, in separate conversations and
    /// stored as five runs (ID, ID@rot1, ID@rot2, ID@rot3, ID@shuffle), showing each
    /// choice question's options under the four cyclic rotations and one seeded
    /// shuffle; `eval report ID` then adds the averaged accuracy and positional bias.
    #[arg(long)]
    rotate: bool,
}

/// Output forms of `eval report`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// Aligned text table.
    Table,
    /// JSON array, one object per run.
    Json,
    /// One figure per line.
    Csv,
    /// A self-contained HTML page with SVG charts (opens offline in a browser).
    Html,
}

/// Options of `eval report`.
#[derive(Debug, Args)]
pub struct EvalReportArgs {
    /// Run ids, shown side by side in this order.
    #[arg(required = true)]
    runs: Vec<String>,
    /// Output form.
    #[arg(long, value_enum, default_value_t = ReportFormat::Table)]
    format: ReportFormat,
    /// Bootstrap resamples for the 95% intervals (0: none).
    #[arg(long, default_value_t = 1000)]
    bootstrap: usize,
    /// Seed of the bootstrap.
    #[arg(long, default_value_t = 0)]
    bootstrap_seed: u64,
    /// The workspace database (default: $MOVIEGRAPH_STORE, then moviegraph.db).
    #[arg(long)]
    store: Option<PathBuf>,
    /// Write the report to FILE instead of stdout.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Add the text-only ablation: exactly two runs, the first with keyframes, the
    /// second `--text-only`; prints the accuracy drop per category, level and depth.
    #[arg(long)]
    ablation: bool,
    /// Pool each subject's runs into one (the corpus report over several
    /// films' runs): trees and answers joined, intervals resampled over every
    /// tree; the run is named corpus-<subject>.
    #[arg(long, conflicts_with = "ablation")]
    pool: bool,
}

/// Runs the selected eval command.
pub fn eval(cmd: EvalCommand, quiet: bool) -> anyhow::Result<Outcome> {
    match cmd {
        EvalCommand::Run(args) => eval_run(args, quiet),
        EvalCommand::Report(args) => eval_report(args),
        EvalCommand::Export(args) => eval_export(args, quiet),
    }
}

fn eval_export(args: EvalExportArgs, quiet: bool) -> anyhow::Result<Outcome> {
    let ExportTo::Inspect = args.to;
    let store = store_path(args.store.as_deref());
    let reporter = Terminal::new(quiet);
    let started = std::time::Instant::now();
    let written = export_inspect(
        &store,
        &args.runs,
        &args.out,
        BootstrapSettings {
            resamples: args.bootstrap,
            seed: 0,
        },
        &reporter,
    )?;
    let mut text = String::new();
    let total: usize = written.iter().map(|w| w.bytes).sum();
    for w in &written {
        text.push_str(&format!(
            "{}: {} samples, {:.1} KB → {}\n",
            w.run,
            w.samples,
            w.bytes as f64 / 1024.0,
            w.path.display()
        ));
    }
    text.push_str(&format!(
        "{} Inspect log(s), {:.1} KB in all, in {:.2} s; open them with `inspect view --log-dir {}`\n",
        written.len(),
        total as f64 / 1024.0,
        started.elapsed().as_secs_f64(),
        args.out.display()
    ));
    emit(&text)?;
    Ok(Outcome::Success)
}

fn eval_run(args: EvalRunArgs, quiet: bool) -> anyhow::Result<Outcome> {
    let request = EvalRequest {
        // `--subject` may name a baseline, which the configuration does not know.
        config: args.models.load_without_subject()?,
        subjects: args.models.subjects().to_vec(),
        judge: args.models.judge().map(str::to_owned),
        store: store_path(args.store.as_deref()),
        trees: args.trees,
        max_cost: args.max_cost,
        run: args.run,
        seed: args.seed,
        text_only: args.text_only,
        jobs: args.jobs as usize,
        wait: args.wait.mode(),
        rotate: args.rotate,
    };
    emit(&run_eval(&request, &Terminal::new(quiet))?)?;
    Ok(Outcome::Success)
}

fn eval_report(args: EvalReportArgs) -> anyhow::Result<Outcome> {
    let request = ReportRequest {
        store: store_path(args.store.as_deref()),
        runs: args.runs,
        form: match args.format {
            ReportFormat::Table => ReportForm::Table,
            ReportFormat::Json => ReportForm::Json,
            ReportFormat::Csv => ReportForm::Csv,
            ReportFormat::Html => ReportForm::Html,
        },
        bootstrap: BootstrapSettings {
            resamples: args.bootstrap,
            seed: args.bootstrap_seed,
        },
        ablation: args.ablation,
        pool: args.pool,
    };
    let text = report_runs(&request)?;
    match &args.out {
        Some(path) => std::fs::write(path, text)
            .with_context(|| format!("{}: writing the report", path.display()))?,
        None => emit(&text)?,
    }
    Ok(Outcome::Success)
}
