//! The Fountain reader against other projects' fixtures, read in place from
//! `../shared/conformance` (each test skips with a message when it is absent):
//!
//! 1. jouvence's YAML cases: input → expected element tokens and title page.
//! 2. The reference parser's (nyousefi) `.fountain` fixtures, with expected
//!    elements written out here per file.
//! 3. afterwriting's kitchen-sink scripts (Cyrillic and Japanese included),
//!    plus screenplain's and jumpcut's Fountain files: no panics, sane counts.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use moviegraph::screenplay::{self, fountain, ElementKind as K, Format, Screenplay, Severity};
use serde::Deserialize;

// ---------------------------------------------------------------------------
// 1. jouvence

/// One jouvence case: a Fountain input, the expected element tokens and,
/// when given, the expected title page.
#[derive(Debug, Deserialize)]
struct JouvenceCase {
    #[serde(rename = "in")]
    input: String,
    out: Vec<String>,
    #[serde(default)]
    title: Option<BTreeMap<String, String>>,
}

/// Cases where jouvence's expectation and the fountain.io spec disagree and
/// the reader follows the spec: (file, 0-based case index, why).
const SPEC_OVER_JOUVENCE: &[(&str, usize, &str)] = &[(
    "test_lyrics.yaml",
    1,
    "`~This is lyrics⏎But this is not`: jouvence makes the whole paragraph action with \
     the `~` kept; the spec makes any line starting with `~` a lyric (\"lyrics are always \
     forced\"), so the reader gives a lyric and then an action line",
)];

/// Our element as a jouvence token (`.` heading, `!` action, `@` cue, `=`
/// dialogue, `_` parenthetical, `>` transition, `~` lyric, `!><` centered,
/// `#` section, `+` synopsis, `<pagebreak>`). Kinds jouvence has no token for
/// are marked `?` so they fail loudly.
fn token(kind: K, text: &str) -> String {
    match kind {
        K::SceneHeading => format!(".{text}"),
        K::Action => format!("!{text}"),
        K::Character => format!("@{text}"),
        K::Dialogue => format!("={text}"),
        K::Parenthetical => format!("_{text}"),
        K::Transition => format!(">{text}"),
        K::Lyric => format!("~{text}"),
        K::Centered => format!("!><{text}"),
        K::Section => format!("#{text}"),
        K::Synopsis => format!("+{text}"),
        K::PageBreak => "<pagebreak>".to_string(),
        other => format!("?{other} {text}"),
    }
}

/// jouvence's expected tokens, with its representational quirks normalized
/// away:
///
/// - it keeps blank lines inside action (`!This is a multi⏎⏎paragraph`),
///   where we emit one action per paragraph: split action on blank lines;
/// - it emits the blank lines after a block as an action of newlines (`!`,
///   `!⏎`) and opens the action after a heading with them (`!⏎This is…`):
///   drop empty actions and the newlines at either end;
/// - it keeps the trailing newline of a centered line followed by a
///   whitespace line (`!><**THE END**⏎`): trim it.
fn normalize_jouvence(out: &[String]) -> Vec<String> {
    let mut tokens = Vec::new();
    for t in out {
        if let Some(centered) = t.strip_prefix("!><") {
            tokens.push(format!("!><{}", centered.trim_end_matches('\n')));
        } else if let Some(action) = t.strip_prefix('!') {
            let mut paragraph: Vec<&str> = Vec::new();
            for line in action.split('\n').chain(std::iter::once("")) {
                if line.trim().is_empty() {
                    if !paragraph.is_empty() {
                        tokens.push(format!("!{}", paragraph.join("\n")));
                        paragraph.clear();
                    }
                } else {
                    paragraph.push(line);
                }
            }
        } else {
            tokens.push(t.clone());
        }
    }
    tokens
}

