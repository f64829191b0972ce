//! A readable summary of a parsed screenplay: format, counts, characters,
//! and (in full) its scenes; what `moviegraph parse` and `run` print.

use std::fmt::Write as _;

use super::{ElementKind, NoiseKind, Screenplay};

/// A readable summary of a parse; `full` adds the scene list.
pub fn summary(play: &Screenplay, full: bool) -> String {
    let mut s = String::new();
    let name = play
        .source
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "<input>".into());
    let _ = writeln!(
        s,
        "{name}: {} ({}), {} elements, {} scenes, {} speaking characters",
        play.format.as_str(),
        play.encoding,
        play.elements.len(),
        play.scenes.len(),
        play.characters.len()
    );
    if let Some(title) = play.title_field("title") {
        let by = play
            .title_field("author")
            .or(play.title_field("authors"))
            .map(|a| format!(" by {}", a.replace('\n', ", ")))
            .unwrap_or_default();
        let _ = writeln!(s, "  title: {}{by}", title.replace('\n', " "));
    }
    let counts: Vec<String> = ElementKind::ALL
        .iter()
        .filter_map(|k| {
            let n = play.of_kind(*k).count();
            (n > 0).then(|| format!("{k} {n}"))
        })
        .collect();
    let _ = writeln!(s, "  elements: {}", counts.join(", "));
    let mut chars: Vec<_> = play.characters.iter().collect();
    chars.sort_by(|a, b| b.lines.cmp(&a.lines).then(a.name.cmp(&b.name)));
    let listed: Vec<String> = chars
        .iter()
        .map(|c| {
            if c.aliases.is_empty() {
                format!("{} ({})", c.name, c.lines)
            } else {
                format!("{} ({}; also {})", c.name, c.lines, c.aliases.join(", "))
            }
        })
        .collect();
    let _ = writeln!(s, "  characters (speeches): {}", listed.join(", "));
    if full {
        let _ = writeln!(s, "  scenes:");
        for sc in &play.scenes {
            let number = sc
                .number
                .as_deref()
                .map(|n| format!("#{n} "))
                .unwrap_or_default();
            let _ = writeln!(
                s,
                "    {:>3}  {number}{}  (lines {}-{}, {} elements)",
                sc.index + 1,
                sc.heading,
                sc.lines.first,
                sc.lines.last,
                sc.elements[1] + 1 - sc.elements[0]
            );
        }
    }
    if !play.noise.is_empty() {
        let mut kinds: std::collections::BTreeMap<NoiseKind, usize> = Default::default();
        for n in &play.noise {
            *kinds.entry(n.kind).or_default() += 1;
        }
        let parts: Vec<String> = kinds
            .iter()
            .map(|(k, n)| {
                format!(
                    "{} {n}",
                    serde_json::to_value(k)
                        .unwrap_or_default()
                        .as_str()
                        .unwrap_or("?")
                )
            })
            .collect();
        let _ = writeln!(s, "  noise kept out of the story: {}", parts.join(", "));
    }
    if !play.diagnostics.is_empty() {
        let _ = writeln!(s, "  diagnostics: {}", play.diagnostics.len());
        for d in play.diagnostics.iter().take(10) {
            let _ = writeln!(s, "    {name}:{}: {}", d.line, d.message);
        }
        if play.diagnostics.len() > 10 {
            let _ = writeln!(s, "    … {} more (see --json)", play.diagnostics.len() - 10);
        }
    }
    s
}
