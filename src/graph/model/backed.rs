//! Model-backed graph roles: the synchronous [`Generator`], [`Auditor`] and
//! [`Adjudicator`] traits over a [`BlockingModel`], sending the prompts and
//! schemas of [`crate::graph::model`] through the model layer (cache, retries,
//! schema repair, accounting) and parsing the answers with its validators.
//!
//! One generator call per block (script segment, keyframes as images, entity
//! list, schema); one batched call per auditor per block; one adjudicator call
//! per escalated candidate.

use std::path::Path;

use crate::graph::model::{
    adjudicator_prompt, audit_prompt, generator_prompt, parse_adjudication, parse_audit,
    parse_generator, Prompt,
};
use crate::graph::schema::{Candidate, Vote};
use crate::graph::{Adjudicator, Auditor, BlockContext, Generator, GraphError, Proposal};
use crate::llm::types::{ChatRequest, Message};
use crate::llm::BlockingModel;

/// Re-asks after an auditor answer that parses but misses verdicts (a schema
/// break is re-asked by the model layer itself).
const VERDICT_REPAIRS: usize = 2;

/// What identifies a role's model in the build settings (see
/// [`ModelHandle::settings_identity`](crate::llm::ModelHandle::settings_identity)).
fn identity(model: &BlockingModel) -> String {
    model.handle().settings_identity()
}

/// The MIME type of a keyframe, from its extension.
fn mime_of(path: &Path) -> Option<&'static str> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "jpg" | "jpeg" => Some("image/jpeg"),
        "png" => Some("image/png"),
        "webp" => Some("image/webp"),
        "gif" => Some("image/gif"),
        _ => None,
    }
}

/// The chat request of a prompt: system turn, user turn with the keyframes
/// that can be read attached as images (missing or unreadable ones are skipped
/// with a warning), and the output schema.
pub fn request_of(prompt: &Prompt, block: usize) -> ChatRequest {
    let mut user = Message::user(prompt.user.clone());
    for frame in &prompt.images {
        let path = Path::new(frame);
        let Some(mime) = mime_of(path) else {
            tracing::warn!(block, keyframe = %frame, "keyframe skipped: not a jpeg/png/webp/gif");
            continue;
        };
        match std::fs::read(path) {
            Ok(bytes) => user = user.with_image(mime, &bytes),
            Err(e) => tracing::warn!(block, keyframe = %frame, "keyframe skipped: {e}"),
        }
    }
    ChatRequest::new(vec![Message::system(prompt.system.clone()), user])
        .with_schema(prompt.schema_name, prompt.schema.clone())
}

fn role_error(role: String, block: usize, message: impl ToString) -> GraphError {
    GraphError::Role {
        role,
        block,
        message: message.to_string(),
    }
}

/// The answer as text (the validated JSON when the layer parsed it).
fn answer(model: &BlockingModel, request: &ChatRequest) -> Result<String, String> {
    model
        .chat(request)
        .map(|c| c.text)
        .map_err(|e| e.to_string())
}

/// A generator served by a model.
#[derive(Debug, Clone)]
pub struct ModelGenerator {
    model: BlockingModel,
}

impl ModelGenerator {
    /// Wraps a model handle serving the generator role.
    pub fn new(model: BlockingModel) -> ModelGenerator {
        ModelGenerator { model }
    }
}

impl Generator for ModelGenerator {
    fn name(&self) -> String {
        self.model.handle().name().to_owned()
    }

    fn identity(&self) -> Option<String> {
        Some(identity(&self.model))
    }

    fn generate(&self, ctx: &BlockContext<'_>) -> Result<Proposal, GraphError> {
        let block = ctx.block.id;
        let role = || format!("generator {}", self.name());
        let (prompt, handles) = generator_prompt(ctx);
        let text = answer(&self.model, &request_of(&prompt, block))
            .map_err(|m| role_error(role(), block, m))?;
        let (mut proposal, dropped) =
            parse_generator(ctx, &handles, &text).map_err(|m| role_error(role(), block, m))?;
        proposal.dropped = dropped;
        Ok(proposal)
    }
}

