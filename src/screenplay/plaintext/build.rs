//! From content lines and the column model to elements, in one pass.
//!
//! Each step looks at the line in hand and, at most, the line right after it:
//! a cue is a cue because text follows it at once at another column; a
//! heading without INT./EXT. is one because it stands alone at the action
//! column with a time of day or margin numbers. A speech or action paragraph
//! that a page break cut in two is joined back: the page's noise stays inside
//! the element's line span but out of its text.

use super::layout::{Item, Layout, Shape};
use super::lexical::{
    cue_has_contd, cue_like, cue_name, ends_sentence, is_fade_in, join_wrapped, opens_heading,
    shot_like, squeeze,
};
use super::Line;
use crate::screenplay::element::{Diagnostic, Element, ElementKind, LineSpan, Noise, NoiseKind};
use crate::screenplay::heading::parse_heading;

mod title_page;

/// Builds the element list.
pub(super) fn build(
    lines: &[Line<'_>],
    items: &[Item],
    lay: &Layout,
    noise: &mut Vec<Noise>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<Element> {
    let mut b = Builder {
        lines,
        items,
        lay,
        out: Vec::new(),
        noise,
        diagnostics,
        dual: false,
    };
    let mut k = b.title_page();
    while k < items.len() {
        k = b.element(k);
    }
    b.out
}

struct Builder<'a> {
    lines: &'a [Line<'a>],
    items: &'a [Item],
    lay: &'a Layout,
    out: Vec<Element>,
    noise: &'a mut Vec<Noise>,
    diagnostics: &'a mut Vec<Diagnostic>,
    /// Elements pushed now belong to a dual-dialogue pair.
    dual: bool,
}

/// One line of a speech body, at the column it stands at.
#[derive(Debug, Clone)]
struct SpeechLine<'a> {
    no: usize,
    indent: usize,
    text: &'a str,
}

/// A cue line holding two cues side by side.
struct DualCue {
    left: String,
    right: String,
    /// Column where the right cue starts.
    right_col: usize,
}

impl<'a> Builder<'a> {
    fn line(&self, k: usize) -> &'a Line<'a> {
        &self.lines[self.items[k].li]
    }

    fn shape(&self, k: usize) -> Shape {
        self.items[k].shape
    }

    /// The next content line when nothing (no blank line, no page break) separates it from `k`.
    fn direct(&self, k: usize) -> Option<usize> {
        (k + 1 < self.items.len()
            && !self.items[k + 1].blank_before
            && !self.items[k + 1].page_before)
            .then_some(k + 1)
    }

    /// True when line `k` is the first of a paragraph.
    fn apart_before(&self, k: usize) -> bool {
        k == 0 || self.items[k].blank_before || self.items[k].page_before
    }

    fn push(&mut self, kind: ElementKind, text: String, first: usize, last: usize) -> &mut Element {
        let mut e = Element::new(kind, text, LineSpan::new(first, last));
        e.dual = self.dual;
        self.out.push(e);
        self.out.last_mut().expect("just pushed")
    }

    /// Reads the element starting at content line `k`; returns where the next one starts.
    fn element(&mut self, k: usize) -> usize {
        if let Some(d) = self.dual_cue(k) {
            return self.dual_speeches(k, d);
        }
        let l = self.line(k);
        if self.is_transition(k) {
            self.push(ElementKind::Transition, squeeze(&l.text), l.no, l.no);
            return k + 1;
        }
        if self.is_heading(k) {
            return self.heading(k);
        }
        if self.is_speech_start(k) {
            return self.speech(k);
        }
        if self.shape(k).upper && l.indent <= self.lay.left_limit() && shot_like(&l.text) {
            self.push(ElementKind::Shot, squeeze(&l.text), l.no, l.no);
            return k + 1;
        }
        if let Some(lyric) = l.text.strip_prefix('~') {
            self.push(ElementKind::Lyric, lyric.trim().to_string(), l.no, l.no);
            return k + 1;
        }
        if self.is_lyric(k) {
            return self.lyric(k);
        }
        if self.is_centered(k) {
            let t = l.text.trim_start_matches('>').trim_end_matches('<').trim();
            self.push(ElementKind::Centered, t.to_string(), l.no, l.no);
            return k + 1;
        }
        self.action(k)
    }

