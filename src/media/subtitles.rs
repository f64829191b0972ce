//! Subtitles: SubRip (`.srt`) and WebVTT (`.vtt`) files read into timed cues
//! (DESIGN.md §1, step 2), the film-side text the aligner matches dialogue to.
//!
//! Bytes go through the screenplay decoder ([`crate::screenplay::decode`]:
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
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::screenplay::decode::{self, NotText};
use crate::screenplay::{Diagnostic, LineSpan};

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
            .find(|d| d.severity == crate::screenplay::Severity::Warning)
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
    let (text, encoding) = match decode::decode(bytes) {
        Ok(ok) => ok,
        Err(NotText::Empty) => {
            return Err(SubtitleError::Empty {
                path: path.to_path_buf(),
            })
        }
        Err(NotText::Binary { line }) => {
            return Err(SubtitleError::Binary {
                path: path.to_path_buf(),
                line,
            })
        }
    };
    let mut subs = parse_text(&text, format, Some(path))?;
    subs.encoding = encoding.name().to_string();
    Ok(subs)
}

/// Reads and parses a subtitle file, refusing files over [`MAX_FILE_BYTES`]
/// before reading them.
pub fn parse_file(path: &Path, format: Option<SubtitleFormat>) -> Result<Subtitles, SubtitleError> {
    let io = |source| SubtitleError::Io {
        path: path.to_path_buf(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    if meta.is_dir() {
        return Err(io(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "is a directory, not a subtitle file",
        )));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(SubtitleError::TooLarge {
            path: path.to_path_buf(),
            size: meta.len(),
            limit: MAX_FILE_BYTES,
        });
    }
    let bytes = std::fs::read(path).map_err(io)?;
    parse_bytes(&bytes, format, path)
}

/// Formats milliseconds as `HH:MM:SS.mmm` (hours grow past two digits when needed).
pub fn format_ms(ms: u64) -> String {
    let (h, rest) = (ms / 3_600_000, ms % 3_600_000);
    let (m, rest) = (rest / 60_000, rest % 60_000);
    let (s, f) = (rest / 1000, rest % 1000);
    format!("{h:02}:{m:02}:{s:02}.{f:03}")
}

// ---------------------------------------------------------------------------
// Line classification and timestamps

/// What one source line is, as far as block structure goes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum LineKind {
    Blank,
    /// Only digits (an SRT cue number, or text that happens to be a number).
    Number,
    Timing(Timing),
    /// Starts with a digit and contains `-->`, but does not parse; the reason.
    BadTiming(String),
    Text,
}

impl LineKind {
    fn of(line: &str) -> LineKind {
        let t = line.trim();
        if t.is_empty() {
            LineKind::Blank
        } else if t.bytes().all(|b| b.is_ascii_digit()) {
            LineKind::Number
        } else if t.as_bytes()[0].is_ascii_digit() && t.contains("-->") {
            match parse_timing(t) {
                Ok(timing) => LineKind::Timing(timing),
                Err(reason) => LineKind::BadTiming(reason),
            }
        } else {
            LineKind::Text
        }
    }

    fn is_timing(&self) -> bool {
        matches!(self, LineKind::Timing(_) | LineKind::BadTiming(_))
    }
}

/// A parsed timing line.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Timing {
    start: u64,
    end: u64,
    /// What follows the end time, trimmed; empty when nothing.
    settings: String,
    /// Some timestamp had fewer than three fraction digits.
    short_fraction: bool,
}

fn parse_timing(t: &str) -> Result<Timing, String> {
    let Some((left, right)) = t.split_once("-->") else {
        return Err("no `-->` between the times".into());
    };
    let left = left.trim();
    let (start, short_start) =
        parse_time_token(left).map_err(|e| format!("start time `{}`: {e}", quote(left)))?;
    let right = right.trim_start();
    let end_len = right.find(char::is_whitespace).unwrap_or(right.len());
    let (token, settings) = right.split_at(end_len);
    let (end, short_end) =
        parse_time_token(token).map_err(|e| format!("end time `{}`: {e}", quote(token)))?;
    Ok(Timing {
        start,
        end,
        settings: settings.trim().to_string(),
        short_fraction: short_start || short_end,
    })
}

/// A whole token that must be one timestamp; see [`parse_timestamp`].
fn parse_time_token(token: &str) -> Result<(u64, bool), String> {
    match parse_timestamp(token)? {
        (ms, "", short) => Ok((ms, short)),
        _ => Err("not a time of the form `HH:MM:SS,mmm`".into()),
    }
}

/// Parses `[H…:]MM:SS[,.]f{1,3}` (fraction optional) at the start of `s`;
/// returns milliseconds, the rest of `s`, and whether the fraction was short.
fn parse_timestamp(s: &str) -> Result<(u64, &str, bool), String> {
    fn digits(s: &str) -> (&str, &str) {
        let n = s.bytes().take_while(u8::is_ascii_digit).count();
        s.split_at(n)
    }
    let mut groups: Vec<&str> = Vec::with_capacity(3);
    let mut rest = s;
    loop {
        let (d, r) = digits(rest);
        if d.is_empty() {
            return Err(if groups.is_empty() {
                "not a time".into()
            } else {
                "missing digits after `:`".into()
            });
        }
        groups.push(d);
        rest = r;
        if groups.len() < 3
            && rest.starts_with(':')
            && rest[1..].starts_with(|c: char| c.is_ascii_digit())
        {
            rest = &rest[1..];
        } else {
            break;
        }
    }
    if rest.starts_with(':') {
        return Err("not a time of the form `HH:MM:SS,mmm`".into());
    }
    let (h, m, sec) = match groups[..] {
        [m, s] => ("0", m, s),
        [h, m, s] => (h, m, s),
        _ => return Err("expected minutes and seconds (`MM:SS.mmm`)".into()),
    };
    if h.len() > 9 {
        return Err("hours out of range".into());
    }
    if m.len() > 2 || sec.len() > 2 {
        return Err("minutes and seconds take at most two digits".into());
    }
    let num = |d: &str| d.parse::<u64>().unwrap_or(0);
    let (h, m, sec) = (num(h), num(m), num(sec));
    if m > 59 || sec > 59 {
        return Err("minutes and seconds must be below 60".into());
    }
    let mut ms = 0;
    let mut short = false;
    if let Some(r) = rest.strip_prefix([',', '.']) {
        let (f, r) = digits(r);
        if f.is_empty() {
            return Err("missing milliseconds after the separator".into());
        }
        if f.len() > 3 {
            return Err("more than three fraction digits".into());
        }
        ms = num(f);
        short = f.len() < 3;
        rest = r;
    }
    Ok((((h * 60 + m) * 60 + sec) * 1000 + ms, rest, short))
}

