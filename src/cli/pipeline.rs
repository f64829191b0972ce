//! The stages of `moviegraph run` on one film — parse → align → graph → trees →
//! eval → report — with a fingerprint per stage, so a rerun skips what is
//! current, resumes what was cut off, and redoes what changed and what follows
//! from it. Shared by `run` and `bench pipeline`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{BufRead, Write as _};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::ValueEnum;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use moviegraph::align::{attach_shots, AlignOptions};
use moviegraph::eval::metrics::{compute, BootstrapSettings, RunMetrics};
use moviegraph::eval::model::{ModelJudge, ModelSubject};
use moviegraph::eval::protocol::{load_run, run_stored_with, Display, RunEvent, RunOptions};
use moviegraph::eval::score::NO_JUDGE_LABEL;
use moviegraph::eval::subject::{baseline, fnv1a, Judge, Subject, BASELINES};
use moviegraph::eval::{html, report};
use moviegraph::graph::analysis::analyse;
use moviegraph::graph::build::{build, BuildOptions, FilmInput, Roles, Settings};
use moviegraph::graph::export::to_json;
use moviegraph::graph::stats::{stats, Stats};
use moviegraph::graph::Graph;
use moviegraph::llm::{BackendKind, BlockingModel, Config, Llm, Role};
use moviegraph::media::subtitles;
use moviegraph::screenplay::compare::compare;
use moviegraph::screenplay::{self, Format, Screenplay};
use moviegraph::store::{AlignmentRecord, AlignmentSources, EvalRun, FilmId, InputFile, Store};
use moviegraph::trees::facts::Facts;
use moviegraph::trees::generate::{generate_with, GenerateOptions};
use moviegraph::trees::jsonl::{read_trees, write_trees};
use moviegraph::trees::model::ModelWriter;
use moviegraph::trees::rules::RulesWriter;
use moviegraph::trees::schema::Tree;
use moviegraph::trees::source::Source;
use moviegraph::trees::validate::{is_valid, validate, Severity};

use super::graph::{choose_roles, Chosen};
use super::parse::summary;

/// The stages, in pipeline order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, ValueEnum)]
pub enum Stage {
    /// Every screenplay version of the folder.
    Parse,
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
pub const STAGES: [Stage; 6] = [
    Stage::Parse,
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
            Stage::Align => "align",
            Stage::Graph => "graph",
            Stage::Trees => "trees",
            Stage::Eval => "eval",
            Stage::Report => "report",
        }
    }
}

/// Screenplay versions a film folder may hold, preferred first.
pub const VERSIONS: [(&str, Format); 3] = [
    ("script.fountain", Format::Fountain),
    ("script.fdx", Format::Fdx),
    ("script.txt", Format::Text),
];

/// The trees settings of `moviegraph run`: those of `trees generate` by default.
const TREES_DEPTH: u32 = 3;
const TREES_MAX: usize = 30;
const TREES_MIX: &str = "0.45,0.38,0.17";
const TREES_SEED: u64 = 0;

/// The models of a run, from its configuration: who serves each role of the
/// graph, trees and eval stages. Any role may be on the offline `rules`
/// backend; with every one there, nothing is called and no network is used.
#[derive(Clone)]
pub struct Cast {
    /// The graph stage's generator, auditors and adjudicator.
    pub graph: Chosen,
    /// The trees stage's question writer when it is a model (else the rules templates).
    pub trees: Option<String>,
    /// The judge of open answers when it is a model (else the ROUGE-L fallback).
    pub judge: Option<String>,
    /// The model layer, one for the whole run, so each model's concurrency
    /// limit holds across films; `None` when no role calls a model.
    pub llm: Option<Llm>,
    /// The runtime every model call of the run is driven on (one, so the
    /// model layer's pooled connections stay valid from film to film).
    pub runtime: Arc<tokio::runtime::Runtime>,
}

impl std::fmt::Debug for Cast {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cast")
            .field("graph", &self.graph)
            .field("trees", &self.trees)
            .field("judge", &self.judge)
            .field("llm", &self.llm.is_some())
            .finish_non_exhaustive()
    }
}

impl Cast {
    /// Every role on the offline backends.
    pub fn offline() -> anyhow::Result<Cast> {
        Cast::from_config(&Config::offline())
    }

    /// The roles `config` names; the model layer is opened later with
    /// [`Cast::with_llm`] when [`Cast::needs_models`] says so.
    pub fn from_config(config: &Config) -> anyhow::Result<Cast> {
        let model = |role: Role| {
            config.role(role).first().cloned().filter(|name| {
                config
                    .models
                    .get(name)
                    .is_some_and(|m| m.backend != BackendKind::Rules)
            })
        };
        Ok(Cast {
            graph: choose_roles(config)?,
            trees: model(Role::Generator),
            judge: model(Role::Judge),
            llm: None,
            runtime: Arc::new(
                tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    .enable_all()
                    .build()
                    .context("starting the async runtime")?,
            ),
        })
    }

