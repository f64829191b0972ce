//! Screenplays: reading Fountain, Final Draft FDX and plain-text scripts into
//! one typed, temporally ordered element list (the pipeline in ARCHITECTURE.md).
//!
//! Each reader turns text into a [`Reading`]: elements with kind, text, source
//! lines and format-level facts (dual dialogue, scene numbers). [`assemble`]
//! then applies the rules that are the same for every format: scene
//! segmentation, speaker normalization, the character and scene lists.
//!
//! Readers never fail on text: problems become [`Diagnostic`]s with a line
//! number. Only input that is not a screenplay at all (not text, empty,
//! too large, XML that does not parse) is a [`ParseError`].

mod assemble;
pub mod compare;
pub mod element;
pub mod fdx;
pub mod fountain;
pub mod heading;
pub mod layouts;
pub mod names;
pub mod plaintext;
pub mod summary;
mod title;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use crate::text::decode;
pub use assemble::assemble;
pub use element::{
    Character, Diagnostic, Element, ElementKind, IntExt, LineSpan, Noise, NoiseKind, Scene,
    Severity,
};

pub use crate::text::source::MAX_FILE_BYTES;

/// A screenplay file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// Fountain (fountain.io), the plain-text markup.
    Fountain,
    /// Final Draft XML (`.fdx`).
    Fdx,
    /// Plain text laid out by indentation (IMSDb pages, PDF-to-text output).
    Text,
}

impl Format {
    /// The name used on the command line and in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Fountain => "fountain",
            Format::Fdx => "fdx",
            Format::Text => "text",
        }
    }

    /// Guesses the format from a file name and its text.
    ///
    /// `.fdx` or an XML prolog means FDX; `.fountain`/`.spmd` means Fountain;
    /// otherwise a script whose lines are mostly indented is laid-out plain
    /// text, and one that is mostly flush left is Fountain.
    pub fn detect(path: Option<&Path>, text: &str) -> Format {
        let ext = path
            .and_then(|p| p.extension())
            .and_then(|e| e.to_str())
            .map(|e| e.to_ascii_lowercase());
        let head = text.trim_start();
        if ext.as_deref() == Some("fdx")
            || head.starts_with("<?xml")
            || head.starts_with("<FinalDraft")
        {
            return Format::Fdx;
        }
        if matches!(ext.as_deref(), Some("fountain") | Some("spmd")) {
            return Format::Fountain;
        }
        if plaintext::looks_laid_out(text) {
            Format::Text
        } else {
            Format::Fountain
        }
    }
}

impl std::str::FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "fountain" | "spmd" => Ok(Format::Fountain),
            "fdx" | "finaldraft" | "final-draft" => Ok(Format::Fdx),
            "text" | "txt" | "plain" | "plaintext" => Ok(Format::Text),
            other => Err(format!(
                "unknown screenplay format `{other}` (expected fountain, fdx or text)"
            )),
        }
    }
}

/// What a reader produces before assembly.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reading {
    /// Elements in story order (title-page fields first). Character cues keep
    /// the cue as written (minus forcing marks) in `text`; assembly normalizes it.
    pub elements: Vec<Element>,
    /// Noise lines found and kept out of the story.
    pub noise: Vec<Noise>,
    /// Problems found, each with its line.
    pub diagnostics: Vec<Diagnostic>,
}

/// A parsed screenplay: the element list and everything derived from it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Screenplay {
    /// The file it was read from, when it came from a file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<PathBuf>,
    /// The format it was read as.
    pub format: Format,
    /// The encoding its bytes were in (`UTF-8`, `UTF-16LE`, `Windows-1252`, …).
    pub encoding: String,
    /// Typed elements in story order; title-page fields (`kind: title`) first.
    pub elements: Vec<Element>,
    /// Scenes in order.
    pub scenes: Vec<Scene>,
    /// Characters who speak, in order of first cue.
    pub characters: Vec<Character>,
    /// Noise lines kept out of the story.
    pub noise: Vec<Noise>,
    /// Problems found while reading.
    pub diagnostics: Vec<Diagnostic>,
}

impl Screenplay {
    /// Elements of one kind, in order.
    pub fn of_kind(&self, kind: ElementKind) -> impl Iterator<Item = &Element> {
        self.elements.iter().filter(move |e| e.kind == kind)
    }

    /// The value of a title-page field (`title`, `author`, …), if present.
    pub fn title_field(&self, key: &str) -> Option<&str> {
        self.elements
            .iter()
            .find(|e| e.kind == ElementKind::Title && e.key.as_deref() == Some(key))
            .map(|e| e.text.as_str())
    }
}

/// Why a file could not be read as a screenplay at all.
#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    /// The file could not be opened or read.
    #[error("{path}: cannot read: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },
    /// The file is larger than any screenplay.
    #[error("{path}: {size} bytes is too large for a screenplay (limit {limit} bytes); is this the right file?")]
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
    #[error("{path}:{line}: not a text file (binary data at line {line}); expected Fountain, FDX or plain text")]
    Binary {
        /// The file.
        path: PathBuf,
        /// First line with binary data.
        line: usize,
    },
    /// The FDX file is not well-formed XML, or not a Final Draft document.
    #[error("{path}:{line}: malformed FDX: {message}")]
    Xml {
        /// The file.
        path: PathBuf,
        /// 1-based line of the problem.
        line: usize,
        /// What is wrong.
        message: String,
    },
}