/// Input quoted in a diagnostic, cut at 40 characters: a message names the
/// problem, it does not repeat a megabyte of junk.
fn quote(s: &str) -> Cow<'_, str> {
    match s.char_indices().nth(40) {
        Some((at, _)) => Cow::Owned(format!("{}…", &s[..at])),
        None => Cow::Borrowed(s),
    }
}

fn is_webvtt_signature(line: &str) -> bool {
    line.strip_prefix("WEBVTT")
        .is_some_and(|r| r.is_empty() || r.starts_with([' ', '\t', '\n']))
}

/// `NOTE`, `STYLE` or `REGION` followed by whitespace or nothing.
fn is_vtt_non_cue_block(line: &str) -> bool {
    ["NOTE", "STYLE", "REGION"].iter().any(|k| {
        line.strip_prefix(k)
            .is_some_and(|r| r.is_empty() || r.starts_with([' ', '\t']))
    })
}

// ---------------------------------------------------------------------------
// The readers

struct Reader<'a> {
    lines: &'a [&'a str],
    kinds: &'a [LineKind],
    cues: Vec<Cue>,
    diagnostics: Vec<Diagnostic>,
    short_fraction_noted: bool,
}

impl Reader<'_> {
    fn srt(&mut self) {
        let n = self.lines.len();
        // Every cue starts at a timing line, or at the number line right before one.
        let mut heads: Vec<(usize, usize)> = Vec::new();
        for t in 0..n {
            if self.kinds[t].is_timing() {
                let head = if t > 0 && self.kinds[t - 1] == LineKind::Number {
                    t - 1
                } else {
                    t
                };
                heads.push((head, t));
            }
        }
        let first_head = heads.first().map_or(n, |h| h.0);
        self.stray(0..first_head, "before the first cue");

        let mut prev_number: Option<u64> = None;
        for (k, &(head, t)) in heads.iter().enumerate() {
            let next = heads.get(k + 1).map_or(n, |h| h.0);
            let id = (head < t).then(|| self.lines[head].trim().to_string());
            match id.as_deref().map(str::parse::<u64>) {
                Some(Ok(num)) => {
                    if let Some(prev) = prev_number {
                        if num == prev {
                            self.warn(
                                head,
                                format!(
                                    "cue number {num} repeats the one before (kept, in file order)"
                                ),
                            );
                        } else if num < prev {
                            self.warn(head, format!("cue number {num} comes after {prev}: out of order (kept, in file order)"));
                        }
                    }
                    prev_number = Some(num);
                }
                Some(Err(_)) => {} // a number too long for u64: nothing to compare
                None => self.info(t, "cue has no number".to_string()),
            }
            // A blank line then a bare number is a block whose timing line is
            // missing; it ends this cue's text.
            let mut end = next;
            let mut j = t + 1;
            while j + 1 < next {
                if self.kinds[j] == LineKind::Blank && self.kinds[j + 1] == LineKind::Number {
                    end = j;
                    let count = (j + 1..next)
                        .filter(|&i| self.kinds[i] != LineKind::Blank)
                        .count();
                    self.warn(
                        j + 1,
                        format!(
                            "block `{}` has no timing line; skipped ({count} line{})",
                            quote(self.lines[j + 1].trim()),
                            if count == 1 { "" } else { "s" }
                        ),
                    );
                    break;
                }
                j += 1;
            }
            self.cue(id, head, t, t + 1..end, true);
        }
    }

    fn vtt(&mut self) {
        let n = self.lines.len();
        let mut i = 0;
        while i < n && self.kinds[i] == LineKind::Blank {
            i += 1;
        }
        if i < n && is_webvtt_signature(self.lines[i]) {
            // The header runs to the first blank line; a timing line in it
            // starts the cues early rather than being lost.
            i += 1;
            while i < n && self.kinds[i] != LineKind::Blank && !self.kinds[i].is_timing() {
                i += 1;
            }
        } else {
            self.warn(
                i.min(n - 1),
                "no `WEBVTT` header; reading the cues anyway".to_string(),
            );
        }
        while i < n {
            if self.kinds[i] == LineKind::Blank {
                i += 1;
                continue;
            }
            let block_end = (i..n)
                .find(|&j| self.kinds[j] == LineKind::Blank)
                .unwrap_or(n);
            self.vtt_block(i, block_end);
            i = block_end;
        }
    }

    /// One run of non-blank lines: cues (an optional identifier line, a
    /// timing line, payload), or a note/style/region, or junk.
    fn vtt_block(&mut self, start: usize, end: usize) {
        let mut j = start;
        while j < end {
            let (id, t) = if self.kinds[j].is_timing() {
                (None, j)
            } else if j + 1 < end && self.kinds[j + 1].is_timing() {
                (Some(self.lines[j].trim().to_string()), j + 1)
            } else {
                if j == start && is_vtt_non_cue_block(self.lines[j]) {
                    return;
                }
                // The spec looks for the timing on a block's first two lines
                // only; what comes before a later one is dropped.
                let k = (j + 2..end)
                    .find(|&k| self.kinds[k].is_timing())
                    .unwrap_or(end);
                self.warn(
                    j,
                    format!(
                        "{} without a cue timing; skipped",
                        if k - j == 1 { "line" } else { "lines" }
                    ),
                );
                j = k;
                continue;
            };
            let payload_end = (t + 1..end)
                .find(|&k| self.kinds[k].is_timing())
                .unwrap_or(end);
            self.cue(id, j, t, t + 1..payload_end, false);
            j = payload_end;
        }
    }

    /// Reports non-blank lines in `range` that belong to no cue.
    fn stray(&mut self, range: Range<usize>, place: &str) {
        let mut stray = range.filter(|&i| self.kinds[i] != LineKind::Blank);
        if let Some(first) = stray.next() {
            let count = 1 + stray.count();
            self.warn(
                first,
                format!(
                    "{count} line{} of text {place} ignored",
                    if count == 1 { "" } else { "s" }
                ),
            );
        }
    }

    /// Builds the cue whose first line is `head`, timing line `t`, text lines
    /// `body` (blank lines at either end are trimmed off), or says why not.
    fn cue(&mut self, id: Option<String>, head: usize, t: usize, body: Range<usize>, srt: bool) {
        let timing = match &self.kinds[t] {
            LineKind::Timing(timing) => timing.clone(),
            LineKind::BadTiming(reason) => {
                self.warn(t, format!("malformed timing line ({reason}); cue skipped"));
                return;
            }
            _ => return,
        };
        if timing.short_fraction && !self.short_fraction_noted {
            self.short_fraction_noted = true;
            self.info(
                t,
                "time with fewer than three fraction digits read as milliseconds (`,5` is 5 ms), as players do".to_string(),
            );
        }
        let mut first = body.start;
        let mut last = body.end;
        while first < last && self.kinds[first] == LineKind::Blank {
            first += 1;
        }
        while last > first && self.kinds[last - 1] == LineKind::Blank {
            last -= 1;
        }
        let at = match &id {
            Some(id) if srt => format!("cue {}", quote(id)),
            Some(id) => format!("cue `{}`", quote(id)),
            None => "cue".to_string(),
        };
        if timing.end < timing.start {
            self.warn(
                t,
                format!(
                    "{at} ends ({}) before it starts ({}); skipped",
                    format_ms(timing.end),
                    format_ms(timing.start)
                ),
            );
            return;
        }
        if first == last {
            self.warn(t, format!("{at} has no text; skipped"));
            return;
        }
        if let Some(blank) = (first..last).find(|&i| self.kinds[i] == LineKind::Blank) {
            self.info(
                blank,
                format!("blank line inside the text of {at}; kept as one cue"),
            );
        }
        let body = &self.lines[first..last];
        let cleaned = clean(body);
        if cleaned.text.is_empty() {
            self.warn(t, format!("{at} has only markup, no text; skipped"));
            return;
        }
        if let Some(prev) = self.cues.last() {
            if timing.start < prev.start_ms {
                self.info(
                    t,
                    format!(
                        "{at} starts ({}) before the cue before it ({}); kept in file order",
                        format_ms(timing.start),
                        format_ms(prev.start_ms)
                    ),
                );
            }
        }
        self.cues.push(Cue {
            index: 0,
            id,
            start_ms: timing.start,
            end_ms: timing.end,
            text: cleaned.text,
            raw: body.join("\n"),
            settings: (!timing.settings.is_empty()).then_some(timing.settings),
            lines: LineSpan::new(head + 1, last),
            turns: cleaned.turns,
        });
    }

    fn warn(&mut self, index: usize, message: String) {
        self.diagnostics
            .push(Diagnostic::warning(index + 1, message));
    }

    fn info(&mut self, index: usize, message: String) {
        self.diagnostics.push(Diagnostic::info(index + 1, message));
    }
}

