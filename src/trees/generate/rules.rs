//! The `rules` question writer: fixed templates over the judged answers of a
//! [`Spec`]. Deterministic and offline; a baseline, not a stylist.

use crate::graph::NodeKind;

use super::{QuestionWriter, Spec, WriteError, Written, WrittenOption};
use crate::trees::facts::{attitude_noun, Ask, Facts, Verdict};
use crate::trees::schema::Format;

/// Template-based writer (the offline default).
#[derive(Debug, Clone, Copy, Default)]
pub struct RulesWriter;

impl QuestionWriter for RulesWriter {
    fn name(&self) -> String {
        "rules".into()
    }

    fn write(&self, f: &Facts<'_>, spec: &Spec, _excerpt: &str) -> Result<Written, WriteError> {
        let question = question(f, spec).ok_or_else(|| {
            WriteError::Rejected("no template words this question without naming the answer".into())
        })?;
        let options = spec
            .candidates
            .iter()
            .enumerate()
            .map(|(k, c)| WrittenOption {
                candidate: k,
                text: c.text.clone(),
                correct: c.verdict == Verdict::Gold,
                reason: match c.verdict {
                    Verdict::Wrong(r) => Some(r),
                    _ => None,
                },
            })
            .collect();
        let reference = (spec.format == Format::Open)
            .then(|| join_and(spec.golds().map(|c| c.text.as_str()).collect()));
        Ok(Written {
            question,
            options,
            reference,
        })
    }
}

/// The question text of a spec, or `None` when the wording would give the answer away.
pub fn question(f: &Facts<'_>, spec: &Spec) -> Option<String> {
    let multi = spec.format == Format::Multi;
    let all = if multi {
        " Choose every one that applies."
    } else {
        ""
    };
    let q = match spec.ask {
        Ask::Origin { end } => {
            if multi {
                format!(
                    "Which of these moments led, step by step, to this: {}?{all}",
                    f.gloss(end)
                )
            } else {
                format!(
                    "Which earlier moment ultimately set this in motion: {}?",
                    f.gloss(end)
                )
            }
        }
        Ask::Cause { target } => match f.node(target).kind {
            NodeKind::MentalState => {
                let holder = f
                    .holder(target)
                    .map_or("the character", |h| f.first_name(h));
                format!(
                    "Why does {holder} come to this {}: {}?{all}",
                    attitude_noun(f.node(target).attitude),
                    f.gloss(target)
                )
            }
            _ => format!(
                "What was the main reason for this: {}?{all}",
                f.gloss(target)
            ),
        },
        Ask::Effect { source } => match f.node(source).kind {
            NodeKind::MentalState => {
                let holder = f
                    .holder(source)
                    .map_or("the character", |h| f.first_name(h));
                format!(
                    "What does {holder}'s {} lead to: {}?{all}",
                    attitude_noun(f.node(source).attitude),
                    f.gloss(source)
                )
            }
            _ => format!("What did this lead to: {}?{all}", f.gloss(source)),
        },
        Ask::Participants { event } => {
            let quote = f.quote(event)?;
            // A speech act's participants are its speaker and whom it is said
            // to: "involved" also fit one who overhears it or is talked about
            // ("Not yet. He's my brother" offered Quinton as not involved).
            let spoken = f
                .node(event)
                .act
                .is_some_and(|a| a != crate::graph::Act::Action);
            format!(
                "{}: “{}”?{}",
                if spoken {
                    "Who takes part in this exchange, saying it or being told it"
                } else {
                    "Who is involved in the moment of this line"
                },
                quote.trim_matches(['“', '”']),
                if multi {
                    " Choose everyone who is."
                } else {
                    ""
                }
            )
        }
        Ask::Holder { state } => {
            // "Who suspects he didn't?" cannot be read alone: a pronoun needs
            // the sentence it stands for.
            let rest = f.without_holder(state)?;
            if has_pronoun(&rest) {
                return None;
            }
            format!("Who {rest}?")
        }
        Ask::Order { .. } => "Which of these happens first in the film?".to_owned(),
        Ask::MindBefore { character, moment } => {
            let who = f.first_name(character);
            let when = f.when(moment);
            if spec.format == Format::Open {
                format!("{when}, what is on {who}'s mind?")
            } else {
                format!("{when}, which of these is on {who}'s mind?{all}")
            }
        }
        Ask::KnowsAt { character, moment } => {
            let who = f.first_name(character);
            let when = f.when(moment);
            if spec.format == Format::Open {
                format!("{when}, what does {who} know for certain (not merely believe) that bears on it?")
            } else {
                format!(
                    "{when}, which of these does {who} actually know, rather than wrongly believe or not know at all?{all}"
                )
            }
        }
        Ask::FalseBelief { character, moment } => {
            let who = f.first_name(character);
            let when = f.when(moment);
            if spec.format == Format::Open {
                format!("{when}, what does {who} believe that is not true?")
            } else {
                format!("{when}, which of these does {who} believe although it is not true?{all}")
            }
        }
        Ask::NoLonger { character, moment } => {
            let who = f.first_name(character);
            let when = f.when(moment);
            if spec.format == Format::Open {
                format!("{when}, what has {who} stopped believing, wanting or feeling since earlier in the film?")
            } else {
                format!(
                    "{when}, which of these held for {who} earlier in the film but no longer does?{all}"
                )
            }
        }
    };
    let mut q = q.replace(".?", "?").replace(".”?", "”?");
    // At most one colon: any after the first (inside a quote) become commas.
    if let Some(first) = q.find(':') {
        let (head, tail) = q.split_at(first + 1);
        q = format!("{head}{}", tail.replace(':', ","));
    }
    // Never name a gold character or quote a gold answer in the question.
    let lower = q.to_lowercase();
    for c in spec.golds() {
        let named = match c.node {
            Some(n) if f.node(n).kind == NodeKind::Character => f.first_name(n).to_lowercase(),
            _ => c.text.trim().to_lowercase(),
        };
        if named.len() > 2 && contains_word(&lower, &named) {
            return None;
        }
    }
    Some(q)
}

/// Whether a text has a third-person pronoun (its referent is elsewhere).
fn has_pronoun(text: &str) -> bool {
    text.split(|c: char| !c.is_alphanumeric() && c != '\'')
        .any(|w| {
            matches!(
                w.to_lowercase().as_str(),
                "he" | "she" | "him" | "her" | "they" | "them" | "it" | "his" | "hers" | "their"
            )
        })
}

fn contains_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// "A", "A and B", "A, B and C".
fn join_and(items: Vec<&str>) -> String {
    match items.split_last() {
        None => String::new(),
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}
