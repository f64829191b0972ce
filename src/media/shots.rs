//! Shots and keyframes: a film's shot list with frame ranges, times and
//! keyframe files, and the time queries the aligner asks of it
//! (shots map times to keyframes; see the pipeline in ARCHITECTURE.md).
//!
//! Two sources give a [`ShotList`]:
//!
//! - **MovieNet layout** — `shot_txt/<id>.txt` (one shot a line,
//!   `start end kf0 kf1 kf2`, inclusive 0-based frame numbers), keyframes in
//!   `shot_keyf/<id>/shot_%04d_img_{0,1,2}.jpg` (or `img0`, or `.png`), and the
//!   frame rate from `--fps`, `video_info.json` or `shot_stats/<id>.csv`, in
//!   that order. [`MovieNetPaths`] finds the files; [`ShotList::load_movienet`]
//!   reads them.
//! - **A manifest** for other sources — CSV or JSON listing keyframe paths and
//!   times ([`manifest`]); [`ShotList::load_manifest`] reads it, confining its
//!   paths to the film's folder.
//!
//! Reading is split so that text parsing ([`parse_shot_txt`],
//! [`manifest::parse_manifest`]) never touches the file system and never fails:
//! malformed lines become [`Diagnostic`]s with their line number. Only files that
//! cannot be read, are not text, or leave the frame rate unknown are a
//! [`ShotError`].
//!
//! ## Time conventions
//!
//! Frame rates are exact fractions ([`FrameRate`]). Frame `f` starts at
//! `frame_to_ms(f) = ceil(f × 1000 / fps)`, the first whole millisecond at which
//! it is on screen, and `ms_to_frame(t) = floor(t × fps / 1000)` is the frame on
//! screen at `t`; the two are exact inverses on frame starts. A shot of frames
//! `start..=end` covers `[frame_to_ms(start), frame_to_ms(end + 1))`: `end_ms`
//! is exclusive and equals the next contiguous shot's `start_ms`, so no
//! millisecond belongs to two shots and none between contiguous shots is lost.
//! At 24 fps, frames 96..=1184 are `[4000, 49375)`.

pub mod manifest;
mod movienet;
pub mod rate;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::text::decode::{read_text_file, TextFileError};
use crate::text::source::{Diagnostic, LineSpan, MAX_FILE_BYTES};
pub use manifest::Manifest;
use manifest::{parse_manifest, ManifestEntry, ManifestFormat, Resolution};
pub use movienet::{parse_shot_txt, KeyframeDir, MovieNetPaths, ParsedShots, ShotLine};
use movienet::{read_stats_rate, read_video_info, VideoInfo};
pub use rate::FrameRate;

/// Where a shot list's frame rate came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FpsSource {
    /// Given explicitly (`--fps`).
    Flag,
    /// `video_info.json` in the film's folder (`fps`, `frame_rate`,
    /// `avg_frame_rate` or `r_frame_rate`).
    VideoInfo,
    /// The first line of the MovieNet stats CSV, `Frame Rate:,23.976`.
    StatsCsv,
    /// The manifest: its own `fps`, or, when no rate is known anywhere, the
    /// manifest's millisecond clock ([`FrameRate::MILLISECONDS`]: frame numbers
    /// are milliseconds), since a manifest's times need no frame rate.
    Manifest,
}

impl FpsSource {
    /// Where the rate came from, in words.
    pub fn describe(self) -> &'static str {
        match self {
            FpsSource::Flag => "--fps",
            FpsSource::VideoInfo => "video_info.json",
            FpsSource::StatsCsv => "the shot stats CSV",
            FpsSource::Manifest => "the manifest",
        }
    }
}

/// One keyframe file of a shot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Keyframe {
    /// Which of the shot's keyframes it is (0-based; MovieNet's `img_0..img_2`,
    /// or the order within a manifest shot).
    pub slot: usize,
    /// The frame it shows, when the source says.
    pub frame: Option<u64>,
    /// The file; it existed when the list was read.
    pub path: PathBuf,
}

