//! `moviegraph bench pipeline`: the whole `run` pipeline, stage by stage, on the
//! sample film and on a synthetic corpus: wall time and peak memory per stage.

use moviegraph::util::report::Silent;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::Args;
use moviegraph::align::synth::{synth, SynthOptions};
use moviegraph::eval::subject::BASELINES;
use moviegraph::screenplay::{self, Format};
use moviegraph::store::Store;

use super::emit;
use moviegraph::workspace::cast::Cast;
use moviegraph::workspace::run::{
    run_films, Action, AlignEmbedder, FilmOutcome, Pipeline, Progress, Stage, VideoSettings, STAGES,
};

/// Options of `bench pipeline`.
#[derive(Debug, Args)]
pub struct BenchPipelineArgs {
    /// The sample film folder (its script.fountain also seeds the corpus).
    #[arg(long, default_value = "screenplays/the-second-key")]
    film: PathBuf,
    /// Films in the synthetic corpus.
    #[arg(long, default_value_t = 30)]
    films: usize,
    /// Times each synthetic film repeats the seed story.
    #[arg(long, default_value_t = 6)]
    copies: usize,
    /// Films processed at once.
    #[arg(long, default_value_t = 2)]
    jobs: usize,
    /// Bootstrap resamples of each report.
    #[arg(long, default_value_t = 1000)]
    bootstrap: usize,
    /// Keep the workspace (films, store, outputs) in this folder instead of a
    /// temporary one that is removed at the end.
    #[arg(long, value_name = "DIR")]
    keep: Option<PathBuf>,
}

/// Peak resident memory since the last reset, in kB (`VmHWM`).
fn peak_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// Resets `VmHWM` to the current resident size (Linux ≥ 4.0), so the next
/// reading is the peak of what runs in between.
fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

fn copy_dir(from: &Path, to: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    for entry in std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)
                .with_context(|| format!("copying {}", entry.path().display()))?;
        }
    }
    Ok(())
}

/// One pass per stage over `dirs`: the time and peak memory of each.
struct Measured {
    rows: Vec<(Stage, Duration, Option<u64>)>,
    outcomes: Vec<FilmOutcome>,
    rerun: Duration,
    rerun_all_skipped: bool,
}

fn measure(dirs: &[PathBuf], p: &Pipeline, jobs: usize) -> anyhow::Result<Measured> {
    let progress = Progress::new(&Silent);
    let mut rows = Vec::new();
    let mut outcomes = Vec::new();
    for stage in STAGES {
        let reset = reset_peak();
        let t = Instant::now();
        let pass = Pipeline {
            until: stage,
            ..p.clone()
        };
        let results = run_films(dirs, &pass, &progress, jobs);
        let wall = t.elapsed();
        outcomes = Vec::new();
        for (dir, r) in dirs.iter().zip(results) {
            outcomes.push(r.with_context(|| format!("{}: stage {}", dir.display(), stage.name()))?);
        }
        // Every earlier stage must have been current; the pass ran this one only.
        for o in &outcomes {
            if let Some(s) = o
                .stages
                .iter()
                .find(|s| s.stage < stage && s.action != Action::Skipped)
            {
                bail!(
                    "{}: stage {} ran again in the {} pass",
                    o.film,
                    s.stage.name(),
                    stage.name()
                );
            }
        }
        rows.push((stage, wall, if reset { peak_kb() } else { None }));
    }
    let t = Instant::now();
    let results = run_films(dirs, p, &progress, jobs);
    let rerun = t.elapsed();
    let mut rerun_all_skipped = true;
    for r in results {
        rerun_all_skipped &= r?.stages.iter().all(|s| s.action == Action::Skipped);
    }
    Ok(Measured {
        rows,
        outcomes,
        rerun,
        rerun_all_skipped,
    })
}

