//! The renderer's determinism and hard cases, and the line-by-line scorer.
use super::*;
use crate::screenplay::{parse_text, Format};

const SCRIPT: &str = "INT. KITCHEN - NIGHT\n\n\
    Mara stands at the sink, her back to the door.\n\n\
    MARA\n(quietly)\nYou came back. I didn't think you would, not after what I said.\n\n\
    QUINTON\nI left the key.\n\n\
    CUT TO:\n\n\
    EXT. PIER - DAWN\n\nThe boat is gone.\n";

fn play() -> Screenplay {
    parse_text(SCRIPT, Some(Format::Fountain), None).unwrap()
}

#[test]
fn a_cue_repeated_after_a_page_break_is_a_cue_line_and_continued_is_not() {
    assert!(repeated_cue("KATE (CONT'D)"));
    assert!(repeated_cue("MR. O'BRIEN (CONT’D)"));
    assert!(!repeated_cue("CONTINUED:"));
    assert!(!repeated_cue("(CONTINUED)"));
    assert!(!repeated_cue("CONTINUED: (2)"));
}

/// A script of `n` exchanges, long enough to cross many pages.
fn long_play(n: usize) -> Screenplay {
    let mut text = String::from("INT. KITCHEN - NIGHT\n\n");
    for k in 0..n {
        text.push_str(&format!(
            "Mara turns the key over in her hand, number {k}.\n\n\
             MARA\nYou came back. I didn't think you would, not after what I said to you.\n\n\
             QUINTON\n(quietly)\nI left the key where you would find it.\n\n"
        ));
    }
    parse_text(&text, Some(Format::Fountain), None).unwrap()
}

#[test]
fn more_and_a_repeated_cue_only_where_a_speech_goes_on_over_the_page() {
    // A speech that ended on a page's last line got `(MORE)`, and the
    // next speaker's cue was written `(CONT'D)` under the old speaker's
    // name when the page turned right before it.
    let p = long_play(40);
    for seed in 0..30 {
        let mut layout = Layout::draw(seed);
        (layout.more, layout.page_lines) = (true, 20 + seed as usize % 7);
        let r = render(&p, &layout, seed);
        let lines: Vec<&str> = r.text.split('\n').collect();
        for (i, line) in lines.iter().enumerate() {
            if line.trim() != "(MORE)" {
                continue;
            }
            let before = (0..i).rev().find(|&j| r.tags[j].is_some()).unwrap();
            let cue = (i + 1..lines.len())
                .find(|&j| lines[j].contains("(CONT'D)"))
                .unwrap();
            let after = (cue + 1..lines.len())
                .find(|&j| r.tags[j].is_some())
                .unwrap();
            assert!(
                matches!(r.tags[before], Some(Tag::Dialogue | Tag::Parenthetical)),
                "seed {seed}: (MORE) after {:?}",
                lines[before]
            );
            assert!(
                matches!(r.tags[after], Some(Tag::Dialogue | Tag::Parenthetical)),
                "seed {seed}: the speech after {:?} does not go on: {:?}",
                lines[cue],
                lines[after]
            );
            // The speaker of the repeated cue spoke the line before the break.
            let speaker = lines[cue].trim().trim_end_matches(" (CONT'D)");
            let last_cue = (0..before)
                .rev()
                .find(|&j| r.tags[j] == Some(Tag::Character))
                .unwrap();
            let said = lines[last_cue].trim_end_matches('*').trim();
            assert_eq!(said, speaker, "seed {seed}");
        }
    }
}

#[test]
fn a_revision_star_leaves_its_line_s_tag() {
    // The scorer took a line with a revision star for noise: a cue with a
    // star counted as a missed cue even when the parse had it right.
    let p = long_play(3);
    let mut layout = Layout::draw(5);
    layout.stars = 1.0;
    let r = render(&p, &layout, 5);
    assert!(r.text.lines().filter(|l| l.ends_with('*')).count() > 5);
    let parsed = parse_text(&r.text, Some(Format::Text), None).unwrap();
    assert!(parsed
        .noise
        .iter()
        .any(|n| n.kind == super::super::element::NoiseKind::RevisionMark));
    let mut counts = TagCounts::new();
    score(&r, &parsed, &mut counts);
    for (tag, c) in &counts {
        assert_eq!(c.agreed, c.gold, "{tag:?}: {c:?}\n{}", r.text);
    }
}

