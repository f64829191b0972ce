//! The plain-text (laid-out) reader: element counts derived by hand from the
//! fixture scripts, the page-break and noise rules, encodings, the sample
//! film scored against its Fountain source, and inputs that must not break it.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;

use moviegraph::screenplay::compare::compare;
use moviegraph::screenplay::{
    self, parse_bytes, parse_file, plaintext, ElementKind, Format, NoiseKind, Screenplay,
};

fn fixture(name: &str) -> Screenplay {
    let path = common::root().join("tests/fixtures/text").join(name);
    parse_file(&path, Some(Format::Text)).unwrap_or_else(|e| panic!("{e}"))
}

fn kind_counts(play: &Screenplay) -> BTreeMap<&'static str, usize> {
    let mut counts = BTreeMap::new();
    for e in &play.elements {
        *counts.entry(e.kind.as_str()).or_default() += 1;
    }
    counts
}

fn noise_counts(play: &Screenplay) -> BTreeMap<NoiseKind, usize> {
    let mut counts = BTreeMap::new();
    for n in &play.noise {
        *counts.entry(n.kind).or_default() += 1;
    }
    counts
}

/// `[("action", 3), …]` as a map, for comparing with [`kind_counts`].
fn expect(pairs: &[(&'static str, usize)]) -> BTreeMap<&'static str, usize> {
    pairs.iter().copied().collect()
}

// The counts below were taken from the scripts as written (what a reader of
// the page sees), not from the parser's output.

#[test]
fn pdf_pages_counts() {
    let play = fixture("pdf_pages.txt");
    assert_eq!(
        kind_counts(&play),
        expect(&[
            ("scene_heading", 3),
            ("action", 14),
            ("character", 10),
            ("dialogue", 11),
            ("parenthetical", 4),
            ("transition", 3),
            ("shot", 1),
            ("centered", 1),
            ("title", 5),
        ])
    );
    let noise = noise_counts(&play);
    assert_eq!(noise[&NoiseKind::RevisionMark], 5);
    assert_eq!(noise[&NoiseKind::SceneNumber], 3);
    assert_eq!(noise[&NoiseKind::Continued], 5);
    assert_eq!(noise[&NoiseKind::More], 1);
    assert_eq!(noise[&NoiseKind::HeaderFooter], 3);
    let numbers: Vec<_> = play.scenes.iter().map(|s| s.number.as_deref()).collect();
    assert_eq!(numbers, [Some("1"), Some("2"), Some("3")]);
    assert_eq!(play.scenes[2].heading, "THE VAULT - NIGHT");
    assert_eq!(play.title_field("title"), Some("THE LIGHTHOUSE LEDGER"));
    assert_eq!(play.title_field("author"), Some("Ines Marlowe"));
}

#[test]
fn speech_split_by_a_page_is_one_element() {
    let play = fixture("pdf_pages.txt");
    let split = play
        .of_kind(ElementKind::Dialogue)
        .find(|e| e.text.starts_with("He asked for it."))
        .expect("the split speech");
    assert_eq!(
        split.text,
        "He asked for it. I said it was at the bottom of the sea. He laughed like that was a \
         thing a person could say and not mean."
    );
    // The span encloses the (MORE), the page header (and the page number on
    // it), and the repeated cue.
    let inside: Vec<NoiseKind> = play
        .noise
        .iter()
        .filter(|n| n.line > split.lines.first && n.line < split.lines.last)
        .map(|n| n.kind)
        .collect();
    assert_eq!(
        inside,
        [
            NoiseKind::More,
            NoiseKind::PageNumber,
            NoiseKind::HeaderFooter,
            NoiseKind::Continued
        ]
    );
    // One cue for the whole speech: the repeated `QUINTON (CONT'D)` is noise.
    assert!(!play
        .of_kind(ElementKind::Character)
        .any(|e| e.text == "QUINTON (CONT'D)"));
    // But a CONT'D after action in the scene is a real cue.
    assert!(play
        .of_kind(ElementKind::Character)
        .any(|e| e.text == "ODILE (CONT'D)" && e.contd));
}

#[test]
fn action_split_by_a_page_is_one_element() {
    let play = fixture("pdf_pages.txt");
    let a = play
        .of_kind(ElementKind::Action)
        .find(|e| e.text.starts_with("A low stone room"))
        .unwrap();
    assert!(
        a.text.ends_with("settles on one that has been pried open."),
        "{}",
        a.text
    );
}

#[test]
fn imsdb_html_counts() {
    let play = fixture("imsdb_html.txt");
    assert_eq!(
        kind_counts(&play),
        expect(&[
            ("scene_heading", 3),
            ("action", 8),
            ("character", 10),
            ("dialogue", 11),
            ("parenthetical", 2),
            ("transition", 2),
            ("title", 3),
        ])
    );
    let dual: Vec<&str> = play
        .elements
        .iter()
        .filter(|e| e.dual)
        .map(|e| e.text.as_str())
        .collect();
    assert_eq!(
        dual,
        [
            "INTERN",
            "It's a box of letters. Addressed to you.",
            "PRINTER (O.S.)",
            "Put it back, I said."
        ]
    );
    // Names containing INT are cues, never headings.
    let names: Vec<&str> = play.characters.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["PRINTER", "INTERN"]);
    assert!(play
        .elements
        .iter()
        .all(|e| !e.text.contains("&amp;") && !e.text.contains("<b>")));
}

#[test]
fn flush_left_counts() {
    let play = fixture("flush_left.txt");
    assert_eq!(
        kind_counts(&play),
        expect(&[
            ("scene_heading", 2),
            ("action", 10),
            ("character", 7),
            ("dialogue", 7),
            ("parenthetical", 1),
            ("transition", 2),
        ])
    );
    let noise = noise_counts(&play);
    assert_eq!(noise[&NoiseKind::PageNumber], 3);
    assert_eq!(noise[&NoiseKind::HeaderFooter], 3);
    // All-caps action stays action.
    for t in ["BANG!", "THE SEEDLING IS GLOWING. FAINTLY. BLUE."] {
        assert!(
            play.of_kind(ElementKind::Action).any(|e| e.text == t),
            "{t}"
        );
    }
}

#[test]
fn windows_1252_with_tabs_counts() {
    let play = fixture("cp1252_tabs.txt");
    assert_eq!(play.encoding, "Windows-1252");
    assert_eq!(
        kind_counts(&play),
        expect(&[
            ("scene_heading", 1),
            ("action", 3),
            ("character", 5),
            ("dialogue", 5),
            ("parenthetical", 2),
            ("transition", 1),
        ])
    );
    assert_eq!(play.scenes[0].heading, "INT. CAFÉ ROSALIND – MORNING");
    assert!(play
        .of_kind(ElementKind::Dialogue)
        .any(|e| e.text == "“We’re closed,” she says to nobody. Then, louder: “Closed!”"));
}

#[test]
fn revision_pages_counts() {
    let play = fixture("revision_pages.txt");
    assert_eq!(
        kind_counts(&play),
        expect(&[
            ("scene_heading", 3),
            ("action", 7),
            ("shot", 3),
            ("character", 5),
            ("dialogue", 6),
            ("parenthetical", 1),
            ("transition", 1),
        ])
    );
    let noise = noise_counts(&play);
    assert_eq!(noise[&NoiseKind::PageNumber], 3);
    assert_eq!(noise[&NoiseKind::More], 2);
    assert_eq!(noise[&NoiseKind::Continued], 3);
    assert_eq!(noise[&NoiseKind::SceneNumber], 4);
    assert_eq!(noise[&NoiseKind::RevisionMark], 1);
    let numbers: Vec<_> = play.scenes.iter().map(|s| s.number.as_deref()).collect();
    assert_eq!(numbers, [Some("12"), Some("12A"), Some("14")]);
    assert_eq!(
        play.scenes[0].heading,
        "INT. ORBITAL STATION KESTREL - OBSERVATION RING - THE HOUR BEFORE DAWN"
    );
}

#[test]
fn double_spaced_counts() {
    let play = fixture("double_spaced.txt");
    assert_eq!(
        kind_counts(&play),
        expect(&[
            ("scene_heading", 2),
            ("action", 3),
            ("character", 4),
            ("dialogue", 4),
            ("parenthetical", 1),
            ("transition", 1),
        ])
    );
    assert_eq!(noise_counts(&play)[&NoiseKind::PageNumber], 3);
}

#[test]
fn windows_1252_bytes_decode_before_reading() {
    // “Hello,” she said… in Windows-1252, laid out with a cue and dialogue.
    let bytes =
        b"INT. CAF\xC9 - DAY\n\n                    MARA\n          \x93Hello,\x94 she said\x85\n";
    let play = parse_bytes(bytes, None, Path::new("smart.txt")).unwrap();
    assert_eq!(play.format, Format::Text);
    assert_eq!(play.encoding, "Windows-1252");
    let texts: Vec<(ElementKind, &str)> = play
        .elements
        .iter()
        .map(|e| (e.kind, e.text.as_str()))
        .collect();
    assert_eq!(
        texts,
        [
            (ElementKind::SceneHeading, "INT. CAFÉ - DAY"),
            (ElementKind::Character, "MARA"),
            (ElementKind::Dialogue, "“Hello,” she said…"),
        ]
    );
}

#[test]
fn mc_names_and_names_with_int_are_cues() {
    let text = "INT. PUB - NIGHT\n\n                    McCLANE\n          A pint.\n\n                    QUINTON\n          Two.\n";
    let play = screenplay::parse_text(text, Some(Format::Text), None).unwrap();
    let names: Vec<&str> = play.characters.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["MCCLANE", "QUINTON"]);
    assert_eq!(play.scenes.len(), 1);
}

#[test]
fn layout_detection() {
    let laid_out =
        std::fs::read_to_string(common::root().join("tests/fixtures/text/pdf_pages.txt")).unwrap();
    assert!(plaintext::looks_laid_out(&laid_out));
    let fountain = "INT. HOUSE - DAY\n\nMARA\nHello.\n\nShe leaves.\n";
    assert!(!plaintext::looks_laid_out(fountain));
}

/// The bundled sample film's plain text scored against its Fountain source,
/// the acceptance bar: F1 ≥ 97% on every element kind.
#[test]
fn sample_film_matches_its_fountain() {
    let dir = common::root().join("screenplays/the-second-key");
    let (txt, fountain) = (dir.join("script.txt"), dir.join("script.fountain"));
    if !txt.exists() || !fountain.exists() {
        eprintln!("SKIPPED: {} is absent", dir.display());
        return;
    }
    let text = parse_file(&txt, None).unwrap();
    assert_eq!(
        text.format,
        Format::Text,
        "script.txt is detected as laid out"
    );
    let reference = parse_file(&fountain, None).unwrap();
    let cmp = compare(&text.elements, &reference.elements);
    for (kind, score) in &cmp.kinds {
        assert!(
            score.f1 >= 0.97,
            "{kind}: F1 {:.2}% ({score:?})\nmissed: {:?}\nspurious: {:?}",
            score.f1 * 100.0,
            cmp.missed,
            cmp.spurious
        );
    }
    assert_eq!(text.scenes.len(), reference.scenes.len());
    for (a, b) in text.scenes.iter().zip(&reference.scenes) {
        assert_eq!(a.number, b.number, "scene {}", a.index);
    }
}

/// The Fountain reference parser's one `.txt` fixture is Fountain, not laid
/// out: it is detected as such, and the text reader still reads it whole.
#[test]
fn fountain_named_txt_from_the_conformance_suite() {
    let Some(dir) = common::conformance("nyousefi_fountain_reference") else {
        return;
    };
    let path = dir.join("Brick And Steel.txt");
    let bytes = std::fs::read(&path).unwrap();
    let auto = parse_bytes(&bytes, None, &path).unwrap();
    assert_eq!(auto.format, Format::Fountain);
    let forced = parse_bytes(&bytes, Some(Format::Text), &path).unwrap();
    assert!(forced.of_kind(ElementKind::SceneHeading).count() >= 5);
    assert!(forced.of_kind(ElementKind::Character).count() >= 10);
}

/// A small deterministic generator (xorshift) of script-like noise.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next() % items.len() as u64) as usize]
    }
}

