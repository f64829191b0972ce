//! Plain-text reader: scripts laid out by indentation, as IMSDb pages and
//! PDF-to-text conversions give them (the pipeline in ARCHITECTURE.md).
//!
//! A laid-out script has no markup: an element's kind is told by its column,
//! its case and its neighbours. No two scripts use the same columns, so the
//! reader learns each script's own before classifying anything:
//!
//! 1. `prepare` turns the text into `Line`s: HTML tags and entities
//!    stripped (IMSDb keeps `<b>`), tabs expanded to 8 columns, form feeds
//!    turned into page starts, revision stars cut from the right margin.
//! 2. `noise` finds what the page layout added: page numbers, `CONTINUED`,
//!    `(MORE)`, margin scene numbers (glued ones too, when next in the
//!    script's numbering), running headers and footers.
//! 3. `layout` moves pages that drift back onto the script's columns, then
//!    learns the columns from the lines' shapes: short upper-case lines
//!    followed at once (or after one blank line, where most cues are set so)
//!    by text at another column are cues; what follows them gives the
//!    dialogue and parenthetical columns; long lines outside speeches give
//!    the action column and its right edge.
//! 4. `build` walks the lines once with that model and emits elements,
//!    joining a speech or paragraph split by a page break into one element.
//!
//! Nothing here fails: whatever cannot be placed becomes action with a
//! diagnostic. Every pass is linear in the input.

mod build;
mod layout;
mod lexical;
mod noise;
mod relabel;
pub mod sequence;

use std::borrow::Cow;
use std::sync::OnceLock;

use super::element::{Diagnostic, Noise, NoiseKind};
use super::layouts::{tags_of, Tag};
use super::Reading;
use sequence::{class_of, tag_of, Model, Observed};

/// The shipped line model (`line_model.txt`, fitted by `moviegraph bench
/// parse --real DIR --fit FILE`); `None` when it holds no weights.
pub fn shipped_model() -> Option<&'static Model> {
    static MODEL: OnceLock<Option<Model>> = OnceLock::new();
    MODEL
        .get_or_init(|| {
            Model::from_text(include_str!("plaintext/line_model.txt"))
                .ok()
                .filter(|m| !m.is_empty())
        })
        .as_ref()
}

/// One source line, cleaned for column math. Its text borrows from the
/// source unless cleaning changed it (most lines are left as they are).
#[derive(Debug, Clone, Default)]
struct Line<'a> {
    /// 1-based line number in the source.
    no: usize,
    /// Column of the first visible character (tabs expanded to 8).
    indent: usize,
    /// The visible text, trimmed at both ends; empty for a blank line.
    text: Cow<'a, str>,
    /// A page starts at this line (a form feed came before its text).
    page_start: bool,
    /// The whole line is layout noise, not story.
    noise: Option<NoiseKind>,
    /// A margin scene number was split off this line (`text` is the rest).
    number: Option<String>,
}

impl Line<'_> {
    fn is_content(&self) -> bool {
        !self.text.is_empty() && self.noise.is_none()
    }
}

/// True when `text` looks laid out by indentation rather than written in
/// Fountain: a good share of its lines are indented, or it has form feeds.
///
/// The share is low (15%) because in some layouts only cues, wrylies and
/// transitions are indented; Fountain files indent almost nothing.
pub fn looks_laid_out(text: &str) -> bool {
    let mut total = 0usize;
    let mut indented = 0usize;
    for line in text.lines().take(4000) {
        if line.contains('\x0c') {
            return true;
        }
        let line = skip_leading_tags(line);
        if line.trim().is_empty() {
            continue;
        }
        total += 1;
        if leading_columns(line) >= 8 {
            indented += 1;
        }
    }
    total > 0 && indented * 100 >= total * 15
}

/// Reads a laid-out plain-text script into elements, noise and diagnostics:
/// the rules reader, then the shipped line model where it disagrees.
pub fn read(text: &str) -> Reading {
    read_with(text, shipped_model())
}

