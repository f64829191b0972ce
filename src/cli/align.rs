//! `moviegraph align`: a screenplay against a film's subtitles.

use std::path::PathBuf;

use clap::Args;
use moviegraph::align::AlignOptions;
use moviegraph::store::STORE_ENV;
use moviegraph::workspace::align_files::{align_files, AlignRequest};
use moviegraph::workspace::store_path;

use crate::args::EmbedderArgs;

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
    // --store saves (and caches embeddings); MOVIEGRAPH_STORE alone only caches.
    let store = match &args.store {
        Some(flag) => Some(store_path(
            Some(flag.as_path()).filter(|p| !p.as_os_str().is_empty()),
        )),
        None => std::env::var_os(STORE_ENV)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from),
    };
    let request = AlignRequest {
        options: AlignOptions {
            naive: args.naive,
            block_max_ms: args.block_max_s.saturating_mul(1000),
            ..AlignOptions::default()
        },
        save: args.store.is_some(),
        store,
        script: args.script,
        subtitles: args.subtitles,
        shots: args.shots,
        keyframes: args.keyframes,
        fps: args.fps,
        json: args.json,
        gold: args.eval,
        film: args.film,
        jsonl: args.jsonl,
        allow_bad_cues: args.allow_bad_cues,
        embedder: args.embedding.spec(),
        wait: args.wait.mode(),
    };
    emit(&align_files(&request, &Terminal::new(false))?)?;
    Ok(Outcome::Success)
}