    /// Does any role (or one of `subjects`) call a model?
    pub fn needs_models(&self, subjects: &[String]) -> bool {
        self.graph.needs_models()
            || self.trees.is_some()
            || self.judge.is_some()
            || subjects.iter().any(|s| !BASELINES.contains(&s.as_str()))
    }

    /// The cast with its model layer.
    pub fn with_llm(self, llm: Llm) -> Cast {
        Cast {
            llm: Some(llm),
            ..self
        }
    }

    /// Dollars spent on model calls by this run so far (every film).
    pub fn cost(&self) -> f64 {
        self.llm.as_ref().map_or(0.0, Llm::spent)
    }

    fn llm(&self) -> anyhow::Result<&Llm> {
        self.llm
            .as_ref()
            .context("a role needs a model but the model layer is not open")
    }

    /// A model's settings identity, for a stage's fingerprint.
    fn identity(&self, name: &str, role: Role) -> anyhow::Result<String> {
        Ok(self.llm()?.model(name, role.name())?.settings_identity())
    }
}

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
    /// Why the pipeline stopped before the last stage, when it did.
    pub stopped: Option<String>,
    /// Graph figures: candidates, verified, nodes, edges.
    pub graph: Option<(usize, usize, usize, usize)>,
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

/// How `MOVIEGRAPH_RUN_EVENTS` asks the run to show its steps: a test hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hook {
    Off,
    /// A line `moviegraph-event FILM STAGE N` on stderr per step.
    Print,
    /// As `Print`, then wait for a line on stdin (end of input: stop waiting), so a
    /// test can kill the process at a chosen step.
    Step,
}

/// The one progress display of a run (a bar per film: stage, items, rate, ETA,
/// cost so far), on stderr; drawn only on a terminal.
pub struct Progress {
    multi: MultiProgress,
    hook: Hook,
    stdin_open: Mutex<bool>,
}

impl Progress {
    /// A display on stderr (hidden when stderr is not a terminal, or `quiet`).
    pub fn new(quiet: bool) -> Progress {
        let target = if quiet {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        };
        let hook = match std::env::var("MOVIEGRAPH_RUN_EVENTS").as_deref() {
            Ok("step") => Hook::Step,
            Ok(v) if !v.is_empty() && v != "0" => Hook::Print,
            _ => Hook::Off,
        };
        Progress {
            multi: MultiProgress::with_draw_target(target),
            hook,
            stdin_open: Mutex::new(true),
        }
    }

    /// A display that draws nothing and reports no step (benchmarks).
    pub fn hidden() -> Progress {
        Progress {
            multi: MultiProgress::with_draw_target(ProgressDrawTarget::hidden()),
            hook: Hook::Off,
            stdin_open: Mutex::new(false),
        }
    }

    fn film(&self, film: &str) -> FilmBar<'_> {
        let bar = self.multi.add(ProgressBar::new(0));
        bar.set_style(
            ProgressStyle::with_template(
                "{prefix:>18} {msg:<44} [{bar:20}] {pos:>5}/{len:<5} {per_sec:>11} ETA {eta:>3}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        bar.set_prefix(film.to_owned());
        FilmBar {
            bar,
            film: film.to_owned(),
            stage: Stage::Parse,
            backend: String::new(),
            progress: self,
        }
    }

    fn event(&self, film: &str, stage: Stage, n: u64) {
        if self.hook == Hook::Off {
            return;
        }
        let mut open = self.stdin_open.lock().unwrap_or_else(|e| e.into_inner());
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "moviegraph-event {film} {} {n}", stage.name());
        let _ = err.flush();
        drop(err);
        if self.hook == Hook::Step && *open {
            let mut line = String::new();
            if std::io::stdin().lock().read_line(&mut line).unwrap_or(0) == 0 {
                *open = false;
            }
        }
    }
}

struct FilmBar<'a> {
    bar: ProgressBar,
    film: String,
    stage: Stage,
    backend: String,
    progress: &'a Progress,
}

impl FilmBar<'_> {
    fn stage(&mut self, stage: Stage, backend: &str, len: usize, cost: f64) {
        self.stage = stage;
        self.backend = backend.to_owned();
        self.bar.reset();
        self.bar.set_length(len as u64);
        self.show_cost(cost);
    }

    /// The message: the stage, its backend, and the run's model cost so far.
    fn show_cost(&self, cost: f64) {
        self.bar.set_message(format!(
            "{:<6} {} · ${cost:.2}",
            self.stage.name(),
            self.backend
        ));
    }

    fn inc(&self, n: u64) {
        self.bar.inc(n);
        self.progress
            .event(&self.film, self.stage, self.bar.position());
    }
}

impl Drop for FilmBar<'_> {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
        self.progress.multi.remove(&self.bar);
    }
}

