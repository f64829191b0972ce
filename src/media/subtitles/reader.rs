//! The SubRip and WebVTT readers: block structure, cues and their diagnostics.

use std::ops::Range;

use super::markup::clean;
use super::timing::{is_vtt_non_cue_block, is_webvtt_signature, quote, LineKind};
use super::{format_ms, Cue};
use crate::screenplay::{Diagnostic, LineSpan};

pub(super) struct Reader<'a> {
    pub(super) lines: &'a [&'a str],
    pub(super) kinds: &'a [LineKind],
    pub(super) cues: Vec<Cue>,
    pub(super) diagnostics: Vec<Diagnostic>,
    pub(super) short_fraction_noted: bool,
}

impl Reader<'_> {
    pub(super) fn srt(&mut self) {
        let n = self.lines.len();
        // Every cue starts at a timing line, or at the number line right before one.
        let mut heads: Vec<(usize, usize)> = Vec::new();
        for t in 0..n {
            if self.kinds[t].is_timing() {
                let head = if t > 0 && self.kinds[t - 1] == LineKind::Number {
                    t - 1
                } else {
                    t
                };
                heads.push((head, t));
            }
        }
        let first_head = heads.first().map_or(n, |h| h.0);
        self.stray(0..first_head, "before the first cue");

        let mut prev_number: Option<u64> = None;
        for (k, &(head, t)) in heads.iter().enumerate() {
            let next = heads.get(k + 1).map_or(n, |h| h.0);
            let id = (head < t).then(|| self.lines[head].trim().to_string());
            match id.as_deref().map(str::parse::<u64>) {
                Some(Ok(num)) => {
                    if let Some(prev) = prev_number {
                        if num == prev {
                            self.warn(
                                head,
                                format!(
                                    "cue number {num} repeats the one before (kept, in file order)"
                                ),
                            );
                        } else if num < prev {
                            self.warn(head, format!("cue number {num} comes after {prev}: out of order (kept, in file order)"));
                        }
                    }
                    prev_number = Some(num);
                }
                Some(Err(_)) => {} // a number too long for u64: nothing to compare
                None => self.info(t, "cue has no number".to_string()),
            }
            // A blank line then a bare number is a block whose timing line is
            // missing; it ends this cue's text.
            let mut end = next;
            let mut j = t + 1;
            while j + 1 < next {
                if self.kinds[j] == LineKind::Blank && self.kinds[j + 1] == LineKind::Number {
                    end = j;
                    let count = (j + 1..next)
                        .filter(|&i| self.kinds[i] != LineKind::Blank)
                        .count();
                    self.warn(
                        j + 1,
                        format!(
                            "block `{}` has no timing line; skipped ({count} line{})",
                            quote(self.lines[j + 1].trim()),
                            if count == 1 { "" } else { "s" }
                        ),
                    );
                    break;
                }
                j += 1;
            }
            self.cue(id, head, t, t + 1..end, true);
        }
    }

    pub(super) fn vtt(&mut self) {
        let n = self.lines.len();
        let mut i = 0;
        while i < n && self.kinds[i] == LineKind::Blank {
            i += 1;
        }
        if i < n && is_webvtt_signature(self.lines[i]) {
            // The header runs to the first blank line; a timing line in it
            // starts the cues early rather than being lost.
            i += 1;
            while i < n && self.kinds[i] != LineKind::Blank && !self.kinds[i].is_timing() {
                i += 1;
            }
        } else {
            self.warn(
                i.min(n - 1),
                "no `WEBVTT` header; reading the cues anyway".to_string(),
            );
        }
        while i < n {
            if self.kinds[i] == LineKind::Blank {
                i += 1;
                continue;
            }
            let block_end = (i..n)
                .find(|&j| self.kinds[j] == LineKind::Blank)
                .unwrap_or(n);
            self.vtt_block(i, block_end);
            i = block_end;
        }
    }

    /// One run of non-blank lines: cues (an optional identifier line, a
    /// timing line, payload), or a note/style/region, or junk.
    fn vtt_block(&mut self, start: usize, end: usize) {
        let mut j = start;
        while j < end {
            let (id, t) = if self.kinds[j].is_timing() {
                (None, j)
            } else if j + 1 < end && self.kinds[j + 1].is_timing() {
                (Some(self.lines[j].trim().to_string()), j + 1)
            } else {
                if j == start && is_vtt_non_cue_block(self.lines[j]) {
                    return;
                }
                // The spec looks for the timing on a block's first two lines
                // only; what comes before a later one is dropped.
                let k = (j + 2..end)
                    .find(|&k| self.kinds[k].is_timing())
                    .unwrap_or(end);
                self.warn(
                    j,
                    format!(
                        "{} without a cue timing; skipped",
                        if k - j == 1 { "line" } else { "lines" }
                    ),
                );
                j = k;
                continue;
            };
            let payload_end = (t + 1..end)
                .find(|&k| self.kinds[k].is_timing())
                .unwrap_or(end);
            self.cue(id, j, t, t + 1..payload_end, false);
            j = payload_end;
        }
    }

    /// Reports non-blank lines in `range` that belong to no cue.
    fn stray(&mut self, range: Range<usize>, place: &str) {
        let mut stray = range.filter(|&i| self.kinds[i] != LineKind::Blank);
        if let Some(first) = stray.next() {
            let count = 1 + stray.count();
            self.warn(
                first,
                format!(
                    "{count} line{} of text {place} ignored",
                    if count == 1 { "" } else { "s" }
                ),
            );
        }
    }

    /// Builds the cue whose first line is `head`, timing line `t`, text lines
    /// `body` (blank lines at either end are trimmed off), or says why not.
    fn cue(&mut self, id: Option<String>, head: usize, t: usize, body: Range<usize>, srt: bool) {
        let timing = match &self.kinds[t] {
            LineKind::Timing(timing) => timing.clone(),
            LineKind::BadTiming(reason) => {
                self.warn(t, format!("malformed timing line ({reason}); cue skipped"));
                return;
            }
            _ => return,
        };
        if timing.short_fraction && !self.short_fraction_noted {
            self.short_fraction_noted = true;
            self.info(
                t,
                "time with fewer than three fraction digits read as milliseconds (`,5` is 5 ms), as players do".to_string(),
            );
        }
        let mut first = body.start;
        let mut last = body.end;
        while first < last && self.kinds[first] == LineKind::Blank {
            first += 1;
        }
        while last > first && self.kinds[last - 1] == LineKind::Blank {
            last -= 1;
        }
        let at = match &id {
            Some(id) if srt => format!("cue {}", quote(id)),
            Some(id) => format!("cue `{}`", quote(id)),
            None => "cue".to_string(),
        };
        if timing.end < timing.start {
            self.warn(
                t,
                format!(
                    "{at} ends ({}) before it starts ({}); skipped",
                    format_ms(timing.end),
                    format_ms(timing.start)
                ),
            );
            return;
        }
        if first == last {
            self.warn(t, format!("{at} has no text; skipped"));
            return;
        }
        if let Some(blank) = (first..last).find(|&i| self.kinds[i] == LineKind::Blank) {
            self.info(
                blank,
                format!("blank line inside the text of {at}; kept as one cue"),
            );
        }
        let body = &self.lines[first..last];
        let cleaned = clean(body);
        if cleaned.text.is_empty() {
            self.warn(t, format!("{at} has only markup, no text; skipped"));
            return;
        }
        if let Some(prev) = self.cues.last() {
            if timing.start < prev.start_ms {
                self.info(
                    t,
                    format!(
                        "{at} starts ({}) before the cue before it ({}); kept in file order",
                        format_ms(timing.start),
                        format_ms(prev.start_ms)
                    ),
                );
            }
        }
        self.cues.push(Cue {
            index: 0,
            id,
            start_ms: timing.start,
            end_ms: timing.end,
            text: cleaned.text,
            raw: body.join("\n"),
            settings: (!timing.settings.is_empty()).then_some(timing.settings),
            lines: LineSpan::new(head + 1, last),
            turns: cleaned.turns,
        });
    }

    fn warn(&mut self, index: usize, message: String) {
        self.diagnostics
            .push(Diagnostic::warning(index + 1, message));
    }

    fn info(&mut self, index: usize, message: String) {
        self.diagnostics.push(Diagnostic::info(index + 1, message));
    }
}
