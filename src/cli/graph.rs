//! `moviegraph graph`: build, inspect, review and export the Social-Causal Graph.

use std::fmt::Write as _;
use std::io::BufRead;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use clap::{Args, Subcommand, ValueEnum};
use moviegraph::align::store::{AlignmentRecord, AlignmentStore};
use moviegraph::align::{align, attach_shots, AlignOptions, Block};
use moviegraph::graph::analysis::analyse;
use moviegraph::graph::audit::{GroundingAuditor, RulesAdjudicator, SchemaTimeAuditor};
use moviegraph::graph::build::{build, BuildOptions, FilmInput, Roles};
use moviegraph::graph::consensus::Rule;
use moviegraph::graph::export::{to_dot, to_graphml, to_json, to_neo4j_csv};
use moviegraph::graph::generate::RulesGenerator;
use moviegraph::graph::resolve::ResolveOptions;
use moviegraph::graph::stats::{render, stats};
use moviegraph::graph::store::GraphStore;
use moviegraph::graph::{
    Adjudicator, Auditor, Candidate, Generator, Graph, Item, Role, Status, Vote,
};
use moviegraph::media::subtitles;
use moviegraph::screenplay::{self, Screenplay};
use moviegraph::store::{self, AlignmentSources, GraphBuildId, Store};

use super::models::ModelFlags;
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
    models: ModelFlags,
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
    }
}

pub(super) fn film_slug(dir: &Path) -> String {
    dir.canonicalize()
        .ok()
        .as_deref()
        .and_then(Path::file_name)
        .or_else(|| dir.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| dir.display().to_string())
}

