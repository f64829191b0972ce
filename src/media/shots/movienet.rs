//! The MovieNet layout: `shot_txt/<id>.txt` shot lines, keyframe folders
//! `shot_keyf/<id>/`, and the frame-rate files (`video_info.json`,
//! `shot_stats/<id>.csv`).

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::manifest;
use super::rate::{FrameRate, MAX_FRAME};
use super::{read_text, shorten, ShotError};
use crate::screenplay::Diagnostic;

/// Largest `video_info.json` read; a real one is a few hundred bytes.
const MAX_INFO_BYTES: u64 = 1024 * 1024;

/// One readable line of a shot file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShotLine {
    /// 1-based line in the file.
    pub line: usize,
    /// Position among the file's non-blank, non-comment lines (0-based).
    pub index: usize,
    /// First frame.
    pub start_frame: u64,
    /// Last frame, inclusive.
    pub end_frame: u64,
    /// Keyframe frames listed after the range (up to three).
    pub keyframe_frames: Vec<u64>,
}

/// A shot file's readable lines, in file order, and what was wrong with the rest.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParsedShots {
    /// Lines that read as shots.
    pub shots: Vec<ShotLine>,
    /// Lines skipped or doubtful, by line.
    pub diagnostics: Vec<Diagnostic>,
}

/// Parses a MovieNet `shot_txt` file: `start end kf0 kf1 kf2` per line, frame
/// numbers separated by spaces or tabs. Blank lines and `#` comments are
/// skipped; `start end` alone is accepted (no keyframe frames). Malformed lines
/// are diagnosed and skipped. Never fails; linear in the text.
pub fn parse_shot_txt(text: &str) -> ParsedShots {
    let mut out = ParsedShots::default();
    let mut index = 0;
    for (i, raw) in text.split('\n').enumerate() {
        let line = i + 1;
        let row = raw.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
        if row.is_empty() || row.starts_with('#') {
            continue;
        }
        let this = index;
        index += 1;
        let mut nums = Vec::with_capacity(5);
        let mut count = 0;
        let mut bad = None;
        for field in row.split_whitespace() {
            count += 1;
            if count > 5 {
                break;
            }
            match parse_frame(field) {
                Some(n) => nums.push(n),
                None => {
                    bad.get_or_insert(field);
                }
            }
        }
        if !(2..=5).contains(&count) {
            let found = if count > 5 {
                "more than 5".to_string()
            } else {
                count.to_string()
            };
            out.diagnostics.push(Diagnostic::warning(
                line,
                format!("expected `start end kf0 kf1 kf2` (frame numbers), found {found} fields; line skipped"),
            ));
            continue;
        }
        if let Some(field) = bad {
            out.diagnostics.push(Diagnostic::warning(
                line,
                format!(
                    "`{}` is not a frame number (0 to {MAX_FRAME}); line skipped",
                    shorten(field)
                ),
            ));
            continue;
        }
        let (start, end) = (nums[0], nums[1]);
        if end < start {
            out.diagnostics.push(Diagnostic::warning(
                line,
                format!(
                    "the shot ends (frame {end}) before it starts (frame {start}); line skipped"
                ),
            ));
            continue;
        }
        let keyframe_frames = nums.split_off(2);
        if let Some(k) = keyframe_frames.iter().find(|k| **k < start || **k > end) {
            out.diagnostics.push(Diagnostic::warning(
                line,
                format!("keyframe frame {k} lies outside the shot (frames {start}–{end})"),
            ));
        }
        out.shots.push(ShotLine {
            line,
            index: this,
            start_frame: start,
            end_frame: end,
            keyframe_frames,
        });
    }
    out
}

/// ASCII digits only, at most [`MAX_FRAME`].
fn parse_frame(field: &str) -> Option<u64> {
    if field.is_empty() || field.len() > 20 || !field.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    field.parse().ok().filter(|n| *n <= MAX_FRAME)
}

