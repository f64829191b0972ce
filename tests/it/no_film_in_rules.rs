//! No rule may know a corpus film: the string literals of the offline
//! generator and auditors (comments and tests aside) must name no character
//! or place of an annotated film, and quote no run of five words from one.
//! The corpus is the sample film and every film in `../shared/films`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The rule code: the rules generator, its lexicon and gates, the offline
/// auditors.
const RULE_DIRS: &[&str] = &["src/graph/generate", "src/graph/audit"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The code's string literals, comments and `#[cfg(test)]` tails left out
/// (test files, named `tests.rs` or `*_tests.rs`, are skipped whole).
fn literals(code: &str) -> Vec<String> {
    let code = code.split("#[cfg(test)]").next().unwrap_or_default();
    let mut out = Vec::new();
    for line in code.lines() {
        let line = line.trim_start();
        if line.starts_with("//") {
            continue;
        }
        let mut chars = line.chars().peekable();
        let mut current: Option<String> = None;
        while let Some(c) = chars.next() {
            match (&mut current, c) {
                (None, '/') if chars.peek() == Some(&'/') => break,
                (None, '"') => current = Some(String::new()),
                (None, '\'') => {
                    // A char literal ('"') or a lifetime: skip to its end.
                    if chars.peek() == Some(&'\\') {
                        chars.next();
                    }
                    chars.next();
                    if chars.peek() == Some(&'\'') {
                        chars.next();
                    }
                }
                (Some(s), '\\') => {
                    if let Some(n) = chars.next() {
                        s.push(n);
                    }
                }
                (Some(_), '"') => out.push(current.take().unwrap()),
                (Some(s), c) => s.push(c),
                (None, _) => {}
            }
        }
    }
    out
}

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// What a film may not lend a rule: its proper names (character names and
/// aliases, place words of its scene headings) and
/// its five-word runs of dialogue and action. A name nothing in `../shared`
/// writes in lowercase counts; a common word a film uses as a name does not.
struct Film {
    name: String,
    names: BTreeSet<String>,
    runs: BTreeSet<String>,
}

/// Words written in lowercase anywhere in `../shared`'s text (scripts,
/// subtitles, READMEs, the conformance suites): common English, whatever a
/// film also names with it (`the Trust`, `Also on the agenda`).
fn lowercase_words(shared: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut stack = vec![shared.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let text = p.extension().and_then(|e| e.to_str()).is_some_and(|e| {
                matches!(
                    e,
                    "fountain" | "md" | "txt" | "srt" | "fdx" | "json" | "csv"
                )
            });
            if !text {
                continue;
            }
            let Ok(content) = std::fs::read_to_string(&p) else {
                continue;
            };
            out.extend(
                content
                    .split(|c: char| !c.is_alphanumeric() && c != '\'')
                    .filter(|w| w.chars().next().is_some_and(char::is_lowercase))
                    .map(str::to_owned),
            );
        }
    }
    out
}

fn film(dir: &Path, lowercase: &BTreeSet<String>) -> Film {
    let script = std::fs::read_to_string(dir.join("script.fountain")).unwrap();
    let gold: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("gold.json")).unwrap()).unwrap();
    let mut candidates: Vec<String> = Vec::new();
    for c in gold["characters"].as_array().unwrap() {
        candidates.push(c["name"].as_str().unwrap().to_owned());
        for a in c["aliases"].as_array().into_iter().flatten() {
            candidates.push(a.as_str().unwrap().to_owned());
        }
    }
    // A heading's place: after `INT.`/`EXT.`, before the first ` - ` (the
    // time of day, `FRIDAY`, `LATER`, comes after it).
    for line in script.lines() {
        let l = line.trim();
        if let Some(rest) = ["INT.", "EXT.", "INT/EXT.", "I/E."]
            .iter()
            .find_map(|p| l.strip_prefix(p))
        {
            candidates.push(rest.split(" - ").next().unwrap_or_default().to_owned());
        }
    }
    // Titles and kin words go with a name (`Aunt Bev`) but name no one.
    const TITLES: &[&str] = &[
        "aunt", "uncle", "mr", "mrs", "ms", "miss", "dr", "sir", "dame", "old", "young", "little",
        "big", "the", "dad", "mum", "mom", "father", "mother", "grandma", "grandpa", "nan",
        "sister", "brother", "officer",
    ];
    let names = candidates
        .iter()
        .flat_map(|c| words(c))
        .filter(|w| w.len() >= 3 && !w.ends_with('\'') && !lowercase.contains(w.as_str()))
        .filter(|w| !TITLES.contains(&w.as_str()))
        .collect();
    let mut runs = BTreeSet::new();
    for line in script.lines().filter(|l| l.trim().len() > 20) {
        let ws = words(line);
        for run in ws.windows(5) {
            runs.insert(run.join(" "));
        }
    }
    Film {
        name: dir.file_name().unwrap().to_string_lossy().into_owned(),
        names,
        runs,
    }
}

