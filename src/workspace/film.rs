//! A film folder: where its screenplay versions, subtitles and shots are, and
//! its slug. Every command that takes a film folder finds its inputs here.

use std::path::{Path, PathBuf};

use crate::media::shots::{FrameRate, MovieNetPaths, ShotList};
use crate::media::subtitles::{self, Subtitles};
use crate::screenplay::Format;
use crate::store::InputFile;

use super::{bail, Context, Result};

/// Screenplay versions a film folder may hold, preferred first.
pub const SCRIPT_VERSIONS: [(&str, Format); 3] = [
    ("script.fountain", Format::Fountain),
    ("script.fdx", Format::Fdx),
    ("script.txt", Format::Text),
];

/// Subtitle files a film folder may hold, preferred first.
pub const SUBTITLE_FILES: [&str; 2] = ["subtitles.srt", "subtitles.vtt"];

/// Keyframe manifests a film folder may hold, preferred first.
pub const MANIFEST_FILES: [&str; 2] = ["keyframes.csv", "keyframes.json"];

/// A film folder and the inputs found in it.
#[derive(Debug, Clone)]
pub struct FilmFolder {
    /// The folder as given.
    pub dir: PathBuf,
    /// The film's name in the store and in output file names: the folder's name.
    pub slug: String,
    /// The screenplay versions present, preferred first (never empty).
    pub scripts: Vec<(PathBuf, Format)>,
    /// The subtitles, when present.
    pub subtitles: Option<PathBuf>,
    /// Align even when more than [`MAX_BAD_CUE_SHARE`] of the subtitles' cues
    /// are malformed (`--allow-bad-cues`; false when opened).
    pub allow_bad_cues: bool,
}

impl FilmFolder {
    /// Reads what `dir` holds; an error when it is not a folder or holds no screenplay.
    pub fn open(dir: &Path) -> Result<FilmFolder> {
        if !dir.is_dir() {
            bail!(
                "{}: not a folder; expected a film folder holding script.fountain, script.fdx or script.txt",
                dir.display()
            );
        }
        let scripts: Vec<(PathBuf, Format)> = SCRIPT_VERSIONS
            .iter()
            .map(|(f, fmt)| (dir.join(f), *fmt))
            .filter(|(path, _)| path.exists())
            .collect();
        if scripts.is_empty() {
            bail!(
                "{}: no screenplay found; expected one of script.fountain, script.fdx, script.txt",
                dir.display()
            );
        }
        let subtitles = SUBTITLE_FILES
            .iter()
            .map(|f| dir.join(f))
            .find(|p| p.is_file());
        Ok(FilmFolder {
            dir: dir.to_path_buf(),
            slug: slug(dir),
            scripts,
            subtitles,
            allow_bad_cues: false,
        })
    }

    /// The preferred screenplay version.
    pub fn script(&self) -> &Path {
        &self.scripts[0].0
    }

    /// The subtitles, or an error naming what is missing.
    pub fn require_subtitles(&self) -> Result<&Path> {
        self.subtitles.as_deref().with_context(|| {
            format!(
                "{}: no subtitles (subtitles.srt or subtitles.vtt)",
                self.dir.display()
            )
        })
    }

    /// The film's shots: a manifest in the folder, else a MovieNet layout in
    /// `FILM_DIR/keyframes/` or in `keyframes/<film>/` beside the folder's parent.
    pub fn shots(&self) -> Option<PathBuf> {
        for name in MANIFEST_FILES {
            let path = self.dir.join(name);
            if path.is_file() {
                return Some(path);
            }
        }
        let parent = self
            .dir
            .canonicalize()
            .ok()?
            .parent()?
            .parent()?
            .to_path_buf();
        let found = [
            self.dir.join("keyframes"),
            parent.join("keyframes").join(&self.slug),
        ]
        .into_iter()
        .find(|d| d.join("shot_txt").is_dir())?;
        // Keyframe paths end up in the store, the graph export and the trees; keep
        // them relative to the workspace so those files are the same on every machine.
        Some(relative_to_cwd(found))
    }
}

