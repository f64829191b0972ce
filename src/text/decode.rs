//! Turning a file's bytes into text: BOMs, UTF-16, Latin-1/Windows-1252, and
//! refusing what is not text at all.

use std::path::{Path, PathBuf};

use encoding_rs::{Encoding, UTF_16BE, UTF_16LE, UTF_8, WINDOWS_1252};

/// Which encoding the bytes were decoded from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceEncoding {
    /// UTF-8, with or without a byte-order mark.
    Utf8,
    /// UTF-16 little-endian (BOM or detected).
    Utf16Le,
    /// UTF-16 big-endian (BOM or detected).
    Utf16Be,
    /// Not valid UTF-8: read as Windows-1252, the superset of Latin-1 that
    /// word processors actually write.
    Windows1252,
}

impl SourceEncoding {
    /// A short human name.
    pub fn name(self) -> &'static str {
        match self {
            SourceEncoding::Utf8 => "UTF-8",
            SourceEncoding::Utf16Le => "UTF-16LE",
            SourceEncoding::Utf16Be => "UTF-16BE",
            SourceEncoding::Windows1252 => "Windows-1252",
        }
    }
}

/// Why bytes could not be taken as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotText {
    /// There is nothing in the file (or only whitespace and a BOM).
    Empty,
    /// Control bytes that no text file holds, first at this 1-based line.
    Binary {
        /// The line (counting `\n`) where the first such byte is.
        line: usize,
    },
}

/// Why a text file could not be read: the file-system half of
/// [`read_text_file`] and the refusals of [`decode`]. Callers turn it into
/// their own error, which names the file and what it was expected to be.
#[derive(Debug, thiserror::Error)]
pub enum TextFileError {
    /// The file could not be opened or read.
    #[error("cannot read: {0}")]
    Io(#[source] std::io::Error),
    /// The path is a directory, not a file.
    #[error("is a directory")]
    IsDirectory,
    /// The file is larger than the limit; it was not read.
    #[error("{size} bytes is over the limit of {limit} bytes")]
    TooLarge {
        /// Its size in bytes.
        size: u64,
        /// The limit it was read under.
        limit: u64,
    },
    /// There is nothing in the file (or only whitespace and a BOM).
    #[error("the file is empty")]
    Empty,
    /// Control bytes that no text file holds, first at this 1-based line.
    #[error("binary data at line {line}")]
    Binary {
        /// The line (counting `\n`) where the first such byte is.
        line: usize,
    },
}

/// A reader's own error for each way its file is not readable text, so that
/// every reader turns a [`TextFileError`] into its error the same way
/// ([`TextFileError::for_file`]).
pub trait FileErrors {
    /// The file could not be read (a directory is one such file).
    fn io(path: PathBuf, source: std::io::Error) -> Self;
    /// The file is over the size limit; it was not read.
    fn too_large(path: PathBuf, size: u64, limit: u64) -> Self;
    /// There is nothing in the file.
    fn empty(path: PathBuf) -> Self;
    /// The file holds binary data, first at this 1-based line.
    fn binary(path: PathBuf, line: usize) -> Self;
}

impl TextFileError {
    /// This error as a reader's own for the file at `path`, which was to be
    /// a `what` ("screenplay file"): a directory is an I/O error saying so.
    pub fn for_file<E: FileErrors>(self, path: &Path, what: &str) -> E {
        let path = path.to_path_buf();
        match self {
            TextFileError::Io(source) => E::io(path, source),
            TextFileError::IsDirectory => E::io(
                path,
                std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!("is a directory, not a {what}"),
                ),
            ),
            TextFileError::TooLarge { size, limit } => E::too_large(path, size, limit),
            TextFileError::Empty => E::empty(path),
            TextFileError::Binary { line } => E::binary(path, line),
        }
    }
}

impl From<NotText> for TextFileError {
    fn from(e: NotText) -> Self {
        match e {
            NotText::Empty => TextFileError::Empty,
            NotText::Binary { line } => TextFileError::Binary { line },
        }
    }
}

/// Reads the file at `path` and decodes it with [`decode`], refusing a
/// directory, and a file over `limit` bytes before reading it.
pub fn read_text_file(path: &Path, limit: u64) -> Result<(String, SourceEncoding), TextFileError> {
    let meta = std::fs::metadata(path).map_err(TextFileError::Io)?;
    if meta.is_dir() {
        return Err(TextFileError::IsDirectory);
    }
    if meta.len() > limit {
        return Err(TextFileError::TooLarge {
            size: meta.len(),
            limit,
        });
    }
    let bytes = std::fs::read(path).map_err(TextFileError::Io)?;
    Ok(decode(&bytes)?)
}

