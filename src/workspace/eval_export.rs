//! `eval export --to inspect`: stored runs as Inspect evaluation logs, one
//! JSON file per run (see [`crate::eval::inspect_log`]).

use std::path::{Path, PathBuf};

use crate::eval::inspect_log::{eval_log, RunForInspect};
use crate::eval::metrics::{compute, BootstrapSettings};
use crate::eval::protocol::{load_run, rotation_displays};
use crate::eval::subject::BASELINES;
use crate::store::{LabelTotals, Store};
use crate::util::fs::write_atomic;
use crate::util::report::Reporter;

use super::eval::trees_made_with;
use super::eval_run::eval_llm_label;
use super::review::now_ms;
use super::{bail, Context, Result};

/// One run written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exported {
    /// The run id.
    pub run: String,
    /// The log file.
    pub path: PathBuf,
    /// Samples (tree walks) in it.
    pub samples: usize,
    /// Its size in bytes.
    pub bytes: usize,
}

/// `text` as one part of an Inspect log file name (no `_`, which separates
/// the parts, and nothing a file system may refuse).
fn name_part(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-.@+".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// The file a log is written to under `out`, named as Inspect names its own
/// (`<created>_<task>_<id>.json`; its viewer lists only files named so):
/// `2026-11-29T12-00-00+00-00_moviegraph-the-second-key_random-s0-f77f72d0.json`.
pub fn log_path(out: &Path, created: &str, task: &str, run: &str) -> PathBuf {
    let stamp = created.replace(':', "-");
    out.join(format!(
        "{}_{}_{}.json",
        name_part(&stamp),
        name_part(task),
        name_part(run)
    ))
}

/// Logs of `run` written under `out` before (another export time).
fn earlier_logs(out: &Path, task: &str, run: &str) -> Vec<PathBuf> {
    let tail = format!("_{}_{}.json", name_part(task), name_part(run));
    std::fs::read_dir(out)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.ends_with(&tail))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The run's model usage, with a note where it is missing or shared.
fn usage_of(
    store: &Store,
    run: &str,
    subject: &str,
    human: bool,
) -> Result<(LabelTotals, Option<String>)> {
    let (totals, span) = store.llm_label_totals(&eval_llm_label(run))?;
    if !totals.is_empty() {
        return Ok(((totals, span), None));
    }
    // The passes of `--rotate` share one account, under the first pass's id.
    let displays = rotation_displays(0);
    if let Some(base) = displays[1..]
        .iter()
        .find_map(|(_, suffix)| run.strip_suffix(suffix))
    {
        let (totals, span) = store.llm_label_totals(&eval_llm_label(base))?;
        if !totals.is_empty() {
            return Ok((
                (totals, span),
                Some(format!(
                    "usage of all five --rotate passes of {base}, recorded together"
                )),
            ));
        }
    }
    let note = if human || BASELINES.contains(&subject) {
        "no model calls: a baseline or a person answered".to_owned()
    } else {
        "no model calls recorded under this run: `moviegraph run` accounts a pipeline's calls \
         together (`llm usage`), and answers from the store's cache cost nothing"
            .to_owned()
    };
    Ok(((Vec::new(), None), Some(note)))
}

/// Writes each run in `runs` as an Inspect log under `out`; returns what was
/// written, in the order given. `progress` is called after each run.
pub fn export_inspect(
    store_path: &Path,
    runs: &[String],
    out: &Path,
    bootstrap: BootstrapSettings,
    reporter: &dyn Reporter,
) -> Result<Vec<Exported>> {
    if runs.is_empty() {
        bail!("name at least one run (`moviegraph eval report` lists none? see `moviegraph store info`)");
    }
    let store = Store::open(store_path)?;
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let bar = reporter.bar("runs");
    bar.restart(runs.len() as u64);
    let exported_ms = now_ms();
    let mut written = Vec::new();
    for id in runs {
        let loaded = load_run(&store, id)?;
        // `eval report`'s figures; the trees files' provenance without their
        // validity audit, which is the trees' (`trees audit`), not the run's.
        let mut metrics = compute(&loaded, bootstrap);
        metrics.made = trees_made_with(&loaded, false);
        let annotator = store.eval_run_annotator(id)?;
        if let Some(person) = &annotator {
            metrics.subject = format!("{} ({person})", metrics.subject);
        }
        let ((usage, span_ms), usage_note) =
            usage_of(&store, id, &loaded.run.subject, annotator.is_some())?;
        let log = eval_log(&RunForInspect {
            loaded: &loaded,
            metrics: &metrics,
            annotator: annotator.as_deref(),
            usage: &usage,
            usage_note,
            span_ms,
            exported_ms,
        });
        let text = serde_json::to_string(&log)?;
        let created = log["eval"]["created"].as_str().unwrap_or_default();
        let task = log["eval"]["task"].as_str().unwrap_or("moviegraph");
        let path = log_path(out, created, task, id);
        let earlier = earlier_logs(out, task, id);
        write_atomic(&path, text.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
        // One log per run in the folder: an earlier export of it goes.
        for old in earlier.into_iter().filter(|p| *p != path) {
            std::fs::remove_file(&old).with_context(|| format!("removing {}", old.display()))?;
        }
        written.push(Exported {
            run: id.clone(),
            path,
            samples: log["samples"].as_array().map_or(0, Vec::len),
            bytes: text.len(),
        });
        bar.advance(1);
    }
    Ok(written)
}