/// `path`'s bytes through a temporary file in the same folder and a rename, so a
/// crash leaves the old file or the new one, never half of one.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.with_context(|| format!("writing {}", path.display()))
}

fn sha(bytes: &[u8]) -> String {
    InputFile::of_bytes(Path::new(""), bytes).sha256
}

fn file_sha(path: &Path) -> anyhow::Result<String> {
    Ok(super::align::fingerprint(path)?.sha256)
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
    dir: PathBuf,
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
    ) -> anyhow::Result<(String, Plan)> {
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

    fn begin(
        &mut self,
        stage: Stage,
        fp: &str,
        inputs: &BTreeMap<String, String>,
    ) -> anyhow::Result<()> {
        self.store
            .run_stage_begin(self.id, stage.name(), fp, inputs)?;
        Ok(())
    }

    fn done(
        &mut self,
        stage: Stage,
        fp: &str,
        outputs: &BTreeMap<String, String>,
    ) -> anyhow::Result<()> {
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

/// The build key `graph::build` will use for these roles and options.
fn settings_key(roles: &Roles<'_>, opts: &BuildOptions) -> String {
    Settings::of(roles, opts).key()
}

fn graph_figures(st: &Stats, g: &Graph) -> (usize, usize, usize, usize) {
    (
        st.total.candidates,
        st.total.verified,
        g.nodes.len(),
        g.edges.len(),
    )
}

fn pct(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

/// The eval run id `eval run` would give these trees (subject, seed, a hash of them).
pub fn run_id(subject: &str, seed: u64, trees: &[Tree]) -> anyhow::Result<String> {
    let digest = serde_json::to_vec(trees)?;
    Ok(format!("{subject}-s{seed}-{:08x}", fnv1a(&digest) as u32))
}

/// Runs the pipeline on one film folder.
pub fn run_film(dir: &Path, p: &Pipeline, progress: &Progress) -> anyhow::Result<FilmOutcome> {
    if !dir.is_dir() {
        bail!(
            "{}: not a folder; expected a film folder holding script.fountain, script.fdx or script.txt",
            dir.display()
        );
    }
    let slug = super::graph::film_slug(dir);
    let store = Store::open(&p.store)?;
    let versions: Vec<(PathBuf, Format)> = VERSIONS
        .iter()
        .map(|(f, fmt)| (dir.join(f), *fmt))
        .filter(|(path, _)| path.exists())
        .collect();
    if versions.is_empty() {
        bail!(
            "{}: no screenplay found; expected one of script.fountain, script.fdx, script.txt",
            dir.display()
        );
    }
    let id = store.ensure_film(&slug, None)?;
    let mut film = Film {
        store,
        id,
        bar: progress.film(&slug),
        slug: slug.clone(),
        dir: dir.to_path_buf(),
        p,
        out: FilmOutcome {
            film: slug,
            ..FilmOutcome::default()
        },
        fps: BTreeMap::new(),
        graph_key: None,
    };
    let play = parse_stage(&mut film, &versions)?;
    if p.until > Stage::Parse {
        stages_after_parse(&mut film, play, &versions)?;
    }
    Ok(film.out)
}

/// Parse: every version, the preferred one summarised, the others scored against it.
fn parse_stage(
    film: &mut Film<'_>,
    versions: &[(PathBuf, Format)],
) -> anyhow::Result<Option<Screenplay>> {
    let t = Instant::now();
    let mut inputs = BTreeMap::new();
    for (path, _) in versions.iter() {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        inputs.insert(name.into_owned(), file_sha(path)?);
    }
    inputs.insert(
        "moviegraph".to_owned(),
        env!("CARGO_PKG_VERSION").to_owned(),
    );
    let (fp, plan) = film.plan(Stage::Parse, &inputs, &[])?;
    let Plan::Run { why, .. } = plan else {
        film.skipped(
            Stage::Parse,
            fp,
            format!("{} (deterministic, offline)", versions[0].0.display()),
            t,
        );
        return Ok(None);
    };
    film.begin(Stage::Parse, &fp, &inputs)?;
    film.bar
        .stage(Stage::Parse, "deterministic readers", versions.len(), 0.0);
    let mut parsed: Vec<Screenplay> = Vec::new();
    for (path, format) in versions.iter() {
        tracing::debug!("parsing {}", path.display());
        let play = screenplay::parse_file(path, Some(*format))
            .with_context(|| format!("stage parse, film {}", film.slug))?;
        parsed.push(play);
        film.bar.inc(1);
    }
    let primary = &parsed[0];
    let mut detail = format!("film {}: stage parse (offline, deterministic)\n", film.slug);
    detail.push_str(&summary(primary, true));
    if parsed.len() > 1 {
        let _ = writeln!(
            detail,
            "agreement of the other versions with {} (per-kind F1 on story elements):",
            primary.format.as_str()
        );
        for other in &parsed[1..] {
            let cmp = compare(&other.elements, &primary.elements);
            let worst = cmp
                .kinds
                .iter()
                .min_by(|a, b| a.1.f1.total_cmp(&b.1.f1))
                .map(|(k, s)| format!("lowest {k} {:.1} %", s.f1 * 100.0))
                .unwrap_or_default();
            let _ = writeln!(
                detail,
                "  {:<8} micro F1 {:.1} %, {worst}, {} noise lines removed, {} diagnostics",
                other.format.as_str(),
                cmp.micro_f1 * 100.0,
                other.noise.len(),
                other.diagnostics.len()
            );
        }
    }
    film.done(Stage::Parse, &fp, &BTreeMap::new())?;
    film.record(Stage::Parse, Action::Ran, why, detail, t);
    Ok(parsed.into_iter().next())
}

fn stages_after_parse(
    film: &mut Film<'_>,
    mut play: Option<Screenplay>,
    versions: &[(PathBuf, Format)],
) -> anyhow::Result<()> {
    let dir = film.dir.clone();
    let Some(subs_path) = ["subtitles.srt", "subtitles.vtt"]
        .into_iter()
        .map(|f| dir.join(f))
        .find(|p| p.is_file())
    else {
        film.out.stopped = Some(
            "no subtitles.srt or subtitles.vtt: align, graph, trees, eval and report need them"
                .to_owned(),
        );
        return Ok(());
    };
    let (script_path, format) = versions[0].clone();

    // Align.
    let t = Instant::now();
    let shots = match super::run::find_shots(&dir, &film.slug) {
        Some(path) => Some(
            super::align::load_shots(&path, None, None)
                .with_context(|| format!("stage align, film {}", film.slug))?,
        ),
        None => None,
    };
    let sources = AlignmentSources {
        script: super::align::fingerprint(&script_path)?,
        subtitles: super::align::fingerprint(&subs_path)?,
        shots: shots.as_ref().map(|(_, f)| f.clone()),
    };
    let mut inputs = BTreeMap::new();
    // The parse output align reads is the preferred version alone: a change to
    // another version reruns parse (to re-score it) but not align.
    inputs.insert(
        "script".to_owned(),
        format!(
            "{} {} moviegraph {}",
            script_path
                .file_name()
                .unwrap_or_default()
                .to_string_lossy(),
            sources.script.sha256,
            env!("CARGO_PKG_VERSION")
        ),
    );
    inputs.insert(
        subs_path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned(),
        sources.subtitles.sha256.clone(),
    );
    inputs.insert(
        "shots".to_owned(),
        sources
            .shots
            .as_ref()
            .map_or("none".to_owned(), |f| format!("{} {}", f.path, f.sha256)),
    );
    inputs.insert(
        "settings".to_owned(),
        format!(
            "{:?}; embedder hashed; 5 keyframes per block, 3000 ms",
            AlignOptions::default()
        ),
    );
    let (fp, mut plan) = film.plan(Stage::Align, &inputs, &[])?;
    if matches!(plan, Plan::Skip) {
        // The alignment lives in the store; `align --store` or `graph build` may have
        // replaced it since.
        let stored = film.store.load_alignment(film.id)?;
        let same = stored.is_some_and(|s| {
            s.sources.script.sha256 == sources.script.sha256
                && s.sources.subtitles.sha256 == sources.subtitles.sha256
                && s.sources.shots.as_ref().map(|f| &f.sha256)
                    == sources.shots.as_ref().map(|f| &f.sha256)
        });
        if !same {
            plan = Plan::Run {
                why: "the stored alignment was replaced or removed".to_owned(),
                fresh: true,
            };
        }
    }
    match plan {
        Plan::Skip => film.skipped(
            Stage::Align,
            fp,
            "the stored alignment (embedder hashed-char-ngram, the offline baseline)".to_owned(),
            t,
        ),
        Plan::Run { why, .. } => {
            film.begin(Stage::Align, &fp, &inputs)?;
            film.bar
                .stage(Stage::Align, "hashed embedder, baseline", 1, 0.0);
            // Parsed already when the parse stage ran; else (parse was current) now.
            let primary = match play.take() {
                Some(p) => p,
                None => screenplay::parse_file(&script_path, Some(format))
                    .with_context(|| format!("stage parse, film {}", film.slug))?,
            };
            let subs = subtitles::parse_file(&subs_path, None)
                .with_context(|| format!("stage align, film {}", film.slug))?;
            let started = Instant::now();
            let mut alignment = moviegraph::align::align(&primary, &subs, &AlignOptions::default());
            let elapsed = started.elapsed();
            if let Some((list, _)) = &shots {
                attach_shots(&mut alignment, list, 5, 3_000);
            }
            film.store
                .save_alignment(
                    &film.slug,
                    &AlignmentRecord {
                        play: &primary,
                        subtitles: &subs,
                        shots: shots.as_ref().map(|(l, _)| l),
                        alignment: &alignment,
                        sources: &sources,
                    },
                )
                .with_context(|| format!("saving the alignment of film {}", film.slug))?;
            film.bar.inc(1);
            let s = &alignment.summary;
            let mut detail = String::new();
            let _ = writeln!(
                detail,
                "stage align: {} ({} of {} dialogue lines matched to {} cues, coverage {:.1} %, mean confidence {:.3}, {:.1} ms; embedder {}, the offline baseline)",
                s.verdict.as_str(),
                s.matched,
                s.dialogue_lines,
                s.cues,
                s.coverage * 100.0,
                s.mean_confidence,
                elapsed.as_secs_f64() * 1e3,
                s.embedder
            );
            let timed = alignment
                .blocks
                .iter()
                .filter(|b| b.start_ms.is_some())
                .count();
            let keyframes = match &shots {
                Some((list, f)) => format!(
                    "{} shots from {}, {} keyframes attached",
                    list.shots.len(),
                    f.path,
                    alignment
                        .blocks
                        .iter()
                        .map(|b| b.keyframes.len())
                        .sum::<usize>()
                ),
                None => "no shots found".to_owned(),
            };
            let _ = write!(
                detail,
                "  {} blocks ({timed} timed), {keyframes}; saved as film {} in {}",
                alignment.blocks.len(),
                film.slug,
                film.p.store.display()
            );
            film.done(Stage::Align, &fp, &BTreeMap::new())?;
            film.record(Stage::Align, Action::Ran, why, detail, t);
        }
    }
    if film.p.until <= Stage::Align {
        return Ok(());
    }
    graph_stage(film)?;
    if film.p.until <= Stage::Graph {
        return Ok(());
    }
    trees_stage(film)?;
    if film.p.until <= Stage::Trees {
        return Ok(());
    }
    eval_stage(film)?;
    if film.p.until <= Stage::Eval {
        return Ok(());
    }
    report_stage(film)
}

fn graph_stage(film: &mut Film<'_>) -> anyhow::Result<()> {
    let t = Instant::now();
    let p = film.p;
    let cast = &p.cast;
    let owned = cast
        .graph
        .open_on(cast.llm.as_ref(), Some(Arc::clone(&cast.runtime)))?;
    let roles = owned.roles();
    let mut opts = BuildOptions::default();
    let key = settings_key(&roles, &opts);
    film.graph_key = Some(key.clone());
    let json_path = film.out_path(&format!("graphs/{}.json", film.slug));
    let mut inputs = BTreeMap::new();
    inputs.insert("align".to_owned(), film.upstream(Stage::Align));
    inputs.insert("settings".to_owned(), key.clone());
    let (fp, plan) = film.plan(Stage::Graph, &inputs, std::slice::from_ref(&json_path))?;
    let backend = cast.graph.describe();
    let backend = backend.as_str();
    let (why, fresh) = match plan {
        Plan::Skip => {
            let build = film.store.graph_build(film.id, &key)?;
            let cands = film.store.graph_candidates(build)?;
            let graph = Graph::assemble(&film.slug, &cands);
            let st = stats(&cands, &film.store.graph_merges(build)?);
            film.out.graph = Some(graph_figures(&st, &graph));
            film.skipped(
                Stage::Graph,
                fp,
                format!("{} ({backend})", json_path.display()),
                t,
            );
            return Ok(());
        }
        Plan::Run { why, fresh } => (why, fresh),
    };
    if fresh && film.store.graph_discard_build(film.id, &key)? {
        tracing::debug!("discarded the earlier graph build of {}", film.slug);
    }
    film.begin(Stage::Graph, &fp, &inputs)?;
    let (play, blocks, _) = super::graph::load(&film.dir, None, &film.store, &film.slug)
        .with_context(|| format!("stage graph, film {}", film.slug))?;
    let title = play.title_field("title").map(str::to_owned);
    let input = FilmInput {
        slug: &film.slug,
        title: title.as_deref(),
        play: &play,
        blocks: &blocks,
    };
    film.bar
        .stage(Stage::Graph, backend, blocks.len(), film.p.cast.cost());
    // A build is committed block by block; running it in slices is what lets the bar
    // move (and a test stop it) without reaching into the graph stage. Each slice
    // re-reads the build's candidates, so a tenth of the film at a time.
    let slice = if film.bar.progress.hook == Hook::Off {
        (blocks.len() / 10).max(1)
    } else {
        1
    };
    opts.stop_after = Some(slice);
    let (mut resumed, mut built, mut candidates) = (None, 0, 0);
    let build_id = loop {
        let r = build(&film.store, &input, &roles, &opts)
            .with_context(|| format!("stage graph, film {}", film.slug))?;
        if resumed.is_none() {
            resumed = Some(r.skipped);
            film.bar.bar.set_position(r.skipped as u64);
        }
        built += r.processed;
        candidates += r.candidates;
        if r.processed > 0 {
            film.bar.show_cost(film.p.cast.cost());
            film.bar.inc(r.processed as u64);
        }
        if r.complete || r.processed == 0 {
            break r.build.context("the graph build has no id")?;
        }
    };
    let cands = film.store.graph_candidates(build_id)?;
    let graph = Graph::assemble(&film.slug, &cands);
    let st = stats(&cands, &film.store.graph_merges(build_id)?);
    let json = to_json(&graph, &key, &st, &analyse(&graph));
    write_atomic(&json_path, json.as_bytes())?;
    let figures = graph_figures(&st, &graph);
    film.out.graph = Some(figures);
    let resumed = resumed.unwrap_or(0);
    let detail = format!(
        "{backend}: {} blocks ({built} built now{}), {candidates} candidates proposed now; {} candidates, {} verified ({:.1} %), {} nodes, {} edges → {}",
        blocks.len(),
        if resumed > 0 {
            format!(", {resumed} finished before")
        } else {
            String::new()
        },
        figures.0,
        figures.1,
        pct(figures.1, figures.0),
        figures.2,
        figures.3,
        json_path.display()
    );
    let mut outputs = BTreeMap::new();
    outputs.insert(json_path.display().to_string(), sha(json.as_bytes()));
    film.done(Stage::Graph, &fp, &outputs)?;
    let action = if resumed > 0 && !fresh {
        Action::Resumed
    } else {
        Action::Ran
    };
    film.record(Stage::Graph, action, why, detail, t);
    Ok(())
}

fn trees_stage(film: &mut Film<'_>) -> anyhow::Result<()> {
    let t = Instant::now();
    let path = film.out_path(&format!("trees/{}.jsonl", film.slug));
    let mix = super::trees::parse_mix(TREES_MIX)?;
    let opts = GenerateOptions {
        depth: TREES_DEPTH,
        max_trees: TREES_MAX,
        mix,
        seed: TREES_SEED,
        ..GenerateOptions::default()
    };
    let p = film.p;
    let writer_id = match &p.cast.trees {
        Some(name) => format!("model {}", p.cast.identity(name, Role::Generator)?),
        None => "rules".to_owned(),
    };
    let mut inputs = BTreeMap::new();
    inputs.insert("graph".to_owned(), film.upstream(Stage::Graph));
    inputs.insert(
        "settings".to_owned(),
        format!(
            "generator {writer_id}; depth {}; max trees {}; mix {TREES_MIX}; seed {}; {} single / {} multi options",
            opts.depth, opts.max_trees, opts.seed, opts.single_options, opts.multi_options
        ),
    );
    let (fp, plan) = film.plan(Stage::Trees, &inputs, std::slice::from_ref(&path))?;
    let backend = match &p.cast.trees {
        Some(name) => format!(
            "model {name} (each question checked against the graph; rules wording where it fails)"
        ),
        None => "rules templates, a baseline, offline".to_owned(),
    };
    let backend = backend.as_str();
    let why = match plan {
        Plan::Skip => {
            let trees = read_trees(&path)?;
            film.out.trees = Some((trees.len(), trees.iter().map(|t| t.nodes.len()).sum()));
            film.skipped(
                Stage::Trees,
                fp,
                format!("{} ({backend})", path.display()),
                t,
            );
            return Ok(());
        }
        Plan::Run { why, .. } => why,
    };
    film.begin(Stage::Trees, &fp, &inputs)?;
    film.bar.stage(Stage::Trees, backend, 2, p.cast.cost());
    // As `trees generate`: the graph of the film's build, the blocks of its alignment.
    let key = film
        .graph_key
        .clone()
        .context("the trees stage runs after the graph stage")?;
    let build_id = film.store.graph_build(film.id, &key)?;
    let graph = Graph::assemble(&film.slug, &film.store.graph_candidates(build_id)?);
    let (play, blocks, _) = super::graph::load(&film.dir, None, &film.store, &film.slug)
        .with_context(|| format!("stage trees, film {}", film.slug))?;
    let mut source = Source::from_play(&play, &blocks);
    if let Ok(cwd) = std::env::current_dir() {
        source.relative_to(&cwd);
    }
    let facts = Facts::new(&graph);
    let analysis = analyse(&graph);
    let generated = match &p.cast.trees {
        Some(name) => {
            let handle = p.cast.llm()?.model(name, Role::Generator.name())?;
            let model = BlockingModel::all_on(vec![handle], Arc::clone(&p.cast.runtime))
                .pop()
                .context("no model handle")?;
            let writer = ModelWriter::new(model);
            generate_with(
                &facts,
                &analysis,
                &source,
                &writer,
                Some(&RulesWriter),
                &opts,
            )
        }
        None => generate_with(&facts, &analysis, &source, &RulesWriter, None, &opts),
    };
    film.bar.show_cost(p.cast.cost());
    film.bar.inc(1);
    let mut kept: Vec<Tree> = Vec::new();
    let mut problems_text = String::new();
    for tree in generated.trees {
        let problems = validate(&tree);
        for p in problems.iter().filter(|p| p.severity == Severity::Error) {
            let _ = writeln!(problems_text, "  {p}");
        }
        if is_valid(&problems) {
            kept.push(tree);
        } else {
            film.out.invalid_trees += 1;
        }
    }
    let mut bytes = Vec::new();
    write_trees(&mut bytes, &kept)?;
    write_atomic(&path, &bytes)?;
    film.bar.inc(1);
    let questions: usize = kept.iter().map(|t| t.nodes.len()).sum();
    film.out.trees = Some((kept.len(), questions));
    let mut detail = format!(
        "{backend}: {} trees, {questions} questions → {}; {} questions not worded or rejected, {} invalid trees left out",
        kept.len(),
        path.display(),
        generated.rejected.len(),
        film.out.invalid_trees
    );
    if !problems_text.is_empty() {
        detail.push('\n');
        detail.push_str(problems_text.trim_end());
    }
    let mut outputs = BTreeMap::new();
    outputs.insert(path.display().to_string(), sha(&bytes));
    film.done(Stage::Trees, &fp, &outputs)?;
    film.record(Stage::Trees, Action::Ran, why, detail, t);
    Ok(())
}

fn eval_stage(film: &mut Film<'_>) -> anyhow::Result<()> {
    let t = Instant::now();
    let p = film.p;
    let cast = &p.cast;
    let path = film.out_path(&format!("trees/{}.jsonl", film.slug));
    let is_model = |name: &str| !BASELINES.contains(&name);
    let mut inputs = BTreeMap::new();
    inputs.insert("trees".to_owned(), film.upstream(Stage::Trees));
    inputs.insert("subjects".to_owned(), p.subjects.join(","));
    for name in p.subjects.iter().filter(|n| is_model(n)) {
        inputs.insert(
            format!("subject {name}"),
            cast.identity(name, Role::Subject)?,
        );
    }
    inputs.insert("seed".to_owned(), p.seed.to_string());
    inputs.insert(
        "judge".to_owned(),
        match &cast.judge {
            Some(name) => cast.identity(name, Role::Judge)?,
            None => "none".to_owned(),
        },
    );
    let (fp, mut plan) = film.plan(Stage::Eval, &inputs, &[])?;
    let (model_names, baselines): (Vec<&String>, Vec<&String>) =
        p.subjects.iter().partition(|n| is_model(n));
    let join = |names: &[&String]| {
        names
            .iter()
            .map(|n| n.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut described = Vec::new();
    if !model_names.is_empty() {
        described.push(format!("model subject {}", join(&model_names)));
    }
    match baselines.len() {
        0 => {}
        1 => described.push(format!(
            "offline baseline {} (not a reasoner)",
            join(&baselines)
        )),
        _ => described.push(format!(
            "offline baselines {} (not reasoners)",
            join(&baselines)
        )),
    }
    let backend = format!(
        "{}; open answers: {}",
        described.join(", "),
        match &cast.judge {
            Some(name) => format!("judge {name}"),
            None => NO_JUDGE_LABEL.to_owned(),
        }
    );
    if matches!(plan, Plan::Skip) {
        let rec = film.store.run_stage(film.id, Stage::Eval.name())?;
        let mut runs: Vec<(String, String)> = rec
            .map(|r| r.outputs.into_iter().collect())
            .unwrap_or_default();
        // The record keeps runs by name; the report lists them in the order the
        // subjects were given, as a run that just ran them does.
        runs.sort_by_key(|(name, _)| film.p.subjects.iter().position(|s| s == name));
        let mut missing = None;
        for (_, id) in &runs {
            if film.store.eval_run(id)?.is_none() {
                missing = Some(id.clone());
            }
        }
        match missing {
            Some(id) => {
                plan = Plan::Run {
                    why: format!("run {id} is no longer in the store"),
                    fresh: false,
                }
            }
            None => {
                film.out.runs = runs;
                film.skipped(Stage::Eval, fp, backend, t);
                return Ok(());
            }
        }
    }
    let Plan::Run { why, .. } = plan else {
        unreachable!("a skip returned above")
    };
    film.begin(Stage::Eval, &fp, &inputs)?;
    let trees = read_trees(&path)?;
    let questions: usize = trees.iter().map(|t| t.nodes.len()).sum();
    let models = p.subjects.iter().any(|n| is_model(n));
    film.bar.stage(
        Stage::Eval,
        if models {
            "subjects"
        } else {
            "offline baselines"
        },
        questions * p.subjects.len(),
        cast.cost(),
    );
    let judge = match &cast.judge {
        Some(name) => Some(ModelJudge::new(
            cast.llm()?.model(name, Role::Judge.name())?,
        )),
        None => None,
    };
    let workspace = std::env::current_dir().context("reading the working directory")?;
    let (mut answers, mut asked) = (0, 0);
    let mut outputs = BTreeMap::new();
    let mut runs = Vec::new();
    for name in &p.subjects {
        let subject: Box<dyn Subject> = match baseline(name, p.seed) {
            Some(b) => b,
            None => Box::new(ModelSubject::new(
                cast.llm()?.model(name, Role::Subject.name())?,
                workspace.clone(),
            )),
        };
        let id = run_id(name, p.seed, &trees)?;
        let run = EvalRun {
            id: id.clone(),
            subject: subject.name().to_string(),
            judge: cast.judge.clone(),
            text_only: false,
            seed: p.seed,
            source: path.display().to_string(),
        };
        let bar = &film.bar;
        let done = cast
            .runtime
            .block_on(run_stored_with(
                &film.store,
                &run,
                &trees,
                subject.as_ref(),
                judge.as_ref().map(|j| j as &dyn Judge),
                RunOptions {
                    display: Display::Original,
                    jobs: 1,
                },
                &|event| match event {
                    RunEvent::Answered { .. } => {
                        if models {
                            bar.show_cost(cast.cost());
                        }
                        bar.inc(1)
                    }
                    RunEvent::TreeDone { replayed, .. } if replayed > 0 => {
                        bar.bar.inc(replayed as u64)
                    }
                    RunEvent::TreeDone { .. } => {}
                },
            ))
            .with_context(|| format!("stage eval, film {}, run {id}", film.slug))?;
        answers += done.answers;
        asked += done.asked;
        outputs.insert(name.clone(), id.clone());
        runs.push((name.clone(), id));
    }
    film.out.runs = runs;
    let detail = format!(
        "{backend}: {} runs, {answers} answers ({asked} asked now, {} from an earlier start)",
        p.subjects.len(),
        answers - asked
    );
    film.done(Stage::Eval, &fp, &outputs)?;
    let action = if asked < answers {
        Action::Resumed
    } else {
        Action::Ran
    };
    film.record(Stage::Eval, action, why, detail, t);
    Ok(())
}

fn report_stage(film: &mut Film<'_>) -> anyhow::Result<()> {
    let t = Instant::now();
    let dir = film.out_path(&format!("reports/{}", film.slug));
    let files: Vec<PathBuf> = ["html", "json", "csv"]
        .iter()
        .map(|ext| dir.join(format!("report.{ext}")))
        .collect();
    let mut inputs = BTreeMap::new();
    inputs.insert("eval".to_owned(), film.upstream(Stage::Eval));
    inputs.insert(
        "bootstrap".to_owned(),
        format!("{} resamples, seed 0", film.p.bootstrap),
    );
    let (fp, plan) = film.plan(Stage::Report, &inputs, &files)?;
    let mut loaded = Vec::new();
    for (_, id) in &film.out.runs {
        loaded.push(load_run(&film.store, id)?);
    }
    // The summary's point estimates: cheap without the bootstrap.
    film.out.metrics = loaded
        .iter()
        .map(|l| {
            compute(
                l,
                BootstrapSettings {
                    resamples: 0,
                    seed: 0,
                },
            )
        })
        .collect();
    film.out.report = Some(dir.clone());
    let why = match plan {
        Plan::Skip => {
            film.skipped(Stage::Report, fp, format!("{}/", dir.display()), t);
            return Ok(());
        }
        Plan::Run { why, .. } => why,
    };
    film.begin(Stage::Report, &fp, &inputs)?;
    film.bar.stage(Stage::Report, "metrics", files.len(), 0.0);
    let settings = BootstrapSettings {
        resamples: film.p.bootstrap,
        seed: 0,
    };
    let metrics: Vec<RunMetrics> = loaded.iter().map(|l| compute(l, settings)).collect();
    let texts = [
        html::html(&metrics)?,
        report::json(&metrics),
        report::csv(&metrics),
    ];
    let mut outputs = BTreeMap::new();
    for (path, text) in files.iter().zip(&texts) {
        write_atomic(path, text.as_bytes())?;
        outputs.insert(path.display().to_string(), sha(text.as_bytes()));
        film.bar.inc(1);
    }
    film.done(Stage::Report, &fp, &outputs)?;
    let detail = format!(
        "{}/report.{{html,json,csv}} ({} runs side by side, {} bootstrap resamples)",
        dir.display(),
        metrics.len(),
        film.p.bootstrap
    );
    film.record(Stage::Report, Action::Ran, why, detail, t);
    Ok(())
}

/// One line per stage, then the film's figures.
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
    if let Some(why) = &o.stopped {
        let _ = writeln!(out, "  stopped after parse: {why}");
    }
    if let Some((cands, verified, nodes, edges)) = o.graph {
        let _ = writeln!(
            out,
            "  graph: {nodes} nodes, {edges} edges; verification rate {:.1} % ({verified} of {cands} candidates)",
            pct(verified, cands)
        );
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
