// Invariants every subtitle reading must keep on any input, checked after each read.
use moviegraph::media::subtitles::{self, normalize_for_matching, SubtitleFormat, Subtitles};

pub fn check(subs: &Subtitles, text: &str, format: SubtitleFormat) {
    // `read` normalizes CRLF and lone CR to LF before counting lines.
    let line_count = text.replace("\r\n", "\n").replace('\r', "\n").split('\n').count().max(1);
    assert_eq!(subs.format, format);
    for (i, c) in subs.cues.iter().enumerate() {
        assert_eq!(c.index, i + 1, "cue indices are 1-based positions");
        assert!(c.start_ms <= c.end_ms, "cue {}: {} > {}", c.index, c.start_ms, c.end_ms);
        assert!(
            c.lines.first >= 1 && c.lines.first <= c.lines.last && c.lines.last <= line_count,
            "cue {}: lines {:?} outside 1..={line_count}",
            c.index,
            c.lines
        );
        assert!(!c.text.is_empty() && !c.raw.trim().is_empty(), "cue {}: empty", c.index);
        assert!(!c.turns.is_empty(), "cue {}: no turns", c.index);
        for t in &c.turns {
            assert!(!t.text.is_empty() && t.text.trim() == t.text, "cue {}: turn {:?}", c.index, t.text);
        }
        let n = normalize_for_matching(&c.text);
        assert!(n.text.trim() == n.text && !n.text.contains("  "), "{:?}", n.text);
        assert!(!(n.sound_only && !n.text.is_empty()));
    }
    for d in &subs.diagnostics {
        assert!(d.line >= 1 && d.line <= line_count, "diagnostic line {} outside 1..={line_count}", d.line);
    }
    // The front door agrees: an error exactly when nothing is usable.
    match subtitles::parse_text(text, Some(format), None) {
        Ok(again) => assert_eq!(again.cues, subs.cues),
        Err(_) => assert!(subs.cues.is_empty()),
    }
    serde_json::to_string(subs).expect("a reading always serializes");
}