// ---------------------------------------------------------------------------
// Cue text: markup, entities, turns

struct Cleaned {
    text: String,
    turns: Vec<Turn>,
}

/// A turn being built: its speaker and words so far.
struct OpenTurn {
    speaker: Option<String>,
    text: String,
}

fn clean(lines: &[&str]) -> Cleaned {
    let mut display: Vec<String> = Vec::new();
    let mut turns: Vec<Turn> = Vec::new();
    let mut open: Option<OpenTurn> = None;
    let close = |open: &mut Option<OpenTurn>, turns: &mut Vec<Turn>| {
        if let Some(t) = open.take() {
            let text = t.text.split_whitespace().collect::<Vec<_>>().join(" ");
            if !text.is_empty() {
                turns.push(Turn {
                    speaker: t.speaker,
                    text,
                });
            }
        }
    };
    let mut markup = Markup::default();
    for line in lines.iter().flat_map(|l| l.split("\\N")) {
        let pieces = strip_markup(line, &mut markup);
        let full: String = pieces.iter().map(|p| p.1.as_str()).collect();
        let shown = full.trim();
        if shown.is_empty() {
            continue;
        }
        display.push(shown.to_string());

        // Bytes of leading whitespace and speaker dash to leave out of the turn.
        let lead = full.len() - full.trim_start().len();
        let dash = dash_len(shown);
        let mut skip = lead + dash.unwrap_or(0);
        if dash.is_some() {
            close(&mut open, &mut turns);
        }
        let mut first_piece = true;
        for (speaker, piece) in &pieces {
            let piece = if skip >= piece.len() {
                skip -= piece.len();
                continue;
            } else {
                let p = &piece[skip..];
                skip = 0;
                p
            };
            if piece.trim().is_empty() {
                // Spaces between spans still separate words.
                if let Some(t) = open.as_mut() {
                    t.text.push_str(piece);
                }
                continue;
            }
            let same = match &open {
                Some(t) => speaker.is_none() || *speaker == t.speaker,
                None => false,
            };
            if !same {
                close(&mut open, &mut turns);
                open = Some(OpenTurn {
                    speaker: speaker.clone(),
                    text: String::new(),
                });
            } else if first_piece {
                // A new display line continuing the turn.
                if let Some(t) = open.as_mut() {
                    t.text.push(' ');
                }
            }
            if let Some(t) = open.as_mut() {
                t.text.push_str(piece);
            }
            first_piece = false;
        }
    }
    close(&mut open, &mut turns);
    Cleaned {
        text: display.join("\n"),
        turns,
    }
}

