//! The layers of DESIGN.md §7, checked: every `crate::` (and, in the binary,
//! `moviegraph::`) reference in `src/` points down the table below or stays in
//! its own module. A new top-level module must be added here, in its layer.

/// Top-level modules, bottom up, with their layer's rank. A module may use
/// modules of a lower rank only; modules that share a rank may not use each
/// other.
const LAYERS: &[(&str, u8)] = &[
    // Infrastructure.
    ("util", 0),
    ("text", 1),
    ("store", 2),
    ("llm", 3),
    ("embed", 4),
    // Stages, in pipeline order.
    ("screenplay", 5),
    ("media", 6),
    ("align", 7),
    ("graph", 8),
    ("trees", 9),
    ("eval", 10),
    // The application.
    ("workspace", 11),
    // The top: front ends over the application.
    ("walk", 12),
    ("bench", 12),
    ("cli", 13),
];

/// Files of the library crate's root, whose `crate::` paths name any module.
const ROOTS: &[&str] = &["lib.rs", "layering.rs"];

fn rank(module: &str) -> Option<u8> {
    LAYERS.iter().find(|(m, _)| *m == module).map(|(_, r)| *r)
}

/// The top-level module a source file (relative to `src/`) belongs to.
fn owner(rel: &str) -> Option<&str> {
    if ROOTS.contains(&rel) {
        return None;
    }
    if rel == "main.rs" {
        return Some("cli");
    }
    let first = rel.split('/').next()?;
    Some(first.strip_suffix(".rs").unwrap_or(first))
}

/// Every top-level module a line of code names through `crate::` or `moviegraph::`.
fn referenced(line: &str) -> Vec<String> {
    let code = line.trim_start();
    if code.starts_with("//") {
        return Vec::new();
    }
    let mut out = Vec::new();
    for prefix in ["crate::", "moviegraph::"] {
        let mut rest = code;
        while let Some(at) = rest.find(prefix) {
            let before = rest[..at].chars().last();
            rest = &rest[at + prefix.len()..];
            // `$crate::` and `some_crate::` are not ours.
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
                continue;
            }
            if let Some(group) = rest.strip_prefix('{') {
                // `use crate::{a::b, c};`: the first segment of each item.
                let body = group.split('}').next().unwrap_or("");
                out.extend(
                    body.split(',')
                        .filter_map(|item| item.trim().split("::").next())
                        .filter(|m| !m.is_empty())
                        .map(str::to_owned),
                );
            } else {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    out.push(name);
                }
            }
        }
    }
    out
}

/// `(file:line, from, to)` for every reference that points up a layer or
/// sideways within one.
fn violations(files: &[(String, String)]) -> Vec<String> {
    let mut bad = Vec::new();
    for (rel, text) in files {
        let Some(from) = owner(rel) else { continue };
        let Some(from_rank) = rank(from) else {
            bad.push(format!(
                "src/{rel}: module `{from}` is in no layer of LAYERS"
            ));
            continue;
        };
        for (n, line) in text.lines().enumerate() {
            for to in referenced(line) {
                if to == from || to == "self" || to == "super" {
                    continue;
                }
                match rank(&to) {
                    // Items of the crate root (`crate::Error` and the like) are not modules.
                    None if to.chars().next().is_some_and(char::is_uppercase) => {}
                    None => bad.push(format!(
                        "src/{rel}:{}: `{to}` is in no layer of LAYERS",
                        n + 1
                    )),
                    Some(to_rank) if to_rank >= from_rank => bad.push(format!(
                        "src/{rel}:{}: `{from}` uses `{to}`, which is not below it",
                        n + 1
                    )),
                    Some(_) => {}
                }
            }
        }
    }
    bad
}

fn sources(dir: &std::path::Path, root: &std::path::Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            sources(&path, root, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(root).unwrap_or(&path);
            let rel = rel.to_string_lossy().replace('\\', "/");
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            out.push((rel, text));
        }
    }
}

#[test]
fn no_module_uses_a_module_above_it_or_beside_it() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &root, &mut files);
    assert!(files.len() > 100, "read only {} files", files.len());
    let bad = violations(&files);
    assert!(bad.is_empty(), "layer violations:\n{}", bad.join("\n"));
}

#[test]
fn the_check_catches_an_upward_import_and_accepts_a_downward_one() {
    let files = vec![
        (
            "store/x.rs".to_owned(),
            "use crate::graph::Graph;\n// crate::eval in a comment\nuse crate::text::words;\n"
                .to_owned(),
        ),
        (
            "graph/y.rs".to_owned(),
            "use crate::{store::Store, trees::Tree};\nlet x = $crate::z;\n".to_owned(),
        ),
        ("walk/z.rs".to_owned(), "use crate::bench::x;".to_owned()),
        (
            "cli/w.rs".to_owned(),
            "use moviegraph::workspace::run;\nuse other_crate::eval;".to_owned(),
        ),
    ];
    let bad = violations(&files);
    assert_eq!(bad.len(), 3, "{bad:#?}");
    assert!(bad[0].starts_with("src/store/x.rs:1:"), "{}", bad[0]);
    assert!(bad[1].contains("`graph` uses `trees`"), "{}", bad[1]);
    assert!(bad[2].contains("`walk` uses `bench`"), "{}", bad[2]);
}
