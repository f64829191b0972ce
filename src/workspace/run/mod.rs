//! The stages of `moviegraph run` on one film — parse → align → graph → trees →
//! eval → report — with a fingerprint per stage, so a rerun skips what is
//! current, resumes what was cut off, and redoes what changed and what follows
//! from it. Shared by `run` and `bench pipeline`.
//!
//! This file holds the shared types, a film's stage bookkeeping (`Film`,
//! fingerprints, atomic writes) and the summary; each stage lives in its own
//! file (`parse`, `align` — which also chains the stages after it — `graph`,
//! `trees`, `eval`, `report`), beside the run's roles (`cast`) and the progress
//! display (`progress`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::align::store::AlignmentStore;
use crate::align::AlignOptions;
use crate::embed::{Embedder, HashedNgramEmbedder};
use crate::eval::metrics::{BootstrapSettings, RunMetrics};
use crate::eval::protocol::{run_stored_with, Display, RunEvent, RunOptions};
use crate::eval::score::NO_JUDGE_LABEL;
use crate::eval::subject::{Judge, BASELINES};
use crate::graph::build::{BuildOptions, FilmInput};
use crate::graph::store::GraphStore;
use crate::llm::{BlockingModel, Role};
use crate::screenplay::compare::compare;
use crate::screenplay::summary::summary;
use crate::screenplay::{self, Screenplay};
use crate::store::{EvalRun, FilmId, InputFile, Store};
use crate::trees::generate::GenerateOptions;
use crate::trees::jsonl::read_trees;

use super::align::{align_film, film_alignment, film_blocks, AlignInputs};
use super::cast::Cast;
use super::eval::{open_judge, report, run_id, run_metrics, OpenSubject};
use super::film::{self, load_shots, FilmFolder};
use super::graph::{build_graph, export_graph, settings_key};
use super::score::score_against_folder_gold;
use super::trees::{generate_trees, mismatch_stop, parse_mix, TreesInput};
use super::{Context, Result};

mod align;
mod command;
mod eval;
mod graph;
mod parse;
mod progress;
mod report;
mod shots;
mod trees;

use align::stages_after_parse;
pub use command::{run_pipeline, RunDone, RunRequest};
use eval::eval_stage;
use graph::graph_stage;
use parse::parse_stage;
use progress::FilmBar;
pub use progress::Progress;
pub use report::corpus_report;
use report::report_stage;
use shots::shots_stage;
use trees::trees_stage;

/// The stages, in pipeline order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    /// Every screenplay version of the folder.
    Parse,
    /// Shots, keyframes and subtitles from the folder's video, when it holds
    /// one and no keyframes (`FILM_DIR/keyframes/`, `FILM_DIR/subtitles.srt`).
    Shots,
    /// Dialogue to subtitle cues, blocks, keyframes; saved in the store.
    Align,
    /// The verified graph, block by block; `graphs/<film>.json`.
    Graph,
    /// Question trees; `trees/<film>.jsonl`.
    Trees,
    /// The subjects on the trees, every answer stored.
    Eval,
    /// `reports/<film>/report.{html,json,csv}`.
    Report,
}

/// Every stage, in order.
pub const STAGES: [Stage; 7] = [
    Stage::Parse,
    Stage::Shots,
    Stage::Align,
    Stage::Graph,
    Stage::Trees,
    Stage::Eval,
    Stage::Report,
];

impl Stage {
    /// The stage's name, as the store and the output say it.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Parse => "parse",
            Stage::Shots => "shots",
            Stage::Align => "align",
            Stage::Graph => "graph",
            Stage::Trees => "trees",
            Stage::Eval => "eval",
            Stage::Report => "report",
        }
    }
}

/// The trees settings of `moviegraph run`: those of `trees generate` by default.
const TREES_DEPTH: u32 = 3;
const TREES_MIX: &str = "0.45,0.38,0.17";
const TREES_SEED: u64 = 0;

/// Settings shared by every film of one `run`.
#[derive(Debug, Clone)]
pub struct Pipeline {
    /// Where `graphs/`, `trees/` and `reports/` go.
    pub out: PathBuf,
    /// The store.
    pub store: PathBuf,
    /// Subjects of the eval stage: offline baselines or configured models, by name.
    pub subjects: Vec<String>,
    /// Who serves the model roles.
    pub cast: Cast,
    /// Seed of the random baseline.
    pub seed: u64,
    /// Bootstrap resamples of the report.
    pub bootstrap: usize,
    /// The last stage to run.
    pub until: Stage,
    /// Script-only trees (`--text-only`): scenes the film does not contain
    /// give contexts too, and a mismatched alignment does not stop the film.
    pub text_only: bool,
    /// The sentence embedder of the align stage.
    pub embedder: AlignEmbedder,
    /// Align films whose subtitles have more than a few percent of their
    /// cues malformed (`--allow-bad-cues`).
    pub allow_bad_cues: bool,
    /// How the shots stage reads a film's video.
    pub video: VideoSettings,
}

