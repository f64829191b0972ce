//! Validation and repair: a backend answer checked against the request's
//! schema (the JSON extracted and validated), and the re-ask that shows the
//! model its bad answer and what was wrong with it.

use serde_json::Value;

use crate::llm::schema::{extract_json, validate};
use crate::llm::types::{ChatRequest, ChatResponse, Completion, Message};

/// The re-ask after an answer that broke the schema: the conversation so far, the
/// bad answer, and what was wrong with it.
pub(super) fn repair_request(original: &ChatRequest, bad: &str, problem: &str) -> ChatRequest {
    let mut r = original.clone();
    r.messages.push(Message::assistant(bad));
    r.messages.push(Message::user(format!(
        "That reply is not valid: {problem}. Reply again with only the JSON value, \
         matching the required schema exactly."
    )));
    r
}

/// Turns a backend answer into a completion: for a schema request, the extracted and
/// validated JSON, or the problem with it.
pub(super) fn finish(request: &ChatRequest, resp: &ChatResponse) -> Result<Completion, String> {
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
        logprobs: resp.logprobs.clone(),
        cached: false,
        key: String::new(),
    })
}
