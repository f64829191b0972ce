//! Fountain reader (fountain.io syntax 1.1).
//!
//! Reading happens in two stages:
//!
//! 1. `source` cleans newlines, cuts out boneyard (`/* */`) and notes
//!    (`[[ ]]`), and remembers which original lines every remaining line
//!    came from.
//! 2. The block parser here walks those lines once, paragraph by paragraph
//!    (a paragraph is a run of lines between blank lines), and classifies
//!    each line with the pure rules in `rules`. Rules that depend on a
//!    blank line before (scene headings, character cues, transitions) only
//!    apply to a paragraph's first line; forced marks (`!`, `~`, `>`, `=`,
//!    `#`, `===`) apply to any line.
//!
//! Choices where the spec is silent or real scripts stray from it:
//!
//! - A scene heading or transition directly followed by text still counts,
//!   and the next line starts a fresh paragraph (with an info diagnostic):
//!   losing a scene to a missing blank line costs more downstream than a
//!   heading misread in a deliberately odd script.
//! - An action paragraph (its lines joined with `\n`, indentation kept) is
//!   one element; blank lines never become elements.
//! - Consecutive lyric or centered lines join into one element, as action does.
//! - A `~` line inside a speech is a lyric (the singer's cue stays the cue).
//! - Notes are cut from their element and emitted right after it; a note on
//!   its own becomes a note element in place. Boneyard comments nest.
//! - A title page needs a known key (`Title:`, `Author:`, …) or a mixed-case
//!   key with a value to start, so a script opening with `FADE IN:` has none.
//! - Scripts without letter case (Japanese, Chinese) get cues from short
//!   lines that do not end like a sentence; Russian `ИНТ.`/`НАТ.` open scenes.
//!
//! The reader never fails: malformed input (unclosed boneyard, note or
//! parenthetical; a dual-dialogue caret with no speech before it) gives a
//! diagnostic and the text is kept. It runs in linear time and allocates per
//! element, not per line.

mod rules;
mod source;

use super::element::{Diagnostic, Element, ElementKind, LineSpan};
use super::Reading;
use source::{is_connector, FoundNote};

/// Reads Fountain text into elements (title-page fields first), with
/// diagnostics for anything malformed. Scene indices, speakers and
/// extensions are left to assembly.
pub fn read(text: &str) -> Reading {
    let mut diagnostics = Vec::new();
    let prepared = source::prepare(text, &mut diagnostics);

    // Sized up front: regrowing these vectors was a tenth of the time.
    // Scripts average 30–40 bytes a line; counting exactly costs a pass.
    let mut lines = Vec::with_capacity(prepared.text.len() / 24 + 16);
    let mut note = 0;
    for (i, t) in prepared.text.split('\n').enumerate() {
        let origin = prepared.origin(i);
        while prepared.notes.get(note).is_some_and(|n| n.at <= i) {
            note += 1;
        }
        // Most lines start with a visible ASCII character; skip the Unicode trim for them.
        let empty = !t.as_bytes().first().is_some_and(u8::is_ascii_graphic) && t.trim().is_empty();
        lines.push(Line {
            text: t,
            first: origin.first,
            last: origin.last,
            gone: origin.cut && empty,
            blank: !origin.cut && empty,
            notes_end: note,
        });
    }

    // Every element but a note takes at least one line of text.
    let most = lines.iter().filter(|l| !l.blank && !l.gone).count() + prepared.notes.len();
    let mut parser = Parser {
        lines,
        notes: prepared.notes,
        notes_emitted: 0,
        notes_due: 0,
        out: Vec::with_capacity(most),
        diagnostics,
        last_speech: None,
    };
    parser.run();
    parser.flush_notes();
    Reading {
        elements: parser.out,
        noise: Vec::new(),
        diagnostics: parser.diagnostics,
    }
}

/// One logical line after boneyard and note removal.
#[derive(Debug, Clone, Copy)]
struct Line<'a> {
    /// Its text, without newline.
    text: &'a str,
    /// First original line (1-based).
    first: usize,
    /// Last original line (1-based).
    last: usize,
    /// It held only boneyard or notes: treat it as not there at all, neither
    /// text nor a blank line.
    gone: bool,
    /// It is empty or only whitespace (and not gone): it ends paragraphs.
    blank: bool,
    /// Notes cut from this line or earlier ones: `notes[..notes_end]`.
    notes_end: usize,
}

/// Text being gathered line by line into one element (action, centered,
/// lyric or dialogue).
struct Gather {
    kind: ElementKind,
    text: String,
    first: usize,
    last: usize,
    /// Lines gathered so far (an empty connector line counts).
    lines: usize,
}

