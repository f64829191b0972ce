//! The column model of one script, learned from its own lines.
//!
//! Speeches are the anchor: a short upper-case line followed at once (no
//! blank line) by text at another column is a cue, and what follows it gives
//! the dialogue and parenthetical columns; in scripts that set most cues a
//! blank line above their speech, those are the cues. Everything outside
//! speeches gives the action column (the most common indent of long lines,
//! in any case: some scripts write action in capitals) and the right edge
//! action wraps at. Modes, not fixed numbers, so a script set
//! at any margins, or with dialogue not indented at all, reads the same.

use super::lexical::{cue_like, is_upper, is_upper_outside_parens, opens_heading, transition_like};
use super::Line;
use crate::screenplay::element::NoiseKind;

/// A content line as the classifier sees it: noise and blank lines are gone,
/// and what stood between it and the previous content line is summed up.
#[derive(Debug, Clone, Copy)]
pub(super) struct Item {
    /// Index into the line list.
    pub li: usize,
    /// Blank lines between it and the previous content line.
    pub blanks: usize,
    /// A paragraph break separates it from the previous content line: a
    /// blank line (two in double-spaced text).
    pub blank_before: bool,
    /// A page break (form feed, page number, header, `CONTINUED`) separates them.
    pub page_before: bool,
    /// A `(MORE)` separates them.
    pub more_before: bool,
    /// What the line's text looks like, worked out once.
    pub shape: Shape,
}

/// The shape of a line's text, from [`super::lexical`]: computed once per
/// line because the classifier asks again and again.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Shape {
    /// No lower-case letter (see [`is_upper`]).
    pub upper: bool,
    /// No lower-case letter outside parentheses.
    pub upper_np: bool,
    /// Could be a character cue ([`cue_like`]).
    pub cue: bool,
    /// Opens with INT./EXT. and the like.
    pub heading: bool,
    /// Reads as a transition ([`transition_like`]).
    pub transition: bool,
}

impl Shape {
    fn of(text: &str) -> Shape {
        let upper_np = is_upper_outside_parens(text);
        Shape {
            upper: upper_np && is_upper(text),
            upper_np,
            // (`McCLANE` has lower case, so no upper-case test first.)
            cue: !text.starts_with(char::is_lowercase) && cue_like(text),
            heading: opens_heading(text),
            transition: transition_like(text),
        }
    }
}

/// The content lines of `lines`, in order.
///
/// In double-spaced text (a blank line after nearly every line) one blank
/// line is the typist's spacing and only two or more end a paragraph; the
/// items then say so, and nothing downstream needs to know.
pub(super) fn items(lines: &[Line<'_>]) -> Vec<Item> {
    let mut out = Vec::with_capacity(lines.len());
    let (mut blanks, mut page, mut more) = (0usize, false, false);
    for (li, line) in lines.iter().enumerate() {
        page |= line.page_start;
        match line.noise {
            Some(NoiseKind::More) => more = true,
            Some(NoiseKind::PageNumber | NoiseKind::HeaderFooter | NoiseKind::Continued) => {
                page = true
            }
            Some(_) => {}
            None if line.text.is_empty() => blanks += 1,
            None => {
                out.push(Item {
                    li,
                    blanks,
                    blank_before: blanks > 0,
                    page_before: page,
                    more_before: more,
                    shape: Shape::of(&line.text),
                });
                (blanks, page, more) = (0, false, false);
            }
        }
    }
    if double_spaced(&out) {
        for it in &mut out {
            it.blank_before = it.blanks >= 2;
        }
    }
    out
}

/// True when nearly every content line has a blank line before it.
fn double_spaced(items: &[Item]) -> bool {
    let apart = items.iter().filter(|i| i.blanks > 0).count();
    items.len() >= 20 && apart * 100 >= items.len() * 85
}

/// The learned columns (0-based character columns).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Layout {
    /// Where action paragraphs (and usually headings) start.
    pub action: usize,
    /// The column action text wraps before (its usual right edge).
    pub right: usize,
    /// Where cues start (their mode; centered cues vary around it).
    pub cue: Option<usize>,
    /// Where dialogue lines start.
    pub dialogue: Option<usize>,
    /// Where parentheticals start.
    pub paren: Option<usize>,
    /// Nearly every line has a blank line before it (double-spaced text).
    pub double_spaced: bool,
    /// Cues stand at the same column as their dialogue (Fountain-like
    /// text): a cue is then told by case and the blank line before it.
    pub flat: bool,
    /// Transitions (`CUT TO:`) stand at the action column, not at the right.
    pub flush_transitions: bool,
    /// The column right-aligned transitions end at.
    pub transition_end: usize,
}