const FRAGMENTS: &[&str] = &[
    "",
    "",
    "",
    " ",
    "\t",
    "\x0c",
    "\r",
    "*",
    "   *",
    "(",
    ")",
    "(MORE)",
    "CONTINUED:",
    "(CONTINUED)",
    "12.",
    "- 3 -",
    "Page 4 of 9",
    "12A",
    "INT.",
    "EXT. PIER - NIGHT",
    "I/E",
    "MARA",
    "MARA (CONT'D)",
    "QUINTON (V.O.)",
    "CUT TO:",
    "FADE OUT.",
    "FADE IN:",
    "CLOSE ON",
    "THE END",
    ">THE END<",
    "~la la",
    "<b>",
    "</b>",
    "&amp;",
    "&#x41;",
    "&",
    "<pre>",
    "--",
    "well-",
    "é",
    "日本",
    "ß",
    "ı",
    "’",
    "\u{a0}",
    "\u{2028}",
    "She runs.",
    "Hello there.",
    "BANG!",
    "MARA      JUNE",
    "THE VAULT - NIGHT",
    "     ",
    "                                 ",
];

/// Arbitrary line soup, with indents, never panics and keeps every span and
/// noise line inside the input.
#[test]
fn arbitrary_input_never_breaks_the_reader() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for round in 0..3000 {
        let mut text = String::new();
        let lines = rng.next() % 60;
        for _ in 0..lines {
            let indent = [0, 2, 8, 10, 15, 25, 31, 37, 60][(rng.next() % 9) as usize];
            text.extend(std::iter::repeat_n(' ', indent));
            for _ in 0..(rng.next() % 4) {
                text.push_str(rng.pick(FRAGMENTS));
                if rng.next().is_multiple_of(3) {
                    text.push(' ');
                }
            }
            text.push('\n');
        }
        let play = screenplay::parse_text(&text, Some(Format::Text), None)
            .unwrap_or_else(|e| panic!("round {round}: {e}"));
        // parse_text reads CR LF and lone CR as line ends, as editors do.
        let line_count = text.replace("\r\n", "\n").split(['\n', '\r']).count();
        for e in &play.elements {
            assert!(
                e.lines.first >= 1 && e.lines.first <= e.lines.last && e.lines.last <= line_count,
                "round {round}: span {:?} in {line_count} lines of {text:?}",
                e.lines
            );
        }
        for n in &play.noise {
            assert!(
                n.line >= 1 && n.line <= line_count,
                "round {round}: noise {n:?}"
            );
        }
    }
}