fn corpus() -> Option<Vec<Film>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dirs = crate::common::annotated_films()?;
    let lowercase = lowercase_words(&root.join("../shared"));
    Some(dirs.iter().map(|d| film(d, &lowercase)).collect())
}

/// Every literal of the rule code, with the file it is in.
fn rule_literals() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for d in RULE_DIRS {
        rust_files(&root.join(d), &mut files);
    }
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        if name == "tests.rs" || name.ends_with("_tests.rs") {
            continue;
        }
        let code = std::fs::read_to_string(&f).unwrap();
        let shown = f.strip_prefix(root).unwrap().display().to_string();
        out.extend(literals(&code).into_iter().map(|l| (shown.clone(), l)));
    }
    out
}

/// The breaches: (film, file, literal, what it names).
fn breaches(films: &[Film], lits: &[(String, String)]) -> Vec<String> {
    let mut found = Vec::new();
    for (file, lit) in lits {
        let ws = words(lit);
        let joined = ws.join(" ");
        for f in films {
            for w in ws.iter().filter(|w| f.names.contains(*w)) {
                found.push(format!("{file}: {lit:?} names {w:?} of {}", f.name));
            }
            if ws.len() >= 5 {
                for run in ws.windows(5) {
                    let run = run.join(" ");
                    if f.runs.contains(&run) {
                        found.push(format!("{file}: {joined:?} quotes {run:?} from {}", f.name));
                    }
                }
            }
        }
    }
    found
}

#[test]
fn no_rule_names_a_character_place_or_line_of_a_corpus_film() {
    let Some(films) = corpus() else { return };
    assert!(films.len() >= 2, "the corpus has films");
    let lits = rule_literals();
    assert!(
        lits.len() > 500,
        "the rule code's literals were read: {}",
        lits.len()
    );
    let found = breaches(&films, &lits);
    assert!(
        found.is_empty(),
        "rules that know a film:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_catches_a_name_a_place_and_a_line() {
    let Some(films) = corpus() else { return };
    let sample = films.iter().find(|f| f.name == "the-second-key").unwrap();
    let name = sample.names.iter().next().unwrap().clone();
    let run = sample.runs.iter().next().unwrap().clone();
    let code = format!(
        "// \"{name}\" in a comment is fine\nconst A: &[&str] = &[\"fine\", \"{name}\"];\nlet q = \"{run}\"; // \"x\"\n#[cfg(test)]\nconst B: &str = \"{name}\";"
    );
    let lits: Vec<(String, String)> = literals(&code)
        .into_iter()
        .map(|l| ("x.rs".to_owned(), l))
        .collect();
    assert_eq!(lits.len(), 3, "{lits:?}");
    let found = breaches(std::slice::from_ref(sample), &lits);
    assert!(found.iter().any(|b| b.contains(" names ")), "{found:?}");
    assert!(found.iter().any(|b| b.contains(" quotes ")), "{found:?}");
    assert!(found.iter().all(|b| !b.contains("\"fine\"")), "{found:?}");
}
