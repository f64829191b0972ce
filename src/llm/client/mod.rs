//! The client: the one path every model call takes.
//!
//! For each call, in order: fill the model's sampling defaults; look the request up in
//! the cache (a hit costs nothing and sends nothing); reserve budget for the worst
//! case; make attempts under the model's concurrency limit and per-attempt timeout,
//! retrying transient failures with jittered exponential backoff or the server's own
//! delay, within a retry cap and a total deadline; check structured output and re-ask
//! with the validation error a bounded number of times; then commit the answer and
//! its log row in one transaction before returning it.
//!
//! By guarantee: `runtime` builds each configured model (its backend or
//! replay source and its concurrency slots); `cache` keys requests and
//! stores answers; `accounting` holds the budget, the counters and the call
//! log; `attempts` retries under the timeout, backoff and deadline; `repair`
//! validates structured output and words the re-ask; `calls` is the chat and
//! embed paths that put them together.

mod accounting;
mod attempts;
mod cache;
mod calls;
mod repair;
mod runtime;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::Value;

use super::backend::Backend;
use super::config::{BackendKind, Config, ModelConfig, Role};
use super::openai::{self, OpenAiBackend};
use super::rules::{RulesBackend, RulesRegistry, PING};
use super::types::{ChatRequest, Message};
use crate::store::{RunId, Store, StoreError};
use accounting::{Budget, Counters};
use runtime::{local_backend, Exec, ModelRuntime};

