//! Sentence embeddings: the [`Embedder`] trait and its implementations.
//!
//! Shared infrastructure upstream of `align` (and later stages): an embedder
//! turns a batch of texts into L2-normalized vectors whose cosine (dot
//! product) is their semantic similarity.
//!
//! - [`MiniLmEmbedder`] runs all-MiniLM-L6-v2 in-process on `candle` from local
//!   files (mean pooling over the attention mask, L2 norm, as
//!   sentence-transformers does); [`model_dir`] finds the files.
//! - [`HashedNgramEmbedder`] is the offline baseline with no model files:
//!   hashed character 3–5-grams.
//! - [`CachedEmbedder`] wraps any embedder with the store's embedding cache.
//!
//! - [`RemoteEmbedder`] asks an OpenAI-compatible `/v1/embeddings` endpoint
//!   through the model layer (`crate::llm`: retries, cache, accounting).

mod cached;
mod chunked;
mod hashed;
mod minilm;
mod remote;

use std::path::PathBuf;

/// Where the model files are; lives in the model layer (`crate::llm::model_dir`),
/// below the embedders and the local chat backend that both read it.
pub use crate::llm::model_dir;

pub use cached::CachedEmbedder;
pub use chunked::{Chunked, CHUNK};
pub use hashed::{HashedNgramEmbedder, HASH_DIMS};
pub use minilm::{MiniLmEmbedder, MINILM_DIMS, MINILM_FILES, MINILM_MAX_TOKENS};
pub use remote::RemoteEmbedder;

/// The command that installs the local model files.
pub const SETUP_COMMAND: &str = "scripts/setup-models --only minilm";

/// What can go wrong embedding texts.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    /// A model file is missing, incomplete or corrupt.
    #[error("model file {path}: {problem}; install it with `{SETUP_COMMAND}` (or point --model-dir / MOVIEGRAPH_MINILM_DIR at a folder that has it)")]
    ModelFile {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        problem: String,
    },
    /// The model failed while running (tensor shapes, a kernel error).
    #[error("{model}: {message}")]
    Model {
        /// The embedder's model id.
        model: String,
        /// What went wrong.
        message: String,
    },
    /// The embedding cache in the store failed.
    #[error("embedding cache: {0}")]
    Cache(#[from] crate::store::StoreError),
}

/// Turns texts into fixed-size vectors; the dot product of two vectors is
/// their cosine similarity. Implementations must be deterministic for a given
/// [`Embedder::model_id`].
pub trait Embedder {
    /// A short name for reports (`all-MiniLM-L6-v2`, `hashed-char-ngram-512`).
    fn name(&self) -> &str;
    /// A stable id of the model and every setting that changes its vectors;
    /// cache keys use it, so it must change whenever the vectors would.
    fn model_id(&self) -> &str;
    /// The length of every vector.
    fn dims(&self) -> usize;
    /// The L2-normalized embeddings of `texts`, in order (a vector of zeros
    /// when the embedder has nothing to go on, e.g. the hashed one on "").
    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError>;
    /// The embedding of one text.
    fn embed(&self, text: &str) -> Result<Vec<f32>, EmbedError> {
        let mut v = self.embed_batch(&[text])?;
        Ok(v.pop().unwrap_or_else(|| vec![0.0; self.dims()]))
    }
    /// An unnormalized vector whose sums stand for concatenated texts, when
    /// the embedder has one (count-based embedders); callers then build group
    /// embeddings by adding instead of embedding joined texts.
    fn additive(&self, _text: &str) -> Option<Vec<f32>> {
        None
    }
}

/// Threads candle uses per matrix product (`RAYON_NUM_THREADS`, else the
/// cores), for benchmarks to report.
pub fn matmul_threads() -> usize {
    candle_core::utils::get_num_threads()
}

/// Scales `v` to unit length (left as is when it is all zeros).
pub fn l2_normalize(v: &mut [f32]) {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n > 0.0 {
        v.iter_mut().for_each(|x| *x /= n);
    }
}