    /// True when a new element starts at `k` even without a blank line before it.
    fn starts_element(&self, k: usize) -> bool {
        self.is_transition(k)
            || self.is_heading(k)
            || self.is_speech_start(k)
            || self.dual_cue(k).is_some()
    }

    fn is_transition(&self, k: usize) -> bool {
        let l = self.line(k);
        let left = l.indent <= self.lay.left_limit();
        if self.shape(k).transition {
            // At the action column only `... TO:` is a transition, as in
            // Fountain; `FADE IN:` is action there in Final Draft too. A
            // script that sets all its transitions flush left is the exception.
            return !left
                || l.text.ends_with("TO:")
                || (self.lay.flush_transitions && !is_fade_in(&l.text));
        }
        // A right-aligned upper-case line ending in a colon or period
        // (`MATCH DISSOLVE:`, `BURN TO PINK.`), set where transitions end.
        let short = l.text.chars().count() <= 30;
        if self.shape(k).upper
            && l.text.ends_with([':', '.'])
            && short
            && l.indent >= self.lay.action + 25
            && (l.indent + l.text.chars().count()).abs_diff(self.lay.transition_end) <= 2
            && self.direct(k).is_none()
        {
            return true;
        }
        // Further right than any cue, alone, and worded as a transition in
        // any case or without its colon (`SMASH CUT TO`, `Dissolve to:`), or
        // upper case with a colon or period (`BURN TO PINK.`) where
        // transitions start rather than end.
        let far_right = l.indent >= self.lay.action + 25
            && self.lay.cue.is_none_or(|c| l.indent >= c + 6)
            && self.lay.dialogue.is_none_or(|d| l.indent >= d + 12);
        if !(far_right && short && self.apart_before(k) && self.direct(k).is_none()) {
            return false;
        }
        let lower = l.text.to_lowercase();
        let bare = lower.trim_end_matches([':', '.']).trim_end();
        let worded = bare.ends_with(" to")
            || matches!(bare, "fade out" | "fade in" | "fade to black" | "cut")
            || bare.starts_with("fade to ");
        worded || (self.shape(k).upper && l.text.ends_with([':', '.']))
    }

    fn is_heading(&self, k: usize) -> bool {
        let l = self.line(k);
        if l.number.is_some() {
            return true;
        }
        let upper = self.shape(k).upper_np;
        if self.shape(k).heading {
            let alone = self.apart_before(k) && self.direct(k).is_none();
            // Upper case anywhere; otherwise alone at the action column.
            return upper || (alone && l.indent <= self.lay.left_limit());
        }
        // No INT./EXT.: an upper-case line alone at the action column that
        // ends in a time of day (`THE VAULT - NIGHT`).
        // In lower or mixed case (`the vault - night`) only when it stands
        // alone on both sides and is no sentence.
        let lower_alone = !upper
            && l.text.chars().count() <= 60
            && !ends_sentence(&l.text)
            && self.alone_after(k);
        if (upper || lower_alone)
            && l.indent <= self.lay.left_limit()
            && self.apart_before(k)
            && has_time_tail(&l.text)
            && !shot_like(&l.text)
            && self.direct(k).is_none_or(|n| !self.deeper(k, n))
        {
            return true;
        }
        self.is_slug(k)
    }

