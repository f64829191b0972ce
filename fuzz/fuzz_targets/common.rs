// Invariants every reader must keep on any input, checked after each parse.
use moviegraph::screenplay::{ElementKind, Screenplay};

pub fn check(play: &Screenplay, text: &str) {
    // parse_text normalizes CRLF and lone CR to LF before reading.
    let line_count = text.replace("\r\n", "\n").replace('\r', "\n").split('\n').count().max(1);
    for (i, e) in play.elements.iter().enumerate() {
        assert!(e.lines.first >= 1 && e.lines.first <= e.lines.last, "element {i}: bad span {:?}", e.lines);
        if let Some(s) = e.scene {
            assert!(s < play.scenes.len(), "element {i}: scene {s} out of range");
        }
        if play.format != moviegraph::screenplay::Format::Fdx {
            assert!(e.lines.last <= line_count, "element {i}: line {} beyond {line_count}", e.lines.last);
        }
        if e.kind == ElementKind::Dialogue && e.speaker.is_none() {
            // Allowed (orphan dialogue), but then a diagnostic must say so.
            assert!(play.diagnostics.iter().any(|d| d.line == e.lines.first));
        }
    }
    for s in &play.scenes {
        assert!(s.elements[0] <= s.elements[1] && s.elements[1] < play.elements.len());
        assert_eq!(play.elements[s.elements[0]].kind, ElementKind::SceneHeading);
    }
    serde_json::to_string(play).expect("a parse always serializes");
}
