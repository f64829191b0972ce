//! The model question writer ([`ModelWriter`], any backend but `rules`): the
//! JSON schema a model answers in, the prompt built from the question's
//! subgraph, and the parser that turns the model's JSON into a [`Written`]
//! question. The generator then runs [`verify`](super::generate::verify) on
//! it like on any writer's output (with [`MAX_LENGTH_RATIO`]), so a question
//! or distractor that does not check out against the graph is rejected.
//! Answers are named by handles (`O1`, `O2`…), never graph ids.

use serde::Deserialize;
use serde_json::{json, Value};

use crate::llm::{BlockingModel, ChatRequest, Message};

use super::facts::{Ask, Facts, Verdict};
use super::generate::{focus_of, QuestionWriter, Spec, WriteError, Written, WrittenOption};
use super::schema::{DistractorReason, Format};

/// Words questions with a model through the model layer (cached, retried,
/// schema-checked, accounted); the tool still decides what is gold.
#[derive(Debug, Clone)]
pub struct ModelWriter {
    model: BlockingModel,
}

impl ModelWriter {
    /// A writer over this model (the generator role's).
    pub fn new(model: BlockingModel) -> ModelWriter {
        ModelWriter { model }
    }
}

impl QuestionWriter for ModelWriter {
    fn name(&self) -> String {
        self.model.handle().name().to_owned()
    }

    fn write(&self, f: &Facts<'_>, spec: &Spec, excerpt: &str) -> Result<Written, WriteError> {
        let request = ChatRequest::new(vec![Message::user(prompt(f, spec, excerpt))])
            .with_schema("question", output_schema());
        let answer = self
            .model
            .chat(&request)
            .map_err(|e| WriteError::Backend(e.to_string()))?;
        parse_output(spec, &answer.text).map_err(WriteError::Rejected)
    }

    fn max_length_ratio(&self) -> Option<f64> {
        Some(MAX_LENGTH_RATIO)
    }
}

/// Longest the correct option may be, relative to the mean distractor, in a
/// model-written question (a give-away by length is rejected).
pub const MAX_LENGTH_RATIO: f64 = 1.8;

/// The JSON schema of a model-written question and its options.
pub fn output_schema() -> Value {
    let reasons: Vec<Value> = DistractorReason::ALL
        .iter()
        .map(|r| Value::from(r.as_str()))
        .chain([Value::Null])
        .collect();
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["question", "options", "reference"],
        "properties": {
            "question": {"type": "string", "minLength": 1},
            "reference": {"type": ["string", "null"]},
            "options": {
                "type": "array",
                "minItems": 2,
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["handle", "text", "correct", "reason"],
                    "properties": {
                        "handle": {"type": "string", "pattern": "^O[0-9]+$"},
                        "text": {"type": "string", "minLength": 1},
                        "correct": {"type": "boolean"},
                        "reason": {"enum": reasons}
                    }
                }
            }
        }
    })
}

/// A question about a character at a moment: `template`'s `{}` is the
/// character's name, the moment follows after a colon.
fn at_moment(f: &Facts<'_>, template: &str, character: usize, moment: usize) -> String {
    format!(
        "{}: {}",
        template.replacen("{}", f.name(character), 1),
        f.gloss(moment)
    )
}

fn what_is_asked(f: &Facts<'_>, ask: &Ask) -> String {
    match *ask {
        Ask::Origin { end } => format!(
            "which earlier moment ultimately set this in motion: {}",
            f.gloss(end)
        ),
        Ask::Cause { target } => format!("the direct reason for: {}", f.gloss(target)),
        Ask::Effect { source } => format!("what this led to directly: {}", f.gloss(source)),
        Ask::Participants { event } => format!("who is involved in: {}", f.gloss(event)),
        Ask::Holder { state } => format!("who holds this state of mind: {}", f.content(state)),
        Ask::Order { .. } => "which of the two moments happens first in the film".to_owned(),
        Ask::MindBefore { character, moment } => {
            at_moment(f, "what is on {}'s mind by this point", character, moment)
        }
        Ask::KnowsAt { character, moment } => at_moment(
            f,
            "what {} knows by this point (not merely believes, wrongly, or does not know)",
            character,
            moment,
        ),
        Ask::FalseBelief { character, moment } => at_moment(
            f,
            "which of {}'s beliefs by this point is false",
            character,
            moment,
        ),
        Ask::NoLonger { character, moment } => at_moment(
            f,
            "which of {}'s earlier states of mind no longer holds by this point",
            character,
            moment,
        ),
    }
}

