//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use moviegraph::screenplay::{Element, Screenplay};

/// `../shared/conformance/<sub>`, or `None` (with the reason printed) when
/// `../shared` is not beside the project.
pub fn conformance(sub: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/conformance")
        .join(sub);
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "SKIPPED: {} is absent (the conformance fixtures live in ../shared beside the project)",
            dir.display()
        );
        None
    }
}

/// The moviegraph binary with the offline hashed embedder pinned
/// (`MOVIEGRAPH_EMBEDDER=hashed`): `run` and `align` otherwise take
/// all-MiniLM-L6-v2 when it is installed, and a test's alignment, outputs
/// and time must not depend on that (the embedder tests choose their own).
pub fn moviegraph_offline() -> std::process::Command {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_moviegraph"));
    c.env("MOVIEGRAPH_EMBEDDER", "hashed");
    c
}

/// [`moviegraph_offline`] run with `args` in `dir`, without the
/// environment's store.
pub fn moviegraph_in(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    moviegraph_offline()
        .args(args)
        .current_dir(dir)
        .env_remove("MOVIEGRAPH_STORE")
        .output()
        .expect("the binary runs")
}

/// What a run printed, stdout then stderr.
pub fn said(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The project root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// One line per element, the format of the `.expected` fixture files:
/// `first-last kind [scene] {speaker/ext/dual/number} text` with newlines shown as `⏎`.
pub fn render_element(e: &Element) -> String {
    let mut tags = Vec::new();
    if let Some(s) = &e.speaker {
        tags.push(format!("speaker={s}"));
    }
    if let Some(x) = &e.extension {
        tags.push(format!("ext={x}"));
    }
    if e.contd {
        tags.push("contd".into());
    }
    if e.dual {
        tags.push("dual".into());
    }
    if let Some(n) = &e.scene_number {
        tags.push(format!("number={n}"));
    }
    if let Some(d) = e.depth {
        tags.push(format!("depth={d}"));
    }
    if let Some(k) = &e.key {
        tags.push(format!("key={k}"));
    }
    let scene = e.scene.map(|s| s.to_string()).unwrap_or_else(|| "-".into());
    let tags = if tags.is_empty() {
        String::new()
    } else {
        format!(" {{{}}}", tags.join(" "))
    };
    format!(
        "{}-{} {} [{scene}]{tags} {}",
        e.lines.first,
        e.lines.last,
        e.kind,
        e.text.replace('\n', "⏎")
    )
}

/// The whole parse rendered for an `.expected` file: elements, then noise and diagnostics.
pub fn render(play: &Screenplay) -> String {
    let mut out = String::new();
    for e in &play.elements {
        out.push_str(&render_element(e));
        out.push('\n');
    }
    for n in &play.noise {
        out.push_str(&format!(
            "noise {} {} {}\n",
            n.line,
            serde_json::to_value(n.kind).unwrap().as_str().unwrap(),
            n.text
        ));
    }
    for d in &play.diagnostics {
        out.push_str(&format!("diagnostic {} {}\n", d.line, d.message));
    }
    out
}

/// The `.expected` fixture harness: every file in `dir` that `is_input`
/// accepts (sorted by name) is rendered by `actual` and compared with the
/// `<name>.<ext>.expected` file beside it. With `UPDATE_EXPECT` set, the
/// expectations are rewritten instead. Panics listing each fixture that
/// differs, with its first differing line, or when `dir` holds no input.
pub fn check_fixtures(
    dir: &Path,
    is_input: impl Fn(&Path) -> bool,
    actual: impl Fn(&Path) -> String,
) {
    let update = std::env::var_os("UPDATE_EXPECT").is_some();
    let mut inputs: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| is_input(p))
        .collect();
    inputs.sort();
    assert!(!inputs.is_empty(), "no fixtures in {}", dir.display());
    let mut failures = Vec::new();
    for input in &inputs {
        let expected_path = input.with_extension(format!(
            "{}.expected",
            input.extension().unwrap().to_string_lossy()
        ));
        let actual = actual(input);
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

/// Where `actual` first departs from `expected`, for a failure message.
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

pub mod http;
pub mod inspect;
pub mod llm;
pub mod video;
pub mod walk;

/// The annotated development corpus: every film of `../shared/films` with a
/// gold.json and a script.fountain, sorted, then the sample; `None` (the
/// reason printed) when `../shared` is not beside the project.
pub fn annotated_films() -> Option<Vec<PathBuf>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shared = root.join("../shared/films");
    if !shared.is_dir() {
        eprintln!(
            "SKIPPED: {} is absent (the annotated films live in ../shared beside the project)",
            shared.display()
        );
        return None;
    }
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&shared)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("gold.json").is_file() && p.join("script.fountain").is_file())
        .collect();
    dirs.sort();
    dirs.push(root.join("screenplays/the-second-key"));
    Some(dirs)
}
