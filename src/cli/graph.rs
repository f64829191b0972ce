//! `moviegraph graph`: build, inspect, review and export the Social-Causal Graph.

use moviegraph::graph::trajectory::{render_text, trajectories, TRAJECTORY_CHARACTERS};
use std::fmt::Write as _;
use std::io::BufRead;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use clap::{Args, Subcommand, ValueEnum};
use moviegraph::graph::build::BuildOptions;
use moviegraph::graph::consensus::Rule;
use moviegraph::graph::export::{to_dot, to_graphml, to_neo4j_csv};
use moviegraph::graph::generate::gates::{family_rows, render_families};
use moviegraph::graph::generate::rules::GATED;
use moviegraph::graph::resolve::ResolveOptions;
use moviegraph::graph::stats::{render, stats};
use moviegraph::graph::store::GraphStore;
use moviegraph::graph::{Candidate, Graph, Item, Role, Status, Vote};
use moviegraph::store::{self, Store};
use moviegraph::workspace::film;
use moviegraph::workspace::graph::{build_settings, export_graph, latest_build};
use moviegraph::workspace::graph_build::{build_film_graph, BuildRequest};
use moviegraph::workspace::lock::WriterLock;

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

pub(super) fn open_store(flag: Option<&Path>) -> anyhow::Result<Store> {
    let path = store::resolve_path(flag);
    Ok(Store::open(&path)?)
}

