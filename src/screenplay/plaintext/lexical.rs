//! Line-shape predicates: what a single trimmed line of a laid-out script
//! looks like, before any context is taken into account.
//!
//! Every function here takes the line's trimmed text and looks only at it;
//! the column model and the neighbours decide what the shape means.

use crate::screenplay::heading::heading_prefix;

/// True when `s` has a letter and no lower-case letter (`BANG!`, `MARA (V.O.)`
/// is judged by [`cue_like`], which ignores the parenthesized part).
pub fn is_upper(s: &str) -> bool {
    let mut letter = false;
    for c in s.chars() {
        if c.is_lowercase() {
            return false;
        }
        letter |= c.is_alphabetic();
    }
    letter
}

/// True when `s` opens with a scene-heading prefix (`INT.`, `EXT`, `I/E`, …).
/// Cheap for the many lines that cannot: it looks at the first three bytes
/// before asking [`heading_prefix`], which copies the line to upper-case it.
pub fn opens_heading(s: &str) -> bool {
    let b = s.trim_start().as_bytes();
    let head = [b.first(), b.get(1), b.get(2)].map(|c| c.map(u8::to_ascii_uppercase));
    let maybe = matches!(
        head,
        [Some(b'I'), Some(b'N'), Some(b'T')]
            | [Some(b'E'), Some(b'X' | b'S'), Some(b'T')]
            | [Some(b'I'), Some(b'/'), Some(b'E')]
    );
    maybe && heading_prefix(s).is_some()
}

/// Like [`is_upper`], but ignoring what is inside parentheses: headings and
/// cues keep notes there in any case (`INT. HALL - DAY (1987, dream)`).
pub fn is_upper_outside_parens(s: &str) -> bool {
    let mut depth = 0i32;
    let mut letter = false;
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            c if depth <= 0 && c.is_lowercase() => return false,
            c if depth <= 0 => letter |= c.is_alphabetic(),
            _ => {}
        }
    }
    letter
}

/// The name part of a cue: everything before the first `(`.
fn name_part(s: &str) -> &str {
    match s.find('(') {
        Some(i) => s[..i].trim_end(),
        None => s,
    }
}

/// True when `s` could be a character cue: a short upper-case name (lower case
/// only in `Mc`/`Mac` and inside the extension's parentheses), not a heading,
/// transition or exclamation.
pub fn cue_like(s: &str) -> bool {
    let name = name_part(s);
    if name.is_empty() || name.chars().count() > 38 || s.chars().count() > 60 {
        return false;
    }
    if name.split_whitespace().count() > 5 {
        return false;
    }
    if opens_heading(name) || transition_like(s) {
        return false;
    }
    let mut letter = false;
    let mut prev = ' ';
    let mut prev2 = ' ';
    for c in name.chars() {
        if c.is_lowercase() {
            // McCLANE, MacGREGOR: the only lower case a cue name carries.
            let mc = (c == 'c' && prev == 'M' && !prev2.is_alphabetic())
                || (c == 'a' && prev == 'M')
                || (c == 'c' && prev == 'a' && prev2 == 'M');
            if !mc {
                return false;
            }
        } else if c.is_alphabetic() {
            letter = true;
        } else if !(c.is_ascii_digit()
            || c.is_whitespace()
            || matches!(c, '.' | '\'' | '’' | '-' | '&' | '#' | '/' | ',' | '"'))
        {
            // `!`, `?`, `:` and the like mark sound effects, shouts and
            // transitions, never a name.
            return false;
        }
        prev2 = prev;
        prev = c;
    }
    if !letter {
        return false;
    }
    // A trailing period belongs to an abbreviation (`JR.`, `DR.`), not a sentence.
    if let Some(last) = name.split_whitespace().last() {
        if last.ends_with('.') && last.chars().filter(|c| c.is_alphabetic()).count() > 3 {
            return false;
        }
        if last.ends_with(',') {
            return false;
        }
    }
    // An extension, when present, must close.
    if s.contains('(') && !s.trim_end().ends_with(')') {
        return false;
    }
    true
}

/// The cue's name, upper-cased, without extensions: to tell whether a
/// `NAME (CONT'D)` at a page top repeats the speaker of the page before.
pub fn cue_name(s: &str) -> String {
    name_part(s)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_uppercase()
}

