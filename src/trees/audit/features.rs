//! Surface features of a choice question's options: what a reader that never
//! reads for meaning can see. The audit's shortcut readers score options with
//! them, and generation balances them, so both measure the same thing.
//!
//! The excerpt is read as the subject sees it: lines, blocks separated by a
//! blank line, gaps marked `…`, speaker cues in capitals above dialogue.

use std::collections::BTreeSet;

use crate::trees::facts::{content_words, overlap};
use crate::trees::schema::Node;

/// Verbs of mind: a narration sentence with one of these states a mental
/// state outright ("Quinton thinks he got away with it").
pub const MIND_VERBS: &[&str] = &[
    "believe",
    "believes",
    "believed",
    "think",
    "thinks",
    "thought",
    "know",
    "knows",
    "knew",
    "suspect",
    "suspects",
    "suspected",
    "realize",
    "realizes",
    "realises",
    "realized",
    "want",
    "wants",
    "wanted",
    "wish",
    "wishes",
    "hope",
    "hopes",
    "fear",
    "fears",
    "feel",
    "feels",
    "felt",
    "intend",
    "intends",
    "plan",
    "plans",
    "mean",
    "means",
    "meant",
    "pretend",
    "pretends",
    "pretending",
    "mistakes",
    "sees",
    "notices",
    "decides",
    "afraid",
    "angry",
    "ashamed",
    "guilty",
    "jealous",
    "relieved",
    "hurt",
];

/// One line of an excerpt.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// The line as shown.
    pub text: String,
    /// Its content words.
    pub words: BTreeSet<String>,
    /// The block (0-based part of the excerpt, in the context's block order).
    pub part: usize,
    /// What kind of line it looks like.
    pub kind: LineKind,
}

/// What an excerpt line looks like to a surface reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// A speaker cue (`QUINTON`, `HOLLIS (V.O.)`).
    Cue,
    /// A parenthetical (`(lying)`).
    Parenthetical,
    /// The speech under a cue.
    Dialogue,
    /// Narration, headings and everything else.
    Action,
}

/// The lines of an excerpt, classified.
pub fn excerpt_lines(excerpt: &str) -> Vec<Line> {
    let mut out = Vec::new();
    for (part, block) in excerpt.split("\n\n").enumerate() {
        let mut after_cue = false;
        for raw in block.lines() {
            let text = raw.trim();
            if text.is_empty() || text == "…" {
                after_cue = false;
                continue;
            }
            let kind = if is_cue(text) {
                after_cue = true;
                LineKind::Cue
            } else if text.starts_with('(') && text.ends_with(')') {
                LineKind::Parenthetical
            } else if after_cue {
                after_cue = false;
                LineKind::Dialogue
            } else {
                LineKind::Action
            };
            out.push(Line {
                text: text.to_owned(),
                words: content_words(text),
                part,
                kind,
            });
        }
    }
    out
}

thread_local! {
    /// Excerpts already read: generation weighs many wordings of a
    /// question over the same few excerpts.
    static LINES: std::cell::RefCell<std::collections::HashMap<String, std::rc::Rc<Vec<Line>>>> =
        Default::default();
}

/// Excerpts kept read at most (the cache is emptied beyond).
const LINES_KEPT: usize = 4096;

/// [`excerpt_lines`], remembered.
fn cached_lines(excerpt: &str) -> std::rc::Rc<Vec<Line>> {
    LINES.with(|cache| {
        let mut cache = cache.borrow_mut();
        if let Some(lines) = cache.get(excerpt) {
            return std::rc::Rc::clone(lines);
        }
        if cache.len() >= LINES_KEPT {
            cache.clear();
        }
        let lines = std::rc::Rc::new(excerpt_lines(excerpt));
        cache.insert(excerpt.to_owned(), std::rc::Rc::clone(&lines));
        lines
    })
}

