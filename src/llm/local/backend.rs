//! The local engine as a [`Backend`] of the model layer.
//!
//! Each loaded model lives on its own worker thread and takes jobs from a queue,
//! one generation at a time; `chat` sends a job and awaits the answer on a
//! oneshot channel, so the async runtime never blocks on a forward pass. The
//! model loads on the worker at its first job (unused roles cost nothing), and
//! every [`LocalBackend`] that names the same file shares one worker and one
//! copy of the weights. Requests with a schema are decoded under the schema's
//! constraint ([`super::constrain`]); image parts are dropped with a warning.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, OnceLock, Weak};

use async_trait::async_trait;
use serde_json::{Map, Value};
use tokio::sync::oneshot;

use super::{ChatTurn, GenParams, Generation, LoadOptions, LocalError, LocalModel};
use crate::llm::backend::{AttemptError, Backend};
use crate::llm::types::{ChatRequest, ChatResponse, Part, Speaker, Usage};

/// Tokens generated when neither the request nor the model's config sets `max_tokens`.
pub const DEFAULT_MAX_TOKENS: usize = 512;
/// Values a narrowed `^P[0-9]+$` pattern allows (`P1` … `P32`).
pub const PATTERN_ENUM_SIZE: usize = 32;

struct Job {
    turns: Vec<ChatTurn>,
    params: GenParams,
    schema: Option<Value>,
    reply: oneshot::Sender<Result<Generation, String>>,
}

/// One model file's worker: the queue into it.
struct Worker {
    jobs: Mutex<mpsc::Sender<Job>>,
}

/// Where the model comes from.
enum Source {
    /// A file, loaded on the worker at the first job.
    File(PathBuf, LoadOptions),
    /// A model already loaded by the caller.
    Loaded(Arc<LocalModel>),
    /// The file could not be found; every call fails with this message.
    Missing(String),
}

/// A local GGUF model behind the [`Backend`] trait.
pub struct LocalBackend {
    name: String,
    source: Source,
    worker: OnceLock<Arc<Worker>>,
}

impl std::fmt::Debug for LocalBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let source = match &self.source {
            Source::File(p, _) => p.display().to_string(),
            Source::Loaded(m) => m.info().path.display().to_string(),
            Source::Missing(why) => why.clone(),
        };
        f.debug_struct("LocalBackend")
            .field("name", &self.name)
            .field("source", &source)
            .finish()
    }
}

/// Workers by canonical model file, so two config entries on one file share it.
fn workers() -> &'static Mutex<HashMap<PathBuf, Weak<Worker>>> {
    static WORKERS: OnceLock<Mutex<HashMap<PathBuf, Weak<Worker>>>> = OnceLock::new();
    WORKERS.get_or_init(|| Mutex::new(HashMap::new()))
}

impl LocalBackend {
    /// Model `name` (for messages) from the GGUF at `path`, loaded lazily.
    pub fn lazy(name: &str, path: PathBuf, opts: LoadOptions) -> LocalBackend {
        LocalBackend {
            name: name.to_string(),
            source: Source::File(path, opts),
            worker: OnceLock::new(),
        }
    }

    /// A backend over a model the caller already loaded (its own worker).
    pub fn from_model(name: &str, model: Arc<LocalModel>) -> LocalBackend {
        LocalBackend {
            name: name.to_string(),
            source: Source::Loaded(model),
            worker: OnceLock::new(),
        }
    }

    /// A backend whose every call fails with `why` (the file was not found);
    /// keeps a bad path from failing the roles that never use this model.
    pub fn missing(name: &str, why: String) -> LocalBackend {
        LocalBackend {
            name: name.to_string(),
            source: Source::Missing(why),
            worker: OnceLock::new(),
        }
    }

