//! `moviegraph run`: the main job on one film folder.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use clap::Args;
use moviegraph::align::{attach_shots, AlignOptions};
use moviegraph::media::subtitles;
use moviegraph::screenplay::compare::compare;
use moviegraph::screenplay::{self, Format, Screenplay};
use moviegraph::store::{AlignmentRecord, AlignmentSources};

use super::{align, emit, parse::summary, Outcome};

/// Run the pipeline on a film folder with the offline defaults.
///
/// FILM_DIR holds the film's screenplay as `script.fountain`, `script.fdx`
/// and/or `script.txt` (any one is enough). Every screenplay version present
/// is parsed, the preferred one (Fountain, then FDX, then plain text) is
/// summarised, and the other versions are scored against it so a broken
/// conversion shows up at once.
///
/// When the folder also holds `subtitles.srt` or `subtitles.vtt`, the script
/// is aligned with them and the result is saved in the workspace store. Shots
/// come from a keyframe manifest in the folder (`keyframes.csv` or
/// `keyframes.json`), else a MovieNet layout in `FILM_DIR/keyframes/` or in
/// `keyframes/<film>/` beside the folder's parent (as the bundled sample has).
/// Later stages (graph, trees, evaluation) join this same command as they land.
///
/// Example:
///   moviegraph run screenplays/the-second-key
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct RunArgs {
    /// The film folder.
    film_dir: PathBuf,
    /// The workspace database the alignment is saved in (default:
    /// $MOVIEGRAPH_STORE, else moviegraph.db in the working directory).
    #[arg(long, value_name = "PATH")]
    store: Option<PathBuf>,
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
    if let Some(text) = align_stage(&args, &film, primary)? {
        out.push_str(&text);
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
    align::folder_name(dir)
}

/// The film's shots: a manifest in the folder, else a MovieNet layout.
pub(super) fn find_shots(dir: &Path, film: &str) -> Option<PathBuf> {
    for name in ["keyframes.csv", "keyframes.json"] {
        let path = dir.join(name);
        if path.is_file() {
            return Some(path);
        }
    }
    let parent = dir.canonicalize().ok()?.parent()?.parent()?.to_path_buf();
    let found = [dir.join("keyframes"), parent.join("keyframes").join(film)]
        .into_iter()
        .find(|d| d.join("shot_txt").is_dir())?;
    // Keyframe paths end up in the store, the graph export and the trees; keep
    // them relative to the workspace so those files are the same on every machine.
    Some(relative_to_cwd(found))
}

/// `path` relative to the working directory when it lies inside it, else unchanged.
fn relative_to_cwd(path: PathBuf) -> PathBuf {
    let Some(cwd) = std::env::current_dir()
        .ok()
        .and_then(|d| d.canonicalize().ok())
    else {
        return path;
    };
    match path.strip_prefix(&cwd) {
        Ok(rel) => rel.to_path_buf(),
        Err(_) => path,
    }
}

/// Aligns the primary script with the folder's subtitles, when it has any,
/// saves the result and returns a short summary.
fn align_stage(args: &RunArgs, film: &str, play: &Screenplay) -> anyhow::Result<Option<String>> {
    let dir = &args.film_dir;
    let Some(subs_path) = ["subtitles.srt", "subtitles.vtt"]
        .into_iter()
        .map(|f| dir.join(f))
        .find(|p| p.is_file())
    else {
        return Ok(None);
    };
    let script_path = play
        .source
        .clone()
        .context("the parsed screenplay has no file")?;
    tracing::info!("aligning with {}", subs_path.display());
    let subs = subtitles::parse_file(&subs_path, None)
        .with_context(|| format!("stage align, film {film}"))?;
    let started = std::time::Instant::now();
    let mut alignment = moviegraph::align::align(play, &subs, &AlignOptions::default());
    let elapsed = started.elapsed();
    let shots = match find_shots(dir, film) {
        Some(path) => Some(
            align::load_shots(&path, None, None)
                .with_context(|| format!("stage align, film {film}"))?,
        ),
        None => None,
    };
    if let Some((list, _)) = &shots {
        attach_shots(&mut alignment, list, 5, 3_000);
    }
    let sources = AlignmentSources {
        script: align::fingerprint(&script_path)?,
        subtitles: align::fingerprint(&subs_path)?,
        shots: shots.as_ref().map(|(_, f)| f.clone()),
    };
    let db = align::save(
        args.store.as_deref(),
        film,
        &AlignmentRecord {
            play,
            subtitles: &subs,
            shots: shots.as_ref().map(|(l, _)| l),
            alignment: &alignment,
            sources: &sources,
        },
    )?;
    let s = &alignment.summary;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "stage align: {} ({} of {} dialogue lines matched to {} cues, coverage {:.1} %, mean confidence {:.3}, {:.1} ms; embedder {}, the offline baseline)",
        s.verdict.as_str(),
        s.matched,
        s.dialogue_lines,
        s.cues,
        s.coverage * 100.0,
        s.mean_confidence,
        elapsed.as_secs_f64() * 1e3,
        s.embedder
    );
    let timed = alignment
        .blocks
        .iter()
        .filter(|b| b.start_ms.is_some())
        .count();
    let keyframes = match &shots {
        Some((list, f)) => format!(
            "{} shots from {}, {} keyframes attached",
            list.shots.len(),
            f.path,
            alignment
                .blocks
                .iter()
                .map(|b| b.keyframes.len())
                .sum::<usize>()
        ),
        None => "no shots found".to_owned(),
    };
    let _ = writeln!(
        out,
        "  {} blocks ({timed} timed), {keyframes}; saved as film {film} in {}",
        alignment.blocks.len(),
        db.display()
    );
    Ok(Some(out))
}
