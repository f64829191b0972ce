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
//! repaired by the model layer everywhere), with token log-probabilities
//! asked for. Where the backend gives them (the local backend; OpenAI-compatible
//! servers with `logprobs`), the rating is the expectation over the digit
//! tokens at the rating's first digit, `Σ p(d)·d` with the digits'
//! probabilities renormalized (method `logprob`): a graded judgement rather
//! than its rounding. Otherwise it is the rating written (method `rating`);
//! one question uses one method for all its options. The rating r is
//! calibrated to a likelihood by add-one-half smoothing, `(r + 0.5) / 11`,
//! so a 0 lowers an option without ruling it out; the posterior is each
//! likelihood over their sum.
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
use crate::llm::types::TokenLogprob;
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
    /// The expected rating under the token log-probabilities (method `logprob`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_rating: Option<f64>,
    /// The calibrated likelihood, `(r + 0.5) / 11` of the rating used.
    pub likelihood: f64,
    /// The posterior under a uniform prior.
    pub posterior: f64,
}

/// What the solver did for one question, as stored in its reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LimpRecord {
    /// `logprob` (expected ratings from token log-probabilities) or `rating`.
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

/// One answer of the LIMP solver with its record.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LimpAnswer {
    /// The tree.
    pub tree: String,
    /// The node.
    pub node: String,
    /// 1 or 2.
    pub phase: u8,
    /// Whether the answer was correct.
    pub correct: bool,
    /// Likelihoods, posteriors and the choice.
    pub record: LimpRecord,
}

/// The LIMP answers of `loaded` with their records (none unless its subject
/// is a `limp:MODEL`).
pub fn answers_of(loaded: &super::protocol::LoadedRun) -> Vec<LimpAnswer> {
    if model_of(&loaded.run.subject).is_none() {
        return Vec::new();
    }
    loaded
        .answers
        .iter()
        .filter_map(|a| {
            Some(LimpAnswer {
                tree: a.tree_id.clone(),
                node: a.node_id.clone(),
                phase: a.phase,
                correct: a.correct,
                record: LimpRecord::from_reply(&a.raw)?,
            })
        })
        .collect()
}

/// The calibrated likelihood of a 0–10 rating.
pub fn likelihood(rating: f64) -> f64 {
    (rating.clamp(0.0, 10.0) + 0.5) / 11.0
}