/// True when the cue carries a CONT'D extension in any spelling.
pub fn cue_has_contd(s: &str) -> bool {
    let up = s.to_uppercase().replace(['’', '`'], "'");
    up.contains("(CONT'D")
        || up.contains("(CONTD")
        || up.contains("(CONT.")
        || up.contains("(CONTINUED")
        || up.contains("(CONT)")
}

/// Exact upper-case transitions that do not end in `TO:`.
const TRANSITIONS: &[&str] = &[
    "FADE OUT.",
    "FADE OUT",
    "FADE OUT:",
    "FADE TO BLACK.",
    "FADE TO BLACK",
    "FADE TO WHITE.",
    "CUT TO BLACK.",
    "CUT TO BLACK",
    "SMASH TO BLACK.",
    "SMASH TO BLACK",
    "BLACKOUT.",
    "IRIS OUT.",
    "WIPE TO:",
    "FADE IN:",
    "FADE IN",
    "FADE IN.",
];

/// True when `s` reads as a transition: upper case and ending in `TO:`, or
/// one of the standard fades.
pub fn transition_like(s: &str) -> bool {
    if !is_upper(s) || s.chars().count() > 40 {
        return false;
    }
    s.ends_with("TO:") || s.ends_with(" TO") && s.starts_with("CUT") || TRANSITIONS.contains(&s)
}

/// True for `FADE IN:` and its spellings, which open a script at the action
/// column; Fountain writes them as action unless forced.
pub fn is_fade_in(s: &str) -> bool {
    matches!(s, "FADE IN:" | "FADE IN" | "FADE IN.")
}

/// Camera directions that open a shot line.
const SHOTS: &[&str] = &[
    "CLOSE ON",
    "CLOSE UP",
    "CLOSE-UP",
    "CLOSEUP",
    "CLOSE SHOT",
    "CLOSER ON",
    "EXTREME CLOSE",
    "ECU ",
    "ANGLE ON",
    "ANOTHER ANGLE",
    "NEW ANGLE",
    "REVERSE ANGLE",
    "WIDE ON",
    "WIDE SHOT",
    "WIDER ANGLE",
    "TWO SHOT",
    "OVER THE SHOULDER",
    "TRACKING SHOT",
    "AERIAL SHOT",
    "MOVING SHOT",
    "ESTABLISHING SHOT",
    "INSERT",
    "BACK TO SCENE",
    "BACK ON",
    "POV",
    "HIS POV",
    "HER POV",
    "THEIR POV",
];

/// True when an upper-case line is a camera direction (`CLOSE ON THE KEY`,
/// `MARA'S POV`, `INSERT - THE LETTER`, `BACK TO SCENE`).
pub fn shot_like(s: &str) -> bool {
    if !is_upper(s) || s.chars().count() > 60 {
        return false;
    }
    let t = s.trim_end_matches(['.', ':']);
    SHOTS.iter().any(|p| {
        t.starts_with(p)
            && t[p.len()..]
                .chars()
                .next()
                .is_none_or(|c| !c.is_alphanumeric())
    }) || t.ends_with(" POV")
        || t.ends_with("'S POV")
}

/// A scene-number token as written in a margin: `12`, `12A`, `A12`, `12.`, `12-A`.
pub fn scene_number_token(s: &str) -> bool {
    let b = s.strip_suffix('.').unwrap_or(s).as_bytes();
    if b.is_empty() || b.len() > 6 {
        return false;
    }
    // Letters (or a dash) only as a short prefix or suffix around the digits.
    let Some(first) = b.iter().position(u8::is_ascii_digit) else {
        return false;
    };
    let last = b.iter().rposition(u8::is_ascii_digit).unwrap_or(first);
    let outer_ok = |c: &u8| c.is_ascii_uppercase() || *c == b'-';
    last - first < 4
        && b[first..=last].iter().all(u8::is_ascii_digit)
        && b[..first].iter().all(outer_ok)
        && b[last + 1..].iter().all(outer_ok)
        && first <= 2
        && b.len() - 1 - last <= 3
}