/// Where a build's blocks came from.
pub(super) enum Source {
    /// The store held an alignment of exactly these input files.
    Stored,
    /// Aligned now (and saved), for the reason given.
    Aligned(&'static str),
}

/// Reads the film folder and gives its blocks: the stored alignment when its
/// input fingerprints (screenplay, subtitles, shots) equal the files' now,
/// else a fresh alignment, saved so the next stage run reuses it.
pub(super) fn load(
    dir: &Path,
    keyframes: Option<&Path>,
    store: &Store,
    slug: &str,
) -> anyhow::Result<(Screenplay, Vec<Block>, Source)> {
    if !dir.is_dir() {
        bail!(
            "{}: not a folder; expected a film folder holding a screenplay and subtitles",
            dir.display()
        );
    }
    let script = ["script.fountain", "script.fdx", "script.txt"]
        .iter()
        .map(|f| dir.join(f))
        .find(|p| p.exists())
        .with_context(|| {
            format!(
                "{}: no screenplay (script.fountain, script.fdx or script.txt)",
                dir.display()
            )
        })?;
    let subs_path = ["subtitles.srt", "subtitles.vtt"]
        .iter()
        .map(|f| dir.join(f))
        .find(|p| p.exists())
        .with_context(|| {
            format!(
                "{}: no subtitles (subtitles.srt or subtitles.vtt)",
                dir.display()
            )
        })?;
    let play = screenplay::parse_file(&script, None)
        .with_context(|| format!("reading {}", script.display()))?;
    // The same shots `moviegraph run` attaches: a manifest in the folder or
    // the MovieNet layout keyframes/<film> beside the screenplays folder.
    let shots_path = keyframes
        .map(Path::to_path_buf)
        .or_else(|| super::run::find_shots(dir, slug));
    let shots = match &shots_path {
        Some(p) => Some(super::align::load_shots(p, None, None)?),
        None => None,
    };
    let sources = AlignmentSources {
        script: super::align::fingerprint(&script)?,
        subtitles: super::align::fingerprint(&subs_path)?,
        shots: shots.as_ref().map(|(_, f)| f.clone()),
    };
    let stored = match store.film_id(slug)? {
        Some(id) => store.load_alignment(id)?,
        None => None,
    };
    let why = match &stored {
        None => "no stored alignment",
        Some(s) if !same_inputs(&s.sources, &sources) => "the stored alignment is stale",
        Some(s) => {
            let blocks = s.alignment.blocks.clone();
            return Ok((play, blocks, Source::Stored));
        }
    };
    let subs = subtitles::parse_file(&subs_path, None)
        .with_context(|| format!("reading {}", subs_path.display()))?;
    let mut alignment = align(&play, &subs, &AlignOptions::default());
    if let Some((list, _)) = &shots {
        attach_shots(&mut alignment, list, 5, 3_000);
    }
    store
        .save_alignment(
            slug,
            &AlignmentRecord {
                play: &play,
                subtitles: &subs,
                shots: shots.as_ref().map(|(l, _)| l),
                alignment: &alignment,
                sources: &sources,
            },
        )
        .with_context(|| format!("saving the alignment of film {slug}"))?;
    Ok((play, alignment.blocks, Source::Aligned(why)))
}

/// The same bytes in the same roles; paths may be spelled differently.
fn same_inputs(a: &AlignmentSources, b: &AlignmentSources) -> bool {
    a.script.sha256 == b.script.sha256
        && a.subtitles.sha256 == b.subtitles.sha256
        && a.shots.as_ref().map(|f| &f.sha256) == b.shots.as_ref().map(|f| &f.sha256)
}

pub(super) fn open_store(flag: Option<&Path>) -> anyhow::Result<Store> {
    let path = store::resolve_path(flag);
    Ok(Store::open(&path)?)
}

pub(super) fn latest(store: &Store, slug: &str) -> anyhow::Result<(GraphBuildId, String)> {
    let film = store.film_id(slug)?.with_context(|| {
        format!(
            "film {slug} is not in the store {}; run `moviegraph graph build` first",
            store.path().display()
        )
    })?;
    store.graph_latest_build(film)?.with_context(|| {
        format!(
            "film {slug} has no graph build in {}",
            store.path().display()
        )
    })
}

fn build_cmd(a: BuildArgs) -> anyhow::Result<Outcome> {
    let slug = film_slug(&a.film.film_dir);
    let store = open_store(a.film.store.as_deref())?;
    let (play, blocks, source) = load(&a.film.film_dir, a.keyframes.as_deref(), &store, &slug)?;
    let title = play.title_field("title").map(str::to_owned);
    let config = a.models.load()?;
    let chosen = choose_roles(&config)?;
    let llm = if chosen.needs_models() {
        let path = store::resolve_path(a.film.store.as_deref());
        Some(
            a.models
                .open_llm(&path, &format!("graph build {slug}"), None)?,
        )
    } else {
        None
    };
    let owned = chosen.open(llm.as_ref())?;
    let roles = owned.roles();
    let opts = BuildOptions {
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
    };
    let film = FilmInput {
        slug: &slug,
        title: title.as_deref(),
        play: &play,
        blocks: &blocks,
    };
    let report =
        build(&store, &film, &roles, &opts).with_context(|| format!("stage graph, film {slug}"))?;
    let t = &report.totals;
    let per = |x: u64| {
        if report.processed == 0 {
            0.0
        } else {
            x as f64 / report.processed as f64
        }
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "film {slug}: stage graph ({})\n{}\nblocks {}: {} built now, {} already done{}\ncandidates proposed now: {}, dropped by validation: {}\ncalls per built block: generator {:.2}, auditors {:.2}, adjudicator {:.2}; time per block {:.2} ms",
        chosen.describe(),
        match source {
            Source::Stored => "blocks: the stored alignment (inputs unchanged)".to_owned(),
            Source::Aligned(why) => format!("blocks: aligned now and saved ({why})"),
        },
        report.blocks,
        report.processed,
        report.skipped,
        if report.complete { "" } else { " (incomplete: run again to resume)" },
        report.candidates,
        t.dropped,
        per(t.generator_calls),
        per(t.auditor_calls),
        per(t.adjudicator_calls),
        per(t.elapsed_us) / 1000.0
    );
    for why in report.dropped.iter().take(DROPS_SHOWN) {
        let _ = writeln!(out, "  dropped: {why}");
    }
    if report.dropped.len() > DROPS_SHOWN {
        let _ = writeln!(
            out,
            "  … and {} more dropped (run with -v to log every one)",
            report.dropped.len() - DROPS_SHOWN
        );
    }
    if let Some(build) = report.build {
        out.push_str(&render(&stats(
            &store.graph_candidates(build)?,
            &store.graph_merges(build)?,
        )));
    }
    emit(&out)?;
    Ok(Outcome::Success)
}

fn stats_cmd(a: FilmArgs) -> anyhow::Result<Outcome> {
    let slug = film_slug(&a.film_dir);
    let store = open_store(a.store.as_deref())?;
    let (build, _) = latest(&store, &slug)?;
    let s = stats(&store.graph_candidates(build)?, &store.graph_merges(build)?);
    if a.json {
        emit(&(serde_json::to_string_pretty(&s)? + "\n"))?;
    } else {
        emit(&render(&s))?;
    }
    Ok(Outcome::Success)
}

fn export_cmd(a: ExportArgs) -> anyhow::Result<Outcome> {
    let slug = film_slug(&a.film.film_dir);
    let store = open_store(a.film.store.as_deref())?;
    let (build, settings) = latest(&store, &slug)?;
    let candidates = store.graph_candidates(build)?;
    let g = Graph::assemble(&slug, &candidates);
    std::fs::create_dir_all(&a.out).with_context(|| format!("creating {}", a.out.display()))?;
    let write = |ext: &str, text: &str| -> anyhow::Result<PathBuf> {
        let path = a.out.join(format!("{slug}.{ext}"));
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        Ok(path)
    };
    let written = match a.format {
        FormatArg::Json => {
            let s = stats(&candidates, &store.graph_merges(build)?);
            vec![write("json", &to_json(&g, &settings, &s, &analyse(&g)))?]
        }
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
    let slug = film_slug(&a.film.film_dir);
    let store = open_store(a.film.store.as_deref())?;
    let (build, _) = latest(&store, &slug)?;
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

/// Dropped items listed in the text output of `graph build`.
const DROPS_SHOWN: usize = 10;

/// The models serving a build's roles, and which of them are `rules` models.
#[derive(Debug, Clone)]
pub(super) struct Chosen {
    generator: String,
    auditors: Vec<String>,
    adjudicator: String,
    rules: std::collections::BTreeSet<String>,
}

/// Reads the generator, auditors and adjudicator from the configuration.
pub(super) fn choose_roles(config: &moviegraph::llm::Config) -> anyhow::Result<Chosen> {
    use moviegraph::llm::{BackendKind, Role as LlmRole};
    let one = |role: LlmRole| -> anyhow::Result<String> {
        config.role(role).first().cloned().with_context(|| {
            format!(
                "{}: no model serves the {role} role",
                config.source.display()
            )
        })
    };
    let chosen = Chosen {
        generator: one(LlmRole::Generator)?,
        auditors: config.role(LlmRole::Auditors).to_vec(),
        adjudicator: one(LlmRole::Adjudicator)?,
        rules: config
            .models
            .iter()
            .filter(|(_, m)| m.backend == BackendKind::Rules)
            .map(|(n, _)| n.clone())
            .collect(),
    };
    let mut seen = std::collections::BTreeSet::new();
    for a in &chosen.auditors {
        if !seen.insert(a) {
            bail!("auditor {a} is named twice; the auditors must be independent models");
        }
        if chosen.rules.contains(a) && !matches!(a.as_str(), "rules-grounding" | "rules-schema") {
            bail!(
                "auditor {a} is a rules model; the rules auditors are rules-grounding and rules-schema"
            );
        }
    }
    Ok(chosen)
}

/// A build's roles, owned.
pub(super) struct OwnedRoles {
    generator: Box<dyn Generator>,
    auditors: Vec<Box<dyn Auditor>>,
    adjudicator: Box<dyn Adjudicator>,
}

impl OwnedRoles {
    pub(super) fn roles(&self) -> Roles<'_> {
        Roles {
            generator: self.generator.as_ref(),
            auditors: self.auditors.iter().map(|a| a.as_ref()).collect(),
            adjudicator: Some(self.adjudicator.as_ref()),
        }
    }
}

impl Chosen {
    fn is_rules(&self, name: &str) -> bool {
        self.rules.contains(name)
    }

    pub(super) fn needs_models(&self) -> bool {
        std::iter::once(&self.generator)
            .chain(&self.auditors)
            .chain(std::iter::once(&self.adjudicator))
            .any(|n| !self.is_rules(n))
    }

    /// Which backend runs each role, for the build's first line.
    pub(super) fn describe(&self) -> String {
        if !self.needs_models() {
            return "rules backend: a lexical baseline, offline".to_owned();
        }
        let of = |n: &str| {
            if self.is_rules(n) {
                format!("{n} [rules: lexical baseline, offline]")
            } else {
                format!("{n} [model]")
            }
        };
        format!(
            "generator {}, auditors {}, adjudicator {}",
            of(&self.generator),
            self.auditors
                .iter()
                .map(|a| of(a))
                .collect::<Vec<_>>()
                .join(", "),
            of(&self.adjudicator)
        )
    }

    /// The native rules roles for `rules` models, model-backed roles for the rest.
    pub(super) fn open(&self, llm: Option<&moviegraph::llm::Llm>) -> anyhow::Result<OwnedRoles> {
        self.open_on(llm, None)
    }

    /// As [`Chosen::open`], the model roles driven on `runtime` when one is
    /// given (else on a runtime of their own).
    pub(super) fn open_on(
        &self,
        llm: Option<&moviegraph::llm::Llm>,
        runtime: Option<std::sync::Arc<tokio::runtime::Runtime>>,
    ) -> anyhow::Result<OwnedRoles> {
        use moviegraph::graph::model::{ModelAdjudicator, ModelAuditor, ModelGenerator};
        use moviegraph::llm::BlockingModel;
        let mut wanted = Vec::new();
        let mut handle = |name: &str, role: &str| -> anyhow::Result<usize> {
            let llm = llm.context("the model layer is not open")?;
            wanted.push(llm.model(name, role)?);
            Ok(wanted.len() - 1)
        };
        let g = (!self.is_rules(&self.generator))
            .then(|| handle(&self.generator, "generator"))
            .transpose()?;
        let auds = self
            .auditors
            .iter()
            .map(|a| {
                (!self.is_rules(a))
                    .then(|| handle(a, "auditor"))
                    .transpose()
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        let j = (!self.is_rules(&self.adjudicator))
            .then(|| handle(&self.adjudicator, "adjudicator"))
            .transpose()?;
        // One runtime for all the model roles of the build.
        let models = match runtime {
            Some(rt) => BlockingModel::all_on(wanted, rt),
            None => BlockingModel::all(wanted).context("cannot start the async runtime")?,
        };
        let generator: Box<dyn Generator> = match g {
            Some(i) => Box::new(ModelGenerator::new(models[i].clone())),
            None => Box::new(RulesGenerator),
        };
        let auditors = self
            .auditors
            .iter()
            .zip(auds)
            .map(|(name, i)| -> Box<dyn Auditor> {
                match (i, name.as_str()) {
                    (Some(i), _) => Box::new(ModelAuditor::new(models[i].clone())),
                    (None, "rules-grounding") => Box::new(GroundingAuditor),
                    (None, _) => Box::new(SchemaTimeAuditor),
                }
            })
            .collect();
        let adjudicator: Box<dyn Adjudicator> = match j {
            Some(i) => Box::new(ModelAdjudicator::new(models[i].clone())),
            None => Box::new(RulesAdjudicator),
        };
        Ok(OwnedRoles {
            generator,
            auditors,
            adjudicator,
        })
    }
}
