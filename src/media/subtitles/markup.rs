//! Cue text: markup (SRT and WebVTT tags, ASS override blocks), entities,
//! and speaker turns.

use super::timing::parse_timestamp;
use super::Turn;

pub(super) struct Cleaned {
    pub(super) text: String,
    pub(super) turns: Vec<Turn>,
}

/// A turn being built: its speaker and words so far.
struct OpenTurn {
    speaker: Option<String>,
    text: String,
}

pub(super) fn clean(lines: &[&str]) -> Cleaned {
    let mut display: Vec<String> = Vec::new();
    let mut turns: Vec<Turn> = Vec::new();
    let mut open: Option<OpenTurn> = None;
    let close = |open: &mut Option<OpenTurn>, turns: &mut Vec<Turn>| {
        if let Some(t) = open.take() {
            let text = t.text.split_whitespace().collect::<Vec<_>>().join(" ");
            if !text.is_empty() {
                turns.push(Turn {
                    speaker: t.speaker,
                    text,
                });
            }
        }
    };
    let mut markup = Markup::default();
    for line in lines.iter().flat_map(|l| l.split("\\N")) {
        let pieces = strip_markup(line, &mut markup);
        let full: String = pieces.iter().map(|p| p.1.as_str()).collect();
        let shown = full.trim();
        if shown.is_empty() {
            continue;
        }
        display.push(shown.to_string());

        // Bytes of leading whitespace and speaker dash to leave out of the turn.
        let lead = full.len() - full.trim_start().len();
        let dash = dash_len(shown);
        let mut skip = lead + dash.unwrap_or(0);
        if dash.is_some() {
            close(&mut open, &mut turns);
        }
        let mut first_piece = true;
        for (speaker, piece) in &pieces {
            let piece = if skip >= piece.len() {
                skip -= piece.len();
                continue;
            } else {
                let p = &piece[skip..];
                skip = 0;
                p
            };
            if piece.trim().is_empty() {
                // Spaces between spans still separate words.
                if let Some(t) = open.as_mut() {
                    t.text.push_str(piece);
                }
                continue;
            }
            let same = match &open {
                Some(t) => speaker.is_none() || *speaker == t.speaker,
                None => false,
            };
            if !same {
                close(&mut open, &mut turns);
                open = Some(OpenTurn {
                    speaker: speaker.clone(),
                    text: String::new(),
                });
            } else if first_piece {
                // A new display line continuing the turn.
                if let Some(t) = open.as_mut() {
                    t.text.push(' ');
                }
            }
            if let Some(t) = open.as_mut() {
                t.text.push_str(piece);
            }
            first_piece = false;
        }
    }
    close(&mut open, &mut turns);
    Cleaned {
        text: display.join("\n"),
        turns,
    }
}

/// The byte length of a speaker dash (and the spaces after it) at the start
/// of `s`, a trimmed line: one dash (`-`, `‐`, `‑`, `–`, `—`) not followed by
/// another dash or a digit (`--` is a stammer, `-5` a number), nor alone (a
/// dash with no words after it introduces no one).
fn dash_len(s: &str) -> Option<usize> {
    const DASHES: [char; 5] = ['-', '\u{2010}', '\u{2011}', '\u{2013}', '\u{2014}'];
    let mut chars = s.chars();
    let c = chars.next()?;
    if !DASHES.contains(&c) {
        return None;
    }
    let rest = &s[c.len_utf8()..];
    match rest.chars().next() {
        None => None,
        Some(n) if DASHES.contains(&n) || n.is_ascii_digit() => None,
        Some(_) => Some(s.len() - rest.trim_start().len()),
    }
}

/// Tags removed from the display text (lowercase names).
const KNOWN_TAGS: [&str; 12] = [
    "i", "b", "u", "s", "font", "c", "v", "lang", "ruby", "rt", "span", "br",
];

/// Markup state that carries from one line of a cue to the next.
#[derive(Default)]
pub(super) struct Markup {
    /// The annotation of the open WebVTT voice span.
    voice: Option<String>,
    /// Inside `<rt>`: a ruby reading, shown small above the base text and
    /// left out here so the words are not doubled.
    ruby_text: bool,
}