/// An upper-case line that says INT. or EXT. after its place rather than
/// before it (`THE BOATHOUSE. INT. NIGHT. 1994`, `THE YARD. EXT AND INT.
/// DAY`): with a scene number before it, a heading.
pub fn interior_in_out(s: &str) -> bool {
    if !is_upper_outside_parens(s) {
        return false;
    }
    let words: Vec<&str> = s.split_whitespace().collect();
    words.iter().enumerate().skip(1).any(|(k, w)| {
        let w = w.trim_end_matches([',', ';']);
        matches!(w, "INT." | "EXT." | "INT./EXT." | "EXT./INT." | "I/E.")
            || (matches!(w, "INT" | "EXT") && words.get(k + 1) == Some(&"AND"))
    })
}

/// A scene number with a sub-number (`3.71`, `12.4A`): two digit groups
/// joined by one dot.
fn dotted_scene_number(s: &str) -> bool {
    let s = s.strip_suffix('.').unwrap_or(s);
    match s.split_once('.') {
        Some((major, minor)) => {
            (1..=3).contains(&major.len())
                && major.bytes().all(|b| b.is_ascii_digit())
                && minor.bytes().next().is_some_and(|b| b.is_ascii_digit())
                && scene_number_token(minor)
        }
        None => false,
    }
}

/// Margin scene numbers split off a line: the number, and the rest's column
/// and text. `left`/`right` say which margins held one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarginNumbers {
    /// The scene number (the left one when both are present).
    pub number: String,
    /// Column where the rest starts.
    pub indent: usize,
    /// The rest of the line, trimmed.
    pub rest: String,
    /// A number stood in the left margin.
    pub left: bool,
    /// A number stood in the right margin.
    pub right: bool,
}

/// Splits scene numbers off a line at `indent` whose trimmed text is `text`:
/// `12   INT. KITCHEN - NIGHT   12`, `12 INT. KITCHEN`, `INT. KITCHEN   12`.
/// A number is only taken when a run of spaces separates it (one space is
/// enough on the left when the rest is a scene heading).
pub fn split_margin_numbers(indent: usize, text: &str) -> Option<MarginNumbers> {
    // Most lines hold no number at either end; say so without any work.
    let digit_near = |b: &[u8]| b.iter().take(3).any(u8::is_ascii_digit);
    let bytes = text.as_bytes();
    if !digit_near(bytes) && !digit_near(&bytes[bytes.len().saturating_sub(3)..]) {
        return None;
    }
    let mut number = None;
    let mut rest_start = 0;
    let mut left = false;
    // A number glued to the heading it numbers (`12INT. HALL - DAY`).
    let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
    if (1..=4).contains(&digits) {
        let after = text[digits..].strip_prefix('.').unwrap_or(&text[digits..]);
        if after.starts_with(|c: char| c.is_ascii_alphabetic()) && opens_heading(after) {
            number = Some(text[..digits].to_string());
            rest_start = text.len() - after.len();
            left = true;
        }
    }
    if let Some(sp) = text.find(' ').filter(|_| !left) {
        let tok = &text[..sp];
        let after = &text[sp..];
        let gap = after.len() - after.trim_start().len();
        let rest = after.trim_start();
        let numbered =
            scene_number_token(tok) && (gap >= 2 || opens_heading(rest) || interior_in_out(rest));
        // A sub-numbered scene (`3.71 INT. HALL  NIGHT`) only before a heading.
        let sub_numbered = dotted_scene_number(tok) && opens_heading(rest);
        if (numbered || sub_numbered) && !rest.is_empty() {
            number = Some(tok.trim_end_matches('.').to_string());
            rest_start = sp + gap;
            left = true;
        }
    }
    let body = &text[rest_start..];
    let mut rest_end = body.len();
    let mut right = false;
    if let Some(sp) = body.rfind(' ') {
        let tok = &body[sp + 1..];
        let before = &body[..sp + 1];
        let gap = before.len() - before.trim_end().len();
        let left_num = number.as_deref();
        let same = left_num.is_none_or(|n| n == tok.trim_end_matches('.'));
        if scene_number_token(tok) && !before.trim().is_empty() && same && (gap >= 2 || left) {
            number.get_or_insert_with(|| tok.trim_end_matches('.').to_string());
            rest_end = before.trim_end().len();
            right = true;
        }
    }
    let number = number?;
    let rest = body[..rest_end].trim();
    Some(MarginNumbers {
        number,
        indent: indent + text[..rest_start].chars().count(),
        rest: rest.to_string(),
        left,
        right,
    })
}

