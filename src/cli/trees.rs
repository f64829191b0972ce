//! `moviegraph trees`: generate question trees from the verified graph,
//! validate tree files (ours or anyone's), tabulate them, import them.

use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Subcommand};
use moviegraph::workspace::store_path;
use moviegraph::workspace::trees_files::{
    export_trees, import_trees, stats_text, validate_files, ExportForm, ImportRequest, ImportSource,
};
use moviegraph::workspace::trees_generate::{
    generate_film_trees, GenerateOutcome, GenerateRequest,
};

use super::models::GeneratorFlags;
use super::report::Terminal;
use super::{emit, Outcome};

/// Generate, validate, tabulate and import question trees.
// Parsed once per process; boxing the model flags would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum TreesCommand {
    /// Build one tree per anchor (long causal chains and pivotal mental
    /// states of the verified graph, spread over the film) and write
    /// trees/<film>.jsonl, its first line saying how the trees were made.
    /// Only scenes the film contains (a timed subtitle cue) give contexts
    /// unless --text-only; a film whose script does not match its subtitles
    /// (alignment verdict mismatch) gets no trees unless --text-only (exit 1).
    /// Invalid trees are reported and left out (exit 1).
    Generate(GenerateArgs),
    /// Check tree files: one correct option for single choice, ≥1 for
    /// multiple, a reference for open, triggers that exist, consistent
    /// depths, non-empty contexts, no graph id in any shown text. Exit 1 when
    /// a tree is invalid.
    Validate(FilesArgs),
    /// Counts by depth, format, category and type, distractor reasons,
    /// answer positions and option-length balance.
    Stats(StatsArgs),
    /// Bring questions in and store them as trees/<name>.jsonl, its first line
    /// recording the import. `--from trees` (the default): a tree file written
    /// by hand or by another tool, validated (refused, exit 1, if any tree is
    /// invalid). `--from muma-tom questions.json --texts texts.json`: the
    /// MuMA-ToM release, one single-choice question a tree, labelled belief,
    /// social_goal or belief_of_goal. `--from items FILE.jsonl`: flat items (id,
    /// context, question, options, answer, tags; docs/trees-format.md). A
    /// malformed entry stops the import naming it; nothing is dropped.
    ///
    /// Examples:
    ///   moviegraph trees import --from muma-tom Files/questions.json --texts Files/texts.json
    ///   moviegraph trees import --from items tomi.jsonl --name tomi
    ///   moviegraph eval run --trees trees/muma-tom.jsonl --subject random
    Import(ImportArgs),
    /// Write trees as flat items other harnesses read: `--to items` (the flat
    /// item JSONL that `trees import --from items` reads back) or `--to inspect`
    /// (an Inspect AI dataset: input, choices, target, id, metadata). Every
    /// node is one item; a follow-up carries the counterfactual premise it is
    /// asked under (its parent's question and the answer assumed).
    ///
    /// Example: moviegraph trees export --to inspect trees/the-second-key.jsonl --out tsk.jsonl
    Export(ExportArgs),
    /// Measure whether answering takes understanding: shortcut readers that
    /// never read for meaning (options only, no context, surface features of
    /// the excerpt, a learned surface-feature model cross-validated by tree)
    /// against chance, answer balance, give-aways, duplicates, follow-ups
    /// re-asking their parent, and coverage of the film. Exit 1 when a
    /// threshold is broken. A score on these trees is only worth its distance
    /// above the strongest shortcut.
    Audit(super::trees_audit::AuditArgs),
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
    models: GeneratorFlags,
    /// Depth of every tree.
    #[arg(long, default_value_t = 3)]
    depth: u32,
    /// Most trees for the film (default: 30, or 1.5 per scene for a longer
    /// film, so anchors reach from the first act to the last).
    #[arg(long)]
    max_trees: Option<usize>,
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
    /// Build script-only trees: contexts may come from scenes the film does
    /// not contain (no timed subtitle cue: cut scenes), and a script whose
    /// alignment verdict is mismatch (not the film's script) is no obstacle.
    /// Without it such questions are not generated and a mismatch stops with
    /// exit 1. The trees file records text_only either way.
    #[arg(long)]
    text_only: bool,
    /// Ask trivia too: who holds a state (mostly who said the line), who
    /// takes part in an exchange, which of two moments comes first. Left
    /// out by default: they test reading, not minds or causes. The trees
    /// file records the choice.
    #[arg(long)]
    include_trivia: bool,
    #[command(flatten)]
    wait: super::WaitArgs,
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
    /// The file to import: a tree file, MuMA-ToM's questions.json, or an item JSONL.
    file: PathBuf,
    /// What the file is.
    #[arg(long, value_enum, default_value_t = ImportFrom::Trees)]
    from: ImportFrom,
    /// MuMA-ToM's texts.json: each episode's text, the questions' context
    /// (without it, each episode's `description` is used).
    #[arg(long, value_name = "FILE")]
    texts: Option<PathBuf>,
    /// The benchmark's name, which names the output (trees/<name>.jsonl) and
    /// the trees' film (default: `muma-tom`, or the item file's stem).
    #[arg(long)]
    name: Option<String>,
    /// Output folder.
    #[arg(long, default_value = "trees")]
    out: PathBuf,
}

