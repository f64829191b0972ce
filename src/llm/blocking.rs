//! A synchronous face on a [`ModelHandle`], for the stages whose traits are
//! synchronous (graph roles, question writers): each call blocks on a small
//! tokio runtime owned by the wrapper.

use std::sync::Arc;

use super::client::{LlmError, ModelHandle};
use super::types::{ChatRequest, Completion};

/// A model handle that answers synchronously.
///
/// Do not call it from inside another tokio runtime (it would block that
/// runtime's thread); the synchronous stages never run inside one.
#[derive(Clone)]
pub struct BlockingModel {
    handle: ModelHandle,
    runtime: Arc<tokio::runtime::Runtime>,
}

impl std::fmt::Debug for BlockingModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockingModel")
            .field("model", &self.handle.name())
            .field("role", &self.handle.role())
            .finish_non_exhaustive()
    }
}

impl BlockingModel {
    /// Wraps `handle` with a new current-thread runtime.
    pub fn new(handle: ModelHandle) -> std::io::Result<BlockingModel> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        Ok(BlockingModel {
            handle,
            runtime: Arc::new(runtime),
        })
    }

    /// Wraps several handles so that they share one runtime.
    pub fn all(handles: Vec<ModelHandle>) -> std::io::Result<Vec<BlockingModel>> {
        let runtime = Arc::new(
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?,
        );
        Ok(handles
            .into_iter()
            .map(|handle| BlockingModel {
                handle,
                runtime: Arc::clone(&runtime),
            })
            .collect())
    }

    /// Wraps several handles on a runtime the caller owns (a multi-thread
    /// runtime may be shared by threads that each block on their own calls).
    pub fn all_on(
        handles: Vec<ModelHandle>,
        runtime: Arc<tokio::runtime::Runtime>,
    ) -> Vec<BlockingModel> {
        handles
            .into_iter()
            .map(|handle| BlockingModel {
                handle,
                runtime: Arc::clone(&runtime),
            })
            .collect()
    }

    /// The wrapped handle (model name, config, role).
    pub fn handle(&self) -> &ModelHandle {
        &self.handle
    }

    /// One chat call through the model layer (cache, retries, repair, accounting).
    pub fn chat(&self, request: &ChatRequest) -> Result<Completion, LlmError> {
        self.runtime.block_on(self.handle.chat(request))
    }

    /// One embedding call through the model layer.
    pub fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, LlmError> {
        self.runtime.block_on(self.handle.embed(texts))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use crate::llm::config::{Config, ModelConfig};
    use crate::llm::rules::RulesRegistry;
    use crate::llm::types::{Message, Task};
    use crate::llm::{Llm, LlmOptions};
    use crate::store::Store;

    #[test]
    fn a_rules_model_answers_synchronously_and_the_call_is_logged() {
        let mut rules = RulesRegistry::default();
        rules.register("echo", |call| Ok(call.task.payload.to_string()));
        let mut config = Config::offline();
        config.models.insert("r".into(), ModelConfig::rules());
        let store = Arc::new(Mutex::new(Store::open_in_memory().unwrap()));
        let llm = Llm::new(
            config,
            Arc::clone(&store),
            LlmOptions {
                rules,
                ..LlmOptions::default()
            },
        )
        .unwrap();
        let model = BlockingModel::new(llm.model("r", "generator").unwrap()).unwrap();
        let mut request = ChatRequest::new(vec![Message::user("hi")]);
        request.task = Some(Task {
            kind: "echo".into(),
            payload: serde_json::json!({"n": 1}),
        });
        let answer = model.chat(&request).unwrap();
        assert_eq!(answer.text, r#"{"n":1}"#);
        assert_eq!(llm.stats().calls, 1);
    }
}
