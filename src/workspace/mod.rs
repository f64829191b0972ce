//! The application layer: what happens when someone runs a film.
//!
//! Below it are the stages (`screenplay` → `media` → `align` → `graph` →
//! `trees` → `eval`), each a library that knows nothing of film folders,
//! configuration files or stage bookkeeping. Here those stages become use
//! cases, each written once and called both by its own command (`align`,
//! `graph build`, `trees generate`, `eval run`, `eval report`) and by `run`:
//!
//! - [`film`]: a film folder and its inputs, its slug, its shots;
//! - [`cast`]: who serves each model role, from the configuration;
//! - [`align`]: align a film; the blocks of a film, stored or re-aligned;
//! - [`graph`], [`trees`], [`eval`]: the stage use cases;
//! - [`run`]: the whole pipeline per film with stage fingerprints, plans and
//!   reasons, atomic writes and one progress display;
//! - [`lock`]: one writer per store at a time.
//!
//! Above it are only the front ends (`cli`, `walk`, `bench`), which parse,
//! call one function here, and print.

mod error;

pub mod align;
pub mod align_files;
pub mod audit;
pub mod cast;
pub mod doctor;
pub mod embedder;
pub mod eval;
pub mod eval_export;
pub mod eval_report;
pub mod eval_run;
pub mod film;
pub mod gates;
pub mod graph;
pub mod graph_build;
pub mod graph_files;
pub mod graph_import;
pub mod keyframes;
pub mod llm_batch;
pub mod local_generate;
pub mod lock;
pub mod merge;
pub mod models;
pub mod parse_file;
pub mod review;
pub mod review_figures;
pub mod run;
pub mod score;
pub mod shots;
pub mod trees;
pub mod trees_files;
pub mod trees_generate;

pub(crate) use error::bail;

/// The workspace database a command uses: `flag` when given, else
/// `$MOVIEGRAPH_STORE`, else `moviegraph.db` in the working directory.
pub fn store_path(flag: Option<&std::path::Path>) -> std::path::PathBuf {
    crate::store::resolve_path(flag)
}
pub use error::{Cause, Context, Error, Result};
