//! The answer parser. Subjects ramble, quote the options back, or forget the brackets;
//! the parser finds the answer when the reply states one and otherwise says so. It never
//! fails: an answer it cannot read is [`Parsed::Unparseable`], kept verbatim and scored
//! wrong.

use serde::{Deserialize, Serialize};

use crate::trees::schema::Format;

/// What an answer says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum Parsed {
    /// Chosen option labels, deduplicated, in the order of the question's options.
    Choice(Vec<String>),
    /// The text of an open answer.
    Open(String),
    /// No answer could be read.
    Unparseable,
}

/// Parses `reply` for a question of `format` whose options carry `labels`.
pub fn parse_answer(format: Format, labels: &[&str], reply: &str) -> Parsed {
    match format {
        Format::Open => parse_open(reply),
        Format::Single | Format::Multi => parse_choice(labels, reply),
    }
}

fn parse_open(reply: &str) -> Parsed {
    let text = match last_bracketed(reply) {
        Some(inner) => inner,
        None => strip_answer_prefix(reply.trim()),
    };
    let text = text.trim();
    if text.is_empty() {
        Parsed::Unparseable
    } else {
        Parsed::Open(text.to_string())
    }
}

fn parse_choice(labels: &[&str], reply: &str) -> Parsed {
    // The requested form wins; when it is present but does not name options, the reply
    // is unparseable rather than guessed at from the surrounding prose.
    if let Some(inner) = last_bracketed(reply) {
        return label_list(labels, inner).map_or(Parsed::Unparseable, Parsed::Choice);
    }
    let trimmed = reply.trim();
    if let Some(found) = label_list(labels, trimmed) {
        return Parsed::Choice(found);
    }
    if let Some(after) = after_answer_keyword(trimmed) {
        if let Some(found) = label_list(labels, first_clause(after)) {
            return Parsed::Choice(found);
        }
    }
    // "B) She wants to leave town" or "B. She wants …": the option quoted back.
    let first_line = trimmed.lines().next().unwrap_or("");
    for label in labels {
        if let Some(rest) = strip_prefix_ci(first_line, label) {
            if rest.starts_with([')', '.', ':']) {
                return Parsed::Choice(vec![label.to_string()]);
            }
        }
    }
    Parsed::Unparseable
}

/// The content of the last `[[…]]` in the reply.
fn last_bracketed(reply: &str) -> Option<&str> {
    let start = reply.rfind("[[")?;
    let rest = &reply[start + 2..];
    let end = rest.find("]]")?;
    Some(&rest[..end])
}

/// Reads `text` as a list of option labels ("A", "a, c", "(B)", "A and C", "Option B").
/// `None` when any item is not a label or nothing is named.
fn label_list(labels: &[&str], text: &str) -> Option<Vec<String>> {
    let mut chosen = vec![false; labels.len()];
    let mut any = false;
    for raw in text.split(|c: char| c == ',' || c == ';' || c == '/' || c.is_whitespace()) {
        let item = raw.trim_matches(|c: char| !c.is_alphanumeric());
        if item.is_empty()
            || item.eq_ignore_ascii_case("and")
            || item.eq_ignore_ascii_case("option")
            || item.eq_ignore_ascii_case("options")
        {
            continue;
        }
        let index = labels.iter().position(|l| l.eq_ignore_ascii_case(item))?;
        chosen[index] = true;
        any = true;
    }
    any.then(|| {
        labels
            .iter()
            .zip(chosen)
            .filter(|(_, c)| *c)
            .map(|(l, _)| l.to_string())
            .collect()
    })
}

/// The text after the last "answer is", "answer:" or "answers are" (any case).
fn after_answer_keyword(text: &str) -> Option<&str> {
    let lower = text.to_ascii_lowercase();
    let at = lower.rfind("answer")?;
    let mut rest = &text[at + "answer".len()..];
    for filler in ["s", " is", " are", ":", " -", " would be"] {
        if let Some(r) = strip_prefix_ci(rest, filler) {
            rest = r;
        }
    }
    Some(rest.trim_start())
}

