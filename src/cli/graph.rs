//! `moviegraph graph`: build, inspect, review and export the Social-Causal Graph.

use std::io::BufRead;
use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};
use moviegraph::graph::build::BuildOptions;
use moviegraph::graph::consensus::Rule;
use moviegraph::graph::resolve::ResolveOptions;
use moviegraph::workspace::graph_build::{build_film_graph, BuildRequest};
use moviegraph::workspace::graph_files::{describe, export_files, graph_stats, GraphForm, Review};
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
    /// Show each escalated candidate with its evidence and the auditors'
    /// rationales, and record a person's decision (a/r/s/q on stdin, or
    /// --accept/--reject ID).
    Review(ReviewArgs),
    /// Write graphs/<film>.<ext>: json (the documented exchange format,
    /// byte-identical across reruns), graphml, dot, or neo4j-csv.
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
    let form = match a.format {
        FormatArg::Json => GraphForm::Json,
        FormatArg::Graphml => GraphForm::Graphml,
        FormatArg::Dot => GraphForm::Dot,
        FormatArg::Neo4jCsv => GraphForm::Neo4jCsv,
    };
    emit(&export_files(&a.film.film_dir, &store, form, &a.out)?)?;
    Ok(Outcome::Success)
}

fn review_cmd(a: ReviewArgs) -> anyhow::Result<Outcome> {
    let store = store_path(a.film.store.as_deref());
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