    fn worker(&self) -> Result<Arc<Worker>, AttemptError> {
        if let Some(w) = self.worker.get() {
            return Ok(w.clone());
        }
        let w = match &self.source {
            Source::Missing(why) => return Err(AttemptError::fatal(why.clone())),
            Source::Loaded(model) => spawn(Slot::Loaded(model.clone()), &self.name)?,
            Source::File(path, opts) => {
                let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
                let mut map = workers().lock().unwrap_or_else(|p| p.into_inner());
                match map.get(&key).and_then(Weak::upgrade) {
                    Some(w) => w,
                    None => {
                        let w = spawn(Slot::Unloaded(path.clone(), opts.clone()), &self.name)?;
                        map.insert(key, Arc::downgrade(&w));
                        w
                    }
                }
            }
        };
        Ok(self.worker.get_or_init(|| w).clone())
    }
}

enum Slot {
    Unloaded(PathBuf, LoadOptions),
    Loaded(Arc<LocalModel>),
    Failed(String),
}

fn spawn(mut slot: Slot, name: &str) -> Result<Arc<Worker>, AttemptError> {
    let (tx, rx) = mpsc::channel::<Job>();
    std::thread::Builder::new()
        .name(format!("local-{name}"))
        .spawn(move || {
            // Ends when every sender (every backend on this file) is gone.
            for job in rx {
                if job.reply.is_closed() {
                    // The caller timed out or gave up while this job queued.
                    continue;
                }
                let model = match load(&mut slot) {
                    Ok(m) => m,
                    Err(e) => {
                        let _ = job.reply.send(Err(e));
                        continue;
                    }
                };
                // A caller that timed out drops its receiver: stop generating
                // for it, so the next job in the queue starts at once.
                let result = model
                    .generate_cancellable(&job.turns, &job.params, job.schema.as_ref(), &|| {
                        job.reply.is_closed()
                    })
                    .map_err(|e| e.to_string());
                if let Err(e) = &result {
                    if job.reply.is_closed() {
                        tracing::debug!("local generation stopped: {e}");
                    }
                }
                let _ = job.reply.send(result);
            }
        })
        .map_err(|e| AttemptError::fatal(format!("cannot start the local model's thread: {e}")))?;
    Ok(Arc::new(Worker {
        jobs: Mutex::new(tx),
    }))
}

/// The slot's model, loading it on first use; a failed load is remembered.
fn load(slot: &mut Slot) -> Result<Arc<LocalModel>, String> {
    if let Slot::Unloaded(path, opts) = slot {
        let (path, opts) = (path.clone(), opts.clone());
        let started = std::time::Instant::now();
        *slot = match LocalModel::load(&path, &opts) {
            Ok(m) => {
                tracing::info!(
                    "loaded {} ({}) in {:.2} s",
                    path.display(),
                    m.info().arch,
                    started.elapsed().as_secs_f64()
                );
                Slot::Loaded(Arc::new(m))
            }
            Err(e) => Slot::Failed(e.to_string()),
        };
    }
    match slot {
        Slot::Loaded(m) => Ok(m.clone()),
        Slot::Failed(why) => Err(why.clone()),
        Slot::Unloaded(..) => unreachable!("loaded above"),
    }
}

/// The request's turns as the engine takes them; image parts are dropped (the
/// engine reads text only) and counted.
pub fn request_turns(request: &ChatRequest) -> (Vec<ChatTurn>, usize) {
    let mut images = 0;
    let turns = request
        .messages
        .iter()
        .map(|m| {
            images += m
                .parts
                .iter()
                .filter(|p| matches!(p, Part::Image { .. }))
                .count();
            let role = match m.role {
                Speaker::System => "system",
                Speaker::User => "user",
                Speaker::Assistant => "assistant",
            };
            ChatTurn::new(role, m.joined_text())
        })
        .collect();
    (turns, images)
}

