//! Backend `local`: a GGUF model run in-process with candle, offline.
//!
//! [`LocalModel::load`] reads the file (architecture from
//! `general.architecture`, see [`arch::SUPPORTED`]), its tokenizer
//! ([`tokenizer`]) and chat template ([`template`]). [`LocalModel::generate`]
//! renders the turns, drops the oldest turns (with a warning) when the prompt
//! would not fit the context, prefills the KV cache, and samples greedily
//! (`temperature <= 0`) or from the softmax with a seeded RNG. With a JSON
//! schema, every step is masked by [`constrain`] so the text always parses and
//! validates. One generation runs at a time per model; callers queue on a mutex.
//! [`backend::LocalBackend`] makes it a backend of the model layer (a worker
//! thread per model file, loaded at first use).
//!
//! The model file is found by [`resolve_model_path`]: an explicit path, else
//! `MOVIEGRAPH_LOCAL_MODEL`, else the single `.gguf` in
//! `${XDG_CACHE_HOME:-~/.cache}/moviegraph/models/smollm2-135m-instruct/`.

pub mod arch;
pub mod backend;
pub mod constrain;
pub mod llama;
pub mod q4_1;
pub mod template;
pub mod tokenizer;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use candle_core::quantized::gguf_file;
use serde_json::Value;

use crate::util::rng::SplitMix64;

use constrain::{Grammar, Matcher, SchemaError, SchemaMasks, VocabTrie};

/// Environment variable naming the default local model file.
pub const MODEL_ENV: &str = "MOVIEGRAPH_LOCAL_MODEL";
/// Folder (under the cache dir) the setup script installs SmolLM2 into.
pub const DEFAULT_MODEL_DIR: &str = "moviegraph/models/smollm2-135m-instruct";
/// Prompt tokens run through the model per forward pass while prefilling.
pub const PREFILL_CHUNK: usize = 512;
/// Compiled schemas kept per model.
const MAX_CACHED_SCHEMAS: usize = 64;

/// Errors of the local backend.
#[derive(Debug, thiserror::Error)]
pub enum LocalError {
    /// No model file where one was looked for.
    #[error("no local model found: {0}")]
    NotFound(String),
    /// The model file could not be read or parsed.
    #[error("{path}: cannot load model: {problem}", path = .path.display())]
    Load {
        /// The GGUF file.
        path: PathBuf,
        /// What went wrong.
        problem: String,
    },
    /// The GGUF names an architecture this backend does not run.
    #[error("{path}: architecture `{arch}` is not supported (supported: {})", arch::SUPPORTED.join(", "), path = .path.display())]
    UnsupportedArchitecture {
        /// The GGUF file.
        path: PathBuf,
        /// Its `general.architecture`.
        arch: String,
    },
    /// The tokenizer could not be built.
    #[error("{path}: tokenizer: {problem}", path = .path.display())]
    Tokenizer {
        /// The GGUF or tokenizer.json file.
        path: PathBuf,
        /// What went wrong.
        problem: String,
    },
    /// The chat template failed to compile or render.
    #[error("chat template: {0}")]
    Template(String),
    /// The request's JSON schema is outside the supported subset.
    #[error(transparent)]
    Schema(#[from] SchemaError),
    /// Even the last turn alone does not fit the context.
    #[error("prompt of {prompt_tokens} tokens does not fit the context of {context} tokens")]
    ContextOverflow {
        /// Tokens of the smallest prompt tried.
        prompt_tokens: usize,
        /// The context length.
        context: usize,
    },
    /// The forward pass or tokenizer failed mid-generation.
    #[error("generation failed: {0}")]
    Generation(String),
    /// Constrained output did not validate: a bug in the constraint engine.
    #[error("constrained output failed validation (bug): {0}")]
    InvalidOutput(String),
    /// The caller gave up (timed out) and generation stopped early.
    #[error("generation cancelled after {tokens} token(s): the caller gave up waiting")]
    Cancelled {
        /// Tokens generated before the stop.
        tokens: usize,
    },
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatTurn {
    /// `system`, `user` or `assistant`.
    pub role: String,
    /// The message text.
    pub text: String,
}

impl ChatTurn {
    /// A turn with `role` and `text`.
    pub fn new(role: impl Into<String>, text: impl Into<String>) -> Self {
        ChatTurn {
            role: role.into(),
            text: text.into(),
        }
    }
}

/// Sampling parameters of one generation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GenParams {
    /// Most tokens to generate.
    pub max_tokens: usize,
    /// 0 (or less) is greedy; otherwise softmax temperature.
    pub temperature: f32,
    /// Seed of the sampling RNG (same seed, same output).
    pub seed: u64,
    /// Record each generated token's log-probability and this many most
    /// likely alternatives (under the schema's mask, when there is one); 0: none.
    pub top_logprobs: usize,
}

impl Default for GenParams {
    fn default() -> Self {
        GenParams {
            max_tokens: 256,
            temperature: 0.0,
            seed: 0,
            top_logprobs: 0,
        }
    }
}

/// Why generation stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FinishReason {
    /// The model ended (EOS/end of turn), or the schema's value was complete.
    Stop,
    /// `max_tokens` (or the context) ran out; constrained text is then closed
    /// by the engine (see [`Generation::closed`]).
    Length,
}

