//! Command-line layer: argument parsing, logging, output and exit codes.

mod align;
mod doctor;
mod eval;
mod graph;
mod graph_import;
mod graph_score;
mod llm;
mod local;
mod merge;
mod models;
mod parse;
mod report;
mod run;
mod shots;
mod trees;
mod trees_audit;
mod walk;

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// moviegraph turns a film's screenplay, subtitles and keyframes into a
/// verified social-causal graph of its characters' minds, derives question
/// trees from it, and evaluates models on them.
///
/// Start with `moviegraph run screenplays/the-second-key` to see the bundled
/// sample film processed with the offline defaults.
#[derive(Debug, Parser)]
#[command(name = "moviegraph", version, about, long_about, max_term_width = 100)]
pub struct Cli {
    /// More log output on stderr (-v debug, -vv trace). RUST_LOG overrides.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    verbose: u8,
    /// Only errors on stderr.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    quiet: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    Run(run::RunArgs),
    Parse(parse::ParseArgs),
    Align(align::AlignArgs),
    Shots(shots::ShotsArgs),
    #[command(subcommand)]
    Graph(graph::GraphCommand),
    #[command(subcommand)]
    Trees(trees::TreesCommand),
    #[command(subcommand)]
    Bench(crate::bench::BenchCommand),
    /// Two-phase evaluation of a subject on question trees, and its reports.
    #[command(subcommand)]
    Eval(eval::EvalCommand),
    #[command(subcommand)]
    Models(models::ModelsCommand),
    #[command(subcommand)]
    Llm(llm::LlmCommand),
    #[command(subcommand)]
    Local(local::LocalCommand),
    Merge(merge::MergeArgs),
    Doctor(doctor::DoctorArgs),
    /// A person answers question trees: a terminal UI, or a local web app with --serve.
    /// Test mode is the two-phase protocol of `eval run`, stored as a human run
    /// (resumable); explore mode browses any branch with gold answers.
    ///
    /// Example:
    ///   moviegraph walk trees/the-second-key.jsonl --annotator ana
    #[command(verbatim_doc_comment)]
    Walk(walk::WalkArgs),
}

/// How a command that writes the store treats another process using it.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct WaitArgs {
    /// When another process is writing the same store, stop at once with exit
    /// code 2 (naming the store and the process) instead of waiting for it.
    #[arg(long)]
    no_wait: bool,
}

impl WaitArgs {
    /// The lock's waiting mode.
    pub fn mode(self) -> moviegraph::workspace::lock::Wait {
        if self.no_wait {
            moviegraph::workspace::lock::Wait::No
        } else {
            moviegraph::workspace::lock::Wait::Yes
        }
    }
}

/// Outcome of a command that ran to completion: did its checks pass?
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Everything asked for was done and every check passed.
    Success,
    /// The command ran, but a check it performs failed (exit code 1).
    CheckFailed,
}

/// Parses arguments, sets up logging, runs the command, maps the result to an exit code.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(cli.verbose, cli.quiet);
    let result = match cli.command {
        Command::Run(args) => run::run(args, cli.quiet, cli.verbose),
        Command::Parse(args) => parse::parse(args),
        Command::Align(args) => align::align_cmd(args),
        Command::Shots(args) => shots::shots_cmd(args, cli.quiet),
        Command::Graph(cmd) => graph::graph(cmd),
        Command::Trees(cmd) => trees::trees(cmd),
        Command::Bench(cmd) => crate::bench::bench(cmd).map(|()| Outcome::Success),
        Command::Eval(cmd) => eval::eval(cmd, cli.quiet),
        Command::Models(cmd) => models::models(cmd),
        Command::Llm(cmd) => llm::llm(cmd),
        Command::Local(cmd) => local::local(cmd),
        Command::Merge(args) => merge::merge(args),
        Command::Doctor(args) => doctor::doctor(args),
        Command::Walk(args) => walk::walk(args),
    };
    match result {
        Ok(Outcome::Success) => ExitCode::SUCCESS,
        Ok(Outcome::CheckFailed) => ExitCode::from(1),
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(2)
        }
    }
}

fn init_logging(verbose: u8, quiet: bool) {
    use tracing_subscriber::EnvFilter;
    let default = match (quiet, verbose) {
        (true, _) => "error",
        (false, 0) => "warn,moviegraph=info",
        (false, 1) => "debug",
        (false, _) => "trace",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    // Colour codes only for a terminal: a redirected log stays plain text.
    use std::io::IsTerminal;
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none())
        .with_writer(std::io::stderr)
        .with_target(false)
        .without_time()
        .init();
}

/// A closed pipe (`moviegraph parse x --json | head`) is a normal end, not an error.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Writes `text` to stdout, reporting a broken pipe as an error the caller can recognise.
pub fn emit(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}
