//! Text for matching: cue (or script) text reduced to the words spoken.

use serde::{Deserialize, Serialize};

/// [`normalize_for_matching`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Normalized {
    /// Lowercase words separated by single spaces.
    pub text: String,
    /// The text held something, but only sound descriptions (`[DOOR SLAMS]`,
    /// `(laughs)`) or music notes: a cue no line of dialogue can match.
    pub sound_only: bool,
}

/// Reduces display text to the words spoken, for the aligner: bracketed
/// descriptions (`[DOOR SLAMS]`, `(laughs)`, nesting allowed, across lines)
/// are removed, letters are lowercased, and every character that is not a
/// letter or digit becomes a space — speaker dashes, punctuation, music
/// notes, hyphens (`sister-in-law` gives `sister in law`) — except an
/// apostrophe between two letters or digits (`who's`), which is kept as `'`.
/// Whitespace is collapsed. An unclosed bracket is kept as punctuation.
///
/// Use the same function on the screenplay side so both read alike.
pub fn normalize_for_matching(text: &str) -> Normalized {
    let chars: Vec<char> = text.chars().collect();
    let mut removed = vec![false; chars.len()];
    let mut described = false;
    for (open, close) in [('[', ']'), ('(', ')')] {
        let mut depth = 0usize;
        let mut start = 0;
        for (i, &c) in chars.iter().enumerate() {
            if c == open {
                if depth == 0 {
                    start = i;
                }
                depth += 1;
            } else if c == close && depth > 0 {
                depth -= 1;
                if depth == 0 {
                    // Outermost pairs of one kind never overlap: linear overall.
                    removed[start..=i].iter_mut().for_each(|r| *r = true);
                    described = true;
                }
            }
        }
    }
    let is_word = |i: usize| !removed[i] && chars[i].is_alphanumeric();
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    let mut music = false;
    for (i, &c) in chars.iter().enumerate() {
        if removed[i] {
            pending_space = true;
            continue;
        }
        let keep = if c.is_alphanumeric() {
            true
        } else if matches!(c, '\'' | '’' | 'ʼ') {
            i > 0 && i + 1 < chars.len() && is_word(i - 1) && is_word(i + 1)
        } else {
            music |= matches!(c, '♪' | '♫' | '♬' | '♩');
            false
        };
        if !keep {
            pending_space = true;
            continue;
        }
        if pending_space && !out.is_empty() {
            out.push(' ');
        }
        pending_space = false;
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else {
            out.push('\'');
        }
    }
    let sound_only = out.is_empty() && (described || music);
    Normalized {
        text: out,
        sound_only,
    }
}
