//! `moviegraph run`: the whole pipeline on film folders, from screenplay to report.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use anyhow::bail;
use clap::Args;
use moviegraph::eval::subject::BASELINES;
use moviegraph::llm::{BackendKind, Config, Role};
use moviegraph::store::{self, Store};

use super::models::ModelFlags;
use super::pipeline::{render_film, run_film, Cast, FilmOutcome, Pipeline, Progress, Stage};
use super::{emit, Outcome};

/// Run the whole pipeline on film folders: parse → align → graph → trees → eval →
/// report, offline by default.
///
/// Offline (no configuration, or every role on the `rules` backend) the graph
/// and trees are the rules baselines and the subjects are the offline
/// baselines random, first-option and lexical: figures to beat, not
/// reasoners. A configuration (`--config`, or ./moviegraph.toml) puts models on
/// any role: generator, auditors and adjudicator build the graph, the
/// generator also words the questions, the judge scores open answers, and
/// `--subject` (or the configured subject role) names the model under test.
/// The model layer caches every answer in the store, so a rerun or a resumed
/// run repeats no call; `--max-cost` caps the run's spending.
///
/// A film folder holds the screenplay as `script.fountain`, `script.fdx` and/or
/// `script.txt` (any one is enough; every version present is parsed and the
/// others are scored against the preferred one, Fountain then FDX then plain
/// text), the subtitles as `subtitles.srt` or `subtitles.vtt`, and optionally
/// shots: a keyframe manifest (`keyframes.csv` / `keyframes.json`), or a
/// MovieNet layout in `FILM_DIR/keyframes/` or in `keyframes/<film>/` beside
/// the folder's parent (as the bundled sample has).
///
/// Writes OUT/graphs/<film>.json, OUT/trees/<film>.jsonl and
/// OUT/reports/<film>/report.{html,json,csv}; everything else (alignment,
/// graph build, eval answers, stage fingerprints) goes into the store.
///
/// Each stage's inputs and settings are fingerprinted in the store: a rerun
/// skips what is current, resumes a stage that was cut off (graph block by
/// block, eval answer by answer), and redoes what changed and every stage
/// after it, saying which and why. Files are written whole or not at all.
///
/// Examples:
///   moviegraph run screenplays/the-second-key
///   moviegraph run films/* --jobs 4 --store corpus.db
///   moviegraph run screenplays/the-second-key --config moviegraph.toml \
///       --subject gpt-4o --subject lexical --max-cost 5
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct RunArgs {
    /// The film folders.
    #[arg(required = true, value_name = "FILM_DIR")]
    film_dirs: Vec<PathBuf>,
    /// The workspace database (default: $MOVIEGRAPH_STORE, else moviegraph.db in
    /// the working directory).
    #[arg(long, value_name = "PATH")]
    store: Option<PathBuf>,
    /// Where graphs/, trees/ and reports/ are written.
    #[arg(long, value_name = "DIR", default_value = ".")]
    out: PathBuf,
    /// Films processed at once (each on its own thread).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=64))]
    jobs: u64,
    /// The configuration and role overrides. `--subject` (repeat for several)
    /// takes an offline baseline — random, first-option, lexical — or a
    /// configured model. Default: the configured subject role when it is a
    /// model, else the three baselines.
    #[command(flatten)]
    models: ModelFlags,
    /// Stop calling models once the run has spent this many dollars.
    #[arg(long, value_name = "DOLLARS")]
    max_cost: Option<f64>,
    /// Seed of the random baseline.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Bootstrap resamples behind the report's 95% intervals.
    #[arg(long, default_value_t = 1000)]
    bootstrap: usize,
    /// Stop after this stage.
    #[arg(long, value_enum, default_value_t = Stage::Report)]
    until: Stage,
}

