//! Requests and responses: the one shape every backend speaks.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who says a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Speaker {
    /// Instructions.
    System,
    /// The asker.
    User,
    /// The model.
    Assistant,
}

/// One part of a turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Part {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// An image (a keyframe), sent as a base64 data URL.
    Image {
        /// MIME type, e.g. `image/jpeg`.
        mime: String,
        /// Base64 of the image bytes (standard alphabet, padded).
        base64: String,
    },
}

/// One turn of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Who says it.
    pub role: Speaker,
    /// What is said.
    pub parts: Vec<Part>,
}

impl Message {
    /// A text-only turn.
    pub fn text(role: Speaker, text: impl Into<String>) -> Message {
        Message {
            role,
            parts: vec![Part::Text { text: text.into() }],
        }
    }

    /// A system turn.
    pub fn system(text: impl Into<String>) -> Message {
        Message::text(Speaker::System, text)
    }

    /// A user turn.
    pub fn user(text: impl Into<String>) -> Message {
        Message::text(Speaker::User, text)
    }

    /// An assistant turn.
    pub fn assistant(text: impl Into<String>) -> Message {
        Message::text(Speaker::Assistant, text)
    }

    /// Adds an image part (raw bytes, encoded here).
    pub fn with_image(mut self, mime: &str, bytes: &[u8]) -> Message {
        self.parts.push(Part::Image {
            mime: mime.to_string(),
            base64: base64(bytes),
        });
        self
    }

    /// The turn's text parts joined by newlines.
    pub fn joined_text(&self) -> String {
        let texts: Vec<&str> = self
            .parts
            .iter()
            .filter_map(|p| match p {
                Part::Text { text } => Some(text.as_str()),
                Part::Image { .. } => None,
            })
            .collect();
        texts.join("\n")
    }
}

/// A JSON schema the answer must satisfy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutputSchema {
    /// A short name (`[a-zA-Z0-9_-]`), sent to servers that want one.
    pub name: String,
    /// The schema (the subset [`crate::llm::schema`] validates).
    pub schema: Value,
}

/// Work for the deterministic `rules` backend: a kind its handlers are registered
/// under and the data they need. Model backends ignore it (it is not sent).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Task {
    /// The handler to run (e.g. `graph.extract`).
    pub kind: String,
    /// The handler's input.
    pub payload: Value,
}

/// A chat request. Sampling parameters left `None` take the model's configured values.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ChatRequest {
    /// The conversation.
    pub messages: Vec<Message>,
    /// Required shape of the answer, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<OutputSchema>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Output token limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// Sampling seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Deterministic work for the `rules` backend.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<Task>,
    /// Ask for each generated token's log-probability and this many most
    /// likely alternatives (OpenAI-compatible `logprobs` / `top_logprobs`; the
    /// local backend); backends without them answer without.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_logprobs: Option<u8>,
}

impl ChatRequest {
    /// A request made of these turns.
    pub fn new(messages: Vec<Message>) -> ChatRequest {
        ChatRequest {
            messages,
            ..ChatRequest::default()
        }
    }

    /// Requires the answer to match `schema`.
    pub fn with_schema(mut self, name: &str, schema: Value) -> ChatRequest {
        self.schema = Some(OutputSchema {
            name: name.to_string(),
            schema,
        });
        self
    }

    /// Attaches deterministic work for the `rules` backend.
    pub fn with_task(mut self, kind: &str, payload: Value) -> ChatRequest {
        self.task = Some(Task {
            kind: kind.to_string(),
            payload,
        });
        self
    }

    /// UTF-8 bytes of all text plus a fixed allowance per image: an upper bound on
    /// input tokens for every byte-level tokenizer, used to reserve budget.
    pub fn input_bound(&self) -> u64 {
        let mut n = 0u64;
        for m in &self.messages {
            n += 8;
            for p in &m.parts {
                n += match p {
                    Part::Text { text } => text.len() as u64,
                    Part::Image { .. } => 2_000,
                };
            }
        }
        if let Some(s) = &self.schema {
            n += s.schema.to_string().len() as u64;
        }
        n
    }
}

/// Tokens used by one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Completion tokens.
    pub output_tokens: u64,
}

/// One generated token's log-probability and the most likely alternatives
/// at its position.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TokenLogprob {
    /// The token's text.
    pub token: String,
    /// Its natural-log probability.
    pub logprob: f64,
    /// `(token, logprob)` of the most likely tokens there, most likely first.
    #[serde(default)]
    pub top: Vec<(String, f64)>,
}

/// A backend's answer to one chat request (one attempt).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatResponse {
    /// The answer's text.
    pub text: String,
    /// Tokens used.
    pub usage: Usage,
    /// Why generation stopped (`stop`, `length`, …), as the backend said it.
    pub finish_reason: Option<String>,
    /// Per generated token, when the request asked ([`ChatRequest::top_logprobs`])
    /// and the backend gives them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logprobs: Option<Vec<TokenLogprob>>,
}

/// What a caller gets back from the layer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Completion {
    /// The answer's text (for structured output: the extracted JSON text).
    pub text: String,
    /// The parsed answer, when the request carried a schema.
    pub json: Option<Value>,
    /// Tokens the answer cost when it was first paid for (also on a cache hit).
    pub usage: Usage,
    /// Why generation stopped.
    pub finish_reason: Option<String>,
    /// Per generated token, when asked for and given ([`ChatResponse::logprobs`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logprobs: Option<Vec<TokenLogprob>>,
    /// Served from the cache: nothing was paid this time.
    #[serde(skip)]
    pub cached: bool,
    /// The request's cache key.
    #[serde(skip)]
    pub key: String,
}

/// Standard base64 with padding (images are small; no crate needed for this).
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc_4648_vectors() {
        let cases = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (input, want) in cases {
            assert_eq!(base64(input.as_bytes()), want, "{input}");
        }
    }

    #[test]
    fn the_input_bound_covers_text_and_images() {
        let req = ChatRequest::new(vec![
            Message::system("abc"),
            Message::user("héllo").with_image("image/png", &[1, 2, 3]),
        ]);
        assert_eq!(req.input_bound(), 8 + 3 + 8 + 6 + 2_000);
    }
}