/// The keyframe files of a folder, read once and indexed by (shot, slot), so
/// finding a shot's keyframes costs no system call and no string building.
#[derive(Debug, Clone, Default)]
pub struct KeyframeDir {
    dir: Option<PathBuf>,
    /// (shot index, slot) → (preference rank, file name).
    files: HashMap<(usize, usize), (u8, String)>,
}

impl KeyframeDir {
    /// No keyframe folder: shots get no keyframes, and none is reported missing.
    pub fn none() -> KeyframeDir {
        KeyframeDir::default()
    }

    /// Lists `dir` (one `read_dir`, no recursion).
    pub fn scan(dir: &Path) -> std::io::Result<KeyframeDir> {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(dir)? {
            if let Ok(name) = entry?.file_name().into_string() {
                names.push(name);
            }
        }
        Ok(KeyframeDir::from_names(dir, names))
    }

    /// A folder `dir` said to hold exactly `names` (for tests and fuzzing).
    /// Names that are not keyframe names are ignored.
    pub fn from_names<I, S>(dir: &Path, names: I) -> KeyframeDir
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut files: HashMap<(usize, usize), (u8, String)> = HashMap::new();
        for name in names {
            let name = name.into();
            if let Some((key, rank)) = keyframe_name(&name) {
                match files.get(&key) {
                    Some((r, n)) if (*r, n.as_str()) <= (rank, name.as_str()) => {}
                    _ => {
                        files.insert(key, (rank, name));
                    }
                }
            }
        }
        KeyframeDir {
            dir: Some(dir.to_path_buf()),
            files,
        }
    }

    /// The folder, if there is one.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// The file of keyframe `slot` of shot `index`: `shot_%04d_img_<slot>` or
    /// `shot_%04d_img<slot>`, as `.jpg`, `.jpeg` or `.png` (any case). When
    /// several exist, `img_N` beats `imgN` and `.jpg` beats `.png` beats `.jpeg`.
    pub fn find(&self, index: usize, slot: usize) -> Option<PathBuf> {
        let dir = self.dir.as_ref()?;
        self.files
            .get(&(index, slot))
            .map(|(_, name)| dir.join(name))
    }
}

/// Reads `shot_%04d_img_N.ext` / `shot_%04d_imgN.ext` as ((shot, N), rank),
/// rank ordering the spellings by preference.
fn keyframe_name(name: &str) -> Option<((usize, usize), u8)> {
    let rest = name.strip_prefix("shot_")?;
    let digits_end = rest.find(|c: char| !c.is_ascii_digit())?;
    let (digits, rest) = rest.split_at(digits_end);
    // %04d: four digits, or more without a leading zero.
    if digits.len() < 4 || (digits.len() > 4 && digits.starts_with('0')) || digits.len() > 12 {
        return None;
    }
    let index: usize = digits.parse().ok()?;
    let (underscore, rest) = match rest.strip_prefix("_img_") {
        Some(r) => (true, r),
        None => (false, rest.strip_prefix("_img")?),
    };
    let (slot, ext) = rest.split_once('.')?;
    if slot.is_empty() || slot.len() > 3 || !slot.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let slot: usize = slot.parse().ok()?;
    let ext_rank = ["jpg", "png", "jpeg"]
        .iter()
        .position(|e| ext.eq_ignore_ascii_case(e))?;
    let rank = if underscore { 0 } else { 3 } + ext_rank as u8;
    Some(((index, slot), rank))
}

/// Where a MovieNet-layout film's files are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MovieNetPaths {
    /// The film's id (the name of its files).
    pub film_id: String,
    /// The shot list, `shot_txt/<id>.txt`.
    pub shot_txt: PathBuf,
    /// The keyframe folder, `shot_keyf/<id>/`, if known.
    pub keyframe_dir: Option<PathBuf>,
    /// `video_info.json`, if there is one.
    pub video_info: Option<PathBuf>,
    /// The stats CSV, `shot_stats/<id>.csv`, if there is one.
    pub stats_csv: Option<PathBuf>,
}