/// The byte length of a speaker dash (and the spaces after it) at the start
/// of `s`, a trimmed line: one dash (`-`, `‐`, `‑`, `–`, `—`) not followed by
/// another dash or a digit (`--` is a stammer, `-5` a number), nor alone (a
/// dash with no words after it introduces no one).
fn dash_len(s: &str) -> Option<usize> {
    const DASHES: [char; 5] = ['-', '\u{2010}', '\u{2011}', '\u{2013}', '\u{2014}'];
    let mut chars = s.chars();
    let c = chars.next()?;
    if !DASHES.contains(&c) {
        return None;
    }
    let rest = &s[c.len_utf8()..];
    match rest.chars().next() {
        None => None,
        Some(n) if DASHES.contains(&n) || n.is_ascii_digit() => None,
        Some(_) => Some(s.len() - rest.trim_start().len()),
    }
}

/// Tags removed from the display text (lowercase names).
const KNOWN_TAGS: [&str; 12] = [
    "i", "b", "u", "s", "font", "c", "v", "lang", "ruby", "rt", "span", "br",
];

/// Markup state that carries from one line of a cue to the next.
#[derive(Default)]
struct Markup {
    /// The annotation of the open WebVTT voice span.
    voice: Option<String>,
    /// Inside `<rt>`: a ruby reading, shown small above the base text and
    /// left out here so the words are not doubled.
    ruby_text: bool,
}

/// Removes tags, timestamp tags and ASS override blocks from one line and
/// decodes entities. Returns the text in pieces, each with the voice (WebVTT
/// `<v>` span) in force at its start.
///
/// Linear: every search for a closing `>` or `}` stops at the next opening
/// bracket, so no stretch of the line is scanned twice.
fn strip_markup(line: &str, state: &mut Markup) -> Vec<(Option<String>, String)> {
    let mut pieces = vec![(state.voice.clone(), String::with_capacity(line.len()))];
    let mut i = 0;
    while i < line.len() {
        let rest = &line[i..];
        let Some(c) = rest.chars().next() else { break };
        match c {
            '<' => {
                if let Some(off) = rest[1..].find(['<', '>']) {
                    if rest.as_bytes()[1 + off] == b'>' {
                        let inner = &rest[1..1 + off];
                        if let Some(found) = tag(inner) {
                            match found {
                                Tag::Plain => {}
                                Tag::Voice(voice) => {
                                    state.voice = voice;
                                    pieces.push((state.voice.clone(), String::new()));
                                }
                                Tag::RubyText(open) => state.ruby_text = open,
                            }
                            i += off + 2;
                            continue;
                        }
                    }
                }
            }
            '{' if rest[1..].starts_with('\\') => {
                if let Some(off) = rest[1..].find(['{', '}']) {
                    if rest.as_bytes()[1 + off] == b'}' {
                        i += off + 2;
                        continue;
                    }
                }
            }
            '&' => {
                if let Some((decoded, len)) = entity(rest) {
                    if let Some(p) = pieces.last_mut().filter(|_| !state.ruby_text) {
                        p.1.push(decoded);
                    }
                    i += len;
                    continue;
                }
            }
            _ => {}
        }
        if let Some(p) = pieces.last_mut().filter(|_| !state.ruby_text) {
            p.1.push(c);
        }
        i += c.len_utf8();
    }
    pieces
}

/// A markup tag to remove.
enum Tag {
    /// Styling, classes, timestamps: no effect on the words.
    Plain,
    /// A voice span opens (with its annotation, if any) or closes (`None`).
    Voice(Option<String>),
    /// A ruby reading (`<rt>`) opens (`true`) or closes.
    RubyText(bool),
}

/// Classifies the inside of `<…>`; `None` when it is not a tag to remove.
fn tag(inner: &str) -> Option<Tag> {
    if inner.starts_with(|c: char| c.is_ascii_digit()) {
        // A WebVTT timestamp tag (`<00:01.000>`) inside karaoke-style cues.
        return match parse_timestamp(inner) {
            Ok((_, "", _)) => Some(Tag::Plain),
            _ => None,
        };
    }
    let (closing, body) = match inner.strip_prefix('/') {
        Some(b) => (true, b),
        None => (false, inner),
    };
    let name_len = body
        .find(|c: char| c == '.' || c.is_whitespace())
        .unwrap_or(body.len());
    let name = body[..name_len].to_ascii_lowercase();
    if !KNOWN_TAGS.contains(&name.as_str()) {
        return None;
    }
    if name == "rt" {
        return Some(Tag::RubyText(!closing));
    }
    if name != "v" {
        return Some(Tag::Plain);
    }
    if closing {
        return Some(Tag::Voice(None));
    }
    // `<v.loud Mara Ellis>`: classes, then whitespace, then the annotation.
    let annotation = body[name_len..]
        .find(char::is_whitespace)
        .map(|ws| body[name_len + ws..].trim())
        .unwrap_or("");
    Some(Tag::Voice(
        (!annotation.is_empty()).then(|| annotation.to_string()),
    ))
}

/// Decodes the character reference at the start of `s` (which starts with
/// `&`): the named ones subtitle files use, and numeric ones. Returns the
/// character and the reference's byte length.
fn entity(s: &str) -> Option<(char, usize)> {
    // The longest reference decoded here is `&#x10FFFF;` (10 bytes).
    let semi = s.as_bytes().iter().take(12).position(|&b| b == b';')?;
    let name = &s[1..semi];
    let c = match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" => '\u{a0}',
        "lrm" => '\u{200e}',
        "rlm" => '\u{200f}',
        "hellip" => '…',
        "ndash" => '–',
        "mdash" => '—',
        "lsquo" => '‘',
        "rsquo" => '’',
        "ldquo" => '“',
        "rdquo" => '”',
        _ => {
            let num = name.strip_prefix('#')?;
            let value = match num.strip_prefix(['x', 'X']) {
                Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                None => num.parse::<u32>().ok()?,
            };
            // Control characters would break lines or the text itself.
            char::from_u32(value).filter(|c| !c.is_control())?
        }
    };
    Some((c, semi + 1))
}

