//! Paragraph types and text: what a Final Draft paragraph `Type` becomes, and
//! how its text is tidied into an element's.

use crate::screenplay::element::ElementKind;

/// The element kind of a paragraph `Type` (matched without regard to case),
/// and whether the type is a known screenplay element. Unknown and missing
/// types are action: in Final Draft every paragraph is printed text, so
/// dropping one would lose script.
pub(super) fn paragraph_kind(kind: Option<&str>, centered: bool) -> (ElementKind, bool) {
    let action = if centered {
        ElementKind::Centered
    } else {
        ElementKind::Action
    };
    let Some(kind) = kind else {
        return (action, false);
    };
    let is = |name: &str| kind.eq_ignore_ascii_case(name);
    let mapped = if is("Scene Heading") {
        ElementKind::SceneHeading
    } else if is("Action") || is("General") {
        action
    } else if is("Character") {
        ElementKind::Character
    } else if is("Dialogue") {
        ElementKind::Dialogue
    } else if is("Parenthetical") {
        ElementKind::Parenthetical
    } else if is("Transition") {
        ElementKind::Transition
    } else if is("Shot") {
        ElementKind::Shot
    } else if is("New Act") || is("End of Act") || is("Act Break") || is("Cold Opening") {
        ElementKind::Centered
    } else if is("Lyric") || is("Lyrics") || is("Singing") {
        ElementKind::Lyric
    } else {
        return (action, false);
    };
    (mapped, true)
}

/// Paragraph text as an element holds it: line breaks as `\n`, each line's
/// trailing blanks dropped, the whole trimmed.
pub(super) fn tidy(raw: &str) -> String {
    if !raw.contains(['\n', '\r']) {
        return raw.trim().to_string();
    }
    let mut out = String::with_capacity(raw.len());
    let normalized = raw.replace("\r\n", "\n").replace('\r', "\n");
    for (i, line) in normalized.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(line.trim_end());
    }
    out.trim().to_string()
}