/// One shot: a run of frames, its times, and its keyframes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shot {
    /// The shot's number in its source, 0-based: the position of its line among
    /// the shot file's non-blank lines (the `%04d` of its keyframe names), or
    /// its position in a manifest's time order. Equal to its position in
    /// [`ShotList::shots`] unless lines were skipped.
    pub index: usize,
    /// First frame (0-based).
    pub start_frame: u64,
    /// Last frame, inclusive.
    pub end_frame: u64,
    /// The keyframes' frames as the source lists them (MovieNet: three; a
    /// manifest shot: its first frame once per keyframe listed).
    pub keyframe_frames: Vec<u64>,
    /// When the shot starts, in ms: `frame_to_ms(start_frame)`.
    pub start_ms: u64,
    /// When it ends, in ms, exclusive: `frame_to_ms(end_frame + 1)`.
    pub end_ms: u64,
    /// The keyframe files that exist, in slot order; missing ones are diagnosed.
    pub keyframes: Vec<Keyframe>,
    /// The source lines the shot came from.
    pub lines: LineSpan,
}

impl Shot {
    /// How many keyframes the shot should have: as many frames as its source
    /// lists, or MovieNet's three when it lists none.
    pub fn slot_count(&self) -> usize {
        if self.keyframe_frames.is_empty() {
            3
        } else {
            self.keyframe_frames.len()
        }
    }
}

/// A film's shots in time order, with where its frame rate came from and what
/// was wrong with its files.
///
/// Invariant (kept by every constructor, relied on by the queries): `shots` are
/// sorted by time and do not overlap, so `start_ms` and `end_ms` both increase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShotList {
    /// The film's id (MovieNet id, or the film folder's name).
    pub film_id: String,
    /// Frames per second, for display: `frame_rate` as a float.
    pub fps: f64,
    /// The exact frame rate every time conversion uses.
    pub frame_rate: FrameRate,
    /// Where the frame rate came from.
    pub fps_source: FpsSource,
    /// The shot file or manifest read, if any.
    pub source: Option<PathBuf>,
    /// The shots, sorted by time, not overlapping.
    pub shots: Vec<Shot>,
    /// Problems found, by line of `source`; line 0 is about the film's files as
    /// a whole (frame-rate sources, the keyframe folder) and names its file.
    pub diagnostics: Vec<Diagnostic>,
}

/// At most 40 characters of `s`, for messages.
pub(crate) fn shorten(s: &str) -> String {
    match s.char_indices().nth(40) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// Why a film's shots could not be read at all.
#[derive(Debug, thiserror::Error)]
pub enum ShotError {
    /// A file could not be opened or read.
    #[error("{path}: cannot read: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },
    /// A file is far larger than its kind ever is.
    #[error("{path}: {size} bytes is too large for a {what} (limit {limit} bytes); is this the right file?")]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// What the file was expected to be.
        what: &'static str,
        /// Its size in bytes.
        size: u64,
        /// The limit for its kind.
        limit: u64,
    },
    /// A file is not text.
    #[error("{path}:{line}: not a text file (binary data at line {line}); expected a {what}")]
    Binary {
        /// The file.
        path: PathBuf,
        /// First line with binary data.
        line: usize,
        /// What the file was expected to be.
        what: &'static str,
    },
    /// A file or folder the film needs is not there.
    #[error("{path}: {message}")]
    NotFound {
        /// Where it was looked for.
        path: PathBuf,
        /// What is missing and what to do.
        message: String,
    },
    /// No frame rate was given or found.
    #[error("{path}: no frame rate for film `{film_id}`: {hint}")]
    NoFrameRate {
        /// The shot list that needs it.
        path: PathBuf,
        /// The film.
        film_id: String,
        /// Where it was looked for and how to give one.
        hint: String,
    },
    /// A JSON manifest is not JSON, or not a list of keyframes.
    #[error("{path}:{line}:{column}: malformed manifest: {message}")]
    Manifest {
        /// The manifest.
        path: PathBuf,
        /// 1-based line of the problem.
        line: usize,
        /// 1-based column of the problem.
        column: usize,
        /// What is wrong.
        message: String,
    },
}