impl FinishReason {
    /// `stop` / `length`, as OpenAI-compatible APIs spell them.
    pub fn as_str(self) -> &'static str {
        match self {
            FinishReason::Stop => "stop",
            FinishReason::Length => "length",
        }
    }
}

/// Where the time of one generation went.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct GenTiming {
    /// Prefill (prompt processing) seconds.
    pub prompt_secs: f64,
    /// Decoding seconds (forward passes, sampling and masks).
    pub gen_secs: f64,
    /// Seconds of the decoding spent computing masks and advancing the matcher.
    pub mask_secs: f64,
    /// Seconds of the decoding spent choosing tokens (and their logprobs).
    pub sample_secs: f64,
    /// Seconds turning the generated tokens into text, after decoding.
    pub detokenize_secs: f64,
    /// Masks computed by walking the vocabulary trie.
    pub masks_computed: u64,
    /// Masks served from the per-schema cache.
    pub masks_cached: u64,
    /// Greedy steps whose unmasked choice the grammar accepted, so no mask
    /// was needed.
    pub masks_skipped: u64,
}

/// The result of one generation.
#[derive(Debug, Clone, PartialEq)]
pub struct Generation {
    /// The generated text (special tokens dropped).
    pub text: String,
    /// Tokens in the rendered prompt.
    pub prompt_tokens: usize,
    /// Tokens generated (the final EOS not counted).
    pub completion_tokens: usize,
    /// Why it stopped.
    pub finish_reason: FinishReason,
    /// Constrained output cut off by the token budget, closed by the engine
    /// with the shortest valid ending (so it still validates; its last
    /// values are truncated).
    pub closed: bool,
    /// Oldest turns dropped to fit the context.
    pub dropped_turns: usize,
    /// Per generated token, its log-probability and the most likely
    /// alternatives, when [`GenParams::top_logprobs`] asked for them.
    pub logprobs: Vec<crate::llm::types::TokenLogprob>,
    /// Timing figures.
    pub timing: GenTiming,
}

/// Options of [`LocalModel::load`].
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// Use at most this many context tokens (default: the model's own length).
    pub context_len: Option<usize>,
    /// Re-encode the tensors of a type the forward pass multiplies with
    /// scalar code ([`arch::scalar_types`]: Q5_0 and Q5_1, and Q4_1 outside
    /// the llama layout) as Q8_0 at load (`arch::transcode`): faster on x86,
    /// outputs slightly different from the file's own quantization. Off: the
    /// file as it is, whose greedy outputs are pinned by a test.
    pub requantize: bool,
    /// Run llama-layout files on candle's `quantized_llama`, the reference
    /// the engine's own pass reproduces bit for bit, several times slower
    /// (also `MOVIEGRAPH_LOCAL_ENGINE=candle`); for comparisons.
    pub candle_llama: bool,
}

