//! `moviegraph parse`: one screenplay file to typed elements.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use moviegraph::screenplay::Format;
use moviegraph::workspace::parse_file::read_screenplay;

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
    let read = read_screenplay(
        &args.file,
        args.format.format(),
        args.against.as_deref(),
        args.json,
    )?;
    emit(&read.text)?;
    Ok(match read.worst_f1 {
        Some(worst) if worst + 1e-9 < args.min_f1 => Outcome::CheckFailed,
        _ => Outcome::Success,
    })
}