/// The expected rating from a reply's token log-probabilities: at the first
/// token that is a number, the digit alternatives' probabilities renormalized
/// and weighted by their values. `None` without log-probabilities or digits.
pub fn expected_rating(logprobs: &[TokenLogprob]) -> Option<f64> {
    let number = |t: &str| -> Option<f64> {
        let t = t.trim();
        (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
            .then(|| t.parse::<f64>().ok())
            .flatten()
            .filter(|v| *v <= 10.0)
    };
    let at = logprobs.iter().find(|t| number(&t.token).is_some())?;
    let mut seen: Vec<(f64, f64)> = Vec::new();
    for (token, lp) in
        std::iter::once((&at.token, at.logprob)).chain(at.top.iter().map(|(t, lp)| (t, *lp)))
    {
        if let Some(v) = number(token) {
            if !seen.iter().any(|(s, _)| *s == v) {
                seen.push((v, lp.exp()));
            }
        }
    }
    let mass: f64 = seen.iter().map(|(_, p)| p).sum();
    (mass > 0.0).then(|| seen.iter().map(|(v, p)| v * p).sum::<f64>() / mass)
}

/// Whether a question asks for the least likely option.
pub fn asks_least(question: &str) -> bool {
    question.to_lowercase().contains("least likely")
}

/// One option's rating: written, and expected under the log-probabilities.
#[derive(Debug, Clone, PartialEq)]
pub struct Rated {
    /// The option's label.
    pub label: String,
    /// The rating written.
    pub rating: u8,
    /// The expected rating, where log-probabilities were given.
    pub expected: Option<f64>,
}

/// Posteriors and the choice from each option's rating, in display order
/// (see the module docs for the rules).
pub fn decide(rated: &[Rated], format: Format, least: bool) -> LimpRecord {
    let by_logprob = !rated.is_empty() && rated.iter().all(|r| r.expected.is_some());
    let used = |r: &Rated| match (by_logprob, r.expected) {
        (true, Some(e)) => e,
        _ => f64::from(r.rating),
    };
    let total: f64 = rated.iter().map(|r| likelihood(used(r))).sum();
    let options: Vec<OptionLikelihood> = rated
        .iter()
        .map(|r| OptionLikelihood {
            label: r.label.clone(),
            rating: r.rating,
            expected_rating: if by_logprob { r.expected } else { None },
            likelihood: likelihood(used(r)),
            posterior: likelihood(used(r)) / total,
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
        method: if by_logprob { "logprob" } else { "rating" }.into(),
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
    request.top_logprobs = Some(TOP_LOGPROBS);
    request
}

/// Alternatives asked for at each token: enough to hold all eleven ratings'
/// first digits.
pub const TOP_LOGPROBS: u8 = 12;

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

    async fn rate(&self, label: &str, request: &ChatRequest) -> Result<Rated, SubjectError> {
        let fail = |message: String| SubjectError {
            who: self.name.clone(),
            message,
        };
        let completion = self
            .handle
            .chat(request)
            .await
            .map_err(|e| fail(e.to_string()))?;
        let rating = completion
            .json
            .as_ref()
            .and_then(|v| v.get("rating"))
            .and_then(serde_json::Value::as_u64)
            .filter(|r| *r <= 10)
            .map(|r| r as u8)
            .ok_or_else(|| fail(format!("no 0–10 rating in {:?}", completion.text)))?;
        Ok(Rated {
            label: label.to_owned(),
            rating,
            expected: completion.logprobs.as_deref().and_then(expected_rating),
        })
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
            ratings.push(self.rate(label, &request).await?);
        }
        let record = decide(&ratings, view.format, asks_least(&view.question));
        let mut reply = format!(
            "LIMP ({}): likelihood of the context's actions and words under each option's \
             hypothesis, rated 0–10 ({}), posterior under a uniform prior{}:\n",
            self.handle.name(),
            if record.method == "logprob" {
                "expected from the token log-probabilities"
            } else {
                "as written"
            },
            if record.least {
                "; the question asks for the LEAST likely"
            } else {
                ""
            }
        );
        for o in &record.options {
            let expected = o
                .expected_rating
                .map_or(String::new(), |e| format!(" (expected {e:.2})"));
            reply.push_str(&format!(
                "{}: rating {:>2}{expected}, likelihood {:.3}, posterior {:.3}\n",
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

    fn r(pairs: &[(&str, u8)]) -> Vec<Rated> {
        pairs
            .iter()
            .map(|(l, n)| Rated {
                label: l.to_string(),
                rating: *n,
                expected: None,
            })
            .collect()
    }

    fn token(t: &str, lp: f64, top: &[(&str, f64)]) -> TokenLogprob {
        TokenLogprob {
            token: t.into(),
            logprob: lp,
            top: top.iter().map(|(t, l)| (t.to_string(), *l)).collect(),
        }
    }

    #[test]
    fn the_expected_rating_weighs_the_digit_alternatives() {
        let half = 0.5f64.ln();
        let tokens = [
            token("{\"", -0.01, &[]),
            token("rating", -0.01, &[]),
            token("\":", -0.01, &[]),
            token(
                " 8",
                half,
                &[
                    (" 8", half),
                    (" 6", (0.25f64).ln()),
                    ("x", -1.0),
                    (" 2", (0.25f64).ln()),
                ],
            ),
            token("}", -0.01, &[]),
        ];
        let e = expected_rating(&tokens).unwrap();
        assert!(
            (e - (8.0 * 0.5 + 6.0 * 0.25 + 2.0 * 0.25)).abs() < 1e-9,
            "{e}"
        );
        assert_eq!(expected_rating(&[token("{}", -0.1, &[])]), None);
        // Every option with log-probabilities: the expectations decide.
        let rated = vec![
            Rated {
                label: "A".into(),
                rating: 7,
                expected: Some(5.5),
            },
            Rated {
                label: "B".into(),
                rating: 7,
                expected: Some(6.5),
            },
        ];
        let d = decide(&rated, Format::Single, false);
        assert_eq!(
            (d.method.as_str(), d.choice.clone()),
            ("logprob", vec!["B".to_string()])
        );
        assert!((d.options[1].likelihood - 7.0 / 11.0).abs() < 1e-12);
        // One option without them: the written ratings, for all.
        let mixed = vec![
            rated[0].clone(),
            Rated {
                expected: None,
                ..rated[1].clone()
            },
        ];
        let d = decide(&mixed, Format::Single, false);
        assert_eq!(
            (d.method.as_str(), d.choice.clone()),
            ("rating", vec!["A".to_string()])
        );
        assert_eq!(d.options[0].expected_rating, None);
    }

    #[test]
    fn the_highest_posterior_wins_and_ties_go_to_the_first_shown() {
        let d = decide(&r(&[("A", 2), ("B", 9), ("C", 4)]), Format::Single, false);
        assert_eq!(d.choice, ["B"]);
        let sum: f64 = d.options.iter().map(|o| o.posterior).sum();
        assert!((sum - 1.0).abs() < 1e-12);
        assert!((d.options[1].likelihood - 9.5 / 11.0).abs() < 1e-12);
        assert_eq!(d.method, "rating");
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
        let back = LimpRecord::from_reply(&reply).unwrap();
        assert_eq!(
            (&back.method, back.least, &back.choice),
            (&d.method, d.least, &d.choice)
        );
        for (b, o) in back.options.iter().zip(&d.options) {
            assert_eq!((&b.label, b.rating), (&o.label, o.rating));
            assert!((b.likelihood - o.likelihood).abs() < 1e-12);
            assert!((b.posterior - o.posterior).abs() < 1e-12);
        }
        assert_eq!(LimpRecord::from_reply("[[B]]"), None);
        assert_eq!(model_of("limp:gpt"), Some("gpt"));
        assert_eq!(model_of("limp:"), None);
        assert_eq!(model_of("gpt"), None);
    }
}