/// True for `CONTINUED`, `CONTINUED:`, `(CONTINUED)`, `CONTINUED: (2)`, `CONT'D:`.
pub fn continued_like(s: &str) -> bool {
    if !matches!(
        s.trim_start_matches('(').as_bytes().first(),
        Some(b'C' | b'c')
    ) {
        return false;
    }
    let up = s.to_uppercase();
    let t = up.trim_start_matches('(').trim();
    let rest = if let Some(r) = t.strip_prefix("CONTINUED") {
        r
    } else if let Some(r) = t
        .strip_prefix("CONT'D")
        .or_else(|| t.strip_prefix("CONT’D"))
    {
        r
    } else {
        return false;
    };
    // What may follow: `)`, `:`, a `(2)` continuation count, and a page
    // number far right on the same line (`CONTINUED:          12.`).
    let mut rest = rest.trim_start_matches([')', ':', ' ']);
    if let Some((head, last)) = rest.rsplit_once("  ") {
        if page_number_shape(last.trim()).is_some() {
            rest = head.trim_end();
        }
    } else if page_number_shape(rest).is_some() && s.contains("  ") {
        rest = "";
    }
    rest.is_empty()
        || rest
            .strip_prefix('(')
            .and_then(|r| r.strip_suffix(')'))
            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
}

/// True for `(MORE)`.
pub fn more_like(s: &str) -> bool {
    s.eq_ignore_ascii_case("(MORE)") || s.eq_ignore_ascii_case("(MORE)*")
}

/// How sure a page-number shape is on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageShape {
    /// `Page 12`, `- 12 -`, `12/110`: nothing else looks like that.
    Sure,
    /// `12` or `12.`: a page number only where the layout says so.
    Bare,
}

/// The page-number shape of `s`, if it has one.
pub fn page_number_shape(s: &str) -> Option<PageShape> {
    if !matches!(s.as_bytes().first(), Some(b'0'..=b'9' | b'-' | b'P' | b'p')) {
        return None;
    }
    let digits = |t: &str| !t.is_empty() && t.len() <= 4 && t.chars().all(|c| c.is_ascii_digit());
    let t = s.trim();
    if let Some(n) = t.strip_suffix('.') {
        if digits(n) {
            return Some(PageShape::Bare);
        }
        if let Some(num) = n.strip_suffix(|c: char| c.is_ascii_uppercase()) {
            if digits(num) {
                // `12A.`: a page added in revision.
                return Some(PageShape::Bare);
            }
        }
    }
    if digits(t) {
        return Some(PageShape::Bare);
    }
    if let Some(inner) = t.strip_prefix('-').and_then(|r| r.strip_suffix('-')) {
        if digits(inner.trim()) {
            return Some(PageShape::Sure);
        }
    }
    let lower = t.to_ascii_lowercase();
    if let Some(r) = lower.strip_prefix("page") {
        let r = r.trim_start_matches([' ', '.']).trim_end_matches('.');
        let (a, b) = match r.split_once(" of ") {
            Some((a, b)) => (a.trim(), Some(b.trim())),
            None => (r.trim(), None),
        };
        if digits(a) && b.is_none_or(digits) {
            return Some(PageShape::Sure);
        }
    }
    if let Some((a, b)) = t.split_once('/') {
        if digits(a.trim()) && digits(b.trim()) && !t.contains(' ') {
            return Some(PageShape::Sure);
        }
    }
    None
}

