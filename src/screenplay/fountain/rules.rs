//! What one Fountain line is, judged on its own text. Context (a blank line
//! before, a line after) is the block parser's business; these are pure
//! functions over already-trimmed text so each rule is testable alone.

/// Scene-heading prefixes (fountain.io: INT, EXT, EST, INT./EXT, INT/EXT, I/E),
/// matched case-insensitively and followed by a dot or a space. `I./E` is in
/// the reference parser's fixtures.
const HEADING_PREFIXES: &[&str] = &[
    "INT./EXT", "INT/EXT", "EXT./INT", "EXT/INT", "I./E", "I/E", "INT", "EXT", "EST",
];

/// The Russian conventions `ИНТ`/`НАТ`/`ЭКСТ` (интерьер, натура). They are not
/// in the spec, but without them a Russian script has no scenes, and nothing
/// else starts with them followed by a dot or space.
const CYRILLIC_HEADING_PREFIXES: &[&str] = &["ИНТ", "НАТ", "ЭКСТ"];

/// Title-page keys from the spec and from common apps. Any `Key: value` line
/// continues a title page, but only these (or a mixed-case key with a value)
/// start one, so a script opening with `FADE IN:` has no title page.
const TITLE_KEYS: &[&str] = &[
    "title",
    "credit",
    "author",
    "authors",
    "source",
    "draft date",
    "date",
    "contact",
    "contact info",
    "copyright",
    "notes",
    "revision",
    "watermark",
    "font",
    "tl",
    "tc",
    "tr",
    "cc",
    "bl",
    "br",
    "header",
    "footer",
];

/// Sentence-final punctuation: a caseless line (Japanese, Chinese) that ends in
/// one is a sentence of action, not a character name.
const SENTENCE_END: &[char] = &[
    '.', '!', '?', '。', '．', '！', '？', '…', '、', '，', ',', ':', '：', ';', '；',
];

/// `s` starts with `prefix`, ignoring case; returns the rest.
fn strip_prefix_ci<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let mut chars = s.char_indices();
    for p in prefix.chars() {
        let (_, c) = chars.next()?;
        if c != p && !c.to_uppercase().eq(std::iter::once(p)) {
            return None;
        }
    }
    Some(chars.as_str())
}

/// A line (trimmed) that begins with a scene-heading prefix followed by a dot
/// or space, e.g. `INT. HOUSE - DAY`, `int house day`, `I/E CAR`.
pub(super) fn has_heading_prefix(t: &str) -> bool {
    // `。` is the ideographic full stop Japanese scripts write after INT.
    let after_ok = |rest: &str| matches!(rest.chars().next(), Some('.' | ' ' | '\t' | '。'));
    match t.as_bytes().first() {
        // Byte comparison: this runs on every paragraph's first line.
        Some(b'I' | b'i' | b'E' | b'e') => HEADING_PREFIXES.iter().any(|p| {
            t.as_bytes()
                .get(..p.len())
                .is_some_and(|head| head.eq_ignore_ascii_case(p.as_bytes()))
                && after_ok(&t[p.len()..])
        }),
        Some(b) if *b >= 0x80 => CYRILLIC_HEADING_PREFIXES
            .iter()
            .any(|p| strip_prefix_ci(t, p).is_some_and(after_ok)),
        _ => false,
    }
}

/// A forced scene heading: a single `.` followed by a letter or digit (the
/// spec's wording, which keeps `...` and `. . .` opening action). Returns the
/// heading text.
pub(super) fn forced_heading(t: &str) -> Option<&str> {
    let rest = t.strip_prefix('.')?;
    rest.chars()
        .next()
        .is_some_and(char::is_alphanumeric)
        .then_some(rest)
}

/// Splits a trailing scene number (`INT. HOUSE - DAY #1A#`) off a heading.
/// Numbers are letters, digits, dots and dashes (`#I-1-A#`, `#1.#`).
pub(super) fn split_scene_number(heading: &str) -> (&str, Option<&str>) {
    let t = heading.trim_end();
    if let Some(body) = t.strip_suffix('#') {
        if let Some(open) = body.rfind('#') {
            let number = &body[open + 1..];
            if !number.is_empty()
                && number
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '.' || c == '-')
            {
                return (body[..open].trim_end(), Some(number));
            }
        }
    }
    (t, None)
}

/// Splits the dual-dialogue caret off a cue: `EVE ^` → (`EVE`, true).
pub(super) fn split_dual(cue: &str) -> (&str, bool) {
    match cue.trim_end().strip_suffix('^') {
        Some(rest) => (rest.trim_end(), true),
        None => (cue.trim_end(), false),
    }
}

