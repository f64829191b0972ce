//! Character-cue normalization: one identity per character, whatever the spelling.
//!
//! `MOM (O. S.)`, `Mom (CONT'D)` and `@Mom` all become speaker `MOM`; the
//! parenthesized parts become normalized extensions.

/// A character cue split into its normalized name and extensions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cue {
    /// Upper-case name with extensions, forcing marks and stray punctuation removed.
    pub name: String,
    /// The name as written, minus forcing marks and extensions (for aliases).
    pub written: String,
    /// Normalized voice extensions (`V.O.`, `O.S.`, …), `CONT'D` excluded.
    pub extensions: Vec<String>,
    /// The cue carried a CONT'D extension.
    pub contd: bool,
}

impl Cue {
    /// The single extension reported on elements: the first voice extension,
    /// else `CONT'D` when that is all there is.
    pub fn primary_extension(&self) -> Option<String> {
        self.extensions
            .first()
            .cloned()
            .or_else(|| self.contd.then(|| "CONT'D".to_string()))
    }
}

/// Splits a cue such as `MOM (O. S.) (CONT'D)` or `@McCLANE ^` into name and extensions.
pub fn parse_cue(raw: &str) -> Cue {
    let mut s = raw.trim();
    s = s.strip_prefix('@').unwrap_or(s).trim_start();
    s = s.strip_suffix('^').unwrap_or(s).trim_end();

    let mut written = String::new();
    let mut extensions = Vec::new();
    let mut contd = false;
    let mut rest = s;
    while let Some(open) = rest.find('(') {
        written.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let (inner, tail) = match after.find(')') {
            Some(close) => (&after[..close], &after[close + 1..]),
            None => (after, ""),
        };
        match normalize_extension(inner) {
            Ext::Contd => contd = true,
            Ext::Voice(v) => extensions.push(v),
        }
        rest = tail;
    }
    written.push_str(rest);

    // Bare trailing extensions without parentheses ("JOHN V.O.", "JOHN CONT'D").
    let mut words: Vec<&str> = written.split_whitespace().collect();
    while words.len() > 1 {
        let last = words[words.len() - 1];
        match bare_extension(last) {
            Some(Ext::Contd) => contd = true,
            Some(Ext::Voice(v)) => extensions.insert(0, v),
            None => break,
        }
        words.pop();
    }
    let written = words
        .join(" ")
        .trim_end_matches([':', ',', ';'])
        .trim()
        .to_string();
    let name = written.to_uppercase();
    Cue {
        name,
        written,
        extensions,
        contd,
    }
}

enum Ext {
    Contd,
    Voice(String),
}

fn squash(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| if c == '’' || c == '`' { '\'' } else { c })
        .flat_map(char::to_uppercase)
        .collect()
}

fn normalize_extension(inner: &str) -> Ext {
    let sq = squash(inner);
    let bare = sq.replace(['.', '\''], "");
    if matches!(bare.as_str(), "CONTD" | "CONT" | "CONTINUED" | "CONTINUING") {
        return Ext::Contd;
    }
    let voice = match bare.as_str() {
        "VO" => "V.O.".to_string(),
        "OS" => "O.S.".to_string(),
        "OC" => "O.C.".to_string(),
        "OOV" => "O.O.V.".to_string(),
        "ONTV" | "ONPHONE" => inner.trim().to_uppercase(),
        _ => collapse_spaces(&inner.trim().to_uppercase()),
    };
    Ext::Voice(voice)
}

fn bare_extension(word: &str) -> Option<Ext> {
    let bare = squash(word).replace(['.', '\''], "");
    match bare.as_str() {
        "CONTD" => Some(Ext::Contd),
        "VO" if word.contains('.') => Some(Ext::Voice("V.O.".into())),
        "OS" if word.contains('.') => Some(Ext::Voice("O.S.".into())),
        "OC" if word.contains('.') => Some(Ext::Voice("O.C.".into())),
        _ => None,
    }
}

fn collapse_spaces(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_extensions_and_normalizes_spacing() {
        let c = parse_cue("MOM (O. S.)");
        assert_eq!(c.name, "MOM");
        assert_eq!(c.extensions, vec!["O.S."]);
        assert!(!c.contd);
    }

    #[test]
    fn forced_mixed_case_name() {
        let c = parse_cue("@McCLANE");
        assert_eq!(c.name, "MCCLANE");
        assert_eq!(c.written, "McCLANE");
    }

    #[test]
    fn contd_in_all_spellings() {
        for raw in [
            "MARA (CONT'D)",
            "MARA (CONT’D)",
            "MARA (cont.)",
            "MARA (CONTD)",
        ] {
            let c = parse_cue(raw);
            assert_eq!(c.name, "MARA", "{raw}");
            assert!(c.contd, "{raw}");
            assert_eq!(c.primary_extension().as_deref(), Some("CONT'D"));
        }
    }

    #[test]
    fn voice_and_contd_together() {
        let c = parse_cue("QUINTON (V.O.) (CONT'D)");
        assert_eq!(c.name, "QUINTON");
        assert_eq!(c.primary_extension().as_deref(), Some("V.O."));
        assert!(c.contd);
    }

    #[test]
    fn dual_marker_and_trailing_colon() {
        assert_eq!(parse_cue("BRICK ^").name, "BRICK");
        assert_eq!(parse_cue("JOHN:").name, "JOHN");
    }

    #[test]
    fn bare_trailing_extension() {
        let c = parse_cue("JOHN V.O.");
        assert_eq!(c.name, "JOHN");
        assert_eq!(c.extensions, vec!["V.O."]);
    }

    #[test]
    fn names_with_int_are_names() {
        assert_eq!(parse_cue("QUINTON").name, "QUINTON");
    }
}