/// The block parser: the lines, what it has emitted, and the little state
/// that crosses paragraphs (notes waiting, the speech a `^` cue pairs with).
struct Parser<'a> {
    lines: Vec<Line<'a>>,
    notes: Vec<FoundNote>,
    /// Notes already emitted: `notes[..notes_emitted]`.
    notes_emitted: usize,
    /// Notes whose lines have been read, to be emitted after the next element.
    notes_due: usize,
    out: Vec<Element>,
    diagnostics: Vec<Diagnostic>,
    /// Element range `[cue, end)` of the last speech, while only notes and
    /// page breaks have followed it: the partner a `^` cue pairs with.
    last_speech: Option<(usize, usize)>,
}

impl<'a> Parser<'a> {
    fn is_blank(&self, i: usize) -> bool {
        self.lines[i].blank
    }

    /// The next line after `i` that is not gone.
    fn next_present(&self, i: usize) -> Option<usize> {
        (i + 1..self.lines.len()).find(|&j| !self.lines[j].gone)
    }

    /// The next present line after `i` exists and has text.
    fn followed_by_text(&self, i: usize) -> bool {
        self.next_present(i).is_some_and(|j| !self.is_blank(j))
    }

    /// Marks line `i` as read: its notes become due.
    fn take(&mut self, i: usize) {
        self.notes_due = self.notes_due.max(self.lines[i].notes_end);
    }

    fn span(&self, i: usize) -> LineSpan {
        LineSpan::new(self.lines[i].first, self.lines[i].last)
    }

    /// Appends an element, then the notes read so far.
    fn push(&mut self, e: Element) {
        if !matches!(
            e.kind,
            ElementKind::Character
                | ElementKind::Dialogue
                | ElementKind::Parenthetical
                | ElementKind::Note
                | ElementKind::PageBreak
        ) {
            self.last_speech = None;
        }
        self.out.push(e);
        self.flush_notes();
    }

    fn flush_notes(&mut self) {
        let due = self.notes_due.min(self.notes.len());
        while self.notes_emitted < due {
            let n = &mut self.notes[self.notes_emitted];
            let text = std::mem::take(&mut n.text);
            self.out
                .push(Element::new(ElementKind::Note, text, n.lines));
            self.notes_emitted += 1;
        }
    }

    /// Adds a line of `kind` to the element being gathered, first finishing
    /// one of another kind.
    fn gather(&mut self, g: &mut Option<Gather>, kind: ElementKind, parts: &[&str], i: usize) {
        if g.as_ref().is_some_and(|g| g.kind != kind) {
            self.finish(g);
        }
        let (first, last) = (self.lines[i].first, self.lines[i].last);
        let g = g.get_or_insert_with(|| Gather {
            kind,
            // Most elements are one line: size for it and avoid regrowth.
            text: String::with_capacity(parts.iter().map(|p| p.len()).sum::<usize>() + 1),
            first,
            last,
            lines: 0,
        });
        if g.lines > 0 {
            g.text.push('\n');
        }
        for p in parts {
            g.text.push_str(p);
        }
        g.lines += 1;
        g.last = last;
        self.take(i);
    }

    /// Emits the gathered element, if any. Dialogue loses the empty lines a
    /// two-space connector left at its ends; nothing empty is emitted.
    fn finish(&mut self, g: &mut Option<Gather>) {
        if let Some(mut g) = g.take() {
            if g.kind == ElementKind::Dialogue {
                let t = g.text.trim_matches('\n');
                if t.len() != g.text.len() {
                    g.text = t.to_string();
                }
            }
            if !g.text.trim().is_empty() {
                self.push(Element::new(g.kind, g.text, LineSpan::new(g.first, g.last)));
            } else {
                self.flush_notes();
            }
        }
    }

    fn run(&mut self) {
        let mut i = self.title_page();
        while i < self.lines.len() {
            if self.lines[i].gone {
                // A note standing between paragraphs is emitted where it stands.
                self.take(i);
                self.flush_notes();
                i += 1;
            } else if self.is_blank(i) {
                i += 1;
            } else {
                i = self.paragraph(i);
            }
        }
    }