/// Our reading of `input` as (tokens, title page).
fn read_as_jouvence(input: &str) -> (Vec<String>, BTreeMap<String, String>) {
    let reading = fountain::read(input);
    let mut tokens = Vec::new();
    let mut title = BTreeMap::new();
    for e in &reading.elements {
        if e.kind == K::Title {
            title.insert(e.key.clone().unwrap_or_default(), e.text.clone());
        } else {
            tokens.push(token(e.kind, &e.text));
        }
    }
    (tokens, title)
}

#[test]
fn jouvence_cases() {
    let Some(dir) = common::conformance("jouvence") else {
        return;
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 13,
        "expected jouvence's 13 YAML files in {}",
        dir.display()
    );

    let (mut total, mut passed) = (0, 0);
    let mut failures = Vec::new();
    let mut disagreements = Vec::new();
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(file).unwrap();
        for (index, doc) in serde_yaml::Deserializer::from_str(&text).enumerate() {
            let case = JouvenceCase::deserialize(doc)
                .unwrap_or_else(|e| panic!("{name} case {index}: {e}"));
            total += 1;
            let expected = normalize_jouvence(&case.out);
            let expected_title = case.title.clone().unwrap_or_default();
            let (got, got_title) = read_as_jouvence(&case.input);
            let ok = got == expected && got_title == expected_title;
            let known = SPEC_OVER_JOUVENCE
                .iter()
                .find(|(f, i, _)| *f == name && *i == index);
            match (ok, known) {
                (true, None) => passed += 1,
                (false, Some(_)) => disagreements.push(format!("{name}#{index}")),
                (true, Some(_)) => failures.push(format!(
                    "{name} case {index} is listed in SPEC_OVER_JOUVENCE but now passes; remove it"
                )),
                (false, None) => failures.push(format!(
                    "{name} case {index}\n  input:    {:?}\n  expected: {expected:?} title {expected_title:?}\n  got:      {got:?} title {got_title:?}",
                    case.input
                )),
            }
        }
    }
    eprintln!(
        "jouvence: {passed}/{total} cases pass; {} differ where the reader follows the spec: {disagreements:?}",
        disagreements.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(passed + disagreements.len(), total);
    assert!(total >= 40, "only {total} jouvence cases found");
}

#[test]
fn jouvence_disagreement_is_the_spec_reading() {
    // The one case we do not pass, pinned to what the spec says.
    let (got, _) = read_as_jouvence("~This is lyrics\nBut this is not\n");
    assert_eq!(got, vec!["~This is lyrics", "!But this is not"]);
}

#[test]
fn jouvence_normalization_is_what_it_says() {
    let out = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        normalize_jouvence(&out(&[
            "!a\n\nb\n\n\nc",
            "!",
            "!\n",
            "!\nd",
            "!><X\n",
            "@B"
        ])),
        out(&["!a", "!b", "!c", "!d", "!><X", "@B"])
    );
}

// ---------------------------------------------------------------------------
// 2. The reference parser's fixtures

