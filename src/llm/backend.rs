//! The trait every backend implements, and how one attempt can fail.
//!
//! A backend performs *one attempt*: it sends a request and returns the answer or
//! says whether trying again could help. Everything else (the cache, retries,
//! backoff, timeouts, budget, validation, the call log) is the client's
//! ([`crate::llm::Llm`]), so every backend gets the same guarantees. An in-process
//! engine that runs one generation at a time implements this by queueing inside
//! `chat` (e.g. behind a `tokio::sync::Mutex` or a channel to its worker thread);
//! the client's per-model concurrency limit bounds how many wait in that queue.

use std::time::Duration;

use async_trait::async_trait;

use super::types::{ChatRequest, ChatResponse, Usage};

/// Whether an attempt's failure is worth retrying.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    /// Network trouble, a 5xx, a timeout, a truncated or garbled body: try again.
    Transient,
    /// The server asked us to slow down (429): try again after its delay.
    RateLimited,
    /// The request itself is wrong (4xx, unsupported, no handler): retrying repeats it.
    Fatal,
}

/// Why one attempt failed. Messages never contain an API key.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct AttemptError {
    /// Retry or not.
    pub kind: FailureKind,
    /// What happened, for the log and the final error.
    pub message: String,
    /// The delay the server asked for (`Retry-After`, `x-ratelimit-reset-*`).
    pub retry_after: Option<Duration>,
}

impl AttemptError {
    /// A failure that another attempt may not have.
    pub fn transient(message: impl Into<String>) -> AttemptError {
        AttemptError {
            kind: FailureKind::Transient,
            message: message.into(),
            retry_after: None,
        }
    }

    /// A failure that every attempt will have.
    pub fn fatal(message: impl Into<String>) -> AttemptError {
        AttemptError {
            kind: FailureKind::Fatal,
            message: message.into(),
            retry_after: None,
        }
    }
}

/// Vectors for a list of texts, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct EmbedResponse {
    /// One vector per input text.
    pub vectors: Vec<Vec<f32>>,
    /// Tokens used.
    pub usage: Usage,
}

/// One model behind one backend. Requests arrive with the model's configured
/// sampling parameters already filled in.
#[async_trait]
pub trait Backend: Send + Sync {
    /// One chat attempt.
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, AttemptError>;

    /// One embedding attempt; backends without embeddings say so (a fatal error).
    async fn embed(&self, texts: &[String]) -> Result<EmbedResponse, AttemptError> {
        let _ = texts;
        Err(AttemptError::fatal(
            "this backend does not compute embeddings",
        ))
    }
}
