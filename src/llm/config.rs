//! `moviegraph.toml`: named models and the roles that use them.
//!
//! With no file every role runs on the offline `rules` backend, so the whole pipeline
//! works with no network and no key. A file names models (backend, model name, base
//! URLs, the *name* of the environment variable holding the key, sampling and limits,
//! prices) and assigns them to roles; flags override single roles.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

/// The default configuration file, looked for in the working directory.
pub const DEFAULT_CONFIG_FILE: &str = "moviegraph.toml";

/// What a configuration can get wrong.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not valid TOML or has unknown or mistyped keys.
    #[error("{path}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// toml's message, with line and column.
        message: String,
    },
    /// The file parsed but says something impossible.
    #[error("{path}: {message}")]
    Invalid {
        /// The file (or `<defaults>`).
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// Where a role's model is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    /// Builds graphs and questions.
    Generator,
    /// Audit generated items (two or more).
    Auditors,
    /// Settles auditor disagreement.
    Adjudicator,
    /// The model under test.
    Subject,
    /// Scores open answers.
    Judge,
    /// Embeds text.
    Embedder,
}

impl Role {
    /// Every role, in configuration order.
    pub const ALL: [Role; 6] = [
        Role::Generator,
        Role::Auditors,
        Role::Adjudicator,
        Role::Subject,
        Role::Judge,
        Role::Embedder,
    ];

    /// The role's name in the file and in logs.
    pub fn name(self) -> &'static str {
        match self {
            Role::Generator => "generator",
            Role::Auditors => "auditors",
            Role::Adjudicator => "adjudicator",
            Role::Subject => "subject",
            Role::Judge => "judge",
            Role::Embedder => "embedder",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The kind of backend a model runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BackendKind {
    /// An OpenAI-compatible HTTP API.
    Openai,
    /// The deterministic offline baseline.
    Rules,
    /// Answers recorded in a store.
    Replay,
    /// An in-process engine attached by the module that implements it.
    Local,
}

impl BackendKind {
    /// The name used in the file, logs and cache keys.
    pub fn name(self) -> &'static str {
        match self {
            BackendKind::Openai => "openai",
            BackendKind::Rules => "rules",
            BackendKind::Replay => "replay",
            BackendKind::Local => "local",
        }
    }
}

/// How to ask an OpenAI-compatible server for structured output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StructuredMode {
    /// `response_format: {type: json_schema}` (OpenAI, vLLM, SGLang, llama.cpp).
    JsonSchema,
    /// `response_format: {type: json_object}` plus the schema in the prompt.
    JsonObject,
    /// Only the schema in the prompt.
    Prompt,
}

/// One named model.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelConfig {
    /// The backend.
    pub backend: BackendKind,
    /// The model name sent to the backend (defaults to the entry's name).
    #[serde(default)]
    pub model: Option<String>,
    /// One base URL (…/v1).
    #[serde(default)]
    pub base_url: Option<String>,
    /// Several base URLs balanced for this model.
    #[serde(default)]
    pub base_urls: Vec<String>,
    /// The *name* of the environment variable that holds the API key.
    #[serde(default)]
    pub api_key_env: Option<String>,
    /// Sampling temperature.
    #[serde(default)]
    pub temperature: Option<f64>,
    /// Output token limit per call.
    #[serde(default)]
    pub max_tokens: Option<u32>,
    /// Sampling seed.
    #[serde(default)]
    pub seed: Option<u64>,
    /// Calls in flight per base URL.
    #[serde(default = "default_concurrency")]
    pub concurrency: usize,
    /// Per-attempt timeout in seconds.
    #[serde(default = "default_timeout")]
    pub timeout_s: f64,
    /// Price in currency units per 1,000 input tokens.
    #[serde(default)]
    pub price_input_per_1k: f64,
    /// Price per 1,000 output tokens.
    #[serde(default)]
    pub price_output_per_1k: f64,
    /// The first structured-output mode to try (falls back when refused).
    #[serde(default)]
    pub structured: Option<StructuredMode>,
    /// For `replay`: the model whose recorded answers to serve.
    #[serde(default)]
    pub replay_of: Option<String>,
    /// For `replay`: the store to read them from (default: the current store).
    #[serde(default)]
    pub replay_store: Option<PathBuf>,
    /// For `local`: the model file.
    #[serde(default)]
    pub path: Option<PathBuf>,
    /// For `local`: `"q8_0"` re-encodes the tensors the engine multiplies
    /// with scalar code (Q5_0 / Q5_1; Q4_1 too for architectures other than
    /// llama, whose pass has its own SIMD Q4_1 product) as Q8_0 at load,
    /// which has a SIMD product, at the cost of outputs that differ slightly
    /// from the file's own quantization. Absent: the file as it is.
    #[serde(default)]
    pub requantize: Option<String>,
}

