//! `moviegraph merge`: several stores (one per machine of a job array) into one.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;
use moviegraph::store::{MergeError, Store};
use moviegraph::workspace::lock::WriterLock;

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
    let _lock = WriterLock::acquire(
        &args.into,
        "moviegraph merge",
        args.wait.mode(),
        &Terminal::notes(),
    )?;
    let mut out = Store::open(&args.into)?;
    let report = match out.merge_from(&args.stores) {
        Ok(report) => report,
        Err(MergeError::Conflicts(conflicts)) => {
            eprintln!(
                "merge refused: {} conflict(s); {} is unchanged",
                conflicts.len(),
                args.into.display()
            );
            for c in &conflicts {
                eprintln!("  {c}");
            }
            return Ok(Outcome::CheckFailed);
        }
        Err(err) => return Err(err.into()),
    };
    let mut text = String::new();
    for s in &report {
        if s.is_destination {
            let _ = writeln!(
                text,
                "{}: the destination itself, skipped",
                s.path.display()
            );
            continue;
        }
        let c = &s.counts;
        let _ = writeln!(
            text,
            "{}: films +{} ({} present), alignments +{} ({}), graph builds +{} ({}), \
             eval runs +{} ({}), llm cache +{} ({} present, {} differing, kept), \
             llm runs +{} ({}), llm calls +{}, embeddings +{} ({})",
            s.path.display(),
            c.films_added,
            c.films_present,
            c.alignments_added,
            c.alignments_present,
            c.builds_added,
            c.builds_present,
            c.eval_runs_added,
            c.eval_runs_present,
            c.cache_added,
            c.cache_present,
            c.cache_differing,
            c.llm_runs_added,
            c.llm_runs_present,
            c.llm_calls_added,
            c.embeddings_added,
            c.embeddings_present,
        );
    }
    let _ = writeln!(
        text,
        "merged {} store(s) into {}",
        report.len(),
        args.into.display()
    );
    emit(&text)?;
    Ok(Outcome::Success)
}