/// The formats `trees import` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ImportFrom {
    /// moviegraph's trees JSONL.
    Trees,
    /// The MuMA-ToM release (questions.json, with --texts texts.json).
    #[value(name = "muma-tom")]
    MumaTom,
    /// Flat items, one JSON object a line.
    Items,
}

/// Arguments of `trees export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Tree files to export, in order.
    #[arg(required = true, num_args = 1..)]
    files: Vec<PathBuf>,
    /// The form to write.
    #[arg(long, value_enum)]
    to: ExportTo,
    /// Write here instead of standard output.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

/// The forms `trees export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportTo {
    /// Flat items (read back by `trees import --from items`).
    Items,
    /// The Inspect AI dataset JSONL (input, choices, target, id, metadata).
    Inspect,
}

/// Runs `moviegraph trees …`.
pub fn trees(cmd: TreesCommand) -> anyhow::Result<Outcome> {
    match cmd {
        TreesCommand::Generate(a) => generate_cmd(a),
        TreesCommand::Validate(a) => validate_cmd(a),
        TreesCommand::Stats(a) => stats_cmd(a),
        TreesCommand::Import(a) => import_cmd(a),
        TreesCommand::Export(a) => export_cmd(a),
        TreesCommand::Audit(a) => super::trees_audit::audit_cmd(a),
    }
}

fn generate_cmd(a: GenerateArgs) -> anyhow::Result<Outcome> {
    let request = GenerateRequest {
        store: store_path(a.store.as_deref()),
        config: a.models.load()?,
        wait: a.wait.mode(),
        film_dir: a.film_dir,
        out: a.out,
        graph: a.graph,
        keyframes: a.keyframes,
        depth: a.depth,
        max_trees: a.max_trees,
        mix: a.mix,
        seed: a.seed,
        include_trivia: a.include_trivia,
        text_only: a.text_only,
    };
    match generate_film_trees(&request, &Terminal::notes())? {
        GenerateOutcome::Mismatch(why) => {
            eprintln!("{why}");
            Ok(Outcome::CheckFailed)
        }
        GenerateOutcome::Written { report, invalid } => {
            emit(&report)?;
            Ok(if invalid == 0 {
                Outcome::Success
            } else {
                Outcome::CheckFailed
            })
        }
    }
}

fn validate_cmd(a: FilesArgs) -> anyhow::Result<Outcome> {
    let (text, valid) = validate_files(&a.files)?;
    emit(&text)?;
    Ok(if valid {
        Outcome::Success
    } else {
        Outcome::CheckFailed
    })
}

fn stats_cmd(a: StatsArgs) -> anyhow::Result<Outcome> {
    emit(&stats_text(&a.files.files, a.json)?)?;
    Ok(Outcome::Success)
}

fn import_cmd(a: ImportArgs) -> anyhow::Result<Outcome> {
    let request = ImportRequest {
        file: a.file,
        from: match a.from {
            ImportFrom::Trees => ImportSource::Trees,
            ImportFrom::MumaTom => ImportSource::MumaTom,
            ImportFrom::Items => ImportSource::Items,
        },
        texts: a.texts,
        name: a.name,
        out: a.out,
    };
    let imported = import_trees(&request)?;
    emit(&imported.text)?;
    Ok(if imported.imported {
        Outcome::Success
    } else {
        Outcome::CheckFailed
    })
}

fn export_cmd(a: ExportArgs) -> anyhow::Result<Outcome> {
    let form = match a.to {
        ExportTo::Items => ExportForm::Items,
        ExportTo::Inspect => ExportForm::Inspect,
    };
    let (bytes, told) = export_trees(&a.files, form, a.out.as_deref())?;
    if let Some(line) = told {
        eprintln!("{line}");
        return Ok(Outcome::Success);
    }
    use std::io::Write as _;
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    if let Err(e) = lock.write_all(&bytes).and_then(|()| lock.flush()) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            return Err(e).context("writing to standard output");
        }
    }
    Ok(Outcome::Success)
}