/// [`read`] with `model` (or the rules alone, with `None`).
pub fn read_with(text: &str, model: Option<&Model>) -> Reading {
    let (lines, reading) = read_rules(text);
    let Some(model) = model else {
        return reading;
    };
    let reader = tags_of(&reading.elements, &reading.noise, lines.len());
    let observed = observe(&lines, &reader);
    let kept: Vec<usize> = observed
        .lines
        .iter()
        .map(|&no| class_of(reader[no - 1]))
        .collect();
    let decoded = model.correct(&observed.features, &kept);
    let mut predicted: Vec<Option<Tag>> = vec![None; lines.len()];
    for (&no, &class) in observed.lines.iter().zip(&decoded) {
        // Page furniture the reader found by its repetition across pages
        // (evidence the model does not see) stays set aside.
        predicted[no - 1] = if lines[no - 1].noise.is_some() {
            reader[no - 1]
        } else {
            tag_of(class)
        };
    }
    relabel::apply(&lines, reading, &reader, &predicted)
}

/// The line model's features of every non-blank line of `text`, and the
/// rules reader's tag of every line: what the model is fitted on.
pub fn observe_text(text: &str) -> (Observed, Vec<Option<Tag>>) {
    let (lines, reading) = read_rules(text);
    let reader = tags_of(&reading.elements, &reading.noise, lines.len());
    (observe(&lines, &reader), reader)
}

fn observe(lines: &[Line<'_>], reader: &[Option<Tag>]) -> Observed {
    let classes: Vec<usize> = reader.iter().map(|&t| class_of(t)).collect();
    sequence::observe(lines, &classes)
}

/// The rules reader alone, with the prepared lines it read.
fn read_rules(text: &str) -> (Vec<Line<'_>>, Reading) {
    let mut noise = Vec::new();
    let mut diagnostics = Vec::new();
    let mut lines = prepare(text, &mut noise, &mut diagnostics);
    noise::mark(&mut lines, &mut noise, &mut diagnostics);
    let moved = layout::align_pages(&mut lines);
    if moved > 0 {
        diagnostics.push(Diagnostic::info(
            1,
            format!("{moved} page(s) drift from the script's left margin; their columns were moved back"),
        ));
    }
    let items = layout::items(&lines);
    let lay = layout::Layout::learn(&lines, &items);
    let elements = build::build(&lines, &items, &lay, &mut noise, &mut diagnostics);
    let reading = Reading {
        elements,
        noise,
        diagnostics,
    };
    (lines, reading)
}

/// Columns taken by the leading whitespace of `line`, tabs to the next multiple of 8.
fn leading_columns(line: &str) -> usize {
    let mut col = 0;
    for c in line.chars() {
        match c {
            '\t' => col = (col / 8 + 1) * 8,
            c if c.is_whitespace() => col += 1,
            _ => break,
        }
    }
    col
}

/// `line` without HTML tags at its start (`<b>   MARA` is indented like `   MARA`).
fn skip_leading_tags(mut line: &str) -> &str {
    while let Some(rest) = line.strip_prefix('<') {
        match rest.find('>') {
            Some(end)
                if end < 40
                    && rest[..end]
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '/') =>
            {
                line = &rest[end + 1..];
            }
            _ => break,
        }
    }
    line
}

/// Splits the text into cleaned [`Line`]s.
fn prepare<'a>(
    text: &'a str,
    noise: &mut Vec<Noise>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<Line<'a>> {
    let html = looks_html(text);
    let has_pre = html && text.to_ascii_lowercase().contains("<pre");
    if html {
        diagnostics.push(Diagnostic::info(
            1,
            if has_pre {
                "HTML page: reading the script inside <pre>, tags and entities removed"
            } else {
                "HTML markup found: tags and entities removed"
            },
        ));
    }
    let mut in_pre = !has_pre;
    let mut page_pending = false;
    let mut lines = Vec::with_capacity(text.len() / 32);
    for (i, raw) in text.split('\n').enumerate() {
        let no = i + 1;
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        let content: Cow<'a, str> = if html {
            Cow::Owned(strip_html(raw, &mut in_pre))
        } else {
            Cow::Borrowed(raw)
        };
        let mut page_start = std::mem::take(&mut page_pending);
        let controls = content.bytes().any(|b| b < 0x20 || b == 0x7f);
        if controls && content.contains('\x0c') {
            // A form feed before the line's text starts a page here; one
            // after it (some converters end a page that way) starts the next.
            let first_visible = content
                .char_indices()
                .find(|(_, c)| !c.is_whitespace() && *c != '\x0c')
                .map(|(i, _)| i);
            for (at, c) in content.char_indices() {
                if c == '\x0c' {
                    match first_visible {
                        Some(v) if at > v => page_pending = true,
                        _ => page_start = true,
                    }
                }
            }
        }
        let (indent, mut text) = indent_and_text(content, controls);
        if text.ends_with('*') {
            if let Some(kept) = strip_revision_mark(&text, indent) {
                noise.push(Noise {
                    line: no,
                    kind: NoiseKind::RevisionMark,
                    text: "*".into(),
                });
                text = Cow::Owned(kept);
            }
        }
        lines.push(Line {
            no,
            indent: if text.is_empty() { 0 } else { indent },
            text,
            page_start,
            noise: None,
            number: None,
        });
    }
    lines
}