/// The line with every run of digits replaced by one `#` and runs of spaces
/// collapsed: how a running header looks the same on every page (`9.` and
/// `10.` alike).
pub fn mask_digits(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut space = false;
    for c in s.chars() {
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space && !out.is_empty() {
            out.push(' ');
        }
        space = false;
        if c.is_ascii_digit() {
            if !out.ends_with('#') {
                out.push('#');
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// A hash of [`mask_digits`]`(s)`, computed without building the string:
/// the key running lines are grouped by (FNV-1a; a collision would only
/// group two unlike lines, which the page-edge test then has to pass).
pub fn mask_key(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |c: char| {
        h ^= c as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    };
    let (mut space, mut started, mut digit) = (false, false, false);
    for c in s.chars() {
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space && started {
            feed(' ');
            digit = false;
        }
        space = false;
        started = true;
        if c.is_ascii_digit() || c == '#' {
            if !digit {
                feed('#');
            }
            digit = true;
        } else {
            feed(c);
            digit = false;
        }
    }
    h
}

/// True when `s` ends a sentence (so a paragraph may end there).
pub fn ends_sentence(s: &str) -> bool {
    let t = s.trim_end_matches(['"', '\'', '”', '’', ')', '*', '_']);
    t.ends_with(['.', '!', '?', ':', '…']) || t.ends_with("--") || t.ends_with('—')
}

/// Appends a wrapped line to an element's text. Line breaks in a laid-out
/// script are the typesetter's, so lines are joined with one space; a line
/// that ends in a hyphen after a letter was broken at that hyphen
/// (`well-` / `known`), and is joined without one. A dash (`--`) glued to a
/// word is ambiguous (`to--never`, `Wait-- Listen`, `I-- (beat)`): it stays
/// glued between two lower-case words or two upper-case words
/// (`to--never`, `GO--NOW`), where a sentence did not start anew.
pub fn join_wrapped(acc: &mut String, next: &str) {
    if acc.is_empty() {
        acc.push_str(next);
        return;
    }
    let mut tail = acc.chars().rev();
    let hyphen_break = tail.next() == Some('-')
        && match tail.next() {
            Some(c) if c.is_alphabetic() => true,
            Some('-') => {
                let before: String = tail.take_while(|c| !c.is_whitespace()).collect();
                let after = next.split_whitespace().next().unwrap_or("");
                let lower = |w: &str| w.chars().next().is_some_and(char::is_lowercase);
                let shout =
                    |w: &str| w.chars().filter(|c| c.is_alphabetic()).count() >= 2 && is_upper(w);
                (before.chars().next().is_some_and(char::is_lowercase) && lower(after))
                    || (shout(&before) && shout(after))
            }
            _ => false,
        };
    if !hyphen_break {
        acc.push(' ');
    }
    acc.push_str(next);
}

/// Collapses runs of whitespace inside a cue or heading to one space
/// (laid-out text pads them; the writer did not).
pub fn squeeze(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cues_and_not_cues() {
        for s in [
            "MARA",
            "MARA (V.O.)",
            "QUINTON (cont'd)",
            "GUARD #2",
            "McCLANE",
            "DR. HALE",
            "MRS. O'NEIL (O.S.)",
        ] {
            assert!(cue_like(s), "{s}");
        }
        for s in [
            "BANG!",
            "CUT TO:",
            "INT. KITCHEN - NIGHT",
            "WHAT?",
            "Mara",
            "THE DOOR OPENS SLOWLY AND THEN SHUTS.",
            "MARA (V.O.",
            "HELLO, ",
        ] {
            assert!(!cue_like(s), "{s}");
        }
    }

    #[test]
    fn transitions() {
        assert!(transition_like("CUT TO:"));
        assert!(transition_like("SMASH CUT TO:"));
        assert!(transition_like("FADE OUT."));
        assert!(!transition_like("Cut to:"));
        assert!(!transition_like("MARA"));
    }

    #[test]
    fn shots() {
        assert!(shot_like("CLOSE ON THE KEY"));
        assert!(shot_like("MARA'S POV"));
        assert!(shot_like("INSERT - THE LETTER"));
        assert!(shot_like("BACK TO SCENE"));
        assert!(!shot_like("INSERTION"));
        assert!(!shot_like("Close on the key"));
    }

    #[test]
    fn margin_numbers() {
        let m = split_margin_numbers(2, "12   INT. KITCHEN - NIGHT      12").unwrap();
        assert_eq!(
            (m.number.as_str(), m.rest.as_str(), m.indent),
            ("12", "INT. KITCHEN - NIGHT", 7)
        );
        assert!(m.left && m.right);
        let m = split_margin_numbers(0, "12A INT. KITCHEN - NIGHT").unwrap();
        assert_eq!(
            (m.number.as_str(), m.rest.as_str()),
            ("12A", "INT. KITCHEN - NIGHT")
        );
        let m = split_margin_numbers(10, "THE VAULT - NIGHT     7").unwrap();
        assert_eq!(
            (m.number.as_str(), m.rest.as_str(), m.left, m.right),
            ("7", "THE VAULT - NIGHT", false, true)
        );
        assert!(split_margin_numbers(0, "12 men walk in").is_none());
        // Different numbers on the two sides: only the left one is a margin number.
        let m = split_margin_numbers(0, "12   INT. A   13").unwrap();
        assert_eq!((m.number.as_str(), m.rest.as_str()), ("12", "INT. A   13"));
        assert!(split_margin_numbers(0, "INT. KITCHEN").is_none());
        // A sub-numbered scene, only before a heading.
        let m = split_margin_numbers(0, "3.71 INT. CELLAR  NIGHT").unwrap();
        assert_eq!(
            (m.number.as_str(), m.rest.as_str()),
            ("3.71", "INT. CELLAR  NIGHT")
        );
        assert!(split_margin_numbers(0, "3.50  was all it cost").is_none());
        // INT./EXT. after the place, in upper case, after a scene number.
        let m = split_margin_numbers(10, "65. THE BOATHOUSE. INT. NIGHT. 1994").unwrap();
        assert_eq!(
            (m.number.as_str(), m.rest.as_str()),
            ("65", "THE BOATHOUSE. INT. NIGHT. 1994")
        );
        assert!(split_margin_numbers(10, "65. THE YARD. EXT AND INT. DAY").is_some());
        assert!(split_margin_numbers(10, "65. Then they go INT. the hall").is_none());
        assert!(split_margin_numbers(10, "65. THE BOATHOUSE AT NIGHT").is_none());
    }

    #[test]
    fn noise_shapes() {
        assert!(continued_like("CONTINUED:"));
        assert!(continued_like("(CONTINUED)"));
        assert!(continued_like("CONTINUED: (2)"));
        assert!(!continued_like("CONTINUED ON THE ROOF"));
        assert!(continued_like("CONTINUED:                    12."));
        assert!(continued_like("CONTINUED: (2)               12."));
        assert!(!continued_like("CONTINUED 12"));
        assert!(more_like("(MORE)"));
        assert_eq!(page_number_shape("12."), Some(PageShape::Bare));
        assert_eq!(page_number_shape("- 12 -"), Some(PageShape::Sure));
        assert_eq!(page_number_shape("Page 12 of 90"), Some(PageShape::Sure));
        assert_eq!(page_number_shape("12A."), Some(PageShape::Bare));
        assert_eq!(page_number_shape("12 men"), None);
        assert_eq!(page_number_shape("“Rovohavog”."), None);
    }

    #[test]
    fn wrapping() {
        let mut s = String::from("a well-");
        join_wrapped(&mut s, "known face");
        assert_eq!(s, "a well-known face");
        let mut s = String::from("I was --");
        join_wrapped(&mut s, "never mind");
        assert_eq!(s, "I was -- never mind");
        let mut s = String::from("going to--");
        join_wrapped(&mut s, "never");
        assert_eq!(s, "going to--never");
        let mut s = String::from("Wait--");
        join_wrapped(&mut s, "Listen.");
        assert_eq!(s, "Wait-- Listen.");
        let mut s = String::from("I--");
        join_wrapped(&mut s, "Never.");
        assert_eq!(s, "I-- Never.");
        let mut s = String::from("GO--");
        join_wrapped(&mut s, "NOW!");
        assert_eq!(s, "GO--NOW!");
        let mut s = String::from("Hello");
        join_wrapped(&mut s, "there");
        assert_eq!(s, "Hello there");
    }

    #[test]
    fn masks() {
        assert_eq!(
            mask_digits("THE KEY  -  Blue 03/14/26   12."),
            "THE KEY - Blue #/#/# #."
        );
        assert_eq!(
            mask_key("THE KEY - Blue 03/14/26 10."),
            mask_key(&mask_digits("THE KEY - Blue 03/14/26 9."))
        );
        assert_ne!(mask_key("THE KEY"), mask_key("THE KEYS"));
        assert_eq!(
            mask_digits("THE KEY  -  Blue 03/14/26   9."),
            mask_digits("THE KEY - Blue 03/14/26 10.")
        );
    }
}
