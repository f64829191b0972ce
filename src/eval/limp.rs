//! `--subject limp:MODEL`: an inverse-planning solver in the spirit of
//! MuMA-ToM's LIMP, built on any configured model through the model layer.
//! A documented method, not a reasoner of ours.
//!
//! For each option of a choice question it forms the hypothesis the option
//! states (with the question's own condition, e.g. "if Mary has been trying to
//! help …"), asks the model how likely the actions and words of the context
//! are under it, and answers with the option of the highest posterior under a
//! uniform prior; for a question asking what is LEAST likely, the lowest.
//!
//! **Likelihood.** The model rates the observations under the hypothesis
//! from 0 (impossible) to 10 (exactly what one would expect), as JSON
//! `{"rating": n}` (constrained where the backend constrains, checked and
//! repaired by the model layer everywhere). The rating is calibrated to a
//! likelihood by add-one-half smoothing, `(n + 0.5) / 11`, so a 0 lowers an
//! option without ruling it out; the posterior is each likelihood over their
//! sum. Token log-probabilities are not used yet: the model layer does not
//! carry them.
//!
//! **Choice.** The highest posterior (lowest for LEAST); ties go to the
//! option shown first. For multiple choice, every option whose posterior is
//! at least the uniform 1/k (at most the uniform for LEAST), and the best
//! one always. An open question has no hypotheses to weigh: the reply says
//! so and is scored as unparseable.
//!
//! **Record.** The reply stores, before its `[[…]]` answer, one line per
//! option and a `limp {json}` line ([`LimpRecord`]) that `eval report` reads
//! back; every rating call is cached and accounted by the model layer like
//! any model call, so a killed run resumes without paying twice.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::prompt::{Phase, Role};
use super::subject::{Ask, Subject, SubjectError};
use crate::llm::{ChatRequest, Message, ModelHandle};
use crate::trees::schema::Format;

/// The subject-name prefix that selects the solver: `limp:MODEL`.
pub const PREFIX: &str = "limp:";

/// The configured model behind a `limp:MODEL` subject name, or `None` for
/// any other name.
pub fn model_of(subject: &str) -> Option<&str> {
    subject.strip_prefix(PREFIX).filter(|m| !m.is_empty())
}

/// The line of a reply that carries the record.
pub const RECORD_PREFIX: &str = "limp ";

/// One option's likelihood and posterior.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OptionLikelihood {
    /// The option's label.
    pub label: String,
    /// The model's 0–10 rating of the observations under the option's hypothesis.
    pub rating: u8,
    /// The calibrated likelihood, `(rating + 0.5) / 11`.
    pub likelihood: f64,
    /// The posterior under a uniform prior.
    pub posterior: f64,
}

/// What the solver did for one question, as stored in its reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LimpRecord {
    /// `rating` (the only method so far).
    pub method: String,
    /// Whether the question asked for the LEAST likely option.
    pub least: bool,
    /// Every option, in display order.
    pub options: Vec<OptionLikelihood>,
    /// The labels answered.
    pub choice: Vec<String>,
}

impl LimpRecord {
    /// The record stored in `reply`, if it holds one.
    pub fn from_reply(reply: &str) -> Option<LimpRecord> {
        reply
            .lines()
            .find_map(|l| l.strip_prefix(RECORD_PREFIX))
            .and_then(|json| serde_json::from_str(json).ok())
    }
}

/// The calibrated likelihood of a 0–10 rating.
pub fn likelihood(rating: u8) -> f64 {
    (f64::from(rating.min(10)) + 0.5) / 11.0
}

/// Whether a question asks for the least likely option.
pub fn asks_least(question: &str) -> bool {
    question.to_lowercase().contains("least likely")
}

