//! `moviegraph eval`: run a subject on question trees, and report runs.

use std::path::PathBuf;

use anyhow::{bail, Context};
use clap::{Args, Subcommand, ValueEnum};
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use moviegraph::eval::metrics::BootstrapSettings;
use moviegraph::eval::protocol::{
    rotation_displays, run_stored_with, Display, RunEvent, RunOptions, RunProgress,
};
use moviegraph::eval::score::NO_JUDGE_LABEL;
use moviegraph::eval::subject::{Judge, BASELINES};
use moviegraph::eval::{agreement, html, report};
use moviegraph::llm::{Config, Llm, Role};
use moviegraph::store::{self, EvalRun, Store};
use moviegraph::trees::schema::Tree;
use moviegraph::workspace::cast::{check_subject, is_model, open_llm};
use moviegraph::workspace::eval::{
    open_judge, pooled_metrics, read_valid_trees, run_id, run_metrics, OpenSubject, StoredMetrics,
};
use moviegraph::workspace::lock::WriterLock;

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
    }
}

/// Who answers and who grades, as the flags and the configuration say.
struct Cast {
    subject: String,
    /// The subject is a configured model (else an offline baseline).
    subject_is_model: bool,
    judge: Option<String>,
}

/// Resolves `--subject` and `--judge` against the baselines and the configuration.
fn cast(flags: &EvalRoleFlags, config: &Config) -> anyhow::Result<Cast> {
    if flags.subjects().len() > 1 {
        bail!(
            "`eval run` takes one --subject (got {}); `moviegraph run` evaluates several",
            flags.subjects().join(", ")
        );
    }
    let subject = match flags.subject() {
        Some(name) => name.to_string(),
        None => config
            .role(Role::Subject)
            .first()
            .cloned()
            .unwrap_or_default(),
    };
    check_subject(&subject, config).map_err(|e| match flags.subject() {
        Some(_) => anyhow::Error::from(e),
        None => anyhow::anyhow!("no --subject given and the configured {e}"),
    })?;
    let judge = match flags.judge() {
        Some(name) => Some(name.to_string()),
        None => config.role(Role::Judge).first().cloned(),
    }
    .filter(|name| is_model(config, name));
    Ok(Cast {
        subject_is_model: !BASELINES.contains(&subject.as_str()),
        subject,
        judge,
    })
}

fn eval_run(args: EvalRunArgs, quiet: bool) -> anyhow::Result<Outcome> {
    // `--subject` may name a baseline, which the configuration does not know.
    let config = args.models.load_without_subject()?;
    let cast = cast(&args.models, &config)?;
    let store_path = store::resolve_path(args.store.as_deref());
    let _lock = WriterLock::acquire(
        &store_path,
        "moviegraph eval run",
        args.wait.mode(),
        &Terminal::notes(),
    )?;
    let llm: Option<Llm> = if cast.subject_is_model || cast.judge.is_some() {
        Some(open_llm(
            config,
            &store_path,
            &format!("eval run {}", cast.subject),
            args.max_cost,
        )?)
    } else {
        None
    };
    let opened = OpenSubject::open(&cast.subject, args.seed, llm.as_ref())?;
    let subject = opened.subject();
    let judge = open_judge(cast.judge.as_deref(), llm.as_ref())?;
    if cast.subject_is_model {
        eprintln!(
            "subject: model {} through the model layer{}",
            cast.subject,
            if args.text_only {
                ", text only"
            } else {
                ", with keyframes"
            }
        );
    } else {
        eprintln!(
            "subject: offline baseline {} (not a reasoner)",
            cast.subject
        );
    }
    match &cast.judge {
        Some(name) => eprintln!(
            "open answers: judge {name} (score = 0.7 x judge + 0.3 x ROUGE-L F1, correct at >= 0.7)"
        ),
        None => eprintln!("open answers: {NO_JUDGE_LABEL}; every report of this run says so"),
    }
    let (trees, digest) = read_valid_trees(&args.trees, "evaluating")?;
    let id = args
        .run
        .clone()
        .unwrap_or_else(|| run_id(&cast.subject, args.seed, args.text_only, &digest));
    let run = EvalRun {
        id: id.clone(),
        subject: subject.name().to_string(),
        judge: cast.judge.clone(),
        text_only: args.text_only,
        seed: args.seed,
        source: args
            .trees
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(" "),
    };
    let store = Store::open(&store_path)?;
    let total = trees.len();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let passes: Vec<(Display, String)> = if args.rotate {
        rotation_displays(args.seed)
            .iter()
            .map(|(display, suffix)| (*display, format!("{id}{suffix}")))
            .collect()
    } else {
        vec![(Display::Original, id.clone())]
    };
    let bars = Bars::new(&trees, passes.len(), quiet);
    if let Some(llm) = &llm {
        bars.questions.set_message(cost_text(llm, args.max_cost));
    }
    let mut done = RunProgress::default();
    for (display, pass_id) in &passes {
        let pass = EvalRun {
            id: pass_id.clone(),
            ..run.clone()
        };
        let pass_done = runtime
            .block_on(run_stored_with(
                &store,
                &pass,
                &trees,
                subject,
                judge.as_ref().map(|j| j as &dyn Judge),
                RunOptions {
                    display: *display,
                    jobs: args.jobs as usize,
                },
                &|event| match event {
                    RunEvent::Answered { .. } => {
                        bars.questions.inc(1);
                        if let Some(llm) = &llm {
                            bars.questions.set_message(cost_text(llm, args.max_cost));
                        }
                    }
                    RunEvent::TreeDone {
                        tree,
                        replayed,
                        done,
                    } => {
                        bars.questions.inc(replayed as u64);
                        bars.trees.inc(1);
                        tracing::info!(
                            "{pass_id}: tree {}/{total} {}: {} answers so far, {} asked now",
                            done.trees,
                            tree.id,
                            done.answers,
                            done.asked
                        );
                    }
                },
            ))
            .with_context(|| {
                format!(
                    "run {pass_id} stopped; its answers so far are stored, rerun the same command to resume"
                )
            })?;
        done.trees += pass_done.trees;
        done.answers += pass_done.answers;
        done.asked += pass_done.asked;
    }
    bars.finish();
    let id = if args.rotate {
        format!("{id} (and its four rotation runs)")
    } else {
        id
    };
    emit(&format!(
        "run {id}: {} trees, {} answers ({} asked now, {} from an earlier start), store {}\n",
        done.trees,
        done.answers,
        done.asked,
        done.answers - done.asked,
        store_path.display()
    ))?;
    if let Some(llm) = &llm {
        let stats = llm.stats();
        emit(&format!(
            "model calls: {} ({} from the cache), {}\n",
            stats.calls,
            stats.cache_hits,
            cost_text(llm, args.max_cost)
        ))?;
    }
    if opened.missing_images() > 0 {
        eprintln!(
            "warning: {} keyframe(s) could not be read and were left out (see the warnings above)",
            opened.missing_images()
        );
    }
    Ok(Outcome::Success)
}

