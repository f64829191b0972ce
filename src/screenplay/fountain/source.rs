//! Source preparation: newline and BOM clean-up, boneyard removal and note
//! extraction, giving the block parser a list of logical lines that still know
//! which original lines they came from.
//!
//! Boneyard (`/* … */`) and notes (`[[ … ]]`) are cut out of the text *before*
//! classification because both may span lines and sit anywhere, even inside a
//! word; the classifier then never has to think about them. Cutting may merge
//! lines (`Hello [[a⏎b]] world`) or empty them; every logical line therefore
//! carries its original span, and a line that only held cut-out material is
//! marked so the classifier can treat it as not there at all (a boneyard
//! between two lines of action does not split the paragraph).

use std::borrow::Cow;

use crate::screenplay::element::{Diagnostic, LineSpan};

/// Where a logical line came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Origin {
    /// First original line (1-based).
    pub first: usize,
    /// Last original line (1-based, inclusive).
    pub last: usize,
    /// Boneyard or note text was cut out of it.
    pub cut: bool,
}

impl Origin {
    fn identity(index: usize) -> Origin {
        Origin {
            first: index + 1,
            last: index + 1,
            cut: false,
        }
    }
}

/// A note found in the source, waiting to be emitted after the element whose
/// line held it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct FoundNote {
    /// The note's text, each line trimmed, lines joined with `\n`.
    pub text: String,
    /// Its original lines.
    pub lines: LineSpan,
    /// Index of the logical line it was cut from.
    pub at: usize,
}

/// The text after boneyard and note removal, with the origin of each of its lines.
pub(super) struct Prepared<'a> {
    /// The text, `\n`-separated, no `\r`, no BOM, no boneyard, no notes.
    pub text: Cow<'a, str>,
    /// One entry per line of `text`; `None` when nothing was cut, so line `i`
    /// is original line `i + 1`.
    pub origins: Option<Vec<Origin>>,
    /// Notes in source order.
    pub notes: Vec<FoundNote>,
}

impl Prepared<'_> {
    /// The origin of line `i` of the prepared text.
    pub fn origin(&self, i: usize) -> Origin {
        origin_of(self.origins.as_deref(), i)
    }
}

fn origin_of(origins: Option<&[Origin]>, i: usize) -> Origin {
    match origins {
        Some(o) => o.get(i).copied().unwrap_or(Origin::identity(i)),
        None => Origin::identity(i),
    }
}

/// Cleans up newlines and the BOM, then removes boneyard and notes.
pub(super) fn prepare<'a>(text: &'a str, diagnostics: &mut Vec<Diagnostic>) -> Prepared<'a> {
    let text = normalize(text);

    let bone = boneyard_spans(&text, diagnostics);
    let (text, origins) = if bone.is_empty() {
        (text, None)
    } else {
        let (cut_text, origins, _) = cut(&text, None, &bone);
        (Cow::Owned(cut_text), Some(origins))
    };

    let notes = note_spans(&text, origins.as_deref(), diagnostics);
    if notes.is_empty() {
        return Prepared {
            text,
            origins,
            notes: Vec::new(),
        };
    }
    let spans: Vec<(usize, usize)> = notes.iter().map(|n| (n.start, n.end)).collect();
    let (cut_text, new_origins, at) = cut(&text, origins.as_deref(), &spans);
    let found = notes
        .into_iter()
        .zip(at)
        .map(|(n, at)| FoundNote {
            text: note_text(&text[n.start + 2..n.end - 2]),
            lines: n.lines,
            at,
        })
        .collect();
    Prepared {
        text: Cow::Owned(cut_text),
        origins: Some(new_origins),
        notes: found,
    }
}

/// Drops a leading BOM and turns CRLF and lone CR into LF. The decoder already
/// does this for files; text handed in directly may not have been through it.
fn normalize(text: &str) -> Cow<'_, str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if !text.contains('\r') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('\r') {
        out.push_str(&rest[..i]);
        out.push('\n');
        rest = &rest[i + 1..];
        if let Some(r) = rest.strip_prefix('\n') {
            rest = r;
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// Counts lines up to increasing byte offsets without rescanning.
struct LineCounter<'a> {
    text: &'a [u8],
    pos: usize,
    line: usize,
}

impl<'a> LineCounter<'a> {
    fn new(text: &'a str) -> Self {
        LineCounter {
            text: text.as_bytes(),
            pos: 0,
            line: 0,
        }
    }

