//! Surface features of a choice question's options: what a reader that never
//! reads for meaning can see. The audit's shortcut readers score options with
//! them, and generation balances them, so both measure the same thing.
//!
//! The excerpt is read as the subject sees it: lines, blocks separated by a
//! blank line, gaps marked `…`, speaker cues in capitals above dialogue.

use std::collections::BTreeSet;

use crate::trees::facts::{content_words, is_content_word};
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
    classify_lines(excerpt, |text, part, kind| {
        out.push(Line {
            text: text.to_owned(),
            words: content_words(text),
            part,
            kind,
        })
    });
    out
}

/// Calls `each` with every shown line of an excerpt (trimmed), its block and
/// its kind, in order.
fn classify_lines<'e>(excerpt: &'e str, mut each: impl FnMut(&'e str, usize, LineKind)) {
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
            each(text, part, kind);
        }
    }
}

/// The content words of a text as interned ids, sorted and unique: the
/// surface reader compares word sets many thousand times per film, and ids
/// compare without touching the strings.
fn word_ids(text: &str) -> Vec<u32> {
    thread_local! {
        static IDS: std::cell::RefCell<rustc_hash::FxHashMap<String, u32>> =
            Default::default();
    }
    IDS.with(|ids| {
        let mut ids = ids.borrow_mut();
        let mut word = String::new();
        let mut out: Vec<u32> = Vec::new();
        for raw in text.split(|c: char| !c.is_alphanumeric()) {
            if raw.is_empty() {
                continue;
            }
            word.clear();
            if raw.is_ascii() {
                word.extend(raw.chars().map(|c| c.to_ascii_lowercase()));
            } else {
                word.push_str(&raw.to_lowercase());
            }
            if !is_content_word(&word) {
                continue;
            }
            let next = ids.len() as u32;
            let id = match ids.get(word.as_str()) {
                Some(&id) => id,
                None => *ids.entry(word.clone()).or_insert(next),
            };
            out.push(id);
        }
        out.sort_unstable();
        out.dedup();
        out
    })
}

/// How many ids two sorted, unique id lists share.
fn shared(a: &[u32], b: &[u32]) -> usize {
    crate::util::sorted::common_count(a, b)
}

/// [`overlap`] over word ids: share of `a`'s words found in `b`.
fn id_overlap(a: &[u32], b: &[u32]) -> f64 {
    if a.is_empty() {
        0.0
    } else {
        shared(a, b) as f64 / a.len() as f64
    }
}

/// [`jaccard`] over word ids.
fn id_jaccard(a: &[u32], b: &[u32]) -> f64 {
    let both = shared(a, b);
    let union = a.len() + b.len() - both;
    if union == 0 {
        0.0
    } else {
        both as f64 / union as f64
    }
}

/// [`word_ids`] of an excerpt line, an option or a question, remembered:
/// generation reads the same lines in many excerpts and the same options
/// and questions in many candidate picks.
fn line_ids(line: &str) -> std::rc::Rc<[u32]> {
    thread_local! {
        static LINES: std::cell::RefCell<rustc_hash::FxHashMap<String, std::rc::Rc<[u32]>>> =
            Default::default();
    }
    LINES.with(|lines| {
        if let Some(ids) = lines.borrow().get(line) {
            return std::rc::Rc::clone(ids);
        }
        let ids: std::rc::Rc<[u32]> = word_ids(line).into();
        let mut lines = lines.borrow_mut();
        if lines.len() >= LINES_KEPT {
            lines.clear();
        }
        lines.insert(line.to_owned(), std::rc::Rc::clone(&ids));
        ids
    })
}

/// Excerpt lines kept read at most (the memory is emptied beyond).
const LINES_KEPT: usize = 1 << 16;

/// One excerpt line as the surface reader keeps it.
struct SeenLine<'e> {
    text: &'e str,
    ids: std::rc::Rc<[u32]>,
    part: usize,
    kind: LineKind,
}