/// The run's model cost so far (and the cap, when there is one).
fn cost_text(llm: &Llm, cap: Option<f64>) -> String {
    match cap {
        Some(cap) => format!("cost {:.4} of {cap:.4}", llm.spent()),
        None => format!("cost {:.4}", llm.spent()),
    }
}

/// Progress bars on stderr: trees and questions done, rate and ETA. Hidden when stderr
/// is not a terminal (indicatif's own check) or with `-q`.
struct Bars {
    _multi: MultiProgress,
    trees: ProgressBar,
    questions: ProgressBar,
}

impl Bars {
    fn new(trees: &[Tree], passes: usize, quiet: bool) -> Bars {
        let target = if quiet {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        };
        let multi = MultiProgress::with_draw_target(target);
        let style = |unit: &str| {
            ProgressStyle::with_template(&format!(
                "{{prefix:>9}} [{{bar:30}}] {{pos}}/{{len}} {unit} {{per_sec}} ETA {{eta}} {{msg}}"
            ))
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ")
        };
        let add = |len: usize, prefix: &'static str, unit: &str| {
            let bar = multi.add(ProgressBar::new(len as u64));
            bar.set_style(style(unit));
            bar.set_prefix(prefix);
            bar
        };
        let questions: usize = trees.iter().map(|t| t.nodes.len()).sum();
        Bars {
            trees: add(trees.len() * passes, "trees", "trees"),
            questions: add(questions * passes, "questions", "answers"),
            _multi: multi,
        }
    }

    fn finish(&self) {
        self.trees.finish_and_clear();
        self.questions.finish_and_clear();
    }
}

fn eval_report(args: EvalReportArgs) -> anyhow::Result<Outcome> {
    let store_path = store::resolve_path(args.store.as_deref());
    if !store_path.exists() {
        bail!("{}: no such store", store_path.display());
    }
    let store = Store::open(&store_path)?;
    let settings = BootstrapSettings {
        resamples: args.bootstrap,
        seed: args.bootstrap_seed,
    };
    let StoredMetrics { metrics, humans } = if args.pool {
        StoredMetrics {
            metrics: pooled_metrics(&store, &args.runs, settings)?,
            humans: Vec::new(),
        }
    } else {
        run_metrics(&store, &args.runs, settings)?
    };
    if args.ablation {
        if args.format != ReportFormat::Table {
            bail!("--ablation prints a table; leave out --format");
        }
        match metrics.as_slice() {
            [with, without] if !with.text_only && without.text_only => {}
            _ => bail!(
                "--ablation takes exactly two runs: one with keyframes, then one run with --text-only"
            ),
        }
    }
    let text = match args.format {
        ReportFormat::Table if args.ablation => format!(
            "{}\n{}",
            report::table(&metrics),
            report::ablation_table(&metrics[0], &metrics[1])
        ),
        ReportFormat::Table => report::table(&metrics),
        ReportFormat::Json => report::json(&metrics),
        ReportFormat::Csv => report::csv(&metrics),
        ReportFormat::Html => html::html(&metrics)?,
    };
    // Several annotators on the same trees: how far they agree (walk's human runs).
    let text = if humans.len() >= 2 {
        let pairs = agreement::all_pairs(
            &humans
                .iter()
                .map(|(run, name)| (run, name.as_str()))
                .collect::<Vec<_>>(),
        );
        match args.format {
            ReportFormat::Table => format!("{text}\n{}", agreement::table(&pairs)),
            ReportFormat::Csv => format!("{text}{}", agreement::csv_rows(&pairs)),
            ReportFormat::Json | ReportFormat::Html => text,
        }
    } else {
        text
    };
    match &args.out {
        Some(path) => std::fs::write(path, text)
            .with_context(|| format!("{}: writing the report", path.display()))?,
        None => emit(&text)?,
    }
    Ok(Outcome::Success)
}
