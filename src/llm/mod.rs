//! The model layer (ARCHITECTURE.md, `src/llm/`): every model call of every stage goes through
//! [`Llm`], which makes it cached, bounded, retried, validated, accounted and
//! resumable, whatever the backend.
//!
//! - [`config`]: `moviegraph.toml`, named models and roles.
//! - [`types`]: requests (turns with text and image parts, optional schema, optional
//!   rules task) and responses.
//! - [`backend`]: the [`Backend`] trait (one attempt) and how attempts fail.
//! - [`openai`], [`rules`]: the backends built here; `replay` is served by the client
//!   from a store; an in-process engine attaches through [`LlmOptions::attached`].
//! - [`client`]: cache, budget, retries, timeouts, repair, call log.
//! - [`schema`]: JSON extraction and schema validation.
//! - [`batch`]: OpenAI Batch API JSONL in and out.
//! - [`blocking`]: a synchronous face on a model handle for synchronous stages.
//! - [`model_dir`]: where the model files are (MiniLM, local chat models).
//!
//! The loopback test server lives in its own crate, `crates/loopback`
//! (`moviegraph-loopback`), so the library ships only the model layer.

pub mod backend;
pub mod batch;
pub mod blocking;
pub mod client;
pub mod config;
pub mod local;
pub mod model_dir;
pub mod openai;
pub mod retry;
pub mod rules;
pub mod schema;
pub mod types;

pub use backend::{AttemptError, Backend, EmbedResponse, FailureKind};
pub use blocking::BlockingModel;
pub use client::{ClientStats, Llm, LlmError, LlmOptions, ModelHandle};
pub use config::{
    BackendKind, ClientConfig, Config, ConfigError, ModelConfig, Role, RoleOverrides,
};
pub use rules::{RulesCall, RulesRegistry};
pub use types::{
    ChatRequest, ChatResponse, Completion, Message, OutputSchema, Part, Speaker, Task, Usage,
};
