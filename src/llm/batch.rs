//! OpenAI Batch API JSONL: request lines out, output lines in.
//!
//! A request line is `{"custom_id", "method": "POST", "url": "/v1/chat/completions",
//! "body"}`; an output line is `{"id", "custom_id", "response": {"status_code",
//! "body"}, "error"}`. The same files work with OpenAI's Batch API and with
//! `vllm run-batch`. Request bodies convert back into [`ChatRequest`]s, so a request
//! file can also be run online through the client (`moviegraph llm run-batch`), and
//! an output file's answers enter the cache under the keys the online path uses.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::config::StructuredMode;
use super::openai::{chat_body, parse_chat_response};
use super::types::{ChatRequest, ChatResponse, Message, OutputSchema, Part, Speaker};

/// A problem in a batch file, with its place.
#[derive(Debug, thiserror::Error)]
#[error("{path}:{line}: {message}")]
pub struct BatchError {
    /// The file.
    pub path: PathBuf,
    /// 1-based line number (0: the file as a whole).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// One request line.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchRequest {
    /// The caller's id for the line.
    pub custom_id: String,
    /// The request.
    pub request: ChatRequest,
}

/// One output line.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchOutput {
    /// The id of the request line it answers.
    pub custom_id: String,
    /// The answer, or the error the batch reported for it.
    pub result: Result<ChatResponse, String>,
}

/// The request line for `request` sent to `model` (the name the server knows).
pub fn request_line(
    custom_id: &str,
    model: &str,
    request: &ChatRequest,
    mode: StructuredMode,
) -> Value {
    json!({
        "custom_id": custom_id,
        "method": "POST",
        "url": "/v1/chat/completions",
        "body": chat_body(model, request, mode),
    })
}

/// The output line for an answer (what `run-batch` writes).
pub fn output_line(custom_id: &str, result: &Result<ChatResponse, String>) -> Value {
    match result {
        Ok(resp) => json!({
            "id": format!("batch_req_{custom_id}"),
            "custom_id": custom_id,
            "response": {
                "status_code": 200,
                "body": {
                    "object": "chat.completion",
                    "choices": [{
                        "index": 0,
                        "message": {"role": "assistant", "content": resp.text},
                        "finish_reason": resp.finish_reason,
                    }],
                    "usage": {
                        "prompt_tokens": resp.usage.input_tokens,
                        "completion_tokens": resp.usage.output_tokens,
                        "total_tokens": resp.usage.input_tokens + resp.usage.output_tokens,
                    }
                }
            },
            "error": null,
        }),
        Err(message) => json!({
            "id": format!("batch_req_{custom_id}"),
            "custom_id": custom_id,
            "response": null,
            "error": {"message": message},
        }),
    }
}

/// Reads a request body back into a request: messages (string or part-list content,
/// data-URL images), temperature, max_tokens, seed, and a `json_schema` response format.
pub fn body_to_request(body: &Value) -> Result<ChatRequest, String> {
    let messages = body
        .get("messages")
        .and_then(Value::as_array)
        .ok_or("the body has no \"messages\" list")?;
    let mut out = Vec::with_capacity(messages.len());
    for (i, m) in messages.iter().enumerate() {
        let role = match m.get("role").and_then(Value::as_str) {
            Some("system") | Some("developer") => Speaker::System,
            Some("user") => Speaker::User,
            Some("assistant") => Speaker::Assistant,
            other => return Err(format!("message {i} has an unknown role {other:?}")),
        };
        let parts = match m.get("content") {
            Some(Value::String(s)) => vec![Part::Text { text: s.clone() }],
            Some(Value::Array(items)) => items
                .iter()
                .map(|p| match p.get("type").and_then(Value::as_str) {
                    Some("text") => Ok(Part::Text {
                        text: p["text"].as_str().unwrap_or_default().to_string(),
                    }),
                    Some("image_url") => {
                        let url = p
                            .pointer("/image_url/url")
                            .and_then(Value::as_str)
                            .unwrap_or("");
                        let rest = url
                            .strip_prefix("data:")
                            .and_then(|r| r.split_once(";base64,"))
                            .ok_or_else(|| {
                                format!("message {i}: only data-URL images are supported")
                            })?;
                        Ok(Part::Image {
                            mime: rest.0.to_string(),
                            base64: rest.1.to_string(),
                        })
                    }
                    other => Err(format!("message {i}: unknown content part type {other:?}")),
                })
                .collect::<Result<_, _>>()?,
            _ => return Err(format!("message {i} has no text content")),
        };
        out.push(Message { role, parts });
    }
    let schema = match body
        .pointer("/response_format/type")
        .and_then(Value::as_str)
    {
        Some("json_schema") => {
            let js = &body["response_format"]["json_schema"];
            Some(OutputSchema {
                name: js["name"].as_str().unwrap_or("answer").to_string(),
                schema: js
                    .get("schema")
                    .cloned()
                    .ok_or("json_schema response_format has no schema")?,
            })
        }
        _ => None,
    };
    Ok(ChatRequest {
        messages: out,
        schema,
        temperature: body.get("temperature").and_then(Value::as_f64),
        max_tokens: body
            .get("max_tokens")
            .or_else(|| body.get("max_completion_tokens"))
            .and_then(Value::as_u64)
            .map(|n| n.min(u64::from(u32::MAX)) as u32),
        seed: body.get("seed").and_then(Value::as_u64),
        task: None,
        top_logprobs: body
            .get("logprobs")
            .and_then(Value::as_bool)
            .filter(|asked| *asked)
            .map(|_| {
                body.get("top_logprobs")
                    .and_then(Value::as_u64)
                    .unwrap_or(0)
                    .min(20) as u8
            }),
    })
}