/// The request's sampling values: temperature 0 (or unset) is greedy, otherwise
/// sampling seeded with the request's seed (0 when unset).
pub fn request_params(request: &ChatRequest) -> GenParams {
    GenParams {
        max_tokens: request
            .max_tokens
            .map_or(DEFAULT_MAX_TOKENS, |n| n as usize),
        temperature: request.temperature.unwrap_or(0.0) as f32,
        seed: request.seed.unwrap_or(0),
        top_logprobs: request.top_logprobs.map_or(0, usize::from),
    }
}

/// The schema the engine can constrain to. `pattern` is outside the engine's
/// subset; the one form the pipeline uses, a literal prefix then digits
/// (`^N[0-9]+$`), becomes an `enum` of its first [`PATTERN_ENUM_SIZE`] values: a
/// narrowing, so every constrained output still matches the pattern. Other
/// patterns are an error naming them.
pub fn narrow_schema(schema: &Value) -> Result<Value, LocalError> {
    fn walk(v: &Value, path: &str) -> Result<Value, LocalError> {
        Ok(match v {
            Value::Object(obj) => {
                let mut out = Map::new();
                let mut pattern_enum = None;
                for (k, x) in obj {
                    if k == "pattern" {
                        let p = x.as_str().unwrap_or_default();
                        pattern_enum = Some(prefix_digits(p).ok_or_else(|| {
                            LocalError::Schema(super::constrain::SchemaError {
                                path: if path.is_empty() { "(root)".into() } else { path.into() },
                                problem: format!(
                                    "pattern {p:?} is not supported by the local engine (only ^PREFIX[0-9]+$)"
                                ),
                            })
                        })?);
                        continue;
                    }
                    // `properties` maps names to schemas; everything else may hold schemas too.
                    out.insert(k.clone(), walk(x, &format!("{path}/{k}"))?);
                }
                // An alternative with an empty `enum` matches nothing (the graph's
                // handle list before any entity is known): dropping it is exact, and
                // the engine cannot compile it.
                if let Some(Value::Array(alts)) = out.get_mut("anyOf") {
                    let empty = |a: &Value| {
                        a.get("enum")
                            .and_then(Value::as_array)
                            .is_some_and(Vec::is_empty)
                    };
                    if alts.iter().any(|a| !empty(a)) {
                        alts.retain(|a| !empty(a));
                    }
                }
                if let Some(prefix) = pattern_enum {
                    if !out.contains_key("enum") {
                        let values: Vec<Value> = (1..=PATTERN_ENUM_SIZE)
                            .map(|i| Value::String(format!("{prefix}{i}")))
                            .collect();
                        out.insert("enum".into(), Value::Array(values));
                        out.remove("minLength");
                        out.remove("maxLength");
                    }
                }
                Value::Object(out)
            }
            Value::Array(items) => Value::Array(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, x)| walk(x, &format!("{path}/{i}")))
                    .collect::<Result<_, _>>()?,
            ),
            other => other.clone(),
        })
    }
    walk(schema, "")
}

/// `^ABC[0-9]+$` → `ABC` (a prefix of letters, `_` or `-`).
fn prefix_digits(pattern: &str) -> Option<&str> {
    let body = pattern.strip_prefix('^')?.strip_suffix("[0-9]+$")?;
    body.chars()
        .all(|c| c.is_ascii_alphabetic() || c == '_' || c == '-')
        .then_some(body)
}

/// An engine error as an attempt failure: none of them goes away on retry.
fn attempt_error(e: LocalError) -> AttemptError {
    AttemptError::fatal(e.to_string())
}

/// Where a configured local model's file is. `path` (absolute, or relative to the
/// config file's folder, or to the working directory) may be a `.gguf` file or a
/// folder holding exactly one; a bare name is also looked up under the models
/// folder (`$MOVIEGRAPH_MODELS`, else `${XDG_CACHE_HOME:-~/.cache}/moviegraph/models`).
/// No `path` means the default model ([`super::resolve_model_path`]). The error
/// names every place tried and points to `scripts/setup-models`.
pub fn resolve_configured(
    name: &str,
    path: Option<&Path>,
    config_source: &Path,
) -> Result<PathBuf, String> {
    resolve_configured_with(name, path, config_source, |k| std::env::var_os(k))
}

