//! Use case: a subject (an offline baseline or a configured model) on question
//! trees under the two-phase protocol, every answer stored as it arrives —
//! and the report of stored runs. `moviegraph eval run`, `eval report` and
//! `run` come here.

use std::path::PathBuf;

use crate::eval::html;
use crate::eval::limp::{self, LimpSubject};
use crate::eval::metrics::{compute, rotation_figures, BootstrapSettings, RunMetrics, TreesMade};
use crate::eval::model::{ModelJudge, ModelSubject};
use crate::eval::protocol::{load_run, rotation_displays, Display, LoadedRun};
use crate::eval::report as eval_report;
use crate::eval::subject::{baseline, Subject};
use crate::llm::{Llm, Role};
use crate::store::Store;
use crate::trees::jsonl::{read_tree_file, read_trees, TreeFile};
use crate::trees::provenance::UNKNOWN;
use crate::trees::schema::Tree;
use crate::trees::validate::{is_valid, validate};
use crate::util::hash::fnv1a;

use super::{bail, Context, Result};

/// The subject of a run: an offline baseline, or a model through the model layer.
pub enum OpenSubject {
    /// random, first-option or lexical.
    Baseline(Box<dyn Subject>),
    /// A configured model.
    Model(ModelSubject),
    /// The inverse-planning solver over a configured model (`limp:MODEL`).
    Limp(LimpSubject),
}

impl OpenSubject {
    /// Opens subject `name`: a baseline seeded with `seed`, else the model
    /// `name` of `llm` (keyframe paths resolved against the working directory).
    pub fn open(name: &str, seed: u64, llm: Option<&Llm>) -> Result<OpenSubject> {
        if let Some(b) = baseline(name, seed) {
            return Ok(OpenSubject::Baseline(b));
        }
        let llm = llm.with_context(|| format!("subject {name:?} is not available"))?;
        if let Some(model) = limp::model_of(name) {
            return Ok(OpenSubject::Limp(LimpSubject::new(
                llm.model(model, Role::Subject.name())?,
            )));
        }
        Ok(OpenSubject::Model(ModelSubject::new(
            llm.model(name, Role::Subject.name())?,
            std::env::current_dir().context("reading the working directory")?,
        )))
    }

    /// The subject, for the protocol.
    pub fn subject(&self) -> &dyn Subject {
        match self {
            OpenSubject::Baseline(b) => b.as_ref(),
            OpenSubject::Model(m) => m,
            OpenSubject::Limp(l) => l,
        }
    }

    /// Keyframes a model subject could not read (0 for a baseline).
    pub fn missing_images(&self) -> usize {
        match self {
            OpenSubject::Baseline(_) | OpenSubject::Limp(_) => 0,
            OpenSubject::Model(m) => m.missing_images(),
        }
    }
}

/// The judge of open answers when `name` is a model (else the ROUGE-L fallback: `None`).
pub fn open_judge(name: Option<&str>, llm: Option<&Llm>) -> Result<Option<ModelJudge>> {
    match (name, llm) {
        (Some(name), Some(llm)) => Ok(Some(ModelJudge::new(llm.model(name, Role::Judge.name())?))),
        (Some(name), None) => bail!("judge {name} is a model but the model layer is not open"),
        (None, _) => Ok(None),
    }
}

/// The trees of `files`, every one valid (else an error listing the problems
/// with their file, saying they must be fixed before `purpose`, e.g.
/// "evaluating"), and the digest that names a run over them.
pub fn read_valid_trees(files: &[PathBuf], purpose: &str) -> Result<(Vec<Tree>, Vec<u8>)> {
    let mut trees: Vec<Tree> = Vec::new();
    let mut digest = Vec::new();
    for path in files {
        let file_trees = read_trees(path)?;
        let mut bad = Vec::new();
        for tree in &file_trees {
            let problems = validate(tree);
            if !is_valid(&problems) {
                bad.extend(problems.iter().map(|p| format!("{}: {p}", path.display())));
            }
        }
        if !bad.is_empty() {
            bail!(
                "invalid trees; fix them (see `moviegraph trees validate`) before {purpose}:\n{}",
                bad.join("\n")
            );
        }
        digest.extend(serde_json::to_vec(&file_trees)?);
        trees.extend(file_trees);
    }
    if trees.is_empty() {
        bail!("the tree files hold no trees");
    }
    Ok((trees, digest))
}

/// The id of a run of `subject` with `seed` over trees whose digest is
/// `digest` (their JSON): `SUBJECT-sSEED[-text]-HASH`.
pub fn run_id(subject: &str, seed: u64, text_only: bool, digest: &[u8]) -> String {
    format!(
        "{subject}-s{seed}{}-{:08x}",
        if text_only { "-text" } else { "" },
        fnv1a(digest) as u32
    )
}

/// The metrics of stored runs and the report's three files (HTML, JSON, CSV).
pub struct Report {
    /// Per run, in the order given.
    pub metrics: Vec<RunMetrics>,
    /// `report.html`.
    pub html: String,
    /// `report.json`.
    pub json: String,
    /// `report.csv`.
    pub csv: String,
}

/// The metrics of stored runs, and the human runs among them (for agreement).
pub struct StoredMetrics {
    /// Per run, in the order given; a human run's subject names its annotator,
    /// a run asked under option rotation carries the rotation figures.
    pub metrics: Vec<RunMetrics>,
    /// The human runs (walk), with their annotators.
    pub humans: Vec<(LoadedRun, String)>,
}