/// True when `cue` (trimmed, caret removed) reads as a character name: at least
/// one letter in the name before any parenthetical (`23 (O.S.)` is not a
/// name), and no lower-case letter outside parentheses (`HANS (on the radio)`
/// is a cue, `BOB (V.O.) says` is not).
///
/// Scripts without letter case (Japanese, Chinese) have no "all caps"; there a
/// short line that does not end like a sentence counts, so `约翰` is a cue but
/// a two-line paragraph of action is not read as a cue and its dialogue.
pub(super) fn is_cue(cue: &str) -> bool {
    // The lower-case scan comes first: it rejects most lines within a few characters.
    let mut depth = 0usize;
    for c in cue.chars() {
        match c {
            '(' | '（' => depth += 1,
            ')' | '）' => depth = depth.saturating_sub(1),
            c if depth == 0 && c.is_lowercase() => return false,
            _ => {}
        }
    }
    let name_end = cue.find(['(', '（']).unwrap_or(cue.len());
    let name = cue[..name_end].trim();
    let mut letters = false;
    let mut cased = false;
    for c in name.chars() {
        if c.is_alphabetic() {
            letters = true;
            cased |= c.is_uppercase();
        }
    }
    if !letters {
        return false;
    }
    cased
        || (name.chars().count() <= 20
            && !name.ends_with(SENTENCE_END)
            && !cue.ends_with(SENTENCE_END))
}

/// An unforced transition: upper case, ending in `TO:` exactly. Trailing
/// spaces disqualify it (the reference parser and jouvence both insist), so
/// `t` is the line with only its indentation removed.
pub(super) fn is_transition(t: &str) -> bool {
    t.ends_with("TO:") && t.chars().any(char::is_alphabetic) && !t.chars().any(char::is_lowercase)
}

/// Three or more `=` and nothing else.
pub(super) fn is_page_break(t: &str) -> bool {
    t.len() >= 3 && t.bytes().all(|b| b == b'=')
}

/// `>text<` → the text inside, trimmed; `None` when not centered or empty.
pub(super) fn centered(t: &str) -> Option<&str> {
    let inner = t.strip_prefix('>')?.strip_suffix('<')?.trim();
    (!inner.is_empty()).then_some(inner)
}

/// `## Title` → (2, `Title`). Depth saturates at 255.
pub(super) fn section(t: &str) -> Option<(u8, &str)> {
    let rest = t.trim_start_matches('#');
    let depth = t.len() - rest.len();
    (depth > 0).then(|| (u8::try_from(depth).unwrap_or(u8::MAX), rest.trim()))
}

/// A parenthetical's first line: opens with `(` (or the full-width `（`).
pub(super) fn opens_paren(t: &str) -> bool {
    t.starts_with(['(', '（'])
}

/// A parenthetical's last line: closes with `)` (or `）`).
pub(super) fn closes_paren(t: &str) -> bool {
    t.ends_with([')', '）'])
}

/// A title-page `Key: value` line: flush left, a key of letters, digits,
/// spaces and `-_'` (no dots, so `INT. HOUSE: DAY` is never one), then `:` or
/// the full-width `：` that Japanese and Chinese scripts use.
pub(super) fn title_field(line: &str) -> Option<(&str, &str)> {
    let (at, sep) = line.char_indices().find(|&(_, c)| c == ':' || c == '：')?;
    let key = line[..at].trim_end();
    let value = line[at + sep.len_utf8()..].trim();
    let mut chars = key.chars();
    let first_ok = chars.next().is_some_and(char::is_alphabetic);
    let rest_ok = chars.all(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '\''));
    (first_ok && rest_ok && key.chars().count() <= 40).then_some((key, value))
}

/// Whether a key may open a title page (see [`TITLE_KEYS`]).
pub(super) fn starts_title_page(key: &str, value: &str, continued: bool) -> bool {
    let lower = key.to_lowercase();
    TITLE_KEYS.contains(&lower.as_str())
        || (key.chars().any(char::is_lowercase) && (!value.is_empty() || continued))
}

