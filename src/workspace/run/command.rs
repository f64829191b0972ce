//! Use case: `moviegraph run` — the whole pipeline on film folders, the
//! store's writer lock first, then the models the configuration casts, the
//! films `jobs` at a time, the corpus report, and the summary the command
//! prints with the next commands to try.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::eval::metrics::RunMetrics;
use crate::llm::Config;
use crate::store::Store;
use crate::util::report::Reporter;

use super::super::cast::{open_llm, subjects, Cast};
use super::super::embedder::choose_for_run;
use super::super::film;
use super::super::lock::{Wait, WriterLock};
use super::super::{bail, Context, Result};
use super::{
    corpus_report, render_film, render_film_line, run_films, AlignEmbedder, FilmOutcome, Pipeline,
    Progress, Stage, VideoSettings,
};

/// What `moviegraph run` was asked to do.
#[derive(Debug, Clone)]
pub struct RunRequest {
    /// The film folders.
    pub film_dirs: Vec<PathBuf>,
    /// The workspace database.
    pub store: PathBuf,
    /// Where graphs/, trees/ and reports/ go.
    pub out: PathBuf,
    /// Films at once.
    pub jobs: usize,
    /// The configuration, role flags applied (subjects and embedder apart).
    pub config: Config,
    /// The configuration file it came from, if any.
    pub config_path: Option<PathBuf>,
    /// `--embedder`, if given.
    pub embedder: Option<String>,
    /// The `--subject` names given (none: the configured role or the baselines).
    pub subjects: Vec<String>,
    /// Stop calling models past this cost.
    pub max_cost: Option<f64>,
    /// Seed of the random baseline.
    pub seed: u64,
    /// Bootstrap resamples of the reports.
    pub bootstrap: usize,
    /// The last stage.
    pub until: Stage,
    /// Script-only trees.
    pub text_only: bool,
    /// Align films with many malformed cues.
    pub allow_bad_cues: bool,
    /// How the shots stage reads a film's video.
    pub video: VideoSettings,
    /// Wait for the store's writer lock, or stop.
    pub wait: Wait,
    /// Every film's stages in the summary (else one line per film when
    /// there are several).
    pub detailed: bool,
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunDone {
    /// The summary for stdout.
    pub summary: String,
    /// A film stopped on a check (invalid trees, a mismatched script).
    pub check_failed: bool,
    /// Error lines for stderr: mismatches, then films that failed.
    pub errors: Vec<String>,
    /// Films that failed.
    pub failed: usize,
}

/// Runs the pipeline as `request` says; progress and notes go to `reporter`.
pub fn run_pipeline(request: &RunRequest, reporter: &dyn Reporter) -> Result<RunDone> {
    // One writer per store: taken before anything (the model layer included) opens it.
    let _lock = WriterLock::acquire(&request.store, "moviegraph run", request.wait, reporter)?;
    let p = pipeline(request, reporter)?;
    let mut seen = std::collections::BTreeMap::new();
    for dir in &request.film_dirs {
        if let Some(other) = seen.insert(film::slug(dir), dir) {
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
    let results = run_films(
        &request.film_dirs,
        &p,
        &Progress::new(reporter),
        request.jobs,
    );
    let ok: Vec<&FilmOutcome> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
    let corpus = corpus_report(&p, &ok);
    let elapsed = started.elapsed();
    let corpus = corpus.context("writing the corpus report")?;
    let (summary, check_failed, failed) = summary(
        &request.film_dirs,
        &p,
        &results,
        elapsed,
        request.detailed,
        corpus.as_ref(),
    );
    let mut errors = Vec::new();
    for o in results.iter().flatten().filter(|o| o.mismatch) {
        if let Some((_, why)) = &o.stopped {
            errors.push(format!("error: {why}"));
        }
    }
    for (dir, r) in request.film_dirs.iter().zip(&results) {
        if let Err(e) = r {
            errors.push(format!("error: {}: {}", dir.display(), with_causes(e)));
        }
    }
    Ok(RunDone {
        summary,
        check_failed,
        errors,
        failed,
    })
}

/// The run's settings, with the model layer opened when a role needs it.
fn pipeline(request: &RunRequest, reporter: &dyn Reporter) -> Result<Pipeline> {
    let config = request.config.clone();
    let embedder = choose_for_run(
        request.embedder.as_deref(),
        request.config_path.as_deref(),
        &config,
        reporter,
    )?;
    let subjects = subjects(&request.subjects, &config)?;
    let mut cast = Cast::from_config(&config)?;
    if cast.needs_models(&subjects) {
        // Open once here so the migrations run before the model layer's connection.
        drop(Store::open(&request.store)?);
        cast = cast.with_llm(open_llm(config, &request.store, "run", request.max_cost)?);
    }
    Ok(Pipeline {
        out: request.out.clone(),
        store: request.store.clone(),
        subjects,
        cast,
        seed: request.seed,
        bootstrap: request.bootstrap,
        until: request.until,
        text_only: request.text_only,
        embedder: AlignEmbedder(embedder.into()),
        allow_bad_cues: request.allow_bad_cues,
        video: request.video.clone(),
    })
}

/// The corpus report's lines: where it is and each subject's pooled accuracy.
fn corpus_lines(dir: &Path, metrics: &[RunMetrics], films: usize) -> String {
    let acc: Vec<String> = metrics
        .iter()
        .map(|m| {
            let f = m.figure("all", "all");
            match f {
                Some(f) => format!(
                    "{} {:.3} [{:.3}, {:.3}]",
                    m.subject, f.first.mean, f.first.lo, f.first.hi
                ),
                None => format!("{} -", m.subject),
            }
        })
        .collect();
    format!(
        "corpus of {films} films (each subject's runs pooled): accuracy {}; {}/report.{{html,json,csv}}\n",
        acc.join(", "),
        dir.display()
    )
}

/// An error and every error that caused it, outermost first, as `anyhow`'s `{:#}`
/// prints them ("stage eval, film x: store w.db: …"); a workspace error displayed
/// alone is only its outermost message.
fn with_causes(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

/// The summary printed after the films ran, whether a film's checks failed,
/// and how many films failed.
fn summary(
    dirs: &[PathBuf],
    p: &Pipeline,
    results: &[Result<FilmOutcome>],
    elapsed: Duration,
    detailed: bool,
    corpus: Option<&(PathBuf, Vec<RunMetrics>)>,
) -> (String, bool, usize) {
    let mut out = String::new();
    let mut check_failed = false;
    let (mut failed, mut trees, mut questions) = (0, 0, 0);
    let mut reports = Vec::new();
    let mut runs = Vec::new();
    for (dir, r) in dirs.iter().zip(results) {
        match r {
            Ok(o) => {
                if detailed {
                    let _ = writeln!(out, "film {} ({})", o.film, dir.display());
                    out.push_str(&render_film(o));
                } else {
                    out.push_str(&render_film_line(o));
                }
                if let Some((t, q)) = o.trees {
                    trees += t;
                    questions += q;
                }
                if o.invalid_trees > 0 || o.mismatch {
                    check_failed = true;
                }
                if let Some(r) = &o.report {
                    reports.push(r.join("report.html"));
                }
                runs.extend(o.runs.iter().map(|(_, id)| id.clone()));
            }
            Err(e) => {
                failed += 1;
                let _ = writeln!(out, "film {}: failed: {}", dir.display(), with_causes(e));
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
    if let Some((dir, metrics)) = corpus {
        out.push_str(&corpus_lines(dir, metrics, dirs.len() - failed));
    }
    let _ = writeln!(out, "next:");
    if let Some((dir, _)) = corpus {
        let _ = writeln!(
            out,
            "  open {} in a browser (the corpus report: every film pooled, offline)",
            dir.join("report.html").display()
        );
    }
    if detailed || reports.len() <= 1 {
        for r in &reports {
            let _ = writeln!(
                out,
                "  open {} in a browser (the full report, offline)",
                r.display()
            );
        }
    } else if let Some(first) = reports.first() {
        let _ = writeln!(
            out,
            "  open {} and the other {} films' reports beside it (-v lists every stage of every film)",
            first.display(),
            reports.len() - 1
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
    for (dir, o) in dirs.iter().zip(results) {
        if o.as_ref().is_ok_and(|o| o.mismatch) {
            let _ = writeln!(
                out,
                "  moviegraph run {} --text-only    script-only trees from a script that is not the film's (recorded as such)",
                dir.display()
            );
        }
    }
    if !runs.is_empty() && (detailed || runs.len() <= 6) {
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
    (out, check_failed, failed)
}
