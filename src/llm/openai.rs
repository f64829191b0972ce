//! The `openai` backend: any OpenAI-compatible `/v1/chat/completions` and
//! `/v1/embeddings` (OpenAI, vLLM, SGLang, llama.cpp's server, Ollama, routers).
//!
//! Several base URLs are balanced round-robin, each with its own concurrency limit.
//! Structured output asks for `json_schema` first and steps down to `json_object`
//! and then to a prompt-only instruction when a server refuses the format; the step
//! down is remembered for the model. The API key is read once from the environment
//! variable the configuration names and only ever goes into the `Authorization`
//! header; every message built from a server's reply has the key scrubbed out.

use std::fmt;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};

use async_trait::async_trait;
use serde_json::{json, Value};
use tokio::sync::Semaphore;

use super::backend::{AttemptError, Backend, EmbedResponse, FailureKind};
use super::config::{ModelConfig, StructuredMode};
use super::retry::server_delay;
use super::types::{ChatRequest, ChatResponse, Part, Speaker, TokenLogprob, Usage};

/// An API key: never printed, never serialised.
#[derive(Clone)]
pub struct Secret(String);

impl Secret {
    /// Wraps a key.
    pub fn new(key: String) -> Secret {
        Secret(key)
    }

    /// Replaces every occurrence of the key in `text`.
    pub fn scrub(&self, text: &str) -> String {
        if self.0.len() >= 4 && text.contains(&self.0) {
            text.replace(&self.0, "[redacted]")
        } else {
            text.to_string()
        }
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret([redacted])")
    }
}

struct Endpoint {
    base: String,
    slots: Semaphore,
}

/// An OpenAI-compatible model on one or more base URLs.
pub struct OpenAiBackend {
    http: reqwest::Client,
    name: String,
    model: String,
    endpoints: Vec<Endpoint>,
    next: AtomicUsize,
    key: Result<Option<Secret>, String>,
    mode: AtomicU8,
}

impl fmt::Debug for OpenAiBackend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiBackend")
            .field("model", &self.model)
            .field(
                "endpoints",
                &self.endpoints.iter().map(|e| &e.base).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

fn mode_code(mode: StructuredMode) -> u8 {
    match mode {
        StructuredMode::JsonSchema => 0,
        StructuredMode::JsonObject => 1,
        StructuredMode::Prompt => 2,
    }
}

fn code_mode(code: u8) -> StructuredMode {
    match code {
        0 => StructuredMode::JsonSchema,
        1 => StructuredMode::JsonObject,
        _ => StructuredMode::Prompt,
    }
}

/// One HTTP client for the whole process: connections are pooled and kept alive.
pub fn http_client() -> reqwest::Client {
    reqwest::Client::builder()
        .pool_max_idle_per_host(1024)
        .tcp_nodelay(true)
        .build()
        .expect("the HTTP client builds with static settings")
}

impl OpenAiBackend {
    /// The backend for model entry `name`; the key is read from the environment now.
    pub fn new(http: reqwest::Client, name: &str, config: &ModelConfig) -> OpenAiBackend {
        let key = match &config.api_key_env {
            None => Ok(None),
            Some(var) => match std::env::var(var) {
                Ok(k) if !k.is_empty() => Ok(Some(Secret::new(k))),
                _ => Err(format!(
                    "the environment variable {var} (api_key_env of model \"{name}\") is not set"
                )),
            },
        };
        OpenAiBackend {
            http,
            name: name.to_string(),
            model: config.model.clone().unwrap_or_else(|| name.to_string()),
            endpoints: config
                .urls()
                .into_iter()
                .map(|base| Endpoint {
                    base,
                    slots: Semaphore::new(config.concurrency),
                })
                .collect(),
            next: AtomicUsize::new(0),
            key,
            mode: AtomicU8::new(mode_code(
                config.structured.unwrap_or(StructuredMode::JsonSchema),
            )),
        }
    }

    fn scrub(&self, text: &str) -> String {
        match &self.key {
            Ok(Some(secret)) => secret.scrub(text),
            _ => text.to_string(),
        }
    }

    /// POSTs `body` to `path` on the next endpoint; returns status, headers and body.
    async fn post(
        &self,
        path: &str,
        body: Vec<u8>,
    ) -> Result<(u16, Vec<(String, String)>, Vec<u8>), AttemptError> {
        let key = self
            .key
            .as_ref()
            .map_err(|e| AttemptError::fatal(e.clone()))?;
        let i = self.next.fetch_add(1, Ordering::Relaxed) % self.endpoints.len();
        let endpoint = &self.endpoints[i];
        let _slot = endpoint
            .slots
            .acquire()
            .await
            .map_err(|_| AttemptError::fatal("endpoint closed"))?;
        let url = format!("{}{}", endpoint.base, path);
        let mut req = self
            .http
            .post(&url)
            .header("content-type", "application/json")
            .body(body);
        if let Some(secret) = key {
            req = req.bearer_auth(&secret.0);
        }
        let resp = req.send().await.map_err(|e| {
            AttemptError::transient(self.scrub(&format!("POST {url}: {}", error_chain(&e))))
        })?;
        let status = resp.status().as_u16();
        let headers: Vec<(String, String)> = resp
            .headers()
            .iter()
            .filter_map(|(k, v)| Some((k.as_str().to_string(), v.to_str().ok()?.to_string())))
            .collect();
        let bytes = resp.bytes().await.map_err(|e| {
            AttemptError::transient(self.scrub(&format!(
                "POST {url}: HTTP {status}, body cut short: {}",
                error_chain(&e)
            )))
        })?;
        if !(200..300).contains(&status) {
            let excerpt: String = String::from_utf8_lossy(&bytes).chars().take(300).collect();
            let kind = match status {
                429 => FailureKind::RateLimited,
                408 | 409 | 425 | 500..=599 => FailureKind::Transient,
                _ => FailureKind::Fatal,
            };
            return Err(AttemptError {
                kind,
                message: self.scrub(&format!("POST {url}: HTTP {status}: {}", excerpt.trim())),
                retry_after: server_delay(headers.iter().map(|(k, v)| (k.as_str(), v.as_str()))),
            });
        }
        Ok((status, headers, bytes.to_vec()))
    }

    fn parse_json(&self, bytes: &[u8], what: &str) -> Result<Value, AttemptError> {
        serde_json::from_slice(bytes).map_err(|e| {
            AttemptError::transient(format!(
                "{}: the {what} response is not valid JSON ({e})",
                self.name
            ))
        })
    }
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cur = c.source();
    }
    s
}

