//! Data-driven parser tests: every input under `tests/fixtures/<format>/` is
//! parsed and its rendering compared with the `.expected` file beside it.
//!
//! Run with `UPDATE_EXPECT=1` to rewrite the expectations; review the diff.

mod common;

use std::path::Path;

use moviegraph::screenplay::{self, Format};

fn check_dir(sub: &str, format: Format) {
    let dir = common::root().join("tests/fixtures").join(sub);
    let update = std::env::var_os("UPDATE_EXPECT").is_some();
    let mut failures = Vec::new();
    let mut seen = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x != "expected"))
        .collect();
    entries.sort();
    for input in entries {
        seen += 1;
        let expected_path = input.with_extension(format!(
            "{}.expected",
            input.extension().unwrap().to_string_lossy()
        ));
        let actual = match screenplay::parse_file(&input, Some(format)) {
            Ok(play) => common::render(&play),
            Err(e) => format!("error {e}\n"),
        };
        if update {
            std::fs::write(&expected_path, &actual).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if expected != actual {
            failures.push(diff(&input, &expected, &actual));
        }
    }
    assert!(seen > 0, "no fixtures in {}", dir.display());
    assert!(
        failures.is_empty(),
        "{} fixture(s) differ (UPDATE_EXPECT=1 rewrites them):\n{}",
        failures.len(),
        failures.join("\n")
    );
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

#[test]
fn fountain_fixtures() {
    check_dir("fountain", Format::Fountain);
}

#[test]
fn fdx_fixtures() {
    check_dir("fdx", Format::Fdx);
}

#[test]
fn text_fixtures() {
    check_dir("text", Format::Text);
}