    /// A short upper-case line standing alone at the action column, a blank
    /// line on both sides, that names a place and a part of it or a time
    /// the reader does not know (`FURTHER ALONG - ROUGH PATH`,
    /// `HOSPITAL ROOM - VARIOUS SHOTS`): a scene heading with no INT./EXT.
    /// A bare upper-case line with no dash (`THE EMPTY LOT`, `ON STAGE`) is
    /// left to shots and action: writers and their software set it either
    /// way, and it does not start a scene.
    fn is_slug(&self, k: usize) -> bool {
        let l = self.line(k);
        let chars = l.text.chars().count();
        self.shape(k).upper
            && (2..=50).contains(&chars)
            && l.text.chars().any(char::is_alphabetic)
            && l.indent <= self.lay.left_limit()
            && Layout::near(l.indent, Some(self.lay.action), 2)
            && self.apart_before(k)
            && self.alone_after(k)
            && !ends_sentence(&l.text)
            && !l.text.ends_with([',', ';', '-', '&'])
            && !l.text.starts_with(['(', '"', '\'', '“', '-', '&'])
            && !self.shape(k).transition
            && !is_fade_in(&l.text)
            && !shot_like(&l.text)
            && [" - ", " -- ", " – ", " — "]
                .iter()
                .any(|dash| l.text.contains(dash))
    }

    /// True when a blank line or a page break follows line `k` (or nothing does).
    fn alone_after(&self, k: usize) -> bool {
        k + 1 >= self.items.len() || self.items[k + 1].blank_before || self.items[k + 1].page_before
    }

    /// True when line `n`, right after `k`, stands at a clearly different column.
    fn deeper(&self, k: usize, n: usize) -> bool {
        self.line(k).indent.abs_diff(self.line(n).indent) >= 2
    }

    fn heading(&mut self, k: usize) -> usize {
        let l = self.line(k);
        let mut text = squeeze(&l.text);
        let mut last = l.no;
        let mut next = k + 1;
        // A long heading wraps onto a second upper-case line at the same
        // column: a short tail, not a sentence (that is upper-case action
        // set right under the heading).
        if let Some(n) = self.direct(k) {
            let nl = self.line(n);
            if l.text.chars().count() >= 40
                && nl.indent == l.indent
                && self.shape(n).upper
                && nl.text.chars().count() <= 40
                && !ends_sentence(&nl.text)
                && !self.starts_element(n)
            {
                text.push(' ');
                text.push_str(&squeeze(&nl.text));
                last = nl.no;
                next = n + 1;
            }
        }
        if !opens_heading(&text) && l.number.is_none() {
            self.diagnostics.push(Diagnostic::info(
                l.no,
                format!("`{text}` has no INT./EXT.; read as a scene heading from its time of day"),
            ));
        } else if !opens_heading(&text) {
            self.diagnostics.push(Diagnostic::info(
                l.no,
                format!("`{text}` has no INT./EXT.; read as a scene heading from its margin scene numbers"),
            ));
        }
        let number = l.number.clone();
        self.push(ElementKind::SceneHeading, text, l.no, last)
            .scene_number = number;
        next
    }

    fn is_speech_start(&self, k: usize) -> bool {
        let l = self.line(k);
        if l.number.is_some() || !self.shape(k).cue {
            return false;
        }
        if let Some(n) = self.direct(k) {
            let nl = self.line(n);
            if nl.text.starts_with('(') || l.indent >= nl.indent + 2 {
                return true;
            }
            if nl.indent >= l.indent + 3 {
                // A cue at the action column with its speech indented, in a
                // script that sets its cues there.
                return l.indent <= self.lay.action + 2 && Layout::near(l.indent, self.lay.cue, 3);
            }
            return self.lay.flat && self.apart_before(k) && !self.shape(n).upper;
        }
        // A blank line between cue and speech: only where columns vouch for both.
        let n = k + 1;
        if n >= self.items.len() || self.items[n].page_before || !self.lay.indented_dialogue() {
            return false;
        }
        let nl = self.line(n);
        Layout::near(l.indent, self.lay.cue, 4)
            && (Layout::near(nl.indent, self.lay.dialogue, 2)
                || (nl.text.starts_with('(') && Layout::near(nl.indent, self.lay.paren, 2)))
            && !self.shape(n).cue
    }

