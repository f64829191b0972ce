//! The layers of ARCHITECTURE.md, checked:
//! - every `crate::` (and, in the binary, `moviegraph::`) reference in `src/`
//!   points down [`LAYERS`] or stays in its own module; a new top-level
//!   module must be added there, in its layer;
//! - an outside crate in [`CRATES`] is named only by the modules its row
//!   allows, and ARCHITECTURE.md's crate table is that table, rendered;
//! - no print macro below the top (`println!`, `eprintln!`, `print!`,
//!   `eprint!`, `dbg!`): messages go through a `util::report::Reporter`;
//! - no import loop between the files of one folder;
//! - a `cli` file takes from the stages and infrastructure only types and
//!   constants (to build requests and print results): every sequence of
//!   work is one call into `workspace`.

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
    // The top: front ends over the application, and the argument syntax
    // the binary's front ends share.
    ("signin", 12),
    ("walk", 13),
    ("verify", 13),
    ("args", 13),
    ("bench", 14),
    ("cli", 15),
];

/// The front ends, the only modules that may know terminals and arguments.
const TOP: &[&str] = &["signin", "walk", "verify", "args", "bench", "cli"];

/// Outside crates that only some top-level modules may name: the crate and
/// the modules that may.
const CRATES: &[(&str, &[&str])] = &[
    ("rusqlite", &["store"]),
    ("reqwest", &["llm"]),
    ("candle_core", &["llm", "embed", "media"]),
    ("candle_nn", &["llm", "embed"]),
    ("candle_transformers", &["llm", "embed"]),
    ("tokenizers", &["llm", "embed"]),
    ("indicatif", TOP),
    ("ratatui", TOP),
    ("crossterm", TOP),
    ("axum", TOP),
    ("clap", TOP),
];

/// Macros that write to a terminal.
const PRINTS: &[&str] = &["println!", "eprintln!", "print!", "eprint!", "dbg!"];

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

/// Whether `code` names `name` as a path's first segment or a macro (`name::`,
/// `name!`), not as part of a longer identifier.
fn names(code: &str, name: &str) -> bool {
    let mut rest = code;
    while let Some(at) = rest.find(name) {
        let before = rest[..at].chars().last();
        let after = &rest[at + name.len()..];
        rest = after;
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':' || c == '$') {
            continue;
        }
        if name.ends_with('!') || after.starts_with("::") {
            return true;
        }
    }
    false
}

/// Outside crates named by modules their row of [`CRATES`] does not allow,
/// and print macros below the top. Test code (files named `tests.rs` or
/// `*_tests.rs`, and a file's lines from its `#[cfg(test)]` on) may print.
fn crate_violations(files: &[(String, String)]) -> Vec<String> {
    let mut bad = Vec::new();
    for (rel, text) in files {
        let Some(from) = owner(rel) else { continue };
        let test_file = rel.ends_with("/tests.rs") || rel.ends_with("_tests.rs");
        let mut in_tests = test_file;
        for (n, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            if code.starts_with("#[cfg(test)]") {
                in_tests = true;
            }
            for (name, allowed) in CRATES {
                if !allowed.contains(&from) && names(code, name) {
                    bad.push(format!(
                        "src/{rel}:{}: `{from}` names `{name}`, which only {} may",
                        n + 1,
                        allowed.join(", ")
                    ));
                }
            }
            if !in_tests && !TOP.contains(&from) {
                for m in PRINTS {
                    if names(code, m) {
                        bad.push(format!(
                            "src/{rel}:{}: `{m}` below the top; report through a Reporter",
                            n + 1
                        ));
                    }
                }
            }
        }
    }
    bad
}

/// The front end whose commands must each be one call into `workspace`.
const THIN: &str = "cli";

/// The names a path after `moviegraph::` (or `crate::`) brings in: its last
/// segment, or each item's last segment of a `{…}` group (nested groups
/// too); `x as y` counts as `x`.
fn leaves(path: &str) -> Vec<String> {
    let mut segments = Vec::new();
    let mut rest = path;
    loop {
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        rest = &rest[name.len()..];
        if !name.is_empty() {
            segments.push(name);
        }
        match rest.strip_prefix("::") {
            Some(after) if after.starts_with('{') => {
                let mut depth = 0;
                let mut items = Vec::new();
                let mut item = String::new();
                for c in after.chars() {
                    match c {
                        '{' => {
                            depth += 1;
                            if depth == 1 {
                                continue;
                            }
                        }
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                items.push(std::mem::take(&mut item));
                                break;
                            }
                        }
                        ',' if depth == 1 => {
                            items.push(std::mem::take(&mut item));
                            continue;
                        }
                        _ => {}
                    }
                    item.push(c);
                }
                return items
                    .iter()
                    .map(|i| i.split(" as ").next().unwrap_or("").trim().to_owned())
                    .filter(|i| !i.is_empty())
                    .flat_map(|i| leaves(&i))
                    .collect();
            }
            Some(after) => rest = after,
            None => break,
        }
    }
    segments.last().cloned().into_iter().collect()
}