/// The prompt for one question: the excerpt the subject will see, what to
/// ask, and the answers with handles, each marked correct or wrong (and why).
pub fn prompt(f: &Facts<'_>, spec: &Spec, excerpt: &str) -> String {
    let mut p = String::new();
    p.push_str(
        "You write one question for a film-understanding test. The subject will see only \
         the script excerpt below (and a few frames), never these notes.\n\n",
    );
    p.push_str("SCRIPT EXCERPT\n");
    p.push_str(excerpt);
    p.push_str("\n\nASK ABOUT\n");
    p.push_str(&what_is_asked(f, &spec.ask));
    for &m in &focus_of(&spec.ask) {
        if let Some(q) = f.quote(m) {
            p.push_str(&format!("\n  evidence: “{q}”"));
        }
    }
    p.push_str(&format!(
        "\n\nFORMAT: {}\n\nANSWERS (keep every handle, one option each)\n",
        spec.format.as_str()
    ));
    for (k, c) in spec.candidates.iter().enumerate() {
        let status = match c.verdict {
            Verdict::Gold => "CORRECT".to_owned(),
            Verdict::Wrong(r) => format!("WRONG ({})", r.as_str()),
            Verdict::Unusable => "UNUSABLE".to_owned(),
        };
        p.push_str(&format!("O{}: {} — {status}", k + 1, c.text));
        if let Some(q) = c.node.and_then(|n| f.quote(n)) {
            p.push_str(&format!(" — evidence: “{q}”"));
        }
        p.push('\n');
    }
    p.push_str(
        "\nRULES\n- Rephrase each answer naturally as an option; keep its meaning, keep names.\n\
         - Mark correct and reason exactly as given.\n\
         - Options of similar length and style; the question must not contain the answer.\n\
         - Use names and quotes, never identifiers.\n",
    );
    if spec.format == Format::Open {
        p.push_str("- Open format: also give `reference`, the correct answer in a sentence.\n");
    } else {
        p.push_str("- Set `reference` to null.\n");
    }
    p.push_str("Answer with JSON matching the schema.\n");
    p
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    question: String,
    #[serde(default)]
    reference: Option<String>,
    options: Vec<RawOption>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOption {
    handle: String,
    text: String,
    correct: bool,
    #[serde(default)]
    reason: Option<DistractorReason>,
}

/// Parses a model's JSON answer into a [`Written`] question (structure only;
/// [`verify`](super::generate::verify) judges it against the graph).
pub fn parse_output(spec: &Spec, text: &str) -> Result<Written, String> {
    let raw: Raw =
        serde_json::from_str(text.trim()).map_err(|e| format!("not the schema's JSON: {e}"))?;
    let mut options = Vec::new();
    for o in raw.options {
        let k: usize = o
            .handle
            .strip_prefix('O')
            .and_then(|n| n.parse().ok())
            .filter(|&n| n >= 1 && n <= spec.candidates.len())
            .ok_or_else(|| format!("unknown handle {:?}", o.handle))?;
        options.push(WrittenOption {
            candidate: k - 1,
            text: o.text.trim().to_owned(),
            correct: o.correct,
            reason: o.reason,
        });
    }
    let reference = match spec.format {
        Format::Open => raw.reference.map(|r| r.trim().to_owned()),
        _ => None,
    };
    Ok(Written {
        question: raw.question.trim().to_owned(),
        options,
        reference,
    })
}
