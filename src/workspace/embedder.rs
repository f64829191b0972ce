//! The sentence embedder of the aligner: all-MiniLM-L6-v2 when its files are
//! installed, the hashed character-n-gram baseline otherwise, or a configured
//! `/v1/embeddings` model — chosen the same way for every command.

use std::path::{Path, PathBuf};

use crate::embed::model_dir::{resolve_minilm, MINILM_DIR_ENV};
use crate::embed::{Embedder, HashedNgramEmbedder, MiniLmEmbedder, RemoteEmbedder, SETUP_COMMAND};

use super::{Context, Result};
use crate::util::report::Reporter;

/// Environment variable naming the embedder of `align` and `run` when
/// `--embedder` is not given (auto, minilm, hashed; `run` also takes a
/// configured model).
pub const EMBEDDER_ENV: &str = "MOVIEGRAPH_EMBEDDER";

/// Which embedder to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EmbedderChoice {
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

impl EmbedderChoice {
    /// The choice a name gives (auto, minilm, hashed, model; any case).
    pub fn parse(name: &str) -> Option<EmbedderChoice> {
        match name.to_ascii_lowercase().as_str() {
            "auto" => Some(EmbedderChoice::Auto),
            "minilm" => Some(EmbedderChoice::Minilm),
            "hashed" => Some(EmbedderChoice::Hashed),
            "model" => Some(EmbedderChoice::Model),
            _ => None,
        }
    }
}

/// Which embedder, and where its files or configuration are (the embedder
/// flags of `align` and `bench embed`).
#[derive(Debug, Clone)]
pub struct EmbedderSpec {
    /// The sentence embedder for the semantic part of the similarity.
    pub embedder: EmbedderChoice,
    /// The all-MiniLM-L6-v2 folder (config.json, tokenizer.json,
    /// model.safetensors); else MOVIEGRAPH_MINILM_DIR, then
    /// $MOVIEGRAPH_MODELS/all-MiniLM-L6-v2, then
    /// ~/.cache/moviegraph/models/all-MiniLM-L6-v2 (scripts/setup-models).
    pub model_dir: Option<PathBuf>,
    /// With `Model`: the model configuration (default ./moviegraph.toml).
    pub config: Option<PathBuf>,
    /// With `Model`: a model of the configuration to use instead of its
    /// `embedder` role.
    pub embedding_model: Option<String>,
}

/// The configured embedding model as an [`Embedder`]. A model on the `rules`
/// backend has no vectors to give, so it maps to the hashed baseline (noted to the reporter).
fn load_remote(
    args: &EmbedderSpec,
    reporter: &dyn Reporter,
) -> Result<Box<dyn Embedder + Send + Sync>> {
    use crate::llm::{BackendKind, Config, Llm, LlmOptions, Role, RoleOverrides};
    use crate::store::Store;
    use std::sync::{Arc, Mutex};

    let mut overrides = RoleOverrides::default();
    if let Some(name) = &args.embedding_model {
        overrides.roles.push((Role::Embedder, vec![name.clone()]));
    }
    let config = Config::load(args.config.as_deref(), &overrides)?;
    let name = config
        .role(Role::Embedder)
        .first()
        .cloned()
        .context("the configuration names no embedder model")?;
    let backend = config.models.get(&name).map(|m| m.backend);
    if backend == Some(BackendKind::Rules) {
        reporter.note(&format!(
            "note: the embedder role ({name}) is on the offline rules backend; using the hashed \
             character-n-gram embedding, an offline baseline"
        ));
        return Ok(Box::new(HashedNgramEmbedder));
    }
    // Vectors are cached by the aligner's store (CachedEmbedder); the client's
    // own response cache lives only for this process.
    let store = Store::open_in_memory()?;
    let llm = Llm::new(
        config,
        Arc::new(Mutex::new(store)),
        LlmOptions {
            run_label: "align embeddings".into(),
            ..LlmOptions::default()
        },
    )?;
    let handle = llm.model(&name, Role::Embedder.name())?;
    Ok(Box::new(RemoteEmbedder::new(handle)?))
}