fn default_concurrency() -> usize {
    8
}

fn default_timeout() -> f64 {
    120.0
}

impl ModelConfig {
    /// A `rules` model with the defaults.
    pub fn rules() -> ModelConfig {
        ModelConfig {
            backend: BackendKind::Rules,
            model: None,
            base_url: None,
            base_urls: Vec::new(),
            api_key_env: None,
            temperature: None,
            max_tokens: None,
            seed: None,
            concurrency: 64,
            timeout_s: default_timeout(),
            price_input_per_1k: 0.0,
            price_output_per_1k: 0.0,
            structured: None,
            replay_of: None,
            replay_store: None,
            path: None,
            requantize: None,
        }
    }

    /// An `openai` model on these base URLs.
    pub fn openai(model: &str, base_urls: &[&str]) -> ModelConfig {
        ModelConfig {
            backend: BackendKind::Openai,
            model: Some(model.to_string()),
            base_urls: base_urls.iter().map(|s| s.to_string()).collect(),
            concurrency: default_concurrency(),
            ..ModelConfig::rules()
        }
    }

    /// Every base URL, trailing slashes removed.
    pub fn urls(&self) -> Vec<String> {
        self.base_url
            .iter()
            .chain(self.base_urls.iter())
            .map(|u| u.trim_end_matches('/').to_string())
            .collect()
    }

    /// The per-attempt timeout.
    pub fn timeout(&self) -> Duration {
        Duration::from_secs_f64(self.timeout_s)
    }

    /// The cost of a call that used these tokens.
    pub fn cost(&self, input_tokens: u64, output_tokens: u64) -> f64 {
        input_tokens as f64 / 1000.0 * self.price_input_per_1k
            + output_tokens as f64 / 1000.0 * self.price_output_per_1k
    }
}

/// Retry, repair and deadline policy shared by all models.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientConfig {
    /// Retries after the first attempt.
    #[serde(default = "default_retries")]
    pub max_retries: u32,
    /// First backoff step, milliseconds (doubles each retry, with full jitter).
    #[serde(default = "default_backoff_base")]
    pub backoff_base_ms: u64,
    /// Largest backoff step, milliseconds.
    #[serde(default = "default_backoff_max")]
    pub backoff_max_ms: u64,
    /// Total time one call may take, retries and waits included, seconds.
    #[serde(default = "default_deadline")]
    pub deadline_s: f64,
    /// Re-asks after an answer that breaks the schema.
    #[serde(default = "default_repairs")]
    pub max_repairs: u32,
}

fn default_retries() -> u32 {
    6
}
fn default_backoff_base() -> u64 {
    500
}
fn default_backoff_max() -> u64 {
    30_000
}
fn default_deadline() -> f64 {
    600.0
}
fn default_repairs() -> u32 {
    2
}

impl Default for ClientConfig {
    fn default() -> Self {
        ClientConfig {
            max_retries: default_retries(),
            backoff_base_ms: default_backoff_base(),
            backoff_max_ms: default_backoff_max(),
            deadline_s: default_deadline(),
            max_repairs: default_repairs(),
        }
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RolesFile {
    generator: Option<String>,
    auditors: Option<Vec<String>>,
    adjudicator: Option<String>,
    subject: Option<String>,
    judge: Option<String>,
    embedder: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    roles: RolesFile,
    #[serde(default)]
    models: BTreeMap<String, ModelConfig>,
    #[serde(default)]
    client: ClientConfig,
}

/// A resolved configuration: every role names a known model.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Where it came from (`<defaults>` when no file).
    pub source: PathBuf,
    /// The models by name.
    pub models: BTreeMap<String, ModelConfig>,
    /// Model names per role (one each, two or more auditors).
    pub roles: BTreeMap<Role, Vec<String>>,
    /// The retry policy.
    pub client: ClientConfig,
}

/// Per-role overrides from the command line.
#[derive(Debug, Clone, Default)]
pub struct RoleOverrides {
    /// Model names per overridden role.
    pub roles: Vec<(Role, Vec<String>)>,
}

/// The built-in models: the rules baseline (`rules`, its measured cue families;
/// `rules-gated`, only the families measured precise), and two rules auditors (grounding and
/// schema) so the two-auditor rule holds offline.
fn builtin_models() -> BTreeMap<String, ModelConfig> {
    ["rules", "rules-gated", "rules-grounding", "rules-schema"]
        .into_iter()
        .map(|name| (name.to_string(), ModelConfig::rules()))
        .collect()
}

impl Config {
    /// The offline defaults: every role on `rules`.
    pub fn offline() -> Config {
        Config::from_str_at("", Path::new("<defaults>")).expect("the defaults are valid")
    }