/// Removes tags, timestamp tags and ASS override blocks from one line and
/// decodes entities. Returns the text in pieces, each with the voice (WebVTT
/// `<v>` span) in force at its start.
///
/// Linear: every search for a closing `>` or `}` stops at the next opening
/// bracket, so no stretch of the line is scanned twice.
pub(super) fn strip_markup(line: &str, state: &mut Markup) -> Vec<(Option<String>, String)> {
    let mut pieces = vec![(state.voice.clone(), String::with_capacity(line.len()))];
    let mut i = 0;
    while i < line.len() {
        let rest = &line[i..];
        let Some(c) = rest.chars().next() else { break };
        match c {
            '<' => {
                if let Some(off) = rest[1..].find(['<', '>']) {
                    if rest.as_bytes()[1 + off] == b'>' {
                        let inner = &rest[1..1 + off];
                        if let Some(found) = tag(inner) {
                            match found {
                                Tag::Plain => {}
                                Tag::Voice(voice) => {
                                    state.voice = voice;
                                    pieces.push((state.voice.clone(), String::new()));
                                }
                                Tag::RubyText(open) => state.ruby_text = open,
                            }
                            i += off + 2;
                            continue;
                        }
                    }
                }
            }
            '{' if rest[1..].starts_with('\\') => {
                if let Some(off) = rest[1..].find(['{', '}']) {
                    if rest.as_bytes()[1 + off] == b'}' {
                        i += off + 2;
                        continue;
                    }
                }
            }
            '&' => {
                if let Some((decoded, len)) = entity(rest) {
                    if let Some(p) = pieces.last_mut().filter(|_| !state.ruby_text) {
                        p.1.push(decoded);
                    }
                    i += len;
                    continue;
                }
            }
            _ => {}
        }
        if let Some(p) = pieces.last_mut().filter(|_| !state.ruby_text) {
            p.1.push(c);
        }
        i += c.len_utf8();
    }
    pieces
}

/// A markup tag to remove.
enum Tag {
    /// Styling, classes, timestamps: no effect on the words.
    Plain,
    /// A voice span opens (with its annotation, if any) or closes (`None`).
    Voice(Option<String>),
    /// A ruby reading (`<rt>`) opens (`true`) or closes.
    RubyText(bool),
}

/// Classifies the inside of `<…>`; `None` when it is not a tag to remove.
fn tag(inner: &str) -> Option<Tag> {
    if inner.starts_with(|c: char| c.is_ascii_digit()) {
        // A WebVTT timestamp tag (`<00:01.000>`) inside karaoke-style cues.
        return match parse_timestamp(inner) {
            Ok((_, "", _)) => Some(Tag::Plain),
            _ => None,
        };
    }
    let (closing, body) = match inner.strip_prefix('/') {
        Some(b) => (true, b),
        None => (false, inner),
    };
    let name_len = body
        .find(|c: char| c == '.' || c.is_whitespace())
        .unwrap_or(body.len());
    let name = body[..name_len].to_ascii_lowercase();
    if !KNOWN_TAGS.contains(&name.as_str()) {
        return None;
    }
    if name == "rt" {
        return Some(Tag::RubyText(!closing));
    }
    if name != "v" {
        return Some(Tag::Plain);
    }
    if closing {
        return Some(Tag::Voice(None));
    }
    // `<v.loud Mara Ellis>`: classes, then whitespace, then the annotation.
    let annotation = body[name_len..]
        .find(char::is_whitespace)
        .map(|ws| body[name_len + ws..].trim())
        .unwrap_or("");
    Some(Tag::Voice(
        (!annotation.is_empty()).then(|| annotation.to_string()),
    ))
}

/// The named character references subtitle files use.
const NAMED_ENTITIES: [(&str, char); 15] = [
    ("amp", '&'),
    ("lt", '<'),
    ("gt", '>'),
    ("quot", '"'),
    ("apos", '\''),
    ("nbsp", '\u{a0}'),
    ("lrm", '\u{200e}'),
    ("rlm", '\u{200f}'),
    ("hellip", '…'),
    ("ndash", '–'),
    ("mdash", '—'),
    ("lsquo", '‘'),
    ("rsquo", '’'),
    ("ldquo", '“'),
    ("rdquo", '”'),
];

/// Decodes the character reference at the start of `s` (which starts with
/// `&`): the named ones subtitle files use, and numeric ones. Returns the
/// character and the reference's byte length.
fn entity(s: &str) -> Option<(char, usize)> {
    // Control characters would break lines or the text itself.
    crate::text::entity_at(s, &NAMED_ENTITIES).filter(|(c, _)| !c.is_control())
}
