//! Use case: `moviegraph graph build` — a film's verified graph, block by
//! block, with the roles the configuration names (the offline `rules`
//! baseline when it names no model), and the lines the command prints: what
//! ran, the blocks built now and resumed, the calls per block, what was
//! dropped, and the construction table.

use std::fmt::Write as _;
use std::path::PathBuf;

use crate::graph::build::{BuildOptions, FilmInput};
use crate::graph::stats::{render, stats};
use crate::graph::store::GraphStore;
use crate::llm::Config;
use crate::store::Store;
use crate::util::report::Reporter;

use super::align::film_blocks;
use super::cast::{open_llm, GraphRoles};
use super::film::FilmFolder;
use super::graph::build_graph;
use super::lock::{Wait, WriterLock};
use super::Result;

/// Dropped items listed in the text output of `graph build`; the rest are
/// counted (all are logged at `-v`).
pub const DROPS_SHOWN: usize = 10;

/// What `graph build` was asked to do.
#[derive(Debug, Clone)]
pub struct BuildRequest {
    /// The film folder.
    pub film_dir: PathBuf,
    /// The workspace database.
    pub store: PathBuf,
    /// The keyframe folder, when the film has one elsewhere.
    pub keyframes: Option<PathBuf>,
    /// Consensus, review, grouping, keyframes and where to stop.
    pub options: BuildOptions,
    /// Wait for the store's writer lock, or stop.
    pub wait: Wait,
    /// The model configuration (the graph roles).
    pub config: Config,
}

/// Runs `graph build` as `request` says and returns what the command prints;
/// waits and notes go to `reporter`.
pub fn build_film_graph(request: &BuildRequest, reporter: &dyn Reporter) -> Result<String> {
    let folder = FilmFolder::open(&request.film_dir)?;
    let slug = folder.slug.clone();
    let _lock = WriterLock::acquire(
        &request.store,
        "moviegraph graph build",
        request.wait,
        reporter,
    )?;
    let store = Store::open(&request.store)?;
    let (play, blocks, source) = film_blocks(&store, &folder, request.keyframes.as_deref())?;
    let chosen = GraphRoles::from_config(&request.config)?;
    let llm = if chosen.needs_models() {
        Some(open_llm(
            request.config.clone(),
            &request.store,
            &format!("graph build {slug}"),
            None,
        )?)
    } else {
        None
    };
    let owned = chosen.open(llm.as_ref(), None)?;
    let roles = owned.roles();
    let title = play.title_field("title").map(str::to_owned);
    let input = FilmInput {
        slug: &slug,
        title: title.as_deref(),
        play: &play,
        blocks: &blocks,
    };
    let report = build_graph(&store, &input, &roles, &request.options, None, &mut |_| {})?.report;
    let t = &report.totals;
    let per = |x: u64| {
        if report.processed == 0 {
            0.0
        } else {
            x as f64 / report.processed as f64
        }
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "film {slug}: stage graph ({})\n{}\nblocks {}: {} built now, {} already done{}\ncandidates proposed now: {}, dropped by validation: {}\ncalls per built block: generator {:.2}, auditors {:.2}, adjudicator {:.2}; time per block {:.2} ms",
        chosen.describe(),
        source.describe(),
        report.blocks,
        report.processed,
        report.skipped,
        if report.complete { "" } else { " (incomplete: run again to resume)" },
        report.candidates,
        t.dropped,
        per(t.generator_calls),
        per(t.auditor_calls),
        per(t.adjudicator_calls),
        per(t.elapsed_us) / 1000.0
    );
    for why in report.dropped.iter().take(DROPS_SHOWN) {
        let _ = writeln!(out, "  dropped: {why}");
    }
    if report.dropped.len() > DROPS_SHOWN {
        let _ = writeln!(
            out,
            "  … and {} more dropped (run with -v to log every one)",
            report.dropped.len() - DROPS_SHOWN
        );
    }
    if let Some(build) = report.build {
        out.push_str(&render(&stats(
            &store.graph_candidates(build)?,
            &store.graph_merges(build)?,
        )));
    }
    Ok(out)
}