/// The instruction that carries the schema when the server cannot enforce it.
fn schema_instruction(schema: &Value) -> String {
    format!(
        "Reply with only a JSON value (no prose, no code fence) that matches this JSON schema:\n{schema}"
    )
}

/// The `/v1/chat/completions` body for `request` in structured-output `mode`: what is
/// sent online and what a batch file line carries.
pub fn chat_body(model: &str, request: &ChatRequest, mode: StructuredMode) -> Value {
    let mut messages: Vec<Value> = request
        .messages
        .iter()
        .map(|m| {
            let role = match m.role {
                Speaker::System => "system",
                Speaker::User => "user",
                Speaker::Assistant => "assistant",
            };
            let text_only = m.parts.iter().all(|p| matches!(p, Part::Text { .. }));
            let content = if text_only {
                Value::String(m.joined_text())
            } else {
                Value::Array(
                    m.parts
                        .iter()
                        .map(|p| match p {
                            Part::Text { text } => json!({"type": "text", "text": text}),
                            Part::Image { mime, base64 } => json!({
                                "type": "image_url",
                                "image_url": {"url": format!("data:{mime};base64,{base64}")}
                            }),
                        })
                        .collect(),
                )
            };
            json!({"role": role, "content": content})
        })
        .collect();
    let mut body = json!({"model": model});
    if let Some(schema) = &request.schema {
        match mode {
            StructuredMode::JsonSchema => {
                body["response_format"] = json!({
                    "type": "json_schema",
                    "json_schema": {"name": schema.name, "schema": schema.schema}
                });
            }
            StructuredMode::JsonObject | StructuredMode::Prompt => {
                let note = schema_instruction(&schema.schema);
                match messages.first_mut() {
                    Some(first) if first["role"] == "system" && first["content"].is_string() => {
                        let text = format!("{}\n\n{note}", first["content"].as_str().unwrap_or(""));
                        first["content"] = Value::String(text);
                    }
                    _ => messages.insert(0, json!({"role": "system", "content": note})),
                }
                if mode == StructuredMode::JsonObject {
                    body["response_format"] = json!({"type": "json_object"});
                }
            }
        }
    }
    body["messages"] = Value::Array(messages);
    if let Some(t) = request.temperature {
        body["temperature"] = json!(t);
    }
    if let Some(n) = request.max_tokens {
        body["max_tokens"] = json!(n);
    }
    if let Some(s) = request.seed {
        body["seed"] = json!(s);
    }
    if let Some(k) = request.top_logprobs {
        body["logprobs"] = json!(true);
        body["top_logprobs"] = json!(k);
    }
    body
}

