//! `moviegraph merge`: several stores (one per machine of a job array) into one.

use std::path::PathBuf;

use clap::Args;
use moviegraph::workspace::merge::{merge_stores, Merged};

use super::report::Terminal;
use super::{emit, Outcome};

/// Combine several stores into one: films with their alignments, graph builds,
/// evaluation runs, the model response cache and call logs, the embedding
/// cache. Rows are matched by natural keys (film slug, build settings, run
/// name, cache key), so merging a store twice changes nothing. A film aligned
/// from different inputs, or a build or eval run with the same key and other
/// contents, is a conflict: every conflict is listed, nothing is written, and
/// the exit code is 1. See docs/scale.md.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The destination store (created if absent).
    #[arg(long, value_name = "OUT.db")]
    into: PathBuf,
    /// The stores to merge in (opened read-only).
    #[arg(required = true, value_name = "STORE")]
    stores: Vec<PathBuf>,
    #[command(flatten)]
    wait: super::WaitArgs,
}

/// Runs `moviegraph merge`.
pub fn merge(args: MergeArgs) -> anyhow::Result<Outcome> {
    match merge_stores(
        &args.into,
        &args.stores,
        args.wait.mode(),
        &Terminal::notes(),
    )? {
        Merged::Done(text) => {
            emit(&text)?;
            Ok(Outcome::Success)
        }
        Merged::Refused(lines) => {
            for line in lines {
                eprintln!("{line}");
            }
            Ok(Outcome::CheckFailed)
        }
    }
}
