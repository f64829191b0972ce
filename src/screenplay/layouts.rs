//! Real-world plain-text layouts rendered from a parsed screenplay, with the
//! gold tag of every line known, and per-tag line F1 of a plain-text parse
//! against them: the harness that measures the plain-text reader without
//! real scripts (`moviegraph bench parse --layouts`).
//!
//! A layout is drawn from a seed: column indents and widths, tabs, page
//! drift, margins with scene numbers, page numbers, revision headers,
//! CONTINUED/MORE, watermarks, trailing revision stars, headings without
//! INT./EXT. or in lower case, transitions without a colon or in mixed case,
//! parentheticals wrapped over lines, time cards. The same seed always
//! renders the same text.

use std::collections::BTreeMap;
use std::ops::Range;

use crate::util::metrics::{f1, share};
use crate::util::rng::SplitMix64;

use super::element::{Element, ElementKind};
use super::Screenplay;

/// The line tags scored, as the annotated real-script sets name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Tag {
    /// Scene heading (S).
    Heading,
    /// Action (N).
    Action,
    /// Character cue (C).
    Character,
    /// Dialogue (D).
    Dialogue,
    /// Parenthetical (E).
    Parenthetical,
    /// Transition (T).
    Transition,
}

impl Tag {
    /// Every tag, in table order.
    pub const ALL: [Tag; 6] = [
        Tag::Heading,
        Tag::Action,
        Tag::Character,
        Tag::Dialogue,
        Tag::Parenthetical,
        Tag::Transition,
    ];

    /// The one-letter name of the annotation scheme (S, N, C, D, E, T).
    pub fn letter(self) -> &'static str {
        match self {
            Tag::Heading => "S",
            Tag::Action => "N",
            Tag::Character => "C",
            Tag::Dialogue => "D",
            Tag::Parenthetical => "E",
            Tag::Transition => "T",
        }
    }

    /// The tag of an element kind; `None` for kinds the scheme does not tag.
    pub fn of(kind: ElementKind) -> Option<Tag> {
        Some(match kind {
            ElementKind::SceneHeading => Tag::Heading,
            ElementKind::Action | ElementKind::Shot | ElementKind::Centered => Tag::Action,
            ElementKind::Character => Tag::Character,
            ElementKind::Dialogue | ElementKind::Lyric => Tag::Dialogue,
            ElementKind::Parenthetical => Tag::Parenthetical,
            ElementKind::Transition => Tag::Transition,
            _ => return None,
        })
    }
}

/// A number in `range` (not empty).
fn within(r: &mut SplitMix64, range: Range<usize>) -> usize {
    range.start + r.below(range.end - range.start)
}

/// True with probability `p`.
fn chance(r: &mut SplitMix64, p: f64) -> bool {
    r.unit() < p
}

/// What a layout does; drawn from a seed by [`Layout::draw`].
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// Spaces before action and headings.
    pub action_indent: usize,
    /// Spaces before dialogue.
    pub dialogue_indent: usize,
    /// Spaces before parentheticals.
    pub paren_indent: usize,
    /// Spaces before character cues.
    pub cue_indent: usize,
    /// Spaces before transitions (right side of the page).
    pub transition_indent: usize,
    /// Action wraps at this width.
    pub action_width: usize,
    /// Dialogue wraps at this width.
    pub dialogue_width: usize,
    /// Parentheticals wrap at this width (wrapped ones run over lines).
    pub paren_width: usize,
    /// Lines per page (page furniture is written between pages).
    pub page_lines: usize,
    /// Each page shifts every column by up to this many spaces.
    pub drift: usize,
    /// Leading spaces written as tabs of this width (0: spaces).
    pub tab_width: usize,
    /// Scene numbers in both margins of headings.
    pub margin_numbers: bool,
    /// A page number at the top of every page.
    pub page_numbers: bool,
    /// A revision header with a date at the top of every page.
    pub revision_header: bool,
    /// `(CONTINUED)` / `CONTINUED:` around page breaks.
    pub continued: bool,
    /// `(MORE)` and `(CONT'D)` where a speech crosses a page.
    pub more: bool,
    /// A watermark line on every page.
    pub watermark: bool,
    /// Share of lines that carry a trailing revision `*`.
    pub stars: f64,
    /// Share of headings written without INT./EXT.
    pub bare_headings: f64,
    /// Share of headings written `INT` without the dot.
    pub dotless_headings: f64,
    /// Share of headings in lower or mixed case.
    pub lower_headings: f64,
    /// Share of transitions in mixed case or without a colon.
    pub loose_transitions: f64,
    /// Blank line between a cue and its speech.
    pub blank_after_cue: bool,
    /// Blank lines between paragraphs (1 or 2).
    pub paragraph_gap: usize,
    /// The first speakers are renamed to names that hold `INT`, `EXT` or
    /// `CUT` (`INTERN`, `CUTTER`), which a reader keyed on words mistakes
    /// for headings and transitions.
    pub tricky_names: bool,
    /// Share of scenes that open with an upper-case card under the heading
    /// (`THREE WEEKS LATER`, `SUPER: "PARIS, 1987"`), tagged action.
    pub time_cards: f64,
    /// Margin scene numbers written against the heading (`12INT. HALL`,
    /// `12 INT. HALL`) and only on the left, as converters leave them.
    pub glued_numbers: bool,
    /// Share of action and dialogue lines with a PDF-to-text slip in them
    /// (`0` for `O`, `l` for `I`, a comma for a period, a split word).
    pub ocr: f64,
}