/// How the shots stage reads a film's video.
#[derive(Debug, Clone, PartialEq)]
pub struct VideoSettings {
    /// The shot detector.
    pub detector: crate::media::video::ShotDetector,
    /// The subtitle track's language (`None`: the first English, else the first).
    pub subtitle_lang: Option<String>,
}

impl Default for VideoSettings {
    /// The default detector, the first English track.
    fn default() -> Self {
        VideoSettings {
            detector: crate::workspace::shots::default_detector().0,
            subtitle_lang: None,
        }
    }
}

/// The sentence embedder of the align stage, shared by the films' threads
/// (chosen as `moviegraph align` chooses it: see `workspace::embedder::choose`).
#[derive(Clone)]
pub struct AlignEmbedder(pub Arc<dyn Embedder + Send + Sync>);

impl AlignEmbedder {
    /// The offline hashed character-n-gram baseline.
    pub fn hashed() -> AlignEmbedder {
        AlignEmbedder(Arc::new(HashedNgramEmbedder))
    }
}

impl std::fmt::Debug for AlignEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.model_id())
    }
}

/// What a stage did this time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Computed from its inputs.
    Ran,
    /// Continued from where an earlier, interrupted run stopped.
    Resumed,
    /// Current: its fingerprint and outputs are unchanged.
    Skipped,
}

impl Action {
    fn word(self) -> &'static str {
        match self {
            Action::Ran => "ran",
            Action::Resumed => "resumed",
            Action::Skipped => "skipped",
        }
    }
}

/// One stage of one film.
#[derive(Debug, Clone)]
pub struct StageOutcome {
    /// The stage.
    pub stage: Stage,
    /// What happened.
    pub action: Action,
    /// Why it ran (or that it was current).
    pub why: String,
    /// What it produced, with the backend it ran on.
    pub detail: String,
    /// Wall time.
    pub elapsed: Duration,
}

/// Everything one film's run produced.
#[derive(Debug, Clone, Default)]
pub struct FilmOutcome {
    /// The film's slug.
    pub film: String,
    /// The stages that were considered, in order.
    pub stages: Vec<StageOutcome>,
    /// The stage after which the pipeline stopped before the last one, and
    /// why, when it did.
    pub stopped: Option<(Stage, String)>,
    /// Stopped because the alignment verdict is mismatch (a failed check: exit 1).
    pub mismatch: bool,
    /// Graph figures: candidates, verified, nodes, edges.
    pub graph: Option<(usize, usize, usize, usize)>,
    /// The graph scored against the film folder's gold.json, when it has one.
    pub graph_score: Option<crate::graph::score::GraphScore>,
    /// Trees and questions written.
    pub trees: Option<(usize, usize)>,
    /// Trees left out as invalid (a failed check).
    pub invalid_trees: usize,
    /// Eval run ids, by subject.
    pub runs: Vec<(String, String)>,
    /// Point estimates per run (no bootstrap): the summary's metrics.
    pub metrics: Vec<RunMetrics>,
    /// The report folder.
    pub report: Option<PathBuf>,
}

/// `path`'s bytes, whole or not at all (see [`crate::util::fs::write_atomic`]).
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    crate::util::fs::write_atomic(path, bytes)
        .with_context(|| format!("writing {}", path.display()))
}

fn sha(bytes: &[u8]) -> String {
    InputFile::of_bytes(Path::new(""), bytes).sha256
}

fn file_sha(path: &Path) -> Result<String> {
    Ok(film::fingerprint(path)?.sha256)
}

/// The fingerprint of a stage: the sha256 of its inputs' canonical JSON.
fn fingerprint(inputs: &BTreeMap<String, String>) -> String {
    sha(serde_json::to_string(inputs).unwrap_or_default().as_bytes())
}

/// What changed between two input sets, said plainly.
fn changes(old: &BTreeMap<String, String>, new: &BTreeMap<String, String>) -> String {
    let stage_names: Vec<&str> = STAGES.iter().map(|s| s.name()).collect();
    let mut out = Vec::new();
    for (k, v) in new {
        match old.get(k) {
            Some(o) if o == v => {}
            Some(_) if stage_names.contains(&k.as_str()) => {
                out.push(format!("its input from stage {k} changed"))
            }
            Some(o) if o.contains("sha256:") || v.contains("sha256:") => {
                out.push(format!("{k} changed"))
            }
            Some(o) if o.len() + v.len() <= 80 => out.push(format!("{k} changed ({o} → {v})")),
            Some(_) => out.push(format!("{k} changed")),
            None => out.push(format!("{k} is new")),
        }
    }
    for k in old.keys().filter(|k| !new.contains_key(*k)) {
        out.push(format!("{k} is gone"));
    }
    if out.is_empty() {
        "its inputs changed".to_owned()
    } else {
        out.join("; ")
    }
}

