//! Use case: `moviegraph parse` — a screenplay file read into its elements
//! (summarised or as JSON), or scored line by line against a reference
//! version of the same script.

use std::path::Path;

use crate::screenplay::compare::{compare, render_table};
use crate::screenplay::summary::summary;
use crate::screenplay::{self, Format};

use super::{Context, Result};

/// What `parse` prints, and the lowest per-kind F1 (in %) when compared.
#[derive(Debug, Clone, PartialEq)]
pub struct Read {
    /// The summary, the JSON or the comparison table.
    pub text: String,
    /// The worst kind's F1 against the reference, in percent.
    pub worst_f1: Option<f64>,
}

/// Reads `file` (in `format`, else detected), against `reference` when given.
pub fn read_screenplay(
    file: &Path,
    format: Option<Format>,
    reference: Option<&Path>,
    json: bool,
) -> Result<Read> {
    let play = screenplay::parse_file(file, format)?;
    let Some(reference) = reference else {
        let text = if json {
            serde_json::to_string_pretty(&play)? + "\n"
        } else {
            summary(&play, true)
        };
        return Ok(Read {
            text,
            worst_f1: None,
        });
    };
    let reference = screenplay::parse_file(reference, None)
        .with_context(|| format!("reading the reference {}", reference.display()))?;
    let cmp = compare(&play.elements, &reference.elements);
    let text = if json {
        serde_json::to_string_pretty(&cmp)? + "\n"
    } else {
        render_table(&cmp)
    };
    let worst = cmp
        .kinds
        .values()
        .map(|k| k.f1 * 100.0)
        .fold(100.0, f64::min);
    Ok(Read {
        text,
        worst_f1: Some(worst),
    })
}
