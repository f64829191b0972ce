//! Text helpers shared by the stages, below them all (it depends on nothing
//! else in the crate): reading a file's bytes as text ([`decode`]: BOMs,
//! UTF-16, Windows-1252, the size limit), where a reader's findings point
//! ([`source`]: line spans, diagnostics), words and sentences with their
//! character offsets ([`spans`]), content words, and HTML escaping for the
//! pages the report and the web walker write.

pub mod decode;
pub mod source;
pub(crate) mod spans;

use std::collections::BTreeSet;

const STOP: &[&str] = &[
    "the", "a", "an", "to", "of", "and", "or", "in", "on", "at", "for", "with", "is", "was", "be",
    "he", "she", "it", "i", "you", "his", "her", "him", "that", "this", "my", "me", "we", "they",
    "not", "do", "did", "has", "had", "have", "as", "by", "from", "so", "but",
];

/// Lowercase content words of a text (stop words and one-letter words dropped).
pub fn content_words(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| is_content_word(w))
        .collect()
}

/// Whether a lowercase word counts as a content word: two letters or more
/// and not a stop word.
pub fn is_content_word(lowercase: &str) -> bool {
    lowercase.len() > 1 && !STOP.contains(&lowercase)
}

/// Decodes the character reference at the start of `s` (which starts with
/// `&`): a name from `named` (`&amp;`), or a decimal or hexadecimal numeric
/// reference (`&#39;`, `&#x2019;`). Returns the character and the reference's
/// byte length, or `None` when `s` does not start with one.
///
/// Each reader passes the names its files use; the set, and what a name
/// stands for, is the reader's choice. Numeric references may decode to any
/// scalar value, control characters included; a caller that must not see
/// them filters the result.
pub(crate) fn entity_at(s: &str, named: &[(&str, char)]) -> Option<(char, usize)> {
    // The longest reference decoded here is `&#x10FFFF;` (10 bytes); a name
    // with anything but ASCII in it matches nothing, so a byte window is enough.
    let semi = s.as_bytes().iter().take(12).position(|&b| b == b';')?;
    let name = &s[1..semi];
    let c = match named.iter().find(|(n, _)| *n == name) {
        Some(&(_, c)) => c,
        None => {
            let num = name.strip_prefix('#')?;
            let value = match num.strip_prefix(['x', 'X']) {
                Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                None => num.parse::<u32>().ok()?,
            };
            char::from_u32(value)?
        }
    };
    Some((c, semi + 1))
}

/// Escapes text for HTML element content and attribute values (the
/// report's pages and the web walker's).
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_numeric_and_not_references() {
        let named = [("amp", '&'), ("nbsp", ' ')];
        assert_eq!(entity_at("&amp; me", &named), Some(('&', 5)));
        assert_eq!(entity_at("&nbsp;", &named), Some((' ', 6)));
        assert_eq!(entity_at("&#39;s", &named), Some(('\'', 5)));
        assert_eq!(entity_at("&#x2019;", &named), Some(('’', 8)));
        assert_eq!(entity_at("&#X10FFFF;", &named), Some(('\u{10ffff}', 10)));
        assert_eq!(entity_at("&#1;", &named), Some(('\u{1}', 4)));
        assert_eq!(entity_at("&lt;", &named), None);
        assert_eq!(entity_at("&#xD800;", &named), None);
        assert_eq!(entity_at("& more; text", &named), None);
        assert_eq!(entity_at("&amp", &named), None);
        assert_eq!(entity_at("&ééééééé;", &named), None);
    }

    #[test]
    fn html_special_characters_are_escaped_and_the_rest_kept() {
        assert_eq!(
            escape_html(r#"<a href="x">Tom & Jo's</a>"#),
            "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jo&#39;s&lt;/a&gt;"
        );
        assert_eq!(escape_html("Mara — “key”"), "Mara — “key”");
    }
}