/// Posteriors and the choice from `(label, rating)` in display order (see the
/// module docs for the rules).
pub fn decide(ratings: &[(String, u8)], format: Format, least: bool) -> LimpRecord {
    let total: f64 = ratings.iter().map(|(_, r)| likelihood(*r)).sum();
    let options: Vec<OptionLikelihood> = ratings
        .iter()
        .map(|(label, r)| OptionLikelihood {
            label: label.clone(),
            rating: *r,
            likelihood: likelihood(*r),
            posterior: likelihood(*r) / total,
        })
        .collect();
    // The best by posterior; ties to the first shown (strict comparison).
    let better = |a: f64, b: f64| if least { a < b } else { a > b };
    let mut best = 0;
    for (i, o) in options.iter().enumerate() {
        if better(o.posterior, options[best].posterior) {
            best = i;
        }
    }
    let uniform = 1.0 / options.len().max(1) as f64;
    let choice: Vec<String> = match format {
        Format::Multi => options
            .iter()
            .enumerate()
            .filter(|(i, o)| {
                *i == best
                    || if least {
                        o.posterior <= uniform
                    } else {
                        o.posterior >= uniform
                    }
            })
            .map(|(_, o)| o.label.clone())
            .collect(),
        _ => options
            .get(best)
            .map(|o| o.label.clone())
            .into_iter()
            .collect(),
    };
    LimpRecord {
        method: "rating".into(),
        least,
        options,
        choice,
    }
}

/// The rating request for one hypothesis.
pub fn rating_request(
    premise: Option<&str>,
    excerpt: &str,
    question: &str,
    hypothesis: &str,
) -> ChatRequest {
    let mut user = String::new();
    if let Some(p) = premise {
        user.push_str(p.trim());
        user.push_str("\n\n");
    }
    user.push_str(&format!(
        "Context:\n{}\n\nQuestion under consideration: {question}\n\nHypothesis: {hypothesis}\n\n\
         Suppose the hypothesis is true. How likely is it that the people would act and speak \
         exactly as the context describes? Rate from 0 (impossible under the hypothesis) to 10 \
         (exactly what one would expect under it). Answer as JSON: {{\"rating\": n}}.",
        excerpt.trim()
    ));
    let mut request = ChatRequest::new(vec![
        Message::system(
            "You estimate how likely observed behaviour is under a hypothesis about the beliefs \
             and goals of the people involved.",
        ),
        Message::user(user),
    ])
    .with_schema(
        "likelihood_rating",
        json!({
            "type": "object",
            "properties": {"rating": {"type": "integer", "minimum": 0, "maximum": 10}},
            "required": ["rating"],
            "additionalProperties": false
        }),
    );
    request.temperature = Some(0.0);
    request
}

/// The solver over one configured model.
pub struct LimpSubject {
    handle: ModelHandle,
    name: String,
}

impl std::fmt::Debug for LimpSubject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LimpSubject")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl LimpSubject {
    /// The solver over `handle`, named `limp:MODEL` in runs and reports.
    pub fn new(handle: ModelHandle) -> LimpSubject {
        let name = format!("{PREFIX}{}", handle.name());
        LimpSubject { handle, name }
    }

    async fn rate(&self, request: &ChatRequest) -> Result<u8, SubjectError> {
        let fail = |message: String| SubjectError {
            who: self.name.clone(),
            message,
        };
        let completion = self
            .handle
            .chat(request)
            .await
            .map_err(|e| fail(e.to_string()))?;
        completion
            .json
            .as_ref()
            .and_then(|v| v.get("rating"))
            .and_then(serde_json::Value::as_u64)
            .filter(|r| *r <= 10)
            .map(|r| r as u8)
            .ok_or_else(|| fail(format!("no 0–10 rating in {:?}", completion.text)))
    }
}

#[async_trait]
impl Subject for LimpSubject {
    fn name(&self) -> &str {
        &self.name
    }