/// The excerpt with these quotes cut from its narration lines (action lines;
/// never dialogue, which is what the film lets us hear). A line left empty is
/// dropped; everything else is kept as it was.
pub fn strip_narration(excerpt: &str, quotes: &[&str]) -> String {
    if quotes.is_empty() {
        return excerpt.to_owned();
    }
    // Only the quotes the excerpt holds can be cut from one of its lines
    // (most excerpts hold none: each line is then searched for nothing).
    let quotes: Vec<&str> = quotes
        .iter()
        .copied()
        .filter(|q| !q.is_empty() && excerpt.contains(q))
        .collect();
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
        let untouched = !quotes.iter().any(|q| raw.contains(q));
        if untouched && is_tidy(raw) {
            out.push(raw.to_owned());
            continue;
        }
        let mut line = raw.to_owned();
        for q in &quotes {
            if line.contains(q) {
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

/// Whether a narration line is already as [`strip_narration`] leaves one:
/// single spaces, no stray stop, something to read.
fn is_tidy(line: &str) -> bool {
    line == line.trim()
        && !line.starts_with('.')
        && !line.contains("  ")
        && !line.contains(". .")
        && !line.chars().any(|c| c.is_whitespace() && c != ' ')
        && line.chars().any(char::is_alphanumeric)
}

/// Whether a line is a speaker cue: a short name in capitals, maybe with an
/// extension in parentheses.
pub fn is_cue(text: &str) -> bool {
    let name = cue_name(text);
    // The cheap test first: most lines (action, dialogue) have a lowercase
    // letter near their start.
    !name.is_empty()
        && !name.chars().any(char::is_lowercase)
        && name.split_whitespace().nth(4).is_none()
        && name.chars().any(char::is_alphabetic)
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
    content_words(quoted_text(question, |t| !content_words(t).is_empty()))
}

/// The part of a question [`quoted_words`] reads: the first of the quoted
/// text, the text after the first colon and the whole question that
/// `has_words`.
fn quoted_text(question: &str, has_words: impl Fn(&str) -> bool) -> &str {
    for (open, close) in [('“', '”'), ('"', '"')] {
        if let Some(start) = question.find(open) {
            let rest = &question[start + open.len_utf8()..];
            if let Some(end) = rest.find(close) {
                if has_words(&rest[..end]) {
                    return &rest[..end];
                }
            }
        }
    }
    if let Some((_, after)) = question.split_once(':') {
        if has_words(after) {
            return after;
        }
    }
    question
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

/// The line holding most of `words` (at least a share `min` of them), the
/// first of equals.
fn best_line(lines: &[SeenLine<'_>], words: &[u32], min: f64) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (i, line) in lines.iter().enumerate() {
        let share = id_overlap(words, &line.ids);
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
    let mut lines: Vec<SeenLine<'_>> = Vec::new();
    classify_lines(&node.context.excerpt, |text, part, kind| {
        lines.push(SeenLine {
            text,
            ids: line_ids(text),
            part,
            kind,
        })
    });
    let mut excerpt_words: Vec<u32> = lines.iter().flat_map(|l| l.ids.iter().copied()).collect();
    excerpt_words.sort_unstable();
    excerpt_words.dedup();
    let question_words = line_ids(&node.question);
    let quoted = line_ids(quoted_text(&node.question, |t| !line_ids(t).is_empty()));
    let quoted_line = best_line(&lines, &quoted, 0.5);
    let cue = quoted_line.and_then(|q| {
        lines[..=q]
            .iter()
            .rev()
            .take_while(|l| l.part == lines[q].part)
            .find(|l| l.kind == LineKind::Cue)
            .map(|l| cue_name(l.text).to_lowercase())
    });
    let option_words: Vec<std::rc::Rc<[u32]>> =
        node.options.iter().map(|o| line_ids(&o.text)).collect();
    let options = node
        .options
        .iter()
        .enumerate()
        .map(|(k, o)| {
            let words = &option_words[k];
            let mut others: Vec<f64> = option_words
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != k)
                .map(|(_, w)| id_jaccard(words, w))
                .collect();
            // Summed in value order, so the option order (the letters) cannot
            // change the last bit of the mean and with it a reader's ties.
            others.sort_by(f64::total_cmp);
            let at = best_line(&lines, words, 0.5);
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
                context_overlap: id_overlap(words, &excerpt_words),
                question_overlap: id_overlap(words, &question_words),
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

    #[test]
    fn word_ids_measure_overlap_as_content_words_do() {
        let texts = [
            "Mara keeps the RING in the safe.",
            "Quinton lies to Mara about the ring",
            "“I remember the splash.” Über-cold; naïve Ærø",
            "",
            "a I to",
        ];
        for a in texts {
            for b in texts {
                let (wa, wb) = (content_words(a), content_words(b));
                let (ia, ib) = (word_ids(a), word_ids(b));
                assert_eq!(ia.len(), wa.len(), "{a}");
                assert_eq!(id_overlap(&ia, &ib), crate::trees::facts::overlap(&wa, &wb));
                assert_eq!(id_jaccard(&ia, &ib), jaccard(&wa, &wb));
            }
        }
    }

    #[test]
    fn a_tidy_narration_line_is_left_as_the_full_rewrite_would_leave_it() {
        // The fast path (no quote in the line, already tidy) must agree with
        // the rewrite every other line goes through.
        let quote = ["Mara thinks."];
        for line in [
            "Teo holds his gaze.",
            "  Teo holds his gaze.",
            "Teo  holds his gaze.",
            "Teo holds\this gaze.",
            ". Teo holds his gaze.",
            "Teo holds his gaze. . Then he goes.",
            "...",
            "Teo\u{a0}holds his gaze.",
        ] {
            let once = strip_narration(line, &quote);
            assert_eq!(strip_narration(&once, &quote), once, "{line:?}");
            if is_tidy(line) {
                assert_eq!(once, line);
            } else {
                assert_ne!(once, line, "{line:?} is rewritten, so not tidy");
            }
        }
    }
}