    /// Reads the title page, if the script opens with one; returns the first
    /// line after it. Notes before or inside it are emitted after its fields
    /// so title fields stay first.
    fn title_page(&mut self) -> usize {
        let n = self.lines.len();
        let Some(start) = (0..n).find(|&i| !self.lines[i].gone && !self.is_blank(i)) else {
            return 0;
        };
        let Some((key, value)) = rules::title_field(self.lines[start].text) else {
            return 0;
        };
        let continued = self
            .next_present(start)
            .is_some_and(|j| !self.is_blank(j) && self.lines[j].text.starts_with([' ', '\t']));
        if !rules::starts_title_page(key, value, continued) {
            return 0;
        }
        for i in 0..start {
            self.take(i);
        }
        let mut fields: Vec<Element> = Vec::new();
        let mut i = start;
        while i < n {
            let line = self.lines[i];
            if line.gone {
                self.take(i);
                i += 1;
                continue;
            }
            if line.blank {
                break;
            }
            if let Some((key, value)) = rules::title_field(line.text) {
                let mut e = Element::new(ElementKind::Title, value, self.span(i));
                e.key = Some(key.to_lowercase());
                fields.push(e);
            } else if let (Some(field), true) =
                (fields.last_mut(), line.text.starts_with([' ', '\t']))
            {
                // An indented line continues the last field's value.
                if !field.text.is_empty() {
                    field.text.push('\n');
                }
                field.text.push_str(line.text.trim());
                field.lines.last = line.last;
            } else {
                self.diagnostics.push(Diagnostic::info(
                    line.first,
                    "title page ends without a blank line; the script starts here",
                ));
                break;
            }
            self.take(i);
            i += 1;
        }
        self.out.extend(fields);
        self.flush_notes();
        i
    }

    /// Reads one paragraph starting at line `i` (present, not blank);
    /// returns the index of the blank line (or end) that ends it.
    fn paragraph(&mut self, mut i: usize) -> usize {
        let n = self.lines.len();
        // The current line may open a heading, cue or transition: it follows
        // a blank line, or an element that stands on its own line.
        let mut at_start = true;
        let mut g: Option<Gather> = None;
        while i < n {
            let line = self.lines[i];
            if line.gone {
                self.take(i);
                i += 1;
                continue;
            }
            if self.is_blank(i) {
                break;
            }
            let raw = line.text;
            let t = raw.trim();
            let mut own_line: Option<Element> = None;

            if t.starts_with('!') {
                // Forced action: drop the `!`, keep the indentation before it.
                let lead = raw.len() - raw.trim_start().len();
                let rest = &raw[lead + 1..];
                self.gather(&mut g, ElementKind::Action, &[&raw[..lead], rest], i);
                at_start = false;
            } else if rules::is_page_break(t) {
                own_line = Some(Element::new(ElementKind::PageBreak, "", self.span(i)));
            } else if let Some(rest) = t.strip_prefix('=') {
                own_line = Some(Element::new(
                    ElementKind::Synopsis,
                    rest.trim(),
                    self.span(i),
                ));
            } else if let Some((depth, text)) = rules::section(t) {
                let mut e = Element::new(ElementKind::Section, text, self.span(i));
                e.depth = Some(depth);
                own_line = Some(e);
            } else if let Some(rest) = t.strip_prefix('~') {
                self.gather(&mut g, ElementKind::Lyric, &[rest.trim()], i);
                at_start = false;
            } else if let Some(text) = rules::centered(t) {
                self.gather(&mut g, ElementKind::Centered, &[text], i);
                at_start = false;
            } else if let Some(text) = t.strip_prefix('>').map(str::trim).filter(|s| !s.is_empty())
            {
                own_line = Some(Element::new(ElementKind::Transition, text, self.span(i)));
                self.expect_blank_after(i, "transition");
            } else if let Some(heading) = at_start
                .then(|| rules::forced_heading(t))
                .flatten()
                .or_else(|| (at_start && rules::has_heading_prefix(t)).then_some(t))
            {
                let (text, number) = rules::split_scene_number(heading);
                let mut e = Element::new(ElementKind::SceneHeading, text, self.span(i));
                e.scene_number = number.map(str::to_string);
                own_line = Some(e);
                self.expect_blank_after(i, "scene heading");
            } else if at_start && rules::is_transition(raw.trim_start()) {
                own_line = Some(Element::new(ElementKind::Transition, t, self.span(i)));
                self.expect_blank_after(i, "transition");
            } else if let Some(cue) = at_start.then(|| self.cue(i)).flatten() {
                self.finish(&mut g);
                i = self.speech(i, cue.0, cue.1);
                at_start = false;
                continue;
            } else {
                self.gather(&mut g, ElementKind::Action, &[raw], i);
                at_start = false;
            }

            if let Some(e) = own_line {
                self.finish(&mut g);
                self.take(i);
                self.push(e);
                at_start = true;
            }
            i += 1;
        }
        self.finish(&mut g);
        i
    }

    /// A scene heading or transition should have a blank line after it; when
    /// it has text instead, that text is read as a new paragraph.
    fn expect_blank_after(&mut self, i: usize, what: &str) {
        if self.followed_by_text(i) {
            self.diagnostics.push(Diagnostic::info(
                self.lines[i].first,
                format!(
                    "{what} is not followed by a blank line; the next line starts a new paragraph"
                ),
            ));
        }
    }