/// The metrics of the stored runs `ids` with `settings` behind the intervals.
pub fn run_metrics(
    store: &Store,
    ids: &[String],
    settings: BootstrapSettings,
) -> Result<StoredMetrics> {
    run_metrics_with(store, ids, settings, true)
}

/// [`run_metrics`], with each trees file's validity audit (shortcut readers
/// over every tree: the costly part) in `made` only when `audit` is set.
pub fn run_metrics_with(
    store: &Store,
    ids: &[String],
    settings: BootstrapSettings,
    audit: bool,
) -> Result<StoredMetrics> {
    let mut metrics = Vec::new();
    let mut humans: Vec<(LoadedRun, String)> = Vec::new();
    for id in ids {
        let loaded = load_run(store, id)?;
        let mut m = compute(&loaded, settings);
        m.made = trees_made_with(&loaded, audit);
        if let Some(annotator) = store.eval_run_annotator(id)? {
            m.subject = format!("{} ({annotator})", m.subject);
            humans.push((loaded.clone(), annotator));
        }
        if store.eval_run(&format!("{id}@rot1"))?.is_some() {
            let displays = rotation_displays(loaded.run.seed);
            let mut variants = vec![loaded];
            for (_, suffix) in &displays[1..] {
                variants.push(load_run(store, &format!("{id}{suffix}"))?);
            }
            let pairs: Vec<(Display, &LoadedRun)> = displays
                .iter()
                .map(|(d, _)| *d)
                .zip(variants.iter())
                .collect();
            m.figures.extend(rotation_figures(&pairs));
        }
        metrics.push(m);
    }
    Ok(StoredMetrics { metrics, humans })
}

/// Each subject's runs pooled over several films: the runs named `ids` that
/// share a subject are joined — their trees and answers — into one run
/// `corpus-<subject>`, so its figures and intervals (trees resampled over the
/// whole corpus) are the corpus's. Subjects keep the order they first appear in.
pub fn pooled_metrics(
    store: &Store,
    ids: &[String],
    settings: BootstrapSettings,
) -> Result<Vec<RunMetrics>> {
    let mut pooled: Vec<LoadedRun> = Vec::new();
    for id in ids {
        let loaded = load_run(store, id)?;
        match pooled
            .iter_mut()
            .find(|p| p.run.subject == loaded.run.subject)
        {
            Some(p) => {
                p.trees.extend(loaded.trees);
                p.answers.extend(loaded.answers);
                if !loaded.run.source.is_empty() {
                    p.run.source = format!("{} {}", p.run.source, loaded.run.source)
                        .trim()
                        .to_owned();
                }
            }
            None => {
                let mut first = loaded;
                first.run.id = format!("corpus-{}", first.run.subject);
                pooled.push(first);
            }
        }
    }
    Ok(pooled
        .iter()
        .map(|loaded| {
            let mut m = compute(loaded, settings);
            m.made = trees_made(loaded);
            m
        })
        .collect())
}

/// The trees files a run was asked from: its recorded source, one path, or
/// several separated by spaces.
fn source_files(source: &str) -> Vec<PathBuf> {
    if source.is_empty() {
        Vec::new()
    } else if std::path::Path::new(source).is_file() {
        vec![PathBuf::from(source)]
    } else {
        source.split_whitespace().map(PathBuf::from).collect()
    }
}

/// How the trees of a run were made, per trees file, from the files' metadata
/// lines: unknown when a file is gone, no longer holds the run's trees, or
/// has no metadata line.
pub fn trees_made(loaded: &LoadedRun) -> Vec<TreesMade> {
    trees_made_with(loaded, true)
}

/// [`trees_made`], with the validity audit of each file (the costly part:
/// shortcut readers over every tree) only when `audit` is set.
pub fn trees_made_with(loaded: &LoadedRun, audit: bool) -> Vec<TreesMade> {
    let asked: std::collections::HashMap<&str, &Tree> =
        loaded.trees.iter().map(|t| (t.id.as_str(), t)).collect();
    let same = |t: &Tree| asked.get(t.id.as_str()).is_some_and(|a| *a == t);
    source_files(&loaded.run.source)
        .into_iter()
        .map(|path| {
            let file = path.display().to_string();
            let audit = audit
                .then(|| read_tree_file(&path).ok())
                .flatten()
                .filter(|f| f.trees.iter().all(same))
                .map(|f| {
                    let text_only = f
                        .provenance
                        .as_ref()
                        .and_then(|p| p.text_only)
                        .unwrap_or(false);
                    super::audit::audit_trees(&f.trees, None, text_only, Default::default())
                });
            let (provenance, summary) = match read_tree_file(&path) {
                Err(e) => (
                    None,
                    format!("unknown (the trees file cannot be read: {e})"),
                ),
                Ok(f) if !f.trees.iter().all(same) => (
                    None,
                    "unknown (the trees file no longer holds the trees of this run)".to_owned(),
                ),
                Ok(TreeFile {
                    provenance: None, ..
                }) => (None, UNKNOWN.to_owned()),
                Ok(TreeFile {
                    provenance: Some(p),
                    ..
                }) => {
                    let summary = p.describe();
                    (Some(p), summary)
                }
            };
            TreesMade {
                file,
                provenance,
                summary,
                audit,
            }
        })
        .collect()
}

/// The report of runs' metrics in its three formats.
pub fn report(metrics: Vec<RunMetrics>) -> Result<Report> {
    Ok(Report {
        html: html::html(&metrics)?,
        json: eval_report::json(&metrics),
        csv: eval_report::csv(&metrics),
        metrics,
    })
}