/// A line like `(softly) Come here.`: a wryly closed on the line and followed
/// by words. The spec makes a parenthetical a line that opens *and ends* with
/// parentheses, and Final Draft stores such a line as one Dialogue paragraph
/// (jumpcut's mostly-genius pair), so it is dialogue, not a parenthetical.
pub fn wryly_then_words(t: &str) -> bool {
    !closes_paren(t) && t.contains([')', '）'])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heading_prefixes() {
        for yes in [
            "INT. HOUSE - DAY",
            "EXT HOUSE DAY",
            "int. house - day",
            "INT/EXT. HOUSE",
            "INT./EXT. HOUSE",
            "I/E HOUSE",
            "I./E. HOUSE",
            "EST. CITY",
            "INT - HOUSE - DAY",
            "ИНТ. КВАРТИРА – ДЕНЬ",
            "INT。 医院-天",
        ] {
            assert!(has_heading_prefix(yes), "{yes}");
        }
        for no in [
            "ESTABLISHING",
            "INTERIOR",
            "Internal",
            "EXTRA",
            "I/EX",
            "INT",
            "Ïnt. x",
        ] {
            assert!(!has_heading_prefix(no), "{no}");
        }
    }

    #[test]
    fn forced_headings_but_not_ellipses() {
        assert_eq!(forced_heading(".KITCHEN"), Some("KITCHEN"));
        assert_eq!(
            forced_heading(".somewhere in space"),
            Some("somewhere in space")
        );
        assert_eq!(forced_heading(". not one"), None);
        assert_eq!(forced_heading(".(not one)"), None);
        assert_eq!(forced_heading("... not one"), None);
        assert_eq!(forced_heading("."), None);
    }

    #[test]
    fn scene_numbers() {
        assert_eq!(
            split_scene_number("INT. HOUSE - DAY #1A#"),
            ("INT. HOUSE - DAY", Some("1A"))
        );
        assert_eq!(
            split_scene_number("INT. X #I-1-A# "),
            ("INT. X", Some("I-1-A"))
        );
        assert_eq!(split_scene_number("INT. X #1.#"), ("INT. X", Some("1.")));
        assert_eq!(
            split_scene_number("INT. X #no way#"),
            ("INT. X #no way#", None)
        );
        assert_eq!(split_scene_number("INT. X ##"), ("INT. X ##", None));
        assert_eq!(split_scene_number("#"), ("#", None));
    }

    #[test]
    fn cues() {
        for yes in [
            "STEEL",
            "MOM (O. S.)",
            "HANS (on the radio)",
            "DR. BENNET",
            "R2D2",
            "EVE (cont'd)",
            "МАША",
            "约翰",
        ] {
            assert!(is_cue(yes), "{yes}");
        }
        for no in [
            "23 (O.S.)",
            "Steel",
            "BOB (V.O.) says",
            "(V.O.)",
            "约翰进入医院。",
            "然后什么也没有发生，接下来的一个小时约翰静静地站着不动",
        ] {
            assert!(!is_cue(no), "{no}");
        }
        assert_eq!(split_dual("EVE ^"), ("EVE", true));
        assert_eq!(split_dual("GUY^"), ("GUY", true));
        assert_eq!(split_dual("GUY"), ("GUY", false));
    }

    #[test]
    fn transitions() {
        assert!(is_transition("CUT TO:"));
        assert!(is_transition("TO:"));
        assert!(!is_transition("CUT TO:  "));
        assert!(!is_transition("Cut to:"));
        assert!(!is_transition("FADE TO BLACK."));
    }

    #[test]
    fn line_forms() {
        assert!(is_page_break("==="));
        assert!(is_page_break("========="));
        assert!(!is_page_break("=="));
        assert!(!is_page_break("=== x"));
        assert_eq!(centered("> THE END <"), Some("THE END"));
        assert_eq!(centered(">      Lots of Space\t\t<"), Some("Lots of Space"));
        assert_eq!(centered("> Not centered"), None);
        assert_eq!(centered("><"), None);
        assert_eq!(section("## Level 2"), Some((2, "Level 2")));
        assert_eq!(section("# 5 "), Some((1, "5")));
        assert_eq!(section(&"#".repeat(300)), Some((255, "")));
        assert_eq!(section("x"), None);
    }

    #[test]
    fn title_fields() {
        assert_eq!(title_field("Title: Big Fish"), Some(("Title", "Big Fish")));
        assert_eq!(
            title_field("Draft date: 2/1/2012"),
            Some(("Draft date", "2/1/2012"))
        );
        assert_eq!(title_field("Title：电影"), Some(("Title", "电影")));
        assert_eq!(title_field("Notes:\t"), Some(("Notes", "")));
        assert_eq!(title_field("\tphone: 555"), None);
        assert_eq!(title_field("INT. HOUSE: DAY"), None);
        assert_eq!(title_field("No colon here"), None);
        assert!(starts_title_page("Title", "", false));
        assert!(starts_title_page("Episode", "3", false));
        assert!(!starts_title_page("FADE IN", "", false));
        assert!(!starts_title_page("SUPER", "1985", false));
    }
}
