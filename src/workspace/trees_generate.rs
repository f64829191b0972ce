//! Use case: `moviegraph trees generate` — a film's trees from its latest
//! graph build (or a graph file) and its current alignment, written to
//! `<out>/<film>.jsonl`, with the lines the command prints. The work itself is
//! [`generate_trees`]; this is the command's whole sequence: the store's
//! writer lock, the alignment (and the mismatch stop), the graph, the question
//! writer the configuration names, the file, the report.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::llm::{BlockingModel, Config, Role};
use crate::store::Store;
use crate::trees::generate::GenerateOptions;
use crate::trees::jsonl::save_trees_with;
use crate::util::report::Reporter;

use super::align::film_alignment;
use super::cast::{model_role, open_llm};
use super::film::FilmFolder;
use super::graph::load_graph_with_settings;
use super::lock::{Wait, WriterLock};
use super::trees::{generate_trees, mismatch_stop, parse_mix, TreesInput};
use super::{bail, Context, Result};

/// What `trees generate` was asked to do.
#[derive(Debug, Clone)]
pub struct GenerateRequest {
    /// The film folder.
    pub film_dir: PathBuf,
    /// The workspace database.
    pub store: PathBuf,
    /// Where `<film>.jsonl` goes.
    pub out: PathBuf,
    /// A graph file to use instead of the store's latest build.
    pub graph: Option<PathBuf>,
    /// The keyframe folder, when the film has one elsewhere.
    pub keyframes: Option<PathBuf>,
    /// Tree depth (at least 1).
    pub depth: u32,
    /// Most trees to write (all the anchors give when `None`).
    pub max_trees: Option<usize>,
    /// The format mix, `open,single,multi`.
    pub mix: String,
    /// The seed of every choice.
    pub seed: u64,
    /// Ask trivia (holders, participants, order) too.
    pub include_trivia: bool,
    /// Script-only trees: every scene a source, a mismatch no stop.
    pub text_only: bool,
    /// Wait for the store's writer lock, or stop.
    pub wait: Wait,
    /// The model configuration (its generator role writes the questions
    /// when it names a model; else the rules templates).
    pub config: Config,
}

/// How `trees generate` ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GenerateOutcome {
    /// The trees file was written; `invalid` trees were left out of it.
    Written {
        /// What the command prints.
        report: String,
        /// Trees that failed validation and were left out.
        invalid: usize,
    },
    /// The script does not match the subtitles: no trees (the reason).
    Mismatch(String),
}

/// Runs `trees generate` as `request` says; waits and notes go to `reporter`.
pub fn generate_film_trees(
    request: &GenerateRequest,
    reporter: &dyn Reporter,
) -> Result<GenerateOutcome> {
    let a = request;
    if a.depth == 0 {
        bail!("--depth must be at least 1");
    }
    let mix = parse_mix(&a.mix)?;
    let folder = FilmFolder::open(&a.film_dir)?;
    let slug = folder.slug.clone();
    // Generation may re-align the film (a stale alignment), which writes the store.
    let _lock = WriterLock::acquire(&a.store, "moviegraph trees generate", a.wait, reporter)?;
    let store = Store::open(&a.store)?;
    // The blocks come from the store's alignment when it is current (as for `graph build`).
    let (play, alignment, _) = film_alignment(&store, &folder, a.keyframes.as_deref())?;
    if let Some(why) = mismatch_stop(&slug, &alignment.summary, a.text_only) {
        return Ok(GenerateOutcome::Mismatch(why));
    }
    let (graph, settings) = load_graph_with_settings(&store, &slug, a.graph.as_deref())?;
    let opts = GenerateOptions {
        depth: a.depth,
        max_trees: a.max_trees,
        mix,
        seed: a.seed,
        include_trivia: a.include_trivia,
        ..GenerateOptions::default()
    };
    let model_name = model_role(&a.config, Role::Generator);
    let model = match &model_name {
        Some(name) => {
            let llm = open_llm(
                a.config.clone(),
                &a.store,
                &format!("trees generate {slug}"),
                None,
            )?;
            Some(
                BlockingModel::new(llm.model(name, Role::Generator.name())?)
                    .context("cannot start the model runtime")?,
            )
        }
        None => None,
    };
    let input = TreesInput {
        graph: &graph,
        graph_settings: settings.as_ref(),
        play: &play,
        alignment: &alignment,
        film_dir: Some(&a.film_dir),
        text_only: a.text_only,
    };
    let out = generate_trees(&input, model, &opts)?;
    let mut report = String::new();
    if let Some(name) = &model_name {
        let replaced = out.rejected.iter().filter(|r| r.replaced).count();
        let model_rejected = out
            .rejected
            .iter()
            .filter(|r| r.writer == out.writer)
            .count();
        for r in &out.rejected {
            let _ = writeln!(report, "{r}");
        }
        let _ = writeln!(
            report,
            "model {name}: {model_rejected} questions rejected ({replaced} replaced by the rules writer's, {} dropped)",
            model_rejected - replaced
        );
    }
    for p in &out.problems {
        let _ = writeln!(report, "{p}");
    }
    // Why questions were not written, most common first (`-v`).
    let mut why: BTreeMap<String, usize> = BTreeMap::new();
    for r in &out.rejected {
        let reason = r.reason.split(':').take(2).collect::<Vec<_>>().join(":");
        *why.entry(reason).or_default() += 1;
    }
    let mut why: Vec<(String, usize)> = why.into_iter().collect();
    why.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    for (reason, n) in why {
        tracing::debug!("{n} questions not written: {reason}");
    }
    let path = trees_path(&a.out, &slug);
    save_trees_with(&path, Some(&out.provenance), &out.trees)?;
    let _ = writeln!(
        report,
        "wrote {} ({} trees, {} questions; generator {}{}); {} questions not asked (not in the film: no timed subtitle cue), {} not worded or rejected, {} options without a follow-up above depth {}, {} invalid trees left out",
        path.display(),
        out.trees.len(),
        out.questions(),
        out.writer,
        if a.text_only {
            "; text-only: script-only trees, scenes the film may not contain included"
        } else {
            ""
        },
        out.not_in_film,
        out.rejected.len(),
        out.leaves_early,
        a.depth,
        out.invalid
    );
    let _ = writeln!(
        report,
        "{} (moviegraph trees audit {} for the table)",
        out.audit.summary(),
        path.display()
    );
    Ok(GenerateOutcome::Written {
        report,
        invalid: out.invalid,
    })
}

/// Where a film's trees file goes under `out`.
fn trees_path(out: &Path, slug: &str) -> PathBuf {
    out.join(format!("{slug}.jsonl"))
}
