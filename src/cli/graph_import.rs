//! `moviegraph graph import`: a film's expert annotation as a graph build.

use std::path::PathBuf;

use clap::Args;
use moviegraph::workspace::graph_import::import_gold_file;
use moviegraph::workspace::store_path;

use super::report::Terminal;
use super::{emit, Outcome};

/// Arguments of `graph import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The film folder the annotation is of (its script places each quote).
    film_dir: PathBuf,
    /// The annotation (the gold format of docs/graph-format.md; default: the film folder's
    /// gold.json).
    #[arg(long, value_name = "GOLD.json")]
    gold: Option<PathBuf>,
    /// The workspace database (default: $MOVIEGRAPH_STORE or moviegraph.db).
    #[arg(long)]
    store: Option<PathBuf>,
    #[command(flatten)]
    wait: super::WaitArgs,
}

/// Runs `graph import`.
pub fn import_cmd(a: ImportArgs) -> anyhow::Result<Outcome> {
    let text = import_gold_file(
        &a.film_dir,
        a.gold.as_deref(),
        &store_path(a.store.as_deref()),
        a.wait.mode(),
        &Terminal::notes(),
    )?;
    emit(&text)?;
    Ok(Outcome::Success)
}
