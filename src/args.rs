//! Argument syntax the front ends share (`cli` and `bench`): clap's mirrors
//! of the application's choices, each converted into the choice it names, so
//! that nothing below the top knows clap.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use moviegraph::workspace::embedder::{EmbedderChoice, EmbedderSpec, EMBEDDER_ENV};
use moviegraph::workspace::run::Stage;
#[cfg(test)]
use moviegraph::workspace::run::STAGES;
use moviegraph::workspace::score::SimilarityChoice;

/// Which embedder to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EmbedderArg {
    /// all-MiniLM-L6-v2 when its files are found, else the hashed baseline (with a note).
    Auto,
    /// all-MiniLM-L6-v2; an error when its files are missing or corrupt.
    Minilm,
    /// The hashed character-n-gram embedding (offline baseline, no model files).
    Hashed,
    /// The `embedder` role of moviegraph.toml: an OpenAI-compatible
    /// `/v1/embeddings` endpoint, called through the model layer (retries, cache).
    Model,
}

impl From<EmbedderArg> for EmbedderChoice {
    fn from(a: EmbedderArg) -> Self {
        match a {
            EmbedderArg::Auto => EmbedderChoice::Auto,
            EmbedderArg::Minilm => EmbedderChoice::Minilm,
            EmbedderArg::Hashed => EmbedderChoice::Hashed,
            EmbedderArg::Model => EmbedderChoice::Model,
        }
    }
}

/// Which embedder, and where its files or configuration are (the embedder
/// flags of `align` and `bench embed`).
#[derive(Debug, Clone, Args)]
pub struct EmbedderArgs {
    /// The sentence embedder for the semantic part of the similarity.
    #[arg(long, value_enum, env = EMBEDDER_ENV, default_value_t = EmbedderArg::Auto)]
    pub embedder: EmbedderArg,
    /// The all-MiniLM-L6-v2 folder (config.json, tokenizer.json,
    /// model.safetensors); else MOVIEGRAPH_MINILM_DIR, then
    /// $MOVIEGRAPH_MODELS/all-MiniLM-L6-v2, then
    /// ~/.cache/moviegraph/models/all-MiniLM-L6-v2 (scripts/setup-models).
    #[arg(long, value_name = "DIR")]
    pub model_dir: Option<PathBuf>,
    /// With `--embedder model`: the model configuration (default ./moviegraph.toml).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// With `--embedder model`: a model of the configuration to use instead of
    /// its `embedder` role.
    #[arg(long, value_name = "NAME")]
    pub embedding_model: Option<String>,
}

impl EmbedderArgs {
    /// The application's embedder specification these flags give.
    pub fn spec(&self) -> EmbedderSpec {
        EmbedderSpec {
            embedder: self.embedder.into(),
            model_dir: self.model_dir.clone(),
            config: self.config.clone(),
            embedding_model: self.embedding_model.clone(),
        }
    }
}

/// How `graph score` compares contents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SimilarityArg {
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

impl From<SimilarityArg> for SimilarityChoice {
    fn from(a: SimilarityArg) -> Self {
        match a {
            SimilarityArg::Auto => SimilarityChoice::Auto,
            SimilarityArg::Either => SimilarityChoice::Either,
            SimilarityArg::Minilm => SimilarityChoice::Minilm,
            SimilarityArg::Lexical => SimilarityChoice::Lexical,
        }
    }
}

/// The stages of `run`, in pipeline order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StageArg {
    /// Every screenplay version of the folder.
    Parse,
    /// Shots, keyframes and subtitles from the folder's video (only when it holds one).
    Shots,
    /// Dialogue to subtitle cues, blocks, keyframes; saved in the store.
    Align,
    /// The verified graph, block by block; `graphs/<film>.json`.
    Graph,
    /// Question trees; `trees/<film>.jsonl`.
    Trees,
    /// The subjects on the trees, every answer stored.
    Eval,
    /// `reports/<film>/report.{html,json,csv}`.
    Report,
}

impl From<StageArg> for Stage {
    fn from(a: StageArg) -> Self {
        match a {
            StageArg::Parse => Stage::Parse,
            StageArg::Shots => Stage::Shots,
            StageArg::Align => Stage::Align,
            StageArg::Graph => Stage::Graph,
            StageArg::Trees => Stage::Trees,
            StageArg::Eval => Stage::Eval,
            StageArg::Report => Stage::Report,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mirror_covers_every_choice_by_the_same_name() {
        for a in EmbedderArg::value_variants() {
            let name = a.to_possible_value().unwrap().get_name().to_owned();
            assert_eq!(EmbedderChoice::parse(&name), Some(EmbedderChoice::from(*a)));
        }
        for a in StageArg::value_variants() {
            let name = a.to_possible_value().unwrap().get_name().to_owned();
            assert_eq!(Stage::from(*a).name(), name);
        }
        assert_eq!(StageArg::value_variants().len(), STAGES.len());
        assert_eq!(SimilarityArg::value_variants().len(), 4);
    }
}