/// Reads a text file of at most `limit` bytes; `None` when it is empty.
pub(crate) fn read_text(
    path: &Path,
    what: &'static str,
    limit: u64,
) -> Result<Option<String>, ShotError> {
    match read_text_file(path, limit) {
        Ok((text, _)) => Ok(Some(text)),
        Err(TextFileError::Empty) => Ok(None),
        Err(TextFileError::Io(source)) => Err(ShotError::Io {
            path: path.to_path_buf(),
            source,
        }),
        Err(TextFileError::IsDirectory) => Err(ShotError::Io {
            path: path.to_path_buf(),
            source: std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("is a folder, not a {what}"),
            ),
        }),
        Err(TextFileError::TooLarge { size, limit }) => Err(ShotError::TooLarge {
            path: path.to_path_buf(),
            what,
            size,
            limit,
        }),
        Err(TextFileError::Binary { line }) => Err(ShotError::Binary {
            path: path.to_path_buf(),
            line,
            what,
        }),
    }
}

/// A manifest entry and its file, when it exists.
type Row = (ManifestEntry, Option<PathBuf>);

/// Warns when two sources disagree on the rate by more than rounding.
fn note_disagreement(
    chosen: (FrameRate, FpsSource),
    other: Option<(FrameRate, FpsSource)>,
    diags: &mut Vec<Diagnostic>,
) {
    if let Some((rate, source)) = other {
        let (a, b) = (chosen.0.as_f64(), rate.as_f64());
        if (a - b).abs() > 1e-4 * a.max(b) {
            diags.push(Diagnostic::warning(
                0,
                format!(
                    "{} says {} fps but {} says {} fps; using {}",
                    source.describe(),
                    b,
                    chosen.1.describe(),
                    a,
                    chosen.1.describe()
                ),
            ));
        }
    }
}

impl ShotList {
    /// Builds a list from parsed shot-file lines. Out-of-order lines are put in
    /// order of start (diagnosed); a shot overlapping an earlier one is
    /// diagnosed and skipped. Keyframes are looked up in `keyframes`; each shot
    /// missing some gets one diagnostic.
    pub fn from_shot_lines(
        film_id: impl Into<String>,
        frame_rate: FrameRate,
        fps_source: FpsSource,
        parsed: ParsedShots,
        keyframes: &KeyframeDir,
    ) -> ShotList {
        let mut diagnostics = parsed.diagnostics;
        let mut lines = parsed.shots;
        let mut out_of_order = false;
        for w in lines.windows(2) {
            if w[1].start_frame < w[0].start_frame {
                out_of_order = true;
                diagnostics.push(Diagnostic::warning(
                    w[1].line,
                    format!(
                        "the shot starts at frame {}, before the shot on line {} (frame {}); shots are put in order of start",
                        w[1].start_frame, w[0].line, w[0].start_frame
                    ),
                ));
            }
        }
        if out_of_order {
            lines.sort_by_key(|l| l.start_frame);
        }
        let mut shots: Vec<Shot> = Vec::with_capacity(lines.len());
        let mut last: Option<(usize, u64, u64)> = None;
        for l in lines {
            if let Some((line, start, end)) = last {
                if l.start_frame <= end {
                    diagnostics.push(Diagnostic::warning(
                        l.line,
                        format!(
                            "frames {}–{} overlap the shot on line {line} (frames {start}–{end}); skipped",
                            l.start_frame, l.end_frame
                        ),
                    ));
                    continue;
                }
            }
            last = Some((l.line, l.start_frame, l.end_frame));
            let slots = if l.keyframe_frames.is_empty() {
                3
            } else {
                l.keyframe_frames.len()
            };
            let mut found = Vec::with_capacity(slots);
            let mut missing = Vec::new();
            for slot in 0..slots {
                match keyframes.find(l.index, slot) {
                    Some(path) => found.push(Keyframe {
                        slot,
                        frame: l.keyframe_frames.get(slot).copied(),
                        path,
                    }),
                    None => missing.push(format!("shot_{:04}_img_{slot}", l.index)),
                }
            }
            if let (Some(dir), false) = (keyframes.dir(), missing.is_empty()) {
                diagnostics.push(Diagnostic::warning(
                    l.line,
                    format!(
                        "shot {}: no keyframe file {} (.jpg or .png, `img_N` or `imgN`) in {}",
                        l.index,
                        missing.join(", "),
                        dir.display()
                    ),
                ));
            }
            shots.push(Shot {
                index: l.index,
                start_frame: l.start_frame,
                end_frame: l.end_frame,
                start_ms: frame_rate.frame_to_ms(l.start_frame),
                end_ms: frame_rate.frame_to_ms(l.end_frame.saturating_add(1)),
                keyframe_frames: l.keyframe_frames,
                keyframes: found,
                lines: LineSpan::line(l.line),
            });
        }
        ShotList::assemble(film_id.into(), frame_rate, fps_source, shots, diagnostics)
    }

