//! `moviegraph graph import`: a film's expert annotation as a graph build.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;
use moviegraph::store::{self, Store};
use moviegraph::workspace::film::FilmFolder;
use moviegraph::workspace::graph_import::{import_gold, EXPERT};
use moviegraph::workspace::lock::WriterLock;

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
    let folder = FilmFolder::open(&a.film_dir)?;
    let gold = a.gold.unwrap_or_else(|| a.film_dir.join("gold.json"));
    let store_path = store::resolve_path(a.store.as_deref());
    let _lock = WriterLock::acquire(
        &store_path,
        "moviegraph graph import",
        a.wait.mode(),
        &Terminal::notes(),
    )?;
    let store = Store::open(&store_path)?;
    let done = import_gold(&store, &folder, &gold)?;
    let slug = &folder.slug;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "film {slug}: {} {} as graph build {} (generator `{EXPERT}`: every element accepted), {} nodes, {} edges",
        if done.already { "already imported" } else { "imported" },
        gold.display(),
        done.build.0,
        done.nodes,
        done.edges,
    );
    if done.unplaced > 0 {
        let _ = writeln!(
            out,
            "{} evidence quotes are not in the script word for word; each was placed at the line of its scene sharing most of its words",
            done.unplaced
        );
    }
    let _ = writeln!(
        out,
        "next: moviegraph trees generate {} (trees from this graph), moviegraph graph export {}",
        a.film_dir.display(),
        a.film_dir.display()
    );
    emit(&out)?;
    Ok(Outcome::Success)
}