impl MovieNetPaths {
    /// Finds a film's files in `film_dir` (a folder holding `shot_txt/`,
    /// `shot_keyf/`, `shot_stats/` and perhaps `video_info.json`). Without
    /// `film_id`, the film is the one named like the folder, or the only one
    /// in `shot_txt/`.
    pub fn find(film_dir: &Path, film_id: Option<&str>) -> Result<MovieNetPaths, ShotError> {
        if !film_dir.is_dir() {
            return Err(ShotError::NotFound {
                path: film_dir.to_path_buf(),
                message: "not a folder; give a film's keyframe folder (holding shot_txt/<id>.txt), or the shot file itself".into(),
            });
        }
        let shot_dir = film_dir.join("shot_txt");
        let id = match film_id {
            Some(id) => {
                if !is_plain_name(id) {
                    return Err(ShotError::NotFound {
                        path: shot_dir,
                        message: format!("`{id}` is not a film id (a file name without folders)"),
                    });
                }
                id.to_string()
            }
            None => guess_film_id(film_dir, &shot_dir)?,
        };
        let shot_txt = shot_dir.join(format!("{id}.txt"));
        if !shot_txt.is_file() {
            return Err(ShotError::NotFound {
                path: shot_txt,
                message: format!("no shot list for film `{id}` (expected shot_txt/{id}.txt)"),
            });
        }
        let video_info = Some(film_dir.join("video_info.json")).filter(|p| p.is_file());
        let stats_csv =
            Some(film_dir.join("shot_stats").join(format!("{id}.csv"))).filter(|p| p.is_file());
        Ok(MovieNetPaths {
            keyframe_dir: Some(film_dir.join("shot_keyf").join(&id)),
            film_id: id,
            shot_txt,
            video_info,
            stats_csv,
        })
    }

    /// The files around an explicit shot file (`--shots F`, `--keyframes DIR`).
    /// The film id is the file's stem; when the file sits in a `shot_txt/`
    /// folder, the keyframe folder (unless given), `video_info.json` and the
    /// stats CSV are looked for beside that folder as in [`MovieNetPaths::find`];
    /// otherwise `video_info.json` is looked for beside the file.
    pub fn explicit(shots: &Path, keyframes: Option<&Path>) -> MovieNetPaths {
        let film_id = shots
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let parent = shots.parent().unwrap_or(Path::new(""));
        let root = if parent.file_name().is_some_and(|n| n == "shot_txt") {
            parent.parent()
        } else {
            None
        };
        let keyframe_dir = keyframes
            .map(Path::to_path_buf)
            .or_else(|| root.map(|r| r.join("shot_keyf").join(&film_id)));
        let video_info =
            Some(root.unwrap_or(parent).join("video_info.json")).filter(|p| p.is_file());
        let stats_csv = root
            .map(|r| r.join("shot_stats").join(format!("{film_id}.csv")))
            .filter(|p| p.is_file());
        MovieNetPaths {
            film_id,
            shot_txt: shots.to_path_buf(),
            keyframe_dir,
            video_info,
            stats_csv,
        }
    }
}

/// One normal path component: no separators, not `.` or `..`, not empty.
fn is_plain_name(id: &str) -> bool {
    !id.is_empty() && id != "." && id != ".." && !id.contains(['/', '\\', '\0'])
}

fn guess_film_id(film_dir: &Path, shot_dir: &Path) -> Result<String, ShotError> {
    if let Some(name) = film_dir
        .canonicalize()
        .ok()
        .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
    {
        if shot_dir.join(format!("{name}.txt")).is_file() {
            return Ok(name);
        }
    }
    let io = |source| ShotError::Io {
        path: shot_dir.to_path_buf(),
        source,
    };
    let mut ids = Vec::new();
    let entries = std::fs::read_dir(shot_dir).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            ShotError::NotFound {
                path: shot_dir.to_path_buf(),
                message: "no shot_txt folder: is this a film's keyframe folder (MovieNet layout)?"
                    .into(),
            }
        } else {
            io(e)
        }
    })?;
    for entry in entries {
        let path = entry.map_err(io)?.path();
        if path.extension().is_some_and(|e| e == "txt") && path.is_file() {
            if let Some(stem) = path.file_stem() {
                ids.push(stem.to_string_lossy().into_owned());
            }
        }
    }
    ids.sort();
    match ids.len() {
        1 => Ok(ids.remove(0)),
        0 => Err(ShotError::NotFound {
            path: shot_dir.to_path_buf(),
            message: "no shot list (expected shot_txt/<film>.txt)".into(),
        }),
        n => {
            let shown: Vec<&str> = ids.iter().take(5).map(String::as_str).collect();
            let more = if n > 5 { ", …" } else { "" };
            Err(ShotError::NotFound {
                path: shot_dir.to_path_buf(),
                message: format!(
                    "shot lists for {n} films ({}{more}); say which film id to read",
                    shown.join(", ")
                ),
            })
        }
    }
}
/// What `video_info.json` says.
#[derive(Debug, Default)]
pub(super) struct VideoInfo {
    pub(super) rate: Option<FrameRate>,
    pub(super) duration_ms: Option<u64>,
}