/// What was loaded.
#[derive(Debug, Clone)]
pub struct ModelInfo {
    /// The GGUF file.
    pub path: PathBuf,
    /// `general.architecture`.
    pub arch: String,
    /// `general.name`, or the file stem.
    pub name: String,
    /// Context length in use.
    pub context_len: usize,
    /// Vocabulary size.
    pub vocab_size: usize,
    /// Where the tokenizer came from.
    pub tokenizer_source: String,
    /// True when the file had no chat template and ChatML is used.
    pub template_fallback: bool,
    /// True when tensors were re-encoded as Q8_0 at load ([`LoadOptions::requantize`]).
    pub requantized: bool,
    /// The implementation running the forward pass (`arch::Weights::engine`).
    pub engine: &'static str,
}

struct Inner {
    weights: arch::Weights,
    schemas: HashMap<String, SchemaMasks>,
}

/// A loaded GGUF model. `Sync`: share it behind an `Arc`; concurrent
/// [`generate`](Self::generate) calls run one after another.
pub struct LocalModel {
    info: ModelInfo,
    tokenizer: tokenizer::ModelTokenizer,
    template: template::ChatTemplate,
    vocab: Arc<VocabTrie>,
    inner: Mutex<Inner>,
}

impl std::fmt::Debug for LocalModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalModel")
            .field("info", &self.info)
            .finish()
    }
}

/// Finds the model file: `explicit`, else `$MOVIEGRAPH_LOCAL_MODEL`, else the
/// single `.gguf` in the default folder (see the module docs).
pub fn resolve_model_path(explicit: Option<&Path>) -> Result<PathBuf, LocalError> {
    if let Some(p) = explicit {
        return if p.is_file() {
            Ok(p.to_path_buf())
        } else {
            Err(LocalError::NotFound(format!(
                "{} is not a file",
                p.display()
            )))
        };
    }
    if let Some(p) = std::env::var_os(MODEL_ENV).filter(|v| !v.is_empty()) {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(LocalError::NotFound(format!(
                "{MODEL_ENV}={} is not a file",
                p.display()
            )))
        };
    }
    let dir = default_model_dir()
        .ok_or_else(|| LocalError::NotFound("neither XDG_CACHE_HOME nor HOME is set".into()))?;
    let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "gguf") && p.is_file())
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    match found.len() {
        1 => Ok(found.remove(0)),
        0 => Err(LocalError::NotFound(format!(
            "no --model, no {MODEL_ENV}, and no .gguf in {} (run scripts/setup-models)",
            dir.display()
        ))),
        n => Err(LocalError::NotFound(format!(
            "{n} .gguf files in {}; name one with --model or {MODEL_ENV}",
            dir.display()
        ))),
    }
}

/// `${XDG_CACHE_HOME:-~/.cache}/moviegraph/models/smollm2-135m-instruct`.
pub fn default_model_dir() -> Option<PathBuf> {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(cache.join(DEFAULT_MODEL_DIR))
}