    /// 0-based line index of byte `offset`; offsets must not decrease between calls.
    fn line_of(&mut self, offset: usize) -> usize {
        let end = offset.min(self.text.len());
        if end > self.pos {
            self.line += self.text[self.pos..end]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            self.pos = end;
        }
        self.line
    }
}

/// Byte spans of the outermost boneyard comments. Comments nest (`/* a /* b */ c */`
/// is one comment), which is what writers who comment out a passage that already
/// holds a comment expect; an opening `/*` that is never closed is kept as
/// text with a warning rather than swallowing the rest of the script.
fn boneyard_spans(text: &str, diagnostics: &mut Vec<Diagnostic>) -> Vec<(usize, usize)> {
    if !text.contains("/*") {
        return Vec::new();
    }
    let bytes = text.as_bytes();
    let mut open: Vec<usize> = Vec::new();
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    // Jump from `*` to `*` (`str::find` on a char is a fast memchr) instead
    // of testing every byte pair; `i` is the first byte not yet consumed by a
    // marker, so `/*/` is one opening and `*/*` never reuses the `/`.
    let mut i = 0;
    while let Some(rel) = text[i..].find('*') {
        let p = i + rel;
        if p > i && bytes[p - 1] == b'/' {
            open.push(p - 1);
            i = p + 1;
        } else if bytes.get(p + 1) == Some(&b'/') && !open.is_empty() {
            if let Some(start) = open.pop() {
                pairs.push((start, p + 2));
            }
            i = p + 2;
        } else {
            i = p + 1;
        }
    }
    let mut lines = LineCounter::new(text);
    for &start in &open {
        diagnostics.push(Diagnostic::warning(
            lines.line_of(start) + 1,
            "boneyard `/*` is never closed with `*/`; kept as text",
        ));
    }
    // Matched pairs nest or are disjoint; keep the outermost ones. A pair
    // nested only inside an unclosed `/*` is outermost among the matched ones.
    pairs.sort_unstable();
    let mut spans: Vec<(usize, usize)> = Vec::with_capacity(pairs.len());
    for (s, e) in pairs {
        match spans.last() {
            Some(&(_, last_end)) if s < last_end => {}
            _ => spans.push((s, e)),
        }
    }
    spans
}

/// A note's position in the boneyard-free text.
struct NoteSpan {
    /// Byte offset of `[[`.
    start: usize,
    /// Byte offset just past `]]`.
    end: usize,
    /// Original lines.
    lines: LineSpan,
}