impl Layout {
    /// The layout of `seed`: every choice drawn once, deterministically.
    pub fn draw(seed: u64) -> Layout {
        let mut r = SplitMix64::new(seed ^ 0x5c12_9e1d_0000_0000);
        let action_indent = within(&mut r, 0..16);
        let dialogue_indent = action_indent + within(&mut r, 6..18);
        let paren_indent = dialogue_indent + within(&mut r, 2..9);
        let cue_indent = paren_indent + within(&mut r, 3..14);
        Layout {
            action_indent,
            dialogue_indent,
            paren_indent,
            cue_indent,
            transition_indent: cue_indent + within(&mut r, 8..24),
            action_width: within(&mut r, 52..72),
            dialogue_width: within(&mut r, 28..42),
            paren_width: within(&mut r, 14..30),
            page_lines: within(&mut r, 48..62),
            drift: if chance(&mut r, 0.4) {
                within(&mut r, 1..4)
            } else {
                0
            },
            tab_width: if chance(&mut r, 0.2) { 8 } else { 0 },
            margin_numbers: chance(&mut r, 0.35),
            page_numbers: chance(&mut r, 0.7),
            revision_header: chance(&mut r, 0.25),
            continued: chance(&mut r, 0.35),
            more: chance(&mut r, 0.5),
            watermark: chance(&mut r, 0.15),
            stars: if chance(&mut r, 0.2) { 0.05 } else { 0.0 },
            bare_headings: if chance(&mut r, 0.3) { 0.3 } else { 0.0 },
            dotless_headings: if chance(&mut r, 0.25) { 0.5 } else { 0.0 },
            lower_headings: if chance(&mut r, 0.15) { 0.5 } else { 0.0 },
            loose_transitions: if chance(&mut r, 0.3) { 0.6 } else { 0.0 },
            blank_after_cue: chance(&mut r, 0.08),
            paragraph_gap: if chance(&mut r, 0.15) { 2 } else { 1 },
            // Drawn last, so the layouts drawn before these existed keep
            // every earlier choice.
            tricky_names: chance(&mut r, 0.25),
            time_cards: if chance(&mut r, 0.25) { 0.15 } else { 0.0 },
            glued_numbers: chance(&mut r, 0.3),
            ocr: if chance(&mut r, 0.2) { 0.04 } else { 0.0 },
        }
    }
}

/// A rendered script: its text and, per line, the gold tag (`None` for a
/// blank line or page furniture the reader should set aside).
#[derive(Debug, Clone)]
pub struct Rendered {
    /// The plain text.
    pub text: String,
    /// The gold tag of each line (index 0 is line 1).
    pub tags: Vec<Option<Tag>>,
}

struct Writer<'a> {
    layout: &'a Layout,
    rng: SplitMix64,
    lines: Vec<(String, Option<Tag>)>,
    page: usize,
    on_page: usize,
    shift: isize,
    scene: usize,
    /// The speaker of the speech being written (for `(CONT'D)` after a break).
    speaking: Option<String>,
    /// Speakers renamed by [`Layout::tricky_names`], in order of appearance.
    renamed: Vec<(String, &'static str)>,
    /// The page is full: the next story line starts a new one (blank lines
    /// in between are dropped, as at the top of a printed page).
    full: bool,
}

