//! `moviegraph graph`: build, inspect, review and export the Social-Causal Graph.

use std::io::BufRead;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;

use anyhow::Context;

use clap::{Args, Subcommand, ValueEnum};
use moviegraph::graph::build::BuildOptions;
use moviegraph::graph::consensus::Rule;
use moviegraph::graph::resolve::ResolveOptions;
use moviegraph::signin::{Access, SignIn};
use moviegraph::verify::serve;
use moviegraph::workspace::graph_build::{build_film_graph, BuildRequest};
use moviegraph::workspace::graph_files::{describe, export_files, graph_stats, GraphForm, Review};
use moviegraph::workspace::review::ReviewApp;
use moviegraph::workspace::review_figures::write_decisions;
use moviegraph::workspace::store_path;

use super::models::GraphRoleFlags;
use super::report::Terminal;
use super::{emit, Outcome};

/// Build, inspect, review and export a film's verified Social-Causal Graph.
#[derive(Debug, Subcommand)]
pub enum GraphCommand {
    /// Build (or resume) the graph of a film folder, block by block:
    /// generate → resolve → audit → consensus → adjudicate. The offline
    /// default is the `rules` backend: a lexical baseline generator, an
    /// evidence-grounding and a schema-and-time auditor, and a rules
    /// adjudicator; roles on other models (--config, --generator, --auditors,
    /// --adjudicator) go through the model layer. Every block is committed to
    /// the store, so a killed build resumes where it stopped.
    Build(BuildArgs),
    /// Print the construction table: candidates, verified and rate per kind,
    /// auditor agreement (raw, Cohen's κ per pair, Fleiss' κ), escalations.
    Stats(FilmArgs),
    /// People verify the graph. With --serve: the review app in the browser
    /// (queues of escalated candidates, a scene, a kind, or a random sample
    /// of the accepted for a precision estimate; accept, reject with a
    /// reason, correct, or add a missing state by selecting its quote; several
    /// reviewers with --reviewer, each candidate to --overlap of them).
    /// Without it: each escalated candidate on stdin (a/r/s/q), or
    /// --accept/--reject ID. --decisions FILE writes every decision (.csv or
    /// .jsonl) for a methods section.
    Review(ReviewArgs),
    /// Write graphs/<film>.<ext>: json (the documented exchange format,
    /// byte-identical across reruns), graphml, dot, neo4j-csv, or gold (the
    /// annotation format `graph score` and `graph import` read, so that a
    /// reviewed graph becomes the film's gold.json).
    Export(ExportArgs),
    /// Score a graph against a gold annotation (a film folder's gold.json,
    /// or --gold): precision, recall and F1 of its mental states (holder,
    /// attitude family, polarity, truth, scene ±1, similar content), its
    /// higher-order links and causal links (direction included), gold chains
    /// recovered, and its errors by type. --min-f1 makes it a check (exit 1).
    Score(super::graph_score::ScoreArgs),
    /// Make a graph build from an expert annotation (gold.json, the format of
    /// docs/graph-format.md): every state and causal link accepted, each placed where its
    /// evidence quote stands in the script, so that `trees generate` builds
    /// on a graph people made. The build becomes the film's latest.
    Import(super::graph_import::ImportArgs),
}

