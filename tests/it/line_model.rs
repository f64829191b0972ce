//! The plain-text reader with its line model on small original snippets
//! laid out like the real scripts the rules alone misread most (see `bench
//! parse --real`): each snippet's lines must come out with the tags a person
//! gives them; and where the rules read a script right, the model changes
//! nothing.

use moviegraph::screenplay::layouts::{line_tags, tags_of, Tag};
use moviegraph::screenplay::plaintext::read_with;
use moviegraph::screenplay::{parse_text, Format};

/// A snippet set at `indent`, one `tag|text` per line (`-` for a blank line).
fn snippet(indent: usize, rows: &[&str]) -> (String, Vec<Option<Tag>>) {
    let mut text = String::new();
    let mut gold = Vec::new();
    for row in rows {
        let (tag, body) = row.split_once('|').unwrap_or(("-", ""));
        if tag == "-" {
            text.push('\n');
            gold.push(None);
            continue;
        }
        let (extra, body) = match body.strip_prefix('>') {
            Some(b) => (10, b),
            None => (0, body),
        };
        text.push_str(&" ".repeat(indent + extra));
        text.push_str(body);
        text.push('\n');
        gold.push(Tag::ALL.iter().copied().find(|t| t.letter() == tag));
    }
    (text, gold)
}

fn tags(text: &str) -> Vec<Option<Tag>> {
    let play = parse_text(text, Some(Format::Text), None).unwrap();
    let n = text.split('\n').count() - 1;
    line_tags(&play, n)
}

fn rules_tags(text: &str) -> Vec<Option<Tag>> {
    let reading = read_with(text, None);
    tags_of(
        &reading.elements,
        &reading.noise,
        text.split('\n').count() - 1,
    )
}

/// Action, cues, speeches and headings all at one column, told apart only
/// by their width and what precedes them.
const ONE_COLUMN: &[&str] = &[
    "S|EXT. SALT MARSH -- NORTH DYKE -- DAY",
    "-|",
    "N|ODILE drags a rowing boat up the shingle and leans on the",
    "N|gunwale, out of breath. The tide is already turning behind",
    "N|her and the gulls have gone quiet.",
    "-|",
    "C|PETRIC",
    "D|You said the boat would be here at",
    "D|noon. It is nearly two.",
    "-|",
    "C|ODILE",
    "D|It was here at noon. I was not.",
    "-|",
    "N|She ties the painter to a post that leans further than she",
    "N|does, and tests the knot twice.",
    "-|",
    "C|PETRIC",
    "D|Then we wait for the next tide.",
    "-|",
    "N|He sits on the upturned hull and opens a paper of chips,",
    "N|offering none of them to anybody.",
    "-|",
    "S|EXT. SALT MARSH -- SOUTH SLUICE -- LATER",
    "-|",
    "N|The sluice gate stands open. Water pours through it in a",
    "N|brown sheet, carrying reeds and a single orange float.",
];

#[test]
fn action_at_the_speech_column_is_action_and_speeches_stay_speeches() {
    let (text, gold) = snippet(11, ONE_COLUMN);
    assert_eq!(tags(&text), gold, "{text}");
}

#[test]
fn the_line_model_changes_nothing_the_rules_read_right() {
    // The sample film's laid-out script: the rules read it right, and so
    // must the rules with the model.
    let text = std::fs::read_to_string("screenplays/the-second-key/script.txt").unwrap();
    assert_eq!(tags(&text), rules_tags(&text));
}

/// Action set straight under a speech, at the speech's column, with no blank
/// line between (cues further in): the rules alone read it as more speech.
const UNDER_SPEECH: &[&str] = &[
    "S|INT. FERRY TERMINAL - WAITING ROOM - NIGHT",
    "-|",
    "N|Rain hammers the long windows. ISOLDE sits alone on a bench",
    "N|with a suitcase that has lost one of its wheels.",
    "-|",
    "C|>BRANWEN",
    "D|You missed the last boat.",
    "N|BRANWEN drops into the seat beside her and shakes the water",
    "N|from her hat, scattering drops across the tiled floor.",
    "-|",
    "C|>ISOLDE",
    "D|I meant to miss it.",
    "-|",
    "C|>BRANWEN",
    "D|Nobody means to miss a boat.",
    "N|ISOLDE opens the suitcase. It is full of letters, every one",
    "N|of them sealed and addressed in the same careful hand.",
    "-|",
    "C|>ISOLDE",
    "D|Then I am the first.",
    "N|A horn sounds somewhere out in the harbour, long and low, and",
    "N|the lights of the waiting room flicker twice and hold.",
];

#[test]
fn action_straight_under_a_speech_is_read_better_with_the_model_than_by_the_rules() {
    let (text, gold) = snippet(10, UNDER_SPEECH);
    let right = |tags: &[Option<Tag>]| tags.iter().zip(&gold).filter(|(a, b)| a == b).count();
    let (with_model, rules) = (right(&tags(&text)), right(&rules_tags(&text)));
    assert!(
        with_model > rules,
        "model {with_model}, rules {rules} of {} lines right",
        gold.len()
    );
    // What the rules read right, the model keeps: headings, cues, speeches.
    let read = tags(&text);
    for (k, g) in gold.iter().enumerate() {
        if matches!(g, Some(Tag::Heading | Tag::Character | Tag::Dialogue)) {
            assert_eq!(read[k], *g, "line {}", k + 1);
        }
    }
}