// ---------------------------------------------------------------------------
// Text for matching

/// Cue (or script) text reduced to words for fuzzy matching; see
/// [`normalize_for_matching`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Normalized {
    /// Lowercase words separated by single spaces.
    pub text: String,
    /// The text held something, but only sound descriptions (`[DOOR SLAMS]`,
    /// `(laughs)`) or music notes: a cue no line of dialogue can match.
    pub sound_only: bool,
}

/// Reduces display text to the words spoken, for the aligner: bracketed
/// descriptions (`[DOOR SLAMS]`, `(laughs)`, nesting allowed, across lines)
/// are removed, letters are lowercased, and every character that is not a
/// letter or digit becomes a space — speaker dashes, punctuation, music
/// notes, hyphens (`sister-in-law` gives `sister in law`) — except an
/// apostrophe between two letters or digits (`who's`), which is kept as `'`.
/// Whitespace is collapsed. An unclosed bracket is kept as punctuation.
///
/// Use the same function on the screenplay side so both read alike.
pub fn normalize_for_matching(text: &str) -> Normalized {
    let chars: Vec<char> = text.chars().collect();
    let mut removed = vec![false; chars.len()];
    let mut described = false;
    for (open, close) in [('[', ']'), ('(', ')')] {
        let mut depth = 0usize;
        let mut start = 0;
        for (i, &c) in chars.iter().enumerate() {
            if c == open {
                if depth == 0 {
                    start = i;
                }
                depth += 1;
            } else if c == close && depth > 0 {
                depth -= 1;
                if depth == 0 {
                    // Outermost pairs of one kind never overlap: linear overall.
                    removed[start..=i].iter_mut().for_each(|r| *r = true);
                    described = true;
                }
            }
        }
    }
    let is_word = |i: usize| !removed[i] && chars[i].is_alphanumeric();
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    let mut music = false;
    for (i, &c) in chars.iter().enumerate() {
        if removed[i] {
            pending_space = true;
            continue;
        }
        let keep = if c.is_alphanumeric() {
            true
        } else if matches!(c, '\'' | '’' | 'ʼ') {
            i > 0 && i + 1 < chars.len() && is_word(i - 1) && is_word(i + 1)
        } else {
            music |= matches!(c, '♪' | '♫' | '♬' | '♩');
            false
        };
        if !keep {
            pending_space = true;
            continue;
        }
        if pending_space && !out.is_empty() {
            out.push(' ');
        }
        pending_space = false;
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else {
            out.push('\'');
        }
    }
    let sound_only = out.is_empty() && (described || music);
    Normalized {
        text: out,
        sound_only,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn srt(text: &str) -> Subtitles {
        read(text, SubtitleFormat::Srt)
    }

    fn vtt(text: &str) -> Subtitles {
        read(text, SubtitleFormat::WebVtt)
    }

    fn texts(s: &Subtitles) -> Vec<&str> {
        s.cues.iter().map(|c| c.text.as_str()).collect()
    }

    fn diags(s: &Subtitles) -> Vec<(usize, &str)> {
        s.diagnostics
            .iter()
            .map(|d| (d.line, d.message.as_str()))
            .collect()
    }

    #[test]
    fn timestamps_in_every_spelling() {
        fn ok(s: &str) -> Result<(u64, &str), String> {
            parse_timestamp(s).map(|(ms, rest, _)| (ms, rest))
        }
        assert_eq!(ok("00:00:14,898"), Ok((14_898, "")));
        assert_eq!(ok("01:02:03.004"), Ok((3_723_004, "")));
        assert_eq!(ok("02:03.004"), Ok((123_004, "")), "hours omitted");
        assert_eq!(ok("1:02:03,5"), Ok((3_723_005, "")), "short fraction is ms");
        assert_eq!(ok("100:00:00.000"), Ok((360_000_000, "")), "long hours");
        assert_eq!(ok("00:00:01"), Ok((1000, "")), "no fraction");
        assert_eq!(ok("00:00:01,000 X1:1"), Ok((1000, " X1:1")));
        assert!(ok("00:60:00,000").is_err());
        assert!(ok("00:00:01,0000").is_err());
        assert!(ok("00:00:01,").is_err());
        assert!(ok("5").is_err());
        assert!(ok("99999999999:00:00,000").is_err());
    }

    #[test]
    fn timing_lines_with_spaces_settings_and_coordinates() {
        let t = parse_timing("00:00:01,000  -->   00:00:02,500").unwrap();
        assert_eq!((t.start, t.end, t.settings.as_str()), (1000, 2500, ""));
        let t = parse_timing("00:00:01,000-->00:00:02,500\tX1:40 X2:600 Y1:20 Y2:50").unwrap();
        assert_eq!(t.settings, "X1:40 X2:600 Y1:20 Y2:50");
        let t = parse_timing("00:01.000 --> 00:02.000 align:start position:10%").unwrap();
        assert_eq!((t.start, t.end), (1000, 2000));
        assert_eq!(t.settings, "align:start position:10%");
        assert!(parse_timing("00:00:01,000 --> 00:00:02,000x").is_err());
        assert!(parse_timing("00:00:01,000 00:00:02,000 -->").is_err());
    }

    #[test]
    fn srt_basic_blocks_and_lines() {
        let s = srt("1\n00:00:01,000 --> 00:00:02,000\nHello.\nSecond line.\n\n2\n00:00:03,000 --> 00:00:04,000\nBye.\n");
        assert_eq!(texts(&s), ["Hello.\nSecond line.", "Bye."]);
        let c = &s.cues[1];
        assert_eq!(
            (c.index, c.id.as_deref(), c.start_ms, c.end_ms),
            (2, Some("2"), 3000, 4000)
        );
        assert_eq!(s.cues[0].lines, LineSpan::new(1, 4));
        assert_eq!(c.lines, LineSpan::new(6, 8));
        assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    }

    #[test]
    fn srt_blank_lines_inside_text_keep_the_cue_together() {
        let s = srt("1\n00:00:01,000 --> 00:00:02,000\nOne.\n\nStill one.\n\n2\n00:00:03,000 --> 00:00:04,000\nTwo.\n");
        assert_eq!(texts(&s), ["One.\nStill one.", "Two."]);
        assert_eq!(s.cues[0].raw, "One.\n\nStill one.");
        assert_eq!(s.cues[0].lines, LineSpan::new(1, 5));
        assert_eq!(
            diags(&s),
            [(4, "blank line inside the text of cue 1; kept as one cue")]
        );
    }

    #[test]
    fn srt_missing_numbers_and_missing_blank_lines() {
        let s = srt("00:00:01,000 --> 00:00:02,000\nNo number.\n2\n00:00:03,000 --> 00:00:04,000\nNo blank before.\n00:00:05,000 --> 00:00:06,000\nBare timing.\n");
        assert_eq!(
            texts(&s),
            ["No number.", "No blank before.", "Bare timing."]
        );
        assert_eq!(s.cues[0].id, None);
        assert_eq!(s.cues[1].id.as_deref(), Some("2"));
        assert_eq!(
            diags(&s),
            [(1, "cue has no number"), (6, "cue has no number")]
        );
    }

    #[test]
    fn srt_numbers_out_of_order_are_kept_in_file_order() {
        let s = srt("2\n00:00:03,000 --> 00:00:04,000\nB\n\n1\n00:00:01,000 --> 00:00:02,000\nA\n\n1\n00:00:05,000 --> 00:00:06,000\nC\n");
        assert_eq!(texts(&s), ["B", "A", "C"]);
        assert_eq!(
            s.cues.iter().map(|c| c.index).collect::<Vec<_>>(),
            [1, 2, 3]
        );
        assert_eq!(
            diags(&s),
            [
                (5, "cue number 1 comes after 2: out of order (kept, in file order)"),
                (6, "cue 1 starts (00:00:01.000) before the cue before it (00:00:03.000); kept in file order"),
                (9, "cue number 1 repeats the one before (kept, in file order)"),
            ]
        );
    }

    #[test]
    fn srt_end_before_start_is_skipped() {
        let s = srt("1\n00:00:05,000 --> 00:00:04,000\nBackwards.\n\n2\n00:00:06,000 --> 00:00:07,000\nFine.\n");
        assert_eq!(texts(&s), ["Fine."]);
        assert_eq!(s.cues[0].index, 1);
        assert_eq!(
            diags(&s),
            [(
                2,
                "cue 1 ends (00:00:04.000) before it starts (00:00:05.000); skipped"
            )]
        );
    }

    #[test]
    fn srt_overlapping_cues_are_kept() {
        let s = srt("1\n00:00:01,000 --> 00:00:05,000\nA\n\n2\n00:00:02,000 --> 00:00:03,000\nB\n");
        assert_eq!(texts(&s), ["A", "B"]);
        assert!(s.diagnostics.is_empty());
    }

    #[test]
    fn srt_malformed_timing_and_missing_timing() {
        let s = srt("1\n00:00:01,000 --> 00:00:xx,000\nLost.\n\n2\n00:00:02,000 --> 00:00:03,000\nKept.\n\n3\nNo timing here.\n\n4\n00:00:04,000 --> 00:00:05,000\nAlso kept.\n");
        assert_eq!(texts(&s), ["Kept.", "Also kept."]);
        assert_eq!(
            diags(&s),
            [
                (2, "malformed timing line (end time `00:00:xx,000`: not a time of the form `HH:MM:SS,mmm`); cue skipped"),
                (9, "block `3` has no timing line; skipped (2 lines)"),
            ]
        );
    }

    #[test]
    fn srt_text_before_first_cue_and_empty_cues() {
        let s = srt("Subtitles by nobody\nreally\n\n1\n00:00:01,000 --> 00:00:02,000\n\n2\n00:00:03,000 --> 00:00:04,000\n{\\an8}<i></i>\n\n3\n00:00:05,000 --> 00:00:06,000\nText\n");
        assert_eq!(texts(&s), ["Text"]);
        assert_eq!(
            diags(&s),
            [
                (1, "2 lines of text before the first cue ignored"),
                (5, "cue 1 has no text; skipped"),
                (8, "cue 2 has only markup, no text; skipped"),
            ]
        );
    }

    #[test]
    fn srt_short_fractions_are_noted_once() {
        let s = srt("1\n0:0:1,5 --> 0:0:2,25\nA\n\n2\n00:00:03.5 --> 00:00:04.000\nB\n");
        assert_eq!((s.cues[0].start_ms, s.cues[0].end_ms), (1005, 2025));
        assert_eq!(s.cues[1].start_ms, 3005);
        assert_eq!(s.diagnostics.len(), 1);
        assert_eq!(s.diagnostics[0].line, 2);
    }

    #[test]
    fn srt_styling_tags_and_ass_overrides_are_stripped() {
        let s = srt("1\n00:00:01,000 --> 00:00:02,000 X1:10 X2:20 Y1:30 Y2:40\n{\\an8}<i>Up <b>here</b></i>,\n<font color=\"#ffff00\">in <u>yellow</u></font>{\\i1}!{\\i0}\n");
        let c = &s.cues[0];
        assert_eq!(c.text, "Up here,\nin yellow!");
        assert_eq!(c.raw, "{\\an8}<i>Up <b>here</b></i>,\n<font color=\"#ffff00\">in <u>yellow</u></font>{\\i1}!{\\i0}");
        assert_eq!(c.settings.as_deref(), Some("X1:10 X2:20 Y1:30 Y2:40"));
        assert_eq!(
            c.turns,
            [Turn {
                speaker: None,
                text: "Up here, in yellow!".into()
            }]
        );
    }

    #[test]
    fn unknown_tags_and_lone_brackets_stay() {
        let mut v = Markup::default();
        let one = |s: &str, v: &mut Markup| -> String {
            strip_markup(s, v).into_iter().map(|p| p.1).collect()
        };
        assert_eq!(one("I <3 you > me", &mut v), "I <3 you > me");
        assert_eq!(one("a <blink>b</blink>", &mut v), "a <blink>b</blink>");
        assert_eq!(one("x < <i>y</i>", &mut v), "x < y");
        assert_eq!(
            one("{not an override} {\\unclosed", &mut v),
            "{not an override} {\\unclosed"
        );
        assert_eq!(one("<00:01.500>ka<00:02.000>ra", &mut v), "kara");
        assert_eq!(one("<ruby>港<rt>みなと</rt></ruby>!", &mut v), "港!");
    }

    #[test]
    fn entities_are_decoded() {
        let s = srt("1\n00:00:01,000 --> 00:00:02,000\nFish &amp; chips &lt;i&gt; &quot;x&quot; &#39;y&#39; a&nbsp;b &#x263A; &#233; &bogus; & &#0;\n");
        assert_eq!(
            s.cues[0].text,
            "Fish & chips <i> \"x\" 'y' a\u{a0}b ☺ é &bogus; & &#0;"
        );
    }

    #[test]
    fn speaker_dashes_make_turns() {
        let s = srt("1\n00:00:01,000 --> 00:00:02,000\n- Where?\n- Here.\n\n2\n00:00:03,000 --> 00:00:04,000\nFirst speaker, no dash,\nsecond line.\n-Second speaker.\n\n3\n00:00:05,000 --> 00:00:06,000\n<i>- On the phone.</i>\n– Beside him.\n\n4\n00:00:07,000 --> 00:00:08,000\n-5 degrees\n--and falling\n");
        let turns: Vec<Vec<&str>> = s
            .cues
            .iter()
            .map(|c| c.turns.iter().map(|t| t.text.as_str()).collect())
            .collect();
        assert_eq!(
            turns,
            [
                vec!["Where?", "Here."],
                vec!["First speaker, no dash, second line.", "Second speaker."],
                vec!["On the phone.", "Beside him."],
                vec!["-5 degrees --and falling"],
            ]
        );
        assert_eq!(
            s.cues[0].text, "- Where?\n- Here.",
            "dashes stay in the display text"
        );
    }

    /// Found by the srt fuzz target: a cue whose only text is a dash had
    /// display text but no turn.
    #[test]
    fn a_lone_dash_is_text_not_a_speaker_dash() {
        let s = srt("1\n00:00:01,000 --> 00:00:02,000\n-\n\n2\n00:00:03,000 --> 00:00:04,000\n- Yes.\n-   \n");
        assert_eq!(texts(&s), ["-", "- Yes.\n-"]);
        assert_eq!(
            s.cues[0].turns,
            [Turn {
                speaker: None,
                text: "-".into()
            }]
        );
        assert_eq!(
            s.cues[1].turns,
            [Turn {
                speaker: None,
                text: "Yes. -".into()
            }]
        );
    }

    #[test]
    fn ass_line_breaks_split_display_lines() {
        let s = srt("1\n00:00:01,000 --> 00:00:02,000\n- One\\N- Two\n");
        assert_eq!(s.cues[0].text, "- One\n- Two");
        assert_eq!(s.cues[0].turns.len(), 2);
    }

    #[test]
    fn vtt_header_blocks_ids_settings() {
        let s = vtt("WEBVTT - a test\nKind: captions\n\nNOTE a comment\nover two lines\n\nSTYLE\n::cue { color: red }\n\nREGION\nid:top\n\nintro\n00:01.000 --> 00:02.000 align:start position:10%\n<v Mara>Hello</v>\n\n00:00:03.000 --> 00:00:04.000\nNo id.\n");
        assert_eq!(texts(&s).last(), Some(&"No id."));
        let intro = s
            .cues
            .iter()
            .find(|c| c.id.as_deref() == Some("intro"))
            .unwrap();
        assert_eq!((intro.start_ms, intro.end_ms), (1000, 2000));
        assert_eq!(intro.settings.as_deref(), Some("align:start position:10%"));
        assert_eq!(
            intro.turns,
            [Turn {
                speaker: Some("Mara".into()),
                text: "Hello".into()
            }]
        );
    }

    #[test]
    fn vtt_note_line_with_timing_is_a_cue_per_spec() {
        // A timing on a block's second line makes the first an identifier,
        // even `NOTE …`; the spec forbids `-->` in notes for this reason.
        let s = vtt("WEBVTT\n\nNOTE x\n00:01.000 --> 00:02.000\nText\n");
        assert_eq!(s.cues[0].id.as_deref(), Some("NOTE x"));
    }

    #[test]
    fn vtt_voices_classes_and_timestamps() {
        let s = vtt("WEBVTT\n\n1\n00:00:01.000 --> 00:00:04.000\n<v.loud Mara Ellis><c.yellow>Where</c> is it?</v>\n<v Quinton>I <i>don't</i> know.\n\n2\n00:00:05.000 --> 00:00:06.000\n<v Teo>Ahoy <00:05.500>there,\nboat.\n\n3\n00:00:07.000 --> 00:00:08.000\n<v A>Hi.</v> <v B>Hello.</v>\n");
        assert_eq!(s.cues[0].text, "Where is it?\nI don't know.");
        let turns = |c: &Cue| -> Vec<(Option<String>, String)> {
            c.turns
                .iter()
                .map(|t| (t.speaker.clone(), t.text.clone()))
                .collect()
        };
        assert_eq!(
            turns(&s.cues[0]),
            [
                (Some("Mara Ellis".to_string()), "Where is it?".to_string()),
                (Some("Quinton".to_string()), "I don't know.".to_string())
            ]
        );
        assert_eq!(
            turns(&s.cues[1]),
            [(Some("Teo".to_string()), "Ahoy there, boat.".to_string())]
        );
        assert_eq!(
            turns(&s.cues[2]),
            [
                (Some("A".to_string()), "Hi.".to_string()),
                (Some("B".to_string()), "Hello.".to_string())
            ]
        );
    }

    #[test]
    fn vtt_blank_line_ends_a_cue_and_junk_is_reported() {
        let s = vtt("WEBVTT\n\n00:01.000 --> 00:02.000\nOne.\n\nOrphan text.\n\na\nb\n00:03.000 --> 00:04.000\nTwo.\n00:05.000 --> 00:06.000\nThree.\n");
        assert_eq!(texts(&s), ["One.", "Two.", "Three."]);
        assert_eq!(
            diags(&s),
            [
                (6, "line without a cue timing; skipped"),
                (8, "lines without a cue timing; skipped")
            ]
        );
    }

    #[test]
    fn vtt_without_header_still_reads() {
        let s = vtt("00:01.000 --> 00:02.000\nHi.\n");
        assert_eq!(texts(&s), ["Hi."]);
        assert_eq!(
            diags(&s),
            [(1, "no `WEBVTT` header; reading the cues anyway")]
        );
    }

    #[test]
    fn detection_by_content_then_extension() {
        let p = |s: &str| Some(Path::new(s).to_owned());
        assert_eq!(
            SubtitleFormat::detect(p("a.srt").as_deref(), "\u{feff}WEBVTT\n"),
            SubtitleFormat::WebVtt
        );
        assert_eq!(
            SubtitleFormat::detect(None, "WEBVTT\tx\n"),
            SubtitleFormat::WebVtt
        );
        assert_eq!(
            SubtitleFormat::detect(None, "WEBVTTX\n"),
            SubtitleFormat::Srt
        );
        assert_eq!(
            SubtitleFormat::detect(p("a.VTT").as_deref(), "1\n"),
            SubtitleFormat::WebVtt
        );
        assert_eq!(
            SubtitleFormat::detect(p("a.txt").as_deref(), "1\n"),
            SubtitleFormat::Srt
        );
        assert_eq!("vtt".parse::<SubtitleFormat>(), Ok(SubtitleFormat::WebVtt));
    }

    #[test]
    fn nothing_usable_is_an_error_naming_the_line() {
        let e = parse_text(
            "1\n00:00:02,000 --> 00:00:01,000\nX\n",
            None,
            Some(Path::new("f.srt")),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "f.srt:2: no usable srt cue in the file: cue 1 ends (00:00:01.000) before it starts (00:00:02.000); skipped"
        );
        let e = parse_text("just some words\n", None, Some(Path::new("f.srt"))).unwrap_err();
        assert!(
            matches!(e, SubtitleError::NothingUsable { line: 1, .. }),
            "{e}"
        );
        let e = parse_text("WEBVTT\n", None, None).unwrap_err();
        assert_eq!(e.to_string(), "<input>:1: no usable webvtt cue in the file: no cue timing (`00:00:01,000 --> 00:00:02,000`) found");
        assert!(matches!(
            parse_text(" \n\n", None, None),
            Err(SubtitleError::Empty { .. })
        ));
        assert!(matches!(
            parse_bytes(b"1\n\x00\x01\x02", None, Path::new("b.srt")),
            Err(SubtitleError::Binary { line: 2, .. })
        ));
    }

    #[test]
    fn crlf_lone_cr_and_bom_count_lines_the_same() {
        let lf = "1\n00:00:01,000 --> 00:00:02,000\nA\n\n2\n00:00:03,000 --> 00:00:04,000\nB\n";
        let want = srt(lf);
        assert_eq!(srt(&format!("\u{feff}{}", lf.replace('\n', "\r\n"))), want);
        assert_eq!(srt(&lf.replace('\n', "\r")), want);
    }

    #[test]
    fn pathological_markup_is_linear() {
        // Quadratic scanning would take minutes on these; linear is instant.
        for unit in ["<", "<i", "{\\", "{\\{", "&#", "&amp", "-->", "0-->"] {
            let line = unit.repeat(200_000);
            let text = format!("1\n00:00:01,000 --> 00:00:02,000\n{line}\n");
            let s = srt(&text);
            assert!(s.cues.len() <= 1);
            let _ = normalize_for_matching(&line);
        }
        let many = "[(".repeat(100_000) + &")]".repeat(100_000);
        assert_eq!(normalize_for_matching(&many).text, "");
    }

    #[test]
    fn normalize_words_apostrophes_dashes_and_descriptions() {
        let n = normalize_for_matching(
            "- Who's aboard?\n- [DOOR SLAMS] I've got a torch (laughs)... ‘Tis Mara’s.",
        );
        assert_eq!(n.text, "who's aboard i've got a torch tis mara's");
        assert!(!n.sound_only);
        let n = normalize_for_matching("Sister-in-law! £11,000, payable\n  by the 31st.  ÉTÉ");
        assert_eq!(n.text, "sister in law 11 000 payable by the 31st été");
        let n = normalize_for_matching("[DOOR SLAMS]\n(laughs [softly])");
        assert_eq!((n.text.as_str(), n.sound_only), ("", true));
        assert!(normalize_for_matching("♪ ♪").sound_only);
        assert!(!normalize_for_matching("...").sound_only);
        assert_eq!(
            normalize_for_matching("(unclosed thought").text,
            "unclosed thought"
        );
        assert_eq!(
            normalize_for_matching("'quoted' rock'n'roll").text,
            "quoted rock'n'roll"
        );
    }

    #[test]
    fn diagnostics_quote_at_most_forty_characters() {
        let junk = "9".repeat(100);
        let s = srt(&format!(
            "1\n00:00:01,000 --> {junk}\nX\n\n{junk}\n00:00:02,000 --> 00:00:01,000\nY\n"
        ));
        assert!(s.cues.is_empty());
        let short = format!("{}…", &junk[..40]);
        assert_eq!(
            diags(&s),
            [
                (2, format!("malformed timing line (end time `{short}`: expected minutes and seconds (`MM:SS.mmm`)); cue skipped").as_str()),
                (6, format!("cue {short} ends (00:00:01.000) before it starts (00:00:02.000); skipped").as_str()),
            ]
        );
    }

    #[test]
    fn format_ms_pads() {
        assert_eq!(format_ms(0), "00:00:00.000");
        assert_eq!(format_ms(3_723_004), "01:02:03.004");
        assert_eq!(format_ms(360_000_000), "100:00:00.000");
    }
}