impl LocalModel {
    /// Loads the GGUF file at `path` (weights, tokenizer, chat template).
    pub fn load(path: &Path, opts: &LoadOptions) -> Result<Self, LocalError> {
        let load_err = |problem: String| LocalError::Load {
            path: path.to_path_buf(),
            problem,
        };
        let mut file = std::fs::File::open(path).map_err(|e| load_err(e.to_string()))?;
        let ct = gguf_file::Content::read(&mut file)
            .map_err(|e| load_err(format!("not a GGUF file: {e}")))?;
        let md_str = |k: &str| ct.metadata.get(k).and_then(|v| v.to_string().ok()).cloned();
        let arch_name = md_str("general.architecture")
            .ok_or_else(|| load_err("no general.architecture".into()))?;
        if !arch::SUPPORTED.contains(&arch_name.as_str()) {
            return Err(LocalError::UnsupportedArchitecture {
                path: path.to_path_buf(),
                arch: arch_name,
            });
        }
        let name = md_str("general.name").unwrap_or_else(|| {
            path.file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default()
        });
        let model_ctx = ct
            .metadata
            .get(&format!("{arch_name}.context_length"))
            .and_then(|v| v.to_u32().ok())
            .map_or(2048, |v| v as usize);
        let tokenizer = tokenizer::ModelTokenizer::load(path, &ct)?;
        let template_src = md_str("tokenizer.chat_template");
        if template_src.is_none() {
            tracing::warn!(
                "{}: no chat template in the file; using ChatML",
                path.display()
            );
        }
        let template = template::ChatTemplate::new(template_src)?;
        let requantized =
            opts.requantize && arch::needs_transcoding(&ct, &arch_name, opts.candle_llama);
        let weights = arch::Weights::load(&arch_name, ct, &mut file, path, opts)?;
        let context_len = model_ctx
            .min(weights.max_positions())
            .min(opts.context_len.unwrap_or(usize::MAX));
        let vocab = Arc::new(VocabTrie::new(tokenizer.token_bytes.clone()));
        let info = ModelInfo {
            path: path.to_path_buf(),
            arch: arch_name,
            name,
            context_len,
            vocab_size: tokenizer.vocab_size(),
            tokenizer_source: tokenizer.source.clone(),
            template_fallback: template.fallback,
            requantized,
            engine: weights.engine(),
        };
        Ok(LocalModel {
            info,
            tokenizer,
            template,
            vocab,
            inner: Mutex::new(Inner {
                weights,
                schemas: HashMap::new(),
            }),
        })
    }

    /// What was loaded.
    pub fn info(&self) -> &ModelInfo {
        &self.info
    }

    /// Token ids of `text` under this model's tokenizer.
    pub fn tokenize(&self, text: &str) -> Result<Vec<u32>, LocalError> {
        self.tokenizer.encode(text)
    }

    /// The text of token ids (special tokens dropped).
    pub fn detokenize(&self, ids: &[u32]) -> String {
        self.tokenizer.decode(ids)
    }

    /// Renders `turns` with the chat template, generation prompt appended.
    pub fn render_prompt(&self, turns: &[ChatTurn]) -> Result<String, LocalError> {
        self.template
            .render(turns, &self.tokenizer.bos_text, &self.tokenizer.eos_text)
    }

    /// Generates the assistant's reply to `turns`. With `schema`, the reply
    /// is constrained to JSON valid against it, always: a reply cut off by
    /// `max_tokens` is closed with the shortest valid ending. Blocks while
    /// another generation runs.
    pub fn generate(
        &self,
        turns: &[ChatTurn],
        params: &GenParams,
        schema: Option<&Value>,
    ) -> Result<Generation, LocalError> {
        self.generate_cancellable(turns, params, schema, &|| false)
    }