    /// True when a line at this column belongs to a speech body.
    fn in_speech_columns(&self, indent: usize) -> bool {
        self.lay.dialogue.is_some_and(|d| indent + 2 >= d)
            && self.lay.cue.is_none_or(|c| indent + 2 < c)
    }

    fn speech(&mut self, k: usize) -> usize {
        let cue = self.line(k);
        self.push(ElementKind::Character, squeeze(&cue.text), cue.no, cue.no);
        let name = cue_name(&cue.text);
        let mut body: Vec<SpeechLine> = Vec::new();
        let mut j = k + 1;
        while j < self.items.len() {
            let it = self.items[j];
            let l = self.line(j);
            if it.page_before {
                // `(MORE)` at a page's foot and `NAME (CONT'D)` at the next
                // page's head: the same speech goes on.
                if !body.is_empty()
                    && (it.more_before || cue_has_contd(&l.text))
                    && self.shape(j).cue
                    && cue_name(&l.text) == name
                    && self.direct(j).is_some()
                {
                    self.noise.push(Noise {
                        line: l.no,
                        kind: NoiseKind::Continued,
                        text: l.text.to_string(),
                    });
                    j += 1;
                    continue;
                }
                // Some converters drop the repeated cue: the speech then
                // resumes at the dialogue column right after `(MORE)`, or,
                // with no `(MORE)` either, after a line cut mid-sentence.
                let cut = body.last().is_some_and(|b| !ends_sentence(b.text));
                let resumes = (it.more_before || cut)
                    && !body.is_empty()
                    && self.lay.indented_dialogue()
                    && self.in_speech_columns(l.indent)
                    && !self.starts_element(j);
                if !resumes {
                    break;
                }
                self.diagnostics.push(Diagnostic::info(
                    l.no,
                    if it.more_before {
                        "speech continues after (MORE) without its cue repeated"
                    } else {
                        "speech cut mid-sentence by a page break continues on the next page"
                    },
                ));
            } else if it.blank_before {
                let spaced = self.lay.double_spaced || body.is_empty();
                let goes_on = spaced
                    && self.lay.indented_dialogue()
                    && self.in_speech_columns(l.indent)
                    && !self.shape(j).cue
                    && !self.starts_element(j);
                if !goes_on {
                    break;
                }
            } else if self.ends_speech(j) {
                break;
            }
            body.push(SpeechLine {
                no: l.no,
                indent: l.indent,
                text: &l.text,
            });
            j += 1;
        }
        if body.is_empty() {
            self.diagnostics.push(Diagnostic::warning(
                cue.no,
                "character cue with no speech after it",
            ));
        }
        self.speech_body(&body);
        j
    }

    /// True when line `j`, directly under a speech line, starts something else.
    fn ends_speech(&self, j: usize) -> bool {
        let l = self.line(j);
        let d = self.lay.dialogue.unwrap_or(self.lay.action);
        if self.dual_cue(j).is_some() || (self.is_speech_start(j) && l.indent >= d + 3) {
            return true;
        }
        if self.shape(j).heading && self.shape(j).upper_np && l.indent <= self.lay.left_limit() {
            return true;
        }
        // A transition set right under the last line of a speech.
        if self.is_transition(j) && l.indent >= d + 10 {
            return true;
        }
        // Back at the action column: action written with no blank line before it.
        self.lay.indented_dialogue() && l.indent + 3 <= d && !l.text.starts_with('(')
    }

