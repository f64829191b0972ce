//! `moviegraph run`: the whole pipeline on film folders, from screenplay to report.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use anyhow::bail;
use clap::Args;
use moviegraph::eval::subject::BASELINES;
use moviegraph::store::{self, Store};

use super::pipeline::{render_film, run_film, FilmOutcome, Pipeline, Progress, Stage};
use super::{emit, Outcome};

/// Run the whole pipeline on film folders: parse → align → graph → trees → eval →
/// report, offline by default.
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
/// Example:
///   moviegraph run screenplays/the-second-key
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
    /// Subject of the eval stage (repeat for several): random, first-option,
    /// lexical — offline baselines, not reasoners. Default: all three.
    #[arg(long = "subject", value_name = "NAME")]
    subjects: Vec<String>,
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
    fn pipeline(&self) -> Pipeline {
        Pipeline {
            out: self.out.clone(),
            store: store::resolve_path(self.store.as_deref()),
            subjects: if self.subjects.is_empty() {
                BASELINES.iter().map(|s| s.to_string()).collect()
            } else {
                self.subjects.clone()
            },
            seed: self.seed,
            bootstrap: self.bootstrap,
            until: self.until,
        }
    }
}

/// Runs the pipeline on every film folder, `--jobs` at a time, and prints a summary.
pub fn run(args: RunArgs, quiet: bool) -> anyhow::Result<Outcome> {
    let p = args.pipeline();
    for s in &p.subjects {
        if !BASELINES.contains(&s.as_str()) {
            bail!(
                "subject {s:?}: `moviegraph run` evaluates the offline baselines ({}); \
                 evaluate a model subject with `moviegraph eval run`",
                BASELINES.join(", ")
            );
        }
    }
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
    let (mut failed, mut cost, mut trees, mut questions) = (0, 0.0, 0, 0);
    let mut reports = Vec::new();
    let mut runs = Vec::new();
    for (dir, r) in dirs.iter().zip(results) {
        match r {
            Ok(o) => {
                let _ = writeln!(out, "film {} ({})", o.film, dir.display());
                out.push_str(&render_film(o));
                cost += o.cost;
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
    let _ = writeln!(
        out,
        "done: {} of {} films in {:.2} s; {trees} trees, {questions} questions; store {}; model cost ${cost:.2} (every stage ran on its offline baseline: no model, no network)",
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