/// Names a `cli` file takes from a module below `workspace` that are not
/// types or constants (a function, a module, a method of a type).
fn thin_cli_violations(files: &[(String, String)]) -> Vec<String> {
    let workspace = rank("workspace").unwrap_or(u8::MAX);
    let mut bad = Vec::new();
    for (rel, text) in files {
        if owner(rel) != Some(THIN) {
            continue;
        }
        // Comment lines out; a `use` group may span lines.
        let code: String = text
            .lines()
            .map(|l| {
                if l.trim_start().starts_with("//") {
                    ""
                } else {
                    l
                }
            })
            .collect::<Vec<_>>()
            .join(" ");
        let code = code.split_whitespace().collect::<Vec<_>>().join(" ");
        let code = code
            .replace("{ ", "{")
            .replace(" }", "}")
            .replace(":: ", "::");
        let mut rest = code.as_str();
        while let Some(at) = rest.find("moviegraph::") {
            let before = rest[..at].chars().last();
            rest = &rest[at + "moviegraph::".len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let module: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if rank(&module).is_none_or(|r| r >= workspace) {
                continue;
            }
            for leaf in leaves(rest) {
                if !leaf.starts_with(|c: char| c.is_ascii_uppercase()) {
                    bad.push(format!(
                        "src/{rel}: `cli` takes `{leaf}` from `{module}`; only types and \
                         constants may come from below `workspace` (add a use case)"
                    ));
                }
            }
        }
    }
    bad
}

/// The module path of a source file (`trees/generate/assembly.rs` →
/// `trees::generate::assembly`; a `mod.rs` is its folder).
fn module_path(rel: &str) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_owned)
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The sibling files each file of a folder names (`super::x`, or the
/// absolute `crate::folder::x`), for files other than the folder's `mod.rs`.
fn sibling_edges(files: &[(String, String)]) -> Vec<(String, String)> {
    let modules: std::collections::BTreeSet<Vec<String>> = files
        .iter()
        .filter(|(rel, _)| !rel.ends_with("mod.rs") && !ROOTS.contains(&rel.as_str()))
        .map(|(rel, _)| module_path(rel))
        .collect();
    let mut edges = Vec::new();
    for (rel, text) in files {
        if rel.ends_with("mod.rs") || ROOTS.contains(&rel.as_str()) || rel == "main.rs" {
            continue;
        }
        let me = module_path(rel);
        let parent = &me[..me.len() - 1];
        let absolute = format!("crate::{}::", parent.join("::"));
        for line in text.lines() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            for prefix in ["super::", absolute.as_str()] {
                let mut rest = code;
                while let Some(at) = rest.find(prefix) {
                    let before = rest[..at].chars().last();
                    rest = &rest[at + prefix.len()..];
                    if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                        continue;
                    }
                    let firsts: Vec<&str> = match rest.strip_prefix('{') {
                        Some(group) => group
                            .split('}')
                            .next()
                            .unwrap_or("")
                            .split(',')
                            .filter_map(|item| item.trim().split("::").next())
                            .collect(),
                        None => vec![rest
                            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                            .next()
                            .unwrap_or("")],
                    };
                    for first in firsts {
                        let mut target = parent.to_vec();
                        target.push(first.to_owned());
                        if target != me && modules.contains(&target) {
                            edges.push((me.join("/"), target.join("/")));
                        }
                    }
                }
            }
        }
    }
    edges.sort();
    edges.dedup();
    edges
}

/// Pairs of files in one folder that reach each other through their
/// imports, each pair once.
fn folder_loops(files: &[(String, String)]) -> Vec<String> {
    let edges = sibling_edges(files);
    let reaches = |from: &str, to: &str| {
        let mut seen = std::collections::BTreeSet::new();
        let mut stack = vec![from.to_owned()];
        while let Some(at) = stack.pop() {
            if at == to {
                return true;
            }
            if seen.insert(at.clone()) {
                stack.extend(
                    edges
                        .iter()
                        .filter(|(a, _)| *a == at)
                        .map(|(_, b)| b.clone()),
                );
            }
        }
        false
    };
    let mut bad = Vec::new();
    for (a, b) in &edges {
        if a < b && reaches(b, a) {
            bad.push(format!("src/{a}.rs and src/{b}.rs import each other"));
        } else if a > b && reaches(b, a) && !edges.contains(&(b.clone(), a.clone())) {
            bad.push(format!(
                "src/{b}.rs and src/{a}.rs import each other (through others)"
            ));
        }
    }
    bad
}

/// [`CRATES`] as the Markdown table ARCHITECTURE.md shows.
fn crate_table() -> String {
    let mut out = String::from("| outside crate | only in |\n|---|---|\n");
    for (name, allowed) in CRATES {
        let mods: Vec<String> = allowed.iter().map(|m| format!("`{m}`")).collect();
        out.push_str(&format!("| `{name}` | {} |\n", mods.join(", ")));
    }
    out
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
    let files = all_sources();
    let bad = violations(&files);
    assert!(bad.is_empty(), "layer violations:\n{}", bad.join("\n"));
}