    /// The list from its parts, diagnostics in line order (stable) and no source yet.
    fn assemble(
        film_id: String,
        frame_rate: FrameRate,
        fps_source: FpsSource,
        shots: Vec<Shot>,
        mut diagnostics: Vec<Diagnostic>,
    ) -> ShotList {
        diagnostics.sort_by_key(|d| d.line);
        ShotList {
            film_id,
            fps: frame_rate.as_f64(),
            frame_rate,
            fps_source,
            source: None,
            shots,
            diagnostics,
        }
    }

    /// Builds a list from a parsed manifest.
    ///
    /// Each keyframe starts a shot that lasts until the next keyframe's frame
    /// (the last one until the film's end — the manifest's `duration_ms`, else
    /// the `duration_ms` argument — or for one frame): a keyframe stands for
    /// what is on screen from its time until the next, so every moment between
    /// the first keyframe and the end belongs to a shot and a time query never
    /// falls between samples. Keyframes in the same frame share one shot.
    /// Entries are put in time order (diagnosed when they were not).
    ///
    /// The rate is `fps` when given, else the manifest's own, else the
    /// millisecond clock. `resolve` decides what each path is on disk
    /// ([`manifest::confine`] for real files): a refused path drops its row, a
    /// missing file keeps the row's time without a keyframe.
    pub fn from_manifest(
        film_id: impl Into<String>,
        manifest: Manifest,
        fps: Option<(FrameRate, FpsSource)>,
        duration_ms: Option<u64>,
        mut resolve: impl FnMut(&ManifestEntry) -> Resolution,
    ) -> ShotList {
        let mut diagnostics = manifest.diagnostics;
        let (frame_rate, fps_source) = match (fps, manifest.fps) {
            (Some(chosen), own) => {
                note_disagreement(
                    chosen,
                    own.map(|r| (r, FpsSource::Manifest)),
                    &mut diagnostics,
                );
                chosen
            }
            (None, Some(own)) => (own, FpsSource::Manifest),
            (None, None) => (FrameRate::MILLISECONDS, FpsSource::Manifest),
        };
        let duration_ms = manifest.duration_ms.or(duration_ms);
        let mut rows: Vec<Row> = Vec::new();
        for entry in manifest.entries {
            match resolve(&entry) {
                Resolution::Found(path) => rows.push((entry, Some(path))),
                Resolution::Missing(why) => {
                    diagnostics.push(Diagnostic::warning(
                        entry.line,
                        format!("{why}; its time still starts a shot"),
                    ));
                    rows.push((entry, None));
                }
                Resolution::Refused(why) => diagnostics.push(Diagnostic::warning(entry.line, why)),
            }
        }
        let mut out_of_order = false;
        for w in rows.windows(2) {
            if w[1].0.time_ms < w[0].0.time_ms {
                out_of_order = true;
                diagnostics.push(Diagnostic::info(
                    w[1].0.line,
                    format!(
                        "time {} ms comes before line {}'s ({} ms); keyframes are put in time order",
                        w[1].0.time_ms, w[0].0.line, w[0].0.time_ms
                    ),
                ));
            }
        }
        if out_of_order {
            rows.sort_by_key(|(e, _)| e.time_ms);
        }
        // Group rows by the frame their time falls in.
        let mut groups: Vec<(u64, Vec<Row>)> = Vec::new();
        for (entry, path) in rows {
            let frame = frame_rate.ms_to_frame(entry.time_ms);
            match groups.last_mut() {
                Some((f, members)) if *f == frame => members.push((entry, path)),
                _ => groups.push((frame, vec![(entry, path)])),
            }
        }
        let next_starts: Vec<Option<u64>> = groups
            .iter()
            .skip(1)
            .map(|(f, _)| Some(*f))
            .chain([None])
            .collect();
        let mut shots = Vec::with_capacity(groups.len());
        for (index, ((frame, members), next)) in groups.into_iter().zip(next_starts).enumerate() {
            let end_frame = match (next, duration_ms) {
                (Some(next), _) => next - 1,
                (None, Some(d)) => {
                    let last = frame_rate.ms_to_frame(d.saturating_sub(1));
                    if d > 0 && last >= frame {
                        last
                    } else {
                        diagnostics.push(Diagnostic::warning(
                            0,
                            format!("the film's duration ({d} ms) ends before its last keyframe; the last shot lasts one frame"),
                        ));
                        frame
                    }
                }
                (None, None) => frame,
            };
            let first_line = members.iter().map(|(e, _)| e.line).min().unwrap_or(0);
            let last_line = members.iter().map(|(e, _)| e.line).max().unwrap_or(0);
            let keyframes = members
                .iter()
                .enumerate()
                .filter_map(|(slot, (_, path))| {
                    path.clone().map(|path| Keyframe {
                        slot,
                        frame: Some(frame),
                        path,
                    })
                })
                .collect();
            shots.push(Shot {
                index,
                start_frame: frame,
                end_frame,
                keyframe_frames: vec![frame; members.len()],
                start_ms: frame_rate.frame_to_ms(frame),
                end_ms: frame_rate.frame_to_ms(end_frame.saturating_add(1)),
                keyframes,
                lines: LineSpan::new(first_line, last_line),
            });
        }
        ShotList::assemble(film_id.into(), frame_rate, fps_source, shots, diagnostics)
    }