    /// Loads `path`, or `moviegraph.toml` in the working directory if present, or the
    /// offline defaults; then applies the overrides.
    pub fn load(path: Option<&Path>, overrides: &RoleOverrides) -> Result<Config, ConfigError> {
        let mut config = match path {
            Some(p) => Config::from_file(p)?,
            None if Path::new(DEFAULT_CONFIG_FILE).is_file() => {
                Config::from_file(Path::new(DEFAULT_CONFIG_FILE))?
            }
            None => Config::offline(),
        };
        config.apply(overrides)?;
        Ok(config)
    }

    /// Reads and resolves one file.
    pub fn from_file(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Config::from_str_at(&text, path)
    }

    /// Resolves configuration text; `path` names it in errors.
    pub fn from_str_at(text: &str, path: &Path) -> Result<Config, ConfigError> {
        let file: ConfigFile = toml::from_str(text).map_err(|e| ConfigError::Parse {
            path: path.to_path_buf(),
            message: e.to_string().trim_end().to_string(),
        })?;
        let mut models = builtin_models();
        models.extend(file.models);
        let r = file.roles;
        let one = |v: Option<String>| vec![v.unwrap_or_else(|| "rules".to_string())];
        let mut roles = BTreeMap::new();
        roles.insert(Role::Generator, one(r.generator));
        roles.insert(
            Role::Auditors,
            r.auditors
                .unwrap_or_else(|| vec!["rules-grounding".into(), "rules-schema".into()]),
        );
        roles.insert(Role::Adjudicator, one(r.adjudicator));
        roles.insert(Role::Subject, one(r.subject));
        roles.insert(Role::Judge, one(r.judge));
        roles.insert(Role::Embedder, one(r.embedder));
        let config = Config {
            source: path.to_path_buf(),
            models,
            roles,
            client: file.client,
        };
        config.check()?;
        Ok(config)
    }

    /// Replaces the roles named in `overrides`.
    pub fn apply(&mut self, overrides: &RoleOverrides) -> Result<(), ConfigError> {
        for (role, names) in &overrides.roles {
            self.roles.insert(*role, names.clone());
        }
        self.check()
    }

    /// The model names serving `role`.
    pub fn role(&self, role: Role) -> &[String] {
        self.roles.get(&role).map_or(&[], |v| v.as_slice())
    }

    fn invalid(&self, message: String) -> ConfigError {
        ConfigError::Invalid {
            path: self.source.clone(),
            message,
        }
    }

