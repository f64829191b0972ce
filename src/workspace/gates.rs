//! Use case: the `rules` generator measured on annotated films, rule family
//! by rule family (`moviegraph bench graph --gold`), and the gates fitted
//! from those measurements, leave-one-film-out.
//!
//! Each film is built once with every family on (`rules`) and the
//! offline auditors; a gate setting is then applied to the built graph
//! ([`keep_families`]) and scored, so a family's effect is measured without
//! rebuilding.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::graph::build::{BuildOptions, FilmInput};
use crate::graph::generate::gates::{graph_families, keep_families, Gates, Measure};
use crate::graph::gold::{read_gold, Gold};
use crate::graph::schema::Status;
use crate::graph::score::{score, GraphScore, ScoreOptions, Similarity};
use crate::graph::store::GraphStore;
use crate::graph::Graph;
use crate::llm::Config;
use crate::store::Store;

use super::align::film_blocks;
use super::cast::GraphRoles;
use super::film::FilmFolder;
use super::graph::{build_graph, export_graph};
use super::{Context, Result};

/// One annotated film built with every rule family on.
#[derive(Debug, Clone)]
pub struct MeasuredFilm {
    /// The film's folder name.
    pub slug: String,
    /// Its gold annotation.
    pub gold: Gold,
    /// The verified graph, every family on.
    pub graph: Graph,
    /// Every candidate made a node or edge, as if the auditors had accepted
    /// all of them (to measure what the auditors reject).
    pub unaudited: Graph,
    /// Each verified node or edge with the families that proposed it.
    pub families: BTreeMap<String, BTreeSet<String>>,
}

/// Builds the film in `dir` (its script, subtitles and `gold.json`) with the
/// offline roles and every rule family on, in `store`.
pub fn measure_film(store: &Store, dir: &Path) -> Result<MeasuredFilm> {
    let folder = FilmFolder::open(dir)?;
    let gold_path = dir.join("gold.json");
    let gold = read_gold(&gold_path).with_context(|| format!("reading {}", gold_path.display()))?;
    let (play, blocks, _) = film_blocks(store, &folder, None)?;
    // The offline cast: the `rules` generator (every family) and auditors.
    let owned = GraphRoles::from_config(&Config::offline())?.open(None, None)?;
    let roles = owned.roles();
    let input = FilmInput {
        slug: &folder.slug,
        title: None,
        play: &play,
        blocks: &blocks,
    };
    let built = build_graph(
        store,
        &input,
        &roles,
        &BuildOptions::default(),
        None,
        &mut |_| {},
    )?;
    let settings = super::graph::settings_key(&roles, &BuildOptions::default());
    let graph = export_graph(store, &folder.slug, built.build, &settings)?.graph;
    let mut candidates = store.graph_candidates(built.build)?;
    let families = graph_families(&candidates);
    for c in &mut candidates {
        c.status = Status::Accepted;
    }
    let unaudited = Graph::assemble(&folder.slug, &candidates);
    Ok(MeasuredFilm {
        slug: folder.slug,
        gold,
        graph,
        unaudited,
        families,
    })
}

/// The scorer's settings for the corpus: lexical content similarity (no
/// model files, the same figures on every machine), scene ±1.
pub fn corpus_score(graph: &Graph, gold: &Gold) -> Result<GraphScore> {
    let sim = Similarity::Lexical;
    let opts = ScoreOptions {
        scene_window: 1,
        threshold: sim.default_threshold(),
    };
    score(graph, gold, &sim, opts).context("scoring against the gold")
}

/// A film scored with some families on, and each family's measure in it.
#[derive(Debug, Clone)]
pub struct GatedScore {
    /// The score of the gated graph.
    pub score: GraphScore,
    /// Each family's kept and right items in the gated graph.
    pub families: BTreeMap<String, Measure>,
}

/// `film`'s graph with only the families `on` keeps, scored.
pub fn score_gated(film: &MeasuredFilm, on: &dyn Fn(&str) -> bool) -> Result<GatedScore> {
    let graph = keep_families(&film.graph, &film.families, on);
    let score = corpus_score(&graph, &film.gold)?;
    let right: BTreeSet<&str> = score
        .matched_states
        .iter()
        .map(|(g, _)| g.as_str())
        .collect();
    let misses: BTreeSet<&str> = score.misses.iter().map(|m| m.graph.as_str()).collect();
    let ids: BTreeSet<&str> = graph
        .nodes
        .iter()
        .map(|n| n.id.as_str())
        .chain(graph.edges.iter().map(|e| e.id.as_str()))
        .collect();
    let mut families: BTreeMap<String, Measure> = BTreeMap::new();
    for (id, fs) in &film.families {
        if !ids.contains(id.as_str()) {
            continue;
        }
        // A causal link is right when it is not among the misses; a state
        // when it matched a gold state.
        let is_right = if id.starts_with("mental_state:") {
            right.contains(id.as_str())
        } else {
            !misses.contains(id.as_str())
        };
        for f in fs.iter().filter(|f| on(f)) {
            let m = families.entry(f.clone()).or_default();
            m.kept += 1;
            m.right += usize::from(is_right);
        }
    }
    Ok(GatedScore { score, families })
}

/// Pooled family measures of `films` with every family on.
pub fn pooled_families(films: &[&GatedScore]) -> BTreeMap<String, Measure> {
    let mut out: BTreeMap<String, Measure> = BTreeMap::new();
    for f in films {
        for (k, m) in &f.families {
            let p = out.entry(k.clone()).or_default();
            p.kept += m.kept;
            p.right += m.right;
        }
    }
    out
}

/// Gates fitted on the ungated measures of `films`.
pub fn fit_gates(films: &[&GatedScore], corpus: Vec<String>, generated_by: String) -> Gates {
    Gates::fit(pooled_families(films), corpus, generated_by)
}

/// What the auditors' verdicts are worth: the precision of the mental
/// states they accepted and of those they rejected.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct AuditorValue {
    /// States accepted, and of those right.
    pub accepted: Measure,
    /// States rejected, and of those right.
    pub rejected: Measure,
}

/// The auditors' value on one film (every family on).
pub fn auditor_value(film: &MeasuredFilm) -> Result<AuditorValue> {
    let score = corpus_score(&film.unaudited, &film.gold)?;
    let right: BTreeSet<&str> = score
        .matched_states
        .iter()
        .map(|(g, _)| g.as_str())
        .collect();
    let accepted: BTreeSet<&str> = film.graph.nodes.iter().map(|n| n.id.as_str()).collect();
    let mut v = AuditorValue::default();
    for n in film
        .unaudited
        .nodes
        .iter()
        .filter(|n| n.kind == crate::graph::schema::NodeKind::MentalState)
    {
        let side = if accepted.contains(n.id.as_str()) {
            &mut v.accepted
        } else {
            &mut v.rejected
        };
        side.kept += 1;
        side.right += usize::from(right.contains(n.id.as_str()));
    }
    Ok(v)
}
