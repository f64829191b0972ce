//! Use case: align a film — its screenplay against its subtitles, shots
//! attached, saved in the store — and the blocks of a film, stored or
//! re-aligned when the stored alignment no longer matches the files.
//! `moviegraph align`, `graph build`, `trees generate` and `run` all come here.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::align::store::{AlignmentRecord, AlignmentStore};
use crate::align::{align_with, attach_shots, AlignOptions, Alignment, Block};
use crate::embed::{Embedder, HashedNgramEmbedder};
use crate::media::shots::ShotList;
use crate::media::subtitles::Subtitles;
use crate::screenplay::{self, Screenplay};
use crate::store::{AlignmentSources, InputFile, Store};

use super::film::{fingerprint, load_shots, load_subtitles, FilmFolder};
use super::{Context, Result};

/// Keyframes attached to each block.
pub const KEYFRAMES_PER_BLOCK: usize = 5;
/// Minimum gap between a block's keyframes, milliseconds.
pub const KEYFRAME_GAP_MS: u64 = 3_000;

/// A film's parsed inputs, ready to align.
pub struct AlignInputs {
    /// The screenplay.
    pub play: Screenplay,
    /// The subtitles.
    pub subtitles: Subtitles,
    /// The shots, with the fingerprint of the file they came from.
    pub shots: Option<(ShotList, InputFile)>,
    /// The input files' fingerprints.
    pub sources: AlignmentSources,
}

impl AlignInputs {
    /// Reads the screenplay, the subtitles and (when given) the shots.
    /// `allow_bad_cues`: align even when more than
    /// [`super::film::MAX_BAD_CUE_SHARE`] of the cues are malformed.
    pub fn read(
        script: &Path,
        subtitles_path: &Path,
        shots: Option<(ShotList, InputFile)>,
        allow_bad_cues: bool,
    ) -> Result<AlignInputs> {
        let play = screenplay::parse_file(script, None)
            .with_context(|| format!("reading {}", script.display()))?;
        Self::with_play(play, script, subtitles_path, shots, allow_bad_cues)
    }

    /// As [`AlignInputs::read`] with the screenplay already parsed from `script`.
    pub fn with_play(
        play: Screenplay,
        script: &Path,
        subtitles_path: &Path,
        shots: Option<(ShotList, InputFile)>,
        allow_bad_cues: bool,
    ) -> Result<AlignInputs> {
        let subs = load_subtitles(subtitles_path, allow_bad_cues)?;
        let sources = AlignmentSources {
            script: fingerprint(script)?,
            subtitles: fingerprint(subtitles_path)?,
            shots: shots.as_ref().map(|(_, f)| f.clone()),
        };
        Ok(AlignInputs {
            play,
            subtitles: subs,
            shots,
            sources,
        })
    }
}

/// An alignment and what it was computed from.
pub struct Aligned {
    /// The inputs.
    pub inputs: AlignInputs,
    /// The alignment, shots attached.
    pub alignment: Alignment,
    /// Time spent aligning (embedding included), shots and saving not.
    pub elapsed: Duration,
}

/// Aligns `inputs` with `embedder`, attaches the shots, and saves the result
/// as film `slug` in `store` when one is given (replacing its alignment).
pub fn align_film(
    inputs: AlignInputs,
    opts: &AlignOptions,
    embedder: &dyn Embedder,
    store: Option<(&Store, &str)>,
) -> Result<Aligned> {
    let started = Instant::now();
    let mut alignment = align_with(&inputs.play, &inputs.subtitles, opts, embedder)
        .with_context(|| format!("embedding with {}", embedder.name()))?;
    let elapsed = started.elapsed();
    if let Some((list, _)) = &inputs.shots {
        attach_shots(&mut alignment, list, KEYFRAMES_PER_BLOCK, KEYFRAME_GAP_MS);
    }
    if let Some((store, slug)) = store {
        store
            .save_alignment(
                slug,
                &AlignmentRecord {
                    play: &inputs.play,
                    subtitles: &inputs.subtitles,
                    shots: inputs.shots.as_ref().map(|(l, _)| l),
                    alignment: &alignment,
                    sources: &inputs.sources,
                },
            )
            .with_context(|| format!("saving the alignment of film {slug}"))?;
    }
    Ok(Aligned {
        inputs,
        alignment,
        elapsed,
    })
}