/// A film folder and the store.
#[derive(Debug, Args)]
pub struct FilmArgs {
    /// The film folder (script.fountain|fdx|txt and subtitles.srt|vtt).
    film_dir: PathBuf,
    /// The workspace database (default: $MOVIEGRAPH_STORE or moviegraph.db).
    #[arg(long)]
    store: Option<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Arguments of `graph build`.
#[derive(Debug, Args)]
pub struct BuildArgs {
    #[command(flatten)]
    film: FilmArgs,
    /// Send escalated candidates to the human review queue instead of the adjudicator.
    #[arg(long)]
    review: bool,
    /// How auditor votes decide.
    #[arg(long, value_enum, default_value_t = RuleArg::Unanimous)]
    rule: RuleArg,
    /// Most names one resolved entity may gather.
    #[arg(long, default_value_t = 6)]
    group_cap: usize,
    /// Keyframe folder (MovieNet layout); default: keyframes/<film> beside the screenplays folder, when present.
    #[arg(long)]
    keyframes: Option<PathBuf>,
    /// Keyframes per block shown to a model.
    #[arg(long, default_value_t = 5)]
    max_keyframes: usize,
    /// Stop after this many new blocks (what a kill mid-build leaves behind).
    #[arg(long, hide = true)]
    stop_after: Option<usize>,
    /// The models of the generator, auditors and adjudicator roles (a role on a
    /// `rules` model runs the native rules role).
    #[command(flatten)]
    models: GraphRoleFlags,
    #[command(flatten)]
    wait: super::WaitArgs,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum RuleArg {
    Unanimous,
    Majority,
}

/// Arguments of `graph review`.
#[derive(Debug, Args)]
pub struct ReviewArgs {
    #[command(flatten)]
    film: FilmArgs,
    /// Accept this candidate id without prompting.
    #[arg(long, value_name = "ID")]
    accept: Vec<String>,
    /// Reject this candidate id without prompting.
    #[arg(long, value_name = "ID")]
    reject: Vec<String>,
    /// The reason recorded with --accept/--reject.
    #[arg(long, default_value = "")]
    note: String,
    /// Serve the review app in the browser instead of the stdin prompt.
    #[arg(long, conflicts_with_all = ["accept", "reject", "decisions"])]
    serve: bool,
    /// Port of --serve (0: any free port; the address is printed on stdout).
    #[arg(long, default_value_t = 8090, requires = "serve")]
    port: u16,
    /// Address of --serve. 127.0.0.1 (the default) keeps it on this machine;
    /// any other address needs --reviewer (a link per reviewer) or the
    /// password in $MOVIEGRAPH_REVIEW_PASSWORD.
    #[arg(long, default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST), requires = "serve")]
    host: IpAddr,
    /// A reviewer of --serve (repeat for each): each gets their own link,
    /// printed once at start (new links at each start), and nobody else
    /// can review.
    #[arg(long, value_name = "NAME", requires = "serve")]
    reviewer: Vec<String>,
    /// How many reviewers see each candidate (their agreement is measured
    /// on the candidates two or more decided).
    #[arg(long, default_value_t = 1, requires = "serve")]
    overlap: usize,
    /// Write every decision so far to FILE (.csv, or .jsonl for JSON lines):
    /// reviewer, time, element, decision, reason, correction, queue.
    #[arg(long, value_name = "FILE")]
    decisions: Option<PathBuf>,
    #[command(flatten)]
    wait: super::WaitArgs,
}

/// Arguments of `graph export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    #[command(flatten)]
    film: FilmArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = FormatArg::Json)]
    format: FormatArg,
    /// The same as `--format gold`: the verified graph as an annotation.
    #[arg(long, conflicts_with = "format")]
    gold: bool,
    /// Output folder.
    #[arg(long, default_value = "graphs")]
    out: PathBuf,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum FormatArg {
    Json,
    Graphml,
    Dot,
    Neo4jCsv,
    Gold,
}

/// Runs `moviegraph graph …`.
pub fn graph(cmd: GraphCommand) -> anyhow::Result<Outcome> {
    match cmd {
        GraphCommand::Build(a) => build_cmd(a),
        GraphCommand::Stats(a) => stats_cmd(a),
        GraphCommand::Review(a) => review_cmd(a),
        GraphCommand::Export(a) => export_cmd(a),
        GraphCommand::Score(a) => super::graph_score::score_cmd(a),
        GraphCommand::Import(a) => super::graph_import::import_cmd(a),
    }
}

fn build_cmd(a: BuildArgs) -> anyhow::Result<Outcome> {
    let request = BuildRequest {
        store: store_path(a.film.store.as_deref()),
        film_dir: a.film.film_dir,
        keyframes: a.keyframes,
        options: BuildOptions {
            rule: match a.rule {
                RuleArg::Unanimous => Rule::Unanimous,
                RuleArg::Majority => Rule::Majority,
            },
            review: a.review,
            resolve: ResolveOptions {
                cap: a.group_cap.max(1),
                ..ResolveOptions::default()
            },
            max_keyframes: a.max_keyframes,
            stop_after: a.stop_after,
        },
        wait: a.wait.mode(),
        config: a.models.load()?,
    };
    emit(&build_film_graph(&request, &Terminal::notes())?)?;
    Ok(Outcome::Success)
}

