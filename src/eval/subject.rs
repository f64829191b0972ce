//! Who answers: the [`Subject`] and [`Judge`] traits, the offline baselines and a
//! scripted subject for tests.
//!
//! A subject continues a conversation: it gets every turn so far (the last one the
//! question) and returns its reply verbatim. Model subjects read only
//! [`Ask::conversation`]; the offline baselines read the structured [`QuestionView`],
//! which holds what the prompt shows and never the gold answer.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use async_trait::async_trait;

use super::prompt::{Message, Phase};
use super::score::rouge_tokens;
use crate::trees::schema::{Format, Node};

/// A subject or judge that could not answer (the run stops; answers so far are kept).
#[derive(Debug, Clone, thiserror::Error)]
#[error("{who}: {message}")]
pub struct SubjectError {
    /// The subject's or judge's name.
    pub who: String,
    /// What went wrong.
    pub message: String,
}

/// The question as shown, without its gold answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuestionView {
    /// The answer format.
    pub format: Format,
    /// The question text.
    pub question: String,
    /// `(label, text)` of each option, in display order (empty for open).
    pub options: Vec<(String, String)>,
    /// The context excerpt.
    pub excerpt: String,
}

impl QuestionView {
    /// What `node` shows.
    pub fn of(node: &Node) -> QuestionView {
        QuestionView {
            format: node.format,
            question: node.question.clone(),
            options: node
                .options
                .iter()
                .map(|o| (o.label.clone(), o.text.clone()))
                .collect(),
            excerpt: node.context.excerpt.clone(),
        }
    }
}

/// One request to a subject.
#[derive(Debug, Clone, Copy)]
pub struct Ask<'a> {
    /// The tree being walked.
    pub tree_id: &'a str,
    /// The node asked.
    pub node_id: &'a str,
    /// The phase it is asked in.
    pub phase: Phase,
    /// The conversation so far, ending with the user turn that asks this node.
    pub conversation: &'a [Message],
    /// The question as shown.
    pub question: &'a QuestionView,
}

/// Something that answers questions: a model, a baseline, a person.
#[async_trait]
pub trait Subject: Send + Sync {
    /// The name reports show (a model or baseline name; never a key).
    fn name(&self) -> &str;
    /// The reply to the last turn of `ask.conversation`, verbatim.
    async fn answer(&self, ask: &Ask<'_>) -> Result<String, SubjectError>;
}

/// Grades open answers against a reference, 0..=1 (the `judge` role, temperature 0,
/// rubric [`super::prompt::JUDGE_RUBRIC`]).
#[async_trait]
pub trait Judge: Send + Sync {
    /// The name reports show.
    fn name(&self) -> &str;
    /// The grade of `answer` against `reference`.
    async fn grade(
        &self,
        question: &str,
        reference: &str,
        answer: &str,
    ) -> Result<f64, SubjectError>;
}

/// Reads a judge's reply: the last `[[x]]` holding a number in 0..=1.
pub fn parse_judge_grade(reply: &str) -> Option<f64> {
    let start = reply.rfind("[[")?;
    let rest = &reply[start + 2..];
    let value: f64 = rest[..rest.find("]]")?].trim().parse().ok()?;
    (0.0..=1.0).contains(&value).then_some(value)
}

/// The names of the offline baselines, as `--subject` takes them.
pub const BASELINES: &[&str] = &["random", "first-option", "lexical"];

/// An offline baseline by name (`random` uses `seed`).
pub fn baseline(name: &str, seed: u64) -> Option<Box<dyn Subject>> {
    match name {
        "random" => Some(Box::new(RandomBaseline { seed })),
        "first-option" => Some(Box::new(FirstOptionBaseline)),
        "lexical" => Some(Box::new(LexicalBaseline)),
        _ => None,
    }
}

/// Uniform choice: one option for single, a uniform non-empty subset for multi, a
/// random sentence of the excerpt for open. Seeded per (seed, tree, node, phase), so a
/// resumed run draws what an uninterrupted one draws.
#[derive(Debug, Clone)]
pub struct RandomBaseline {
    /// The run's seed.
    pub seed: u64,
}

#[async_trait]
impl Subject for RandomBaseline {
    fn name(&self) -> &str {
        "random"
    }

    async fn answer(&self, ask: &Ask<'_>) -> Result<String, SubjectError> {
        let mut rng = SplitMix64::new(
            self.seed
                ^ fnv1a(ask.tree_id.as_bytes())
                ^ fnv1a(ask.node_id.as_bytes()).rotate_left(17)
                ^ u64::from(ask.phase.number()).rotate_left(41),
        );
        let q = ask.question;
        let k = q.options.len();
        Ok(match q.format {
            Format::Open => {
                let sentences = sentences(&q.excerpt);
                if sentences.is_empty() {
                    bracket("I don't know.")
                } else {
                    bracket(sentences[rng.below(sentences.len())])
                }
            }
            _ if k == 0 => bracket(""),
            Format::Single => bracket(&q.options[rng.below(k)].0),
            Format::Multi => {
                // A uniform draw among the 2^k - 1 non-empty subsets.
                let subsets = (1u64 << k.min(63)) - 1;
                let mask = 1 + rng.below(subsets as usize) as u64;
                let chosen: Vec<&str> = (0..k)
                    .filter(|i| mask >> i & 1 == 1)
                    .map(|i| q.options[i].0.as_str())
                    .collect();
                bracket(&chosen.join(", "))
            }
        })
    }
}

/// Always the first option (the first sentence of the excerpt for open questions).
#[derive(Debug, Clone, Copy)]
pub struct FirstOptionBaseline;

#[async_trait]
impl Subject for FirstOptionBaseline {
    fn name(&self) -> &str {
        "first-option"
    }