/// What to do with a stage.
enum Plan {
    /// Run it; `fresh`: discard any partial work (the inputs changed).
    Run {
        why: String,
        fresh: bool,
    },
    Skip,
}

/// One film under way.
struct Film<'a> {
    store: Store,
    id: FilmId,
    slug: String,
    folder: FilmFolder,
    p: &'a Pipeline,
    bar: FilmBar<'a>,
    out: FilmOutcome,
    /// Fingerprints of the stages so far.
    fps: BTreeMap<Stage, String>,
    /// The graph build's settings key, once the graph stage has worked it out.
    graph_key: Option<String>,
}

impl Film<'_> {
    /// `rel` under the output root (`graphs/x.json` rather than `./graphs/x.json`).
    fn out_path(&self, rel: &str) -> PathBuf {
        if self.p.out == Path::new(".") {
            PathBuf::from(rel)
        } else {
            self.p.out.join(rel)
        }
    }

    /// Decides whether `stage` runs, given its inputs and the files it writes.
    fn plan(
        &self,
        stage: Stage,
        inputs: &BTreeMap<String, String>,
        files: &[PathBuf],
    ) -> Result<(String, Plan)> {
        let fp = fingerprint(inputs);
        let run = |why: &str, fresh: bool| Plan::Run {
            why: why.to_owned(),
            fresh,
        };
        let plan = match self.store.run_stage(self.id, stage.name())? {
            None => run("first run", true),
            Some(r) if r.fingerprint != fp => run(&changes(&r.inputs, inputs), true),
            Some(r) if !r.done => run("an earlier run stopped inside it", false),
            Some(r) => {
                let mut why = None;
                for f in files {
                    let key = f.display().to_string();
                    let now = if f.is_file() {
                        Some(file_sha(f)?)
                    } else {
                        None
                    };
                    match (r.outputs.get(&key), now) {
                        (_, None) => why = Some(format!("{key} is missing")),
                        (Some(a), Some(b)) if *a == b => continue,
                        (Some(_), Some(_)) => {
                            why = Some(format!("{key} was changed since it was written"))
                        }
                        (None, Some(_)) => why = Some(format!("{key} was not written by it yet")),
                    }
                    break;
                }
                match why {
                    Some(w) => run(&w, false),
                    None => Plan::Skip,
                }
            }
        };
        Ok((fp, plan))
    }

    fn begin(&mut self, stage: Stage, fp: &str, inputs: &BTreeMap<String, String>) -> Result<()> {
        self.store
            .run_stage_begin(self.id, stage.name(), fp, inputs)?;
        Ok(())
    }

    fn done(&mut self, stage: Stage, fp: &str, outputs: &BTreeMap<String, String>) -> Result<()> {
        self.store
            .run_stage_done(self.id, stage.name(), fp, outputs)?;
        self.fps.insert(stage, fp.to_owned());
        Ok(())
    }

    fn record(&mut self, stage: Stage, action: Action, why: String, detail: String, t: Instant) {
        self.out.stages.push(StageOutcome {
            stage,
            action,
            why,
            detail,
            elapsed: t.elapsed(),
        });
    }

    fn skipped(&mut self, stage: Stage, fp: String, detail: String, t: Instant) {
        self.fps.insert(stage, fp);
        self.record(
            stage,
            Action::Skipped,
            "unchanged inputs and settings".to_owned(),
            detail,
            t,
        );
    }

    fn upstream(&self, stage: Stage) -> String {
        self.fps.get(&stage).cloned().unwrap_or_default()
    }
}

fn graph_figures(export: &super::graph::GraphExport) -> (usize, usize, usize, usize) {
    (
        export.stats.total.candidates,
        export.stats.total.verified,
        export.graph.nodes.len(),
        export.graph.edges.len(),
    )
}