/// A choice's `logprobs.content`, when the server sent it.
fn parse_logprobs(choice: &Value) -> Option<Vec<TokenLogprob>> {
    let content = choice.get("logprobs")?.get("content")?.as_array()?;
    let entry = |v: &Value| -> Option<(String, f64)> {
        Some((
            v.get("token")?.as_str()?.to_owned(),
            v.get("logprob")?.as_f64()?,
        ))
    };
    content
        .iter()
        .map(|t| {
            let (token, logprob) = entry(t)?;
            let top = t
                .get("top_logprobs")
                .and_then(Value::as_array)
                .map(|alts| alts.iter().filter_map(entry).collect())
                .unwrap_or_default();
            Some(TokenLogprob {
                token,
                logprob,
                top,
            })
        })
        .collect()
}

/// Reads a chat completion body: first choice's text, finish reason, usage.
pub fn parse_chat_response(v: &Value) -> Result<ChatResponse, String> {
    let choice = v
        .get("choices")
        .and_then(|c| c.get(0))
        .ok_or("the response has no choices")?;
    let message = choice
        .get("message")
        .ok_or("the first choice has no message")?;
    let text = match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => return Err(format!("message content is not text: {other}")),
    };
    let usage = v.get("usage");
    let tokens = |k: &str| {
        usage
            .and_then(|u| u.get(k))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    Ok(ChatResponse {
        text,
        usage: Usage {
            input_tokens: tokens("prompt_tokens"),
            output_tokens: tokens("completion_tokens"),
        },
        finish_reason: choice
            .get("finish_reason")
            .and_then(Value::as_str)
            .map(str::to_string),
        logprobs: parse_logprobs(choice),
    })
}

/// Does a refusal look like the server not supporting the structured-output format?
fn refuses_format(err: &AttemptError) -> bool {
    let m = err.message.to_ascii_lowercase();
    err.kind == FailureKind::Fatal
        && (m.contains("http 400") || m.contains("http 422") || m.contains("http 501"))
        && [
            "response_format",
            "json_schema",
            "json_object",
            "schema",
            "grammar",
            "not supported",
            "unsupported",
        ]
        .iter()
        .any(|w| m.contains(w))
}

#[async_trait]
impl Backend for OpenAiBackend {
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, AttemptError> {
        loop {
            let code = self.mode.load(Ordering::Relaxed);
            let mode = code_mode(code);
            let body = chat_body(&self.model, request, mode);
            let bytes =
                serde_json::to_vec(&body).map_err(|e| AttemptError::fatal(e.to_string()))?;
            match self.post("/chat/completions", bytes).await {
                Ok((_, _, bytes)) => {
                    let v = self.parse_json(&bytes, "chat")?;
                    return parse_chat_response(&v)
                        .map_err(|e| AttemptError::transient(format!("{}: {e}", self.name)));
                }
                Err(err)
                    if request.schema.is_some()
                        && mode != StructuredMode::Prompt
                        && refuses_format(&err) =>
                {
                    // Step down once for the whole model; a concurrent caller may have already.
                    let _ = self.mode.compare_exchange(
                        code,
                        code + 1,
                        Ordering::Relaxed,
                        Ordering::Relaxed,
                    );
                    tracing::warn!(model = %self.name, from = ?mode, "structured output refused; stepping down: {}", err.message);
                }
                Err(err) => return Err(err),
            }
        }
    }