/// The same bytes in the same roles; paths may be spelled differently.
pub fn same_inputs(a: &AlignmentSources, b: &AlignmentSources) -> bool {
    a.script.sha256 == b.script.sha256
        && a.subtitles.sha256 == b.subtitles.sha256
        && a.shots.as_ref().map(|f| &f.sha256) == b.shots.as_ref().map(|f| &f.sha256)
}

/// Where a film's blocks came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlocksSource {
    /// The store held an alignment of exactly these input files.
    Stored,
    /// Aligned now (saved unless read-only), for the reason given.
    Aligned(&'static str),
}

impl BlocksSource {
    /// One line for a command's output.
    pub fn describe(self) -> String {
        match self {
            BlocksSource::Stored => "blocks: the stored alignment (inputs unchanged)".to_owned(),
            BlocksSource::Aligned(why) => format!("blocks: aligned now ({why})"),
        }
    }
}

/// The blocks of a film: the stored alignment when its input fingerprints
/// (screenplay, subtitles, shots) equal the files' now, else a fresh alignment
/// (the offline defaults), saved so the next stage reuses it. `keyframes`
/// overrides the shots found in the folder.
pub fn film_blocks(
    store: &Store,
    film: &FilmFolder,
    keyframes: Option<&Path>,
) -> Result<(Screenplay, Vec<Block>, BlocksSource)> {
    let (play, alignment, source) = film_alignment(store, film, keyframes)?;
    Ok((play, alignment.blocks, source))
}

/// The blocks of a film without writing anything: the stored alignment when
/// `store` holds a current one, else a fresh alignment kept in memory (for
/// readers such as `trees audit`).
pub fn film_blocks_read_only(
    store: Option<&Store>,
    film: &FilmFolder,
    keyframes: Option<&Path>,
) -> Result<(Screenplay, Vec<Block>, BlocksSource)> {
    let (play, alignment, source) = alignment_of(store, false, film, keyframes)?;
    Ok((play, alignment.blocks, source))
}

/// As [`film_blocks`], with the whole alignment: its blocks and its summary
/// (the verdict and coverage a trees file records).
pub fn film_alignment(
    store: &Store,
    film: &FilmFolder,
    keyframes: Option<&Path>,
) -> Result<(Screenplay, Alignment, BlocksSource)> {
    alignment_of(Some(store), true, film, keyframes)
}

fn alignment_of(
    store: Option<&Store>,
    save: bool,
    film: &FilmFolder,
    keyframes: Option<&Path>,
) -> Result<(Screenplay, Alignment, BlocksSource)> {
    let subs_path = film.require_subtitles()?;
    let script = film.script();
    let play = screenplay::parse_file(script, None)
        .with_context(|| format!("reading {}", script.display()))?;
    // The same shots `moviegraph run` attaches.
    let shots_path = keyframes.map(Path::to_path_buf).or_else(|| film.shots());
    let shots = match &shots_path {
        Some(p) => Some(load_shots(p, None, None)?),
        None => None,
    };
    let sources = AlignmentSources {
        script: fingerprint(script)?,
        subtitles: fingerprint(subs_path)?,
        shots: shots.as_ref().map(|(_, f)| f.clone()),
    };
    let stored = match store {
        Some(store) => match store.film_id(&film.slug)? {
            Some(id) => store.load_alignment(id)?,
            None => None,
        },
        None => None,
    };
    let why = match stored {
        None => "no stored alignment",
        Some(s) if !same_inputs(&s.sources, &sources) => "the stored alignment is stale",
        Some(s) => return Ok((play, s.alignment, BlocksSource::Stored)),
    };
    let subs = load_subtitles(subs_path, film.allow_bad_cues)?;
    let inputs = AlignInputs {
        play,
        subtitles: subs,
        shots,
        sources,
    };
    let aligned = align_film(
        inputs,
        &AlignOptions::default(),
        &HashedNgramEmbedder,
        store.filter(|_| save).map(|s| (s, film.slug.as_str())),
    )?;
    Ok((
        aligned.inputs.play,
        aligned.alignment,
        BlocksSource::Aligned(why),
    ))
}