impl Writer<'_> {
    fn indent(&self, n: usize) -> String {
        let n = (n as isize + self.shift).max(0) as usize;
        match n.checked_div(self.layout.tab_width) {
            Some(tabs) => format!(
                "{}{}",
                "\t".repeat(tabs),
                " ".repeat(n - tabs * self.layout.tab_width)
            ),
            None => " ".repeat(n),
        }
    }

    fn furniture(&mut self, text: String) {
        self.lines.push((text, None));
    }

    fn blank(&mut self) {
        if self.full {
            return;
        }
        self.lines.push((String::new(), None));
        self.count();
    }

    fn count(&mut self) {
        self.on_page += 1;
        // A cue is kept with its speech, as screenwriting software does.
        let after_cue = self
            .lines
            .iter()
            .rev()
            .find(|l| !l.0.trim().is_empty())
            .is_some_and(|l| l.1 == Some(Tag::Character));
        if self.on_page >= self.layout.page_lines && !after_cue {
            self.full = true;
        }
    }

    /// Starts a new page when the last one is full. Called before a story
    /// line is written, so a speech that ended at a page's foot gets no
    /// `(MORE)` and the new page's drift applies to the line.
    fn turn_page_if_full(&mut self) {
        if std::mem::take(&mut self.full) {
            self.break_page();
        }
    }

    fn break_page(&mut self) {
        let l = self.layout;
        if l.more && self.speaking.is_some() {
            let line = format!("{}(MORE)", self.indent(l.cue_indent));
            self.furniture(line);
        }
        if l.watermark {
            // A footer on every page, as a PDF's text layer gives it.
            self.furniture(String::new());
            let line = format!("{}PROPERTY OF NORTHLIGHT PICTURES", self.indent(20));
            self.furniture(line);
        }
        if l.continued {
            let line = format!("{}(CONTINUED)", self.indent(l.transition_indent));
            self.furniture(line);
        }
        self.furniture("\u{c}".into());
        self.page += 1;
        self.on_page = 0;
        if l.drift > 0 {
            self.shift = self.rng.below(2 * l.drift + 1) as isize - l.drift as isize;
        }
        // The revision header shares the page number's line, as Final Draft
        // prints them.
        let number = format!("{}.", self.page + 1);
        let top = match (l.revision_header, l.page_numbers) {
            (true, numbered) => {
                let rev = format!(
                    "Rev. {:02}/{:02}/20{:02} (Blue)",
                    1 + self.page % 12,
                    1 + self.page % 28,
                    10 + self.page % 14
                );
                let mut line = format!("{}{rev}", self.indent(l.action_indent));
                if numbered {
                    let pad = (l.transition_indent + 6).saturating_sub(line.chars().count());
                    line = format!("{line}{}{number}", " ".repeat(pad.max(4)));
                }
                Some(line)
            }
            (false, true) => Some(format!("{}{number}", " ".repeat(l.transition_indent + 6))),
            (false, false) => None,
        };
        if let Some(top) = top {
            self.furniture(top);
            self.furniture(String::new());
        }
        if l.continued {
            self.furniture(format!("{}CONTINUED:", self.indent(l.action_indent)));
        }
        if l.more {
            if let Some(who) = self.speaking.clone() {
                // A cue of its own: annotators tag it C.
                let line = format!("{}{who} (CONT'D)", self.indent(l.cue_indent));
                self.lines.push((line, Some(Tag::Character)));
            }
        }
    }

    fn star(&mut self, line: String) -> String {
        if self.layout.stars > 0.0 && chance(&mut self.rng, self.layout.stars) {
            let pad = (self.layout.action_width + self.layout.action_indent + 4)
                .saturating_sub(line.chars().count())
                .max(2);
            format!("{line}{}*", " ".repeat(pad))
        } else {
            line
        }
    }

    fn put(&mut self, indent: usize, text: &str, tag: Tag) {
        self.turn_page_if_full();
        let line = format!("{}{text}", self.indent(indent));
        let line = self.star(line);
        self.lines.push((line, Some(tag)));
        self.count();
    }

    fn paragraph(&mut self, indent: usize, width: usize, text: &str, tag: Tag) {
        for row in text.split('\n') {
            for wrapped in wrap(row, width) {
                let slip = matches!(tag, Tag::Action | Tag::Dialogue)
                    && self.layout.ocr > 0.0
                    && chance(&mut self.rng, self.layout.ocr);
                let wrapped = if slip {
                    ocr_slip(&mut self.rng, &wrapped)
                } else {
                    wrapped
                };
                self.put(indent, &wrapped, tag);
            }
        }
    }

    /// The cue and speaker as this layout writes them: with
    /// [`Layout::tricky_names`], the first speakers take names that hold
    /// heading and transition words.
    fn rename(&mut self, cue: String, speaker: String) -> (String, String) {
        if !self.layout.tricky_names {
            return (cue, speaker);
        }
        let known = self.renamed.iter().find(|(from, _)| *from == speaker);
        let to = match known {
            Some((_, to)) => *to,
            None if self.renamed.len() < TRICKY_NAMES.len() => {
                let to = TRICKY_NAMES[self.renamed.len()];
                self.renamed.push((speaker.clone(), to));
                to
            }
            None => return (cue, speaker),
        };
        match cue.strip_prefix(speaker.as_str()) {
            Some(rest) => (format!("{to}{rest}"), to.to_string()),
            None => (cue, speaker),
        }
    }

    fn gap(&mut self) {
        for _ in 0..self.layout.paragraph_gap {
            self.blank();
        }
    }
}