fn parse(path: &Path) -> Screenplay {
    screenplay::parse_file(path, Some(Format::Fountain))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `(kind, text)` for every element.
fn kinds_texts(play: &Screenplay) -> Vec<(K, String)> {
    play.elements
        .iter()
        .map(|e| (e.kind, e.text.clone()))
        .collect()
}

fn kt(v: &[(K, &str)]) -> Vec<(K, String)> {
    v.iter().map(|(k, t)| (*k, t.to_string())).collect()
}

#[test]
fn nyousefi_reference_fixtures() {
    let Some(dir) = common::conformance("nyousefi_fountain_reference") else {
        return;
    };
    let file = |name: &str| parse(&dir.join(format!("{name}.fountain")));

    // Every fixture parses, with no empty action anywhere. `Brick And
    // Steel.txt` is Fountain too.
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path
            .extension()
            .is_some_and(|x| x == "fountain" || x == "txt")
        {
            count += 1;
            let play = parse(&path);
            assert!(
                play.elements
                    .iter()
                    .all(|e| e.kind != K::Action || !e.text.trim().is_empty()),
                "{}: empty action",
                path.display()
            );
        }
    }
    assert_eq!(count, 18);

    assert_eq!(
        kinds_texts(&file("Boneyard")),
        kt(&[
            (K::Action, "A line of action."),
            (K::Action, "This is an boneyard.")
        ])
    );
    assert_eq!(file("Boneyard").elements[1].lines.first, 11);

    assert_eq!(
        kinds_texts(&file("CenteredText")),
        kt(&[
            (K::Centered, "Centered"),
            (K::Transition, "Not centered"),
            (K::Centered, "No space"),
            (K::Centered, "Lots of Space"),
        ])
    );

    let dialogue = file("Dialogue");
    let cues: Vec<&str> = dialogue
        .of_kind(K::Character)
        .map(|e| e.text.as_str())
        .collect();
    assert_eq!(
        cues,
        [
            "ADAM",
            "EVE (O.S.)",
            "ADAM",
            "EVE",
            "EVE (cont'd)",
            "ADAM",
            "EVE",
            "ADAM",
            "EVE",
            "R2D2",
            "ADAM",
            "EVE"
        ]
    );
    assert!(dialogue.elements.iter().any(
        |e| e.kind == K::Action && e.text == "23 (O.S.)\nCharacter name must include a letter"
    ));
    assert!(dialogue
        .elements
        .iter()
        .any(|e| e.kind == K::Dialogue && e.text.contains("block\n\nfor absolutely no good")));
    assert!(dialogue
        .elements
        .iter()
        .any(|e| e.kind == K::Parenthetical && e.text == "(*This is a valid character cue.*)"));
    let dual: Vec<&str> = dialogue
        .elements
        .iter()
        .filter(|e| e.dual)
        .map(|e| e.text.as_str())
        .collect();
    assert_eq!(dual, ["ADAM", "I love you.", "EVE", "You're so stupid."]);

    let dd = file("DualDialogue");
    assert_eq!(
        dd.elements
            .iter()
            .map(|e| (e.kind, e.dual))
            .collect::<Vec<_>>(),
        [
            (K::Character, true),
            (K::Dialogue, true),
            (K::Character, true),
            (K::Dialogue, true)
        ]
    );
    assert_eq!(dd.elements[2].text, "EVE");

    assert_eq!(
        kinds_texts(&file("ForcedElements")),
        kt(&[
            (K::Action, "BANG\nBANG\nBANG"),
            (K::Character, "McDUCK"),
            (K::Dialogue, "I'm vegan."),
            (K::Character, "SINGER"),
            (K::Lyric, "These are the songs\nThat I sing."),
        ])
    );

    assert_eq!(
        kinds_texts(&file("Indenting")),
        kt(&[
            (K::Transition, "CUT TO:"),
            (K::SceneHeading, "INT. GARAGE - DAY"),
            (K::Action, "BRICK and STEEL get into Mom's PORSCHE, Steel at the wheel.  They pause for a beat, the gravity of the situation catching up with them."),
            (K::Character, "BRICK"),
            (K::Dialogue, "This is everybody we've ever put away."),
            (K::Character, "STEEL"),
            (K::Parenthetical, "(starting the engine)"),
            (K::Dialogue, "So much for retirement!"),
            (K::Action, "They speed off.  To destiny!"),
        ])
    );

    assert_eq!(
        kinds_texts(&file("MultilineAction")),
        kt(&[
            (K::Action, "A normal line of action."),
            (K::Action, "This is a multi-line block of Action.\nMade famous by the great\nWALTER HILL\nbut used by many other writers."),
            (K::Action, "A normal line of action."),
        ])
    );

    assert_eq!(
        kinds_texts(&file("Notes")),
        kt(&[
            (K::Action, "A line."),
            (K::Note, "A note."),
            (K::Note, "This line spans\nmultiple lines."),
            (K::Action, "This is an note."),
            (K::Note, "internal"),
        ])
    );

    assert_eq!(
        kinds_texts(&file("PageBreaks")),
        kt(&[
            (K::Action, "Page one."),
            (K::PageBreak, ""),
            (K::Action, "Page two."),
            (K::PageBreak, ""),
            (K::Action, "Page three."),
        ])
    );

    let headers = file("SceneHeaders");
    let not_headings: Vec<(K, &str)> = headers
        .elements
        .iter()
        .filter(|e| e.kind != K::SceneHeading)
        .map(|e| (e.kind, e.text.as_str()))
        .collect();
    assert_eq!(
        not_headings,
        [
            (K::Action, "... not a scene header."),
            (K::Action, "ESTABLISHING")
        ]
    );
    assert_eq!(headers.scenes.len(), 18);
    assert!(headers.scenes.iter().any(|s| s.heading == "KITCHEN"));
    assert!(headers
        .scenes
        .iter()
        .any(|s| s.heading == "int. house - day"));

    let numbers = file("SceneNumbers");
    let got: Vec<(&str, Option<&str>)> = numbers
        .scenes
        .iter()
        .map(|s| (s.heading.as_str(), s.number.as_deref()))
        .collect();
    assert_eq!(
        got,
        [
            ("INT. HOUSE - DAY", Some("1")),
            ("INT. HOUSE - DAY", Some("1A")),
            ("INT. HOUSE - DAY", Some("1a")),
            ("INT. HOUSE - DAY", Some("A1")),
            ("INT. HOUSE - DAY", Some("I-1-A")),
            ("INT. HOUSE - DAY", Some("1.")),
            ("INT. HOUSE - DAY - FLASHBACK (1944)", Some("110A")),
        ]
    );

    let sections: Vec<(Option<u8>, String)> = file("SectionHeaders")
        .elements
        .iter()
        .map(|e| (e.depth, e.text.clone()))
        .collect();
    assert_eq!(
        sections,
        [
            (Some(1), "Act One".into()),
            (Some(1), "Act Two".into()),
            (Some(1), "ACT THREE".into()),
            (Some(1), "ACT FOUR".into()),
            (Some(1), "5".into()),
            (Some(2), "Level 2".into()),
            (Some(3), "Level 3".into()),
        ]
    );

    assert_eq!(
        kinds_texts(&file("Sections-Complex")),
        kt(&[
            (K::Section, "Act 1"),
            (K::Synopsis, "Synopsis 1"),
            (K::SceneHeading, "INT. LOCATION - DAY"),
            (K::Section, "Act 2"),
            (K::Section, "Sequence 1"),
            (K::SceneHeading, "INT. LOCATION - DAY"),
        ])
    );

    let simple = file("Simple");
    assert_eq!(simple.title_field("title"), Some("A Simple Script"));
    assert_eq!(simple.title_field("author"), Some("Nima Yousefi"));
    assert_eq!(simple.title_field("draft date"), Some("2/1/2012"));
    assert_eq!(
        kinds_texts(&simple)[3..],
        kt(&[
            (K::Action, "FADE IN:"),
            (K::SceneHeading, "INT. OFFICE - MORNING"),
            (K::Action, "A MAN sits alone at his desk."),
            (K::Character, "MAN (V.O.)"),
            (K::Parenthetical, "(passionately)"),
            (K::Dialogue, "I'm writing."),
            (K::PageBreak, ""),
            (K::SceneHeading, "ext. house - day"),
            (K::Action, "Another scene."),
            (K::Transition, "Burn to White."),
            (K::Centered, "THE END"),
            (K::Note, "Comment"),
            (K::Synopsis, "Synopsis"),
            (K::Section, "Section 1"),
            (K::Action, "This is in section one."),
            (K::Section, "Section 1-1"),
            (K::Action, "This should be at a higher depth than the previous section."),
            (K::SceneHeading, "FORCED SCENE HEADING"),
            (K::Action, "... Not a forced scene heading"),
            (K::Action, "Scott exasperatedly throws down the card on the table and picks up the phone, hitting speed dial #1..."),
            (K::Note, "The following should not be considered a transition because it ends with one or more spaces."),
            (K::Action, "CUT TO: "),
        ])[..]
    );
    // The boneyard between the synopsis and the section kept the numbering.
    assert_eq!(simple.of_kind(K::Section).next().unwrap().lines.first, 34);

    assert_eq!(
        kinds_texts(&file("Synopses")),
        kt(&[
            (K::Section, "Act One"),
            (K::Synopsis, "This is the first act."),
            (K::Section, "Act Two"),
            (K::Synopsis, "This is another act."),
            (K::Section, "Act Three"),
            (K::Synopsis, "THE FINAL ACT"),
        ])
    );

    assert_eq!(
        kinds_texts(&file("Transitions")),
        kt(&[
            (K::Transition, "CUT TO:"),
            (K::Transition, "SMASH CUT TO:"),
            (K::Action, "FADE TO BLACK."),
            (K::Transition, "NOT A STANDARD TRANSITION:"),
            (K::Action, "CUT TO:  "),
            (K::Transition, "GO TO:"),
            (K::Transition, "TO:"),
        ])
    );
}