fn pct(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

/// Runs the pipeline on one film folder.
pub fn run_film(dir: &Path, p: &Pipeline, progress: &Progress) -> Result<FilmOutcome> {
    let folder = FilmFolder::open(dir)?;
    let slug = folder.slug.clone();
    let store = Store::open(&p.store)?;
    let id = store.ensure_film(&slug, None)?;
    let mut film = Film {
        store,
        id,
        bar: progress.film(&slug),
        slug: slug.clone(),
        folder,
        p,
        out: FilmOutcome {
            film: slug,
            ..FilmOutcome::default()
        },
        fps: BTreeMap::new(),
        graph_key: None,
    };
    let play = parse_stage(&mut film)?;
    if p.until > Stage::Parse {
        shots_stage(&mut film)?;
    }
    if p.until > Stage::Shots {
        stages_after_parse(&mut film, play)?;
    }
    Ok(film.out)
}

/// Every film through the pipeline on up to `jobs` threads; results in input order.
pub fn run_films(
    dirs: &[PathBuf],
    p: &Pipeline,
    progress: &Progress,
    jobs: usize,
) -> Vec<Result<FilmOutcome>> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<FilmOutcome>>>> =
        Mutex::new((0..dirs.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, dirs.len().max(1)) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(dir) = dirs.get(i) else { break };
                let r = run_film(dir, p, progress);
                results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(r);
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err(super::Error::msg("the film's thread stopped"))))
        .collect()
}

/// One line per stage, then the film's figures.
/// A film's outcome in one line, for a run over many films: what ran, where
/// it stopped, the graph and trees, and each subject's accuracy (`-v` gives
/// [`render_film`] instead).
pub fn render_film_line(o: &FilmOutcome) -> String {
    let ran = o
        .stages
        .iter()
        .filter(|s| s.action != Action::Skipped)
        .count();
    let mut parts = vec![format!(
        "{ran} stages ran, {} current",
        o.stages.len() - ran
    )];
    if let Some((stage, why)) = &o.stopped {
        parts.push(format!("stopped after {}: {why}", stage.name()));
    }
    if let Some((_, _, nodes, edges)) = o.graph {
        parts.push(format!("graph {nodes} nodes, {edges} edges"));
    }
    if let Some((trees, questions)) = o.trees {
        parts.push(format!("{trees} trees, {questions} questions"));
    }
    if !o.metrics.is_empty() {
        let acc: Vec<String> = o
            .metrics
            .iter()
            .map(|m| {
                let a = m.figure("all", "all").map_or(f64::NAN, |f| f.first.mean);
                format!("{} {a:.3}", m.subject)
            })
            .collect();
        parts.push(format!("accuracy {}", acc.join(", ")));
    }
    format!("film {}: {}\n", o.film, parts.join("; "))
}

/// A film's outcome stage by stage, with its figures.
pub fn render_film(o: &FilmOutcome) -> String {
    let mut out = String::new();
    for s in &o.stages {
        let _ = writeln!(
            out,
            "  {:<6} {:<8} {:>8.1} ms  {}",
            s.stage.name(),
            s.action.word(),
            s.elapsed.as_secs_f64() * 1e3,
            if s.action == Action::Skipped {
                format!("({})", s.why)
            } else {
                format!("(why: {})", s.why)
            }
        );
        for line in s.detail.lines() {
            let _ = writeln!(out, "           {line}");
        }
    }
    if let Some((stage, why)) = &o.stopped {
        let _ = writeln!(out, "  stopped after {}: {why}", stage.name());
    }
    if let Some((cands, verified, nodes, edges)) = o.graph {
        let _ = writeln!(
            out,
            "  graph: {nodes} nodes, {edges} edges; verification rate {:.1} % ({verified} of {cands} candidates)",
            pct(verified, cands)
        );
    }
    if let Some(s) = &o.graph_score {
        let _ = writeln!(out, "  fidelity: the graph {}", graph::gold_line(s));
    }
    if let Some((trees, questions)) = o.trees {
        let _ = writeln!(out, "  trees: {trees} trees, {questions} questions");
    }
    if !o.metrics.is_empty() {
        let _ = writeln!(
            out,
            "  metrics (point estimates; intervals in the report):\n    {:<14} {:>8} {:>7} {:>6} {:>6} {:>6}",
            "subject", "accuracy", "score", "RDS", "wRDS", "CRS"
        );
        for m in &o.metrics {
            let get = |s: &str, k: &str| m.figure(s, k);
            let all = get("all", "all");
            let rds = get("tree", "RDS");
            let crs = get("tree", "CRS");
            let _ = writeln!(
                out,
                "    {:<14} {:>8.3} {:>7.3} {:>6.2} {:>6.3} {:>6.3}",
                m.subject,
                all.map_or(f64::NAN, |f| f.first.mean),
                all.map_or(f64::NAN, |f| f.second.mean),
                rds.map_or(f64::NAN, |f| f.first.mean),
                rds.map_or(f64::NAN, |f| f.second.mean),
                crs.map_or(f64::NAN, |f| f.first.mean),
            );
        }
    }
    out
}
