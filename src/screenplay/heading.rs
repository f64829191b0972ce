//! Scene-heading analysis: INT/EXT, location, time of day.

use super::element::IntExt;

/// The parts of a scene heading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeadingParts {
    /// Interior/exterior, when a prefix says.
    pub int_ext: Option<IntExt>,
    /// The location (everything between the prefix and the time of day).
    pub location: String,
    /// The time of day, when the last ` - ` segment is one.
    pub time_of_day: Option<String>,
}

/// Heading prefixes, longest first, with what they mean.
const PREFIXES: &[(&str, Option<IntExt>)] = &[
    ("INT./EXT.", Some(IntExt::IntExt)),
    ("EXT./INT.", Some(IntExt::IntExt)),
    ("INT/EXT.", Some(IntExt::IntExt)),
    ("INT/EXT", Some(IntExt::IntExt)),
    ("EXT/INT", Some(IntExt::IntExt)),
    ("INT./EXT", Some(IntExt::IntExt)),
    ("INT.-EXT.", Some(IntExt::IntExt)),
    ("I/E.", Some(IntExt::IntExt)),
    ("I/E", Some(IntExt::IntExt)),
    ("INT.", Some(IntExt::Int)),
    ("EXT.", Some(IntExt::Ext)),
    ("INT ", Some(IntExt::Int)),
    ("EXT ", Some(IntExt::Ext)),
    ("EST.", Some(IntExt::Ext)),
    ("EST ", Some(IntExt::Ext)),
];

/// Words that make a final heading segment a time of day.
fn is_time_word(w: &str) -> bool {
    matches!(
        w,
        "DAY"
            | "NIGHT"
            | "MORNING"
            | "AFTERNOON"
            | "EVENING"
            | "DAWN"
            | "DUSK"
            | "SUNRISE"
            | "SUNSET"
            | "NOON"
            | "MIDDAY"
            | "MIDNIGHT"
            | "TWILIGHT"
            | "CONTINUOUS"
            | "LATER"
            | "SAME"
            | "MOMENTS"
            | "MOMENT"
            | "CONT'D"
            | "CONTINUING"
            | "LATE"
            | "EARLY"
            | "FLASHBACK"
            | "PRESENT"
    )
}

/// The INT/EXT prefix a heading starts with (case-insensitive), and its byte length.
pub fn heading_prefix(text: &str) -> Option<(Option<IntExt>, usize)> {
    let trimmed = text.trim_start();
    let lead = text.len() - trimmed.len();
    let bytes = trimmed.as_bytes();
    // Prefixes are ASCII, so a byte-wise case-insensitive compare is exact
    // and avoids upper-casing the whole heading.
    PREFIXES.iter().find_map(|(p, ie)| {
        (bytes.len() >= p.len() && bytes[..p.len()].eq_ignore_ascii_case(p.as_bytes()))
            .then_some((*ie, lead + p.len()))
    })
}

/// True when a heading's last segment names a time of day.
fn is_time_of_day(tail: &str) -> bool {
    let upper = tail.to_uppercase();
    upper.contains("MAGIC HOUR")
        || upper
            .split(|c: char| !c.is_alphanumeric() && c != '\'')
            .any(is_time_word)
}

/// The byte position and length of the last dash that separates heading
/// segments: ` - `, ` – `, ` — ` (spaces around) or `--`. A hyphen inside a
/// word (`T-BONE`) separates nothing.
fn last_dash_separator(s: &str) -> Option<(usize, usize)> {
    let bytes = s.as_bytes();
    let mut end = s.len();
    while let Some(pos) = s[..end].rfind(['-', '–', '—']) {
        let len = s[pos..].chars().next().map_or(1, char::len_utf8);
        if pos > 0 && bytes[pos - 1] == b'-' {
            return Some((pos - 1, 2));
        }
        let spaced_before = pos > 0 && bytes[pos - 1] == b' ';
        let spaced_after = bytes.get(pos + len) == Some(&b' ');
        if spaced_before && spaced_after {
            return Some((pos, len));
        }
        end = pos;
    }
    None
}

/// Splits a heading into INT/EXT, location and time of day.
pub fn parse_heading(text: &str) -> HeadingParts {
    let text = text.trim();
    let (int_ext, rest) = match heading_prefix(text) {
        Some((ie, len)) if text.is_char_boundary(len) => (ie, text[len..].trim()),
        _ => (None, text),
    };
    let rest = rest.trim_start_matches(['.', ' ']);
    let mut location = rest.to_string();
    let mut time_of_day = None;
    if let Some((pos, sep_len)) = last_dash_separator(rest) {
        let tail = rest[pos + sep_len..].trim();
        if !tail.is_empty() && is_time_of_day(tail) {
            time_of_day = Some(tail.to_string());
            location = rest[..pos].trim().to_string();
        }
    }
    HeadingParts {
        int_ext,
        location,
        time_of_day,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_interior() {
        let h = parse_heading("INT. KITCHEN - NIGHT");
        assert_eq!(h.int_ext, Some(IntExt::Int));
        assert_eq!(h.location, "KITCHEN");
        assert_eq!(h.time_of_day.as_deref(), Some("NIGHT"));
    }

    #[test]
    fn nested_location_keeps_inner_dash() {
        let h = parse_heading("EXT. HARBOUR - PIER 4 - MOMENTS LATER");
        assert_eq!(h.int_ext, Some(IntExt::Ext));
        assert_eq!(h.location, "HARBOUR - PIER 4");
        assert_eq!(h.time_of_day.as_deref(), Some("MOMENTS LATER"));
    }

    #[test]
    fn int_ext_variants() {
        for h in ["INT./EXT. CAR - DAY", "I/E CAR - DAY", "INT/EXT CAR - DAY"] {
            assert_eq!(parse_heading(h).int_ext, Some(IntExt::IntExt), "{h}");
            assert_eq!(parse_heading(h).location, "CAR", "{h}");
        }
    }

    #[test]
    fn no_prefix_no_time() {
        let h = parse_heading("THE VAULT");
        assert_eq!(h.int_ext, None);
        assert_eq!(h.location, "THE VAULT");
        assert_eq!(h.time_of_day, None);
    }

    #[test]
    fn a_non_time_tail_stays_in_location() {
        let h = parse_heading("INT. HOUSE - KITCHEN");
        assert_eq!(h.location, "HOUSE - KITCHEN");
        assert_eq!(h.time_of_day, None);
    }

    #[test]
    fn dash_separators() {
        assert_eq!(
            parse_heading("EXT. ROAD -- NIGHT").time_of_day.as_deref(),
            Some("NIGHT")
        );
        assert_eq!(parse_heading("EXT. ROAD – NIGHT").location, "ROAD");
        let h = parse_heading("INT. T-BONE DINER - MAGIC HOUR");
        assert_eq!(h.location, "T-BONE DINER");
        assert_eq!(h.time_of_day.as_deref(), Some("MAGIC HOUR"));
        assert_eq!(parse_heading("INT. T-BONE DINER").location, "T-BONE DINER");
    }
}
