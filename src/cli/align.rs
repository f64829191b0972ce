//! `moviegraph align`: a screenplay against a film's subtitles.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;
use moviegraph::align::eval::{evaluate, EvalReport, Gold};
use moviegraph::align::{export, AlignOptions, Alignment};
use moviegraph::embed::{CachedEmbedder, Chunked, Embedder};
use moviegraph::media::shots::FrameRate;
use moviegraph::media::subtitles::format_ms;
use moviegraph::store::{self, Store, STORE_ENV};
use moviegraph::workspace::align::{align_film, AlignInputs};
use moviegraph::workspace::embedder::choose;

use crate::args::EmbedderArgs;
use moviegraph::workspace::film::{self, load_shots};
use moviegraph::workspace::lock::WriterLock;

use super::report::Terminal;
use super::{emit, Outcome};

/// Align a screenplay's dialogue with the film's subtitles and cut the script
/// into timed blocks (one per scene, long scenes split).
///
/// Prints a readable summary, or with --json one object with `alignments`
/// (per dialogue element: matched cue numbers, times, confidence), `blocks`,
/// `element_times` and `summary` (coverage, mean confidence, verdict:
/// aligned / partial / mismatch). A mismatch (the script is not this film's)
/// is a result, not an error: exit 0 with the verdict printed; exit 2 on
/// unreadable input.
///
/// With --store the result is saved in the workspace database (replacing the
/// film's previous alignment); with --jsonl it is exported one JSON object per
/// line (`summary`, then `alignment` per dialogue line, then `block`; see
/// docs/alignment-jsonl.md).
///
/// Examples:
///   moviegraph align --script screenplays/the-second-key/script.fountain \
///       --subtitles screenplays/the-second-key/subtitles.srt
///   moviegraph align --script S --subtitles X --eval alignment_gold.json
///   moviegraph align --script S --subtitles X --shots keyframes.csv --store --jsonl out.jsonl
///
/// The semantic part of the similarity uses all-MiniLM-L6-v2 when its files
/// are installed (scripts/setup-models), else the hashed character-n-gram
/// baseline (see --embedder). With --store (or MOVIEGRAPH_STORE) embeddings
/// are cached in the workspace store and reused by later runs.
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct AlignArgs {
    /// The screenplay (Fountain, FDX or plain text).
    #[arg(long)]
    script: PathBuf,
    /// The subtitles (SRT or WebVTT).
    #[arg(long)]
    subtitles: PathBuf,
    /// The film's shots: a MovieNet shot file (`shot_txt/<id>.txt`), a MovieNet
    /// film folder (holding `shot_txt/`), or a keyframe manifest (`.csv` or
    /// `.json` rows of `path,time`). Blocks get the keyframes of the shots they
    /// overlap, and scene boundaries snap to cuts.
    #[arg(long)]
    shots: Option<PathBuf>,
    /// The keyframe folder of a MovieNet --shots file; for a manifest, the film
    /// folder its paths are relative to and may not leave (default: the
    /// manifest's folder).
    #[arg(long, requires = "shots")]
    keyframes: Option<PathBuf>,
    /// Frames per second of --shots (`24`, `24000/1001`); else video_info.json
    /// or the stats CSV beside the shot folder.
    #[arg(long, requires = "shots")]
    fps: Option<String>,
    /// Print JSON instead of a summary.
    #[arg(long)]
    json: bool,
    /// Compare with a gold mapping (alignment_gold.json format) and print
    /// precision, recall and timing error.
    #[arg(long, value_name = "GOLD")]
    eval: Option<PathBuf>,
    /// Fill the full DP matrix instead of the anchor band.
    #[arg(long)]
    naive: bool,
    /// Split blocks longer than this many seconds.
    #[arg(long, default_value_t = 90)]
    block_max_s: u64,
    /// Save the result in the workspace database: PATH, else $MOVIEGRAPH_STORE,
    /// else moviegraph.db in the working directory. Embeddings are cached there
    /// too (also when only MOVIEGRAPH_STORE is set).
    #[arg(long, value_name = "PATH", num_args = 0..=1, default_missing_value = "")]
    store: Option<PathBuf>,
    /// The film's name in the store and the export (default: the script's folder name).
    #[arg(long, value_name = "SLUG")]
    film: Option<String>,
    /// Write the JSONL export to this file (`-` for stdout).
    #[arg(long, value_name = "OUT")]
    jsonl: Option<PathBuf>,
    /// Align even when more than 5 % of the subtitle cues are malformed (each
    /// is reported by file and line; the alignment uses the cues read). A file
    /// with more cues malformed than read is refused even then.
    #[arg(long)]
    allow_bad_cues: bool,
    #[command(flatten)]
    embedding: EmbedderArgs,
    #[command(flatten)]
    wait: super::WaitArgs,
}