impl Layout {
    /// Learns the columns of the script whose content lines are `items`.
    pub fn learn(lines: &[Line<'_>], items: &[Item]) -> Layout {
        let line = |k: usize| &lines[items[k].li];
        let direct = |k: usize| {
            k + 1 < items.len() && !items[k + 1].blank_before && !items[k + 1].page_before
        };
        let mut cue = Hist::default();
        let mut dialogue = Hist::default();
        let mut paren = Hist::default();
        let mut in_speech = vec![false; items.len()];
        let mut flat_cues = 0usize;
        for k in 0..items.len() {
            if in_speech[k] || !direct(k) || line(k).number.is_some() || !items[k].shape.cue {
                continue;
            }
            let (c, n) = (line(k), line(k + 1));
            let starts_paren = n.text.starts_with('(');
            if c.indent.abs_diff(n.indent) < 3 && !starts_paren {
                if c.indent == n.indent
                    && !items[k + 1].shape.upper
                    && (k == 0 || items[k].blank_before)
                {
                    flat_cues += 1;
                }
                continue;
            }
            cue.add(c.indent);
            in_speech[k] = true;
            let mut j = k + 1;
            loop {
                in_speech[j] = true;
                let t = &line(j).text;
                if t.starts_with('(') {
                    // Only whole wrylies vouch for the column: a line like
                    // `(to Mara) Listen.` is dialogue.
                    if t.ends_with(')') {
                        paren.add(line(j).indent);
                    }
                } else if j == k + 1
                    || !line(j - 1).text.starts_with('(')
                    || line(j - 1).text.ends_with(')')
                {
                    dialogue.add(line(j).indent);
                }
                if !direct(j) {
                    break;
                }
                j += 1;
            }
        }

        // Some scripts put a blank line between cue and speech. Take the
        // column most such "cues" are followed at as the dialogue column,
        // and only the cues followed there, so that upper-case action lines
        // followed by action do not count. They are used when they outnumber
        // the cues read above (a few short upper-case lines right above an
        // indented line are found in any script).
        let loose = |k: usize| {
            k + 1 < items.len()
                && items[k + 1].blank_before
                && !items[k + 1].page_before
                && line(k).number.is_none()
                && items[k].shape.cue
                && !items[k + 1].shape.cue
                && line(k + 1).indent + 3 <= line(k).indent
        };
        let mut next = Hist::default();
        for k in (0..items.len()).filter(|&k| !in_speech[k] && loose(k)) {
            if !line(k + 1).text.starts_with('(') {
                next.add(line(k + 1).indent);
            }
        }
        if let Some(d) = next.mode() {
            let followed = |k: usize| {
                !in_speech[k] && loose(k) && {
                    let n = line(k + 1);
                    n.indent.abs_diff(d) <= 2 || n.text.starts_with('(')
                }
            };
            let loose_cues: Vec<usize> = (0..items.len()).filter(|&k| followed(k)).collect();
            if loose_cues.len() >= 3 && loose_cues.len() > cue.total {
                (cue, dialogue, paren) = (Hist::default(), Hist::default(), Hist::default());
                in_speech.iter_mut().for_each(|s| *s = false);
                for k in loose_cues {
                    cue.add(line(k).indent);
                    in_speech[k] = true;
                    let mut j = k + 1;
                    loop {
                        in_speech[j] = true;
                        if line(j).text.starts_with('(') {
                            paren.add(line(j).indent);
                        } else {
                            dialogue.add(line(j).indent);
                        }
                        if !direct(j) {
                            break;
                        }
                        j += 1;
                    }
                }
            }
        }

        let mut action = Hist::default();
        let mut fallback = Hist::default();
        for k in (0..items.len()).filter(|&k| !in_speech[k]) {
            let l = line(k);
            fallback.add(l.indent);
            if l.text.chars().count() >= 25 {
                action.add(l.indent);
            }
        }
        let mut action_col = action.mode().or(fallback.mode()).unwrap_or(0);
        // A script of speeches with little or no action has more long lines
        // outside speeches at the dialogue column (speeches whose cue was
        // missed) than action: when the two meet in a script whose cues
        // stand well right of its dialogue, the action is what stands
        // clearly left of the dialogue column, or the left margin if
        // nothing does.
        let speeches_indented = cue.total >= 3
            && matches!((cue.mode(), dialogue.mode()), (Some(c), Some(d)) if c >= d + 4);
        // Unless the scenes say otherwise: in a script that indents its
        // action to the dialogue column and keeps its headings at the
        // margin, the paragraph that opens a scene (after its heading, not
        // a speech) stands at the dialogue column.
        let opens_at = |d: usize| {
            let (mut at, mut left_of) = (0usize, 0usize);
            for (k, item) in items.iter().enumerate().take(items.len().saturating_sub(1)) {
                let next = k + 1;
                if item.shape.heading && line(k).indent + 4 <= d && !in_speech[next] {
                    if line(next).indent.abs_diff(d) <= 1 {
                        at += 1;
                    } else if line(next).indent + 4 <= d {
                        left_of += 1;
                    }
                }
            }
            at >= 2 && at > 2 * left_of
        };
        if let Some(d) = dialogue.mode().filter(|d| {
            speeches_indented && d.abs_diff(action_col) <= 2 && *d >= 4 && !opens_at(*d)
        }) {
            let mut left = Hist::default();
            for k in 0..items.len() {
                if line(k).indent + 4 <= d {
                    left.add(line(k).indent);
                }
            }
            action_col = left.mode().unwrap_or(0);
        }
        // The right edge: the 90th percentile of where action lines end,
        // so a single unwrapped paragraph does not move it.
        let mut ends: Vec<usize> = (0..items.len())
            .filter(|&k| !in_speech[k] && line(k).indent.abs_diff(action_col) <= 1)
            .map(|k| line(k).indent + line(k).text.chars().count())
            .collect();
        ends.sort_unstable();
        let right = ends
            .get(ends.len().saturating_sub(1) * 9 / 10)
            .copied()
            .unwrap_or(action_col + 60)
            .max(action_col + 20);

        // Transitions: flush left or right-aligned, and where the right ones end.
        let mut ends_at = Hist::default();
        let (mut flush, mut right_set) = (0usize, 0usize);
        for k in 0..items.len() {
            let l = line(k);
            if !in_speech[k] && items[k].shape.transition && l.text.ends_with("TO:") {
                if l.indent <= action_col + 2 {
                    flush += 1;
                } else {
                    right_set += 1;
                    ends_at.add(l.indent + l.text.chars().count());
                }
            }
        }
        let double_spaced = double_spaced(items);
        let flat = flat_cues >= 3 && flat_cues > cue.total;
        Layout {
            action: action_col,
            right,
            cue: cue.mode(),
            dialogue: dialogue.mode(),
            paren: paren.mode(),
            double_spaced,
            flat,
            flush_transitions: flush > right_set,
            transition_end: ends_at.mode().unwrap_or(right),
        }
    }

    /// True when dialogue is indented from action, so a column alone tells them apart.
    pub fn indented_dialogue(&self) -> bool {
        self.dialogue.is_some_and(|d| d >= self.action + 4)
    }

    /// The rightmost column a heading, shot or action paragraph may start at.
    pub fn left_limit(&self) -> usize {
        match (self.dialogue, self.cue) {
            (Some(d), _) if d >= self.action + 4 => d - 2,
            (_, Some(c)) if c >= self.action + 6 => (self.action + c) / 2,
            _ => self.action + 6,
        }
    }

    /// True when `indent` is within `slack` columns of `col`.
    pub fn near(indent: usize, col: Option<usize>, slack: usize) -> bool {
        col.is_some_and(|c| indent.abs_diff(c) <= slack)
    }
}

/// A histogram of columns.
#[derive(Debug, Default)]
struct Hist {
    counts: Vec<usize>,
    total: usize,
}

impl Hist {
    fn add(&mut self, col: usize) {
        let col = col.min(255);
        if self.counts.len() <= col {
            self.counts.resize(col + 1, 0);
        }
        self.counts[col] += 1;
        self.total += 1;
    }