/// Inputs built to make a careless pass quadratic: every line a cue, every
/// line a bare number, one enormous line. Each must finish in well under a
/// second (in a debug build a quadratic pass over these takes minutes).
#[test]
fn adversarial_sizes_stay_linear() {
    let cues = "          MARA\n     (\n".repeat(20_000);
    let numbers: String = (0..20_000).map(|i| format!("{}\n\n", i % 3)).collect();
    let long = format!("{}\n", "MARA ".repeat(200_000));
    let headers = "HEADER 1/2/3\n\n\x0c".repeat(20_000);
    for (name, text) in [
        ("cues", cues),
        ("numbers", numbers),
        ("long", long),
        ("headers", headers),
    ] {
        let start = std::time::Instant::now();
        let reading = plaintext::read(&text);
        let took = start.elapsed();
        assert!(took.as_secs() < 5, "{name}: {took:?}");
        assert!(
            !reading.elements.is_empty() || !reading.noise.is_empty(),
            "{name}"
        );
    }
}

#[test]
fn bench_parse_layouts_scores_every_tag_and_writes_what_it_rendered() {
    // Renders the sample film's Fountain and FDX scripts into 3 layouts
    // each, parses them as plain text and prints S N C D E T.
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_moviegraph"))
        .current_dir(common::root())
        .args(["bench", "parse", "--layouts", "3", "--sources"])
        .arg(common::root().join("screenplays/the-second-key"))
        .arg("--keep")
        .arg(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("2 scripts × 3 layouts"), "{stdout}");
    for tag in ["S ", "N ", "C ", "D ", "E ", "T "] {
        let row = stdout
            .lines()
            .find(|l| l.starts_with(tag))
            .unwrap_or_else(|| panic!("no {tag}row: {stdout}"));
        let f1: f64 = row.split_whitespace().last().unwrap().parse().unwrap();
        assert!((0.0..=100.0).contains(&f1), "{row}");
    }
    // Each rendered text has a tag per line.
    let mut files = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect::<Vec<_>>();
    files.sort();
    assert_eq!(files.len(), 12);
    let text = std::fs::read_to_string(&files[1]).unwrap();
    let tags = std::fs::read_to_string(&files[0]).unwrap();
    assert_eq!(text.lines().count(), tags.lines().count());
    // With no script to render, it says where it looked.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_moviegraph"))
        .args(["bench", "parse", "--layouts", "1", "--sources"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no Fountain or FDX script"));
}