#[test]
fn tricky_names_time_cards_glued_numbers_and_slips_keep_every_line_s_tag() {
    let p = long_play(10);
    let mut layout = Layout::draw(7);
    layout.tricky_names = true;
    layout.time_cards = 1.0;
    layout.margin_numbers = true;
    layout.glued_numbers = true;
    layout.ocr = 0.5;
    let r = render(&p, &layout, 7);
    let lines: Vec<&str> = r.text.split('\n').collect();
    let tags = &r.tags;
    let tagged = |t: Tag| (0..tags.len()).filter(move |&i| tags[i] == Some(t));
    let cues: Vec<&str> = tagged(Tag::Character).map(|i| lines[i].trim()).collect();
    assert!(
        cues.contains(&"INTERN") && cues.contains(&"CUTTER"),
        "{cues:?}"
    );
    assert!(!cues
        .iter()
        .any(|c| c.starts_with("MARA") || c.starts_with("QUINTON")));
    let heading = tagged(Tag::Heading)
        .next()
        .map(|i| lines[i].trim())
        .unwrap();
    assert!(heading == "1INT. KITCHEN - NIGHT" || heading == "1 INT. KITCHEN - NIGHT");
    assert!(tagged(Tag::Action).any(|i| TIME_CARDS.contains(&lines[i].trim())));
    // Slips change letters, not lines: the speeches are there, line for line.
    assert_eq!(tagged(Tag::Character).count(), 20);
}

#[test]
fn a_seed_always_renders_the_same_text_and_every_story_line_has_its_tag() {
    let p = play();
    for seed in 0..20 {
        let l = Layout::draw(seed);
        let a = render(&p, &l, seed);
        let b = render(&p, &Layout::draw(seed), seed);
        assert_eq!(a.text, b.text);
        assert_eq!(a.tags.len(), a.text.lines().count());
        let tagged = |t: Tag| a.tags.iter().filter(|&&x| x == Some(t)).count();
        assert_eq!(tagged(Tag::Heading), 2, "{}", a.text);
        assert_eq!(tagged(Tag::Character), 2);
        assert_eq!(tagged(Tag::Transition), 1);
        assert!(tagged(Tag::Parenthetical) >= 1);
        assert!(tagged(Tag::Dialogue) >= 2);
    }
    // Layouts differ from seed to seed.
    assert_ne!(Layout::draw(1), Layout::draw(2));
}

#[test]
fn a_parse_is_scored_line_by_line_and_noise_read_as_a_tag_costs_precision() {
    let p = play();
    let layout = Layout::draw(3);
    let r = render(&p, &layout, 3);
    // The gold itself scores 1 everywhere.
    let mut perfect = TagCounts::new();
    let gold = Screenplay {
        elements: r
            .tags
            .iter()
            .enumerate()
            .filter_map(|(i, t)| {
                let kind = match (*t)? {
                    Tag::Heading => ElementKind::SceneHeading,
                    Tag::Action => ElementKind::Action,
                    Tag::Character => ElementKind::Character,
                    Tag::Dialogue => ElementKind::Dialogue,
                    Tag::Parenthetical => ElementKind::Parenthetical,
                    Tag::Transition => ElementKind::Transition,
                };
                Some(Element::new(
                    kind,
                    "x",
                    super::super::element::LineSpan::line(i + 1),
                ))
            })
            .collect(),
        ..p.clone()
    };
    // A margin scene number noted on a heading's line leaves the heading.
    let numbered: Vec<super::super::element::Noise> = r
        .tags
        .iter()
        .enumerate()
        .filter(|(_, t)| **t == Some(Tag::Heading))
        .map(|(i, _)| super::super::element::Noise {
            line: i + 1,
            kind: super::super::element::NoiseKind::SceneNumber,
            text: "1".into(),
        })
        .collect();
    assert!(!numbered.is_empty());
    let gold = Screenplay {
        noise: numbered,
        ..gold
    };
    score(&r, &gold, &mut perfect);
    assert!(perfect.values().all(|c| c.f1() == 1.0), "{perfect:?}");
    // Everything read as action: action's precision falls, the rest's recall is 0.
    let mut flat = TagCounts::new();
    let lines = r.tags.len();
    let all_action = Screenplay {
        elements: vec![Element::new(
            ElementKind::Action,
            "x",
            super::super::element::LineSpan {
                first: 1,
                last: lines,
            },
        )],
        noise: Vec::new(),
        ..p.clone()
    };
    score(&r, &all_action, &mut flat);
    assert!(flat[&Tag::Action].precision() < 0.5);
    assert_eq!(flat[&Tag::Dialogue].recall(), 0.0);
}