/// The excerpt with these quotes cut from its narration lines (action lines;
/// never dialogue, which is what the film lets us hear). A line left empty is
/// dropped; everything else is kept as it was.
pub fn strip_narration(excerpt: &str, quotes: &[&str]) -> String {
    if quotes.is_empty() {
        return excerpt.to_owned();
    }
    let mut out: Vec<String> = Vec::new();
    let mut after_cue = false;
    for raw in excerpt.split('\n') {
        let text = raw.trim();
        let kind = if text.is_empty() || text == "…" {
            after_cue = false;
            None
        } else if is_cue(text) {
            after_cue = true;
            Some(LineKind::Cue)
        } else if text.starts_with('(') && text.ends_with(')') {
            Some(LineKind::Parenthetical)
        } else if after_cue {
            after_cue = false;
            Some(LineKind::Dialogue)
        } else {
            Some(LineKind::Action)
        };
        if kind != Some(LineKind::Action) {
            out.push(raw.to_owned());
            continue;
        }
        let mut line = raw.to_owned();
        for q in quotes {
            if !q.is_empty() {
                line = line.replace(q, "");
            }
        }
        let mut line = line.split_whitespace().collect::<Vec<_>>().join(" ");
        // A cut sentence leaves no stray stop behind ("saved her. ." → "saved her.").
        while let Some(at) = line.find(". .") {
            line.replace_range(at..at + 3, ".");
        }
        let line = line.trim_start_matches(['.', ' ']).to_owned();
        if line.chars().any(char::is_alphanumeric) {
            out.push(line);
        }
    }
    out.join("\n")
}

/// Whether a line is a speaker cue: a short name in capitals, maybe with an
/// extension in parentheses.
pub fn is_cue(text: &str) -> bool {
    let name = cue_name(text);
    !name.is_empty()
        && name.split_whitespace().count() <= 4
        && name.chars().any(char::is_alphabetic)
        && !name.chars().any(char::is_lowercase)
        && !name.contains(['.', '!', '?', ':']) // not a heading such as INT. X - NIGHT
}

/// The name of a cue line without its extension (`HOLLIS (V.O.)` → `HOLLIS`).
pub fn cue_name(text: &str) -> &str {
    text.split('(')
        .next()
        .unwrap_or("")
        .trim()
        .trim_end_matches('^')
        .trim()
}

/// The words a question quotes: the text in quotation marks, else what
/// follows its first colon, else the question's own content words.
pub fn quoted_words(question: &str) -> BTreeSet<String> {
    for (open, close) in [('“', '”'), ('"', '"')] {
        if let Some(start) = question.find(open) {
            let rest = &question[start + open.len_utf8()..];
            if let Some(end) = rest.find(close) {
                let words = content_words(&rest[..end]);
                if !words.is_empty() {
                    return words;
                }
            }
        }
    }
    if let Some((_, after)) = question.split_once(':') {
        let words = content_words(after);
        if !words.is_empty() {
            return words;
        }
    }
    content_words(question)
}

/// The surface features of one option of a choice question.
#[derive(Debug, Clone, PartialEq)]
pub struct OptionFeatures {
    /// 0-based position of the option (its letter).
    pub letter: usize,
    /// Characters.
    pub chars: f64,
    /// Words.
    pub words: f64,
    /// Share of its content words found in the excerpt.
    pub context_overlap: f64,
    /// Share of its content words found in the question.
    pub question_overlap: f64,
    /// Mean word overlap with the other options (the "odd one out" cue).
    pub similarity_to_others: f64,
    /// The excerpt line it sits on, relative to the line the question quotes
    /// (negative: before), when both are found.
    pub offset: Option<i64>,
    /// Whether it names the speaker cue nearest above the quoted line.
    pub cue_above_quote: bool,
    /// Whether it is right.
    pub correct: bool,
}

/// A choice question seen from the surface: its options' features and the
/// line the question quotes.
#[derive(Debug, Clone, PartialEq)]
pub struct SurfaceView {
    /// One per option, in letter order.
    pub options: Vec<OptionFeatures>,
    /// Index into [`excerpt_lines`] of the line the question quotes.
    pub quoted_line: Option<usize>,
}