/// Runs `moviegraph align`.
pub fn align_cmd(args: AlignArgs) -> anyhow::Result<Outcome> {
    let opts = AlignOptions {
        naive: args.naive,
        block_max_ms: args.block_max_s.saturating_mul(1000),
        ..AlignOptions::default()
    };
    let fps = match &args.fps {
        Some(text) => Some(
            FrameRate::parse(text).with_context(|| format!("--fps {text}: not a frame rate"))?,
        ),
        None => None,
    };
    let shots = match &args.shots {
        Some(path) => Some(load_shots(path, args.keyframes.as_deref(), fps)?),
        None => None,
    };
    let inputs = AlignInputs::read(&args.script, &args.subtitles, shots, args.allow_bad_cues)?;
    let embedder = choose(&args.embedding.spec(), &Terminal::notes())?;
    let store_path = match &args.store {
        Some(flag) => Some(store::resolve_path(
            Some(flag.as_path()).filter(|p| !p.as_os_str().is_empty()),
        )),
        None => std::env::var_os(STORE_ENV)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from),
    };
    // Saving writes the store (and so does the embedding cache): one writer at a time.
    let _lock = match &store_path {
        Some(path) => Some(WriterLock::acquire(
            path,
            "moviegraph align",
            args.wait.mode(),
            &Terminal::notes(),
        )?),
        None => None,
    };
    let store = match &store_path {
        Some(path) => Some(Store::open(path)?),
        None => None,
    };
    // A long embedding pass (MiniLM on a feature film) shows its progress on
    // a terminal; the bar stays hidden when stderr is redirected.
    // Hidden until the first chunk, so an embedder that batches nothing (the
    // hashed baseline) draws no bar at all.
    let bar = indicatif::ProgressBar::hidden();
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "embedding {msg} {bar:30} {pos}/{len} texts · ETA {eta}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar.set_message(embedder.name().to_owned());
    let chunked = Chunked::new(embedder.as_ref(), |done, total| {
        if bar.is_hidden() {
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        }
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    });
    let cached;
    let embedder: &dyn Embedder = match &store {
        Some(store) => {
            cached = CachedEmbedder::new(&chunked, store);
            &cached
        }
        None => &chunked,
    };
    let film = match &args.film {
        Some(slug) => slug.clone(),
        None => film::slug(args.script.parent().unwrap_or(Path::new("."))),
    };
    let save = match (&args.store, &store) {
        (Some(_), Some(db)) => Some((db, film.as_str())),
        _ => None,
    };
    let aligned = align_film(inputs, &opts, embedder, save)?;
    bar.finish_and_clear();
    if let (Some(_), Some(path)) = (&args.store, &store_path) {
        tracing::info!(
            "stored the alignment of film {film} in {} ({} blocks)",
            path.display(),
            aligned.alignment.blocks.len()
        );
    }
    let (play, subs, alignment) = (
        &aligned.inputs.play,
        &aligned.inputs.subtitles,
        &aligned.alignment,
    );
    let elapsed = aligned.elapsed;
    if let Some(out) = &args.jsonl {
        let text = export::jsonl(&film, play, alignment);
        if out.as_os_str() == "-" {
            emit(&text)?;
        } else {
            std::fs::write(out, text).with_context(|| format!("writing {}", out.display()))?;
        }
    }
    let report = match &args.eval {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            let gold =
                Gold::from_json(&text).with_context(|| format!("parsing {}", path.display()))?;
            Some(evaluate(alignment, &gold, subs))
        }
        None => None,
    };
    if args.json {
        let mut value = serde_json::to_value(alignment)?;
        if let Some(r) = &report {
            value["eval"] = serde_json::to_value(r)?;
        }
        emit(&(serde_json::to_string_pretty(&value)? + "\n"))?;
    } else {
        let mut out = summary(alignment);
        let _ = writeln!(out, "time: {:.2} ms", elapsed.as_secs_f64() * 1000.0);
        if let Some(r) = &report {
            out.push_str(&eval_text(r));
        }
        emit(&out)?;
    }
    Ok(Outcome::Success)
}

fn time(ms: Option<u64>) -> String {
    ms.map_or_else(|| "--".to_owned(), format_ms)
}

/// A readable summary of an alignment.
pub fn summary(a: &Alignment) -> String {
    let s = &a.summary;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "verdict: {}\ncoverage: {:.1}% ({} of {} dialogue lines, {} cues)\nmean confidence: {:.3}\nanchors: {}  dp cells: {}  moved-scene lines: {}  embedder: {}",
        s.verdict.as_str().to_uppercase(),
        s.coverage * 100.0,
        s.matched,
        s.dialogue_lines,
        s.cues,
        s.mean_confidence,
        s.anchors,
        s.dp_cells,
        s.moved_lines,
        s.embedder
    );
    match &s.unrelated {
        Some(u) => {
            let _ = writeln!(
                out,
                "calibration: unrelated line-cue cosine median {:.3}, 99th percentile {:.3} ({} pairs); lone-gap lines matched: {}",
                u.median, u.high, u.pairs, s.lone_pairs
            );
        }
        None => {
            let _ = writeln!(
                out,
                "calibration: none (fewer than 40 lines or cues to measure unrelated pairs on); no lone-gap pass"
            );
        }
    }
    let _ = writeln!(out, "blocks:");
    for b in &a.blocks {
        let _ = writeln!(
            out,
            "  {:>3}  scene {:>3}  elements {:>4}-{:<4}  {} - {}",
            b.id,
            b.scene + 1,
            b.elements[0],
            b.elements[1],
            time(b.start_ms),
            time(b.end_ms)
        );
    }
    out
}

/// The evaluation figures as text.
pub fn eval_text(r: &EvalReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "eval: precision {:.4} ({} of {} matched lines exact; overlap {:.4})\n      recall {:.4} ({} of {} gold-matched lines)\n      cut lines unmatched {:.4} ({} cut)  ad-lib cues unmatched {:.4} ({} ad-libs)\n      line timing error mean {:.0} ms, median {:.0} ms\n      scene start error mean {:.0} ms, max {} ms",
        r.precision,
        r.exact,
        r.predicted_matched,
        r.precision_overlap,
        r.recall,
        r.exact,
        r.gold_matched,
        r.cut_accuracy,
        r.cut_lines,
        r.adlib_accuracy,
        r.adlib_cues,
        r.timing_mean_ms,
        r.timing_median_ms,
        r.scene_start_mean_ms,
        r.scene_start_max_ms
    );
    for m in &r.misses {
        let _ = writeln!(
            out,
            "      miss: line {} ({}) predicted {:?} gold {:?}",
            m.line, m.status, m.predicted, m.gold
        );
    }
    out
}
