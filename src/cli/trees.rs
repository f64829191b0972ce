//! `moviegraph trees`: generate question trees from the verified graph,
//! validate tree files (ours or anyone's), tabulate them, import them.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use clap::{Args, Subcommand};
use moviegraph::graph::analysis::analyse;
use moviegraph::graph::store::GraphStore;
use moviegraph::graph::Graph;
use moviegraph::llm::{BackendKind, BlockingModel, Role};
use moviegraph::trees::facts::Facts;
use moviegraph::trees::generate::{generate_with, GenerateOptions, Mix, QuestionWriter};
use moviegraph::trees::jsonl::{read_trees, save_trees};
use moviegraph::trees::model::ModelWriter;
use moviegraph::trees::rules::RulesWriter;
use moviegraph::trees::schema::Tree;
use moviegraph::trees::source::Source;
use moviegraph::trees::stats::{render, stats};
use moviegraph::trees::validate::{is_valid, validate, Severity};

use super::graph::{film_slug, latest, load, open_store};
use super::models::ModelFlags;
use super::{emit, Outcome};

/// Generate, validate, tabulate and import question trees.
// Parsed once per process; boxing the model flags would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum TreesCommand {
    /// Build one tree per anchor (long causal chains and pivotal mental
    /// states of the verified graph, spread over the film) and write
    /// trees/<film>.jsonl. Invalid trees are reported and left out (exit 1).
    Generate(GenerateArgs),
    /// Check tree files: one correct option for single choice, ≥1 for
    /// multiple, a reference for open, triggers that exist, consistent
    /// depths, non-empty contexts, no graph id in any shown text. Exit 1 when
    /// a tree is invalid.
    Validate(FilesArgs),
    /// Counts by depth, format, category and type, distractor reasons,
    /// answer positions and option-length balance.
    Stats(StatsArgs),
    /// Validate a tree file written by hand or another tool and store it as
    /// trees/<film>.jsonl (refused, exit 1, if any tree is invalid).
    Import(ImportArgs),
}

/// Arguments of `trees generate`.
#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// The film folder (its screenplay gives the excerpts).
    film_dir: PathBuf,
    /// The workspace database holding the graph build (default: $MOVIEGRAPH_STORE or moviegraph.db).
    #[arg(long)]
    store: Option<PathBuf>,
    /// Read the graph from an exported graphs/<film>.json instead of the store.
    #[arg(long)]
    graph: Option<PathBuf>,
    /// The question writer is the generator role (`--generator MODEL`,
    /// `--config`): a `rules` model words questions with the offline
    /// templates; any other backend words them with that model, each
    /// checked against the graph and, if rejected, worded by the templates.
    #[command(flatten)]
    models: ModelFlags,
    /// Depth of every tree.
    #[arg(long, default_value_t = 3)]
    depth: u32,
    /// Most trees for the film.
    #[arg(long, default_value_t = 30)]
    max_trees: usize,
    /// Format mix as open,single,multi shares.
    #[arg(long, default_value = "0.45,0.38,0.17")]
    mix: String,
    /// Seed of the option-order shuffle.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Keyframe folder (MovieNet layout); default: FILM_DIR/../../keyframes/<film> when present.
    #[arg(long)]
    keyframes: Option<PathBuf>,
    /// Output folder.
    #[arg(long, default_value = "trees")]
    out: PathBuf,
}

/// Tree files.
#[derive(Debug, Args)]
pub struct FilesArgs {
    /// trees/<film>.jsonl files.
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

/// Arguments of `trees stats`.
#[derive(Debug, Args)]
pub struct StatsArgs {
    #[command(flatten)]
    files: FilesArgs,
    /// Print JSON instead of tables.
    #[arg(long)]
    json: bool,
}

/// Arguments of `trees import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The tree file to import.
    file: PathBuf,
    /// Output folder.
    #[arg(long, default_value = "trees")]
    out: PathBuf,
}

/// Runs `moviegraph trees …`.
pub fn trees(cmd: TreesCommand) -> anyhow::Result<Outcome> {
    match cmd {
        TreesCommand::Generate(a) => generate_cmd(a),
        TreesCommand::Validate(a) => validate_cmd(a),
        TreesCommand::Stats(a) => stats_cmd(a),
        TreesCommand::Import(a) => import_cmd(a),
    }
}

