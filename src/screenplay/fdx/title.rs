//! Title-page fields for FDX, whose title page is free text with no keys.
//!
//! Final Draft's title page is a list of paragraphs laid out by hand (blank
//! paragraphs for vertical space, tabs to put two things on one line). The
//! keys Fountain writes out (`Title:`, `Credit:`, …) are inferred from the
//! conventional order and wording, over the non-empty paragraphs in order:
//!
//! 1. the first one is the `title`; the ones right after it with the same
//!    alignment (usually centered) continue it (`Pilot: "The Power Betas"`);
//! 2. `based on …`, `adapted from …`, `from the novel …` is the `source`;
//! 3. `by`, `written by`, `screenplay by`, … is the `credit`, and the next
//!    paragraph is the `author` (`by Jane Doe` on one line gives both);
//! 4. `©`, `(c)`, `copyright …` is the `copyright`;
//! 5. a date (`March 17, 2021`, `3/17/21`, a year) or a draft name (`First
//!    Draft`, `2ND REVISED NETWORK DRAFT`) is the `draft date`;
//! 6. prose (eight words or more) and note headings (`WRITERS' NOTE`) are
//!    `notes`, the key Fountain title pages use for such text (Big Fish's);
//! 7. everything else is `contact`. A line that tabs put in two cells
//!    (`Agent - CAA⇥First Draft`) is split when one cell is a date or draft.
//!
//! Paragraphs with the same key are one field, values joined with `\n` in
//! order, so each key appears once, as in Fountain. Nothing is dropped: a
//! cast page's short lines (`THE GUYS`) land in `contact` for want of a
//! better key.

use super::super::element::{Element, ElementKind, LineSpan};
use crate::screenplay::title::is_month_word;

/// A title-page paragraph's horizontal alignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Align {
    /// `Left`, or none given.
    Left,
    /// `Center`.
    Center,
    /// `Right`.
    Right,
    /// `Full` (justified) or anything else.
    Other,
}

impl Align {
    /// From a paragraph's `Alignment` attribute.
    pub(super) fn from_attr(value: Option<String>) -> Align {
        match value.as_deref().map(str::to_ascii_lowercase).as_deref() {
            None | Some("left") | Some("") => Align::Left,
            Some("center") => Align::Center,
            Some("right") => Align::Right,
            Some(_) => Align::Other,
        }
    }
}

/// One non-empty title-page paragraph.
pub(super) struct TitleLine {
    /// Its text, tidied (tabs kept: they separate cells).
    pub text: String,
    /// Its XML lines.
    pub lines: LineSpan,
    /// Its alignment.
    pub align: Align,
}

/// Title elements, one per key in order of first appearance.
pub(super) fn title_elements(lines: &[TitleLine]) -> Vec<Element> {
    let mut fields: Vec<Element> = Vec::new();
    let mut add = |key: &str, text: &str, span: LineSpan| {
        let text = collapse_tabs(text);
        if text.is_empty() {
            return;
        }
        match fields.iter_mut().find(|f| f.key.as_deref() == Some(key)) {
            Some(field) => {
                field.text.push('\n');
                field.text.push_str(&text);
                field.lines = LineSpan::new(
                    field.lines.first.min(span.first),
                    field.lines.last.max(span.last),
                );
            }
            None => {
                let mut field = Element::new(ElementKind::Title, text, span);
                field.key = Some(key.to_string());
                fields.push(field);
            }
        }
    };

    let mut title_align = None;
    let mut in_title = false;
    let mut expect_author = false;
    for line in lines {
        let text = line.text.as_str();
        let span = line.lines;
        if title_align.is_none() {
            title_align = Some(line.align);
            in_title = true;
            add("title", text, span);
            continue;
        }
        if is_source(text) {
            in_title = false;
            add("source", text, span);
            continue;
        }
        if let Some((credit, author)) = split_credit(text) {
            in_title = false;
            add("credit", credit, span);
            if author.is_empty() {
                expect_author = true;
            } else {
                add("author", author, span);
            }
            continue;
        }
        if expect_author {
            expect_author = false;
            add("author", text, span);
            continue;
        }
        if is_copyright(text) {
            in_title = false;
            add("copyright", text, span);
            continue;
        }
        if in_title && Some(line.align) == title_align && !is_dated(text) {
            add("title", text, span);
            continue;
        }
        in_title = false;
        let cells: Vec<&str> = text
            .split('\t')
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .collect();
        if cells.len() > 1 && cells.iter().any(|c| is_dated(c)) {
            for cell in cells {
                add(
                    if is_dated(cell) {
                        "draft date"
                    } else {
                        "contact"
                    },
                    cell,
                    span,
                );
            }
        } else if is_dated(text) {
            add("draft date", text, span);
        } else if is_notes(text) {
            add("notes", text, span);
        } else {
            add("contact", text, span);
        }
    }
    fields
}