/// Parses screenplay text already in memory. `path` is used for messages and
/// format detection only.
pub fn parse_text(
    text: &str,
    format: Option<Format>,
    path: Option<&Path>,
) -> Result<Screenplay, ParseError> {
    // Readers see LF line ends only, so every format counts lines the same
    // way (a lone CR, old Mac style, is a line break as editors show it).
    let owned;
    let text = if text.contains('\r') {
        owned = decode::normalize_newlines(text.to_string());
        owned.as_str()
    } else {
        text
    };
    let format = format.unwrap_or_else(|| Format::detect(path, text));
    let display = path
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("<input>"));
    let reading = match format {
        Format::Fountain => fountain::read(text),
        Format::Text => plaintext::read(text),
        Format::Fdx => fdx::read(text).map_err(|e| ParseError::Xml {
            path: display,
            line: e.line,
            message: e.message,
        })?,
    };
    let mut play = assemble(reading, format);
    play.source = path.map(Path::to_path_buf);
    play.encoding = "UTF-8".to_string();
    Ok(play)
}

/// Parses screenplay bytes: decodes them (BOM, UTF-16, Latin-1), then parses.
pub fn parse_bytes(
    bytes: &[u8],
    format: Option<Format>,
    path: &Path,
) -> Result<Screenplay, ParseError> {
    let decoded = decode::decode(bytes).map_err(decode::TextFileError::from);
    parse_decoded(decoded, format, path)
}

/// Reads and parses a screenplay file, refusing files over [`MAX_FILE_BYTES`]
/// before reading them.
pub fn parse_file(path: &Path, format: Option<Format>) -> Result<Screenplay, ParseError> {
    parse_decoded(decode::read_text_file(path, MAX_FILE_BYTES), format, path)
}

/// Parses decoded text, or turns the reason there is none into a [`ParseError`].
fn parse_decoded(
    decoded: Result<(String, decode::SourceEncoding), decode::TextFileError>,
    format: Option<Format>,
    path: &Path,
) -> Result<Screenplay, ParseError> {
    let (text, encoding) = decoded.map_err(|e| e.for_file(path, "screenplay file"))?;
    let mut play = parse_text(&text, format, Some(path))?;
    play.encoding = encoding.name().to_string();
    Ok(play)
}

impl decode::FileErrors for ParseError {
    fn io(path: PathBuf, source: std::io::Error) -> Self {
        ParseError::Io { path, source }
    }
    fn too_large(path: PathBuf, size: u64, limit: u64) -> Self {
        ParseError::TooLarge { path, size, limit }
    }
    fn empty(path: PathBuf) -> Self {
        ParseError::Empty { path }
    }
    fn binary(path: PathBuf, line: usize) -> Self {
        ParseError::Binary { path, line }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_that_is_not_readable_text_is_refused_naming_the_file_and_why() {
        let dir = tempfile::tempdir().unwrap();
        let e = parse_file(dir.path(), None).unwrap_err();
        assert!(matches!(e, ParseError::Io { .. }), "{e:?}");
        assert!(
            format!("{e}").contains(&dir.path().display().to_string()),
            "{e}"
        );
        let source = std::error::Error::source(&e).map(|s| s.to_string());
        assert_eq!(
            source.as_deref(),
            Some("is a directory, not a screenplay file"),
            "{e:?}"
        );
        let empty = dir.path().join("empty.fountain");
        std::fs::write(&empty, "  \n").unwrap();
        assert!(matches!(
            parse_file(&empty, None),
            Err(ParseError::Empty { path }) if path == empty
        ));
        let binary = dir.path().join("binary.fountain");
        std::fs::write(&binary, b"INT. A\n\x00\x01\x02").unwrap();
        assert!(matches!(
            parse_file(&binary, None),
            Err(ParseError::Binary { line: 2, .. })
        ));
    }

    /// Found by the fountain fuzz target: a lone CR counted as a line break by
    /// one reader and not by the line count of the text, so spans ran past the end.
    #[test]
    fn every_line_ending_counts_the_same() {
        let lf = "INT. A - DAY\n\nMARA\nHi.\n\nb\n\nEXT. B - NIGHT\n";
        let crlf = lf.replace('\n', "\r\n");
        let cr = lf.replace('\n', "\r");
        for format in [Format::Fountain, Format::Text] {
            let want = parse_text(lf, Some(format), None).unwrap().elements;
            for other in [&crlf, &cr] {
                let got = parse_text(other, Some(format), None).unwrap().elements;
                assert_eq!(got, want, "{format:?}");
            }
        }
        let last = parse_text(&cr, Some(Format::Fountain), None).unwrap();
        assert_eq!(last.elements.last().unwrap().lines.last, 8);
    }
}