#[test]
fn nyousefi_big_fish() {
    let Some(dir) = common::conformance("nyousefi_fountain_reference") else {
        return;
    };
    let path = dir.join("Big Fish.fountain");
    let play = parse(&path);
    let text = std::fs::read_to_string(&path).unwrap();

    assert_eq!(play.title_field("title"), Some("Big Fish"));
    assert_eq!(play.title_field("author"), Some("John August"));
    assert_eq!(
        play.title_field("notes"),
        Some("FINAL PRODUCTION DRAFT\nincludes post-production dialogue\nand omitted scenes")
    );
    // Every line that starts INT./EXT. after a blank line is a scene: an
    // independent count straight from the text.
    let lines: Vec<&str> = text.lines().collect();
    let headings = (1..lines.len())
        .filter(|&i| lines[i - 1].trim().is_empty())
        .filter(|&i| {
            let l = lines[i];
            (l.starts_with("INT") || l.starts_with("EXT"))
                && matches!(l.as_bytes().get(3), Some(b'.' | b' ' | b'/'))
        })
        .count();
    assert_eq!(play.scenes.len(), headings);
    assert!(play.scenes.len() > 150, "{} scenes", play.scenes.len());
    // Cues: every upper-case line after a blank line and before text.
    let cues = (1..lines.len() - 1)
        .filter(|&i| lines[i - 1].trim().is_empty() && !lines[i + 1].trim().is_empty())
        .filter(|&i| {
            let l = lines[i].trim();
            !l.starts_with("INT")
                && !l.starts_with("EXT")
                && l.chars().any(char::is_uppercase)
                && !l.chars().any(char::is_lowercase)
        })
        .count();
    assert_eq!(play.of_kind(K::Character).count(), cues);
    for name in ["EDWARD", "WILL", "SANDRA", "JOSEPHINE", "KARL"] {
        assert!(
            play.characters.iter().any(|c| c.name == name),
            "{name} missing"
        );
    }
    let centered: Vec<&str> = play.of_kind(K::Centered).map(|e| e.text.as_str()).collect();
    assert_eq!(centered, ["_BIG FISH_", "_**THE END**_"]);
    assert_eq!(play.of_kind(K::PageBreak).count(), 1);
    assert!(
        play.diagnostics
            .iter()
            .all(|d| d.severity != Severity::Warning),
        "{:?}",
        play.diagnostics
    );
    let last = play.elements.last().unwrap();
    assert_eq!(last.lines.last, lines.len());
}

