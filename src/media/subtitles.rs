//! Subtitles: SubRip (`.srt`) and WebVTT (`.vtt`) files read into timed cues
//! (the pipeline in ARCHITECTURE.md), the film-side text the aligner matches dialogue to.
//!
//! Bytes go through the shared decoder ([`crate::text::decode`]:
//! BOMs, UTF-16, Windows-1252, newline normalisation, binary and empty
//! refusal), then through one of two readers that share the timestamp parser
//! and the text cleaner. Like the screenplay readers, they never fail on
//! text: a malformed cue becomes a [`Diagnostic`] with its line and is
//! skipped, and only a file with no usable cue at all is a
//! [`SubtitleError`].
//!
//! Choices where the formats are loose or real files stray from them:
//!
//! - A line is a timing line when it starts with a digit and contains `-->`;
//!   a candidate that does not parse starts a block that is skipped with a
//!   warning, rather than being read as text. Timestamps may omit hours, use
//!   `,` or `.` before the fraction, and have 1–3 fraction digits, which are
//!   read as a count of milliseconds (`00:00:01,5` is 1.005 s), as ffmpeg and
//!   mpv read them; anything after the end time (SRT `X1:… Y2:…`
//!   coordinates, WebVTT cue settings) is kept in [`Cue::settings`].
//! - SRT: a cue runs until the next number-plus-timing (or a bare timing
//!   line), so blank lines inside a cue's text do not split it; but a blank
//!   line followed by a bare number starts a block whose timing line is
//!   missing, which is skipped with a warning. Numbers out of order or
//!   repeated are kept in file order and diagnosed.
//! - WebVTT follows the spec's blocks: a blank line ends a cue, an identifier
//!   is the line before the timing, and `NOTE`, `STYLE` and `REGION` blocks
//!   are skipped. A missing `WEBVTT` header is a warning, not a failure.
//! - Display text: tags known to SRT and WebVTT (`<i> <b> <u> <s> <font …>
//!   <c.…> <v …> <lang …> <ruby> <rt> <span>`), timestamp tags and ASS
//!   override blocks (`{\an8}`) are removed, ruby readings (`<rt>…</rt>`)
//!   are left out, `\N` breaks the line, entities are decoded, and lines left
//!   empty are dropped. A `<` that does not open a known tag stays as written.
//! - Turns: a line that starts with a speaker dash starts a new turn; a
//!   WebVTT voice span (`<v Mara>`) names the turn's speaker, and a change of
//!   voice starts a new turn.
//!
//! Everything runs in time linear in the input and never panics (the `srt`
//! and `vtt` fuzz targets check this and the invariants on [`Cue`]).

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::text::decode::{self, SourceEncoding, TextFileError};
use crate::text::source::{Diagnostic, LineSpan};

mod markup;
mod normalize;
mod reader;
#[cfg(test)]
mod tests;
mod timing;

pub use normalize::{normalize_for_matching, Normalized};

use reader::Reader;
use timing::{is_webvtt_signature, LineKind};

/// Largest subtitle file accepted. A feature's subtitles are 50–200 KB; a file
/// this size is not one.
pub const MAX_FILE_BYTES: u64 = 32 * 1024 * 1024;

/// A subtitle file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SubtitleFormat {
    /// SubRip: numbered blocks with `HH:MM:SS,mmm --> HH:MM:SS,mmm` timings.
    Srt,
    /// WebVTT (W3C): a `WEBVTT` header, then cues, notes, styles and regions.
    #[serde(rename = "webvtt")]
    WebVtt,
}

impl SubtitleFormat {
    /// The name used on the command line and in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            SubtitleFormat::Srt => "srt",
            SubtitleFormat::WebVtt => "webvtt",
        }
    }

    /// Guesses the format from a file name and its text: a `WEBVTT` first
    /// line (after a BOM and blank lines) or a `.vtt` extension means WebVTT,
    /// anything else SubRip. The content wins over a misleading `.srt` name.
    pub fn detect(path: Option<&Path>, text: &str) -> SubtitleFormat {
        if is_webvtt_signature(text.trim_start_matches('\u{feff}').trim_start()) {
            return SubtitleFormat::WebVtt;
        }
        let ext = path
            .and_then(|p| p.extension())
            .and_then(|e| e.to_str())
            .map(|e| e.to_ascii_lowercase());
        match ext.as_deref() {
            Some("vtt") | Some("webvtt") => SubtitleFormat::WebVtt,
            _ => SubtitleFormat::Srt,
        }
    }
}