/// Words of `text` in lines of at most `width` characters (a longer word
/// stands alone).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            out.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push(line);
    }
    out
}

/// Names given to the first speakers by [`Layout::tricky_names`].
const TRICKY_NAMES: [&str; 4] = ["INTERN", "CUTTER", "EXTON", "DR. INTERLANDI"];

/// Cards set under a heading by [`Layout::time_cards`].
const TIME_CARDS: [&str; 6] = [
    "LATER",
    "THREE WEEKS LATER",
    "5 YEARS LATER",
    "THE NEXT MORNING",
    "SUPER: \"PARIS, 1987\"",
    "TITLE CARD: TWO DAYS EARLIER",
];

/// One slip of a PDF's text layer in `line`: a letter read as a digit or
/// the other way round, a period read as a comma, or a word split by a
/// space. The line keeps its length to within a character.
fn ocr_slip(rng: &mut SplitMix64, line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let swaps: Vec<usize> = chars
        .iter()
        .enumerate()
        .filter(|(_, c)| matches!(c, 'O' | 'o' | 'I' | 'l' | '.' | 'e'))
        .map(|(i, _)| i)
        .collect();
    if swaps.is_empty() || rng.below(4) == 0 {
        // Split a word of four letters or more after its second letter.
        let words: Vec<usize> = (0..chars.len().saturating_sub(3))
            .filter(|&i| {
                (i == 0 || chars[i - 1] == ' ') && chars[i..i + 4].iter().all(|c| c.is_alphabetic())
            })
            .collect();
        let Some(&at) = words.get(rng.below(words.len().max(1))) else {
            return line.to_string();
        };
        let mut out: String = chars[..at + 2].iter().collect();
        out.push(' ');
        out.extend(&chars[at + 2..]);
        return out;
    }
    let at = swaps[rng.below(swaps.len())];
    let mut out = chars.clone();
    out[at] = match chars[at] {
        'O' => '0',
        'o' => '0',
        'I' => 'l',
        'l' => '1',
        '.' => ',',
        _ => 'c',
    };
    out.into_iter().collect()
}

/// `INT. KITCHEN - NIGHT` as a layout writes it: without its prefix, `INT`
/// without the dot, in lower case.
fn heading_text(w: &mut Writer<'_>, text: &str) -> String {
    let l = w.layout;
    let mut t = text.to_owned();
    let upper = t.to_uppercase();
    let prefix = ["INT./EXT. ", "INT/EXT. ", "EXT. ", "INT. ", "I/E. "]
        .into_iter()
        .find(|p| upper.starts_with(p));
    if let Some(p) = prefix {
        if l.bare_headings > 0.0 && chance(&mut w.rng, l.bare_headings) {
            t = t[p.len()..].to_owned();
        } else if l.dotless_headings > 0.0 && chance(&mut w.rng, l.dotless_headings) {
            t = format!("{} {}", p.trim_end().trim_end_matches('.'), &t[p.len()..]);
        }
    }
    if l.lower_headings > 0.0 && chance(&mut w.rng, l.lower_headings) {
        t = t.to_lowercase();
    }
    t
}

