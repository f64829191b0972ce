//! The answer cache: what identifies a model's answers (backend, endpoint,
//! model), the request's key (a sha256 of its canonical JSON), and storing
//! an answer with its log row in one transaction (also for answers imported
//! from a batch output file).

use std::time::Instant;

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::repair::finish;
use super::{now_ms, LlmError, ModelHandle};
use crate::llm::config::{BackendKind, ModelConfig};
use crate::llm::types::{ChatRequest, ChatResponse, Completion};
use crate::store::{CacheEntry, CallRecord};

/// What identifies a model's answers in the cache.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Identity {
    pub(super) backend: String,
    pub(super) endpoint: String,
    pub(super) model: String,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Identity {
    pub(super) fn of(name: &str, config: &ModelConfig) -> Identity {
        let mut urls = config.urls();
        urls.sort();
        let endpoint = match config.backend {
            // Requantized weights answer differently: another endpoint.
            BackendKind::Local => {
                let file = config
                    .path
                    .as_ref()
                    .map(|p| p.display().to_string())
                    .unwrap_or_default();
                match &config.requantize {
                    Some(q) => format!("{file}#requantize={q}"),
                    None => file,
                }
            }
            _ => urls.join(","),
        };
        // The entry name identifies rules and local models: two rules auditors answer
        // differently although neither has a model name.
        let model = match config.backend {
            BackendKind::Openai => config.model.clone().unwrap_or_else(|| name.to_string()),
            _ => format!("{name}:{}", config.model.as_deref().unwrap_or("")),
        };
        Identity {
            backend: config.backend.name().to_string(),
            endpoint,
            model,
        }
    }

    pub(super) fn key(&self, kind: &str, content: Value) -> String {
        let canonical = json!({
            "v": 1,
            "backend": self.backend,
            "endpoint": self.endpoint,
            "model": self.model,
            "kind": kind,
            "content": content,
        });
        hex(&Sha256::digest(canonical.to_string().as_bytes()))
    }
}

pub(super) fn chat_key(identity: &Identity, request: &ChatRequest) -> String {
    identity.key(
        "chat",
        serde_json::to_value(request).expect("requests serialise"),
    )
}

impl ModelHandle {
    /// The cache key of `request` for this model.
    pub fn cache_key(&self, request: &ChatRequest) -> String {
        chat_key(&self.model.identity, &self.prepare(request))
    }

    /// Stores an answer obtained outside the client (a batch output file) as if this
    /// model had given it: validated against the schema, cached, logged. Returns
    /// false (and stores nothing) when the answer breaks the schema.
    pub fn import(
        &self,
        request: &ChatRequest,
        response: &ChatResponse,
    ) -> Result<Result<Completion, String>, LlmError> {
        let request = self.prepare(request);
        let key = chat_key(&self.model.identity, &request);
        let completion = match finish(&request, response) {
            Ok(c) => c,
            Err(problem) => return Ok(Err(problem)),
        };
        let cost = self
            .model
            .config
            .cost(response.usage.input_tokens, response.usage.output_tokens);
        self.commit(
            &request,
            &key,
            now_ms(),
            Instant::now(),
            &completion,
            cost,
            0,
            0,
        )?;
        Ok(Ok(Completion { key, ..completion }))
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn commit(
        &self,
        request: &ChatRequest,
        key: &str,
        started_ms: i64,
        started: Instant,
        completion: &Completion,
        cost: f64,
        attempts: u32,
        repairs: u32,
    ) -> Result<(), LlmError> {
        let model = &self.model;
        let response = serde_json::to_string(completion).expect("completions serialise");
        let request_json = serde_json::to_string(request).expect("requests serialise");
        self.llm.record(
            &CallRecord {
                run: self.llm.inner.run.0,
                role: self.role.clone(),
                model: model.name.clone(),
                cache_key: key.to_string(),
                started_at_ms: started_ms,
                latency_ms: started.elapsed().as_millis() as u64,
                input_tokens: completion.usage.input_tokens,
                output_tokens: completion.usage.output_tokens,
                cost,
                cache_hit: false,
                attempts,
                repairs,
                finish_reason: completion.finish_reason.clone(),
                error: None,
                raw_text: None,
            },
            Some(&CacheEntry {
                key,
                backend: &model.identity.backend,
                model: &model.identity.model,
                kind: "chat",
                request: &request_json,
                response: &response,
                input_tokens: completion.usage.input_tokens,
                output_tokens: completion.usage.output_tokens,
                cost,
            }),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::BackendKind;

    #[test]
    fn a_requantized_local_model_caches_apart_from_the_file_as_it_is() {
        let mut m = ModelConfig::rules();
        m.backend = BackendKind::Local;
        m.path = Some("m.gguf".into());
        let own = Identity::of("smol", &m);
        m.requantize = Some("q8_0".into());
        let q8 = Identity::of("smol", &m);
        assert_ne!(own.key("chat", json!({})), q8.key("chat", json!({})));
        assert_eq!(q8.endpoint, "m.gguf#requantize=q8_0");
    }
}
