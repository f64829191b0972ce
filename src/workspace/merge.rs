//! Use case: `moviegraph merge` — other stores' films, alignments, graph
//! builds, eval runs, model cache and embeddings merged into one.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::store::{MergeError, Store};
use crate::util::report::Reporter;

use super::lock::{Wait, WriterLock};
use super::Result;

/// How a merge ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Merged {
    /// Merged: a line per store and a total.
    Done(String),
    /// Refused for conflicts, the destination unchanged: the lines to tell.
    Refused(Vec<String>),
}

/// `merge`: the stores `stores` merged into `into` under its writer lock.
/// A conflict leaves `into` unchanged and is returned as
/// [`Merged::Refused`] with a line per conflict.
pub fn merge_stores(
    into: &Path,
    stores: &[PathBuf],
    wait: Wait,
    reporter: &dyn Reporter,
) -> Result<Merged> {
    let _lock = WriterLock::acquire(into, "moviegraph merge", wait, reporter)?;
    let mut out = Store::open(into)?;
    let report = match out.merge_from(stores) {
        Ok(report) => report,
        Err(MergeError::Conflicts(conflicts)) => {
            let mut lines = vec![format!(
                "merge refused: {} conflict(s); {} is unchanged",
                conflicts.len(),
                into.display()
            )];
            lines.extend(conflicts.iter().map(|c| format!("  {c}")));
            return Ok(Merged::Refused(lines));
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
        into.display()
    );
    Ok(Merged::Done(text))
}
