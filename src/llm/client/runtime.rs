//! Each configured model at run time: how its calls are executed (a live
//! backend, a replay of another model's recorded answers, or a missing
//! engine), its cache identity, and its concurrency slots.

use std::sync::{Arc, Mutex};

use tokio::sync::Semaphore;

use super::cache::Identity;
use crate::llm::backend::Backend;
use crate::llm::config::{BackendKind, ModelConfig};
use crate::llm::local::{self, backend::LocalBackend};
use crate::store::Store;

pub(super) enum Exec {
    Live(Arc<dyn Backend>),
    Replay {
        of: Arc<ModelRuntime>,
        store: Option<Arc<Mutex<Store>>>,
    },
    Missing(String),
}

pub(super) struct ModelRuntime {
    pub(super) name: String,
    pub(super) config: ModelConfig,
    pub(super) identity: Identity,
    pub(super) slots: Semaphore,
    pub(super) exec: Exec,
}

/// The in-process engine for a `local` model: its file resolved now (a missing
/// one fails only the calls to it), loaded at its first call.
pub(super) fn local_backend(name: &str, m: &ModelConfig, source: &std::path::Path) -> LocalBackend {
    match local::backend::resolve_configured(name, m.path.as_deref(), source) {
        Ok(path) => LocalBackend::lazy(
            name,
            path,
            local::LoadOptions {
                requantize: m.requantize.is_some(),
                ..local::LoadOptions::default()
            },
        ),
        Err(why) => LocalBackend::missing(name, why),
    }
}

impl ModelRuntime {
    pub(super) fn new(name: &str, config: &ModelConfig, exec: Exec) -> ModelRuntime {
        let identity = match &exec {
            Exec::Replay { of, .. } => of.identity.clone(),
            _ => Identity::of(name, config),
        };
        let endpoints = config.urls().len().max(1);
        // A local engine runs one generation at a time: more slots would only move
        // the wait into its queue, inside the per-attempt timeout.
        let slots = if config.backend == BackendKind::Local {
            1
        } else {
            config.concurrency.saturating_mul(endpoints)
        };
        ModelRuntime {
            name: name.to_string(),
            config: config.clone(),
            identity,
            slots: Semaphore::new(slots),
            exec,
        }
    }

    /// The config whose defaults shape requests (a replay uses the recorded model's).
    pub(super) fn request_config(&self) -> &ModelConfig {
        match &self.exec {
            Exec::Replay { of, .. } => &of.config,
            _ => &self.config,
        }
    }
}