/// [`resolve_configured`], reading variables through `var`.
pub fn resolve_configured_with(
    name: &str,
    path: Option<&Path>,
    config_source: &Path,
    var: impl Fn(&str) -> Option<std::ffi::OsString>,
) -> Result<PathBuf, String> {
    let Some(path) = path else {
        return super::resolve_model_path(None)
            .map_err(|e| format!("local model \"{name}\" has no path, and {e}"));
    };
    let mut tried: Vec<PathBuf> = Vec::new();
    if path.is_absolute() {
        tried.push(path.to_path_buf());
    } else {
        if let Some(dir) = config_source.parent().filter(|d| d.is_dir()) {
            tried.push(dir.join(path));
        }
        tried.push(path.to_path_buf());
        if let Some(root) = crate::llm::model_dir::models_root_with(&var) {
            tried.push(root.join(path));
        }
    }
    tried.dedup();
    for p in &tried {
        if p.is_file() {
            return Ok(p.clone());
        }
        if p.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(p)
                .map(|rd| {
                    rd.filter_map(|e| e.ok().map(|e| e.path()))
                        .filter(|f| f.extension().is_some_and(|x| x == "gguf") && f.is_file())
                        .collect()
                })
                .unwrap_or_default();
            found.sort();
            match found.len() {
                1 => return Ok(found.remove(0)),
                0 => {}
                n => {
                    return Err(format!(
                        "local model \"{name}\": {} holds {n} .gguf files; name one in `path`",
                        p.display()
                    ))
                }
            }
        }
    }
    let tried: Vec<String> = tried.iter().map(|p| p.display().to_string()).collect();
    Err(format!(
        "local model \"{name}\": no model file at path {} (looked at {}); run scripts/setup-models \
         to install SmolLM2, or set `path` to a .gguf file",
        path.display(),
        tried.join(", ")
    ))
}

