//! `trees/<film>.jsonl`: one [`Tree`] a line. Writing is deterministic (the same
//! trees give the same bytes); reading reports the file and line of a bad tree.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

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

/// Reads every tree of a JSONL file; blank lines are skipped.
pub fn read_trees(path: &Path) -> Result<Vec<Tree>, TreeFileError> {
    let io = |source| TreeFileError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut trees = Vec::new();
    for (index, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(io)?;
        let text = line.trim_start_matches('\u{feff}').trim();
        if text.is_empty() {
            continue;
        }
        let tree = serde_json::from_str(text).map_err(|err| TreeFileError::Line {
            path: path.to_path_buf(),
            line: index + 1,
            message: err.to_string(),
        })?;
        trees.push(tree);
    }
    Ok(trees)
}

/// Writes trees one a line, in the given order.
pub fn write_trees(out: &mut impl Write, trees: &[Tree]) -> std::io::Result<()> {
    for tree in trees {
        serde_json::to_writer(&mut *out, tree)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// Writes trees to `path` through a temporary file and a rename, so a crash never
/// leaves a half-written tree file behind.
pub fn save_trees(path: &Path, trees: &[Tree]) -> Result<(), TreeFileError> {
    let io = |source| TreeFileError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut bytes = Vec::new();
    write_trees(&mut bytes, trees).map_err(io)?;
    write_atomic(path, &bytes).map_err(io)
}
