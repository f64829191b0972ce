//! `moviegraph run`: the whole pipeline on film folders, from screenplay to report.

use std::path::PathBuf;

use anyhow::bail;
use clap::Args;
use moviegraph::workspace::run::{run_pipeline, RunRequest, VideoSettings};
use moviegraph::workspace::shots;
use moviegraph::workspace::store_path;

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
    /// Shot detector for a film folder that holds a video and no keyframes
    /// (see `moviegraph shots --help`; default: transnet when its weights are installed, else robust).
    #[arg(long, value_enum)]
    detector: Option<super::shots::DetectorArg>,
    /// Subtitle language taken out of a film's video when its folder has no
    /// subtitles (`eng`, `fre`, …; default: the first English track, else the first).
    #[arg(long, value_name = "LANG")]
    subtitle_lang: Option<String>,
    #[command(flatten)]
    wait: super::WaitArgs,
}

/// Runs the pipeline on every film folder, `--jobs` at a time, and prints a summary.
pub fn run(args: RunArgs, quiet: bool, verbose: u8) -> anyhow::Result<Outcome> {
    // `--subject` may name a baseline, which the configuration does not know.
    let flags = args.models.without_subject().without_embedder();
    let request = RunRequest {
        config: flags.load()?,
        config_path: args.models.config_path().map(PathBuf::from),
        embedder: args.models.embedder().map(str::to_owned),
        subjects: args.models.subjects().to_vec(),
        store: store_path(args.store.as_deref()),
        detailed: args.film_dirs.len() == 1 || verbose > 0,
        film_dirs: args.film_dirs,
        out: args.out,
        jobs: args.jobs as usize,
        max_cost: args.max_cost,
        seed: args.seed,
        bootstrap: args.bootstrap,
        until: args.until.into(),
        text_only: args.text_only,
        allow_bad_cues: args.allow_bad_cues,
        video: VideoSettings {
            detector: args
                .detector
                .map_or_else(|| shots::default_detector().0, |d| d.detector()),
            subtitle_lang: args.subtitle_lang,
        },
        wait: args.wait.mode(),
    };
    let done = run_pipeline(&request, &Terminal::new(quiet))?;
    emit(&done.summary)?;
    for line in &done.errors {
        eprintln!("{line}");
    }
    if done.failed > 0 {
        bail!(
            "{} of {} films failed",
            done.failed,
            request.film_dirs.len()
        );
    }
    Ok(if done.check_failed {
        Outcome::CheckFailed
    } else {
        Outcome::Success
    })
}