fn lines(path: &Path) -> Result<Vec<(usize, String)>, BatchError> {
    let text = std::fs::read_to_string(path).map_err(|e| BatchError {
        path: path.to_path_buf(),
        line: 0,
        message: e.to_string(),
    })?;
    Ok(text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| (i + 1, l.to_string()))
        .collect())
}

/// Parses one request line.
pub fn parse_request_line(line: &str) -> Result<BatchRequest, String> {
    let v: Value = serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
    let custom_id = v
        .get("custom_id")
        .and_then(Value::as_str)
        .ok_or("no \"custom_id\" string")?
        .to_string();
    if let Some(url) = v.get("url").and_then(Value::as_str) {
        if !url.ends_with("/chat/completions") {
            return Err(format!("url {url:?} is not a chat completions endpoint"));
        }
    }
    let body = v.get("body").ok_or("no \"body\"")?;
    Ok(BatchRequest {
        custom_id,
        request: body_to_request(body)?,
    })
}

/// Parses one output line.
pub fn parse_output_line(line: &str) -> Result<BatchOutput, String> {
    let v: Value = serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
    let custom_id = v
        .get("custom_id")
        .and_then(Value::as_str)
        .ok_or("no \"custom_id\" string")?
        .to_string();
    let result = match (v.get("error"), v.get("response")) {
        (Some(err), _) if !err.is_null() => Err(err
            .get("message")
            .and_then(Value::as_str)
            .map_or_else(|| err.to_string(), str::to_string)),
        (_, Some(resp)) if !resp.is_null() => {
            let status = resp
                .get("status_code")
                .and_then(Value::as_u64)
                .unwrap_or(200);
            let body = resp.get("body").ok_or("the response has no body")?;
            if status == 200 {
                Ok(parse_chat_response(body)?)
            } else {
                Err(format!("status {status}: {body}"))
            }
        }
        _ => return Err("neither a response nor an error".to_string()),
    };
    Ok(BatchOutput { custom_id, result })
}

/// Reads a request file; refuses duplicate custom ids.
pub fn read_requests(path: &Path) -> Result<Vec<BatchRequest>, BatchError> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for (line, text) in lines(path)? {
        let err = |message: String| BatchError {
            path: path.to_path_buf(),
            line,
            message,
        };
        let req = parse_request_line(&text).map_err(err)?;
        if !seen.insert(req.custom_id.clone()) {
            return Err(err(format!("custom_id {:?} appears twice", req.custom_id)));
        }
        out.push(req);
    }
    Ok(out)
}

/// Reads an output file.
pub fn read_outputs(path: &Path) -> Result<Vec<BatchOutput>, BatchError> {
    lines(path)?
        .into_iter()
        .map(|(line, text)| {
            parse_output_line(&text).map_err(|message| BatchError {
                path: path.to_path_buf(),
                line,
                message,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::types::Usage;

    #[test]
    fn a_request_survives_the_round_trip_through_a_batch_line() {
        let req = ChatRequest {
            temperature: Some(0.2),
            max_tokens: Some(64),
            seed: Some(7),
            ..ChatRequest::new(vec![
                Message::system("sys"),
                Message::user("look").with_image("image/png", b"png!"),
            ])
        }
        .with_schema("ans", json!({"type": "object"}));
        let line = request_line("c1", "m", &req, StructuredMode::JsonSchema).to_string();
        let back = parse_request_line(&line).unwrap();
        assert_eq!(back.custom_id, "c1");
        assert_eq!(back.request, req);
    }

    #[test]
    fn output_lines_carry_answers_and_errors() {
        let ok = Ok(ChatResponse {
            text: "hi".into(),
            usage: Usage {
                input_tokens: 3,
                output_tokens: 1,
            },
            finish_reason: Some("stop".into()),
            logprobs: None,
        });
        let back = parse_output_line(&output_line("a", &ok).to_string()).unwrap();
        assert_eq!(back.result, ok);
        let err = Err("boom".to_string());
        let back = parse_output_line(&output_line("b", &err).to_string()).unwrap();
        assert_eq!(back.result, err);
        // vLLM and OpenAI write non-200 statuses inside the response.
        let line = r#"{"custom_id":"c","response":{"status_code":400,"body":{"error":"bad"}},"error":null}"#;
        assert!(parse_output_line(line)
            .unwrap()
            .result
            .unwrap_err()
            .contains("400"));
    }

    #[test]
    fn bad_lines_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        std::fs::write(
            &path,
            "{\"custom_id\":\"a\",\"body\":{\"messages\":[]}}\nnot json\n",
        )
        .unwrap();
        let err = read_requests(&path).unwrap_err().to_string();
        assert!(
            err.ends_with("r.jsonl:2: not JSON: expected ident at line 1 column 2"),
            "{err}"
        );
        std::fs::write(&path, "{\"custom_id\":\"a\",\"body\":{\"messages\":[]}}\n{\"custom_id\":\"a\",\"body\":{\"messages\":[]}}\n").unwrap();
        assert!(read_requests(&path)
            .unwrap_err()
            .to_string()
            .contains(":2: custom_id \"a\" appears twice"));
    }
}
