//! `moviegraph run`: the main job on one film folder.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use clap::Args;
use moviegraph::screenplay::compare::compare;
use moviegraph::screenplay::{self, Format, Screenplay};

use super::{emit, parse::summary, Outcome};

/// Run the pipeline on a film folder with the offline defaults.
///
/// FILM_DIR holds the film's screenplay as `script.fountain`, `script.fdx`
/// and/or `script.txt` (any one is enough). Today the pipeline's first stage
/// runs: every screenplay version present is parsed, the preferred one
/// (Fountain, then FDX, then plain text) is summarised, and the other versions
/// are scored against it so a broken conversion shows up at once. Later stages
/// (alignment, graph, trees, evaluation) join this same command as they land.
///
/// Example:
///   moviegraph run screenplays/the-second-key
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct RunArgs {
    /// The film folder.
    film_dir: PathBuf,
}

const VERSIONS: [(&str, Format); 3] = [
    ("script.fountain", Format::Fountain),
    ("script.fdx", Format::Fdx),
    ("script.txt", Format::Text),
];

/// Parses every screenplay version in the folder and reports.
pub fn run(args: RunArgs) -> anyhow::Result<Outcome> {
    let dir = &args.film_dir;
    if !dir.is_dir() {
        bail!(
            "{}: not a folder; expected a film folder holding script.fountain, script.fdx or script.txt",
            dir.display()
        );
    }
    let film = film_name(dir);
    let mut parsed: Vec<Screenplay> = Vec::new();
    for (file, format) in VERSIONS {
        let path = dir.join(file);
        if path.exists() {
            tracing::info!("parsing {}", path.display());
            let play = screenplay::parse_file(&path, Some(format))
                .with_context(|| format!("stage parse, film {film}"))?;
            parsed.push(play);
        }
    }
    let Some(primary) = parsed.first() else {
        bail!(
            "{}: no screenplay found; expected one of script.fountain, script.fdx, script.txt",
            dir.display()
        );
    };

    let mut out = String::new();
    let _ = writeln!(out, "film {film}: stage parse (offline, deterministic)");
    out.push_str(&summary(primary, true));
    if parsed.len() > 1 {
        let _ = writeln!(
            out,
            "agreement of the other versions with {} (per-kind F1 on story elements):",
            primary.format.as_str()
        );
        for other in &parsed[1..] {
            let cmp = compare(&other.elements, &primary.elements);
            let worst = cmp
                .kinds
                .iter()
                .min_by(|a, b| a.1.f1.total_cmp(&b.1.f1))
                .map(|(k, s)| format!("lowest {k} {:.1} %", s.f1 * 100.0))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "  {:<8} micro F1 {:.1} %, {worst}, {} noise lines removed, {} diagnostics",
                other.format.as_str(),
                cmp.micro_f1 * 100.0,
                other.noise.len(),
                other.diagnostics.len()
            );
        }
    }
    let _ = writeln!(
        out,
        "next: `moviegraph parse {}/script.txt --against {}/script.fountain` for the full comparison",
        dir.display(),
        dir.display()
    );
    emit(&out)?;
    Ok(Outcome::Success)
}

fn film_name(dir: &Path) -> String {
    dir.canonicalize()
        .ok()
        .as_deref()
        .and_then(Path::file_name)
        .or_else(|| dir.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| dir.display().to_string())
}