fn render(title: &str, m: &Measured, out: &mut String) {
    let _ = writeln!(out, "{title}");
    let _ = writeln!(
        out,
        "  {:<7} {:>10} {:>14}",
        "stage", "wall s", "peak RSS MB"
    );
    let mut total = Duration::ZERO;
    let mut peak = 0;
    for (stage, wall, kb) in &m.rows {
        total += *wall;
        peak = peak.max(kb.unwrap_or(0));
        let _ = writeln!(
            out,
            "  {:<7} {:>10.3} {:>14}",
            stage.name(),
            wall.as_secs_f64(),
            kb.map_or("n/a".to_owned(), |k| format!("{:.1}", k as f64 / 1024.0))
        );
    }
    let _ = writeln!(
        out,
        "  {:<7} {:>10.3} {:>14.1}",
        "total",
        total.as_secs_f64(),
        peak as f64 / 1024.0
    );
    let (mut cands, mut verified, mut trees, mut questions) = (0, 0, 0, 0);
    for o in &m.outcomes {
        if let Some((c, v, _, _)) = o.graph {
            cands += c;
            verified += v;
        }
        if let Some((t, q)) = o.trees {
            trees += t;
            questions += q;
        }
    }
    let _ = writeln!(
        out,
        "  {} films: {cands} graph candidates ({verified} verified), {trees} trees, {questions} questions, {} eval answers",
        m.outcomes.len(),
        questions * BASELINES.len()
    );
    let _ = writeln!(
        out,
        "  baseline, same run: the rerun with every stage current (fingerprints checked, nothing recomputed) {:.3} s{}",
        m.rerun.as_secs_f64(),
        if m.rerun_all_skipped {
            ""
        } else {
            " (NOT all skipped: a bug)"
        }
    );
}

