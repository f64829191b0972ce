//! The line model's classes put back into elements. Where the model agrees
//! with the rules reader, the reader's elements stay as they are (byte for
//! byte); each stretch where it disagrees — the elements holding a changed
//! line, joined when they touch — is rebuilt from the model's classes: one
//! element per heading, cue and transition line, a parenthetical up to its
//! closing bracket, consecutive dialogue or action lines as one element
//! (a blank line ends it).

use super::super::element::{Element, ElementKind, NoiseKind};
use super::super::layouts::Tag;
use super::super::Reading;
use super::Line;
use crate::text::source::LineSpan;

/// The element kind a class is rebuilt as.
fn kind(tag: Tag) -> ElementKind {
    match tag {
        Tag::Heading => ElementKind::SceneHeading,
        Tag::Action => ElementKind::Action,
        Tag::Character => ElementKind::Character,
        Tag::Dialogue => ElementKind::Dialogue,
        Tag::Parenthetical => ElementKind::Parenthetical,
        Tag::Transition => ElementKind::Transition,
    }
}

/// `reading` with the classes `predicted` (one per line of `lines`; `None`
/// for other) where they differ from `reader`'s. Elements of kinds the
/// classes do not cover (title page, notes, sections), side-by-side speeches,
/// centered lines, shots and lyrics forced with `~` (their margins or marks
/// say what they are) are never touched, and a story line is never set aside as page
/// furniture (its text would be lost).
pub(super) fn apply(
    lines: &[Line<'_>],
    mut reading: Reading,
    reader: &[Option<Tag>],
    predicted: &[Option<Tag>],
) -> Reading {
    let n = lines.len();
    // The element holding each line (1-based lines, 0-based indices).
    let mut holder: Vec<Option<usize>> = vec![None; n + 2];
    for (k, e) in reading.elements.iter().enumerate() {
        let (first, last) = (e.lines.first.min(n + 1), e.lines.last.min(n));
        if first <= last {
            holder[first..=last].fill(Some(k));
        }
    }
    let fixed_element: Vec<bool> = reading
        .elements
        .iter()
        .map(|e| {
            Tag::of(e.kind).is_none()
                || e.dual
                || matches!(e.kind, ElementKind::Centered | ElementKind::Shot)
                || (e.kind == ElementKind::Lyric
                    && lines
                        .get(e.lines.first.wrapping_sub(1))
                        .is_some_and(|l| l.text.starts_with('~')))
        })
        .collect();
    let fixed = |k: usize| fixed_element[k];
    let fixed_line: Vec<bool> = holder.iter().map(|h| h.is_some_and(fixed)).collect();
    let mut regions: Vec<(usize, usize)> = Vec::new();
    for i in 0..n {
        if lines[i].text.is_empty() || predicted[i] == reader[i] {
            continue;
        }
        let no = lines[i].no;
        match holder[no] {
            Some(k) if fixed(k) => continue,
            Some(k) => regions.push((
                reading.elements[k].lines.first,
                reading.elements[k].lines.last,
            )),
            None => regions.push((no, no)),
        }
    }
    if regions.is_empty() {
        return reading;
    }
    // Join regions that overlap, and grow each over every element it touches.
    regions.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (lo, hi) in regions {
        let (mut grown_lo, mut grown_hi) = (lo, hi);
        let span = if lo <= hi.min(n) {
            &holder[lo..=hi.min(n)]
        } else {
            &[][..]
        };
        for k in span.iter().flatten() {
            if !fixed(*k) {
                grown_lo = grown_lo.min(reading.elements[*k].lines.first);
                grown_hi = grown_hi.max(reading.elements[*k].lines.last);
            }
        }
        let (lo, hi) = (grown_lo, grown_hi);
        match merged.last_mut() {
            Some(last) if lo <= last.1 => last.1 = last.1.max(hi),
            _ => merged.push((lo, hi)),
        }
    }
    let mut in_region = vec![false; n + 2];
    for &(lo, hi) in &merged {
        in_region[lo..=hi.min(n + 1)].fill(true);
    }
    let inside = |l: usize| in_region.get(l).copied().unwrap_or(false);
    let mut kept = Vec::with_capacity(reading.elements.len());
    for (k, e) in std::mem::take(&mut reading.elements)
        .into_iter()
        .enumerate()
    {
        if fixed_element[k] || !inside(e.lines.first) {
            kept.push(e);
        }
    }
    // A line the model reads as story is no longer page furniture.
    reading.noise.retain(|noise| {
        matches!(noise.kind, NoiseKind::SceneNumber | NoiseKind::RevisionMark)
            || !inside(noise.line)
            || predicted.get(noise.line - 1).copied().flatten().is_none()
    });
    let mut rebuilt = Vec::new();
    for &(lo, hi) in &merged {
        let mut group: Option<(Tag, Element)> = None;
        // A blank line ends an element unless the reader had the lines on
        // both sides of it in one element (a double-spaced speech).
        let mut gap = false;
        for no in lo..=hi.min(n) {
            let line = &lines[no - 1];
            let class = predicted[no - 1];
            if fixed_line[no] {
                flush(&mut group, &mut rebuilt);
                continue;
            }
            if line.text.is_empty() {
                gap = true;
                continue;
            }
            // Across a gap the reader joins with a space (a speech or
            // paragraph split by a page break), within one with a line break.
            let joint = if gap { ' ' } else { '\n' };
            if gap {
                let last = group.as_ref().map(|(_, e)| e.lines.last);
                if last.is_none_or(|last| holder[last].is_none() || holder[last] != holder[no]) {
                    flush(&mut group, &mut rebuilt);
                }
                gap = false;
            }
            // A story line is never set aside: its text would be lost.
            let Some(tag) = class.or(reader[no - 1]) else {
                continue;
            };
            if let Some((open, e)) = &mut group {
                let joins = match (*open, tag) {
                    (Tag::Dialogue, Tag::Dialogue) | (Tag::Action, Tag::Action) => true,
                    (Tag::Parenthetical, Tag::Parenthetical) => !e.text.ends_with(')'),
                    _ => false,
                };
                if joins {
                    e.text.push(joint);
                    e.text.push_str(&line.text);
                    e.lines.last = no;
                    continue;
                }
            }
            flush(&mut group, &mut rebuilt);
            let mut e = Element::new(kind(tag), line.text.to_string(), LineSpan::new(no, no));
            if tag == Tag::Heading {
                e.scene_number = line.number.clone();
            }
            group = Some((tag, e));
        }
        flush(&mut group, &mut rebuilt);
    }
    // The rebuilt elements go where their lines are; the kept ones keep
    // their order (side-by-side speeches share lines).
    let mut rebuilt = rebuilt.into_iter().peekable();
    for e in kept {
        while let Some(r) = rebuilt.next_if(|r| r.lines.first < e.lines.first) {
            reading.elements.push(r);
        }
        reading.elements.push(e);
    }
    reading.elements.extend(rebuilt);
    reading
}

fn flush(group: &mut Option<(Tag, Element)>, out: &mut Vec<Element>) {
    if let Some((_, e)) = group.take() {
        out.push(e);
    }
}

#[cfg(test)]
mod tests {
    use super::super::read_rules;
    use super::*;
    use crate::screenplay::layouts::tags_of;

    const TEXT: &str = "\
          INT. BOATHOUSE - NIGHT

          Rain on the roof.

                              MARA
                    Who left the door open?

                              QUINTON
                    Not me. I came in through
                    the window.

          He shrugs.
";

    fn kinds(reading: &Reading) -> Vec<(ElementKind, usize, usize)> {
        reading
            .elements
            .iter()
            .map(|e| (e.kind, e.lines.first, e.lines.last))
            .collect()
    }

    #[test]
    fn agreeing_classes_leave_the_reading_as_it_was() {
        let (lines, reading) = read_rules(TEXT);
        let before = kinds(&reading);
        let reader = tags_of(&reading.elements, &reading.noise, lines.len());
        let after = apply(&lines, reading, &reader, &reader);
        assert_eq!(kinds(&after), before);
    }

    #[test]
    fn a_changed_line_rebuilds_only_its_elements_in_place() {
        let (lines, reading) = read_rules(TEXT);
        let texts: Vec<String> = reading.elements.iter().map(|e| e.text.clone()).collect();
        let reader = tags_of(&reading.elements, &reading.noise, lines.len());
        // The model reads the second line of Quinton's speech as action.
        let mut predicted = reader.clone();
        assert_eq!(predicted[9], Some(Tag::Dialogue));
        predicted[9] = Some(Tag::Action);
        let after = apply(&lines, reading, &reader, &predicted);
        let rebuilt: Vec<_> = kinds(&after);
        assert_eq!(
            rebuilt,
            vec![
                (ElementKind::SceneHeading, 1, 1),
                (ElementKind::Action, 3, 3),
                (ElementKind::Character, 5, 5),
                (ElementKind::Dialogue, 6, 6),
                (ElementKind::Character, 8, 8),
                (ElementKind::Dialogue, 9, 9),
                (ElementKind::Action, 10, 10),
                (ElementKind::Action, 12, 12),
            ]
        );
        // Untouched elements keep their text; the split speech keeps its words.
        assert_eq!(after.elements[3].text, texts[3]);
        assert_eq!(after.elements[5].text, "Not me. I came in through");
        assert_eq!(after.elements[6].text, "the window.");
    }

    #[test]
    fn a_story_line_read_as_other_keeps_its_text() {
        let (lines, reading) = read_rules(TEXT);
        let reader = tags_of(&reading.elements, &reading.noise, lines.len());
        let mut predicted = reader.clone();
        predicted[2] = None;
        predicted[11] = Some(Tag::Dialogue);
        let after = apply(&lines, reading, &reader, &predicted);
        let rain = after.elements.iter().find(|e| e.lines.first == 3).unwrap();
        assert_eq!(
            (rain.kind, rain.text.as_str()),
            (ElementKind::Action, "Rain on the roof.")
        );
        let shrug = after.elements.iter().find(|e| e.lines.first == 12).unwrap();
        assert_eq!(shrug.kind, ElementKind::Dialogue);
    }
}
