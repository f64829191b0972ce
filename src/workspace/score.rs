//! Use case: a film's graph scored against its gold annotation
//! (`moviegraph graph score`).

use std::path::PathBuf;

use crate::embed::Embedder;
use crate::graph::calibrate::{calibrate, Calibration};
use crate::graph::gold::{read_gold, Gold};
use crate::graph::score::{score, GraphScore, ScoreOptions, Similarity};
use crate::store::Store;

use super::embedder::{load_minilm, EmbedderChoice, EmbedderSpec};
use super::graph::load_graph;
use super::{Context, Error, Result};

/// How `graph score` compares contents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SimilarityChoice {
    /// `either` when the all-MiniLM-L6-v2 files are installed, else lexical.
    Auto,
    /// The lexical Dice or the MiniLM cosine less 0.35, the higher: similar
    /// when either measure is, at its own calibrated threshold.
    Either,
    /// all-MiniLM-L6-v2 cosine alone; an error when its files are missing.
    Minilm,
    /// Dice overlap of content words (offline, no model files).
    Lexical,
}

/// What to score and how.
#[derive(Debug, Clone)]
pub struct ScoreRequest {
    /// A film folder (its latest graph build in the store) or a graph export.
    pub target: PathBuf,
    /// The gold file; default: `gold.json` in the film folder.
    pub gold: Option<PathBuf>,
    /// The store, for a film folder.
    pub store: PathBuf,
    /// How contents are compared.
    pub similarity: SimilarityChoice,
    /// The MiniLM folder, if not the default.
    pub model_dir: Option<PathBuf>,
    /// Content similarity needed for a match (default: the measure's own).
    pub threshold: Option<f64>,
}

/// Scores the graph `req` names against its gold annotation.
pub fn score_graph(req: &ScoreRequest) -> Result<GraphScore> {
    let is_file = req.target.is_file();
    let gold_path = match (&req.gold, is_file) {
        (Some(g), _) => g.clone(),
        (None, false) => req.target.join("gold.json"),
        (None, true) => {
            return Err(Error::msg(format!(
                "{}: a graph export needs --gold GOLD.json (a film folder finds its own gold.json)",
                req.target.display()
            )))
        }
    };
    if !gold_path.is_file() {
        return Err(Error::msg(format!(
            "{}: no gold annotation (write one in the format of docs/graph-format.md, \"Gold annotations\")",
            gold_path.display()
        )));
    }
    let gold = read_gold(&gold_path)?;
    let graph = if is_file {
        load_graph(&Store::open_in_memory()?, "", Some(&req.target))?
    } else {
        let slug = super::film::slug(&req.target);
        let store = Store::open(&req.store)?;
        load_graph(&store, &slug, None)?
    };
    let minilm = similarity_model(req)?;
    let sim = match &minilm {
        Some(m) if req.similarity == SimilarityChoice::Minilm => Similarity::Embedded(m.as_ref()),
        Some(m) => Similarity::Either(m.as_ref()),
        None => Similarity::Lexical,
    };
    let opts = ScoreOptions {
        scene_window: 1,
        threshold: req.threshold.unwrap_or_else(|| sim.default_threshold()),
    };
    score(&graph, &gold, &sim, opts)
        .with_context(|| format!("scoring against {}", gold_path.display()))
}

/// The MiniLM model the request's similarity calls for, if any.
fn similarity_model(req: &ScoreRequest) -> Result<Option<Box<dyn Embedder>>> {
    let spec = EmbedderSpec {
        embedder: EmbedderChoice::Minilm,
        model_dir: req.model_dir.clone(),
        config: None,
        embedding_model: None,
    };
    Ok(match req.similarity {
        SimilarityChoice::Lexical => None,
        SimilarityChoice::Minilm | SimilarityChoice::Either => Some(Box::new(load_minilm(&spec)?)),
        SimilarityChoice::Auto => load_minilm(&spec)
            .ok()
            .map(|m| Box::new(m) as Box<dyn Embedder>),
    })
}

/// The gold file a request names (`--gold`, else the film folder's).
fn gold_of(req: &ScoreRequest) -> Result<(PathBuf, Gold)> {
    let path = match &req.gold {
        Some(g) => g.clone(),
        None if req.target.is_file() => req.target.clone(),
        None => req.target.join("gold.json"),
    };
    let gold = read_gold(&path)?;
    Ok((path, gold))
}

/// Measures the request's similarity on its gold file's pairs (each
/// explicit state's content against its own quote and its neighbours'),
/// the evidence for the threshold `graph score` uses.
pub fn calibrate_similarity(req: &ScoreRequest) -> Result<Calibration> {
    let (path, gold) = gold_of(req)?;
    let minilm = similarity_model(req)?;
    let sim = match &minilm {
        Some(m) if req.similarity == SimilarityChoice::Minilm => Similarity::Embedded(m.as_ref()),
        Some(m) => Similarity::Either(m.as_ref()),
        None => Similarity::Lexical,
    };
    calibrate(&gold, &sim).with_context(|| format!("calibrating on {}", path.display()))
}

/// The `run` pipeline's score of a film's graph against the film folder's
/// `gold.json`, when it has one: lexical similarity at its default
/// threshold, so that the run's outputs do not depend on which models are
/// installed (`graph score` uses MiniLM when it is).
pub fn score_against_folder_gold(
    folder: &std::path::Path,
    graph: &crate::graph::Graph,
) -> Result<Option<GraphScore>> {
    let path = folder.join("gold.json");
    if !path.is_file() {
        return Ok(None);
    }
    let gold = read_gold(&path)?;
    let sim = Similarity::Lexical;
    let opts = ScoreOptions {
        scene_window: 1,
        threshold: sim.default_threshold(),
    };
    let s = score(graph, &gold, &sim, opts)
        .with_context(|| format!("scoring against {}", path.display()))?;
    Ok(Some(s))
}
