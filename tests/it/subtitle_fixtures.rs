//! Data-driven subtitle tests: every file under `tests/fixtures/subtitles/`
//! is read (format detected from its name and content) and its rendering
//! compared with the `.expected` file beside it.
//!
//! Run with `UPDATE_EXPECT=1` to rewrite the expectations; review the diff.

use crate::common;

use std::fmt::Write as _;

use moviegraph::media::subtitles::{self, format_ms, normalize_for_matching, Cue, Subtitles};
use moviegraph::screenplay::Severity;

/// One block per cue (header, text, turns, the matching form, raw and
/// settings where they say more), then the diagnostics; newlines shown as `⏎`.
fn render(subs: &Subtitles) -> String {
    let mut out = format!("format {} encoding {}\n", subs.format, subs.encoding);
    for cue in &subs.cues {
        render_cue(&mut out, cue);
    }
    for d in &subs.diagnostics {
        let severity = match d.severity {
            Severity::Info => "info",
            Severity::Warning => "warning",
        };
        writeln!(out, "diagnostic {} {severity} {}", d.line, d.message).unwrap();
    }
    out
}

fn render_cue(out: &mut String, cue: &Cue) {
    let id = cue
        .id
        .as_deref()
        .map(|id| format!(" id={id}"))
        .unwrap_or_default();
    writeln!(
        out,
        "cue {}{id} lines {}-{} {} --> {}",
        cue.index,
        cue.lines.first,
        cue.lines.last,
        format_ms(cue.start_ms),
        format_ms(cue.end_ms)
    )
    .unwrap();
    writeln!(out, "  text {}", cue.text.replace('\n', "⏎")).unwrap();
    for turn in &cue.turns {
        match &turn.speaker {
            Some(s) => writeln!(out, "  turn <{s}> {}", turn.text).unwrap(),
            None => writeln!(out, "  turn {}", turn.text).unwrap(),
        }
    }
    let norm = normalize_for_matching(&cue.text);
    let sound = if norm.sound_only { " (sound only)" } else { "" };
    let words = if norm.text.is_empty() {
        "(no words)"
    } else {
        &norm.text
    };
    writeln!(out, "  match {words}{sound}").unwrap();
    if cue.raw != cue.text {
        writeln!(out, "  raw {}", cue.raw.replace('\n', "⏎")).unwrap();
    }
    if let Some(s) = &cue.settings {
        writeln!(out, "  settings {s}").unwrap();
    }
}

#[test]
fn subtitle_fixtures() {
    let dir = common::root().join("tests/fixtures/subtitles");
    // Only the file name in errors, so the expectation does not depend on the checkout's path.
    let shown_dir = format!("{}/", dir.display());
    common::check_fixtures(
        &dir,
        |p| p.extension().is_some_and(|x| x == "srt" || x == "vtt"),
        |input| match subtitles::parse_file(input, None) {
            Ok(subs) => render(&subs),
            Err(e) => format!("error {}\n", e.to_string().replace(&shown_dir, "")),
        },
    );
}