    /// When line `i` (at a paragraph start) is a character cue, the cue text
    /// (forcing `@` and caret removed) and whether it carries the dual caret.
    fn cue(&mut self, i: usize) -> Option<(&'a str, bool)> {
        let t = self.lines[i].text.trim();
        if let Some(forced) = t.strip_prefix('@') {
            let (name, dual) = rules::split_dual(forced.trim_start());
            if name.is_empty() {
                return None;
            }
            if !self.followed_by_text(i) {
                self.diagnostics.push(Diagnostic::warning(
                    self.lines[i].first,
                    "forced character cue `@` has no dialogue after it",
                ));
            }
            return Some((name, dual));
        }
        let (name, dual) = rules::split_dual(t);
        (rules::is_cue(name) && self.followed_by_text(i)).then_some((name, dual))
    }

    /// Reads a speech whose cue is line `i`; returns the line where it ends:
    /// a blank line, or a forced action line that ends the speech but not the
    /// paragraph.
    fn speech(&mut self, i: usize, cue: &str, dual: bool) -> usize {
        let dual = dual && self.pair_with_last_speech(i);
        self.take(i);
        let mut e = Element::new(ElementKind::Character, cue, self.span(i));
        e.dual = dual;
        self.push(e);
        let start = self.out.len() - 1;

        let n = self.lines.len();
        let mut g: Option<Gather> = None;
        let mut j = i + 1;
        while j < n {
            let line = self.lines[j];
            if line.gone {
                self.take(j);
                j += 1;
                continue;
            }
            let t = line.text.trim();
            if t.is_empty() {
                if !is_connector(line.text) {
                    break;
                }
                // Two spaces: an empty line inside the speech.
                if g.as_ref().is_some_and(|g| g.kind == ElementKind::Dialogue) {
                    self.gather(&mut g, ElementKind::Dialogue, &[""], j);
                }
                j += 1;
                continue;
            }
            if t.starts_with('!') {
                break;
            }
            if rules::is_page_break(t) {
                self.finish(&mut g);
                self.take(j);
                self.push(Element::new(ElementKind::PageBreak, "", self.span(j)));
            } else if let Some(rest) = t.strip_prefix('~') {
                self.gather(&mut g, ElementKind::Lyric, &[rest.trim()], j);
            } else if rules::opens_paren(t) && !rules::wryly_then_words(t) {
                self.finish(&mut g);
                j = self.parenthetical(j);
            } else {
                self.gather(&mut g, ElementKind::Dialogue, &[t], j);
            }
            j += 1;
        }
        self.finish(&mut g);

        let end = self.out.len();
        for e in &mut self.out[start..end] {
            if e.kind.is_speech() {
                e.dual = dual;
            }
        }
        self.last_speech = Some((start, end));
        j
    }

    /// Emits the parenthetical opening at line `j`; returns its last line.
    /// One that does not close on its line runs to the first line of the
    /// speech that ends with `)`; when none does, it is the one line alone.
    fn parenthetical(&mut self, j: usize) -> usize {
        let t = self.lines[j].text.trim();
        let mut end = j;
        if !rules::closes_paren(t) {
            let mut k = j + 1;
            while k < self.lines.len() {
                let line = self.lines[k];
                let tk = line.text.trim();
                if !line.gone {
                    if tk.is_empty() || rules::opens_paren(tk) {
                        break;
                    }
                    if rules::closes_paren(tk) {
                        end = k;
                        break;
                    }
                }
                k += 1;
            }
            if end == j {
                self.diagnostics.push(Diagnostic::info(
                    self.lines[j].first,
                    "parenthetical `(` is not closed with `)`",
                ));
            }
        }
        let mut g = None;
        for k in j..=end {
            if !self.lines[k].gone {
                let text = self.lines[k].text.trim();
                self.gather(&mut g, ElementKind::Parenthetical, &[text], k);
            } else {
                self.take(k);
            }
        }
        self.finish(&mut g);
        end
    }

    /// Marks the speech just before a `^` cue at line `i` as the first half
    /// of a dual-dialogue pair; false (with a warning) when there is none.
    fn pair_with_last_speech(&mut self, i: usize) -> bool {
        match self.last_speech {
            Some((start, end)) => {
                for e in &mut self.out[start..end] {
                    if e.kind.is_speech() {
                        e.dual = true;
                    }
                }
                true
            }
            None => {
                self.diagnostics.push(Diagnostic::warning(
                    self.lines[i].first,
                    "dual-dialogue `^` cue has no speech right before it to pair with",
                ));
                false
            }
        }
    }
}

#[cfg(test)]
mod tests;
