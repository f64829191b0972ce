//! The title page of a laid-out script: what comes before the story, read
//! into keyed title elements (title, credit, author, source, draft date,
//! contact, notes).

use super::super::layout::Layout;
use super::Builder;
use crate::screenplay::element::{Diagnostic, ElementKind};
use crate::screenplay::title::MONTHS;

impl Builder<'_> {
    /// Reads the title page, when the script has one, and returns the first
    /// content line after it.
    ///
    /// A title page is what comes before the story starts (the first heading,
    /// speech or transition): either the first page, when a page break comes
    /// first, or a short run of lines set mostly off the action column. Either
    /// way it holds no prose paragraph.
    pub(super) fn title_page(&mut self) -> usize {
        let n = self.items.len();
        let story = (0..n)
            .find(|&k| self.is_heading(k) || self.is_speech_start(k) || self.shape(k).transition)
            .unwrap_or(n);
        let page = (1..=story.min(n.saturating_sub(1))).find(|&k| self.items[k].page_before);
        let end = page.unwrap_or(story);
        if end == 0 || end > 40 || (0..end).any(|k| self.is_prose(k)) {
            return 0;
        }
        // Nor speeches: cues at the cue column over lines at the dialogue column.
        let speeches = (0..end.min(n - 1))
            .filter(|&k| {
                self.shape(k).cue
                    && Layout::near(self.line(k).indent, self.lay.cue, 1)
                    && self.lay.cue != self.lay.dialogue
                    && !self.items[k + 1].page_before
                    && (Layout::near(self.line(k + 1).indent, self.lay.dialogue, 1)
                        || self.line(k + 1).text.starts_with('('))
            })
            .count();
        if speeches >= 2 {
            return 0;
        }
        if page.is_none() {
            // Without a page of its own, a title page is a few centered
            // lines; one centered line alone is just centered text.
            let off = (0..end)
                .filter(|&k| self.line(k).indent > self.lay.action + 4)
                .count();
            if end < 2 || off * 2 < end {
                return 0;
            }
        }
        // Title pages center their lines on the title's own center.
        let (lines, items) = (self.lines, self.items);
        let twice_mid = |k: usize| {
            let l = &lines[items[k].li];
            2 * l.indent + l.text.chars().count()
        };
        let title_mid = twice_mid(0);
        let mut k = 0;
        let mut expect_author = false;
        let mut seen = Vec::new();
        while k < end {
            let start = k;
            k += 1;
            while k < end && !self.items[k].blank_before {
                k += 1;
            }
            let texts: Vec<&str> = (start..k).map(|i| self.line(i).text.as_ref()).collect();
            let (first, last) = (self.line(start).no, self.line(k - 1).no);
            let lower = texts[0].to_lowercase();
            let credit = [
                "written by",
                "screenplay by",
                "teleplay by",
                "story by",
                "a screenplay by",
                "by",
            ]
            .iter()
            .any(|c| lower == *c || lower.starts_with(&format!("{c} ")))
                || lower.starts_with("written and directed by")
                || lower == "screenplay";
            let centered = twice_mid(start).abs_diff(title_mid) <= 6;
            let key = if seen.is_empty() {
                "title"
            } else if credit && texts.len() > 1 {
                self.title(texts[0].to_string(), "credit", first, first);
                self.title(
                    texts[1..].join("\n"),
                    "author",
                    self.line(start + 1).no,
                    last,
                );
                seen.push("author");
                continue;
            } else if credit {
                expect_author = true;
                "credit"
            } else if expect_author {
                expect_author = false;
                "author"
            } else if texts.len() > 1 && texts.iter().any(|t| date_like(t)) {
                // A date and a contact block set as one: split them.
                for (i, t) in texts.iter().enumerate() {
                    let no = self.line(start + i).no;
                    let key = if date_like(t) {
                        "draft date"
                    } else {
                        "contact"
                    };
                    match self.out.last_mut() {
                        Some(e) if e.key.as_deref() == Some(key) && e.lines.last + 1 == no => {
                            e.text.push('\n');
                            e.text.push_str(t);
                            e.lines.last = no;
                        }
                        _ => self.title(t.to_string(), key, no, no),
                    }
                    seen.push(key);
                }
                continue;
            } else if texts.iter().any(|t| date_like(t)) {
                "draft date"
            } else if texts.iter().any(|t| contact_like(t)) || !centered {
                "contact"
            } else if lower.contains("based on")
                || (seen.contains(&"author") && !seen.contains(&"source"))
            {
                "source"
            } else {
                "notes"
            };
            self.title(texts.join("\n"), key, first, last);
            seen.push(key);
        }
        self.diagnostics.push(Diagnostic::info(
            self.line(0).no,
            "title page read from the lines before the story; its keys are guessed",
        ));
        end
    }

    fn title(&mut self, text: String, key: &str, first: usize, last: usize) {
        self.push(ElementKind::Title, text, first, last).key = Some(key.to_string());
    }

    /// A long mixed-case line at the action column, or one wrapped onto the
    /// next line at the same column: story prose, never a title page.
    fn is_prose(&self, k: usize) -> bool {
        let l = self.line(k);
        let at_action = l.indent.abs_diff(self.lay.action) <= 1;
        let wrapped = self.direct(k).is_some_and(|n| {
            let nl = self.line(n);
            nl.indent == l.indent
                && l.text.chars().count() >= 40
                && !nl.text.starts_with(char::is_uppercase)
        });
        !self.shape(k).upper && ((at_action && l.text.chars().count() >= 40) || wrapped)
    }
}

fn date_like(s: &str) -> bool {
    let l = s.to_lowercase();
    let digits = l.chars().filter(|c| c.is_ascii_digit()).count();
    (digits > 0 && (MONTHS.iter().any(|m| l.contains(m)) || l.matches('/').count() == 2))
        || l.contains("draft")
        || l.contains("revision")
}

fn contact_like(s: &str) -> bool {
    s.contains('@') || s.chars().filter(|c| c.is_ascii_digit()).count() >= 7
}