fn transition_text(w: &mut Writer<'_>, text: &str) -> String {
    let l = w.layout;
    if l.loose_transitions > 0.0 && chance(&mut w.rng, l.loose_transitions) {
        let bare = text.trim_end_matches(':').trim();
        let mut mixed: String = bare
            .split(' ')
            .map(|word| {
                let mut c = word.chars();
                match c.next() {
                    Some(f) => f.to_uppercase().collect::<String>() + &c.as_str().to_lowercase(),
                    None => String::new(),
                }
            })
            .collect::<Vec<_>>()
            .join(" ");
        if chance(&mut w.rng, 0.5) {
            mixed.push(':');
        }
        if chance(&mut w.rng, 0.5) {
            mixed = bare.to_owned();
        }
        mixed
    } else {
        text.to_owned()
    }
}

/// Renders the story elements of `play` in `layout`; `seed` draws the
/// per-line choices (which headings lose their prefix, where stars fall).
pub fn render(play: &Screenplay, layout: &Layout, seed: u64) -> Rendered {
    let mut w = Writer {
        layout,
        rng: SplitMix64::new(seed),
        lines: Vec::new(),
        page: 0,
        on_page: 0,
        shift: 0,
        scene: 0,
        speaking: None,
        renamed: Vec::new(),
        full: false,
    };
    let story: Vec<&Element> = play
        .elements
        .iter()
        .filter(|e| Tag::of(e.kind).is_some() && !e.text.trim().is_empty())
        .collect();
    for (k, e) in story.iter().enumerate() {
        let next = story.get(k + 1).map(|n| n.kind);
        match e.kind {
            ElementKind::SceneHeading => {
                w.speaking = None;
                w.turn_page_if_full();
                w.scene += 1;
                let text = heading_text(&mut w, e.text.trim());
                let line = if layout.margin_numbers {
                    let n = w.scene.to_string();
                    // The heading's text drifts with its page.
                    let column = (layout.action_indent as isize + w.shift).max(0) as usize;
                    if layout.glued_numbers {
                        let gap = if chance(&mut w.rng, 0.5) { "" } else { " " };
                        format!("{}{n}{gap}{text}", w.indent(layout.action_indent))
                    } else {
                        let body = format!(
                            "{n}{}{text}",
                            " ".repeat(column.saturating_sub(n.len()).max(3))
                        );
                        let pad = (layout.transition_indent + 14)
                            .saturating_sub(body.chars().count())
                            .max(3);
                        format!("{body}{}{n}", " ".repeat(pad))
                    }
                } else {
                    format!("{}{text}", w.indent(layout.action_indent))
                };
                w.lines.push((line, Some(Tag::Heading)));
                w.count();
                w.gap();
                if layout.time_cards > 0.0 && chance(&mut w.rng, layout.time_cards) {
                    let card = TIME_CARDS[w.rng.below(TIME_CARDS.len())];
                    w.put(layout.action_indent, card, Tag::Action);
                    w.gap();
                }
            }
            ElementKind::Character => {
                let mut cue = e.text.trim().to_owned();
                if let Some(x) = &e.extension {
                    if !cue.contains('(') {
                        cue = format!("{cue} ({x})");
                    }
                }
                let speaker = e.speaker.clone().unwrap_or_else(|| cue.clone());
                let (cue, speaker) = w.rename(cue, speaker);
                // A new page starts before the cue, not inside the speech.
                w.speaking = None;
                w.turn_page_if_full();
                w.speaking = Some(speaker);
                w.put(layout.cue_indent, &cue, Tag::Character);
                if layout.blank_after_cue {
                    w.blank();
                }
            }
            ElementKind::Parenthetical => {
                let text = e.text.trim();
                w.paragraph(
                    layout.paren_indent,
                    layout.paren_width,
                    text,
                    Tag::Parenthetical,
                );
            }
            ElementKind::Dialogue | ElementKind::Lyric => {
                w.paragraph(
                    layout.dialogue_indent,
                    layout.dialogue_width,
                    e.text.trim(),
                    Tag::Dialogue,
                );
                if !matches!(
                    next,
                    Some(ElementKind::Parenthetical | ElementKind::Dialogue)
                ) {
                    w.speaking = None;
                    w.gap();
                }
            }
            ElementKind::Transition => {
                w.speaking = None;
                let text = transition_text(&mut w, e.text.trim());
                w.put(layout.transition_indent, &text, Tag::Transition);
                w.gap();
            }
            _ => {
                w.speaking = None;
                w.paragraph(
                    layout.action_indent,
                    layout.action_width,
                    e.text.trim(),
                    Tag::Action,
                );
                w.gap();
            }
        }
    }
    let mut text = String::new();
    let mut tags = Vec::with_capacity(w.lines.len());
    for (line, tag) in w.lines {
        text.push_str(&line);
        text.push('\n');
        tags.push(tag);
    }
    Rendered { text, tags }
}