    /// Reads a MovieNet-layout film. The frame rate is `fps` when given, else
    /// `video_info.json`'s, else the stats CSV's; sources that disagree are
    /// diagnosed. With none, the error says how to give one.
    pub fn load_movienet(
        paths: &MovieNetPaths,
        fps: Option<FrameRate>,
    ) -> Result<ShotList, ShotError> {
        let mut diags = Vec::new();
        let info = paths
            .video_info
            .as_deref()
            .map(|p| read_video_info(p, &mut diags))
            .unwrap_or_default();
        let stats = paths
            .stats_csv
            .as_deref()
            .and_then(|p| read_stats_rate(p, &mut diags));
        let candidates = [
            fps.map(|r| (r, FpsSource::Flag)),
            info.rate.map(|r| (r, FpsSource::VideoInfo)),
            stats.map(|r| (r, FpsSource::StatsCsv)),
        ];
        let Some(chosen) = candidates.iter().flatten().next().copied() else {
            let mut hint = format!(
                "give one with --fps (e.g. --fps 24 or --fps 24000/1001), or write {{\"fps\": 24}} to video_info.json in the film's folder, or put MovieNet's stats CSV (first line `Frame Rate:,24`) at shot_stats/{}.csv",
                paths.film_id
            );
            for d in &diags {
                hint.push_str("; ");
                hint.push_str(&d.message);
            }
            return Err(ShotError::NoFrameRate {
                path: paths.shot_txt.clone(),
                film_id: paths.film_id.clone(),
                hint,
            });
        };
        for other in candidates.iter().skip(1) {
            if other.is_some_and(|o| o.1 != chosen.1) {
                note_disagreement(chosen, *other, &mut diags);
            }
        }
        let text = read_text(&paths.shot_txt, "shot list", MAX_FILE_BYTES)?;
        if text.is_none() {
            diags.push(Diagnostic::warning(
                0,
                format!("{}: the shot list is empty", paths.shot_txt.display()),
            ));
        }
        let parsed = parse_shot_txt(text.as_deref().unwrap_or(""));
        let keyframes = match &paths.keyframe_dir {
            Some(dir) => match KeyframeDir::scan(dir) {
                Ok(k) => k,
                Err(e) => {
                    diags.push(Diagnostic::warning(
                        0,
                        format!(
                            "{}: cannot list keyframes ({e}); shots have no keyframes",
                            dir.display()
                        ),
                    ));
                    KeyframeDir::none()
                }
            },
            None => {
                diags.push(Diagnostic::warning(
                    0,
                    "no keyframe folder given (--keyframes DIR); shots have no keyframes",
                ));
                KeyframeDir::none()
            }
        };
        let mut list = ShotList::from_shot_lines(
            paths.film_id.clone(),
            chosen.0,
            chosen.1,
            parsed,
            &keyframes,
        );
        diags.append(&mut list.diagnostics);
        list.diagnostics = diags;
        list.source = Some(paths.shot_txt.clone());
        Ok(list)
    }