#[async_trait]
impl Backend for LocalBackend {
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, AttemptError> {
        let (turns, images) = request_turns(request);
        if images > 0 {
            tracing::warn!(
                model = %self.name,
                "dropped {images} image part(s): the local engine reads text only"
            );
        }
        let schema = match &request.schema {
            Some(s) => Some(narrow_schema(&s.schema).map_err(attempt_error)?),
            None => None,
        };
        let worker = self.worker()?;
        let (reply, answer) = oneshot::channel();
        let job = Job {
            turns,
            params: request_params(request),
            schema,
            reply,
        };
        worker
            .jobs
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .send(job)
            .map_err(|_| AttemptError::fatal("the local model's thread has stopped"))?;
        let generation = answer
            .await
            .map_err(|_| AttemptError::fatal("the local model's thread stopped mid-generation"))?
            .map_err(AttemptError::fatal)?;
        if generation.closed {
            tracing::warn!(
                model = %self.name,
                "the answer reached max_tokens and was closed to keep it valid JSON"
            );
        }
        Ok(ChatResponse {
            text: generation.text,
            usage: Usage {
                input_tokens: generation.prompt_tokens as u64,
                output_tokens: generation.completion_tokens as u64,
            },
            finish_reason: Some(generation.finish_reason.as_str().to_string()),
            logprobs: (!generation.logprobs.is_empty()).then_some(generation.logprobs),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::types::Message;
    use serde_json::json;

    #[test]
    fn images_are_dropped_and_roles_kept() {
        let req = ChatRequest::new(vec![
            Message::system("be brief"),
            Message::user("look").with_image("image/png", &[1, 2, 3]),
            Message::assistant("ok"),
        ]);
        let (turns, images) = request_turns(&req);
        assert_eq!(images, 1);
        let roles: Vec<&str> = turns.iter().map(|t| t.role.as_str()).collect();
        assert_eq!(roles, ["system", "user", "assistant"]);
        assert_eq!(turns[1].text, "look");
    }

    #[test]
    fn sampling_defaults_are_greedy_and_seeded() {
        let mut req = ChatRequest::new(vec![Message::user("x")]);
        let p = request_params(&req);
        assert_eq!(
            (p.temperature, p.seed, p.max_tokens),
            (0.0, 0, DEFAULT_MAX_TOKENS)
        );
        req.temperature = Some(0.7);
        req.seed = Some(9);
        req.max_tokens = Some(12);
        let p = request_params(&req);
        assert_eq!((p.temperature, p.seed, p.max_tokens), (0.7, 9, 12));
    }

    #[test]
    fn handle_patterns_narrow_to_enums_that_match_them() {
        let s = json!({"type": "object", "properties": {
            "h": {"type": "string", "pattern": "^N[0-9]+$"},
            "any": {"anyOf": [{"type": "string", "enum": ["E1"]}, {"type": "string", "pattern": "^N[0-9]+$"}]}
        }});
        let n = narrow_schema(&s).unwrap();
        let values = n["properties"]["h"]["enum"].as_array().unwrap();
        assert_eq!(values.len(), PATTERN_ENUM_SIZE);
        assert_eq!(values[0], "N1");
        assert!(n["properties"]["h"].get("pattern").is_none());
        assert_eq!(n["properties"]["any"]["anyOf"][1]["enum"][31], "N32");
        let none_known = json!({"anyOf": [{"type": "string", "enum": []}, {"type": "string", "pattern": "^N[0-9]+$"}]});
        let n2 = narrow_schema(&none_known).unwrap();
        assert_eq!(n2["anyOf"].as_array().unwrap().len(), 1);
        super::super::constrain::Grammar::compile(&n2).expect("compiles without the empty enum");
        super::super::constrain::Grammar::compile(&n).expect("the narrowed schema compiles");
        let e = narrow_schema(&json!({"type": "string", "pattern": "[a-z]+"})).unwrap_err();
        assert!(e.to_string().contains("[a-z]+"), "{e}");
    }

    #[test]
    fn configured_paths_resolve_against_config_cwd_and_models_folder() {
        let dir = tempfile::tempdir().unwrap();
        let models = dir.path().join("models");
        std::fs::create_dir_all(models.join("tiny")).unwrap();
        std::fs::write(models.join("tiny/t.gguf"), b"x").unwrap();
        let conf_dir = dir.path().join("conf");
        std::fs::create_dir_all(&conf_dir).unwrap();
        std::fs::write(conf_dir.join("a.gguf"), b"x").unwrap();
        let conf = conf_dir.join("moviegraph.toml");
        std::fs::write(&conf, "").unwrap();
        let models_s = models.clone().into_os_string();
        let var = move |k: &str| (k == "MOVIEGRAPH_MODELS").then(|| models_s.clone());
        let got = |p: &str| resolve_configured_with("m", Some(Path::new(p)), &conf, &var);
        assert_eq!(got("a.gguf").unwrap(), conf_dir.join("a.gguf"));
        assert_eq!(got("tiny").unwrap(), models.join("tiny/t.gguf"));
        let abs = models.join("tiny/t.gguf");
        assert_eq!(got(abs.to_str().unwrap()).unwrap(), abs);
        let e = got("nope.gguf").unwrap_err();
        assert!(
            e.contains("nope.gguf") && e.contains("scripts/setup-models") && e.contains("\"m\""),
            "{e}"
        );
    }

    #[tokio::test]
    async fn a_missing_model_fails_every_call_fatally() {
        let b = LocalBackend::missing("m", "no file at x.gguf".into());
        let e = b
            .chat(&ChatRequest::new(vec![Message::user("hi")]))
            .await
            .unwrap_err();
        assert_eq!(e.kind, crate::llm::FailureKind::Fatal);
        assert!(e.message.contains("x.gguf"));
    }
}