impl RunArgs {
    /// The settings of the run, with the model layer opened when a role needs it.
    fn pipeline(&self) -> anyhow::Result<Pipeline> {
        // `--subject` may name a baseline, which the configuration does not know.
        let flags = self.models.without_subject();
        let config = flags.load()?;
        let subjects = subjects(self.models.subjects(), &config)?;
        let store = store::resolve_path(self.store.as_deref());
        let mut cast = Cast::from_config(&config)?;
        if cast.needs_models(&subjects) {
            // Open once here so the migrations run before the model layer's connection.
            drop(Store::open(&store)?);
            cast = cast.with_llm(flags.open_llm(&store, "run", self.max_cost)?);
        }
        Ok(Pipeline {
            out: self.out.clone(),
            store,
            subjects,
            cast,
            seed: self.seed,
            bootstrap: self.bootstrap,
            until: self.until,
        })
    }
}

/// The eval stage's subjects: those given, else the configured subject role
/// when it is a model, else the three offline baselines. Each must be a
/// baseline or a configured model off the rules backend.
fn subjects(given: &[String], config: &Config) -> anyhow::Result<Vec<String>> {
    let is_model = |name: &str| {
        config
            .models
            .get(name)
            .is_some_and(|m| m.backend != BackendKind::Rules)
    };
    let chosen: Vec<String> = if !given.is_empty() {
        given.to_vec()
    } else if let Some(name) = config.role(Role::Subject).first().filter(|n| is_model(n)) {
        vec![name.clone()]
    } else {
        BASELINES.iter().map(|s| s.to_string()).collect()
    };
    let mut seen = std::collections::BTreeSet::new();
    for s in &chosen {
        if !seen.insert(s) {
            bail!("subject {s:?} is named twice");
        }
        if BASELINES.contains(&s.as_str()) || is_model(s) {
            continue;
        }
        if config.models.contains_key(s) {
            bail!(
                "subject {s:?} is on the rules backend, which answers no questions; pass an offline \
                 baseline ({}) or a model configured in {}",
                BASELINES.join(", "),
                config.source.display()
            );
        }
        bail!(
            "subject {s:?} is neither an offline baseline ({}) nor a model configured in {} \
             (see moviegraph.example.toml)",
            BASELINES.join(", "),
            config.source.display()
        );
    }
    Ok(chosen)
}

/// Runs the pipeline on every film folder, `--jobs` at a time, and prints a summary.
pub fn run(args: RunArgs, quiet: bool) -> anyhow::Result<Outcome> {
    let p = args.pipeline()?;
    let mut seen = std::collections::BTreeMap::new();
    for dir in &args.film_dirs {
        if let Some(other) = seen.insert(super::graph::film_slug(dir), dir) {
            bail!(
                "{} and {} are the same film name; each film folder needs its own name",
                other.display(),
                dir.display()
            );
        }
    }
    // Open once here so the migrations run before the film threads open their own.
    drop(Store::open(&p.store)?);
    let started = Instant::now();
    let progress = Progress::new(quiet);
    let results = run_films(&args.film_dirs, &p, &progress, args.jobs as usize);
    drop(progress);
    let elapsed = started.elapsed();
    let (text, outcome, failed) = summary(&args.film_dirs, &p, &results, elapsed);
    emit(&text)?;
    if failed > 0 {
        for (dir, r) in args.film_dirs.iter().zip(&results) {
            if let Err(e) = r {
                eprintln!("error: {}: {e:#}", dir.display());
            }
        }
        bail!("{failed} of {} films failed", results.len());
    }
    Ok(outcome)
}

/// Every film through the pipeline on up to `jobs` threads; results in input order.
pub(super) fn run_films(
    dirs: &[PathBuf],
    p: &Pipeline,
    progress: &Progress,
    jobs: usize,
) -> Vec<anyhow::Result<FilmOutcome>> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<anyhow::Result<FilmOutcome>>>> =
        Mutex::new((0..dirs.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, dirs.len().max(1)) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
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
        .map(|r| r.unwrap_or_else(|| Err(anyhow::anyhow!("the film's thread stopped"))))
        .collect()
}

