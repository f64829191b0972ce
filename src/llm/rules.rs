//! The `rules` backend: deterministic, offline work dispatched by task kind.
//!
//! A stage that can run without a model registers a handler per task kind
//! (`graph.extract`, `audit.schema`, …) and attaches a [`Task`] to its requests; the
//! backend runs the handler on the request and answers with its text. A request with
//! no task, or a kind nobody registered, is an error: the rules backend never guesses.
//! Handlers are plain functions, so answers are reproducible and cost nothing.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;

use super::backend::{AttemptError, Backend};
use super::types::{ChatRequest, ChatResponse, Task, Usage};

/// What a handler sees.
#[derive(Debug)]
pub struct RulesCall<'a> {
    /// The configured model name (so one handler can serve several rules models,
    /// e.g. two auditors with different checks).
    pub model: &'a str,
    /// The whole request.
    pub request: &'a ChatRequest,
    /// Its task.
    pub task: &'a Task,
}

/// A handler: the answer's text, or why there is none.
pub type RulesHandler = Arc<dyn Fn(&RulesCall<'_>) -> Result<String, String> + Send + Sync>;

/// Handlers by task kind; cloned into every rules model.
#[derive(Clone)]
pub struct RulesRegistry {
    handlers: BTreeMap<String, RulesHandler>,
}

impl fmt::Debug for RulesRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RulesRegistry")
            .field("kinds", &self.handlers.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// The task kind `models check` sends; its handler answers `pong`.
pub const PING: &str = "ping";

impl RulesRegistry {
    /// A registry with only the built-in `ping` handler.
    pub fn new() -> RulesRegistry {
        let mut r = RulesRegistry {
            handlers: BTreeMap::new(),
        };
        r.register(PING, |_| Ok("pong".to_string()));
        r
    }

    /// Registers (or replaces) the handler for `kind`.
    pub fn register(
        &mut self,
        kind: &str,
        handler: impl Fn(&RulesCall<'_>) -> Result<String, String> + Send + Sync + 'static,
    ) {
        self.handlers.insert(kind.to_string(), Arc::new(handler));
    }

    /// The registered kinds.
    pub fn kinds(&self) -> impl Iterator<Item = &str> {
        self.handlers.keys().map(String::as_str)
    }
}

impl Default for RulesRegistry {
    fn default() -> Self {
        RulesRegistry::new()
    }
}

/// One rules model.
#[derive(Debug)]
pub struct RulesBackend {
    name: String,
    registry: RulesRegistry,
}

impl RulesBackend {
    /// The rules model `name` with these handlers.
    pub fn new(name: &str, registry: RulesRegistry) -> RulesBackend {
        RulesBackend {
            name: name.to_string(),
            registry,
        }
    }
}

#[async_trait]
impl Backend for RulesBackend {
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, AttemptError> {
        let task = request.task.as_ref().ok_or_else(|| {
            AttemptError::fatal(format!(
                "rules model \"{}\": the request carries no task, and the rules backend answers only tasks",
                self.name
            ))
        })?;
        let handler = self.registry.handlers.get(&task.kind).ok_or_else(|| {
            AttemptError::fatal(format!(
                "rules model \"{}\": no handler for task kind \"{}\" (registered: {})",
                self.name,
                task.kind,
                self.registry.kinds().collect::<Vec<_>>().join(", ")
            ))
        })?;
        let call = RulesCall {
            model: &self.name,
            request,
            task,
        };
        let text = handler(&call).map_err(|e| {
            AttemptError::fatal(format!(
                "rules model \"{}\", task \"{}\": {e}",
                self.name, task.kind
            ))
        })?;
        Ok(ChatResponse {
            text,
            usage: Usage::default(),
            finish_reason: Some("stop".to_string()),
            logprobs: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::types::Message;
    use serde_json::json;

    fn block_on<F: std::future::Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(f)
    }

    #[test]
    fn tasks_go_to_their_handler_and_unknown_kinds_are_errors() {
        let mut reg = RulesRegistry::new();
        reg.register("count.words", |call| {
            let text = call.task.payload["text"]
                .as_str()
                .ok_or("payload has no text")?;
            Ok(format!(
                "{{\"model\":\"{}\",\"words\":{}}}",
                call.model,
                text.split_whitespace().count()
            ))
        });
        let backend = RulesBackend::new("rules-a", reg);
        let req = ChatRequest::new(vec![Message::user("count")])
            .with_task("count.words", json!({"text": "one two three"}));
        let resp = block_on(backend.chat(&req)).unwrap();
        assert_eq!(resp.text, r#"{"model":"rules-a","words":3}"#);

        let unknown = req.clone().with_task("nope", json!({}));
        let err = block_on(backend.chat(&unknown)).unwrap_err();
        assert!(
            err.message.contains("no handler for task kind \"nope\""),
            "{err}"
        );
        let bad = req.clone().with_task("count.words", json!({}));
        assert!(block_on(backend.chat(&bad))
            .unwrap_err()
            .message
            .contains("payload has no text"));
        let none = ChatRequest::new(vec![Message::user("x")]);
        assert!(block_on(backend.chat(&none))
            .unwrap_err()
            .message
            .contains("carries no task"));
    }
}