/// An auditor served by a model: one batched call per block.
#[derive(Debug, Clone)]
pub struct ModelAuditor {
    model: BlockingModel,
}

impl ModelAuditor {
    /// Wraps a model handle serving one auditor.
    pub fn new(model: BlockingModel) -> ModelAuditor {
        ModelAuditor { model }
    }
}

impl Auditor for ModelAuditor {
    fn name(&self) -> String {
        self.model.handle().name().to_owned()
    }

    fn identity(&self) -> Option<String> {
        Some(identity(&self.model))
    }

    fn audit(&self, ctx: &BlockContext<'_>, batch: &[Candidate]) -> Result<Vec<Vote>, GraphError> {
        let block = ctx.block.id;
        let role = || format!("auditor {}", self.name());
        if batch.is_empty() {
            return Ok(Vec::new());
        }
        let first = request_of(&audit_prompt(ctx, batch), block);
        let mut request = first.clone();
        let mut tries = 0;
        loop {
            let text = answer(&self.model, &request).map_err(|m| role_error(role(), block, m))?;
            match parse_audit(&self.name(), batch, &text) {
                Ok(votes) => return Ok(votes),
                Err(problem) if tries < VERDICT_REPAIRS => {
                    tries += 1;
                    tracing::warn!(block, auditor = %self.name(), "re-asking: {problem}");
                    request = first.clone();
                    request.messages.push(Message::assistant(text));
                    request.messages.push(Message::user(format!(
                        "That reply is incomplete: {problem}. Reply again with one verdict for \
                         every candidate, C1 to C{}.",
                        batch.len()
                    )));
                }
                Err(problem) => return Err(role_error(role(), block, problem)),
            }
        }
    }
}

/// An adjudicator served by a model: one call per escalated candidate.
#[derive(Debug, Clone)]
pub struct ModelAdjudicator {
    model: BlockingModel,
}

impl ModelAdjudicator {
    /// Wraps a model handle serving the adjudicator role.
    pub fn new(model: BlockingModel) -> ModelAdjudicator {
        ModelAdjudicator { model }
    }
}

impl Adjudicator for ModelAdjudicator {
    fn name(&self) -> String {
        self.model.handle().name().to_owned()
    }

    fn identity(&self) -> Option<String> {
        Some(identity(&self.model))
    }

    fn adjudicate(
        &self,
        ctx: &BlockContext<'_>,
        candidate: &Candidate,
        others: &[Candidate],
    ) -> Result<Vote, GraphError> {
        let block = ctx.block.id;
        let role = || format!("adjudicator {}", self.name());
        let request = request_of(&adjudicator_prompt(ctx, candidate, others), block);
        let text = answer(&self.model, &request).map_err(|m| role_error(role(), block, m))?;
        parse_adjudication(&self.name(), &text).map_err(|m| role_error(role(), block, m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keyframes_that_cannot_be_read_are_skipped_and_the_rest_attached() {
        let dir = tempfile::tempdir().unwrap();
        let png = dir.path().join("a.png");
        std::fs::write(&png, [1u8, 2, 3]).unwrap();
        let prompt = Prompt {
            system: "s".into(),
            user: "u".into(),
            images: vec![
                png.display().to_string(),
                dir.path().join("missing.jpg").display().to_string(),
                dir.path().join("notes.txt").display().to_string(),
            ],
            schema_name: "x",
            schema: json!({"type": "object"}),
        };
        let r = request_of(&prompt, 0);
        assert_eq!(r.messages.len(), 2);
        assert_eq!(r.messages[1].parts.len(), 2, "text + one image");
        assert_eq!(
            r.messages[1].parts[1],
            crate::llm::Part::Image {
                mime: "image/png".into(),
                base64: "AQID".into()
            }
        );
        assert_eq!(r.schema.as_ref().unwrap().name, "x");
    }
}