/// Reads `video_info.json`; problems become file-level diagnostics.
pub(super) fn read_video_info(path: &Path, diags: &mut Vec<Diagnostic>) -> VideoInfo {
    let mut info = VideoInfo::default();
    let name = path.display();
    let text = match read_text(path, "video_info.json", MAX_INFO_BYTES) {
        Ok(Some(t)) => t,
        Ok(None) => {
            diags.push(Diagnostic::warning(0, format!("{name} is empty")));
            return info;
        }
        Err(e) => {
            diags.push(Diagnostic::warning(0, e.to_string()));
            return info;
        }
    };
    let map = match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(map)) => map,
        Ok(_) => {
            diags.push(Diagnostic::warning(0, format!("{name}: not a JSON object")));
            return info;
        }
        Err(e) => {
            diags.push(Diagnostic::warning(
                0,
                format!("{name}:{}: not JSON: {e}", e.line()),
            ));
            return info;
        }
    };
    let mut named = false;
    for key in ["fps", "frame_rate", "avg_frame_rate", "r_frame_rate"] {
        let Some(v) = map.get(key) else { continue };
        named = true;
        let rate = match v {
            Value::Number(n) => manifest::rate_from_number(n),
            Value::String(s) => FrameRate::parse(s),
            _ => None,
        };
        match rate {
            Some(r) => {
                info.rate = Some(r);
                break;
            }
            None => diags.push(Diagnostic::warning(
                0,
                format!("{name}: `{key}` {v} is not a frame rate; ignored"),
            )),
        }
    }
    if !named {
        diags.push(Diagnostic::info(
            0,
            format!("{name} names no frame rate (`fps`, `frame_rate` or `avg_frame_rate`)"),
        ));
    }
    if let Some(Value::Number(n)) = map.get("duration_ms") {
        info.duration_ms = n.as_u64();
    }
    info
}

/// Reads the frame rate from the first line of a MovieNet stats CSV,
/// `Frame Rate:,23.9760000000`, reading no more than that line.
pub(super) fn read_stats_rate(path: &Path, diags: &mut Vec<Diagnostic>) -> Option<FrameRate> {
    let mut head = Vec::new();
    let read = std::fs::File::open(path).and_then(|f| f.take(4096).read_to_end(&mut head));
    if let Err(e) = read {
        diags.push(Diagnostic::warning(
            0,
            format!("{}: cannot read: {e}", path.display()),
        ));
        return None;
    }
    let head = String::from_utf8_lossy(&head);
    let first = head
        .trim_start_matches('\u{feff}')
        .split(['\n', '\r'])
        .next()
        .unwrap_or("");
    let rate = first.split_once(',').and_then(|(label, value)| {
        let label = label.trim().trim_end_matches(':').trim();
        if label.eq_ignore_ascii_case("frame rate") {
            FrameRate::parse(value.split(',').next().unwrap_or(""))
        } else {
            None
        }
    });
    if rate.is_none() {
        diags.push(Diagnostic::warning(
            0,
            format!(
                "{}:1: expected `Frame Rate:,<fps>`, found `{}`",
                path.display(),
                shorten(first)
            ),
        ));
    }
    rate
}
