//! `moviegraph doctor`: is this workspace ready to run? Films, configuration,
//! keys, model files, endpoints and the store, each an ok/warn/fail finding
//! that says what to do.

use std::path::PathBuf;

use clap::Args;
use moviegraph::workspace::doctor::check;

use super::{emit, Outcome};

/// Check the workspace: film folders under screenplays/ (parseable screenplay
/// and subtitles, keyframes), the configuration (every role resolves, API key
/// variables set — never shown), model files (scripts/setup-models), each
/// configured endpoint (one tiny request), and the store (opens, integrity,
/// schema). Exit 1 when anything fails.
#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// The configuration (default: ./moviegraph.toml if present, else the
    /// offline defaults).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The workspace database (default: $MOVIEGRAPH_STORE or moviegraph.db).
    #[arg(long)]
    store: Option<PathBuf>,
    /// The workspace folder holding screenplays/ and keyframes/.
    #[arg(long, default_value = ".")]
    workspace: PathBuf,
}

/// Runs `moviegraph doctor`.
pub fn doctor(args: DoctorArgs) -> anyhow::Result<Outcome> {
    let f = check(
        &args.workspace,
        args.config.as_deref(),
        args.store.as_deref(),
    )?;
    emit(&f.text)?;
    Ok(if f.failed == 0 {
        Outcome::Success
    } else {
        Outcome::CheckFailed
    })
}