impl std::fmt::Display for SubtitleFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for SubtitleFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "srt" | "subrip" => Ok(SubtitleFormat::Srt),
            "vtt" | "webvtt" => Ok(SubtitleFormat::WebVtt),
            other => Err(format!(
                "unknown subtitle format `{other}` (expected srt or webvtt)"
            )),
        }
    }
}

/// One speaker's part of a cue: the whole cue, or one of the lines after a
/// speaker dash (`- Where?` / `- Here.`), or one WebVTT voice span.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Turn {
    /// The speaker named by a WebVTT voice span (`<v Mara>` gives `Mara`), as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speaker: Option<String>,
    /// The words, markup and speaker dash removed; the cue's display lines
    /// within the turn are joined with one space, since line breaks in a
    /// subtitle are layout, not speech.
    pub text: String,
}

/// One timed subtitle cue.
///
/// Invariants (checked by the fuzz targets): `start_ms <= end_ms`; `text` is
/// not empty and `turns` has at least one turn; `lines` lies within the input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cue {
    /// 1-based position among the cues kept, in file order.
    pub index: usize,
    /// The SRT number or WebVTT identifier as written (trimmed), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Start on the film's clock, in milliseconds.
    pub start_ms: u64,
    /// End on the film's clock, in milliseconds (the cue is shown until then).
    pub end_ms: u64,
    /// Display text: markup removed, entities decoded, lines trimmed and
    /// joined with `\n`, speaker dashes kept as shown on screen.
    pub text: String,
    /// The cue's text lines exactly as in the file (markup and blank lines
    /// inside kept), joined with `\n`.
    pub raw: String,
    /// What followed the end time on the timing line: WebVTT cue settings
    /// (`align:start position:10%`) or SRT coordinates (`X1:40 X2:600 …`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<String>,
    /// Source lines, from the number or identifier to the last text line.
    pub lines: LineSpan,
    /// The speakers' parts, in order; one turn when the cue has no dashes or voices.
    pub turns: Vec<Turn>,
}

impl Cue {
    /// How long the cue is shown, in milliseconds.
    pub fn duration_ms(&self) -> u64 {
        // Saturating: a `Cue` built or deserialized elsewhere may break the invariant.
        self.end_ms.saturating_sub(self.start_ms)
    }
}

/// A subtitle file read into cues.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Subtitles {
    /// The file it was read from, when it came from a file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<PathBuf>,
    /// The format it was read as.
    pub format: SubtitleFormat,
    /// The encoding its bytes were in (`UTF-8`, `UTF-16LE`, `Windows-1252`, …).
    pub encoding: String,
    /// The usable cues, in file order (not re-sorted by time).
    pub cues: Vec<Cue>,
    /// Problems found while reading, each with its line.
    pub diagnostics: Vec<Diagnostic>,
}

/// Why a file could not be read as subtitles at all.
#[derive(Debug, thiserror::Error)]
pub enum SubtitleError {
    /// The file could not be opened or read.
    #[error("{path}: cannot read: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },
    /// The file is larger than any subtitle file.
    #[error("{path}: {size} bytes is too large for a subtitle file (limit {limit} bytes); is this the right file?")]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size in bytes.
        size: u64,
        /// [`MAX_FILE_BYTES`].
        limit: u64,
    },
    /// The file holds no text.
    #[error("{path}: the file is empty")]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// The file is not text (control bytes no text file holds).
    #[error("{path}:{line}: not a text file (binary data at line {line}); expected SRT or WebVTT subtitles")]
    Binary {
        /// The file.
        path: PathBuf,
        /// First line with binary data.
        line: usize,
    },
    /// The file is text, but not one cue in it could be used.
    #[error("{path}:{line}: no usable {format} cue in the file: {reason}")]
    NothingUsable {
        /// The file.
        path: PathBuf,
        /// The format it was read as.
        format: SubtitleFormat,
        /// The line of the first problem found (1 when there was none).
        line: usize,
        /// The first problem found, or why there was nothing to read.
        reason: String,
        /// Every problem found while reading.
        diagnostics: Vec<Diagnostic>,
    },
}

