//! What the subject sees: a running conversation of system, user and assistant turns.
//!
//! A user turn carries one question with its context excerpt, its options with their
//! letters, and the answer format; in phase 2 it opens with the counterfactual premise.
//! Keyframes travel beside the text as image paths (at most [`MAX_IMAGES`]), never
//! inside it, so a text-only run differs only in the images.

use serde::{Deserialize, Serialize};

use crate::trees::schema::{Format, Node, Tree};

/// Most keyframes sent with one question (docs/trees-format.md).
pub const MAX_IMAGES: usize = 5;

/// Who speaks a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Instructions for the whole conversation.
    System,
    /// A question.
    User,
    /// The subject's answer, verbatim.
    Assistant,
}

/// One turn of the conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// Who speaks.
    pub role: Role,
    /// The text.
    pub text: String,
    /// Keyframe paths (workspace-relative) shown with this turn, for multimodal subjects.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<String>,
}

impl Message {
    /// A text-only turn.
    pub fn text(role: Role, text: impl Into<String>) -> Message {
        Message {
            role,
            text: text.into(),
            images: Vec::new(),
        }
    }
}

/// The system prompt that opens every tree's conversation.
pub const SYSTEM_PROMPT: &str = "You are answering questions about a film. Each question comes \
with an excerpt of the screenplay and sometimes keyframes from the film. The questions about one \
story form a chain: later questions may build on earlier answers. Some questions are thought \
experiments that ask you to assume a previous answer; accept the assumption and answer the \
question. Always end your reply with the answer in the format the question asks for.";

/// Which phase a question is asked in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Phase {
    /// The dynamic path chosen by the subject's own answers.
    Path,
    /// Forced exploration under a counterfactual premise.
    Counterfactual,
}

impl Phase {
    /// 1 or 2, as stored and reported.
    pub fn number(self) -> u8 {
        match self {
            Phase::Path => 1,
            Phase::Counterfactual => 2,
        }
    }

    /// The phase with this number.
    pub fn from_number(n: u8) -> Option<Phase> {
        match n {
            1 => Some(Phase::Path),
            2 => Some(Phase::Counterfactual),
            _ => None,
        }
    }
}

/// The answer-format instruction for a question of this format.
pub fn format_instruction(format: Format) -> &'static str {
    match format {
        Format::Single => {
            "Answer with exactly one letter in double square brackets, for example [[B]]."
        }
        Format::Multi => {
            "One or more options are correct. Answer with every correct letter in double square \
             brackets, separated by commas, for example [[A, C]]."
        }
        Format::Open => {
            "Answer in one short sentence in double square brackets, for example \
             [[She believes the key is lost.]]"
        }
    }
}

/// Renders the user turn that asks `node`: premise (phase 2), context, question,
/// options, format. Keyframes are attached unless `text_only`.
pub fn render_question(tree: &Tree, node: &Node, phase: Phase, text_only: bool) -> Message {
    let mut text = String::new();
    if phase == Phase::Counterfactual {
        if let Some(lead) = tree.counterfactual_lead(node) {
            text.push_str(&lead);
            text.push_str("\n\n");
        }
    }
    let excerpt = node.context.excerpt.trim();
    if !excerpt.is_empty() {
        text.push_str(tree.context_heading());
        text.push_str(":\n");
        text.push_str(excerpt);
        text.push_str("\n\n");
    }
    let images: Vec<String> = if text_only {
        Vec::new()
    } else {
        node.context
            .keyframes
            .iter()
            .take(MAX_IMAGES)
            .cloned()
            .collect()
    };
    if !images.is_empty() {
        text.push_str(&format!(
            "{} keyframe{} from the film {} attached.\n\n",
            images.len(),
            if images.len() == 1 { "" } else { "s" },
            if images.len() == 1 { "is" } else { "are" }
        ));
    }
    text.push_str("Question: ");
    text.push_str(node.question.trim());
    text.push('\n');
    for option in &node.options {
        text.push_str(&format!("{}. {}\n", option.label, option.text.trim()));
    }
    text.push('\n');
    text.push_str(format_instruction(node.format));
    Message {
        role: Role::User,
        text,
        images,
    }
}

/// What a person reads of a user turn [`render_question`] wrote: its lead
/// (premise, excerpt, keyframe note) and the question, then how to answer in
/// words for people. The lettered options are left out (a walker shows them
/// as choices), and so is the answer-format instruction written for models
/// (double square brackets, an example answer).
pub fn for_people(user_turn: &str, question: &str, format: Format) -> String {
    let lead = match user_turn.rfind("Question: ") {
        Some(at) if at == 0 || user_turn[..at].ends_with('\n') => &user_turn[..at],
        _ => "",
    };
    let how = match format {
        Format::Single => "Choose the one answer that is right.",
        Format::Multi => "One or more answers are right: choose every one that is.",
        Format::Open => "Answer in a short sentence of your own.",
    };
    format!("{lead}Question: {}\n\n{how}", question.trim())
}

/// The judge's fixed rubric (asked at temperature 0 by the model layer).
pub const JUDGE_RUBRIC: &str = "You grade a short answer to a question about a film against a \
reference answer. Judge meaning, not wording. Score 1.0 when the answer states the same \
mental state, cause or event as the reference; 0.5 when it is partly right (the right \
character or event but an incomplete or imprecise reason); 0.0 when it is wrong, \
contradicts the reference, or does not answer. Reply with the score only, in double square \
brackets, for example [[0.5]].";

/// The judge's user turn for one open answer.
pub fn render_judge_prompt(question: &str, reference: &str, answer: &str) -> Vec<Message> {
    vec![
        Message::text(Role::System, JUDGE_RUBRIC),
        Message::text(
            Role::User,
            format!(
                "Question: {}\nReference answer: {}\nAnswer to grade: {}",
                question.trim(),
                reference.trim(),
                answer.trim()
            ),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn people_read_the_lead_and_the_question_without_options_or_the_model_s_format() {
        // An excerpt line that itself says `Question: ` stays in the lead.
        let turn = "Thought experiment. Assuming X.\n\nScreenplay excerpt:\nQuestion: who?\n\n\
                    Question: Why does Mara lie?\nA. Fear\nB. Love\n\n\
                    Answer with exactly one letter in double square brackets, for example [[B]].";
        let text = for_people(turn, "Why does Mara lie?", Format::Single);
        assert_eq!(
            text,
            "Thought experiment. Assuming X.\n\nScreenplay excerpt:\nQuestion: who?\n\n\
             Question: Why does Mara lie?\n\nChoose the one answer that is right."
        );
        assert!(!text.contains("[[") && !text.contains("A. Fear"));
    }
}
