//! Model-backed [`Subject`] and [`Judge`] over the model layer ([`ModelHandle`]),
//! which gives every call its cache, retries, budget and accounting.
//!
//! The subject sends the tree's whole conversation on every question (one continuous
//! conversation per tree, docs/evaluation.md). Keyframes travel as image parts of the
//! question being asked only: earlier questions keep their text (which says how many
//! keyframes came with them) but not their images again, so a request carries at most
//! [`MAX_IMAGES`] images however deep the tree, which is what servers that limit images
//! per prompt accept. A keyframe file that cannot be read is a warning, not an error.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use async_trait::async_trait;

use super::prompt::{render_judge_prompt, Message, Role, MAX_IMAGES};
use super::subject::{parse_judge_grade, Ask, Judge, Subject, SubjectError};
use crate::llm::{ChatRequest, LlmError, ModelHandle};

/// The re-ask sent once when a judge's reply holds no grade.
pub const JUDGE_REASK: &str =
    "Reply with the score only: one number from 0 to 1 in double square brackets, for example [[0.5]].";

/// A model under test, answering through the model layer.
pub struct ModelSubject {
    handle: ModelHandle,
    workspace: PathBuf,
    warned: Mutex<HashSet<String>>,
    missing: AtomicUsize,
}

impl std::fmt::Debug for ModelSubject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelSubject")
            .field("model", &self.handle.name())
            .field("workspace", &self.workspace)
            .finish_non_exhaustive()
    }
}

impl ModelSubject {
    /// A subject over `handle`; keyframe paths are read relative to `workspace`.
    pub fn new(handle: ModelHandle, workspace: impl Into<PathBuf>) -> ModelSubject {
        ModelSubject {
            handle,
            workspace: workspace.into(),
            warned: Mutex::new(HashSet::new()),
            missing: AtomicUsize::new(0),
        }
    }

    /// Keyframes that could not be read and were left out, counted per question.
    pub fn missing_images(&self) -> usize {
        self.missing.load(Ordering::SeqCst)
    }

    /// The chat request for a conversation: every turn's text, the last user turn's
    /// readable keyframes as image parts.
    pub fn request(&self, conversation: &[Message]) -> ChatRequest {
        let last_user = conversation.iter().rposition(|m| m.role == Role::User);
        let messages = conversation
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let turn = match m.role {
                    Role::System => crate::llm::Message::system(m.text.clone()),
                    Role::User => crate::llm::Message::user(m.text.clone()),
                    Role::Assistant => crate::llm::Message::assistant(m.text.clone()),
                };
                if Some(i) != last_user {
                    return turn;
                }
                m.images
                    .iter()
                    .take(MAX_IMAGES)
                    .fold(turn, |turn, path| match self.image(path) {
                        Some((mime, bytes)) => turn.with_image(mime, &bytes),
                        None => turn,
                    })
            })
            .collect();
        ChatRequest::new(messages)
    }

    /// The file's MIME type and bytes, or `None` (warned once per path) when it cannot
    /// be read or is not an image type a chat API takes.
    fn image(&self, path: &str) -> Option<(&'static str, Vec<u8>)> {
        let full = self.workspace.join(path);
        let result = match image_mime(Path::new(path)) {
            None => Err("not a .jpg, .jpeg, .png, .webp or .gif file".to_string()),
            Some(mime) => std::fs::read(&full)
                .map(|bytes| (mime, bytes))
                .map_err(|err| err.to_string()),
        };
        match result {
            Ok(image) => Some(image),
            Err(why) => {
                self.missing.fetch_add(1, Ordering::SeqCst);
                let first = self
                    .warned
                    .lock()
                    .map(|mut warned| warned.insert(path.to_string()))
                    .unwrap_or(false);
                if first {
                    tracing::warn!(
                        "keyframe {} is left out of the questions that show it: {why}",
                        full.display()
                    );
                }
                None
            }
        }
    }
}