/// Reads subtitle text as `format`. Never fails: the result may hold no cues,
/// and problems are in its diagnostics. Line ends may be LF, CRLF or CR; a
/// leading BOM is ignored. `encoding` is set to `UTF-8`.
pub fn read(text: &str, format: SubtitleFormat) -> Subtitles {
    // The readers see LF only, so line numbers are the ones an editor shows.
    let text: Cow<str> = if text.contains('\r') {
        Cow::Owned(decode::normalize_newlines(text.to_string()))
    } else {
        Cow::Borrowed(text)
    };
    let mut lines: Vec<&str> = text.split('\n').collect();
    if let Some(first) = lines.first_mut() {
        *first = first.strip_prefix('\u{feff}').unwrap_or(first);
    }
    let kinds: Vec<LineKind> = lines.iter().map(|l| LineKind::of(l)).collect();
    let mut reader = Reader {
        lines: &lines,
        kinds: &kinds,
        cues: Vec::new(),
        diagnostics: Vec::new(),
        short_fraction_noted: false,
    };
    match format {
        SubtitleFormat::Srt => reader.srt(),
        SubtitleFormat::WebVtt => reader.vtt(),
    }
    for (i, cue) in reader.cues.iter_mut().enumerate() {
        cue.index = i + 1;
    }
    // Found cue by cue, reported in line order (stable: one line's stay in order).
    reader.diagnostics.sort_by_key(|d| d.line);
    Subtitles {
        source: None,
        format,
        encoding: "UTF-8".to_string(),
        cues: reader.cues,
        diagnostics: reader.diagnostics,
    }
}

/// Parses subtitle text already in memory; `format` is detected when `None`.
/// `path` is used for messages and format detection only.
pub fn parse_text(
    text: &str,
    format: Option<SubtitleFormat>,
    path: Option<&Path>,
) -> Result<Subtitles, SubtitleError> {
    let display = || {
        path.map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("<input>"))
    };
    if text.trim_start_matches('\u{feff}').trim().is_empty() {
        return Err(SubtitleError::Empty { path: display() });
    }
    let format = format.unwrap_or_else(|| SubtitleFormat::detect(path, text));
    let mut subs = read(text, format);
    if subs.cues.is_empty() {
        let first = subs
            .diagnostics
            .iter()
            .find(|d| d.severity == crate::text::source::Severity::Warning)
            .or(subs.diagnostics.first());
        let (line, reason) = match first {
            Some(d) => (d.line, d.message.clone()),
            None => (
                1,
                "no cue timing (`00:00:01,000 --> 00:00:02,000`) found".to_string(),
            ),
        };
        return Err(SubtitleError::NothingUsable {
            path: display(),
            format,
            line,
            reason,
            diagnostics: subs.diagnostics,
        });
    }
    subs.source = path.map(Path::to_path_buf);
    Ok(subs)
}

/// Parses subtitle bytes: decodes them (BOM, UTF-16, Windows-1252), then parses.
pub fn parse_bytes(
    bytes: &[u8],
    format: Option<SubtitleFormat>,
    path: &Path,
) -> Result<Subtitles, SubtitleError> {
    let decoded = decode::decode(bytes).map_err(TextFileError::from);
    parse_decoded(decoded, format, path)
}

/// Reads and parses a subtitle file, refusing files over [`MAX_FILE_BYTES`]
/// before reading them.
pub fn parse_file(path: &Path, format: Option<SubtitleFormat>) -> Result<Subtitles, SubtitleError> {
    parse_decoded(decode::read_text_file(path, MAX_FILE_BYTES), format, path)
}

/// Parses decoded text, or turns the reason there is none into a [`SubtitleError`].
fn parse_decoded(
    decoded: Result<(String, SourceEncoding), TextFileError>,
    format: Option<SubtitleFormat>,
    path: &Path,
) -> Result<Subtitles, SubtitleError> {
    let (text, encoding) = decoded.map_err(|e| e.for_file(path, "subtitle file"))?;
    let mut subs = parse_text(&text, format, Some(path))?;
    subs.encoding = encoding.name().to_string();
    Ok(subs)
}

impl decode::FileErrors for SubtitleError {
    fn io(path: PathBuf, source: std::io::Error) -> Self {
        SubtitleError::Io { path, source }
    }
    fn too_large(path: PathBuf, size: u64, limit: u64) -> Self {
        SubtitleError::TooLarge { path, size, limit }
    }
    fn empty(path: PathBuf) -> Self {
        SubtitleError::Empty { path }
    }
    fn binary(path: PathBuf, line: usize) -> Self {
        SubtitleError::Binary { path, line }
    }
}

/// Formats milliseconds as `HH:MM:SS.mmm` (hours grow past two digits when needed).
pub fn format_ms(ms: u64) -> String {
    let (h, rest) = (ms / 3_600_000, ms % 3_600_000);
    let (m, rest) = (rest / 60_000, rest % 60_000);
    let (s, f) = (rest / 1000, rest % 1000);
    format!("{h:02}:{m:02}:{s:02}.{f:03}")
}