    /// Reads a keyframe manifest (CSV or JSON, by extension or content). Its
    /// paths are relative to `film_dir` (default: the manifest's folder) and
    /// may not leave it: absolute paths, `..` and symlinks that resolve outside
    /// are refused with a diagnostic naming the line, and never opened. The
    /// frame rate is `fps` when given, else the manifest's, else
    /// `video_info.json`'s in the film folder, else the millisecond clock; the
    /// last shot ends at the manifest's or `video_info.json`'s `duration_ms`.
    pub fn load_manifest(
        path: &Path,
        film_dir: Option<&Path>,
        fps: Option<FrameRate>,
    ) -> Result<ShotList, ShotError> {
        let dir = match film_dir {
            Some(d) => d.to_path_buf(),
            None => match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                _ => PathBuf::from("."),
            },
        };
        let root = dir.canonicalize().map_err(|source| ShotError::Io {
            path: dir.clone(),
            source,
        })?;
        let text = read_text(path, "keyframe manifest", MAX_FILE_BYTES)?;
        let mut diags = Vec::new();
        let parsed =
            match &text {
                Some(text) => parse_manifest(text, ManifestFormat::detect(Some(path), text))
                    .map_err(|e| ShotError::Manifest {
                        path: path.to_path_buf(),
                        line: e.line,
                        column: e.column,
                        message: e.message,
                    })?,
                None => {
                    diags.push(Diagnostic::warning(
                        0,
                        format!("{}: the manifest is empty", path.display()),
                    ));
                    Manifest::default()
                }
            };
        let info_path = root.join("video_info.json");
        let info = if info_path.is_file() {
            read_video_info(&info_path, &mut diags)
        } else {
            VideoInfo::default()
        };
        let rate = fps
            .map(|r| (r, FpsSource::Flag))
            .or(match (parsed.fps, info.rate) {
                (None, Some(r)) => Some((r, FpsSource::VideoInfo)),
                _ => None,
            });
        let film_id = root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut list = ShotList::from_manifest(film_id, parsed, rate, info.duration_ms, |e| {
            manifest::confine(&root, &e.path)
        });
        diags.append(&mut list.diagnostics);
        list.diagnostics = diags;
        list.source = Some(path.to_path_buf());
        Ok(list)
    }

    /// `frame_to_ms` at this list's rate: the first whole millisecond of `frame`.
    pub fn frame_to_ms(&self, frame: u64) -> u64 {
        self.frame_rate.frame_to_ms(frame)
    }

    /// `ms_to_frame` at this list's rate: the frame on screen at `ms`.
    pub fn ms_to_frame(&self, ms: u64) -> u64 {
        self.frame_rate.ms_to_frame(ms)
    }

    /// The shots that share at least one millisecond with `[start_ms, end_ms)`,
    /// in order; empty when `end_ms <= start_ms`. Two binary searches.
    pub fn shots_overlapping(&self, start_ms: u64, end_ms: u64) -> &[Shot] {
        if end_ms <= start_ms {
            return &[];
        }
        let lo = self.shots.partition_point(|s| s.end_ms <= start_ms);
        let hi = self.shots.partition_point(|s| s.start_ms < end_ms);
        self.shots.get(lo..hi).unwrap_or(&[])
    }

    /// The shot on screen at `ms`, if any.
    pub fn shot_at(&self, ms: u64) -> Option<&Shot> {
        self.shots_overlapping(ms, ms.saturating_add(1)).first()
    }

    /// At most `max` keyframes that show `[start_ms, end_ms)`, in time order,
    /// spread evenly over the overlapped shots that have keyframes.
    ///
    /// With at least `max` such shots, `max` shots evenly spaced among them
    /// give one keyframe each. With fewer, every shot gives one, and the
    /// remaining places go to second (then third …) keyframes, again spread
    /// evenly. Within a shot, a keyframe whose frame lies inside the interval
    /// comes first, then the one nearest the middle slot (MovieNet's `img_1`).
    pub fn representative_keyframes(
        &self,
        start_ms: u64,
        end_ms: u64,
        max: usize,
    ) -> Vec<&Keyframe> {
        let shots: Vec<&Shot> = self
            .shots_overlapping(start_ms, end_ms)
            .iter()
            .filter(|s| !s.keyframes.is_empty())
            .collect();
        if max == 0 || shots.is_empty() {
            return Vec::new();
        }
        let ranked: Vec<Vec<&Keyframe>> = shots
            .iter()
            .map(|s| self.ranked_keyframes(s, start_ms, end_ms))
            .collect();
        let mut chosen: Vec<(usize, &Keyframe)> = Vec::new();
        let mut eligible: Vec<usize> = (0..shots.len()).collect();
        let mut rank = 0;
        while chosen.len() < max && !eligible.is_empty() {
            let want = max - chosen.len();
            let n = eligible.len();
            if n <= want {
                chosen.extend(eligible.iter().map(|&p| (p, ranked[p][rank])));
            } else {
                chosen.extend((0..want).map(|i| {
                    let p = eligible[(2 * i + 1) * n / (2 * want)];
                    (p, ranked[p][rank])
                }));
            }
            rank += 1;
            eligible.retain(|&p| ranked[p].len() > rank);
        }
        chosen.sort_by_key(|(p, k)| (*p, k.slot));
        chosen.into_iter().map(|(_, k)| k).collect()
    }

    /// A shot's keyframes, best first: inside the interval, then nearest the
    /// middle slot, then earlier.
    fn ranked_keyframes<'a>(
        &self,
        shot: &'a Shot,
        start_ms: u64,
        end_ms: u64,
    ) -> Vec<&'a Keyframe> {
        let middle2 = shot.slot_count().saturating_sub(1);
        let mut ranked: Vec<&Keyframe> = shot.keyframes.iter().collect();
        ranked.sort_by_key(|k| {
            let inside = k.frame.is_none_or(|f| {
                let ms = self.frame_to_ms(f);
                start_ms <= ms && ms < end_ms
            });
            (!inside, k.slot.saturating_mul(2).abs_diff(middle2), k.slot)
        });
        ranked
    }
}

#[cfg(test)]
mod tests;
