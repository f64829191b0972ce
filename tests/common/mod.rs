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