// ---------------------------------------------------------------------------
// 3. Real-world scripts

fn fountain_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            fountain_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "fountain") {
            out.push(p);
        }
    }
}

#[test]
fn afterwriting_scripts() {
    let Some(dir) = common::conformance("afterwriting") else {
        return;
    };
    let mut files = Vec::new();
    fountain_files(&dir, &mut files);
    assert!(files.len() >= 10, "{} files", files.len());
    let mut counts = BTreeMap::new();
    for path in &files {
        let play = parse(path);
        let name = path.strip_prefix(&dir).unwrap().display().to_string();
        counts.insert(name, (play.scenes.len(), play.characters.len(), play));
    }
    let get = |name: &str| &counts[name];

    let (scenes, chars, play) = get("screenplays/cyrillic.fountain");
    assert_eq!((*scenes, *chars), (2, 1));
    assert_eq!(play.characters[0].name, "МАШA");
    assert_eq!(play.title_field("title"), Some("Лорем ипсум"));

    let (scenes, chars, play) = get("screenplays/jp.fountain");
    assert_eq!((*scenes, *chars), (1, 1));
    assert_eq!(play.characters[0].name, "ジョン");
    assert_eq!(play.title_field("title"), Some("映画"));
    assert_eq!(
        kinds_texts(play)[2..],
        kt(&[
            (K::Action, "フェードイン："),
            (K::SceneHeading, "INT。 病院-日"),
            (K::Action, "ジョン（20）が入院。"),
            (K::Character, "ジョン"),
            (K::Parenthetical, "（失われた）"),
            (K::Dialogue, "この場所は何ですか？"),
            (
                K::Action,
                "そして、何も起こりません。 次の1時間、ジョンは沈黙の中で動かずに立っています。"
            ),
            (K::Action, "フェードアウト。"),
        ])[..]
    );

    let (scenes, chars, play) = get("screenplays/sc.fountain");
    assert_eq!((*scenes, *chars), (1, 1));
    assert_eq!(play.characters[0].name, "约翰");
    assert_eq!(play.title_field("author"), Some("匿名"));
    assert_eq!(
        play.of_kind(K::Parenthetical).next().unwrap().text,
        "（丢失）"
    );

    let (_, _, play) = get("screenplays/test.fountain");
    let names: Vec<&str> = play.characters.iter().map(|c| c.name.as_str()).collect();
    for n in [
        "HERO 1",
        "HERO 2",
        "HERO 3",
        "POLISH",
        "GERMAN",
        "NORWEGIAN",
        "SPANISH",
        "MCCABE",
    ] {
        assert!(names.contains(&n), "{n} not in {names:?}");
    }
    assert_eq!(play.elements[0].kind, K::Title);
    assert_eq!(
        play.title_field("title"),
        Some("_Screenplay title_\nSecond line")
    );
    assert_eq!(
        play.title_field("contact"),
        Some("e-mail: email@email.com\nphone: +12 34 567 89")
    );
    let dual: Vec<&str> = play
        .elements
        .iter()
        .filter(|e| e.dual && e.kind == K::Character)
        .map(|e| e.text.as_str())
        .collect();
    assert_eq!(dual, ["HERO 1", "HERO 2"]);
    assert!(play.elements.iter().all(|e| !e.text.contains("Ignored")));
    assert!(play.of_kind(K::Note).any(|n| n.text == "(inline note)"));

    for (name, (scenes, chars, play)) in &counts {
        assert!(!play.elements.is_empty(), "{name}: no elements");
        if name.starts_with("samples/") {
            assert!(
                *scenes >= 3 && *chars >= 2,
                "{name}: {scenes} scenes, {chars} characters"
            );
        }
        // No cue is really a sentence: names are short.
        for c in &play.characters {
            assert!(c.name.chars().count() <= 200, "{name}: cue {:?}", c.name);
        }
    }
}

#[test]
fn screenplain_and_jumpcut_fountain_files_parse_cleanly() {
    let mut files = Vec::new();
    for sub in ["screenplain", "jumpcut"] {
        if let Some(dir) = common::conformance(sub) {
            fountain_files(&dir, &mut files);
        }
    }
    for path in &files {
        let play = parse(path);
        assert!(!play.elements.is_empty(), "{}", path.display());
        let warnings: Vec<_> = play
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Warning)
            .collect();
        // Only the deliberately broken note in screenplain's notes.fountain warns.
        let allowed = usize::from(path.ends_with("tests_files/notes.fountain"));
        assert_eq!(warnings.len(), allowed, "{}: {warnings:?}", path.display());
    }
}
