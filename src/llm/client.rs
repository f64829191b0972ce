//! The client: the one path every model call takes.
//!
//! For each call, in order: fill the model's sampling defaults; look the request up in
//! the cache (a hit costs nothing and sends nothing); reserve budget for the worst
//! case; make attempts under the model's concurrency limit and per-attempt timeout,
//! retrying transient failures with jittered exponential backoff or the server's own
//! delay, within a retry cap and a total deadline; check structured output and re-ask
//! with the validation error a bounded number of times; then commit the answer and
//! its log row in one transaction before returning it.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use tokio::sync::Semaphore;

use super::backend::{AttemptError, Backend, FailureKind};
use super::config::{BackendKind, Config, ModelConfig, Role};
use super::local::{self, backend::LocalBackend};
use super::openai::{self, OpenAiBackend};
use super::retry;
use super::rules::{RulesBackend, RulesRegistry, PING};
use super::schema::{extract_json, validate};
use super::types::{ChatRequest, ChatResponse, Completion, Message, Usage};
use crate::store::{CacheEntry, CallRecord, RoleTotals, RunId, Store, StoreError};

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

#[derive(Default)]
struct Counters {
    calls: AtomicU64,
    cache_hits: AtomicU64,
    attempts: AtomicU64,
    retries: AtomicU64,
    repairs: AtomicU64,
    failures: AtomicU64,
    waited_ms: AtomicU64,
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

/// What identifies a model's answers in the cache.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Identity {
    backend: String,
    endpoint: String,
    model: String,
}

enum Exec {
    Live(Arc<dyn Backend>),
    Replay {
        of: Arc<ModelRuntime>,
        store: Option<Arc<Mutex<Store>>>,
    },
    Missing(String),
}

struct ModelRuntime {
    name: String,
    config: ModelConfig,
    identity: Identity,
    slots: Semaphore,
    exec: Exec,
}