/// The line holding most of `words` (at least `min` of them), the first of
/// equals.
fn best_line(lines: &[Line], words: &BTreeSet<String>, min: f64) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (i, line) in lines.iter().enumerate() {
        let share = overlap(words, &line.words);
        if share >= min && best.is_none_or(|(_, b)| share > b) {
            best = Some((i, share));
        }
    }
    best.map(|(i, _)| i)
}

/// The surface view of a choice question (`None` for an open question).
pub fn surface(node: &Node) -> Option<SurfaceView> {
    if node.options.is_empty() {
        return None;
    }
    let cached = cached_lines(&node.context.excerpt);
    let lines: &[Line] = &cached;
    let excerpt_words: BTreeSet<String> = lines.iter().flat_map(|l| l.words.clone()).collect();
    let question_words = content_words(&node.question);
    let quoted_line = best_line(lines, &quoted_words(&node.question), 0.5);
    let cue = quoted_line.and_then(|q| {
        lines[..=q]
            .iter()
            .rev()
            .take_while(|l| l.part == lines[q].part)
            .find(|l| l.kind == LineKind::Cue)
            .map(|l| cue_name(&l.text).to_lowercase())
    });
    let option_words: Vec<BTreeSet<String>> = node
        .options
        .iter()
        .map(|o| content_words(&o.text))
        .collect();
    let options = node
        .options
        .iter()
        .enumerate()
        .map(|(k, o)| {
            let words = &option_words[k];
            let others: Vec<f64> = option_words
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != k)
                .map(|(_, w)| jaccard(words, w))
                .collect();
            let at = best_line(lines, words, 0.5);
            let first = o
                .text
                .split_whitespace()
                .next()
                .unwrap_or("")
                .to_lowercase();
            OptionFeatures {
                letter: k,
                chars: o.text.chars().count() as f64,
                words: o.text.split_whitespace().count() as f64,
                context_overlap: overlap(words, &excerpt_words),
                question_overlap: overlap(words, &question_words),
                similarity_to_others: mean(&others),
                offset: at.zip(quoted_line).map(|(a, q)| a as i64 - q as i64),
                cue_above_quote: o.text.split_whitespace().count() <= 3
                    && cue.as_deref().is_some_and(|c| {
                        !first.is_empty() && c.split_whitespace().next() == Some(first.as_str())
                    }),
                correct: o.correct,
            }
        })
        .collect();
    Some(SurfaceView {
        options,
        quoted_line,
    })
}

/// Jaccard overlap of two word sets (0 when both are empty).
pub fn jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        0.0
    } else {
        a.intersection(b).count() as f64 / union as f64
    }
}

fn mean(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        0.0
    } else {
        xs.iter().sum::<f64>() / xs.len() as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cues_parentheticals_and_dialogue_are_told_apart() {
        let lines = excerpt_lines("QUINTON\n(lying)\nOld charts.\nTeo holds his gaze.\n\nINT. PIER - DUSK\nHOLLIS (V.O.)\nPay.");
        let kinds: Vec<LineKind> = lines.iter().map(|l| l.kind).collect();
        use LineKind::*;
        assert_eq!(
            kinds,
            [Cue, Parenthetical, Dialogue, Action, Action, Cue, Dialogue]
        );
        assert_eq!(lines[4].part, 1);
        assert_eq!(cue_name("HOLLIS (V.O.)"), "HOLLIS");
    }

    #[test]
    fn narration_that_states_a_thought_is_cut_and_dialogue_kept() {
        let excerpt = "QUINTON\n(lying)\nOld charts. Quinton thinks he got away with it.\nTeo holds his gaze. Quinton thinks he got away with it.\nQuinton thinks he got away with it.";
        let out = strip_narration(excerpt, &["Quinton thinks he got away with it."]);
        assert_eq!(
            out,
            "QUINTON\n(lying)\nOld charts. Quinton thinks he got away with it.\nTeo holds his gaze."
        );
    }

    #[test]
    fn quoted_words_prefer_quotation_marks_then_the_colon() {
        let q = quoted_words("Why this: Mara says “Sell the boat”?");
        assert_eq!(q, content_words("Sell the boat"));
        let q = quoted_words("What did this lead to: Quinton hangs up?");
        assert_eq!(q, content_words("Quinton hangs up"));
    }
}