/// Runs the pipeline stage by stage on the sample film, then on the corpus.
pub fn bench_pipeline(a: BenchPipelineArgs) -> anyhow::Result<()> {
    let seed_path = a.film.join("script.fountain");
    let seed = std::fs::read_to_string(&seed_path)
        .with_context(|| format!("reading {}", seed_path.display()))?;
    let (ws, temporary) = match &a.keep {
        Some(dir) => (dir.clone(), false),
        None => (
            std::env::temp_dir().join(format!("moviegraph-bench-pipeline-{}", std::process::id())),
            true,
        ),
    };
    if ws.exists() {
        std::fs::remove_dir_all(&ws).with_context(|| format!("clearing {}", ws.display()))?;
    }
    let slug = moviegraph::workspace::film::slug(&a.film);
    // The sample film with its keyframes in the layout `run` looks for.
    let sample = ws.join("screenplays").join(&slug);
    copy_dir(&a.film, &sample)?;
    let frames = a
        .film
        .canonicalize()?
        .parent()
        .and_then(Path::parent)
        .map(|root| root.join("keyframes").join(&slug));
    if let Some(frames) = frames.filter(|f| f.is_dir()) {
        copy_dir(&frames, &ws.join("keyframes").join(&slug))?;
    }
    let t = Instant::now();
    let mut corpus = Vec::new();
    for i in 0..a.films {
        let text = super::graph::synth_film(&seed, i, a.copies);
        let play = screenplay::parse_text(&text, Some(Format::Fountain), None)?;
        let case = synth(
            &play,
            &SynthOptions {
                seed: i as u64 + 1,
                ..SynthOptions::default()
            },
        );
        let dir = ws.join("corpus").join(format!("synthetic-{i:02}"));
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join("script.fountain"), text)?;
        std::fs::write(dir.join("subtitles.srt"), case.srt)?;
        corpus.push(dir);
    }
    let made = t.elapsed();
    let cast = Cast::offline()?;
    let pipeline = |name: &str| Pipeline {
        out: ws.join(format!("out-{name}")),
        store: ws.join(format!("{name}.db")),
        subjects: BASELINES.iter().map(|s| s.to_string()).collect(),
        cast: cast.clone(),
        seed: 0,
        bootstrap: a.bootstrap,
        until: Stage::Report,
        text_only: false,
        embedder: AlignEmbedder::hashed(),
        allow_bad_cues: false,
        video: VideoSettings::default(),
    };
    let sample_p = pipeline("sample");
    // A corpus film repeats one story `--copies` times, so its subtitles fit
    // several places of its script and the alignment verdict rightly says
    // mismatch, which stops a film after align. The corpus therefore runs
    // script-only (align still runs and is timed); with one copy it need not.
    let corpus_p = Pipeline {
        text_only: a.copies > 1,
        ..pipeline("corpus")
    };
    drop(Store::open(&sample_p.store)?);
    drop(Store::open(&corpus_p.store)?);
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let mut out = format!(
        "bench pipeline: every stage on its offline baseline (rules graph and trees, baselines {}); --jobs {}, {cores} cores available; one pass per stage, VmHWM reset between passes{}\n",
        BASELINES.join(", "),
        a.jobs,
        if reset_peak() { "" } else { " (reset unavailable: peaks are since start)" }
    );
    let m = measure(std::slice::from_ref(&sample), &sample_p, 1)?;
    render(&format!("sample film {slug}:"), &m, &mut out);
    let m = measure(&corpus, &corpus_p, a.jobs)?;
    render(
        &format!(
            "synthetic corpus: {} films × {} copies of {} (written in {:.2} s){}:",
            a.films,
            a.copies,
            seed_path.display(),
            made.as_secs_f64(),
            if corpus_p.text_only {
                "; --text-only, since a story repeated fits its subtitles in several places"
            } else {
                ""
            }
        ),
        &m,
        &mut out,
    );
    if m.outcomes
        .iter()
        .any(|o| o.trees.is_none_or(|(t, _)| t == 0))
    {
        bail!(
            "a corpus film wrote no trees, so the figures above would time stages that did nothing:\n{out}"
        );
    }
    let total: Duration = m.rows.iter().map(|r| r.1).sum();
    let peak = m.rows.iter().filter_map(|r| r.2).max().unwrap_or(0);
    let _ = writeln!(
        out,
        "goal (corpus under 180 s and 2048 MB): {:.1} s, {:.1} MB: {}",
        total.as_secs_f64(),
        peak as f64 / 1024.0,
        if total.as_secs() < 180 && peak < 2048 * 1024 {
            "met"
        } else {
            "NOT met"
        }
    );
    // The corpus's runs as Inspect logs (`eval export --to inspect`), beside
    // `eval report` of the same runs in the same process.
    let ids = Store::open(&corpus_p.store)?.eval_run_ids()?;
    if ids.is_empty() {
        let _ = writeln!(out, "eval export --to inspect: the corpus holds no runs");
        emit(&out)?;
        return Ok(());
    }
    let bootstrap = moviegraph::eval::metrics::BootstrapSettings {
        resamples: a.bootstrap,
        seed: 0,
    };
    let t = Instant::now();
    let written = moviegraph::workspace::eval_export::export_inspect(
        &corpus_p.store,
        &ids,
        &ws.join("inspect-logs"),
        bootstrap,
        &Silent,
    )?;
    let export = t.elapsed();
    // The baseline: the same runs loaded and their figures computed, no log.
    let t = Instant::now();
    let store = Store::open(&corpus_p.store)?;
    for id in &ids {
        let loaded = moviegraph::eval::protocol::load_run(&store, id)?;
        std::hint::black_box(moviegraph::eval::metrics::compute(&loaded, bootstrap));
    }
    drop(store);
    let metrics = t.elapsed();
    let bytes: usize = written.iter().map(|w| w.bytes).sum();
    let samples: usize = written.iter().map(|w| w.samples).sum();
    let _ = writeln!(
        out,
        "eval export --to inspect of the corpus's {} runs ({} samples, {} bootstrap resamples): {:.2} s, {:.1} MB of logs ({:.1} KB a run); the same runs loaded and their figures computed alone {:.2} s ({:.1}×); goal under 5 s: {}",
        written.len(),
        samples,
        a.bootstrap,
        export.as_secs_f64(),
        bytes as f64 / 1e6,
        bytes as f64 / 1024.0 / written.len().max(1) as f64,
        metrics.as_secs_f64(),
        export.as_secs_f64() / metrics.as_secs_f64().max(1e-9),
        if export.as_secs_f64() < 5.0 { "met" } else { "NOT met" }
    );
    if temporary {
        let _ = std::fs::remove_dir_all(&ws);
    } else {
        let _ = writeln!(out, "workspace kept in {}", ws.display());
    }
    emit(&out)?;
    Ok(())
}
