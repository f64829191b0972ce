//! `moviegraph parse`: one screenplay file to typed elements.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, ValueEnum};
use moviegraph::screenplay::compare::{compare, Comparison};
use moviegraph::screenplay::summary::summary;
use moviegraph::screenplay::{self, Format};

use super::{emit, Outcome};

/// Parse a screenplay (Fountain, Final Draft FDX, or laid-out plain text) into
/// typed, ordered elements.
///
/// Prints a readable summary, or with --json one object with `elements`,
/// `scenes`, `characters`, `noise` and `diagnostics`. Problems in the script
/// are reported with their line and never stop the parse; only a file that is
/// not a screenplay at all (binary, empty, malformed XML, too large) is an
/// error (exit 2).
///
/// Examples:
///   moviegraph parse screenplays/the-second-key/script.fountain
///   moviegraph parse script.txt --json | jq '.elements[] | select(.kind=="dialogue")'
///   moviegraph parse script.txt --against script.fountain
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct ParseArgs {
    /// The screenplay file.
    file: PathBuf,
    /// Input format; `auto` decides from the extension and the layout.
    #[arg(long, value_enum, default_value_t = FormatArg::Auto)]
    format: FormatArg,
    /// Print the full result as JSON instead of a summary.
    #[arg(long)]
    json: bool,
    /// Score this parse against a reference parse of the same script (e.g. the
    /// Fountain version): per-kind precision, recall and F1. Exit 1 when any
    /// kind's F1 is below --min-f1.
    #[arg(long, value_name = "REFERENCE")]
    against: Option<PathBuf>,
    /// With --against: the lowest acceptable F1 per element kind, in percent.
    #[arg(long, default_value_t = 97.0, requires = "against")]
    min_f1: f64,
}

/// `--format` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// Decide from the extension and the layout.
    Auto,
    /// Fountain markup.
    Fountain,
    /// Final Draft XML.
    Fdx,
    /// Laid-out plain text (IMSDb, PDF-to-text).
    Text,
}

impl FormatArg {
    /// The explicit format, or `None` for auto-detection.
    pub fn format(self) -> Option<Format> {
        match self {
            FormatArg::Auto => None,
            FormatArg::Fountain => Some(Format::Fountain),
            FormatArg::Fdx => Some(Format::Fdx),
            FormatArg::Text => Some(Format::Text),
        }
    }
}

/// Parses one file and prints its summary, JSON, or comparison.
pub fn parse(args: ParseArgs) -> anyhow::Result<Outcome> {
    let play = screenplay::parse_file(&args.file, args.format.format())?;
    if let Some(reference) = &args.against {
        let reference = screenplay::parse_file(reference, None)
            .with_context(|| format!("reading the reference {}", reference.display()))?;
        let cmp = compare(&play.elements, &reference.elements);
        if args.json {
            emit(&(serde_json::to_string_pretty(&cmp)? + "\n"))?;
        } else {
            emit(&comparison_table(&cmp))?;
        }
        let worst = cmp
            .kinds
            .values()
            .map(|k| k.f1 * 100.0)
            .fold(100.0, f64::min);
        return Ok(if worst + 1e-9 >= args.min_f1 {
            Outcome::Success
        } else {
            Outcome::CheckFailed
        });
    }
    if args.json {
        emit(&(serde_json::to_string_pretty(&play)? + "\n"))?;
    } else {
        emit(&summary(&play, true))?;
    }
    Ok(Outcome::Success)
}

/// The per-kind precision/recall/F1 table of a comparison.
pub fn comparison_table(cmp: &Comparison) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<15} {:>6} {:>6} {:>6} {:>8} {:>8} {:>8}",
        "kind", "ref", "pred", "match", "P %", "R %", "F1 %"
    );
    for (kind, k) in &cmp.kinds {
        let _ = writeln!(
            s,
            "{:<15} {:>6} {:>6} {:>6} {:>8.2} {:>8.2} {:>8.2}",
            kind.as_str(),
            k.reference,
            k.predicted,
            k.matched,
            k.precision * 100.0,
            k.recall * 100.0,
            k.f1 * 100.0
        );
    }
    let _ = writeln!(s, "micro F1: {:.2} %", cmp.micro_f1 * 100.0);
    for (k, line, text) in &cmp.missed {
        let _ = writeln!(s, "  missed   {k} (ref line {line}): {}", clip(text));
    }
    for (k, line, text) in &cmp.spurious {
        let _ = writeln!(s, "  spurious {k} (line {line}): {}", clip(text));
    }
    s
}

fn clip(text: &str) -> String {
    let t: String = text.chars().take(70).collect();
    if t.len() < text.len() {
        format!("{t}…")
    } else {
        t
    }
}