    /// Splits a speech body into parentheticals and dialogue.
    fn speech_body(&mut self, body: &[SpeechLine<'_>]) {
        let paren_col = match (self.lay.paren, self.lay.dialogue) {
            (Some(p), Some(d)) if p >= d + 2 => Some((p, d)),
            _ => None,
        };
        // A wryly is parenthesized to its end: `(beat)`, or `(looking` to be
        // closed on a later line. A line that closes its parenthesis and goes
        // on (`(to Mara) Listen.`) is dialogue, as in Fountain; so is one at
        // the dialogue column where wrylies stand deeper (dialogue that
        // wrapped before a parenthesis).
        let opens_paren = |s: &SpeechLine| {
            s.text.starts_with('(')
                && (s.text.ends_with(')') || balance(s.text) > 0)
                && paren_col.is_none_or(|(p, d)| s.indent > d + 1 || s.indent + 2 >= p)
        };
        let mut i = 0;
        while i < body.len() {
            let first = &body[i];
            if opens_paren(first) {
                let mut text = first.text.to_string();
                let mut depth = balance(first.text);
                let mut last = first.no;
                i += 1;
                while depth > 0 && i < body.len() {
                    let c = &body[i];
                    let back_out = paren_col.is_some() && c.indent + 1 < first.indent;
                    if opens_paren(c) || back_out || text.len() > 400 {
                        self.diagnostics.push(Diagnostic::warning(
                            first.no,
                            "parenthetical never closes; ended at the next line of dialogue",
                        ));
                        break;
                    }
                    join_wrapped(&mut text, c.text);
                    depth += balance(c.text);
                    last = c.no;
                    i += 1;
                }
                self.push(ElementKind::Parenthetical, text, first.no, last);
            } else {
                let mut text = String::new();
                let mut last = first.no;
                while i < body.len() && (text.is_empty() || !opens_paren(&body[i])) {
                    join_wrapped(&mut text, body[i].text);
                    last = body[i].no;
                    i += 1;
                }
                self.push(ElementKind::Dialogue, text, first.no, last);
            }
        }
    }

    /// Two cues on one line, set apart by a wide gap (`MARA      QUINTON`).
    fn dual_cue(&self, k: usize) -> Option<DualCue> {
        let l = self.line(k);
        if !l.text.starts_with(char::is_uppercase) {
            return None;
        }
        let (left, right, right_at) = split_columns(&l.text)?;
        if right.contains("   ") || !cue_like(left) || !cue_like(right) {
            return None;
        }
        self.direct(k)?;
        Some(DualCue {
            left: left.to_string(),
            right: right.to_string(),
            right_col: l.indent + right_at,
        })
    }

    /// Reads a dual-dialogue block: each body line is split at its column
    /// gap, and the two speeches are emitted one after the other.
    fn dual_speeches(&mut self, k: usize, cue: DualCue) -> usize {
        let l = self.line(k);
        let mid = (l.indent + cue.right_col) / 2;
        let mut left = Vec::new();
        let mut right = Vec::new();
        let mut j = k + 1;
        loop {
            let b = self.line(j);
            match split_columns(&b.text) {
                Some((a, c, at)) => {
                    left.push(SpeechLine {
                        no: b.no,
                        indent: b.indent,
                        text: a,
                    });
                    right.push(SpeechLine {
                        no: b.no,
                        indent: b.indent + at,
                        text: c,
                    });
                }
                None => {
                    let side = if b.indent >= mid {
                        &mut right
                    } else {
                        &mut left
                    };
                    side.push(SpeechLine {
                        no: b.no,
                        indent: b.indent,
                        text: &b.text,
                    });
                }
            }
            j += 1;
            if self.direct(j - 1).is_none() {
                break;
            }
        }
        self.diagnostics.push(Diagnostic::info(
            l.no,
            format!(
                "two speeches side by side: read as dual dialogue of {} and {}",
                cue.left, cue.right
            ),
        ));
        self.dual = true;
        self.push(ElementKind::Character, squeeze(&cue.left), l.no, l.no);
        self.speech_body(&left);
        self.push(ElementKind::Character, squeeze(&cue.right), l.no, l.no);
        self.speech_body(&right);
        self.dual = false;
        j
    }

    /// Text at the dialogue column with no cue above it: sung words (a
    /// lyric) are set there, as in Final Draft's Lyric element.
    fn is_lyric(&self, k: usize) -> bool {
        let l = self.line(k);
        self.lay.indented_dialogue()
            && Layout::near(l.indent, self.lay.dialogue, 2)
            && self.apart_before(k)
            && !self.shape(k).cue
            && !l.text.starts_with('(')
    }

    fn lyric(&mut self, k: usize) -> usize {
        let l0 = self.line(k);
        let mut text = l0.text.to_string();
        let mut last = l0.no;
        let mut j = k + 1;
        while let Some(n) = self.direct(j - 1) {
            if self.line(n).indent != l0.indent {
                break;
            }
            join_wrapped(&mut text, &self.line(n).text);
            last = self.line(n).no;
            j = n + 1;
        }
        self.diagnostics.push(Diagnostic::info(
            l0.no,
            "text at the dialogue column with no cue before it; read as a lyric",
        ));
        self.push(ElementKind::Lyric, text, l0.no, last);
        j
    }

    fn is_centered(&self, k: usize) -> bool {
        let l = self.line(k);
        if l.text.starts_with('>') && l.text.ends_with('<') && l.text.len() > 2 {
            return true;
        }
        // Within five columns of the middle of the action column's span:
        // the learned right edge is where most lines end, a little short of
        // the margin the typesetter centered on.
        let twice_mid = 2 * l.indent + l.text.chars().count();
        l.indent >= self.lay.action + 8
            && twice_mid.abs_diff(self.lay.action + self.lay.right) <= 10
            && self.direct(k).is_none()
    }

    fn action(&mut self, k: usize) -> usize {
        let l0 = self.line(k);
        let base = l0.indent;
        let mut text = l0.text.to_string();
        let mut last = l0.no;
        let mut j = k + 1;
        while j < self.items.len() {
            let it = self.items[j];
            let l = self.line(j);
            if it.page_before {
                // A paragraph cut by a page break goes on at the same column,
                // mid-sentence or in lower case. (An upper-case line alone,
                // `THE EMPTY LOT`, is a slug, not a sentence cut short.)
                let prev = &self.line(j - 1).text;
                let slug = j == k + 1 && self.shape(k).upper;
                let cut_short = !ends_sentence(prev) && !slug;
                let goes_on = l.indent.abs_diff(base) <= 1
                    && (cut_short || l.text.starts_with(char::is_lowercase))
                    && !self.starts_element(j);
                if !goes_on {
                    break;
                }
            } else if it.blank_before || l.indent.abs_diff(base) >= 4 || self.starts_element(j) {
                break;
            }
            join_wrapped(&mut text, &l.text);
            last = l.no;
            j += 1;
        }
        if base > self.lay.left_limit() {
            let why = if self.shape(k).cue {
                "upper-case line at a cue's column with no speech after it; read as action"
            } else {
                "line stands at no known column; read as action"
            };
            self.diagnostics.push(Diagnostic::info(l0.no, why));
        }
        self.push(ElementKind::Action, text, l0.no, last);
        j
    }
}

/// The text split at its first run of three or more spaces: left part, right
/// part, and the right part's offset in characters.
fn split_columns(text: &str) -> Option<(&str, &str, usize)> {
    let start = text.find("   ")?;
    let rest = &text[start..];
    let right_start = start + (rest.len() - rest.trim_start().len());
    let right = text[right_start..].trim_end();
    if right.is_empty() {
        return None;
    }
    Some((
        text[..start].trim_end(),
        right,
        text[..right_start].chars().count(),
    ))
}

/// Open parentheses minus closed ones.
fn balance(s: &str) -> i32 {
    s.chars().fold(0, |n, c| match c {
        '(' => n + 1,
        ')' => n - 1,
        _ => n,
    })
}

/// True when a heading-like line ends in a time of day after a dash (`THE VAULT - NIGHT`).
fn has_time_tail(text: &str) -> bool {
    (text.contains(" - ") || text.contains(" -- ") || text.contains(" – "))
        && parse_heading(text).time_of_day.is_some()
}
