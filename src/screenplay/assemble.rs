//! Format-independent assembly: scenes, speakers, characters.

use std::collections::HashMap;

use super::element::{Character, ElementKind, LineSpan, Scene};
use super::heading::parse_heading;
use super::names::parse_cue;
use super::{Format, Reading, Screenplay};

/// Turns a reader's output into a [`Screenplay`]: numbers scenes, gives every
/// speech element its normalized speaker and extension, and builds the scene
/// and character lists.
pub fn assemble(reading: Reading, format: Format) -> Screenplay {
    let Reading {
        mut elements,
        mut noise,
        mut diagnostics,
    } = reading;

    let mut scenes: Vec<Scene> = Vec::new();
    let mut characters: Vec<Character> = Vec::new();
    let mut by_name: HashMap<String, usize> = HashMap::new();
    let mut cues: HashMap<String, (usize, Option<String>, bool)> = HashMap::new();
    // The cue whose speech we are in: (speaker, extension, contd, dual).
    let mut speech: Option<(String, Option<String>, bool, bool)> = None;

    for (i, e) in elements.iter_mut().enumerate() {
        let kind = e.kind;
        if kind == ElementKind::SceneHeading {
            if let Some(prev) = scenes.last_mut() {
                prev.elements[1] = i - 1;
            }
            let parts = parse_heading(&e.text);
            scenes.push(Scene {
                index: scenes.len(),
                heading: e.text.clone(),
                int_ext: parts.int_ext,
                location: parts.location,
                time_of_day: parts.time_of_day,
                number: e.scene_number.clone(),
                elements: [i, i],
                lines: e.lines,
            });
        }
        if kind != ElementKind::Title {
            e.scene = scenes.len().checked_sub(1);
        }

        match kind {
            ElementKind::Character => {
                // A script repeats the same few cue spellings hundreds of
                // times; parse each spelling once.
                let (idx, ext, contd) = match cues.get(e.text.as_str()) {
                    Some(known) => known.clone(),
                    None => {
                        let cue = parse_cue(&e.text);
                        let idx = *by_name.entry(cue.name.clone()).or_insert_with(|| {
                            characters.push(Character {
                                name: cue.name.clone(),
                                aliases: Vec::new(),
                                lines: 0,
                            });
                            characters.len() - 1
                        });
                        let ch = &mut characters[idx];
                        if cue.written != ch.name && !ch.aliases.contains(&cue.written) {
                            ch.aliases.push(cue.written.clone());
                        }
                        let known = (idx, cue.primary_extension(), cue.contd);
                        cues.insert(e.text.clone(), known.clone());
                        known
                    }
                };
                let ch = &mut characters[idx];
                ch.lines += 1;
                e.speaker = Some(ch.name.clone());
                e.extension = ext.clone();
                e.contd = contd;
                speech = Some((ch.name.clone(), ext, contd, e.dual));
            }
            ElementKind::Dialogue | ElementKind::Parenthetical => match &speech {
                Some((name, ext, contd, dual)) => {
                    e.speaker = Some(name.clone());
                    e.extension = ext.clone();
                    e.contd = *contd;
                    e.dual |= *dual;
                }
                None => {
                    if kind == ElementKind::Dialogue {
                        diagnostics.push(super::Diagnostic::warning(
                            e.lines.first,
                            "dialogue without a character cue before it",
                        ));
                    }
                }
            },
            // Notes, page breaks and title fields may sit inside a speech
            // without ending it; anything else ends it.
            ElementKind::Note | ElementKind::PageBreak | ElementKind::Title => {}
            _ => speech = None,
        }
    }
    if let Some(last) = scenes.last_mut() {
        last.elements[1] = elements.len().saturating_sub(1);
    }
    for s in &mut scenes {
        let last_line = elements[s.elements[0]..=s.elements[1]]
            .iter()
            .map(|e| e.lines.last)
            .max()
            .unwrap_or(s.lines.last);
        s.lines = LineSpan::new(s.lines.first, last_line);
    }
    for ch in &mut characters {
        ch.aliases.sort();
    }
    noise.sort_by_key(|n| (n.line, n.kind));
    diagnostics.sort_by_key(|d| d.line);

    Screenplay {
        source: None,
        format,
        encoding: String::new(),
        elements,
        scenes,
        characters,
        noise,
        diagnostics,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::screenplay::element::Element;

    fn el(kind: ElementKind, text: &str, line: usize) -> Element {
        Element::new(kind, text, LineSpan::line(line))
    }

    #[test]
    fn speakers_scenes_and_aliases() {
        let reading = Reading {
            elements: vec![
                el(ElementKind::Title, "The Second Key", 1),
                el(ElementKind::SceneHeading, "INT. OFFICE - DAY", 3),
                el(ElementKind::Character, "Mom (O. S.)", 5),
                el(ElementKind::Dialogue, "Dinner!", 6),
                el(ElementKind::Action, "Silence.", 8),
                el(ElementKind::Character, "MOM (CONT'D)", 10),
                el(ElementKind::Parenthetical, "(louder)", 11),
                el(ElementKind::Dialogue, "Dinner!!", 12),
                el(ElementKind::SceneHeading, "EXT. YARD - NIGHT", 14),
                el(ElementKind::Action, "Crickets.", 16),
            ],
            ..Default::default()
        };
        let play = assemble(reading, Format::Fountain);
        assert_eq!(play.elements[0].scene, None);
        assert_eq!(play.elements[1].scene, Some(0));
        assert_eq!(play.elements[3].speaker.as_deref(), Some("MOM"));
        assert_eq!(play.elements[3].extension.as_deref(), Some("O.S."));
        assert_eq!(play.elements[4].speaker, None);
        assert!(play.elements[7].contd);
        assert_eq!(play.elements[9].scene, Some(1));
        assert_eq!(play.scenes.len(), 2);
        assert_eq!(play.scenes[0].elements, [1, 7]);
        assert_eq!(play.scenes[0].lines, LineSpan::new(3, 12));
        assert_eq!(play.scenes[1].elements, [8, 9]);
        assert_eq!(play.characters.len(), 1);
        assert_eq!(play.characters[0].name, "MOM");
        assert_eq!(play.characters[0].lines, 2);
        assert_eq!(play.characters[0].aliases, vec!["Mom".to_string()]);
    }

    #[test]
    fn orphan_dialogue_is_diagnosed() {
        let reading = Reading {
            elements: vec![el(ElementKind::Dialogue, "Who said this?", 4)],
            ..Default::default()
        };
        let play = assemble(reading, Format::Text);
        assert_eq!(play.diagnostics.len(), 1);
        assert_eq!(play.diagnostics[0].line, 4);
    }
}
