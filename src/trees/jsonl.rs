//! `trees/<film>.jsonl`: an optional first metadata line saying how the trees
//! were made ([`Header`], see [`super::provenance`]), then one [`Tree`] a line.
//! Writing is deterministic (the same trees and provenance give the same
//! bytes); reading reports the file and line of a bad tree, and reads files
//! without the metadata line (written by hand, by another tool, or by an
//! older moviegraph) as before.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use super::provenance::{Header, Provenance, FORMAT, VERSION};
use super::schema::Tree;
use crate::util::fs::write_atomic;

/// A tree file that could not be read.
#[derive(Debug, thiserror::Error)]
pub enum TreeFileError {
    /// The file could not be opened or read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A line is not a tree in the documented format.
    #[error("{path}:{line}: not a tree in the trees JSONL format: {message}")]
    Line {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What serde said.
        message: String,
    },
}

/// A trees file read whole: its metadata line (when it has one) and its trees.
#[derive(Debug, Clone, PartialEq)]
pub struct TreeFile {
    /// The first line's provenance; `None` for a file without the line.
    pub provenance: Option<Provenance>,
    /// The trees, in file order.
    pub trees: Vec<Tree>,
}

/// The metadata line `text` (line `line` of `path`) when it is one: a JSON
/// object whose `format` is `moviegraph.trees`. A tree has no `format` field.
fn header_of(path: &Path, line: usize, text: &str) -> Result<Option<Header>, TreeFileError> {
    if !text.starts_with('{') || !text.contains("\"format\"") {
        return Ok(None);
    }
    let bad = |message: String| TreeFileError::Line {
        path: path.to_path_buf(),
        line,
        message,
    };
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
    match value.get("format").and_then(|f| f.as_str()) {
        None => Ok(None),
        Some(FORMAT) => {
            let header: Header =
                serde_json::from_value(value).map_err(|e| bad(format!("metadata line: {e}")))?;
            if header.version > VERSION {
                return Err(bad(format!(
                    "metadata line of version {}; this moviegraph reads version {VERSION} (upgrade it)",
                    header.version
                )));
            }
            Ok(Some(header))
        }
        Some(other) => Err(bad(format!("a file of format {other:?}, not {FORMAT:?}"))),
    }
}

/// Reads a trees file: the metadata line, if the first line is one, and every
/// tree; blank lines are skipped. A metadata line anywhere but first is an error.
pub fn read_tree_file(path: &Path) -> Result<TreeFile, TreeFileError> {
    let io = |source| TreeFileError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut out = TreeFile {
        provenance: None,
        trees: Vec::new(),
    };
    let mut first = true;
    for (index, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(io)?;
        let text = line.trim_start_matches('\u{feff}').trim();
        if text.is_empty() {
            continue;
        }
        // Only the first line may be the metadata line; a later one (two files
        // concatenated) is named as such rather than as a broken tree.
        if first || text.starts_with("{\"format\"") {
            if let Some(header) = header_of(path, index + 1, text)? {
                if !first {
                    return Err(TreeFileError::Line {
                        path: path.to_path_buf(),
                        line: index + 1,
                        message:
                            "a metadata line must be the file's first line (one film per file)"
                                .into(),
                    });
                }
                out.provenance = Some(header.provenance);
                first = false;
                continue;
            }
        }
        first = false;
        let tree = serde_json::from_str(text).map_err(|err| TreeFileError::Line {
            path: path.to_path_buf(),
            line: index + 1,
            message: err.to_string(),
        })?;
        out.trees.push(tree);
    }
    Ok(out)
}

/// Reads every tree of a JSONL file, skipping the metadata line; blank lines
/// are skipped.
pub fn read_trees(path: &Path) -> Result<Vec<Tree>, TreeFileError> {
    Ok(read_tree_file(path)?.trees)
}

/// The provenance of a trees file's metadata line (its first non-blank line),
/// or `None` when the file has none. Reads no further than that line.
pub fn read_provenance(path: &Path) -> Result<Option<Provenance>, TreeFileError> {
    let io = |source| TreeFileError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    for (index, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(io)?;
        let text = line.trim_start_matches('\u{feff}').trim();
        if text.is_empty() {
            continue;
        }
        return Ok(header_of(path, index + 1, text)?.map(|h| h.provenance));
    }
    Ok(None)
}

/// Writes trees one a line, in the given order, with no metadata line.
pub fn write_trees(out: &mut impl Write, trees: &[Tree]) -> std::io::Result<()> {
    for tree in trees {
        serde_json::to_writer(&mut *out, tree)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// Writes the metadata line of `provenance`, then the trees one a line.
pub fn write_tree_file(
    out: &mut impl Write,
    provenance: &Provenance,
    trees: &[Tree],
) -> std::io::Result<()> {
    serde_json::to_writer(&mut *out, &Header::new(provenance.clone()))?;
    out.write_all(b"\n")?;
    write_trees(out, trees)
}

/// Writes trees to `path` through a temporary file and a rename, so a crash never
/// leaves a half-written tree file behind; with `provenance`, its metadata line first.
pub fn save_trees_with(
    path: &Path,
    provenance: Option<&Provenance>,
    trees: &[Tree],
) -> Result<(), TreeFileError> {
    let io = |source| TreeFileError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut bytes = Vec::new();
    match provenance {
        Some(p) => write_tree_file(&mut bytes, p, trees),
        None => write_trees(&mut bytes, trees),
    }
    .map_err(io)?;
    write_atomic(path, &bytes).map_err(io)
}

/// Writes trees to `path` without a metadata line (see [`save_trees_with`]).
pub fn save_trees(path: &Path, trees: &[Tree]) -> Result<(), TreeFileError> {
    save_trees_with(path, None, trees)
}