fn build_cmd(a: BuildArgs) -> anyhow::Result<Outcome> {
    let request = BuildRequest {
        store: store::resolve_path(a.film.store.as_deref()),
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
    let slug = film::slug(&a.film_dir);
    let store = open_store(a.store.as_deref())?;
    let (build, settings) = latest_build(&store, &slug)?;
    let candidates = store.graph_candidates(build)?;
    let s = stats(&candidates, &store.graph_merges(build)?);
    let paths = trajectories(&Graph::assemble(&slug, &candidates), TRAJECTORY_CHARACTERS);
    // The rules generator's families (a model's notes are no families).
    let generator = build_settings(&settings).map(|s| s.generator);
    let families = generator
        .as_deref()
        .filter(|g| matches!(*g, "rules" | GATED))
        .map(|g| (g, family_rows(&candidates)));
    if a.json {
        // The construction figures as before, with the trajectories beside them.
        let mut v = serde_json::to_value(&s)?;
        if let Some(o) = v.as_object_mut() {
            o.insert("trajectories".into(), serde_json::to_value(&paths)?);
            if let Some((g, rows)) = &families {
                o.insert(
                    "rule_families".into(),
                    serde_json::json!({"generator": g, "families": rows}),
                );
            }
        }
        emit(&(serde_json::to_string_pretty(&v)? + "\n"))?;
    } else {
        let families = families.map_or(String::new(), |(g, rows)| {
            format!("\n{}", render_families(g, &rows))
        });
        emit(&format!(
            "{}{families}\n{}",
            render(&s),
            render_text(&paths)
        ))?;
    }
    Ok(Outcome::Success)
}

fn export_cmd(a: ExportArgs) -> anyhow::Result<Outcome> {
    let slug = film::slug(&a.film.film_dir);
    let store = open_store(a.film.store.as_deref())?;
    let (build, settings) = latest_build(&store, &slug)?;
    let candidates = store.graph_candidates(build)?;
    let g = Graph::assemble(&slug, &candidates);
    std::fs::create_dir_all(&a.out).with_context(|| format!("creating {}", a.out.display()))?;
    let write = |ext: &str, text: &str| -> anyhow::Result<PathBuf> {
        let path = a.out.join(format!("{slug}.{ext}"));
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        Ok(path)
    };
    let written = match a.format {
        FormatArg::Json => vec![write(
            "json",
            &export_graph(&store, &slug, build, &settings)?.json,
        )?],
        FormatArg::Graphml => vec![write("graphml", &to_graphml(&g))?],
        FormatArg::Dot => vec![write("dot", &to_dot(&g))?],
        FormatArg::Neo4jCsv => {
            let (nodes, rels) = to_neo4j_csv(&g);
            vec![write("nodes.csv", &nodes)?, write("edges.csv", &rels)?]
        }
    };
    let mut out = String::new();
    for p in written {
        let _ = writeln!(
            out,
            "wrote {} ({} nodes, {} edges)",
            p.display(),
            g.nodes.len(),
            g.edges.len()
        );
    }
    emit(&out)?;
    Ok(Outcome::Success)
}

fn show(c: &Candidate) -> String {
    let mut out = String::new();
    let what = match &c.item {
        Item::Node(n) => format!("{} {}", n.kind.as_str(), n.name),
        Item::Edge(e) => format!("{} {} -> {}", e.kind.as_str(), e.source, e.target),
    };
    let _ = writeln!(
        out,
        "── {} (block {})\n   {what}\n   proposed because: {}",
        c.id, c.block, c.reason
    );
    for ev in c.item.evidence() {
        let _ = writeln!(
            out,
            "   evidence [element {} {}..{}]: “{}”",
            ev.element, ev.start, ev.end, ev.quote
        );
        for k in &ev.keyframes {
            let _ = writeln!(out, "     keyframe {k}");
        }
    }
    for v in &c.votes {
        let _ = writeln!(
            out,
            "   {} says {}: {}",
            v.judge,
            if v.accept { "accept" } else { "reject" },
            v.rationale
        );
    }
    out
}

fn review_cmd(a: ReviewArgs) -> anyhow::Result<Outcome> {
    let slug = film::slug(&a.film.film_dir);
    let store_path = store::resolve_path(a.film.store.as_deref());
    let _lock = WriterLock::acquire(
        &store_path,
        "moviegraph graph review",
        a.wait.mode(),
        &Terminal::notes(),
    )?;
    let store = Store::open(&store_path)?;
    let (build, _) = latest_build(&store, &slug)?;
    let pending: Vec<Candidate> = store
        .graph_candidates(build)?
        .into_iter()
        .filter(|c| c.status == Status::Escalated)
        .collect();
    let human = |accept: bool, note: &str| Vote {
        judge: "human".to_owned(),
        role: Role::Human,
        accept,
        rationale: note.to_owned(),
    };
    if !a.accept.is_empty() || !a.reject.is_empty() {
        let decisions = a
            .accept
            .iter()
            .map(|id| (id, true))
            .chain(a.reject.iter().map(|id| (id, false)));
        let mut out = String::new();
        for (id, accept) in decisions {
            if !pending.iter().any(|c| &c.id == id) {
                bail!("{id}: not an escalated candidate of film {slug}");
            }
            let status = store.graph_review(build, id, &human(accept, &a.note))?;
            let _ = writeln!(out, "{id}: {}", status.as_str());
        }
        emit(&out)?;
        return Ok(Outcome::Success);
    }
    if pending.is_empty() {
        emit(&format!(
            "film {slug}: no escalated candidate waits for review\n"
        ))?;
        return Ok(Outcome::Success);
    }
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let mut decided = 0;
    for c in &pending {
        emit(
            &(show(c)
                + "   [a]ccept, [r]eject (optionally followed by a reason), [s]kip, [q]uit: "),
        )?;
        let Some(line) = lines.next() else { break };
        let line = line?;
        let (cmd, note) = line.trim().split_once(' ').unwrap_or((line.trim(), ""));
        match cmd {
            "a" | "accept" => store.graph_review(build, &c.id, &human(true, note))?,
            "r" | "reject" => store.graph_review(build, &c.id, &human(false, note))?,
            "q" | "quit" => break,
            _ => continue,
        };
        decided += 1;
    }
    emit(&format!(
        "\nrecorded {decided} decision(s); {} escalated before\n",
        pending.len()
    ))?;
    Ok(Outcome::Success)
}