    async fn answer(&self, ask: &Ask<'_>) -> Result<String, SubjectError> {
        let q = ask.question;
        Ok(match (q.format, q.options.first()) {
            (Format::Open, _) | (_, None) => {
                bracket(sentences(&q.excerpt).first().copied().unwrap_or(""))
            }
            (_, Some((label, _))) => bracket(label),
        })
    }
}

/// The option sharing the most distinct words with the context excerpt (ties: the
/// earlier option); for open questions the excerpt sentence sharing most words with
/// the question.
#[derive(Debug, Clone, Copy)]
pub struct LexicalBaseline;

#[async_trait]
impl Subject for LexicalBaseline {
    fn name(&self) -> &str {
        "lexical"
    }

    async fn answer(&self, ask: &Ask<'_>) -> Result<String, SubjectError> {
        let q = ask.question;
        if q.format == Format::Open || q.options.is_empty() {
            let best = best_overlap(&q.question, sentences(&q.excerpt).into_iter());
            return Ok(bracket(best.unwrap_or("")));
        }
        let best = best_overlap(&q.excerpt, q.options.iter().map(|(_, text)| text.as_str()));
        let label = q
            .options
            .iter()
            .find(|(_, text)| Some(text.as_str()) == best)
            .map_or(q.options[0].0.as_str(), |(label, _)| label.as_str());
        Ok(bracket(label))
    }
}

/// The candidate sharing the most distinct words with `reference` (first on ties).
fn best_overlap<'a>(reference: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let words: std::collections::HashSet<String> = rouge_tokens(reference).into_iter().collect();
    let mut best: Option<(usize, &str)> = None;
    for candidate in candidates {
        let mut own: Vec<String> = rouge_tokens(candidate);
        own.sort();
        own.dedup();
        let overlap = own.iter().filter(|w| words.contains(*w)).count();
        if best.is_none_or(|(b, _)| overlap > b) {
            best = Some((overlap, candidate));
        }
    }
    best.map(|(_, c)| c)
}

/// A subject whose every reply is given in advance, keyed by (tree id, node id); it
/// counts its calls, keeps every conversation it saw, and can be told to fail after a
/// number of calls (a killed run).
#[derive(Debug, Default)]
pub struct ScriptedSubject {
    replies: HashMap<(String, String), String>,
    calls: AtomicUsize,
    fail_after: Option<usize>,
    seen: Mutex<Vec<Vec<Message>>>,
}

impl ScriptedSubject {
    /// A subject with these replies.
    pub fn new(replies: impl IntoIterator<Item = ((String, String), String)>) -> ScriptedSubject {
        ScriptedSubject {
            replies: replies.into_iter().collect(),
            ..ScriptedSubject::default()
        }
    }

    /// Makes every call after the first `n` fail.
    pub fn failing_after(mut self, n: usize) -> ScriptedSubject {
        self.fail_after = Some(n);
        self
    }

    /// How many times it was asked (failed calls included).
    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }

    /// Every conversation it was asked to continue, in call order.
    pub fn conversations(&self) -> Vec<Vec<Message>> {
        self.seen
            .lock()
            .map(|seen| seen.clone())
            .unwrap_or_default()
    }
}

#[async_trait]
impl Subject for ScriptedSubject {
    fn name(&self) -> &str {
        "scripted"
    }

    async fn answer(&self, ask: &Ask<'_>) -> Result<String, SubjectError> {
        let n = self.calls.fetch_add(1, Ordering::SeqCst);
        let fail = |message: String| SubjectError {
            who: "scripted".into(),
            message,
        };
        if self.fail_after.is_some_and(|limit| n >= limit) {
            return Err(fail(format!("killed after {n} calls")));
        }
        if let Ok(mut seen) = self.seen.lock() {
            seen.push(ask.conversation.to_vec());
        }
        self.replies
            .get(&(ask.tree_id.to_string(), ask.node_id.to_string()))
            .cloned()
            .ok_or_else(|| fail(format!("no reply for {}/{}", ask.tree_id, ask.node_id)))
    }
}

/// A judge whose grades are given in advance, keyed by the answer text; it counts calls.
#[derive(Debug, Default)]
pub struct ScriptedJudge {
    grades: HashMap<String, f64>,
    calls: AtomicUsize,
}

impl ScriptedJudge {
    /// A judge with these grades.
    pub fn new(grades: impl IntoIterator<Item = (String, f64)>) -> ScriptedJudge {
        ScriptedJudge {
            grades: grades.into_iter().collect(),
            calls: AtomicUsize::new(0),
        }
    }

    /// How many times it was asked.
    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

#[async_trait]
impl Judge for ScriptedJudge {
    fn name(&self) -> &str {
        "scripted-judge"
    }

    async fn grade(&self, _: &str, _: &str, answer: &str) -> Result<f64, SubjectError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.grades
            .get(answer)
            .copied()
            .ok_or_else(|| SubjectError {
                who: "scripted-judge".into(),
                message: format!("no grade for {answer:?}"),
            })
    }
}

fn bracket(text: &str) -> String {
    format!("[[{text}]]")
}

/// The excerpt's sentences (split at `.`, `!`, `?` and line breaks), trimmed.
fn sentences(text: &str) -> Vec<&str> {
    text.split(['.', '!', '?', '\n'])
        .map(str::trim)
        .filter(|s| s.chars().any(char::is_alphanumeric))
        .collect()
}

/// FNV-1a, 64-bit: a stable hash for seeds (std's hasher may change between releases).
pub use crate::util::hash::fnv1a;
/// SplitMix64: small, fast and the same on every platform and release, which seeded
/// baselines and bootstrap intervals need to be reproducible byte for byte.
pub use crate::util::rng::SplitMix64;