    async fn embed(&self, texts: &[String]) -> Result<EmbedResponse, AttemptError> {
        let body = json!({"model": self.model, "input": texts, "encoding_format": "float"});
        let bytes = serde_json::to_vec(&body).map_err(|e| AttemptError::fatal(e.to_string()))?;
        let (_, _, bytes) = self.post("/embeddings", bytes).await?;
        let v = self.parse_json(&bytes, "embeddings")?;
        let bad = |what: &str| {
            AttemptError::transient(format!("{}: embeddings response {what}", self.name))
        };
        let data = v
            .get("data")
            .and_then(Value::as_array)
            .ok_or_else(|| bad("has no data"))?;
        if data.len() != texts.len() {
            return Err(bad(&format!(
                "has {} vectors for {} texts",
                data.len(),
                texts.len()
            )));
        }
        let mut vectors = vec![Vec::new(); texts.len()];
        for (pos, item) in data.iter().enumerate() {
            let index = item
                .get("index")
                .and_then(Value::as_u64)
                .map_or(pos, |i| i as usize);
            let slot = vectors
                .get_mut(index)
                .ok_or_else(|| bad("has an index out of range"))?;
            let emb = item
                .get("embedding")
                .and_then(Value::as_array)
                .ok_or_else(|| bad("has an item without an embedding"))?;
            *slot = emb
                .iter()
                .map(|x| x.as_f64().map(|f| f as f32))
                .collect::<Option<Vec<f32>>>()
                .ok_or_else(|| bad("has a non-number in a vector"))?;
        }
        if vectors.iter().any(Vec::is_empty) {
            return Err(bad("misses a vector"));
        }
        let tokens = v
            .pointer("/usage/prompt_tokens")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        Ok(EmbedResponse {
            vectors,
            usage: Usage {
                input_tokens: tokens,
                output_tokens: 0,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::types::Message;

    #[test]
    fn images_become_data_urls_and_text_stays_a_string() {
        let req = ChatRequest::new(vec![
            Message::system("be brief"),
            Message::user("who?").with_image("image/jpeg", b"abc"),
        ]);
        let body = chat_body("m", &req, StructuredMode::JsonSchema);
        assert_eq!(body["messages"][0]["content"], "be brief");
        assert_eq!(
            body["messages"][1]["content"][1]["image_url"]["url"],
            "data:image/jpeg;base64,YWJj"
        );
        assert!(body.get("response_format").is_none());
    }

    #[test]
    fn log_probabilities_are_asked_for_and_read_back() {
        let mut req = ChatRequest::new(vec![Message::user("rate")]);
        assert!(chat_body("m", &req, StructuredMode::JsonSchema)
            .get("logprobs")
            .is_none());
        req.top_logprobs = Some(12);
        let body = chat_body("m", &req, StructuredMode::JsonSchema);
        assert_eq!(
            (&body["logprobs"], &body["top_logprobs"]),
            (&json!(true), &json!(12))
        );
        let response = json!({"choices": [{
            "message": {"role": "assistant", "content": "7"},
            "logprobs": {"content": [{"token": "7", "logprob": -0.2,
                "top_logprobs": [{"token": "7", "logprob": -0.2}, {"token": "6", "logprob": -1.8}]}]},
            "finish_reason": "stop"}]});
        let parsed = parse_chat_response(&response).unwrap();
        let tokens = parsed.logprobs.unwrap();
        assert_eq!(tokens[0].token, "7");
        assert_eq!(
            tokens[0].top,
            [("7".to_string(), -0.2), ("6".to_string(), -1.8)]
        );
        let plain = json!({"choices": [{"message": {"content": "7"}}]});
        assert_eq!(parse_chat_response(&plain).unwrap().logprobs, None);
    }

    #[test]
    fn structured_modes_step_down_in_the_body() {
        let req =
            ChatRequest::new(vec![Message::user("x")]).with_schema("s", json!({"type": "object"}));
        let a = chat_body("m", &req, StructuredMode::JsonSchema);
        assert_eq!(a["response_format"]["type"], "json_schema");
        let b = chat_body("m", &req, StructuredMode::JsonObject);
        assert_eq!(b["response_format"]["type"], "json_object");
        assert!(b["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("JSON schema"));
        let c = chat_body("m", &req, StructuredMode::Prompt);
        assert!(c.get("response_format").is_none());
        assert_eq!(c["messages"].as_array().unwrap().len(), 2);
    }

    #[test]
    fn secrets_are_scrubbed_and_never_debug_printed() {
        let s = Secret::new("sk-test-123456".into());
        assert_eq!(s.scrub("bad key sk-test-123456!"), "bad key [redacted]!");
        assert!(!format!("{s:?}").contains("sk-test"));
    }
}