/// Finds `[[ … ]]` notes. Per the spec a note may span lines but not a blank
/// line (two spaces keep it going, as in dialogue); a `[[` with no `]]` before
/// the next blank line is kept as text with a warning.
fn note_spans(
    text: &str,
    origins: Option<&[Origin]>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<NoteSpan> {
    let mut spans = Vec::new();
    if !text.contains("[[") {
        return spans;
    }
    let mut lines = LineCounter::new(text);
    // The next `]]` at or after some offset, cached so that many unclosed `[[`
    // before one distant `]]` cost one search, not one each.
    let mut close: Option<usize> = None;
    let mut pos = 0;
    while let Some(rel) = text[pos..].find("[[") {
        let start = pos + rel;
        let start_line = lines.line_of(start);
        if close.is_none_or(|c| c < start + 2) {
            close = text[start + 2..].find("]]").map(|c| start + 2 + c);
        }
        // The first blank line after the `[[` line, up to the `]]` (or the end).
        let limit = close.unwrap_or(text.len());
        let blank = first_blank_line(text, start, limit, start_line, origins);
        match (close, blank) {
            (Some(end), None) => {
                let end = end + 2;
                let end_line = lines.line_of(end);
                spans.push(NoteSpan {
                    start,
                    end,
                    lines: LineSpan::new(
                        origin_of(origins, start_line).first,
                        origin_of(origins, end_line).last,
                    ),
                });
                pos = end;
            }
            (_, blank) => {
                diagnostics.push(Diagnostic::warning(
                    origin_of(origins, start_line).first,
                    "note `[[` is not closed with `]]` before a blank line; kept as text",
                ));
                // Every other `[[` before that blank line is unclosed too.
                pos = blank.unwrap_or(text.len());
            }
        }
    }
    spans
}

/// Byte offset of the first blank line that starts after `from` and before
/// `limit`, or `None`. Lines emptied by the boneyard do not count, and neither
/// do lines of two or more spaces (the spec's way to keep an element going).
fn first_blank_line(
    text: &str,
    from: usize,
    limit: usize,
    mut line: usize,
    origins: Option<&[Origin]>,
) -> Option<usize> {
    let mut at = from;
    while let Some(nl) = text[at..limit].find('\n') {
        let line_start = at + nl + 1;
        line += 1;
        let line_end = text[line_start..]
            .find('\n')
            .map_or(text.len(), |e| line_start + e);
        let content = &text[line_start..line_end];
        if line_start < limit
            && content.trim().is_empty()
            && !is_connector(content)
            && !origin_of(origins, line).cut
        {
            return Some(line_start);
        }
        at = line_start;
    }
    None
}

/// A line of only whitespace, at least two characters long: the spec's
/// "two spaces" that keep dialogue (and notes) going across an empty line.
pub(super) fn is_connector(line: &str) -> bool {
    line.len() >= 2 && line.trim().is_empty()
}

/// The text between `[[` and `]]`: each line trimmed (its indentation is only
/// layout), joined with `\n`, blank lines at either end dropped.
fn note_text(inner: &str) -> String {
    let mut out = String::with_capacity(inner.len());
    for line in inner.split('\n') {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(line.trim());
    }
    out.trim_matches('\n').to_string()
}

/// Removes byte `spans` (sorted, disjoint, on char boundaries) from `text`.
///
/// Returns the new text, the origin of each of its lines (composed with
/// `origins`, the origins of `text`'s own lines), and for each span the index
/// of the output line it was cut from. Whitespace left dangling by a cut is
/// tidied so `an [[x]] aside` reads `an aside`, not `an  aside`, and a line
/// that held only the cut material becomes empty.
fn cut(
    text: &str,
    origins: Option<&[Origin]>,
    spans: &[(usize, usize)],
) -> (String, Vec<Origin>, Vec<usize>) {
    let mut w = Writer {
        out: String::with_capacity(text.len()),
        line_start: 0,
        origins,
        out_origins: Vec::with_capacity(memchr::memchr_iter(b'\n', text.as_bytes()).count() + 1),
        in_line: 0,
        current: origin_of(origins, 0),
    };
    let mut at_line = Vec::with_capacity(spans.len());
    let mut pos = 0usize;
    for &(start, end) in spans {
        if start < pos || end > text.len() || start > end {
            continue; // unsorted or out of range: never produced, never a panic
        }
        w.copy(&text[pos..start]);
        at_line.push(w.out_origins.len());
        for _ in text[start..end].bytes().filter(|&b| b == b'\n') {
            w.in_line += 1;
            let last = origin_of(origins, w.in_line).last;
            w.current.last = w.current.last.max(last);
        }
        w.current.cut = true;
        pos = end;

        // Tidy the whitespace around the cut.
        let after = &text[pos..];
        let ws = after.len() - after.trim_start_matches([' ', '\t']).len();
        let rest_of_line_empty = matches!(after.as_bytes().get(ws), None | Some(b'\n'));
        if rest_of_line_empty {
            let kept = w.out[w.line_start..].trim_end_matches([' ', '\t']).len();
            w.out.truncate(w.line_start + kept);
            pos += ws;
        } else if w.out.len() == w.line_start || w.out.ends_with([' ', '\t']) {
            pos += ws;
        }
    }
    w.copy(&text[pos..]);
    w.out_origins.push(w.current);
    (w.out, w.out_origins, at_line)
}

/// The output side of [`cut`]: text so far and the origin of each finished line.
struct Writer<'o> {
    out: String,
    /// Byte offset in `out` where the current line starts.
    line_start: usize,
    origins: Option<&'o [Origin]>,
    out_origins: Vec<Origin>,
    /// Input line the copy position is on.
    in_line: usize,
    /// Origin of the output line being written.
    current: Origin,
}