fn summary(
    dirs: &[PathBuf],
    p: &Pipeline,
    results: &[anyhow::Result<FilmOutcome>],
    elapsed: std::time::Duration,
) -> (String, Outcome, usize) {
    let mut out = String::new();
    let mut outcome = Outcome::Success;
    let (mut failed, mut trees, mut questions) = (0, 0, 0);
    let mut reports = Vec::new();
    let mut runs = Vec::new();
    for (dir, r) in dirs.iter().zip(results) {
        match r {
            Ok(o) => {
                let _ = writeln!(out, "film {} ({})", o.film, dir.display());
                out.push_str(&render_film(o));
                if let Some((t, q)) = o.trees {
                    trees += t;
                    questions += q;
                }
                if o.invalid_trees > 0 {
                    outcome = Outcome::CheckFailed;
                }
                if let Some(r) = &o.report {
                    reports.push(r.join("report.html"));
                }
                runs.extend(o.runs.iter().map(|(_, id)| id.clone()));
            }
            Err(e) => {
                failed += 1;
                let _ = writeln!(out, "film {}: failed: {e:#}", dir.display());
            }
        }
    }
    let models = match &p.cast.llm {
        Some(llm) => {
            let st = llm.stats();
            format!(
                "model cost ${:.4} ({} model calls, {} from the cache)",
                p.cast.cost(),
                st.calls,
                st.cache_hits
            )
        }
        None => "model cost $0.00 (every stage ran on its offline baseline: no model, no network)"
            .to_owned(),
    };
    let _ = writeln!(
        out,
        "done: {} of {} films in {:.2} s; {trees} trees, {questions} questions; store {}; {models}",
        dirs.len() - failed,
        dirs.len(),
        elapsed.as_secs_f64(),
        p.store.display()
    );
    let _ = writeln!(out, "next:");
    for r in &reports {
        let _ = writeln!(
            out,
            "  open {} in a browser (the full report, offline)",
            r.display()
        );
    }
    if let Some(dir) = dirs.first() {
        let store_flag = format!(" --store {}", p.store.display());
        let _ = writeln!(
            out,
            "  moviegraph graph stats {}{store_flag}     the graph's construction table and auditor agreement",
            dir.display()
        );
        let _ = writeln!(
            out,
            "  moviegraph graph review {}{store_flag}    decide escalated candidates yourself",
            dir.display()
        );
    }
    if !runs.is_empty() {
        let _ = writeln!(
            out,
            "  moviegraph eval report {} --store {}    the metrics as a table",
            runs.join(" "),
            p.store.display()
        );
    }
    let _ = writeln!(
        out,
        "  edit a film's files or settings and run again: only the stages whose inputs changed (and those after them) run"
    );
    (out, outcome, failed)
}

/// The film's shots: a manifest in the folder, else a MovieNet layout.
pub(super) fn find_shots(dir: &Path, film: &str) -> Option<PathBuf> {
    for name in ["keyframes.csv", "keyframes.json"] {
        let path = dir.join(name);
        if path.is_file() {
            return Some(path);
        }
    }
    let parent = dir.canonicalize().ok()?.parent()?.parent()?.to_path_buf();
    let found = [dir.join("keyframes"), parent.join("keyframes").join(film)]
        .into_iter()
        .find(|d| d.join("shot_txt").is_dir())?;
    // Keyframe paths end up in the store, the graph export and the trees; keep
    // them relative to the workspace so those files are the same on every machine.
    Some(relative_to_cwd(found))
}

/// `path` relative to the working directory when it lies inside it, else unchanged.
fn relative_to_cwd(path: PathBuf) -> PathBuf {
    let Some(cwd) = std::env::current_dir()
        .ok()
        .and_then(|d| d.canonicalize().ok())
    else {
        return path;
    };
    match path.strip_prefix(&cwd) {
        Ok(rel) => rel.to_path_buf(),
        Err(_) => path,
    }
}