/// Loads MiniLM from the resolved folder, set up to run one batch per core.
pub fn load_minilm(args: &EmbedderSpec) -> Result<MiniLmEmbedder> {
    // candle reads RAYON_NUM_THREADS on every matrix product. One thread per
    // product and one batch per core is faster for this small model (see
    // MiniLmEmbedder::with_workers); a value the user set is kept.
    let workers = if std::env::var_os("RAYON_NUM_THREADS").is_none() {
        std::env::set_var("RAYON_NUM_THREADS", "1");
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        1
    };
    let (dir, source) = resolve_minilm(args.model_dir.as_deref()).with_context(|| {
        format!("no model folder: pass --model-dir or set {MINILM_DIR_ENV} (install with {SETUP_COMMAND})")
    })?;
    let model = MiniLmEmbedder::load(&dir).with_context(|| {
        format!(
            "loading all-MiniLM-L6-v2 from {} ({})",
            dir.display(),
            source.describe()
        )
    })?;
    Ok(model.with_workers(workers))
}

/// The embedder the flags ask for. `auto` falls back to the hashed baseline
/// only when the model folder is absent or holds none of the files; a folder
/// with some files that do not load is an error (a broken install should
/// not pass silently).
pub fn choose(
    args: &EmbedderSpec,
    reporter: &dyn Reporter,
) -> Result<Box<dyn Embedder + Send + Sync>> {
    match args.embedder {
        EmbedderChoice::Hashed => Ok(Box::new(HashedNgramEmbedder)),
        EmbedderChoice::Minilm => Ok(Box::new(load_minilm(args)?)),
        EmbedderChoice::Model => load_remote(args, reporter),
        EmbedderChoice::Auto => {
            let found = resolve_minilm(args.model_dir.as_deref()).filter(|(dir, _)| {
                crate::embed::MINILM_FILES
                    .iter()
                    .any(|(name, _)| dir.join(name).exists())
            });
            match found {
                Some(_) => Ok(Box::new(load_minilm(args)?)),
                None => {
                    reporter.note(&format!(
                        "note: all-MiniLM-L6-v2 files not found; using the hashed character-n-gram \
                         embedding, an offline baseline (install the model with {SETUP_COMMAND})"
                    ));
                    Ok(Box::new(HashedNgramEmbedder))
                }
            }
        }
    }
}

/// The embedder of `run`'s align stage, chosen as `align` chooses. `flag` is
/// `--embedder`: auto, minilm, hashed, or a model of the configuration; else
/// [`EMBEDDER_ENV`] when set. Without either: the configuration's embedder
/// role when that is a model off the `rules` backend, else auto
/// (all-MiniLM-L6-v2 when installed, else the hashed baseline, with a note).
pub fn choose_for_run(
    flag: Option<&str>,
    config_path: Option<&Path>,
    config: &crate::llm::Config,
    reporter: &dyn Reporter,
) -> Result<Box<dyn Embedder + Send + Sync>> {
    use crate::llm::{BackendKind, Role};
    let spec = |embedder, embedding_model: Option<&str>| EmbedderSpec {
        embedder,
        model_dir: None,
        config: config_path.map(Path::to_path_buf),
        embedding_model: embedding_model.map(str::to_owned),
    };
    let named =
        |choice: &str| EmbedderChoice::parse(choice).filter(|c| *c != EmbedderChoice::Model);
    let from_env = std::env::var(EMBEDDER_ENV).ok().filter(|v| !v.is_empty());
    let chosen = match flag.or(from_env.as_deref()) {
        Some(value) => match named(value) {
            Some(choice) => spec(choice, None),
            None => spec(EmbedderChoice::Model, Some(value)),
        },
        None => {
            let role = config.role(Role::Embedder).first();
            let backend = role
                .and_then(|name| config.models.get(name))
                .map(|m| m.backend);
            match backend {
                Some(b) if b != BackendKind::Rules => spec(EmbedderChoice::Model, None),
                _ => spec(EmbedderChoice::Auto, None),
            }
        }
    };
    choose(&chosen, reporter)
}