/// The name of a folder (after resolving `.` and links): a film's slug.
pub fn slug(dir: &Path) -> String {
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    dir.canonicalize()
        .ok()
        .as_deref()
        .and_then(Path::file_name)
        .or_else(|| dir.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| dir.display().to_string())
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

/// The fingerprint of an input file (its path and sha256).
pub fn fingerprint(path: &Path) -> Result<InputFile> {
    InputFile::of_file(path).with_context(|| format!("reading {}", path.display()))
}

/// Share of a subtitle file's cues that may be malformed (skipped) before the
/// film stops, unless `--allow-bad-cues`.
pub const MAX_BAD_CUE_SHARE: f64 = 0.05;

/// Reads a subtitle file, its problems logged as warnings with file and line
/// (the first [`SHOWN_PROBLEMS`], then how many more; the rest at debug
/// level). A file with more than [`MAX_BAD_CUE_SHARE`] of its cues skipped as
/// malformed is refused unless `allow_bad_cues`: the film would be aligned,
/// and its questions drawn, on part of its dialogue without anyone deciding
/// to. One where more were skipped than read is refused even then: aligning
/// the few left would build a whole film on a fraction of its dialogue.
pub fn load_subtitles(path: &Path, allow_bad_cues: bool) -> Result<Subtitles> {
    let subs =
        subtitles::parse_file(path, None).with_context(|| format!("reading {}", path.display()))?;
    for (k, d) in subs.diagnostics.iter().enumerate() {
        if k < SHOWN_PROBLEMS {
            tracing::warn!("{}:{}: {}", path.display(), d.line, d.message);
        } else {
            tracing::debug!("{}:{}: {}", path.display(), d.line, d.message);
        }
    }
    if subs.diagnostics.len() > SHOWN_PROBLEMS {
        let more = subs.diagnostics.len() - SHOWN_PROBLEMS;
        tracing::warn!(
            "{}: {more} more problem{} (-v lists them all)",
            path.display(),
            if more == 1 { "" } else { "s" },
        );
    }
    let skipped = subs
        .diagnostics
        .iter()
        .filter(|d| d.message.contains("skipped"))
        .count();
    if skipped > 0 {
        tracing::warn!(
            "{}: {skipped} of {} cues skipped as malformed; the alignment uses the {} read",
            path.display(),
            skipped + subs.cues.len(),
            subs.cues.len()
        );
    }
    if skipped > subs.cues.len() {
        let first = &subs.diagnostics[0];
        bail!(
            "{}: {skipped} of {} cues are malformed and were skipped (first, line {}: {}); \
             fix the file or convert it (for example `ffmpeg -i {} fixed.srt`) before aligning",
            path.display(),
            skipped + subs.cues.len(),
            first.line,
            first.message,
            path.display()
        );
    }
    let total = skipped + subs.cues.len();
    if !allow_bad_cues && skipped as f64 > MAX_BAD_CUE_SHARE * total as f64 {
        let first = &subs.diagnostics[0];
        bail!(
            "{}: {skipped} of {total} cues ({:.1} %) are malformed and were skipped, more than \
             {:.0} % (first, line {}: {}); fix the file, or pass --allow-bad-cues to align on \
             the cues that were read",
            path.display(),
            100.0 * skipped as f64 / total as f64,
            100.0 * MAX_BAD_CUE_SHARE,
            first.line,
            first.message,
        );
    }
    Ok(subs)
}

/// How many of a subtitle file's problems are logged one by one.
pub const SHOWN_PROBLEMS: usize = 5;

/// Reads a film's shots from a MovieNet shot file or film folder, or a
/// keyframe manifest (`.csv`/`.json`, paths confined to `keyframes` or the
/// manifest's folder), with the fingerprint of the file read. The reader's
/// diagnostics are logged as warnings with file and line.
pub fn load_shots(
    path: &Path,
    keyframes: Option<&Path>,
    fps: Option<FrameRate>,
) -> Result<(ShotList, InputFile)> {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    let (list, file) = if matches!(ext.as_deref(), Some("csv" | "json")) {
        let list = ShotList::load_manifest(path, keyframes, fps)
            .with_context(|| format!("reading the keyframe manifest {}", path.display()))?;
        (list, path.to_path_buf())
    } else {
        let paths = if path.is_dir() {
            MovieNetPaths::find(path, None)
                .with_context(|| format!("reading the shots in {}", path.display()))?
        } else {
            MovieNetPaths::explicit(path, keyframes)
        };
        let list = ShotList::load_movienet(&paths, fps)
            .with_context(|| format!("reading {}", paths.shot_txt.display()))?;
        (list, paths.shot_txt)
    };
    for d in &list.diagnostics {
        tracing::warn!("{}:{}: {}", file.display(), d.line, d.message);
    }
    let print = fingerprint(&file)?;
    Ok((list, print))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An SRT file of `good` cues, then `bad` cues with a broken end time.
    fn srt(good: usize, bad: usize) -> String {
        let mut out = String::new();
        for k in 0..good + bad {
            let end = if k < good {
                "00:00:59,500"
            } else {
                "00:00:xx,000"
            };
            out.push_str(&format!(
                "{}\n00:00:0{},000 --> {end}\nLine {k}.\n\n",
                k + 1,
                k % 10
            ));
        }
        out
    }

    #[test]
    fn a_few_malformed_cues_are_read_past_and_most_are_refused_by_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let few = dir.path().join("few.srt");
        std::fs::write(&few, srt(8, 2)).unwrap();
        // 2 of 10 skipped: above the 5 % a film may lose without a word.
        let err = format!("{:#}", load_subtitles(&few, false).unwrap_err());
        assert!(err.contains("few.srt: 2 of 10 cues (20.0 %)"), "{err}");
        assert!(err.contains("--allow-bad-cues"), "{err}");
        let subs = load_subtitles(&few, true).unwrap();
        assert_eq!((subs.cues.len(), subs.diagnostics.len()), (8, 2));
        let one = dir.path().join("one.srt");
        std::fs::write(&one, srt(20, 1)).unwrap();
        assert_eq!(load_subtitles(&one, false).unwrap().cues.len(), 20);
        let most = dir.path().join("most.srt");
        std::fs::write(&most, srt(2, 6)).unwrap();
        let err = format!("{:#}", load_subtitles(&most, true).unwrap_err());
        assert!(err.contains("most.srt: 6 of 8 cues are malformed"), "{err}");
        assert!(err.contains("line 10"), "{err}");
    }

    #[test]
    fn a_folder_without_a_screenplay_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let err = FilmFolder::open(dir.path()).unwrap_err().to_string();
        assert!(err.contains("no screenplay found"), "{err}");
    }

    #[test]
    fn versions_are_found_in_preference_order() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("script.txt"), "x").unwrap();
        std::fs::write(dir.path().join("script.fountain"), "x").unwrap();
        std::fs::write(dir.path().join("subtitles.vtt"), "x").unwrap();
        let f = FilmFolder::open(dir.path()).unwrap();
        assert_eq!(f.scripts.len(), 2);
        assert!(f.script().ends_with("script.fountain"));
        assert!(f.subtitles.as_ref().unwrap().ends_with("subtitles.vtt"));
        assert_eq!(f.slug, slug(dir.path()));
    }
}