    async fn answer(&self, ask: &Ask<'_>) -> Result<String, SubjectError> {
        let view = ask.question;
        if view.format == Format::Open || view.options.is_empty() {
            return Ok(
                "LIMP weighs the options of choice questions; an open question has none, so it \
                 gives no answer."
                    .into(),
            );
        }
        // A phase-2 question is asked under its counterfactual premise: the
        // first paragraph of the turn that asks it.
        let premise = (ask.phase == Phase::Counterfactual)
            .then(|| {
                ask.conversation
                    .iter()
                    .rev()
                    .find(|m| m.role == Role::User)
                    .and_then(|m| m.text.split("\n\n").next())
                    .filter(|p| p.starts_with("Thought experiment"))
            })
            .flatten();
        let mut ratings = Vec::with_capacity(view.options.len());
        for (label, text) in &view.options {
            let request = rating_request(premise, &view.excerpt, &view.question, text);
            ratings.push((label.clone(), self.rate(&request).await?));
        }
        let record = decide(&ratings, view.format, asks_least(&view.question));
        let mut reply = format!(
            "LIMP ({}): likelihood of the context's actions and words under each option's \
             hypothesis, rated 0–10, posterior under a uniform prior{}:\n",
            self.handle.name(),
            if record.least {
                "; the question asks for the LEAST likely"
            } else {
                ""
            }
        );
        for o in &record.options {
            reply.push_str(&format!(
                "{}: rating {:>2}, likelihood {:.3}, posterior {:.3}\n",
                o.label, o.rating, o.likelihood, o.posterior
            ));
        }
        reply.push_str(RECORD_PREFIX);
        reply.push_str(&serde_json::to_string(&record).unwrap_or_default());
        reply.push_str(&format!("\n[[{}]]", record.choice.join(", ")));
        Ok(reply)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(pairs: &[(&str, u8)]) -> Vec<(String, u8)> {
        pairs.iter().map(|(l, n)| (l.to_string(), *n)).collect()
    }

    #[test]
    fn the_highest_posterior_wins_and_ties_go_to_the_first_shown() {
        let d = decide(&r(&[("A", 2), ("B", 9), ("C", 4)]), Format::Single, false);
        assert_eq!(d.choice, ["B"]);
        let sum: f64 = d.options.iter().map(|o| o.posterior).sum();
        assert!((sum - 1.0).abs() < 1e-12);
        assert!((d.options[1].likelihood - 9.5 / 11.0).abs() < 1e-12);
        assert_eq!(
            decide(&r(&[("A", 5), ("B", 7), ("C", 7)]), Format::Single, false).choice,
            ["B"]
        );
        assert_eq!(
            decide(&r(&[("A", 0), ("B", 0), ("C", 0)]), Format::Single, false).choice,
            ["A"]
        );
    }

    #[test]
    fn least_likely_questions_take_the_lowest_and_multi_takes_those_above_uniform() {
        let d = decide(&r(&[("A", 8), ("B", 1), ("C", 1)]), Format::Single, true);
        assert_eq!(d.choice, ["B"], "lowest, the first of a tie");
        assert!(asks_least(
            "Which of the following statements is LEAST likely?"
        ));
        assert!(!asks_least("Which is MOST likely?"));
        let m = decide(
            &r(&[("A", 8), ("B", 1), ("C", 7), ("D", 0)]),
            Format::Multi,
            false,
        );
        assert_eq!(m.choice, ["A", "C"]);
        let one = decide(&r(&[("A", 5), ("B", 5)]), Format::Multi, false);
        assert_eq!(one.choice, ["A", "B"], "both at the uniform");
    }

    #[test]
    fn the_record_reads_back_from_a_reply() {
        let d = decide(&r(&[("A", 2), ("B", 9)]), Format::Single, false);
        let reply = format!(
            "intro\n{RECORD_PREFIX}{}\n[[B]]",
            serde_json::to_string(&d).unwrap()
        );
        assert_eq!(LimpRecord::from_reply(&reply), Some(d));
        assert_eq!(LimpRecord::from_reply("[[B]]"), None);
        assert_eq!(model_of("limp:gpt"), Some("gpt"));
        assert_eq!(model_of("limp:"), None);
        assert_eq!(model_of("gpt"), None);
    }
}
