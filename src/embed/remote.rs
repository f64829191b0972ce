//! Embeddings from an OpenAI-compatible `/v1/embeddings` endpoint, through the
//! model layer (so they are retried, cached in the store, bounded and accounted
//! like every other model call).

use std::sync::atomic::{AtomicUsize, Ordering};

use super::{l2_normalize, EmbedError, Embedder};
use crate::llm::ModelHandle;

/// An [`Embedder`] backed by a configured model (the `embedder` role).
///
/// The aligner is synchronous; this embedder owns a small tokio runtime and
/// blocks on each batch. Do not call it from inside another tokio runtime.
pub struct RemoteEmbedder {
    handle: ModelHandle,
    runtime: tokio::runtime::Runtime,
    name: String,
    model_id: String,
    dims: AtomicUsize,
}

impl std::fmt::Debug for RemoteEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteEmbedder")
            .field("model_id", &self.model_id)
            .finish_non_exhaustive()
    }
}

/// Texts sent per `/v1/embeddings` request (servers cap the batch size).
const REQUEST_BATCH: usize = 256;

impl RemoteEmbedder {
    /// Wraps a model handle; `model_id` must name the model and endpoint so
    /// that cached vectors of different models never mix.
    pub fn new(handle: ModelHandle) -> Result<RemoteEmbedder, EmbedError> {
        let config = handle.config();
        let model = config
            .model
            .clone()
            .unwrap_or_else(|| handle.name().to_string());
        let model_id = format!("remote:{}:{}", model, config.urls().join(","));
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|err| EmbedError::Model {
                model: model_id.clone(),
                message: format!("cannot start the async runtime: {err}"),
            })?;
        Ok(RemoteEmbedder {
            name: model,
            handle,
            runtime,
            model_id,
            dims: AtomicUsize::new(0),
        })
    }
}

impl Embedder for RemoteEmbedder {
    fn name(&self) -> &str {
        &self.name
    }

    fn model_id(&self) -> &str {
        &self.model_id
    }

    /// Known after the first batch (0 before).
    fn dims(&self) -> usize {
        self.dims.load(Ordering::Relaxed)
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut out = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(REQUEST_BATCH) {
            // Servers reject empty inputs; an empty text gets the zero vector.
            let owned: Vec<String> = chunk
                .iter()
                .filter(|t| !t.trim().is_empty())
                .map(|t| t.to_string())
                .collect();
            let vectors = if owned.is_empty() {
                Vec::new()
            } else {
                self.runtime
                    .block_on(self.handle.embed(&owned))
                    .map_err(|err| EmbedError::Model {
                        model: self.model_id.clone(),
                        message: err.to_string(),
                    })?
            };
            if let Some(first) = vectors.first() {
                let _ = self.dims.compare_exchange(
                    0,
                    first.len(),
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                );
            }
            let mut vectors = vectors.into_iter();
            for text in chunk {
                if text.trim().is_empty() {
                    out.push(vec![0.0; self.dims()]);
                    continue;
                }
                let mut v = vectors.next().ok_or_else(|| EmbedError::Model {
                    model: self.model_id.clone(),
                    message: "the server returned fewer vectors than texts".into(),
                })?;
                let known = self.dims.load(Ordering::Relaxed);
                if v.len() != known {
                    return Err(EmbedError::Model {
                        model: self.model_id.clone(),
                        message: format!("vector of {} dimensions after {known}", v.len()),
                    });
                }
                l2_normalize(&mut v);
                out.push(v);
            }
        }
        Ok(out)
    }
}
