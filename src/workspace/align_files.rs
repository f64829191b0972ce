//! Use case: `moviegraph align` — a screenplay file against a subtitle file
//! (shots attached when given), optionally saved in the store, exported as
//! JSONL and scored against a gold mapping; returns what the command prints.

use std::cell::OnceCell;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::align::eval::{evaluate, Gold};
use crate::align::render::{eval_text, summary_text};
use crate::align::{export, AlignOptions};
use crate::embed::{CachedEmbedder, Chunked, Embedder};
use crate::media::shots::FrameRate;
use crate::store::Store;
use crate::util::report::{Bar, Reporter};

use super::align::{align_film, AlignInputs};
use super::embedder::{choose, EmbedderSpec};
use super::film::{self, load_shots};
use super::lock::{Wait, WriterLock};
use super::{Context, Result};

/// What `moviegraph align` was asked to do.
#[derive(Debug, Clone)]
pub struct AlignRequest {
    /// The screenplay.
    pub script: PathBuf,
    /// The subtitles.
    pub subtitles: PathBuf,
    /// The shots (a MovieNet shot file or folder, or a keyframe manifest).
    pub shots: Option<PathBuf>,
    /// The keyframe folder of the shots.
    pub keyframes: Option<PathBuf>,
    /// The shots' frame rate as given (`24`, `24000/1001`).
    pub fps: Option<String>,
    /// Print JSON instead of a summary.
    pub json: bool,
    /// A gold mapping to score against.
    pub gold: Option<PathBuf>,
    /// The alignment's options.
    pub options: AlignOptions,
    /// The store the embeddings are cached in.
    pub store: Option<PathBuf>,
    /// Save the alignment in `store` (not only cache embeddings there).
    pub save: bool,
    /// The film's name (default: the script's folder name).
    pub film: Option<String>,
    /// Where the JSONL export goes (`-`: into the printed text).
    pub jsonl: Option<PathBuf>,
    /// Align even when many cues are malformed.
    pub allow_bad_cues: bool,
    /// The embedder.
    pub embedder: EmbedderSpec,
    /// Wait for the store's writer lock, or stop.
    pub wait: Wait,
}

/// Aligns as `request` says; returns the text printed on stdout. A long
/// embedding pass shows an `embedding` bar, made at its first chunk (an
/// embedder that batches nothing shows none).
pub fn align_files(request: &AlignRequest, reporter: &dyn Reporter) -> Result<String> {
    let fps = match &request.fps {
        Some(text) => Some(
            FrameRate::parse(text).with_context(|| format!("--fps {text}: not a frame rate"))?,
        ),
        None => None,
    };
    let shots = match &request.shots {
        Some(path) => Some(load_shots(path, request.keyframes.as_deref(), fps)?),
        None => None,
    };
    let inputs = AlignInputs::read(
        &request.script,
        &request.subtitles,
        shots,
        request.allow_bad_cues,
    )?;
    let embedder = choose(&request.embedder, reporter)?;
    // Saving writes the store (and so does the embedding cache): one writer at a time.
    let _lock = match &request.store {
        Some(path) => Some(WriterLock::acquire(
            path,
            "moviegraph align",
            request.wait,
            reporter,
        )?),
        None => None,
    };
    let store = match &request.store {
        Some(path) => Some(Store::open(path)?),
        None => None,
    };
    let bar: OnceCell<Box<dyn Bar + '_>> = OnceCell::new();
    let chunked = Chunked::new(embedder.as_ref(), |done, total| {
        let bar = bar.get_or_init(|| {
            let bar = reporter.bar("embedding");
            bar.message(embedder.name());
            bar
        });
        bar.set(done as u64, total as u64);
    });
    let cached;
    let embedder: &dyn Embedder = match &store {
        Some(store) => {
            cached = CachedEmbedder::new(&chunked, store);
            &cached
        }
        None => &chunked,
    };
    let film = match &request.film {
        Some(slug) => slug.clone(),
        None => film::slug(request.script.parent().unwrap_or(Path::new("."))),
    };
    let save = match (&store, request.save) {
        (Some(db), true) => Some((db, film.as_str())),
        _ => None,
    };
    let aligned = align_film(inputs, &request.options, embedder, save)?;
    drop(chunked);
    if let (Some(path), true) = (&request.store, request.save) {
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
    let mut out = String::new();
    if let Some(path) = &request.jsonl {
        let text = export::jsonl(&film, play, alignment);
        if path.as_os_str() == "-" {
            out.push_str(&text);
        } else {
            std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
        }
    }
    let report = match &request.gold {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            let gold =
                Gold::from_json(&text).with_context(|| format!("parsing {}", path.display()))?;
            Some(evaluate(alignment, &gold, subs))
        }
        None => None,
    };
    if request.json {
        let mut value = serde_json::to_value(alignment)?;
        if let Some(r) = &report {
            value["eval"] = serde_json::to_value(r)?;
        }
        out.push_str(&serde_json::to_string_pretty(&value)?);
        out.push('\n');
    } else {
        out.push_str(&summary_text(alignment));
        writeln!(
            out,
            "time: {:.2} ms",
            aligned.elapsed.as_secs_f64() * 1000.0
        )?;
        if let Some(r) = &report {
            out.push_str(&eval_text(r));
        }
    }
    Ok(out)
}