/// Runs of tabs become one space: they are layout, not text.
fn collapse_tabs(text: &str) -> String {
    if !text.contains('\t') {
        return text.trim().to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut in_tabs = false;
    for c in text.chars() {
        if c == '\t' {
            if !in_tabs {
                out.push(' ');
            }
            in_tabs = true;
        } else {
            in_tabs = false;
            out.push(c);
        }
    }
    out.trim().to_string()
}

/// Words, lower case, with surrounding punctuation dropped.
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric() && c != '&')
                .to_ascii_lowercase()
        })
        .filter(|w| !w.is_empty())
}

fn is_source(text: &str) -> bool {
    let lower = text.trim_start().to_ascii_lowercase();
    [
        "based on",
        "based upon",
        "adapted from",
        "inspired by",
        "from the novel",
        "from the book",
        "from the play",
        "from the short story",
        "from the story",
    ]
    .iter()
    .any(|p| lower.starts_with(p))
}

/// Prose, or a heading that announces notes: not an address.
fn is_notes(text: &str) -> bool {
    let mut count = 0;
    for word in words(text) {
        if matches!(word.as_str(), "note" | "notes") {
            return true;
        }
        count += 1;
    }
    count >= 8
}

fn is_copyright(text: &str) -> bool {
    let lower = text.trim_start().to_ascii_lowercase();
    lower.starts_with('©') || lower.starts_with("(c)") || lower.starts_with("copyright")
}

/// Words that may stand before `by` in a credit (`written and directed by`).
const CREDIT_WORDS: &[&str] = &[
    "written",
    "screenplay",
    "teleplay",
    "story",
    "directed",
    "created",
    "developed",
    "script",
    "original",
    "screen",
    "and",
    "&",
    "+",
];

/// `(credit, author)` when `text` is a credit line: `by`, `Written by`, or
/// `by Jane Doe` (author after the credit on the same line).
fn split_credit(text: &str) -> Option<(&str, &str)> {
    let text = text.trim();
    for (i, word) in text.split_whitespace().enumerate() {
        let bare = word.trim_end_matches(':');
        if bare.eq_ignore_ascii_case("by") {
            // `word` is a slice of `text`, so its offset is exact.
            let end = word.as_ptr() as usize - text.as_ptr() as usize + word.len();
            return Some((&text[..end], text[end..].trim()));
        }
        if i >= 4 || !CREDIT_WORDS.iter().any(|w| bare.eq_ignore_ascii_case(w)) {
            return None;
        }
    }
    None
}

/// A date, a year, or the name of a draft: what goes under `draft date`.
fn is_dated(text: &str) -> bool {
    let words: Vec<String> = words(text).collect();
    if words.iter().any(|w| {
        matches!(
            w.as_str(),
            "draft" | "drafts" | "revision" | "revisions" | "revised"
        )
    }) {
        return true;
    }
    if !text.bytes().any(|b| b.is_ascii_digit()) {
        return false;
    }
    if words.iter().any(|w| is_month_word(w)) {
        return true;
    }
    if words.iter().any(|w| is_numeric_date(w)) {
        return true;
    }
    // A short line with a year in it: `Spring 2021`, `2003`.
    words.len() <= 4
        && words
            .iter()
            .any(|w| w.len() == 4 && w.parse::<u32>().is_ok_and(|y| (1900..2100).contains(&y)))
}

