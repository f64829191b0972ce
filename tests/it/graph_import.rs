//! `graph import --gold`: an expert annotation as the film's graph build,
//! scored against itself, imported once, and grown into valid trees.

use crate::common;
use moviegraph::graph::gold::{read_gold, Gold};
use moviegraph::trees::jsonl::read_trees;
use moviegraph::trees::validate::{is_valid, validate};

const FILM: &str = "screenplays/the-second-key";

#[test]
fn an_imported_annotation_is_the_films_graph_and_grows_valid_trees() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("ws.db");
    let s = store.to_str().unwrap();
    let root = common::root();
    let run = |args: &[&str]| {
        let out = common::moviegraph_in(&root, args);
        assert!(out.status.success(), "{args:?}: {}", common::said(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let first = run(&["graph", "import", FILM, "--store", s]);
    assert!(
        first.contains("imported") && first.contains("expert-annotation"),
        "{first}"
    );
    let again = run(&["graph", "import", FILM, "--store", s]);
    assert!(again.contains("already imported"), "{again}");
    // The build is the annotation: it scores 1 against it.
    let score = run(&[
        "graph",
        "score",
        FILM,
        "--store",
        s,
        "--similarity",
        "lexical",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&score).unwrap();
    let states = &v["states"];
    assert_eq!(states["matched_graph"], states["graph"], "{score}");
    assert_eq!(states["matched_gold"], states["gold"], "{score}");
    // Trees grow from it, valid, and say where their graph came from.
    let out = dir.path().join("trees");
    run(&[
        "trees",
        "generate",
        FILM,
        "--store",
        s,
        "--out",
        out.to_str().unwrap(),
    ]);
    let path = out.join("the-second-key.jsonl");
    let trees = read_trees(&path).unwrap();
    assert!(trees.len() >= 10, "{} trees", trees.len());
    assert!(trees.iter().all(|t| is_valid(&validate(t))));
    let first_line = std::fs::read_to_string(&path).unwrap();
    assert!(
        first_line
            .lines()
            .next()
            .unwrap()
            .contains("\"expert-annotation\""),
        "the provenance names the annotation"
    );
    // Characters read as the story names them, not as cues.
    assert!(first_line.contains("on Mara's mind"), "names title-cased");
    // And the trees pass the validity audit (shortcut readers at chance),
    // which reads the annotation's ends from the store: no gold rests on a
    // state the annotation ends before the question's scene.
    let audit = run(&[
        "trees",
        "audit",
        path.to_str().unwrap(),
        "--film",
        FILM,
        "--store",
        s,
    ]);
    assert!(audit.contains("pass"), "{audit}");
    let ended = audit
        .lines()
        .find(|l| l.starts_with("ended states:"))
        .unwrap_or_else(|| panic!("no ended-states line: {audit}"));
    assert!(
        ended.starts_with("ended states: 0 of ")
            && ended.contains("of 133 states with a known end"),
        "{ended}"
    );
}

/// The annotation with holders written as cues and characters in name order:
/// what an annotation says, whatever names and order its file used.
fn canonical(mut g: Gold) -> Gold {
    let cue = |name: &str, g: &Gold| {
        g.characters
            .iter()
            .find(|c| {
                c.name.eq_ignore_ascii_case(name)
                    || c.aliases.iter().any(|a| a.eq_ignore_ascii_case(name))
            })
            .map_or(name.to_owned(), |c| c.name.clone())
    };
    let holders: Vec<String> = g.mental_states.iter().map(|s| cue(&s.holder, &g)).collect();
    for (s, h) in g.mental_states.iter_mut().zip(holders) {
        s.holder = h;
    }
    g.characters.sort_by(|a, b| a.name.cmp(&b.name));
    for c in &mut g.characters {
        c.aliases.sort();
    }
    g
}

#[test]
fn an_annotation_imported_and_exported_as_gold_is_the_same_annotation() {
    let mut films = vec![common::root().join(FILM)];
    match common::annotated_films() {
        Some(more) => films.extend(more),
        None => println!("only the sample film: ../shared/films is absent"),
    }
    for film in films {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("ws.db");
        let s = store.to_str().unwrap();
        let f = film.to_str().unwrap();
        let out = dir.path().join("out");
        for args in [
            vec!["graph", "import", f, "--store", s],
            vec![
                "graph",
                "export",
                f,
                "--store",
                s,
                "--format",
                "gold",
                "--out",
                out.to_str().unwrap(),
            ],
        ] {
            let o = common::moviegraph_in(&common::root(), &args);
            assert!(o.status.success(), "{args:?}: {}", common::said(&o));
        }
        let slug = film.file_name().unwrap().to_str().unwrap();
        let back = read_gold(&out.join(format!("{slug}.gold.json"))).unwrap();
        let original = read_gold(&film.join("gold.json")).unwrap();
        let (back, original) = (canonical(back), canonical(original));
        assert_eq!(back.characters, original.characters, "{slug}");
        for (b, o) in back.mental_states.iter().zip(&original.mental_states) {
            assert_eq!(b, o, "{slug}");
        }
        assert_eq!(
            back.mental_states.len(),
            original.mental_states.len(),
            "{slug}"
        );
        for (b, o) in back.causal_links.iter().zip(&original.causal_links) {
            assert_eq!(b, o, "{slug}");
        }
        assert_eq!(
            back.causal_links.len(),
            original.causal_links.len(),
            "{slug}"
        );
        assert_eq!(back.chains, original.chains, "{slug}");
    }
}

#[test]
fn a_bad_annotation_is_refused_with_its_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"film\": 3}").unwrap();
    let store = dir.path().join("ws.db");
    let out = common::moviegraph_in(
        &common::root(),
        &[
            "graph",
            "import",
            FILM,
            "--gold",
            bad.to_str().unwrap(),
            "--store",
            store.to_str().unwrap(),
        ],
    );
    assert!(!out.status.success());
    let said = common::said(&out);
    assert!(said.contains("bad.json:1"), "{said}");
}