/// Line counts of one tag: gold lines, predicted lines, lines both agree on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TagCount {
    /// Lines whose gold tag it is.
    pub gold: usize,
    /// Lines the parse gave this tag.
    pub predicted: usize,
    /// Lines with this tag in both.
    pub agreed: usize,
}

impl TagCount {
    /// agreed / predicted (1 when nothing was predicted).
    pub fn precision(&self) -> f64 {
        share(self.agreed, self.predicted)
    }
    /// agreed / gold (1 when there was nothing to find).
    pub fn recall(&self) -> f64 {
        share(self.agreed, self.gold)
    }
    /// The harmonic mean of precision and recall.
    pub fn f1(&self) -> f64 {
        f1(self.precision(), self.recall())
    }
}

/// Per-tag line counts, summed over scripts and layouts.
pub type TagCounts = BTreeMap<Tag, TagCount>;

/// The tag a parse gives each of the first `n` lines of its text: the tag
/// of the element whose lines enclose it, unless the parse set it aside as
/// noise (`None`: noise, a blank line, or a kind the scheme does not tag).
/// A margin scene number shares its line with the heading it numbers and a
/// revision star with the line it marks; a speaker's cue repeated after a
/// page break (`KATE (CONT'D)`) is set aside to keep the speech whole, and
/// is a cue line all the same.
pub fn line_tags(parsed: &Screenplay, n: usize) -> Vec<Option<Tag>> {
    tags_of(&parsed.elements, &parsed.noise, n)
}

/// [`line_tags`] of a reader's elements and noise.
pub fn tags_of(
    elements: &[Element],
    noise: &[super::element::Noise],
    n: usize,
) -> Vec<Option<Tag>> {
    let mut predicted: Vec<Option<Tag>> = vec![None; n];
    for e in elements {
        let Some(tag) = Tag::of(e.kind) else { continue };
        for line in e.lines.first..=e.lines.last.min(n) {
            if line >= 1 {
                predicted[line - 1] = Some(tag);
            }
        }
    }
    for noise in noise {
        if !(1..=n).contains(&noise.line) {
            continue;
        }
        predicted[noise.line - 1] = match noise.kind {
            super::element::NoiseKind::SceneNumber | super::element::NoiseKind::RevisionMark => {
                continue
            }
            super::element::NoiseKind::Continued if repeated_cue(&noise.text) => {
                Some(Tag::Character)
            }
            _ => None,
        };
    }
    predicted
}

/// Scores a parse of `rendered.text` line by line (the tags of
/// [`line_tags`]). A blank line is not scored; page furniture read as a tag
/// counts against that tag's precision.
pub fn score(rendered: &Rendered, parsed: &Screenplay, into: &mut TagCounts) {
    let predicted = line_tags(parsed, rendered.tags.len());
    let text_lines: Vec<&str> = rendered.text.split('\n').collect();
    for (i, (&gold, &got)) in rendered.tags.iter().zip(&predicted).enumerate() {
        if text_lines.get(i).is_none_or(|l| l.trim().is_empty()) {
            continue;
        }
        if let Some(g) = gold {
            into.entry(g).or_default().gold += 1;
        }
        if let Some(p) = got {
            into.entry(p).or_default().predicted += 1;
        }
        if let (Some(g), Some(p)) = (gold, got) {
            if g == p {
                into.entry(g).or_default().agreed += 1;
            }
        }
    }
}

/// `KATE (CONT'D)`: a name in capitals with a continuation mark, not the
/// `CONTINUED` of a page's edge.
fn repeated_cue(text: &str) -> bool {
    let t = text.trim();
    let upper = t.to_uppercase();
    !t.starts_with('(')
        && !upper.starts_with("CONTINUED")
        && (upper.contains("CONT'D") || upper.contains("CONT’D") || upper.contains("(CONT"))
}

#[cfg(test)]
mod tests;
