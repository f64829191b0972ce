//! Where a reader's findings point in its input: line spans and diagnostics
//! (shared by every reader of text files: screenplays, subtitles, shot lists),
//! and the size limit every input file is read under.

use serde::{Deserialize, Serialize};

/// Largest input text file accepted (a screenplay, subtitles, a shot list). A
/// feature script is 100–400 KB; anything this size is not one, and reading
/// it would only waste memory.
pub const MAX_FILE_BYTES: u64 = 32 * 1024 * 1024;

/// An inclusive, 1-based range of source lines `[first, last]`.
///
/// For FDX the "line" is the line of the XML file where the paragraph starts and ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "[usize; 2]", into = "[usize; 2]")]
pub struct LineSpan {
    /// First source line (1-based).
    pub first: usize,
    /// Last source line (1-based, inclusive).
    pub last: usize,
}

impl LineSpan {
    /// A span of one line.
    pub fn line(line: usize) -> Self {
        LineSpan {
            first: line,
            last: line,
        }
    }

    /// A span from `first` to `last` inclusive.
    pub fn new(first: usize, last: usize) -> Self {
        LineSpan {
            first,
            last: last.max(first),
        }
    }
}

impl From<[usize; 2]> for LineSpan {
    fn from(v: [usize; 2]) -> Self {
        LineSpan::new(v[0], v[1])
    }
}

impl From<LineSpan> for [usize; 2] {
    fn from(s: LineSpan) -> Self {
        [s.first, s.last]
    }
}

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Something was guessed; the result is probably right.
    Info,
    /// Something was malformed and was skipped or repaired.
    Warning,
}

/// A problem found while reading, with the line it is on. Readers never stop at one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    /// 1-based source line.
    pub line: usize,
    /// How serious it is.
    pub severity: Severity,
    /// What is wrong, in words.
    pub message: String,
}

impl Diagnostic {
    /// A warning at `line`.
    pub fn warning(line: usize, message: impl Into<String>) -> Self {
        Diagnostic {
            line,
            severity: Severity::Warning,
            message: message.into(),
        }
    }

    /// An informational note at `line`.
    pub fn info(line: usize, message: impl Into<String>) -> Self {
        Diagnostic {
            line,
            severity: Severity::Info,
            message: message.into(),
        }
    }
}
