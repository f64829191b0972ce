//! The embedder flags shared by `align` and `bench embed`.

use std::path::PathBuf;

use clap::Args;
use moviegraph::embed::{Embedder, MiniLmEmbedder};
use moviegraph::workspace::embedder::{self, EmbedderChoice, EmbedderSpec};

/// Embedder flags.
#[derive(Debug, Clone, Args)]
pub struct EmbedderArgs {
    /// The sentence embedder for the semantic part of the similarity.
    #[arg(long, value_enum, default_value_t = EmbedderChoice::Auto)]
    pub embedder: EmbedderChoice,
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
    /// The flags as the workspace takes them.
    pub fn spec(&self) -> EmbedderSpec {
        EmbedderSpec {
            choice: self.embedder,
            model_dir: self.model_dir.clone(),
            config: self.config.clone(),
            embedding_model: self.embedding_model.clone(),
        }
    }
}

/// Loads MiniLM as the flags say (see [`embedder::load_minilm`]).
pub fn load_minilm(args: &EmbedderArgs) -> anyhow::Result<MiniLmEmbedder> {
    Ok(embedder::load_minilm(&args.spec())?)
}

/// The embedder the flags ask for (see [`embedder::choose`]).
pub fn choose(args: &EmbedderArgs) -> anyhow::Result<Box<dyn Embedder>> {
    Ok(embedder::choose(&args.spec())?)
}