/// The line's indent (in columns) and its trimmed text, with tabs expanded.
/// `controls` says whether the line holds control characters (tabs, form feeds).
fn indent_and_text(content: Cow<'_, str>, controls: bool) -> (usize, Cow<'_, str>) {
    // Most lines are plain printable text: borrowed, not copied. (Only the
    // ends matter for other whitespace: the indent and the trim.)
    let bytes = content.as_bytes();
    let start = bytes.iter().position(|b| *b != b' ').unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|b| *b != b' ')
        .map_or(start, |i| i + 1);
    let odd_space = |c: Option<char>| c.is_some_and(|c| c.is_whitespace() && c != ' ');
    let plain = !controls
        && !odd_space(content[start..].chars().next())
        && !odd_space(content[..end].chars().next_back());
    if plain {
        let text = match content {
            Cow::Borrowed(b) => Cow::Borrowed(&b[start..end]),
            Cow::Owned(o) => Cow::Owned(o[start..end].to_string()),
        };
        return (start, text);
    }
    let expanded = expand(&content);
    let indent = expanded.chars().take_while(|c| *c == ' ').count();
    (indent, Cow::Owned(expanded.trim().to_string()))
}

/// Expands tabs to 8 columns and turns other invisible characters (form
/// feeds, NBSP, vertical tabs, stray CR) into spaces so columns stay true.
fn expand(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 16);
    let mut col = 0usize;
    for c in s.chars() {
        match c {
            '\t' => {
                let next = (col / 8 + 1) * 8;
                out.extend((col..next).map(|_| ' '));
                col = next;
            }
            '\x0c' => {}
            c if c.is_whitespace() || c.is_control() => {
                out.push(' ');
                col += 1;
            }
            c => {
                out.push(c);
                col += 1;
            }
        }
    }
    out
}

/// The line without its right-margin revision stars, when it has them: one or
/// more `*` set off by at least two spaces (a star glued to a word is Fountain
/// emphasis or the writer's own). A line of stars alone far right is a mark
/// on a line whose text did not change: it becomes blank.
fn strip_revision_mark(text: &str, indent: usize) -> Option<String> {
    let body = text.trim_end_matches('*');
    if body.is_empty() {
        return (indent >= 30).then(String::new);
    }
    let gap = body.len() - body.trim_end().len();
    if gap >= 2 {
        return Some(body.trim_end().to_string());
    }
    // A star squeezed against a right-margin scene number (`...  12*`) when
    // the line opens with the same number.
    let last = body.rsplit(' ').next().unwrap_or("");
    let glued = gap == 0
        && body.len() > last.len()
        && lexical::scene_number_token(last)
        && body.split(' ').next() == Some(last);
    glued.then(|| body.to_string())
}

/// True when the text carries HTML markup that must be stripped: an IMSDb page
/// or a script pasted with `<b>` tags.
fn looks_html(text: &str) -> bool {
    if !text.contains('<') {
        return false;
    }
    let lower = text.to_ascii_lowercase();
    if lower.contains("<pre>") || lower.contains("<html") || lower.contains("<pre ") {
        return true;
    }
    lower.matches("<b>").count() + lower.matches("</b>").count() >= 2
}