impl Writer<'_> {
    /// Copies kept text, finishing an output line at each newline.
    fn copy(&mut self, segment: &str) {
        // One bulk copy, then a byte scan for line ends: per-line `find` and
        // `push_str` cost more than the copying itself on dialogue-dense text.
        let base = self.out.len();
        self.out.push_str(segment);
        for i in memchr::memchr_iter(b'\n', segment.as_bytes()) {
            self.line_start = base + i + 1;
            self.out_origins.push(self.current);
            self.in_line += 1;
            self.current = origin_of(self.origins, self.in_line);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (first, last, cut) of one prepared line.
    type Span = (usize, usize, bool);

    /// Prepared text, line origins, notes, and the number of diagnostics.
    fn prep(text: &str) -> (String, Vec<Span>, Vec<FoundNote>, usize) {
        let mut d = Vec::new();
        let p = prepare(text, &mut d);
        let lines = p.text.split('\n').count();
        let origins = (0..lines)
            .map(|i| {
                let o = p.origin(i);
                (o.first, o.last, o.cut)
            })
            .collect();
        (p.text.to_string(), origins, p.notes, d.len())
    }

    #[test]
    fn crlf_lone_cr_and_bom_become_plain_lines() {
        let (t, o, _, _) = prep("\u{feff}A\r\nB\rC\n");
        assert_eq!(t, "A\nB\nC\n");
        assert_eq!(o[2], (3, 3, false));
    }

    #[test]
    fn whole_line_boneyard_empties_its_lines_and_keeps_numbering() {
        let (t, o, _, d) = prep("One.\n/*\nnope\n*/\nTwo.");
        assert_eq!(t, "One.\n\nTwo.");
        assert_eq!(o, vec![(1, 1, false), (2, 4, true), (5, 5, false)]);
        assert_eq!(d, 0);
    }

    #[test]
    fn inline_boneyard_tidies_whitespace() {
        let (t, o, _, _) = prep("This is an /* internal */ boneyard.");
        assert_eq!(t, "This is an boneyard.");
        assert_eq!(o, vec![(1, 1, true)]);
    }

    #[test]
    fn boneyard_markers_do_not_share_characters() {
        // `/*/` opens once; the `/` of a `*/` cannot start a new `/*`.
        let (t, _, _, d) = prep("a /*/ b */ c\nd */* e");
        assert_eq!(t, "a c\nd */* e");
        assert_eq!(d, 1, "the trailing `/*` is unclosed");
    }

    #[test]
    fn boneyard_nests() {
        let (t, _, _, d) = prep("a /*x /*y*/ z*/b");
        assert_eq!(t, "a b");
        assert_eq!(d, 0);
    }

    #[test]
    fn unclosed_boneyard_is_text_and_a_warning() {
        let (t, _, _, d) = prep("a\n/* b /* c */ d");
        // The outer `/*` stays; the closed inner one is still removed.
        assert_eq!(t, "a\n/* b d");
        assert_eq!(d, 1);
    }

    #[test]
    fn notes_are_cut_and_kept() {
        let (t, o, notes, _) = prep("Before [[some\n  notes]] after.\nNext");
        assert_eq!(t, "Before after.\nNext");
        assert_eq!(o, vec![(1, 2, true), (3, 3, false)]);
        assert_eq!(notes.len(), 1);
        assert_eq!(notes[0].text, "some\nnotes");
        assert_eq!(notes[0].lines, LineSpan::new(1, 2));
        assert_eq!(notes[0].at, 0);
    }

    #[test]
    fn note_across_blank_line_is_text_but_two_spaces_connect() {
        let (t, _, notes, d) = prep("Not [[\na note\n\nx ]]");
        assert_eq!(t, "Not [[\na note\n\nx ]]");
        assert!(notes.is_empty());
        assert_eq!(d, 1);
        let (t, _, notes, d) = prep("A [[one\n  \ntwo]] B");
        assert_eq!(t, "A B");
        assert_eq!(notes[0].text, "one\n\ntwo");
        assert_eq!(d, 0);
    }

    #[test]
    fn note_inside_boneyard_is_gone_and_boneyard_inside_note_is_removed() {
        let (t, _, notes, _) = prep("a /* [[x]] */ b [[y /* z */ w]] c");
        assert_eq!(t, "a b c");
        assert_eq!(notes.len(), 1);
        assert_eq!(notes[0].text, "y w");
    }

    #[test]
    fn many_unclosed_markers_stay_linear_and_safe() {
        let text = "[[ /* é ".repeat(20_000);
        let mut d = Vec::new();
        let p = prepare(&text, &mut d);
        assert!(p.text.len() >= text.len() / 2);
        assert!(!d.is_empty());
    }
}
