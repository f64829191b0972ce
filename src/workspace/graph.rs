//! Use case: build (or resume) a film's verified graph block by block, and its
//! JSON export. `moviegraph graph build`, `graph export` and `run` come here.

use std::path::Path;

use crate::graph::analysis::analyse;
use crate::graph::build::{build, BuildOptions, BuildReport, FilmInput, Roles, Settings};
use crate::graph::export::to_json;
use crate::graph::stats::{stats, Stats};
use crate::graph::store::GraphStore;
use crate::graph::Graph;
use crate::store::{GraphBuildId, Store};

use super::{Context, Result};

/// The build key `graph::build` will use for these roles and options.
pub fn settings_key(roles: &Roles<'_>, opts: &BuildOptions) -> String {
    Settings::of(roles, opts).key()
}

/// A build that ran now: the figures of this run, summed over its slices.
#[derive(Debug, Clone)]
pub struct GraphBuilt {
    /// This run's figures (`skipped`: blocks finished before it started).
    pub report: BuildReport,
    /// The build in the store.
    pub build: GraphBuildId,
}

/// Builds (or resumes) the graph of a film from its blocks. With `slice`,
/// the build runs `slice` blocks at a time (each slice committed, so a
/// progress display can move) until the film is done or `opts.stop_after`
/// blocks were built; `on_slice` hears of each slice's report.
pub fn build_graph(
    store: &Store,
    input: &FilmInput<'_>,
    roles: &Roles<'_>,
    opts: &BuildOptions,
    slice: Option<usize>,
    on_slice: &mut dyn FnMut(&BuildReport),
) -> Result<GraphBuilt> {
    let slug = input.slug;
    let limit = opts.stop_after;
    let mut total: Option<BuildReport> = None;
    loop {
        let built = total.as_ref().map_or(0, |t| t.processed);
        let step = match (slice, limit) {
            (Some(s), Some(l)) => Some(s.min(l.saturating_sub(built))),
            (Some(s), None) => Some(s),
            (None, l) => l,
        };
        let r = build(
            store,
            input,
            roles,
            &BuildOptions {
                stop_after: step,
                ..*opts
            },
        )
        .with_context(|| format!("stage graph, film {slug}"))?;
        on_slice(&r);
        let last = slice.is_none()
            || r.complete
            || r.processed == 0
            || limit.is_some_and(|l| built + r.processed >= l);
        total = Some(match total {
            None => r,
            Some(mut t) => {
                t.processed += r.processed;
                t.candidates += r.candidates;
                t.totals.generator_calls += r.totals.generator_calls;
                t.totals.auditor_calls += r.totals.auditor_calls;
                t.totals.adjudicator_calls += r.totals.adjudicator_calls;
                t.totals.dropped += r.totals.dropped;
                t.totals.elapsed_us += r.totals.elapsed_us;
                t.dropped.extend(r.dropped);
                t.complete = r.complete;
                t.build = r.build.or(t.build);
                t
            }
        });
        if last {
            break;
        }
    }
    let report = total.context("the graph build ran no slice")?;
    let build = report.build.context("the graph build has no id")?;
    Ok(GraphBuilt { report, build })
}

/// A stored build's graph, its construction table, and its JSON export.
pub struct GraphExport {
    /// The verified graph.
    pub graph: Graph,
    /// Candidates, verified, agreement.
    pub stats: Stats,
    /// `graphs/<film>.json`'s text.
    pub json: String,
}

/// The graph of `build` (settings key `settings`) as the JSON export.
pub fn export_graph(
    store: &Store,
    slug: &str,
    build: GraphBuildId,
    settings: &str,
) -> Result<GraphExport> {
    let candidates = store.graph_candidates(build)?;
    let graph = Graph::assemble(slug, &candidates);
    let st = stats(&candidates, &store.graph_merges(build)?);
    let json = to_json(&graph, settings, &st, &analyse(&graph));
    Ok(GraphExport {
        graph,
        stats: st,
        json,
    })
}

/// The latest graph build of film `slug`, with its settings key.
pub fn latest_build(store: &Store, slug: &str) -> Result<(GraphBuildId, String)> {
    let film = store.film_id(slug)?.with_context(|| {
        format!(
            "film {slug} is not in the store {}; run `moviegraph graph build` first",
            store.path().display()
        )
    })?;
    store.graph_latest_build(film)?.with_context(|| {
        format!(
            "film {slug} has no graph build in {}",
            store.path().display()
        )
    })
}

/// The graph of a film: read from a graph export when `file` is given, else
/// assembled from the film's latest build.
pub fn load_graph(store: &Store, slug: &str, file: Option<&Path>) -> Result<Graph> {
    Ok(load_graph_with_settings(store, slug, file)?.0)
}

/// As [`load_graph`], with the settings of the build it came from (the
/// export's `settings`, or the stored build's key): who generated, audited
/// and adjudicated it. `None` when an export carries no readable settings.
pub fn load_graph_with_settings(
    store: &Store,
    slug: &str,
    file: Option<&Path>,
) -> Result<(Graph, Option<Settings>)> {
    match file {
        Some(path) => read_graph_export(path),
        None => {
            let (build, key) = latest_build(store, slug)?;
            let settings = build_settings(&key);
            Ok((
                Graph::assemble(slug, &store.graph_candidates(build)?),
                settings,
            ))
        }
    }
}

/// A graph export (`graph export`, `graphs/<film>.json`) with the settings
/// it records, its nodes in id order.
pub fn read_graph_export(path: &Path) -> Result<(Graph, Option<Settings>)> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("{}: not a graph export", path.display()))?;
    let settings = value
        .get("settings")
        .and_then(|s| serde_json::from_value::<Settings>(s.clone()).ok());
    let mut g: Graph = serde_json::from_value(value)
        .with_context(|| format!("{}: not a graph export", path.display()))?;
    g.nodes.sort_by(|x, y| x.id.cmp(&y.id));
    Ok((g, settings))
}

/// The settings of a build from its key (the canonical JSON of [`Settings`]).
pub fn build_settings(key: &str) -> Option<Settings> {
    serde_json::from_str(key).ok()
}