/// `3/17/21`, `17.03.2021`, `2021-03-17`: three numbers, one separator.
fn is_numeric_date(word: &str) -> bool {
    let Some(sep) = word.chars().find(|c| matches!(c, '/' | '.' | '-')) else {
        return false;
    };
    let parts: Vec<&str> = word.split(sep).collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|p| (1..=4).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit()))
        && parts[1].len() <= 2
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str, n: usize, align: Align) -> TitleLine {
        TitleLine {
            text: text.to_string(),
            lines: LineSpan::line(n),
            align,
        }
    }

    fn fields(lines: &[TitleLine]) -> Vec<(String, String)> {
        title_elements(lines)
            .into_iter()
            .map(|e| (e.key.unwrap(), e.text))
            .collect()
    }

    fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter()
            .map(|(k, t)| (k.to_string(), t.to_string()))
            .collect()
    }

    #[test]
    fn conventional_title_page() {
        use Align::*;
        let got = fields(&[
            line("BIG FISH", 1, Center),
            line("written by", 2, Center),
            line("John August", 3, Center),
            line("based on the novel by Daniel Wallace", 4, Center),
            line("FINAL PRODUCTION DRAFT", 5, Right),
            line("(c) 2003 Columbia Pictures", 6, Left),
            line("Agent Name\nAgency\n310-555-0100", 7, Left),
        ]);
        assert_eq!(
            got,
            pairs(&[
                ("title", "BIG FISH"),
                ("credit", "written by"),
                ("author", "John August"),
                ("source", "based on the novel by Daniel Wallace"),
                ("draft date", "FINAL PRODUCTION DRAFT"),
                ("copyright", "(c) 2003 Columbia Pictures"),
                ("contact", "Agent Name\nAgency\n310-555-0100"),
            ])
        );
    }

    #[test]
    fn title_continues_and_tabbed_cells_split() {
        use Align::*;
        let got = fields(&[
            line("GUY TEXT", 1, Center),
            line("Pilot: \"The Power Betas\"", 2, Center),
            line("by Aaron Brownstein", 3, Center),
            line("Katz/Brooks - CAA\tFirst Draft", 4, Other),
            line("Perlin/Kanter\t\tMarch 17, 2021", 5, Left),
            line("ALAN\t\tLate 30s, anxious.", 6, Left),
            line("WRITERS' NOTE", 7, Left),
            line(
                "This screenplay is not based on any specific person.",
                8,
                Left,
            ),
        ]);
        assert_eq!(
            got,
            pairs(&[
                ("title", "GUY TEXT\nPilot: \"The Power Betas\""),
                ("credit", "by"),
                ("author", "Aaron Brownstein"),
                (
                    "contact",
                    "Katz/Brooks - CAA\nPerlin/Kanter\nALAN Late 30s, anxious."
                ),
                ("draft date", "First Draft\nMarch 17, 2021"),
                (
                    "notes",
                    "WRITERS' NOTE\nThis screenplay is not based on any specific person."
                ),
            ])
        );
    }

    #[test]
    fn dates_and_credits() {
        assert!(is_dated("February 6th, 2022"));
        assert!(is_dated("3/17/21"));
        assert!(is_dated("2021-03-17"));
        assert!(is_dated("Spring 2021"));
        assert!(is_dated("2ND REVISED NETWORK DRAFT"));
        assert!(!is_dated("310-555-0100"));
        assert!(!is_dated("May I come in?"));
        assert!(!is_dated("123 Main Street, Springfield 90210"));
        assert_eq!(split_credit("Written by"), Some(("Written by", "")));
        assert_eq!(
            split_credit("Screenplay by: Jo"),
            Some(("Screenplay by:", "Jo"))
        );
        assert_eq!(split_credit("Stand By Me"), None);
        assert_eq!(split_credit("based on the novel by X"), None);
    }
}