#[derive(Default)]
struct Budget {
    spent: f64,
    reserved: f64,
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

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Identity {
    fn of(name: &str, config: &ModelConfig) -> Identity {
        let mut urls = config.urls();
        urls.sort();
        let endpoint = match config.backend {
            BackendKind::Local => config
                .path
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
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

    fn key(&self, kind: &str, content: Value) -> String {
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

/// The in-process engine for a `local` model: its file resolved now (a missing
/// one fails only the calls to it), loaded at its first call.
fn local_backend(name: &str, m: &ModelConfig, source: &std::path::Path) -> LocalBackend {
    match local::backend::resolve_configured(name, m.path.as_deref(), source) {
        Ok(path) => LocalBackend::lazy(name, path, local::LoadOptions::default()),
        Err(why) => LocalBackend::missing(name, why),
    }
}

/// The request with the model's configured sampling values where it left them open.
fn with_defaults(request: &ChatRequest, config: &ModelConfig) -> ChatRequest {
    let mut r = request.clone();
    r.temperature = r.temperature.or(config.temperature);
    r.max_tokens = r.max_tokens.or(config.max_tokens);
    r.seed = r.seed.or(config.seed);
    r
}

fn chat_key(identity: &Identity, request: &ChatRequest) -> String {
    identity.key(
        "chat",
        serde_json::to_value(request).expect("requests serialise"),
    )
}

/// The re-ask after an answer that broke the schema: the conversation so far, the
/// bad answer, and what was wrong with it.
fn repair_request(original: &ChatRequest, bad: &str, problem: &str) -> ChatRequest {
    let mut r = original.clone();
    r.messages.push(Message::assistant(bad));
    r.messages.push(Message::user(format!(
        "That reply is not valid: {problem}. Reply again with only the JSON value, \
         matching the required schema exactly."
    )));
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

    /// Cost actually spent in this run so far.
    pub fn spent(&self) -> f64 {
        self.inner.budget.lock().expect("budget lock").spent
    }

    /// Counters since this client was made.
    pub fn stats(&self) -> ClientStats {
        let c = &self.inner.counters;
        ClientStats {
            calls: c.calls.load(Ordering::Relaxed),
            cache_hits: c.cache_hits.load(Ordering::Relaxed),
            attempts: c.attempts.load(Ordering::Relaxed),
            retries: c.retries.load(Ordering::Relaxed),
            repairs: c.repairs.load(Ordering::Relaxed),
            failures: c.failures.load(Ordering::Relaxed),
            waited_ms: c.waited_ms.load(Ordering::Relaxed),
        }
    }

    /// Per (role, model) totals of this run, from the store.
    pub fn totals(&self) -> Result<Vec<RoleTotals>, LlmError> {
        Ok(self.lock_store().llm_run_totals(self.inner.run)?)
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

    fn lock_store(&self) -> std::sync::MutexGuard<'_, Store> {
        // A panic while holding the lock leaves the connection usable: every write is
        // one transaction, rolled back if it did not commit.
        self.inner.store.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn reserve(&self, need: f64) -> Result<(), LlmError> {
        let Some(cap) = self.inner.max_cost else {
            return Ok(());
        };
        let mut b = self.inner.budget.lock().expect("budget lock");
        if b.spent + b.reserved + need > cap {
            return Err(LlmError::Budget {
                spent: b.spent,
                reserved: b.reserved,
                cap,
                need,
            });
        }
        b.reserved += need;
        Ok(())
    }

    fn settle(&self, reserved: f64, cost: f64) {
        let mut b = self.inner.budget.lock().expect("budget lock");
        if self.inner.max_cost.is_some() {
            b.reserved = (b.reserved - reserved).max(0.0);
        }
        b.spent += cost;
    }

    fn record(&self, call: &CallRecord, cache: Option<&CacheEntry<'_>>) -> Result<(), LlmError> {
        self.inner.counters.calls.fetch_add(1, Ordering::Relaxed);
        if call.cache_hit {
            self.inner
                .counters
                .cache_hits
                .fetch_add(1, Ordering::Relaxed);
        }
        if call.error.is_some() {
            self.inner.counters.failures.fetch_add(1, Ordering::Relaxed);
        }
        self.lock_store().llm_record(call, cache)?;
        Ok(())
    }

    /// Runs `attempt` until it succeeds, fails fatally, hits the retry cap or would
    /// pass the deadline.
    async fn with_retries<T, F, Fut>(
        &self,
        model: &ModelRuntime,
        attempts: &mut u32,
        deadline: Instant,
        attempt: F,
    ) -> Result<T, LlmError>
    where
        F: Fn() -> Fut,
        Fut: Future<Output = Result<T, AttemptError>>,
    {
        let policy = &self.inner.config.client;
        let mut retry = 0u32;
        loop {
            *attempts += 1;
            self.inner.counters.attempts.fetch_add(1, Ordering::Relaxed);
            let remaining = deadline.saturating_duration_since(Instant::now());
            let limit = model.config.timeout().min(remaining);
            let result = {
                let _slot = model.slots.acquire().await.expect("slots never close");
                match tokio::time::timeout(limit, attempt()).await {
                    Ok(r) => r,
                    Err(_) => Err(AttemptError::transient(format!(
                        "no answer within {:.1} s",
                        limit.as_secs_f64()
                    ))),
                }
            };
            let err = match result {
                Ok(v) => return Ok(v),
                Err(e) => e,
            };
            let failed = |message: String, attempts: u32| LlmError::Failed {
                model: model.name.clone(),
                attempts,
                message,
            };
            if err.kind == FailureKind::Fatal {
                return Err(failed(err.message, *attempts));
            }
            if retry >= policy.max_retries {
                return Err(failed(
                    format!(
                        "gave up after the retry cap ({}); last error: {}",
                        policy.max_retries, err.message
                    ),
                    *attempts,
                ));
            }
            let wait = match err.retry_after {
                Some(d) => retry::honour(d),
                None => retry::backoff(policy, retry),
            };
            if Instant::now() + wait >= deadline {
                return Err(LlmError::Deadline {
                    model: model.name.clone(),
                    attempts: *attempts,
                    deadline_s: policy.deadline_s,
                    message: err.message,
                });
            }
            tracing::debug!(model = %model.name, retry, wait_ms = wait.as_millis() as u64, "retrying: {}", err.message);
            self.inner.counters.retries.fetch_add(1, Ordering::Relaxed);
            self.inner
                .counters
                .waited_ms
                .fetch_add(wait.as_millis() as u64, Ordering::Relaxed);
            tokio::time::sleep(wait).await;
            retry += 1;
        }
    }
}

impl ModelRuntime {
    fn new(name: &str, config: &ModelConfig, exec: Exec) -> ModelRuntime {
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
    fn request_config(&self) -> &ModelConfig {
        match &self.exec {
            Exec::Replay { of, .. } => &of.config,
            _ => &self.config,
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

    /// Answers one chat request through cache, budget, retries and validation.
    pub async fn chat(&self, request: &ChatRequest) -> Result<Completion, LlmError> {
        let llm = &self.llm;
        let model = &self.model;
        let started = Instant::now();
        let started_ms = now_ms();
        let request = self.prepare(request);
        let key = chat_key(&model.identity, &request);
        let base = CallRecord {
            run: llm.inner.run.0,
            role: self.role.clone(),
            model: model.name.clone(),
            cache_key: key.clone(),
            started_at_ms: started_ms,
            ..CallRecord::default()
        };

        let cached = llm.lock_store().llm_cache_get(&key)?;
        let cached = match (cached, &model.exec) {
            (Some(hit), _) => Some(hit),
            (
                None,
                Exec::Replay {
                    store: Some(other), ..
                },
            ) => other
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .llm_cache_get(&key)?,
            _ => None,
        };
        if let Some(hit) = cached {
            let completion: Completion =
                serde_json::from_str(&hit.response).map_err(|e| LlmError::Failed {
                    model: model.name.clone(),
                    attempts: 0,
                    message: format!("cached answer {key} is unreadable: {e}"),
                })?;
            llm.record(
                &CallRecord {
                    latency_ms: started.elapsed().as_millis() as u64,
                    cache_hit: true,
                    finish_reason: completion.finish_reason.clone(),
                    ..base
                },
                None,
            )?;
            return Ok(Completion {
                cached: true,
                key,
                ..completion
            });
        }
        let backend = match &model.exec {
            Exec::Live(b) => b.clone(),
            Exec::Replay { .. } => {
                let err = LlmError::NotRecorded {
                    model: model.name.clone(),
                    key: key.clone(),
                };
                llm.record(
                    &CallRecord {
                        error: Some(err.to_string()),
                        ..base
                    },
                    None,
                )?;
                return Err(err);
            }
            Exec::Missing(why) => {
                let err = LlmError::Failed {
                    model: model.name.clone(),
                    attempts: 0,
                    message: why.clone(),
                };
                llm.record(
                    &CallRecord {
                        error: Some(err.to_string()),
                        ..base
                    },
                    None,
                )?;
                return Err(err);
            }
        };

        let policy = &llm.inner.config.client;
        let per_try = model.config.cost(
            request.input_bound(),
            u64::from(request.max_tokens.unwrap_or(4096)),
        );
        let reserved = per_try
            * f64::from(
                1 + if request.schema.is_some() {
                    policy.max_repairs
                } else {
                    0
                },
            );
        llm.reserve(reserved)?;

        let deadline = started + Duration::from_secs_f64(policy.deadline_s);
        let mut attempts = 0u32;
        let mut repairs = 0u32;
        let mut usage = Usage::default();
        let mut current = request.clone();
        let outcome: Result<Completion, (LlmError, Option<String>)> = loop {
            let resp = match llm
                .with_retries(model, &mut attempts, deadline, || backend.chat(&current))
                .await
            {
                Ok(r) => r,
                Err(e) => break Err((e, None)),
            };
            usage.input_tokens += resp.usage.input_tokens;
            usage.output_tokens += resp.usage.output_tokens;
            match finish(&request, &resp) {
                Ok(c) => break Ok(Completion { usage, ..c }),
                Err(problem) if repairs < policy.max_repairs => {
                    repairs += 1;
                    llm.inner.counters.repairs.fetch_add(1, Ordering::Relaxed);
                    current = repair_request(&request, &resp.text, &problem);
                }
                Err(problem) => {
                    break Err((
                        LlmError::InvalidOutput {
                            model: model.name.clone(),
                            repairs,
                            problem,
                            raw: resp.text.clone(),
                        },
                        Some(resp.text),
                    ))
                }
            }
        };
        let cost = model.config.cost(usage.input_tokens, usage.output_tokens);
        llm.settle(reserved, cost);
        match outcome {
            Ok(completion) => {
                self.commit(
                    &request,
                    &key,
                    started_ms,
                    started,
                    &completion,
                    cost,
                    attempts,
                    repairs,
                )?;
                Ok(Completion { key, ..completion })
            }
            Err((err, raw_text)) => {
                llm.record(
                    &CallRecord {
                        latency_ms: started.elapsed().as_millis() as u64,
                        input_tokens: usage.input_tokens,
                        output_tokens: usage.output_tokens,
                        cost,
                        attempts,
                        repairs,
                        error: Some(err.to_string()),
                        raw_text,
                        ..base
                    },
                    None,
                )?;
                Err(err)
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn commit(
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

    /// Embeds `texts` (one call) through cache, budget and retries.
    pub async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, LlmError> {
        let llm = &self.llm;
        let model = &self.model;
        let started = Instant::now();
        let started_ms = now_ms();
        let key = model.identity.key("embed", json!(texts));
        let base = CallRecord {
            run: llm.inner.run.0,
            role: self.role.clone(),
            model: model.name.clone(),
            cache_key: key.clone(),
            started_at_ms: started_ms,
            ..CallRecord::default()
        };
        let cached = llm.lock_store().llm_cache_get(&key)?;
        if let Some(hit) = cached {
            if let Ok(vectors) = serde_json::from_str::<Vec<Vec<f32>>>(&hit.response) {
                llm.record(
                    &CallRecord {
                        latency_ms: started.elapsed().as_millis() as u64,
                        cache_hit: true,
                        ..base
                    },
                    None,
                )?;
                return Ok(vectors);
            }
        }
        let backend = match &model.exec {
            Exec::Live(b) => b.clone(),
            Exec::Replay { .. } => {
                return Err(LlmError::NotRecorded {
                    model: model.name.clone(),
                    key,
                })
            }
            Exec::Missing(why) => {
                return Err(LlmError::Failed {
                    model: model.name.clone(),
                    attempts: 0,
                    message: why.clone(),
                })
            }
        };
        let need = model
            .config
            .cost(texts.iter().map(|t| t.len() as u64 + 8).sum(), 0);
        llm.reserve(need)?;
        let deadline = started + Duration::from_secs_f64(llm.inner.config.client.deadline_s);
        let mut attempts = 0;
        let result = llm
            .with_retries(model, &mut attempts, deadline, || backend.embed(texts))
            .await;
        let cost = result
            .as_ref()
            .map_or(0.0, |r| model.config.cost(r.usage.input_tokens, 0));
        llm.settle(need, cost);
        match result {
            Ok(resp) => {
                let response = serde_json::to_string(&resp.vectors).expect("vectors serialise");
                let request_json = json!({"input": texts}).to_string();
                llm.record(
                    &CallRecord {
                        latency_ms: started.elapsed().as_millis() as u64,
                        input_tokens: resp.usage.input_tokens,
                        cost,
                        attempts,
                        ..base
                    },
                    Some(&CacheEntry {
                        key: &key,
                        backend: &model.identity.backend,
                        model: &model.identity.model,
                        kind: "embed",
                        request: &request_json,
                        response: &response,
                        input_tokens: resp.usage.input_tokens,
                        output_tokens: 0,
                        cost,
                    }),
                )?;
                Ok(resp.vectors)
            }
            Err(err) => {
                llm.record(
                    &CallRecord {
                        latency_ms: started.elapsed().as_millis() as u64,
                        attempts,
                        error: Some(err.to_string()),
                        ..base
                    },
                    None,
                )?;
                Err(err)
            }
        }
    }
}

/// Turns a backend answer into a completion: for a schema request, the extracted and
/// validated JSON, or the problem with it.
fn finish(request: &ChatRequest, resp: &ChatResponse) -> Result<Completion, String> {
    let json = match &request.schema {
        Some(schema) => {
            let value = extract_json(&resp.text)?;
            validate(&value, &schema.schema)?;
            Some(value)
        }
        None => None,
    };
    Ok(Completion {
        text: json
            .as_ref()
            .map_or_else(|| resp.text.clone(), Value::to_string),
        json,
        usage: resp.usage,
        finish_reason: resp.finish_reason.clone(),
        cached: false,
        key: String::new(),
    })
}