/// Why a call produced no answer. Messages never contain an API key.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    /// The model name is not configured.
    #[error("no model named \"{0}\" is configured")]
    UnknownModel(String),
    /// The attempts failed (a fatal error, or the retry cap was reached).
    #[error("model \"{model}\": {message} (after {attempts} attempt(s))")]
    Failed {
        /// The model.
        model: String,
        /// Attempts made.
        attempts: u32,
        /// The last error.
        message: String,
    },
    /// The call's total deadline passed before an answer came.
    #[error("model \"{model}\": no answer within the {deadline_s} s deadline after {attempts} attempt(s); last error: {message}")]
    Deadline {
        /// The model.
        model: String,
        /// Attempts made.
        attempts: u32,
        /// The deadline.
        deadline_s: f64,
        /// The last error.
        message: String,
    },
    /// The answer never matched the schema; the raw text is in the call log.
    #[error("model \"{model}\": the answer does not match the schema after {repairs} repair(s): {problem}")]
    InvalidOutput {
        /// The model.
        model: String,
        /// Repairs tried.
        repairs: u32,
        /// The last validation error.
        problem: String,
        /// The model's last text.
        raw: String,
    },
    /// The call could cost more than the budget has left; nothing was sent.
    #[error("budget: {spent:.4} spent and {reserved:.4} reserved of {cap:.4}; this call may cost up to {need:.4}, so it was not sent")]
    Budget {
        /// Spent so far in this run.
        spent: f64,
        /// Reserved by calls in flight.
        reserved: f64,
        /// The cap.
        cap: f64,
        /// This call's worst case.
        need: f64,
    },
    /// A replay model was asked something the recording does not hold.
    #[error("replay model \"{model}\": this request was never recorded (key {key})")]
    NotRecorded {
        /// The replay model.
        model: String,
        /// The request's key.
        key: String,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Counters since the client was made (for tests, benches and summaries).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClientStats {
    /// Calls answered or failed.
    pub calls: u64,
    /// Of which from the cache.
    pub cache_hits: u64,
    /// Attempts sent to backends.
    pub attempts: u64,
    /// Retries (attempts after a failed one).
    pub retries: u64,
    /// Repair re-asks.
    pub repairs: u64,
    /// Failed calls.
    pub failures: u64,
    /// Milliseconds spent waiting between retries, summed over calls.
    pub waited_ms: u64,
}

/// Construction options.
#[derive(Clone, Default)]
pub struct LlmOptions {
    /// Names the run in the store.
    pub run_label: String,
    /// Stop before spending more than this (currency units of the configured prices).
    pub max_cost: Option<f64>,
    /// Handlers of the `rules` backend.
    pub rules: RulesRegistry,
    /// Backends built elsewhere (the in-process `local` engine), by model name.
    pub attached: BTreeMap<String, Arc<dyn Backend>>,
}

struct Inner {
    config: Config,
    store: Arc<Mutex<Store>>,
    run: RunId,
    max_cost: Option<f64>,
    models: BTreeMap<String, Arc<ModelRuntime>>,
    budget: Mutex<Budget>,
    counters: Counters,
}

/// The model layer: configured models, the store, the run being accounted. Cheap to clone.
#[derive(Clone)]
pub struct Llm {
    inner: Arc<Inner>,
}

/// One model serving one role: what stages call.
#[derive(Clone)]
pub struct ModelHandle {
    llm: Llm,
    model: Arc<ModelRuntime>,
    role: String,
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// The request with the model's configured sampling values where it left them open.
fn with_defaults(request: &ChatRequest, config: &ModelConfig) -> ChatRequest {
    let mut r = request.clone();
    r.temperature = r.temperature.or(config.temperature);
    r.max_tokens = r.max_tokens.or(config.max_tokens);
    r.seed = r.seed.or(config.seed);
    r
}

impl Llm {
    /// Builds every configured model and starts a run in the store.
    pub fn new(
        config: Config,
        store: Arc<Mutex<Store>>,
        options: LlmOptions,
    ) -> Result<Llm, LlmError> {
        let http = openai::http_client();
        let mut models: BTreeMap<String, Arc<ModelRuntime>> = BTreeMap::new();
        // Replay models point at other models, so build those first.
        let (replays, direct): (Vec<_>, Vec<_>) = config
            .models
            .iter()
            .partition(|(_, m)| m.backend == BackendKind::Replay);
        for (name, m) in direct {
            let exec = match (options.attached.get(name), m.backend) {
                (Some(b), _) => Exec::Live(b.clone()),
                (None, BackendKind::Openai) => Exec::Live(Arc::new(OpenAiBackend::new(http.clone(), name, m))),
                (None, BackendKind::Rules) => Exec::Live(Arc::new(RulesBackend::new(name, options.rules.clone()))),
                (None, BackendKind::Local) => Exec::Live(Arc::new(local_backend(name, m, &config.source))),
                (None, _) => Exec::Missing(format!(
                    "model \"{name}\" uses the {} backend, and no engine for it is attached in this build",
                    m.backend.name()
                )),
            };
            models.insert(name.clone(), Arc::new(ModelRuntime::new(name, m, exec)));
        }
        for (name, m) in replays {
            let of_name = m.replay_of.as_deref().unwrap_or_default();
            let of = models
                .get(of_name)
                .cloned()
                .ok_or_else(|| LlmError::UnknownModel(of_name.to_string()))?;
            let store = match &m.replay_store {
                Some(path) => Some(Arc::new(Mutex::new(Store::open(path)?))),
                None => None,
            };
            models.insert(
                name.clone(),
                Arc::new(ModelRuntime::new(name, m, Exec::Replay { of, store })),
            );
        }
        let run = store
            .lock()
            .expect("store lock")
            .llm_begin_run(&options.run_label, options.max_cost)?;
        Ok(Llm {
            inner: Arc::new(Inner {
                config,
                store,
                run,
                max_cost: options.max_cost,
                models,
                budget: Mutex::new(Budget::default()),
                counters: Counters::default(),
            }),
        })
    }

    /// The configuration in force.
    pub fn config(&self) -> &Config {
        &self.inner.config
    }

    /// The run these calls are accounted to.
    pub fn run(&self) -> RunId {
        self.inner.run
    }

    /// The shared store.
    pub fn store(&self) -> &Arc<Mutex<Store>> {
        &self.inner.store
    }

    /// Model `name`, its calls logged under `role` (any label).
    pub fn model(&self, name: &str, role: &str) -> Result<ModelHandle, LlmError> {
        let model = self
            .inner
            .models
            .get(name)
            .cloned()
            .ok_or_else(|| LlmError::UnknownModel(name.to_string()))?;
        Ok(ModelHandle {
            llm: self.clone(),
            model,
            role: role.to_string(),
        })
    }

    /// Every model serving `role` (two or more auditors, one for the others).
    pub fn role(&self, role: Role) -> Result<Vec<ModelHandle>, LlmError> {
        self.inner
            .config
            .role(role)
            .iter()
            .map(|name| self.model(name, role.name()))
            .collect()
    }

    /// Sends one tiny request to model `name`, bypassing cache and retries (for
    /// `models check`); returns the latency and the answer's text.
    pub async fn check(&self, name: &str) -> Result<(Duration, String), String> {
        let model = self
            .inner
            .models
            .get(name)
            .ok_or_else(|| format!("no model named \"{name}\""))?;
        let backend = match &model.exec {
            Exec::Live(b) => b.clone(),
            Exec::Replay { of, store } => {
                let n = match store {
                    Some(s) => s.lock().expect("store lock").llm_cache_len(),
                    None => self.lock_store().llm_cache_len(),
                }
                .map_err(|e| e.to_string())?;
                return Ok((
                    Duration::ZERO,
                    format!(
                        "replays \"{}\"; the store holds {n} recorded answers",
                        of.name
                    ),
                ));
            }
            Exec::Missing(why) => return Err(why.clone()),
        };
        let request = ChatRequest::new(vec![Message::user("Reply with the single word: ok")])
            .with_task(PING, Value::Null);
        let mut request = with_defaults(&request, &model.config);
        request.max_tokens = Some(8);
        let start = Instant::now();
        match tokio::time::timeout(model.config.timeout(), backend.chat(&request)).await {
            Ok(Ok(resp)) => Ok((start.elapsed(), resp.text)),
            Ok(Err(e)) => Err(e.message),
            Err(_) => Err(format!(
                "no answer within the {} s timeout",
                model.config.timeout_s
            )),
        }
    }
}

impl ModelHandle {
    /// The configured model name.
    pub fn name(&self) -> &str {
        &self.model.name
    }

    /// The model's configuration.
    pub fn config(&self) -> &ModelConfig {
        &self.model.config
    }

    /// What identifies this model in a stage's settings (a graph build's key,
    /// `run`'s fingerprints): its name, backend, model and sampling values as
    /// JSON; not the server address, which may move.
    pub fn settings_identity(&self) -> String {
        let c = self.config();
        serde_json::json!({
            "name": self.name(),
            "backend": c.backend.name(),
            "model": c.model.as_deref().unwrap_or(self.name()),
            "temperature": c.temperature,
            "max_tokens": c.max_tokens,
            "seed": c.seed,
        })
        .to_string()
    }

    /// The role label its calls are logged under.
    pub fn role(&self) -> &str {
        &self.role
    }

    /// The request as this model completes it (configured defaults filled in).
    pub fn prepare(&self, request: &ChatRequest) -> ChatRequest {
        with_defaults(request, self.model.request_config())
    }
}