    fn check(&self) -> Result<(), ConfigError> {
        for (role, names) in &self.roles {
            for name in names {
                if !self.models.contains_key(name) {
                    return Err(self.invalid(format!(
                        "role {role} names the model \"{name}\", which is not defined under [models]"
                    )));
                }
            }
            if *role == Role::Auditors && names.len() < 2 {
                return Err(self.invalid(format!(
                    "role auditors needs two or more models, found {}",
                    names.len()
                )));
            }
            if *role != Role::Auditors && names.len() != 1 {
                return Err(self.invalid(format!("role {role} takes exactly one model")));
            }
        }
        for (name, m) in &self.models {
            let bad = |what: &str| self.invalid(format!("model \"{name}\": {what}"));
            if m.concurrency == 0 {
                return Err(bad("concurrency must be at least 1"));
            }
            if !(m.timeout_s > 0.0 && m.timeout_s.is_finite()) {
                return Err(bad("timeout_s must be a positive number of seconds"));
            }
            if m.price_input_per_1k < 0.0 || m.price_output_per_1k < 0.0 {
                return Err(bad("prices cannot be negative"));
            }
            match m.backend {
                BackendKind::Openai => {
                    if m.urls().is_empty() {
                        return Err(bad("an openai model needs base_url or base_urls"));
                    }
                    for url in m.urls() {
                        if !(url.starts_with("http://") || url.starts_with("https://")) {
                            return Err(bad(&format!("base URL {url:?} is not http(s)")));
                        }
                    }
                    if let Some(var) = &m.api_key_env {
                        if var.is_empty() || var.contains(char::is_whitespace) || var.len() > 64 {
                            // A key pasted here by mistake must not be echoed back.
                            return Err(bad(
                                "api_key_env must name an environment variable (not hold the key)",
                            ));
                        }
                    }
                }
                BackendKind::Replay => match &m.replay_of {
                    Some(of) if self.models.contains_key(of) && of != name => {}
                    Some(of) => {
                        return Err(bad(&format!(
                            "replay_of names \"{of}\", which is not another defined model"
                        )));
                    }
                    None => return Err(bad("a replay model needs replay_of")),
                },
                BackendKind::Rules | BackendKind::Local => {}
            }
            match (&m.requantize, m.backend) {
                (None, _) => {}
                (Some(q), BackendKind::Local) if q == "q8_0" => {}
                (Some(q), BackendKind::Local) => {
                    return Err(bad(&format!(
                        "requantize = \"{q}\": the one choice is \"q8_0\""
                    )))
                }
                (Some(_), _) => return Err(bad("requantize applies to local models only")),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_offline_rules() {
        let c = Config::offline();
        for role in Role::ALL {
            for name in c.role(role) {
                assert_eq!(c.models[name].backend, BackendKind::Rules, "{role}");
            }
        }
        assert_eq!(c.role(Role::Auditors).len(), 2);
    }

    #[test]
    fn a_file_defines_models_and_roles() {
        let text = r#"
            [roles]
            generator = "gpt"
            auditors = ["gpt", "rules-schema"]
            [models.gpt]
            backend = "openai"
            model = "gpt-4o-mini"
            base_urls = ["http://127.0.0.1:8000/v1/", "http://127.0.0.1:8001/v1"]
            api_key_env = "OPENAI_API_KEY"
            price_input_per_1k = 0.15
            concurrency = 4
            [client]
            max_retries = 3
        "#;
        let c = Config::from_str_at(text, Path::new("m.toml")).unwrap();
        assert_eq!(c.role(Role::Generator), ["gpt"]);
        assert_eq!(
            c.models["gpt"].urls(),
            ["http://127.0.0.1:8000/v1", "http://127.0.0.1:8001/v1"]
        );
        assert_eq!(c.client.max_retries, 3);
        assert!((c.models["gpt"].cost(2000, 0) - 0.3).abs() < 1e-12);
    }

    #[test]
    fn mistakes_are_named() {
        let cases = [
            ("[roles]\ngenerator = \"nope\"", "not defined under [models]"),
            ("[roles]\nauditors = [\"rules\"]", "two or more"),
            ("[models.x]\nbackend = \"openai\"", "needs base_url"),
            ("[models.x]\nbackend = \"warp\"", "unknown variant"),
            ("[models.x]\nbackend = \"rules\"\ntemprature = 1", "unknown field"),
            ("[models.x]\nbackend = \"replay\"", "needs replay_of"),
            (
                "[models.x]\nbackend = \"openai\"\nbase_url = \"http://h/v1\"\napi_key_env = \"sk-proj abc def\"",
                "must name an environment variable",
            ),
            (
                "[models.x]\nbackend = \"local\"\nrequantize = \"q4_0\"",
                "the one choice is \"q8_0\"",
            ),
            (
                "[models.x]\nbackend = \"openai\"\nbase_url = \"http://h/v1\"\nrequantize = \"q8_0\"",
                "local models only",
            ),
        ];
        for (text, want) in cases {
            let err = Config::from_str_at(text, Path::new("m.toml"))
                .unwrap_err()
                .to_string();
            assert!(
                err.contains(want) && err.starts_with("m.toml"),
                "{text}: {err}"
            );
            assert!(!err.contains("sk-proj"), "{err}");
        }
    }

    #[test]
    fn the_documented_example_is_valid() {
        let text = include_str!("../../moviegraph.example.toml");
        let c = Config::from_str_at(text, Path::new("moviegraph.example.toml")).unwrap();
        assert_eq!(c.role(Role::Auditors), ["qwen", "rules-schema"]);
        assert_eq!(c.models["qwen"].urls().len(), 2);
        assert_eq!(c.models["gpt-replay"].backend, BackendKind::Replay);
        assert_eq!(c.models["smollm2"].backend, BackendKind::Local);
    }

    #[test]
    fn overrides_replace_one_role() {
        let mut c = Config::offline();
        c.apply(&RoleOverrides {
            roles: vec![(Role::Judge, vec!["rules-schema".into()])],
        })
        .unwrap();
        assert_eq!(c.role(Role::Judge), ["rules-schema"]);
        assert!(c
            .apply(&RoleOverrides {
                roles: vec![(Role::Subject, vec!["missing".into()])],
            })
            .is_err());
    }
}
