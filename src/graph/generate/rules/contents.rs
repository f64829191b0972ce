//! A state's content as text: the clause a quote covers, an elided clause
//! completed, and whether a content names anything at all or only points
//! back (`it`, `what it means`).

use super::lexicon::ANAPHORS;
use crate::graph::schema::{Attitude, Node, NodeKind};
use crate::text::content_words;
use crate::text::spans::{char_slice, Span};

/// An elided clause's words with the phrase it means after them, its
/// he/she replaced by the person the parallel clause names.
pub(super) fn with_elided(content: &str, subject: Option<&str>, phrase: &str) -> String {
    let content = match subject {
        Some(name) => match content.split_once(' ') {
            Some((_, rest)) => format!("{name} {rest}"),
            None => name.to_owned(),
        },
        None => content.to_owned(),
    };
    format!("{content} {phrase}")
}

/// Words `[a, b)` of a sentence as written, trimmed of end punctuation.
pub(super) fn clause_text(s: &Span, ws: &[Span], a: usize, b: usize) -> String {
    if a >= b {
        return String::new();
    }
    trim_clause(&char_slice(
        &s.text,
        ws[a].start - s.start,
        ws[b - 1].end - s.start,
    ))
}

pub(super) fn trim_clause(text: &str) -> String {
    text.trim()
        .trim_start_matches([':', ',', '-', '—'])
        .trim_end_matches(['.', '!', '?', ',', ';', ':'])
        .trim()
        .to_owned()
}

/// Stubs of negated auxiliaries, which name nothing alone.
const STUBS: &[&str] = &[
    "doesn", "didn", "isn", "wasn", "won", "can", "don", "aren", "weren", "hasn", "haven", "hadn",
    "wouldn", "couldn", "shouldn",
];
/// Words that point or quantify but name nothing (`now, all of it`).
const LIGHT: &[&str] = &[
    "now",
    "all",
    "then",
    "here",
    "there",
    "just",
    "even",
    "still",
    "really",
    "everything",
    "anything",
    "something",
    "every",
    "one",
    "way",
    "thing",
    "things",
    "what",
    "when",
    "how",
    "why",
    "where",
    "who",
    "which",
    "whatever",
    "about",
    "more",
    "any",
    "some",
];

/// Whether a content names something: a content word that is not the stub
/// of a negated auxiliary (`he didn't` says nothing on its own) nor a word
/// that only points or quantifies.
pub(super) fn has_content(content: &str) -> bool {
    content_words(content)
        .iter()
        .any(|w| !STUBS.contains(&w.as_str()) && !LIGHT.contains(&w.as_str()))
}

/// Whether a mental state's content reads alone: it names something (see
/// [`has_content`]) and does not open on a he, she or they left unresolved
/// (`He won't ring`, `they think they can steal` are not emitted). An
/// emotion's content, and any other node, always reads.
pub(super) fn readable(node: &Node) -> bool {
    if node.kind != NodeKind::MentalState || node.attitude == Some(Attitude::Emotion) {
        return true;
    }
    let Some(content) = node.content.as_deref() else {
        return true;
    };
    let named = content_words(content)
        .into_iter()
        .filter(|w| !STUBS.contains(&w.as_str()) && !LIGHT.contains(&w.as_str()))
        .count();
    let first = content
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .find(|w| !w.is_empty())
        .map(str::to_lowercase);
    let opens_unresolved = matches!(
        first.as_deref(),
        Some(
            "he" | "she"
                | "they"
                | "him"
                | "her"
                | "them"
                | "he's"
                | "she's"
                | "they're"
                | "he'll"
                | "she'll"
                | "they'll"
                | "he'd"
                | "she'd"
                | "they'd"
        )
    );
    named >= 1 && !opens_unresolved && !idiom(content)
}

/// Whether a content is the object of an idiom, not a proposition: `thought
/// nothing of it`, `thinks the world of her`, `thinks little of them`.
fn idiom(content: &str) -> bool {
    let lower = content.to_lowercase();
    [
        "nothing of ",
        "little of ",
        "the world of ",
        "much of ",
        "better of ",
        "twice",
    ]
    .iter()
    .any(|p| lower.starts_with(p))
}

/// Whether a content only asks what the thing just shown means (`what it
/// means`, `what that meant`).
pub(super) fn points_back(content: &str) -> bool {
    let ws: Vec<String> = content
        .split_whitespace()
        .map(|w| {
            w.to_lowercase()
                .trim_matches(|c: char| !c.is_alphanumeric())
                .to_owned()
        })
        .collect();
    matches!(
        ws.iter().map(String::as_str).collect::<Vec<_>>().as_slice(),
        [
            "what",
            "it" | "this" | "that",
            "means" | "meant" | "is" | "was"
        ]
    )
}

/// Whether a content is only a word pointing back (`it`, `so`, `this`) or
/// nothing at all.
pub(super) fn is_anaphor(content: &str) -> bool {
    let ws: Vec<String> = content
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    ws.is_empty() || (ws.len() == 1 && ANAPHORS.contains(&ws[0].as_str()))
}