/// The MIME type of a keyframe file, by extension.
fn image_mime(path: &Path) -> Option<&'static str> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "jpg" | "jpeg" => "image/jpeg",
        "png" => "image/png",
        "webp" => "image/webp",
        "gif" => "image/gif",
        _ => return None,
    })
}

fn failure(handle: &ModelHandle, err: LlmError) -> SubjectError {
    SubjectError {
        who: handle.name().to_string(),
        message: err.to_string(),
    }
}

#[async_trait]
impl Subject for ModelSubject {
    fn name(&self) -> &str {
        self.handle.name()
    }

    async fn answer(&self, ask: &Ask<'_>) -> Result<String, SubjectError> {
        let request = self.request(ask.conversation);
        let completion = self
            .handle
            .chat(&request)
            .await
            .map_err(|err| failure(&self.handle, err))?;
        Ok(completion.text)
    }
}

/// A judge model: the fixed rubric at temperature 0, the grade read with
/// [`parse_judge_grade`]; a reply without a grade is re-asked once, then an error.
pub struct ModelJudge {
    handle: ModelHandle,
}

impl std::fmt::Debug for ModelJudge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelJudge")
            .field("model", &self.handle.name())
            .finish()
    }
}

impl ModelJudge {
    /// A judge over `handle`.
    pub fn new(handle: ModelHandle) -> ModelJudge {
        ModelJudge { handle }
    }

    /// The judge's request for one answer (temperature 0).
    pub fn request(question: &str, reference: &str, answer: &str) -> ChatRequest {
        let messages = render_judge_prompt(question, reference, answer)
            .into_iter()
            .map(|m| match m.role {
                Role::System => crate::llm::Message::system(m.text),
                Role::User => crate::llm::Message::user(m.text),
                Role::Assistant => crate::llm::Message::assistant(m.text),
            })
            .collect();
        ChatRequest {
            temperature: Some(0.0),
            ..ChatRequest::new(messages)
        }
    }
}

#[async_trait]
impl Judge for ModelJudge {
    fn name(&self) -> &str {
        self.handle.name()
    }

    async fn grade(
        &self,
        question: &str,
        reference: &str,
        answer: &str,
    ) -> Result<f64, SubjectError> {
        let mut request = ModelJudge::request(question, reference, answer);
        let first = self
            .handle
            .chat(&request)
            .await
            .map_err(|err| failure(&self.handle, err))?;
        if let Some(grade) = parse_judge_grade(&first.text) {
            return Ok(grade);
        }
        request
            .messages
            .push(crate::llm::Message::assistant(first.text.clone()));
        request
            .messages
            .push(crate::llm::Message::user(JUDGE_REASK));
        let second = self
            .handle
            .chat(&request)
            .await
            .map_err(|err| failure(&self.handle, err))?;
        parse_judge_grade(&second.text).ok_or_else(|| SubjectError {
            who: self.handle.name().to_string(),
            message: format!(
                "the judge's replies hold no grade in [[0..1]]: {:?}, then {:?}",
                first.text, second.text
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyframe_types_come_from_the_extension() {
        assert_eq!(image_mime(Path::new("a/b.JPG")), Some("image/jpeg"));
        assert_eq!(image_mime(Path::new("a/b.png")), Some("image/png"));
        assert_eq!(image_mime(Path::new("a/b.tiff")), None);
        assert_eq!(image_mime(Path::new("a/b")), None);
    }

    #[test]
    fn the_judge_asks_at_temperature_zero_with_the_rubric() {
        let r = ModelJudge::request("Why?", "Because.", "No idea.");
        assert_eq!(r.temperature, Some(0.0));
        assert_eq!(r.messages.len(), 2);
        assert_eq!(
            r.messages[0].joined_text(),
            crate::eval::prompt::JUDGE_RUBRIC
        );
        assert!(r.messages[1]
            .joined_text()
            .ends_with("Answer to grade: No idea."));
    }
}