fn all_sources() -> Vec<(String, String)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &root, &mut files);
    assert!(files.len() > 100, "read only {} files", files.len());
    files
}

#[test]
fn outside_crates_stay_in_their_layers_and_nothing_below_the_top_prints() {
    let bad = crate_violations(&all_sources());
    assert!(
        bad.is_empty(),
        "crate or print violations:\n{}",
        bad.join("\n")
    );
}

#[test]
fn no_two_files_of_a_folder_import_each_other() {
    let bad = folder_loops(&all_sources());
    assert!(bad.is_empty(), "import loops:\n{}", bad.join("\n"));
}

#[test]
fn architecture_md_shows_the_crate_table() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md");
    let text = std::fs::read_to_string(&path).expect("reading ARCHITECTURE.md");
    let table = crate_table();
    assert!(
        text.contains(&table),
        "ARCHITECTURE.md must hold the crate table of src/layering.rs:\n{table}"
    );
}

#[test]
fn the_crate_check_catches_a_crate_or_a_print_out_of_place() {
    let files = vec![
        (
            "workspace/x.rs".to_owned(),
            "use indicatif::ProgressBar;\neprintln!(\"hi\");\nlet s = my_clap::x;\n".to_owned(),
        ),
        (
            "graph/y.rs".to_owned(),
            "let c = rusqlite::Connection::open(p);".to_owned(),
        ),
        (
            "store/z.rs".to_owned(),
            "use rusqlite::Connection;\n".to_owned(),
        ),
        (
            "cli/w.rs".to_owned(),
            "use clap::Parser;\nprintln!(\"ok\");".to_owned(),
        ),
        (
            "llm/v.rs".to_owned(),
            "fn f() {}\n#[cfg(test)]\nmod tests { fn t() { eprintln!(\"skip\"); } }".to_owned(),
        ),
    ];
    let bad = crate_violations(&files);
    assert_eq!(bad.len(), 3, "{bad:#?}");
    assert!(
        bad[0].contains("`workspace` names `indicatif`"),
        "{}",
        bad[0]
    );
    assert!(bad[1].contains("`eprintln!` below the top"), "{}", bad[1]);
    assert!(bad[2].contains("`graph` names `rusqlite`"), "{}", bad[2]);
}

#[test]
fn the_loop_check_catches_two_siblings_that_import_each_other() {
    let files = vec![
        (
            "trees/mod.rs".to_owned(),
            "mod a; mod b; use a::X;".to_owned(),
        ),
        (
            "trees/a.rs".to_owned(),
            "use super::b::Y;\nuse super::*;".to_owned(),
        ),
        (
            "trees/b.rs".to_owned(),
            "use crate::trees::{a::X, mod_item};".to_owned(),
        ),
        ("trees/c.rs".to_owned(), "use super::a::X;".to_owned()),
        (
            "graph/d.rs".to_owned(),
            "use crate::trees::a::X;".to_owned(),
        ),
    ];
    let bad = folder_loops(&files);
    assert_eq!(
        bad,
        vec!["src/trees/a.rs and src/trees/b.rs import each other"]
    );
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

#[test]
fn every_cli_command_is_one_call_into_the_workspace() {
    let bad = thin_cli_violations(&all_sources());
    assert!(bad.is_empty(), "cli orchestration:\n{}", bad.join("\n"));
}

#[test]
fn the_thin_cli_check_catches_a_stage_function_and_accepts_types() {
    let files = vec![
        (
            "cli/a.rs".to_owned(),
            "use moviegraph::trees::jsonl::read_trees;\nuse moviegraph::graph::{Graph, stats::{render, Stats}};\n"
                .to_owned(),
        ),
        (
            "cli/b.rs".to_owned(),
            "use moviegraph::store::{\n    self,\n    Store,\n};\nlet p = moviegraph::store::Store::open(x);\n// moviegraph::eval::run in a comment\n"
                .to_owned(),
        ),
        (
            "cli/c.rs".to_owned(),
            "use moviegraph::workspace::run::run_pipeline;\nuse moviegraph::walk::tui;\nuse moviegraph::graph::calibrate::MIN_PRECISION;\nuse moviegraph::store::{resolve_path as p, STORE_ENV};\n"
                .to_owned(),
        ),
        (
            "workspace/d.rs".to_owned(),
            "use crate::trees::jsonl::read_trees;".to_owned(),
        ),
    ];
    let bad = thin_cli_violations(&files);
    let taken: Vec<&str> = bad
        .iter()
        .map(|b| b.split('`').nth(3).unwrap_or(""))
        .collect();
    assert_eq!(
        taken,
        vec!["read_trees", "render", "self", "open", "resolve_path"],
        "{bad:#?}"
    );
    assert!(bad[0].starts_with("src/cli/a.rs: `cli` takes `read_trees` from `trees`"));
}
