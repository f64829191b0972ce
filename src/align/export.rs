//! The JSONL export of an alignment (`moviegraph align --jsonl`), and the
//! plain-text rendering of a block's script segment that the export and the
//! alignment tables' `load_blocks` (`align::store::AlignmentStore`) share.
//!
//! One JSON object per line, each with a `type`:
//! - `summary` (first line): film, verdict, coverage, mean confidence, counts, embedder;
//! - `alignment`: one per dialogue line (script order): line, element, speaker,
//!   text, matched cue numbers, start/end ms, confidence, moved;
//! - `block`: one per block (script order): id, scene, element range,
//!   start/end ms, the segment's text and its keyframes (representatives marked).
//!
//! The format is documented in `docs/alignment-jsonl.md`.

use serde_json::json;

use super::Alignment;
use crate::screenplay::{ElementKind, Screenplay};

/// One element as a line of a block's script segment, or `None` for elements
/// that are not story (notes, sections, page breaks, title fields).
pub fn segment_line(kind: ElementKind, text: &str, speaker: Option<&str>) -> Option<String> {
    match kind {
        ElementKind::Dialogue => Some(match speaker {
            Some(s) => format!("{s}: {text}"),
            None => text.to_owned(),
        }),
        ElementKind::Parenthetical => Some(format!("  {text}")),
        // The cue is implied by the speaker prefix of its dialogue.
        ElementKind::Character => None,
        k if k.is_story() => Some(text.to_owned()),
        _ => None,
    }
}

/// The script segment of elements `first..=last` as text, one element per line.
pub fn segment_text(play: &Screenplay, first: usize, last: usize) -> String {
    let mut out = String::new();
    for e in play.elements.get(first..=last).unwrap_or(&[]) {
        if let Some(line) = segment_line(e.kind, &e.text, e.speaker.as_deref()) {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

/// The JSONL export of `alignment` of `play` for the film `film` (every line ends with `\n`).
pub fn jsonl(film: &str, play: &Screenplay, alignment: &Alignment) -> String {
    let s = &alignment.summary;
    let mut out = String::new();
    let mut push = |v: serde_json::Value| {
        out.push_str(&v.to_string());
        out.push('\n');
    };
    push(json!({
        "type": "summary",
        "film": film,
        "verdict": s.verdict.as_str(),
        "coverage": s.coverage,
        "mean_confidence": s.mean_confidence,
        "dialogue_lines": s.dialogue_lines,
        "cues": s.cues,
        "matched": s.matched,
        "anchors": s.anchors,
        "moved_lines": s.moved_lines,
        "embedder": s.embedder,
        "blocks": alignment.blocks.len(),
    }));
    for a in &alignment.alignments {
        let e = &play.elements[a.element];
        push(json!({
            "type": "alignment",
            "film": film,
            "line": a.line,
            "element": a.element,
            "speaker": e.speaker,
            "text": e.text,
            "cues": a.cues,
            "start_ms": a.start_ms,
            "end_ms": a.end_ms,
            "confidence": a.confidence,
            "moved": a.moved,
        }));
    }
    for b in &alignment.blocks {
        push(json!({
            "type": "block",
            "film": film,
            "id": b.id,
            "scene": b.scene,
            "elements": b.elements,
            "start_ms": b.start_ms,
            "end_ms": b.end_ms,
            "text": segment_text(play, b.elements[0], b.elements[1]),
            "keyframes": b.keyframes,
        }));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::{align, AlignOptions};
    use crate::media::subtitles;
    use crate::screenplay;

    #[test]
    fn every_line_is_a_typed_object_in_order() {
        let play = screenplay::parse_text(
            "INT. ROOM - DAY\n\nMara waits.\n\nMARA\nWhere is the second key?\n\nTOM\nI buried it with him.\n",
            None,
            None,
        )
        .unwrap();
        let subs = subtitles::parse_text(
            "1\n00:00:01,000 --> 00:00:02,000\nWhere is the second key?\n\n2\n00:00:03,000 --> 00:00:04,000\nI buried it with him.\n",
            None,
            None,
        )
        .unwrap();
        let a = align(&play, &subs, &AlignOptions::default());
        let text = jsonl("room", &play, &a);
        let rows: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let types: Vec<&str> = rows.iter().map(|r| r["type"].as_str().unwrap()).collect();
        assert_eq!(types, ["summary", "alignment", "alignment", "block"]);
        assert_eq!(rows[1]["speaker"], "MARA");
        assert_eq!(rows[2]["cues"], json!([2]));
        assert_eq!(rows[2]["start_ms"], 3000);
        assert_eq!(
            rows[3]["text"],
            "INT. ROOM - DAY\nMara waits.\nMARA: Where is the second key?\nTOM: I buried it with him.\n"
        );
    }
}