pub(super) fn parse_mix(text: &str) -> anyhow::Result<Mix> {
    let parts: Vec<f64> = text
        .split(',')
        .map(|p| p.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .with_context(|| format!("--mix {text:?}: expected three numbers open,single,multi"))?;
    let [open, single, multi] = parts[..] else {
        bail!("--mix {text:?}: expected three numbers open,single,multi");
    };
    if [open, single, multi]
        .iter()
        .any(|x| !x.is_finite() || *x < 0.0)
        || open + single + multi <= 0.0
    {
        bail!("--mix {text:?}: shares must be non-negative and not all zero");
    }
    let sum = open + single + multi;
    Ok(Mix {
        open: open / sum,
        single: single / sum,
        multi: multi / sum,
    })
}

fn generate_cmd(a: GenerateArgs) -> anyhow::Result<Outcome> {
    if a.depth == 0 {
        bail!("--depth must be at least 1");
    }
    let mix = parse_mix(&a.mix)?;
    let slug = film_slug(&a.film_dir);
    let store = open_store(a.store.as_deref())?;
    let graph: Graph = match &a.graph {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            let mut g: Graph = serde_json::from_str(&text)
                .with_context(|| format!("{}: not a graph export", path.display()))?;
            g.nodes.sort_by(|x, y| x.id.cmp(&y.id));
            g
        }
        None => {
            let (build, _) = latest(&store, &slug)?;
            Graph::assemble(&slug, &store.graph_candidates(build)?)
        }
    };
    // The blocks come from the store's alignment when it is current (as for `graph build`).
    let (play, blocks, _) = load(&a.film_dir, a.keyframes.as_deref(), &store, &slug)?;
    let mut source = Source::from_play(&play, &blocks);
    if let Ok(cwd) = std::env::current_dir() {
        source.relative_to(&cwd);
    }
    let facts = Facts::new(&graph);
    let analysis = analyse(&graph);
    let opts = GenerateOptions {
        depth: a.depth,
        max_trees: a.max_trees,
        mix,
        seed: a.seed,
        ..GenerateOptions::default()
    };
    let config = a.models.load()?;
    let name = config
        .role(Role::Generator)
        .first()
        .cloned()
        .unwrap_or_else(|| "rules".to_owned());
    let rules_backend = config
        .models
        .get(&name)
        .is_none_or(|m| m.backend == BackendKind::Rules);
    let mut report = String::new();
    let (out, writer_name) = if rules_backend {
        let out = generate_with(&facts, &analysis, &source, &RulesWriter, None, &opts);
        (out, RulesWriter.name())
    } else {
        let store_path = moviegraph::store::resolve_path(a.store.as_deref());
        let llm = a
            .models
            .open_llm(&store_path, &format!("trees generate {slug}"), None)?;
        let model = BlockingModel::new(llm.model(&name, Role::Generator.name())?)
            .context("cannot start the model runtime")?;
        let writer = ModelWriter::new(model);
        let out = generate_with(
            &facts,
            &analysis,
            &source,
            &writer,
            Some(&RulesWriter),
            &opts,
        );
        let replaced = out.rejected.iter().filter(|r| r.replaced).count();
        let model_rejected = out
            .rejected
            .iter()
            .filter(|r| r.writer == writer.name())
            .count();
        for r in &out.rejected {
            let _ = writeln!(report, "{r}");
        }
        let _ = writeln!(
            report,
            "model {name}: {model_rejected} questions rejected ({replaced} replaced by the rules writer's, {} dropped)",
            model_rejected - replaced
        );
        (out, writer.name())
    };
    let mut kept: Vec<Tree> = Vec::new();
    let mut invalid = 0;
    for tree in out.trees {
        let problems = validate(&tree);
        for p in problems.iter().filter(|p| p.severity == Severity::Error) {
            let _ = writeln!(report, "{p}");
        }
        if is_valid(&problems) {
            kept.push(tree);
        } else {
            invalid += 1;
        }
    }
    let path = a.out.join(format!("{slug}.jsonl"));
    save_trees(&path, &kept)?;
    let questions: usize = kept.iter().map(|t| t.nodes.len()).sum();
    let _ = writeln!(
        report,
        "wrote {} ({} trees, {questions} questions; generator {writer_name}); {} questions not worded or rejected, {} options without a follow-up above depth {}, {invalid} invalid trees left out",
        path.display(),
        kept.len(),
        out.rejected.len(),
        out.leaves_early,
        a.depth
    );
    emit(&report)?;
    Ok(if invalid == 0 {
        Outcome::Success
    } else {
        Outcome::CheckFailed
    })
}

fn read_all(files: &[PathBuf]) -> anyhow::Result<Vec<Tree>> {
    let mut all = Vec::new();
    for f in files {
        all.extend(read_trees(f)?);
    }
    Ok(all)
}

fn check(file: &Path, trees: &[Tree], out: &mut String) -> usize {
    let mut bad = 0;
    for tree in trees {
        let problems = validate(tree);
        for p in &problems {
            let _ = writeln!(out, "{}: {p}", file.display());
        }
        if !is_valid(&problems) {
            bad += 1;
        }
    }
    bad
}

fn validate_cmd(a: FilesArgs) -> anyhow::Result<Outcome> {
    let mut out = String::new();
    let (mut total, mut bad) = (0, 0);
    for f in &a.files {
        let trees = read_trees(f)?;
        total += trees.len();
        bad += check(f, &trees, &mut out);
    }
    let _ = writeln!(
        out,
        "{total} trees checked: {} valid, {bad} invalid",
        total - bad
    );
    emit(&out)?;
    Ok(if bad == 0 {
        Outcome::Success
    } else {
        Outcome::CheckFailed
    })
}

fn stats_cmd(a: StatsArgs) -> anyhow::Result<Outcome> {
    let trees = read_all(&a.files.files)?;
    let s = stats(&trees);
    if a.json {
        emit(&(serde_json::to_string_pretty(&s)? + "\n"))?;
    } else {
        emit(&render(&s))?;
    }
    Ok(Outcome::Success)
}

fn import_cmd(a: ImportArgs) -> anyhow::Result<Outcome> {
    let trees = read_trees(&a.file)?;
    let mut out = String::new();
    if check(&a.file, &trees, &mut out) > 0 {
        out.push_str("not imported: fix the invalid trees first\n");
        emit(&out)?;
        return Ok(Outcome::CheckFailed);
    }
    let Some(film) = trees.first().map(|t| t.film.clone()) else {
        bail!("{}: no trees", a.file.display());
    };
    if let Some(t) = trees.iter().find(|t| t.film != film) {
        bail!(
            "{}: tree {} is of film {:?}, the first of {film:?}; import one film per file",
            a.file.display(),
            t.id,
            t.film
        );
    }
    let path = a.out.join(format!("{film}.jsonl"));
    save_trees(&path, &trees)?;
    let _ = writeln!(
        out,
        "imported {} trees into {}",
        trees.len(),
        path.display()
    );
    emit(&out)?;
    Ok(Outcome::Success)
}
