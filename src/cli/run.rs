//! `moviegraph run`: the whole pipeline on film folders, from screenplay to report.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context as _};
use clap::Args;
use moviegraph::store::{self, Store};
use moviegraph::workspace::cast::{open_llm, subjects, Cast};
use moviegraph::workspace::embedder::choose_for_run;
use moviegraph::workspace::film;
use moviegraph::workspace::lock::WriterLock;
use moviegraph::workspace::run::{
    corpus_report, render_film, render_film_line, run_films, AlignEmbedder, FilmOutcome, Pipeline,
    Progress,
};

use super::models::ModelFlags;
use super::report::Terminal;
use super::{emit, Outcome};
use crate::args::StageArg;

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
/// The align stage embeds with all-MiniLM-L6-v2 when scripts/setup-models has
/// installed it, else with the hashed character-n-gram baseline (said so), as
/// `moviegraph align` does; `--embedder hashed` (or MOVIEGRAPH_EMBEDDER=hashed)
/// pins the baseline, `--embedder MODEL` uses a configured embedding model.
///
/// Writes OUT/graphs/<film>.json, OUT/trees/<film>.jsonl and
/// OUT/reports/<film>/report.{html,json,csv}; everything else (alignment,
/// graph build, eval answers, stage fingerprints) goes into the store.
///
/// Questions come only from scenes the film contains (a timed subtitle cue).
/// A film whose script does not match its subtitles (alignment verdict
/// mismatch) stops after align with exit 1, naming the verdict; --text-only
/// builds script-only trees instead, and the trees file and the report say so.
///
/// Each stage's inputs and settings are fingerprinted in the store: a rerun
/// skips what is current, resumes a stage that was cut off (graph block by
/// block, eval answer by answer), and redoes what changed and every stage
/// after it, saying which and why. Files are written whole or not at all.
///
/// Examples:
///   moviegraph run screenplays/the-second-key
///   moviegraph run films/* --jobs 4 --store corpus.db
///   moviegraph run films/early-draft --text-only    # script-only trees, said so
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
    #[arg(long, value_enum, default_value_t = StageArg::Report)]
    until: StageArg,
    /// Build script-only trees. Without it, questions come only from scenes
    /// the film contains (a timed subtitle cue; cut scenes are left out), and
    /// a film whose script does not match its subtitles (alignment verdict
    /// mismatch: another draft, or the wrong subtitles) stops after align with
    /// exit 1. With it, every scene of the script is a source and a mismatch
    /// goes on; the trees file and the report record text_only.
    #[arg(long)]
    text_only: bool,
    /// Align a film even when more than 5 % of its subtitle cues are malformed
    /// (each is reported by file and line; the alignment uses the cues read).
    /// Without it such a film stops with exit 1 before align. A file with more
    /// cues malformed than read stops even then.
    #[arg(long)]
    allow_bad_cues: bool,
    #[command(flatten)]
    wait: super::WaitArgs,
}

impl RunArgs {
    /// The settings of the run, with the model layer opened when a role needs it.
    fn pipeline(&self) -> anyhow::Result<Pipeline> {
        // `--subject` may name a baseline, which the configuration does not know.
        let flags = self.models.without_subject().without_embedder();
        let config = flags.load()?;
        let embedder = choose_for_run(
            self.models.embedder(),
            self.models.config_path(),
            &config,
            &Terminal::notes(),
        )?;
        let subjects = subjects(self.models.subjects(), &config)?;
        let store = store::resolve_path(self.store.as_deref());
        let mut cast = Cast::from_config(&config)?;
        if cast.needs_models(&subjects) {
            // Open once here so the migrations run before the model layer's connection.
            drop(Store::open(&store)?);
            cast = cast.with_llm(open_llm(config, &store, "run", self.max_cost)?);
        }
        Ok(Pipeline {
            out: self.out.clone(),
            store,
            subjects,
            cast,
            seed: self.seed,
            bootstrap: self.bootstrap,
            until: self.until.into(),
            text_only: self.text_only,
            embedder: AlignEmbedder(embedder.into()),
            allow_bad_cues: self.allow_bad_cues,
        })
    }
}

/// Runs the pipeline on every film folder, `--jobs` at a time, and prints a summary.
pub fn run(args: RunArgs, quiet: bool, verbose: u8) -> anyhow::Result<Outcome> {
    // One writer per store: taken before anything (the model layer included) opens it.
    let _lock = WriterLock::acquire(
        &store::resolve_path(args.store.as_deref()),
        "moviegraph run",
        args.wait.mode(),
        &Terminal::notes(),
    )?;
    let p = args.pipeline()?;
    let mut seen = std::collections::BTreeMap::new();
    for dir in &args.film_dirs {
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
    let terminal = Terminal::new(quiet);
    let progress = Progress::new(&terminal);
    let results = run_films(&args.film_dirs, &p, &progress, args.jobs as usize);
    drop(terminal);
    let ok: Vec<&FilmOutcome> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
    let corpus = corpus_report(&p, &ok);
    let elapsed = started.elapsed();
    let detailed = args.film_dirs.len() == 1 || verbose > 0;
    let corpus = corpus.context("writing the corpus report")?;
    let (text, outcome, failed) = summary(
        &args.film_dirs,
        &p,
        &results,
        elapsed,
        detailed,
        corpus.as_ref(),
    );
    emit(&text)?;
    for o in results.iter().flatten().filter(|o| o.mismatch) {
        if let Some((_, why)) = &o.stopped {
            eprintln!("error: {why}");
        }
    }
    if failed > 0 {
        for (dir, r) in args.film_dirs.iter().zip(&results) {
            if let Err(e) = r {
                eprintln!("error: {}: {}", dir.display(), with_causes(e));
            }
        }
        bail!("{failed} of {} films failed", results.len());
    }
    Ok(outcome)
}

/// The corpus report's lines: where it is and each subject's pooled accuracy.
fn corpus_lines(
    dir: &std::path::Path,
    metrics: &[moviegraph::eval::metrics::RunMetrics],
    films: usize,
) -> String {
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

fn summary(
    dirs: &[PathBuf],
    p: &Pipeline,
    results: &[moviegraph::workspace::Result<FilmOutcome>],
    elapsed: std::time::Duration,
    detailed: bool,
    corpus: Option<&(PathBuf, Vec<moviegraph::eval::metrics::RunMetrics>)>,
) -> (String, Outcome, usize) {
    let mut out = String::new();
    let mut outcome = Outcome::Success;
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
                    outcome = Outcome::CheckFailed;
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
    (out, outcome, failed)
}
