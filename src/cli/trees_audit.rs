//! `moviegraph trees audit`: the validity report of tree files (ours or
//! anyone's): shortcut readers against chance, balance, give-aways,
//! redundancy and coverage. Exit 1 when a threshold is broken.

use std::path::PathBuf;

use clap::Args;
use moviegraph::trees::audit::Thresholds;
use moviegraph::workspace::audit::audit_files;
use moviegraph::workspace::store_path;

use super::{emit, Outcome};

/// When a tree set fails the audit (each flag sets one threshold).
#[derive(Debug, Clone, Args)]
pub struct ThresholdArgs {
    /// Most any shortcut reader may score above chance (accuracy − chance).
    #[arg(long, default_value_t = 0.05)]
    pub max_excess: f64,
    /// Most duplicate or near-duplicate questions within a film.
    #[arg(long, default_value_t = 0)]
    pub max_duplicates: usize,
    /// Most follow-ups that re-ask their parent's link.
    #[arg(long, default_value_t = 0)]
    pub max_reasks: usize,
    /// Most give-aways (a question holding its answer, a narration line stating it).
    #[arg(long, default_value_t = 0)]
    pub max_giveaways: usize,
    /// Largest share of multiple-choice questions with the same number of correct options.
    #[arg(long, default_value_t = 0.5)]
    pub max_count_share: f64,
    /// Least share of the film's scenes the anchors must span (with a film).
    #[arg(long, default_value_t = 0.9)]
    pub min_scene_span: f64,
    /// Most questions about blocks the film does not contain (with a film).
    #[arg(long, default_value_t = 0)]
    pub max_outside_film: usize,
}

impl ThresholdArgs {
    /// The thresholds these flags set.
    pub fn thresholds(&self) -> Thresholds {
        Thresholds {
            max_excess: self.max_excess,
            max_duplicates: self.max_duplicates,
            max_reasks: self.max_reasks,
            max_giveaways: self.max_giveaways,
            max_count_share: self.max_count_share,
            min_scene_span: self.min_scene_span,
            max_outside_film: self.max_outside_film,
        }
    }
}

/// Arguments of `trees audit`.
#[derive(Debug, Args)]
pub struct AuditArgs {
    /// trees/<film>.jsonl files; each is audited on its own.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// The film folder, for coverage (scenes spanned, questions about blocks
    /// the film does not contain). Default: screenplays/<film> when it exists;
    /// without a film, coverage is not measured. Only with one file.
    #[arg(long)]
    film: Option<PathBuf>,
    /// The graph the trees were made from (a `graph export` JSON file), for
    /// the share of golds resting on a state the graph ends before the
    /// question's scene. Default: the store's latest build of the film; not
    /// measured without one. Only with one file and a film
    #[arg(long, value_name = "GRAPH.json")]
    graph: Option<PathBuf>,
    /// The workspace database whose alignment gives the film's blocks (only
    /// read; default: $MOVIEGRAPH_STORE or moviegraph.db; a fresh offline
    /// alignment is made in memory when it holds none).
    #[arg(long)]
    store: Option<PathBuf>,
    /// The trees are script-only (`--text-only`): questions about blocks the
    /// film does not contain are allowed.
    #[arg(long)]
    text_only: bool,
    /// Print JSON (an array, one object per file) instead of tables.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    thresholds: ThresholdArgs,
}

/// Runs `moviegraph trees audit`.
pub fn audit_cmd(a: AuditArgs) -> anyhow::Result<Outcome> {
    let (text, passed) = audit_files(
        &a.files,
        a.film.as_deref(),
        a.graph.as_deref(),
        &store_path(a.store.as_deref()),
        a.text_only,
        a.thresholds.thresholds(),
        a.json,
    )?;
    emit(&text)?;
    Ok(if passed {
        Outcome::Success
    } else {
        Outcome::CheckFailed
    })
}