/// Up to the first sentence end or line break.
fn first_clause(text: &str) -> &str {
    let end = text
        .char_indices()
        .find(|&(i, c)| {
            c == '\n' || (c == '.' && !text[i + 1..].starts_with(char::is_alphanumeric))
        })
        .map_or(text.len(), |(i, _)| i);
    &text[..end]
}

fn strip_answer_prefix(text: &str) -> &str {
    for prefix in ["final answer:", "answer:"] {
        if let Some(rest) = strip_prefix_ci(text, prefix) {
            return rest;
        }
    }
    text
}

fn strip_prefix_ci<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
}

#[cfg(test)]
mod tests {
    use super::*;

    const ABCD: &[&str] = &["A", "B", "C", "D"];

    fn choice(items: &[&str]) -> Parsed {
        Parsed::Choice(items.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn the_requested_form_is_read() {
        assert_eq!(parse_answer(Format::Single, ABCD, "[[B]]"), choice(&["B"]));
        assert_eq!(
            parse_answer(Format::Multi, ABCD, "Both hold. [[C, a]]"),
            choice(&["A", "C"])
        );
        assert_eq!(
            parse_answer(Format::Multi, ABCD, "[[A and D]]"),
            choice(&["A", "D"])
        );
        // The last bracketed answer is the final one.
        assert_eq!(
            parse_answer(Format::Single, ABCD, "First [[A]]… no, [[D]]"),
            choice(&["D"])
        );
    }

    #[test]
    fn common_deviations_are_read() {
        assert_eq!(parse_answer(Format::Single, ABCD, " b "), choice(&["B"]));
        assert_eq!(parse_answer(Format::Single, ABCD, "(C)"), choice(&["C"]));
        assert_eq!(
            parse_answer(
                Format::Single,
                ABCD,
                "Mara hid it because of June.\nThe answer is C. She lied."
            ),
            choice(&["C"])
        );
        assert_eq!(
            parse_answer(Format::Multi, ABCD, "Answer: A, B"),
            choice(&["A", "B"])
        );
        assert_eq!(
            parse_answer(Format::Single, ABCD, "B) She wants to leave town"),
            choice(&["B"])
        );
        assert_eq!(
            parse_answer(Format::Single, ABCD, "Option D"),
            choice(&["D"])
        );
    }

    #[test]
    fn unreadable_answers_are_unparseable() {
        for reply in [
            "",
            "I cannot tell from the excerpt.",
            "[[E]]",
            "[[]]",
            "[[A, maybe]]",
            "Because she is afraid.",
        ] {
            assert_eq!(
                parse_answer(Format::Single, ABCD, reply),
                Parsed::Unparseable,
                "{reply:?}"
            );
        }
    }

    #[test]
    fn open_answers_take_the_bracketed_text_or_the_reply() {
        assert_eq!(
            parse_answer(Format::Open, &[], "I think [[ Quinton told her. ]]"),
            Parsed::Open("Quinton told her.".into())
        );
        assert_eq!(
            parse_answer(Format::Open, &[], "Answer: she was afraid"),
            Parsed::Open("she was afraid".into())
        );
        assert_eq!(
            parse_answer(Format::Open, &[], "  \n "),
            Parsed::Unparseable
        );
        assert_eq!(
            parse_answer(Format::Open, &[], "[[ ]]"),
            Parsed::Unparseable
        );
    }

    #[test]
    fn parsing_never_panics_on_odd_text() {
        for reply in [
            "[[",
            "]]",
            "[[A",
            "answer",
            "Answer is",
            "é[[ß]]",
            "ANSWER: ü",
            "A)",
        ] {
            let _ = parse_answer(Format::Multi, ABCD, reply);
            let _ = parse_answer(Format::Open, &[], reply);
        }
        assert_eq!(parse_answer(Format::Single, ABCD, "A)"), choice(&["A"]));
    }
}