/// Removes tags from one line and decodes entities; `in_pre` tracks the
/// `<pre>` window across lines (text outside it is page chrome, dropped).
fn strip_html(line: &str, in_pre: &mut bool) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(c) = rest.chars().next() {
        if c == '<' {
            if let Some((name, closing, len)) = tag_at(rest) {
                if name.eq_ignore_ascii_case("pre") {
                    *in_pre = !closing;
                }
                rest = &rest[len..];
                continue;
            }
        }
        if c == '&' {
            if let Some((decoded, len)) = entity_at(rest) {
                if *in_pre {
                    out.push(decoded);
                }
                rest = &rest[len..];
                continue;
            }
        }
        // Copy the run up to the next tag or entity at once.
        let run = rest
            .find(['<', '&'])
            .filter(|&i| i > 0)
            .unwrap_or(if c == '<' || c == '&' {
                c.len_utf8()
            } else {
                rest.len()
            });
        if *in_pre {
            out.push_str(&rest[..run]);
        }
        rest = &rest[run..];
    }
    out
}

/// A tag at the start of `s`: its name, whether it closes, and its byte length.
fn tag_at(s: &str) -> Option<(&str, bool, usize)> {
    let end = s.char_indices().take(200).find(|(_, c)| *c == '>')?.0;
    let inner = &s[1..end];
    let (closing, inner) = match inner.strip_prefix('/') {
        Some(r) => (true, r),
        None => (false, inner),
    };
    let name_len = inner
        .char_indices()
        .find(|(_, c)| !c.is_ascii_alphanumeric())
        .map_or(inner.len(), |(i, _)| i);
    let name = &inner[..name_len];
    let after = &inner[name_len..];
    let ok = name.starts_with(|c: char| c.is_ascii_alphabetic())
        && (after.is_empty() || after.starts_with([' ', '/', '\t']));
    ok.then_some((name, closing, end + 1))
}

/// The named entities HTML-wrapped scripts use; `&nbsp;` is a plain space here,
/// as layout is counted in spaces.
const NAMED_ENTITIES: [(&str, char); 13] = [
    ("amp", '&'),
    ("lt", '<'),
    ("gt", '>'),
    ("quot", '"'),
    ("apos", '\''),
    ("nbsp", ' '),
    ("rsquo", '’'),
    ("lsquo", '‘'),
    ("ldquo", '“'),
    ("rdquo", '”'),
    ("hellip", '…'),
    ("mdash", '—'),
    ("ndash", '–'),
];

/// An entity at the start of `s` (`&amp;`, `&#39;`, `&#x2019;`): the character and byte length.
fn entity_at(s: &str) -> Option<(char, usize)> {
    crate::text::entity_at(s, &NAMED_ENTITIES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tabs_form_feeds_and_stars() {
        let mut noise = Vec::new();
        let mut diags = Vec::new();
        let lines = prepare(
            "\tMARA\n\x0c  Hello.      *\n                                        *\nx\x0c\ny",
            &mut noise,
            &mut diags,
        );
        assert_eq!((lines[0].indent, lines[0].text.as_ref()), (8, "MARA"));
        assert!(lines[1].page_start);
        assert_eq!((lines[1].indent, lines[1].text.as_ref()), (2, "Hello."));
        assert_eq!(lines[2].text, "");
        assert!(lines[4].page_start);
        assert_eq!(noise.len(), 2);
    }

    #[test]
    fn html_tags_and_pre_window() {
        let mut noise = Vec::new();
        let mut diags = Vec::new();
        let text = "<html><title>X</title>\n<pre>\n<b>          MARA\n</b>     Tom &amp; me.\n</pre>\nBack to IMSDb";
        let lines = prepare(text, &mut noise, &mut diags);
        assert_eq!(lines[0].text, "");
        assert_eq!((lines[2].indent, lines[2].text.as_ref()), (10, "MARA"));
        assert_eq!((lines[3].indent, lines[3].text.as_ref()), (5, "Tom & me."));
        assert_eq!(lines[5].text, "");
        assert_eq!(diags.len(), 1);
    }

    #[test]
    fn laid_out_or_fountain() {
        assert!(looks_laid_out("          MARA\n     Hello.\n\nAction.\n"));
        assert!(!looks_laid_out("INT. A - DAY\n\nMARA\nHello.\n\nAction.\n"));
        assert!(looks_laid_out(
            "<b>          MARA\n</b>     Hello.\nAction.\n"
        ));
    }
}
