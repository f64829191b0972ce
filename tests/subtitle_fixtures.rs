//! Data-driven subtitle tests: every file under `tests/fixtures/subtitles/`
//! is read (format detected from its name and content) and its rendering
//! compared with the `.expected` file beside it.
//!
//! Run with `UPDATE_EXPECT=1` to rewrite the expectations; review the diff.

mod common;

use std::fmt::Write as _;
use std::path::Path;

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
    let update = std::env::var_os("UPDATE_EXPECT").is_some();
    let mut inputs: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "srt" || x == "vtt"))
        .collect();
    inputs.sort();
    assert!(!inputs.is_empty(), "no fixtures in {}", dir.display());
    let mut failures = Vec::new();
    for input in &inputs {
        let expected_path = input.with_extension(format!(
            "{}.expected",
            input.extension().unwrap().to_string_lossy()
        ));
        let actual = match subtitles::parse_file(input, None) {
            Ok(subs) => render(&subs),
            // Only the file name, so the expectation does not depend on the checkout's path.
            Err(e) => format!("error {}\n", e.to_string().replace(&shown_dir(&dir), "")),
        };
        if update {
            std::fs::write(&expected_path, &actual).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if expected != actual {
            failures.push(diff(input, &expected, &actual));
        }
    }
    assert!(
        failures.is_empty(),
        "{} fixture(s) differ (UPDATE_EXPECT=1 rewrites them):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn shown_dir(dir: &Path) -> String {
    format!("{}/", dir.display())
}

fn diff(input: &Path, expected: &str, actual: &str) -> String {
    let e: Vec<&str> = expected.lines().collect();
    let a: Vec<&str> = actual.lines().collect();
    let at = e
        .iter()
        .zip(&a)
        .position(|(x, y)| x != y)
        .unwrap_or(e.len().min(a.len()));
    format!(
        "{}: first difference at output line {}\n  expected: {}\n  actual:   {}",
        input.display(),
        at + 1,
        e.get(at).unwrap_or(&"<end>"),
        a.get(at).unwrap_or(&"<end>")
    )
}