/// Decodes `bytes` to text, or says why they are not text.
///
/// Line endings are normalized (CRLF and lone CR become LF), and a leading BOM
/// is dropped, so every reader sees the same line numbers an editor shows.
pub fn decode(bytes: &[u8]) -> Result<(String, SourceEncoding), NotText> {
    let (encoding, body) = if let Some((enc, bom_len)) = Encoding::for_bom(bytes) {
        (enc, &bytes[bom_len..])
    } else if let Some(enc) = sniff_utf16(bytes) {
        (enc, bytes)
    } else {
        (UTF_8, bytes)
    };

    let (text, source) = if encoding == UTF_16LE || encoding == UTF_16BE {
        let (cow, _) = encoding.decode_without_bom_handling(body);
        let src = if encoding == UTF_16LE {
            SourceEncoding::Utf16Le
        } else {
            SourceEncoding::Utf16Be
        };
        (cow.into_owned(), src)
    } else {
        match std::str::from_utf8(body) {
            Ok(s) => (s.to_string(), SourceEncoding::Utf8),
            Err(_) => {
                let (cow, _) = WINDOWS_1252.decode_without_bom_handling(body);
                (cow.into_owned(), SourceEncoding::Windows1252)
            }
        }
    };

    if let Some(line) = first_binary_line(&text) {
        return Err(NotText::Binary { line });
    }
    let text = normalize_newlines(text);
    if text.trim().is_empty() {
        return Err(NotText::Empty);
    }
    Ok((text, source))
}

/// UTF-16 without a BOM shows up as a zero byte in every other position of ASCII text.
fn sniff_utf16(bytes: &[u8]) -> Option<&'static Encoding> {
    let sample = &bytes[..bytes.len().min(4096) & !1];
    if sample.len() < 4 {
        return None;
    }
    let pairs = sample.len() / 2;
    let even_zero = sample.iter().step_by(2).filter(|b| **b == 0).count();
    let odd_zero = sample
        .iter()
        .skip(1)
        .step_by(2)
        .filter(|b| **b == 0)
        .count();
    if odd_zero * 10 >= pairs * 6 && even_zero * 10 < pairs {
        Some(UTF_16LE)
    } else if even_zero * 10 >= pairs * 6 && odd_zero * 10 < pairs {
        Some(UTF_16BE)
    } else {
        None
    }
}

/// The 1-based line of the first control character no text file holds
/// (NUL and the C0 controls other than tab, LF, VT, FF, CR and ESC).
fn first_binary_line(text: &str) -> Option<usize> {
    let mut line = 1;
    let mut bad = 0usize;
    let mut first_bad_line = None;
    let mut total = 0usize;
    for c in text.chars() {
        total += 1;
        if c == '\n' {
            line += 1;
            continue;
        }
        let is_bad =
            (c as u32) < 0x20 && !matches!(c, '\t' | '\r' | '\u{0B}' | '\u{0C}' | '\u{1B}');
        if is_bad {
            bad += 1;
            first_bad_line.get_or_insert(line);
            // Any NUL is decisive: text editors never write one.
            if c == '\0' {
                return first_bad_line;
            }
        }
    }
    // A stray control byte or two is a typo in a text file; many are a binary file.
    if bad > 0 && bad * 100 >= total.max(1) {
        first_bad_line
    } else {
        None
    }
}

/// CRLF and lone CR become LF, so line numbers match what an editor shows.
pub(crate) fn normalize_newlines(text: String) -> String {
    if !text.contains('\r') {
        return text;
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' {
            if chars.peek() == Some(&'\n') {
                chars.next();
            }
            out.push('\n');
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_bom_and_crlf() {
        let (t, e) = decode(b"\xEF\xBB\xBFINT. HOUSE - DAY\r\n\r\nHi.\r\n").unwrap();
        assert_eq!(t, "INT. HOUSE - DAY\n\nHi.\n");
        assert_eq!(e, SourceEncoding::Utf8);
    }

    #[test]
    fn utf16_with_and_without_bom() {
        let s = "INT. CAFÉ - DAY\nMARA\nHello.\n";
        let mut le: Vec<u8> = vec![0xFF, 0xFE];
        le.extend(s.encode_utf16().flat_map(|u| u.to_le_bytes()));
        assert_eq!(
            decode(&le).unwrap(),
            (s.to_string(), SourceEncoding::Utf16Le)
        );
        let be: Vec<u8> = s.encode_utf16().flat_map(|u| u.to_be_bytes()).collect();
        assert_eq!(
            decode(&be).unwrap(),
            (s.to_string(), SourceEncoding::Utf16Be)
        );
    }

    #[test]
    fn latin1_is_decoded_not_rejected() {
        let (t, e) = decode(b"INT. CAF\xC9 - DAY\n\x93Quoted\x94\n").unwrap();
        assert_eq!(t, "INT. CAFÉ - DAY\n“Quoted”\n");
        assert_eq!(e, SourceEncoding::Windows1252);
    }

    #[test]
    fn binary_is_refused_with_line() {
        assert_eq!(
            decode(b"line one\nline two\x00\x01\x02"),
            Err(NotText::Binary { line: 2 })
        );
        let png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR";
        assert!(matches!(decode(png), Err(NotText::Binary { .. })));
    }

    #[test]
    fn empty_is_refused() {
        assert_eq!(decode(b""), Err(NotText::Empty));
        assert_eq!(decode(b"\xEF\xBB\xBF \n\n"), Err(NotText::Empty));
    }
}
