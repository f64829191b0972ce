//! Word and sentence splitting with character offsets, for evidence quotes.

/// A piece of an element's text with its character offsets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Span {
    /// Character offset of the first character.
    pub start: usize,
    /// Character offset just past the last character.
    pub end: usize,
    /// The text.
    pub text: String,
}

/// Sentences: split after `.`, `!`, `?` (and closing quotes) followed by white space.
pub(crate) fn sentences(text: &str) -> Vec<Span> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if matches!(c, '.' | '!' | '?') {
            let mut end = i + 1;
            while end < chars.len()
                && matches!(chars[end], '.' | '!' | '?' | '"' | '\'' | '”' | '*')
            {
                end += 1;
            }
            if end >= chars.len() || chars[end].is_whitespace() {
                push_span(&chars, start, end, &mut out);
                start = end;
                i = end;
                continue;
            }
        } else if c == '\n' && i + 1 < chars.len() && chars[i + 1] == '\n' {
            push_span(&chars, start, i, &mut out);
            start = i;
        }
        i += 1;
    }
    push_span(&chars, start, chars.len(), &mut out);
    out
}

fn push_span(chars: &[char], mut start: usize, mut end: usize, out: &mut Vec<Span>) {
    while start < end && chars[start].is_whitespace() {
        start += 1;
    }
    while end > start && chars[end - 1].is_whitespace() {
        end -= 1;
    }
    if start < end {
        out.push(Span {
            start,
            end,
            text: chars[start..end].iter().collect(),
        });
    }
}

/// Words (letters, digits, inner apostrophes), with offsets relative to `base`.
pub(crate) fn words(text: &str, base: usize) -> Vec<Span> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_alphanumeric() {
            let start = i;
            while i < chars.len()
                && (chars[i].is_alphanumeric()
                    || (matches!(chars[i], '\'' | '’')
                        && i + 1 < chars.len()
                        && chars[i + 1].is_alphanumeric()))
            {
                i += 1;
            }
            out.push(Span {
                start: base + start,
                end: base + i,
                text: chars[start..i].iter().collect(),
            });
        } else {
            i += 1;
        }
    }
    out
}

/// The characters `[start, end)` of `text`.
pub(crate) fn char_slice(text: &str, start: usize, end: usize) -> String {
    text.chars()
        .skip(start)
        .take(end.saturating_sub(start))
        .collect()
}

/// Lowercase words joined by single spaces, possessive `'s` and leading
/// articles removed: the form names are compared in.
pub(crate) fn normalize(text: &str) -> String {
    let mut parts: Vec<String> = Vec::new();
    for w in words(text, 0) {
        let mut lower = w.text.to_lowercase().replace('’', "'");
        if let Some(stem) = lower.strip_suffix("'s") {
            lower = stem.to_owned();
        }
        parts.push(lower);
    }
    while parts
        .first()
        .is_some_and(|w| matches!(w.as_str(), "the" | "a" | "an"))
    {
        parts.remove(0);
    }
    parts.join(" ")
}

/// Whether every letter is uppercase (and there is at least one).
pub(crate) fn is_caps(word: &str) -> bool {
    word.chars().any(char::is_alphabetic)
        && word
            .chars()
            .filter(|c| c.is_alphabetic())
            .all(char::is_uppercase)
}

/// `QUINTON ELLIS` → `Quinton Ellis`.
pub(crate) fn title_case(text: &str) -> String {
    text.split_whitespace()
        .map(|w| {
            let mut cs = w.chars();
            match cs.next() {
                Some(f) => f
                    .to_uppercase()
                    .chain(cs.flat_map(char::to_lowercase))
                    .collect(),
                None => String::new(),
            }
        })
        .collect::<Vec<String>>()
        .join(" ")
}

/// The text cut to `max` characters at a word boundary, with `…` when cut.
pub(crate) fn gloss(text: &str, max: usize) -> String {
    let clean: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if clean.chars().count() <= max {
        return clean;
    }
    let cut: String = clean.chars().take(max).collect();
    let cut = match cut.rfind(' ') {
        Some(i) if i > max / 2 => cut[..i].to_owned(),
        _ => cut,
    };
    format!("{cut}…")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_keep_character_offsets() {
        let text = "Mara believes him. She remembers the splash; “it’s” fine... Yes!";
        let s = sentences(text);
        assert_eq!(s.len(), 3, "{s:?}");
        assert_eq!(s[0].text, "Mara believes him.");
        assert_eq!(char_slice(text, s[1].start, s[1].end), s[1].text);
        assert_eq!(s[2].text, "Yes!");
    }

    #[test]
    fn words_and_names_normalize() {
        let w = words("Quinton's key, Mum’s ring", 10);
        assert_eq!(w[0].text, "Quinton's");
        assert_eq!(w[0].start, 10);
        assert_eq!(normalize("The SAPPHIRE RING's"), "sapphire ring");
        assert_eq!(title_case("QUINTON ELLIS"), "Quinton Ellis");
        assert!(is_caps("KEY") && !is_caps("Key") && !is_caps("42"));
        assert_eq!(gloss("one two three four", 9), "one two…");
    }
}
