//! Use case: a film's graph scored against its gold annotation
//! (`moviegraph graph score`).

use std::path::PathBuf;

use clap::ValueEnum;

use crate::graph::gold::read_gold;
use crate::graph::score::{score, GraphScore, ScoreOptions, Similarity};
use crate::store::Store;

use super::embedder::{load_minilm, EmbedderChoice, EmbedderSpec};
use super::graph::load_graph;
use super::{Context, Error, Result};

/// How `graph score` compares contents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SimilarityChoice {
    /// all-MiniLM-L6-v2 cosine when its files are installed, else lexical.
    Auto,
    /// all-MiniLM-L6-v2 cosine; an error when its files are missing.
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
    let spec = EmbedderSpec {
        embedder: EmbedderChoice::Minilm,
        model_dir: req.model_dir.clone(),
        config: None,
        embedding_model: None,
    };
    let minilm = match req.similarity {
        SimilarityChoice::Lexical => None,
        SimilarityChoice::Minilm => Some(load_minilm(&spec)?),
        SimilarityChoice::Auto => load_minilm(&spec).ok(),
    };
    let sim = match &minilm {
        Some(m) => Similarity::Embedded(m),
        None => Similarity::Lexical,
    };
    let opts = ScoreOptions {
        scene_window: 1,
        threshold: req.threshold.unwrap_or_else(|| sim.default_threshold()),
    };
    score(&graph, &gold, &sim, opts)
        .with_context(|| format!("scoring against {}", gold_path.display()))
}