    /// [`generate`](Self::generate) that asks `cancelled` before every
    /// forward pass and stops with [`LocalError::Cancelled`] once it says
    /// yes, so a caller that timed out frees the model for the next job.
    pub fn generate_cancellable(
        &self,
        turns: &[ChatTurn],
        params: &GenParams,
        schema: Option<&Value>,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Generation, LocalError> {
        let schema_key = schema.map(|s| s.to_string());
        let grammar = match schema {
            Some(s) => Some(Arc::new(Grammar::compile(s)?)),
            None => None,
        };
        let (prompt, dropped, max_tokens) = self.fit_prompt(turns, params.max_tokens)?;
        let mut guard = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let inner = &mut *guard;
        let mut masks = match (&schema_key, grammar) {
            (Some(key), Some(g)) => {
                if inner.schemas.len() >= MAX_CACHED_SCHEMAS && !inner.schemas.contains_key(key) {
                    inner.schemas.clear();
                }
                Some(
                    inner
                        .schemas
                        .entry(key.clone())
                        .or_insert_with(|| SchemaMasks::new(g, self.vocab.clone())),
                )
            }
            _ => None,
        };
        let mut timing = GenTiming::default();
        let (hits0, misses0) = masks.as_ref().map_or((0, 0), |m| (m.hits, m.misses));

        let t0 = Instant::now();
        let mut logits = Vec::new();
        for (i, chunk) in prompt.chunks(PREFILL_CHUNK).enumerate() {
            if cancelled() {
                return Err(LocalError::Cancelled { tokens: 0 });
            }
            logits = inner.weights.forward(chunk, i * PREFILL_CHUNK)?;
        }
        timing.prompt_secs = t0.elapsed().as_secs_f64();

        let t1 = Instant::now();
        let mut rng = SplitMix64::new(params.seed);
        let mut matcher = masks.as_ref().map(|m| Matcher::new(m.grammar()));
        let mut out: Vec<u32> = Vec::new();
        let mut logprobs = Vec::new();
        let mut finish = FinishReason::Length;
        let mut pos = prompt.len();
        while out.len() < max_tokens {
            if let (Some(m), Some(masks)) = (&matcher, &mut masks) {
                let tm = Instant::now();
                if m.is_complete() {
                    finish = FinishReason::Stop;
                    break;
                }
                // Greedy decoding without logprobs needs no mask when the
                // grammar accepts the unmasked choice: it is then the masked
                // choice too (the mask holds exactly the tokens `advance`
                // accepts, a property the constrain proptests check).
                let greedy = params.temperature <= 0.0 && params.top_logprobs == 0;
                if greedy && self.grammar_accepts_choice(&logits, m, masks.grammar()) {
                    timing.masks_skipped += 1;
                    timing.mask_secs += tm.elapsed().as_secs_f64();
                } else {
                    self.mask_logits(&mut logits, m, masks);
                    timing.mask_secs += tm.elapsed().as_secs_f64();
                }
            }
            let ts = Instant::now();
            let Some(tok) = sample(&logits, params.temperature, &mut rng) else {
                return Err(LocalError::Generation("every token was masked".into()));
            };
            if params.top_logprobs > 0 && !self.tokenizer.stop_ids.contains(&tok) {
                logprobs.push(self.token_logprobs(&logits, tok, params.top_logprobs));
            }
            timing.sample_secs += ts.elapsed().as_secs_f64();
            if self.tokenizer.stop_ids.contains(&tok) {
                finish = FinishReason::Stop;
                break;
            }
            if let (Some(m), Some(masks)) = (&mut matcher, &masks) {
                let tm = Instant::now();
                if !m.advance(masks.grammar(), self.vocab.bytes(tok)) {
                    return Err(LocalError::Generation(format!(
                        "sampled token {tok} outside the mask"
                    )));
                }
                timing.mask_secs += tm.elapsed().as_secs_f64();
            }
            out.push(tok);
            if out.len() == max_tokens || matcher.as_ref().is_some_and(|m| m.is_complete()) {
                // No forward pass for a token nothing will follow.
                break;
            }
            if cancelled() {
                return Err(LocalError::Cancelled { tokens: out.len() });
            }
            logits = inner.weights.forward(&[tok], pos)?;
            pos += 1;
        }
        let mut closing = Vec::new();
        if let (Some(m), Some(masks)) = (&matcher, &masks) {
            if m.is_complete() {
                finish = FinishReason::Stop;
            } else if finish == FinishReason::Length {
                closing = m.shortest_completion(masks.grammar()).ok_or_else(|| {
                    LocalError::Generation("no way to close the cut-off JSON was found".into())
                })?;
            }
        }
        timing.gen_secs = t1.elapsed().as_secs_f64();
        if let Some(m) = &masks {
            timing.masks_cached = m.hits - hits0;
            timing.masks_computed = m.misses - misses0;
        }
        drop(guard);
        let td = Instant::now();
        let mut text = self.tokenizer.decode(&out);
        timing.detokenize_secs = td.elapsed().as_secs_f64();
        let closed = schema.is_some() && finish == FinishReason::Length;
        if closed {
            // Byte-wise: the cut may fall inside a multi-byte character.
            let mut bytes: Vec<u8> = out
                .iter()
                .flat_map(|&t| self.vocab.bytes(t).iter().copied())
                .collect();
            bytes.extend_from_slice(&closing);
            text = String::from_utf8_lossy(&bytes).into_owned();
        }
        if let Some(s) = schema {
            let value: Value = serde_json::from_str(&text)
                .map_err(|e| LocalError::InvalidOutput(format!("{e}: {text}")))?;
            constrain::validate(s, &value).map_err(LocalError::InvalidOutput)?;
        }
        Ok(Generation {
            text,
            prompt_tokens: prompt.len(),
            completion_tokens: out.len(),
            finish_reason: finish,
            closed,
            dropped_turns: dropped,
            logprobs,
            timing,
        })
    }

    /// Whether the greedy choice of the unmasked `logits` is a token the
    /// grammar accepts from `m` (a stop token where the document may end).
    fn grammar_accepts_choice(&self, logits: &[f32], m: &Matcher, g: &Grammar) -> bool {
        let Some((best, _)) = logits
            .iter()
            .enumerate()
            .filter(|(_, l)| l.is_finite())
            .max_by(|a, b| a.1.total_cmp(b.1))
        else {
            return false;
        };
        let best = best as u32;
        if self.tokenizer.stop_ids.contains(&best) {
            return m.can_finish(g);
        }
        let bytes = self.vocab.bytes(best);
        !bytes.is_empty() && m.clone().advance(g, bytes)
    }

    /// Sets every token the grammar does not accept from `m` to -inf (stop
    /// tokens stay where the document may end).
    fn mask_logits(&self, logits: &mut [f32], m: &Matcher, masks: &mut SchemaMasks) {
        let allowed = masks.allowed(m);
        let can_end = m.can_finish(masks.grammar());
        for (id, l) in logits.iter_mut().enumerate() {
            let id = id as u32;
            if !(allowed.contains(id) || (can_end && self.tokenizer.stop_ids.contains(&id))) {
                *l = f32::NEG_INFINITY;
            }
        }
    }

    /// The log-probability of `chosen` under `logits` (log-softmax; masked
    /// tokens are -inf and take no mass) and the `top` most likely tokens.
    fn token_logprobs(
        &self,
        logits: &[f32],
        chosen: u32,
        top: usize,
    ) -> crate::llm::types::TokenLogprob {
        let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let sum: f64 = logits
            .iter()
            .filter(|l| l.is_finite())
            .map(|&l| f64::from(l - max).exp())
            .sum();
        let log_z = f64::from(max) + sum.ln();
        let logprob = |id: u32| f64::from(logits[id as usize]) - log_z;
        let mut best: Vec<u32> = Vec::with_capacity(top + 1);
        for (id, l) in logits.iter().enumerate() {
            if !l.is_finite() {
                continue;
            }
            let at = best.partition_point(|&b| logits[b as usize] >= *l);
            if at < top {
                best.insert(at, id as u32);
                best.truncate(top);
            }
        }
        let text = |id: u32| String::from_utf8_lossy(self.vocab.bytes(id)).into_owned();
        crate::llm::types::TokenLogprob {
            token: text(chosen),
            logprob: logprob(chosen),
            top: best.into_iter().map(|id| (text(id), logprob(id))).collect(),
        }
    }

    /// Renders and tokenizes the prompt, dropping the oldest non-system turns
    /// (never the last) until prompt + `max_tokens` fit; if the last turn alone
    /// leaves too little room, `max_tokens` shrinks.
    fn fit_prompt(
        &self,
        turns: &[ChatTurn],
        max_tokens: usize,
    ) -> Result<(Vec<u32>, usize, usize), LocalError> {
        let ctx = self.info.context_len;
        let mut kept: Vec<ChatTurn> = turns.to_vec();
        let mut dropped = 0;
        loop {
            let ids = self.tokenizer.encode(&self.render_prompt(&kept)?)?;
            if ids.len() + max_tokens <= ctx {
                if dropped > 0 {
                    tracing::warn!(
                        "dropped the {dropped} oldest turn(s) to fit the context of {ctx} tokens"
                    );
                }
                return Ok((ids, dropped, max_tokens));
            }
            let droppable = kept
                .iter()
                .position(|t| t.role != "system")
                .filter(|&i| i + 1 < kept.len());
            match droppable {
                Some(i) => {
                    kept.remove(i);
                    dropped += 1;
                }
                None if ids.len() < ctx => {
                    let room = ctx - ids.len();
                    tracing::warn!(
                        "prompt of {} tokens leaves room for {room} of the {max_tokens} tokens asked for",
                        ids.len()
                    );
                    return Ok((ids, dropped, room));
                }
                None => {
                    return Err(LocalError::ContextOverflow {
                        prompt_tokens: ids.len(),
                        context: ctx,
                    })
                }
            }
        }
    }
}

/// Greedy argmax, or a draw from softmax(logits / temperature); None when
/// every logit is -inf.
fn sample(logits: &[f32], temperature: f32, rng: &mut SplitMix64) -> Option<u32> {
    let (best, &max) = logits
        .iter()
        .enumerate()
        .filter(|(_, l)| l.is_finite())
        .max_by(|a, b| a.1.total_cmp(b.1))?;
    if temperature <= 0.0 {
        return Some(best as u32);
    }
    let t = temperature as f64;
    let weights: Vec<f64> = logits
        .iter()
        .map(|&l| {
            if l.is_finite() {
                ((l - max) as f64 / t).exp()
            } else {
                0.0
            }
        })
        .collect();
    let total: f64 = weights.iter().sum();
    let mut r = rng.unit() * total;
    for (i, w) in weights.iter().enumerate() {
        if *w > 0.0 {
            if r < *w {
                return Some(i as u32);
            }
            r -= w;
        }
    }
    Some(best as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greedy_takes_the_largest_finite_logit() {
        let mut rng = SplitMix64::new(1);
        assert_eq!(
            sample(&[0.1, f32::NEG_INFINITY, 0.5, 0.2], 0.0, &mut rng),
            Some(2)
        );
        assert_eq!(sample(&[f32::NEG_INFINITY; 3], 0.7, &mut rng), None);
    }

    #[test]
    fn seeded_sampling_is_reproducible_and_follows_the_distribution() {
        let logits = [0.0f32, 1.0, f32::NEG_INFINITY, 2.0];
        let draw = |seed| {
            let mut rng = SplitMix64::new(seed);
            (0..3000)
                .map(|_| sample(&logits, 1.0, &mut rng).unwrap())
                .collect::<Vec<_>>()
        };
        assert_eq!(draw(7), draw(7));
        let d = draw(7);
        let share = |t| d.iter().filter(|&&x| x == t).count() as f64 / d.len() as f64;
        assert_eq!(share(2), 0.0, "masked token never drawn");
        // softmax(0,1,2) = 0.090, 0.245, 0.665
        assert!((share(3) - 0.665).abs() < 0.04, "{}", share(3));
        assert!((share(0) - 0.090).abs() < 0.03, "{}", share(0));
    }

    #[test]
    fn explicit_missing_path_is_a_clear_error() {
        let e = resolve_model_path(Some(Path::new("/nonexistent/x.gguf"))).unwrap_err();
        assert!(e.to_string().contains("/nonexistent/x.gguf"), "{e}");
    }
}