    /// The most common column (the leftmost among ties).
    fn mode(&self) -> Option<usize> {
        let mut best: Option<(usize, usize)> = None;
        for (col, &n) in self.counts.iter().enumerate() {
            if n > 0 && best.is_none_or(|(_, m)| n > m) {
                best = Some((col, n));
            }
        }
        best.map(|(c, _)| c)
    }
}

/// The most columns a page may have drifted from the script's columns and
/// still be moved back ([`align_pages`]).
const MAX_DRIFT: usize = 8;

/// Moves each page's lines back to the script's columns when a page as a
/// whole sits a few columns off (PDF-to-text output drifts from page to
/// page). A page's margin is the leftmost column that at least two of its
/// content lines start at; the pages at the most common margin are the
/// reference, and every other page is moved by the shift (up to
/// [`MAX_DRIFT`]) that lands most of its lines on columns the reference
/// pages use, so a page of dialogue only is matched on its dialogue and cue
/// columns rather than taken for a page whose action drifted. Returns how
/// many pages were moved.
pub(super) fn align_pages(lines: &mut [Line<'_>]) -> usize {
    let mut pages: Vec<std::ops::Range<usize>> = Vec::new();
    let mut start = 0;
    for (i, line) in lines.iter().enumerate().skip(1) {
        if line.page_start {
            pages.push(start..i);
            start = i;
        }
    }
    pages.push(start..lines.len());
    if pages.len() < 2 {
        return 0;
    }
    let margin = |range: &std::ops::Range<usize>| -> Option<usize> {
        let mut counts: std::collections::BTreeMap<usize, usize> = Default::default();
        for l in &lines[range.clone()] {
            if l.is_content() {
                *counts.entry(l.indent).or_default() += 1;
            }
        }
        counts
            .into_iter()
            .find(|&(_, n)| n >= 2)
            .map(|(col, _)| col)
    };
    let margins: Vec<Option<usize>> = pages.iter().map(margin).collect();
    let mut hist = Hist::default();
    for m in margins.iter().flatten() {
        hist.add(*m);
    }
    let Some(reference) = hist.mode() else {
        return 0;
    };
    // The columns the reference pages use, by how many lines start there.
    let mut columns = Hist::default();
    for (range, m) in pages.iter().zip(&margins) {
        if *m == Some(reference) {
            for l in &lines[range.clone()] {
                if l.is_content() {
                    columns.add(l.indent);
                }
            }
        }
    }
    // A column counts when a fair share of the reference lines start there:
    // a page is matched on which columns it uses, not on how full they are,
    // or dialogue would be pulled onto the busier action column.
    let floor = (columns.total / 100).max(2);
    let used = |col: isize| -> bool {
        usize::try_from(col)
            .ok()
            .and_then(|c| columns.counts.get(c).copied())
            .is_some_and(|n| n >= floor)
    };
    let mut moved = 0;
    for (range, m) in pages.iter().zip(margins) {
        if m.is_none() || m == Some(reference) {
            continue;
        }
        let fit = |shift: isize| -> usize {
            lines[range.clone()]
                .iter()
                .filter(|l| l.is_content() && used(l.indent as isize - shift))
                .count()
        };
        let max = MAX_DRIFT as isize;
        // The best fit; the smaller shift among ties, no shift first.
        let mut best = (fit(0), 0isize);
        for d in 1..=max {
            for shift in [-d, d] {
                let f = fit(shift);
                if f > best.0 {
                    best = (f, shift);
                }
            }
        }
        let shift = best.1;
        if shift == 0 {
            continue;
        }
        moved += 1;
        for l in &mut lines[range.clone()] {
            if !l.text.is_empty() {
                l.indent = (l.indent as isize - shift).max(0) as usize;
            }
        }
    }
    moved
}