fn stats_cmd(a: FilmArgs) -> anyhow::Result<Outcome> {
    let store = store_path(a.store.as_deref());
    emit(&graph_stats(&a.film_dir, &store, a.json)?)?;
    Ok(Outcome::Success)
}

fn export_cmd(a: ExportArgs) -> anyhow::Result<Outcome> {
    let store = store_path(a.film.store.as_deref());
    let form = match if a.gold { FormatArg::Gold } else { a.format } {
        FormatArg::Json => GraphForm::Json,
        FormatArg::Graphml => GraphForm::Graphml,
        FormatArg::Dot => GraphForm::Dot,
        FormatArg::Neo4jCsv => GraphForm::Neo4jCsv,
        FormatArg::Gold => GraphForm::Gold,
    };
    emit(&export_files(&a.film.film_dir, &store, form, &a.out)?)?;
    Ok(Outcome::Success)
}

fn review_cmd(a: ReviewArgs) -> anyhow::Result<Outcome> {
    let store = store_path(a.film.store.as_deref());
    if a.serve {
        return serve_review(&a, &store);
    }
    if let Some(file) = &a.decisions {
        emit(&write_decisions(&a.film.film_dir, &store, file)?)?;
        return Ok(Outcome::Success);
    }
    let review = Review::open(&a.film.film_dir, &store, a.wait.mode(), &Terminal::notes())?;
    if !a.accept.is_empty() || !a.reject.is_empty() {
        let decisions = a
            .accept
            .iter()
            .map(|id| (id, true))
            .chain(a.reject.iter().map(|id| (id, false)));
        let mut out = String::new();
        for (id, accept) in decisions {
            let status = review.decide(id, accept, &a.note)?;
            out.push_str(&format!("{id}: {}\n", status.as_str()));
        }
        emit(&out)?;
        return Ok(Outcome::Success);
    }
    if review.pending.is_empty() {
        emit(&format!(
            "film {}: no escalated candidate waits for review\n",
            review.slug
        ))?;
        return Ok(Outcome::Success);
    }
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let mut decided = 0;
    for c in &review.pending {
        emit(
            &(describe(c)
                + "   [a]ccept, [r]eject (optionally followed by a reason), [s]kip, [q]uit: "),
        )?;
        let Some(line) = lines.next() else { break };
        let line = line?;
        let (cmd, note) = line.trim().split_once(' ').unwrap_or((line.trim(), ""));
        match cmd {
            "a" | "accept" => review.decide(&c.id, true, note)?,
            "r" | "reject" => review.decide(&c.id, false, note)?,
            "q" | "quit" => break,
            _ => continue,
        };
        decided += 1;
    }
    emit(&format!(
        "\nrecorded {decided} decision(s); {} escalated before\n",
        review.pending.len()
    ))?;
    Ok(Outcome::Success)
}

/// `graph review --serve`: the review app until the process is stopped.
fn serve_review(a: &ReviewArgs, store: &std::path::Path) -> anyhow::Result<Outcome> {
    let access = Access::choose(
        a.host,
        &a.reviewer,
        std::env::var("MOVIEGRAPH_REVIEW_PASSWORD").ok(),
        "--reviewer",
        "MOVIEGRAPH_REVIEW_PASSWORD",
    )
    .map_err(anyhow::Error::msg)?;
    let signin = SignIn::new(access, "mg_review");
    let root = std::env::current_dir().context("reading the current folder")?;
    let app = ReviewApp::open(
        &a.film.film_dir,
        store,
        &root,
        a.overlap,
        a.wait.mode(),
        &Terminal::notes(),
    )?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(SocketAddr::new(a.host, a.port))
            .await
            .with_context(|| format!("binding {}:{}", a.host, a.port))?;
        let addr = listener.local_addr()?;
        let mut text = format!("listening on http://{addr}/\n");
        for (name, link) in signin.links(&format!("http://{addr}")) {
            text.push_str(&format!("reviewer {name}: {link}\n"));
        }
        emit(&text)?;
        serve(listener, app, signin)
            .await
            .context("serving the review app")?;
        Ok(Outcome::Success)
    })
}
