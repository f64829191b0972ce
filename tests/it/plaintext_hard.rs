//! The plain-text reader on the hard cases of real scripts, one laid-out
//! script per case: pages that drift, transitions in any case, speeches cut
//! by page breaks, blank lines between cue and speech, upper-case action,
//! headings with no INT./EXT. or in lower case, scene numbers glued to
//! headings, scripts that open with speeches, page furniture, and
//! parentheticals between the columns.

use std::collections::BTreeMap;

use moviegraph::screenplay::{self, ElementKind, Format, Screenplay};

fn kind_counts(play: &Screenplay) -> BTreeMap<&'static str, usize> {
    let mut counts = BTreeMap::new();
    for e in &play.elements {
        *counts.entry(e.kind.as_str()).or_default() += 1;
    }
    counts
}

fn read(lines: &[Option<(usize, &str)>]) -> Screenplay {
    screenplay::parse_text(&laid_out(lines), Some(Format::Text), None).unwrap()
}

/// The texts of the elements of `kind`, in order.
fn texts(play: &Screenplay, kind: ElementKind) -> Vec<&str> {
    play.of_kind(kind).map(|e| e.text.as_str()).collect()
}

/// A laid-out script: `(indent, text)` lines, `None` for a page break.
fn laid_out(lines: &[Option<(usize, &str)>]) -> String {
    lines
        .iter()
        .map(|l| match l {
            Some((indent, text)) if !text.is_empty() => format!("{}{text}\n", " ".repeat(*indent)),
            Some(_) => "\n".to_string(),
            None => "\u{c}".to_string(),
        })
        .collect()
}

/// Three action paragraphs each followed by a speech: enough lines for the
/// reader to learn the columns (action 10, dialogue 22, cues 35).
fn three_speeches() -> Vec<Option<(usize, &'static str)>> {
    let mut lines = Vec::new();
    for _ in 0..3 {
        lines.extend([
            Some((10, "Mara crosses to the counter and sets the key down.")),
            Some((0, "")),
            Some((35, "MARA")),
            Some((22, "I know what you did. I know all of it.")),
            Some((0, "")),
        ]);
    }
    lines
}

#[test]
fn a_page_that_drifts_a_few_columns_is_read_at_the_script_s_columns() {
    // PDF-to-text output moves whole pages by a column or three; the second
    // page's speech sat where the first page's action was expected.
    let page = |shift: usize| {
        let mut v = Vec::new();
        for k in 0..4 {
            v.extend([
                Some((
                    10 + shift,
                    "Mara crosses to the counter and sets the key down.",
                )),
                Some((0, "")),
                Some((35 + shift, if k % 2 == 0 { "MARA" } else { "QUINTON" })),
                Some((22 + shift, "I know what you did. I know all of it.")),
                Some((22 + shift, "Every word of it.")),
                Some((0, "")),
            ]);
        }
        v
    };
    let mut lines = page(0);
    lines.push(None);
    lines.extend(page(3));
    let text = laid_out(&lines);
    let play = screenplay::parse_text(&text, Some(Format::Text), None).unwrap();
    let counts = kind_counts(&play);
    assert_eq!(counts.get("dialogue"), Some(&8), "{counts:?}");
    assert_eq!(counts.get("character"), Some(&8), "{counts:?}");
    assert_eq!(counts.get("action"), Some(&8), "{counts:?}");
    assert!(
        play.diagnostics.iter().any(|d| d.message.contains("drift")),
        "{:?}",
        play.diagnostics
    );
}

#[test]
fn a_transition_far_right_is_read_in_any_case_and_without_its_colon() {
    for transition in ["SMASH CUT TO", "Dissolve to:", "BURN TO PINK."] {
        let mut lines = three_speeches();
        lines.extend([
            Some((58, transition)),
            Some((0, "")),
            Some((10, "INT. PIER - DAWN")),
        ]);
        let play = screenplay::parse_text(&laid_out(&lines), Some(Format::Text), None).unwrap();
        let found: Vec<&str> = play
            .of_kind(ElementKind::Transition)
            .map(|e| e.text.as_str())
            .collect();
        assert_eq!(found, vec![transition], "{transition}");
    }
}

#[test]
fn a_speech_cut_mid_sentence_by_a_page_break_goes_on_without_more() {
    // No (MORE), no repeated cue: the next page starts mid-sentence at the
    // dialogue column, and was read as action.
    let mut lines = three_speeches();
    lines.extend([
        Some((35, "QUINTON")),
        Some((22, "I haven't really even thought")),
        None,
        Some((55, "2.")),
        Some((0, "")),
        Some((22, "about that yet. It's been")),
        Some((22, "tight since the funeral.")),
        Some((0, "")),
        Some((10, "He turns away from her.")),
    ]);
    let play = screenplay::parse_text(&laid_out(&lines), Some(Format::Text), None).unwrap();
    let last = play.of_kind(ElementKind::Dialogue).last().unwrap();
    assert_eq!(
        last.text,
        "I haven't really even thought about that yet. It's been tight since the funeral."
    );
    assert_eq!(
        play.of_kind(ElementKind::Action).last().unwrap().text,
        "He turns away from her."
    );
}

/// A speech whose cue stands a blank line above it, at the columns of
/// [`three_speeches`].
fn loose_speech(cue: &'static str, said: &'static str) -> Vec<Option<(usize, &'static str)>> {
    vec![
        Some((35, cue)),
        Some((0, "")),
        Some((22, said)),
        Some((0, "")),
    ]
}

#[test]
fn speeches_a_blank_line_below_their_cues_in_an_upper_case_script_are_speeches() {
    // Action in capitals throughout and a blank line under every cue: a few
    // short capitals right above indented lines had outvoted the many
    // loose cues, and the columns came out as action 29, dialogue 25.
    // Three speeches typed with the cue right above them, eight without.
    let mut lines = Vec::new();
    for _ in 0..3 {
        lines.extend([
            Some((
                10,
                "SHE WAITS BY THE DOOR, LISTENING FOR HIS CAR IN THE DRIVE.",
            )),
            Some((0, "")),
            Some((35, "MARA")),
            Some((22, "Not yet. Not tonight.")),
            Some((0, "")),
        ]);
    }
    for _ in 0..4 {
        lines.extend([
            Some((
                10,
                "THE KITCHEN IS DARK. MARA CROSSES TO THE COUNTER AND SETS",
            )),
            Some((10, "THE KEY DOWN WITHOUT A SOUND.")),
            Some((0, "")),
        ]);
        lines.extend(loose_speech(
            "MARA",
            "I know what you did. I know all of it.",
        ));
        lines.extend(loose_speech(
            "QUINTON",
            "Then you know why I came back here.",
        ));
    }
    let play = read(&lines);
    let counts = kind_counts(&play);
    assert_eq!(counts.get("character"), Some(&11), "{counts:?}");
    assert_eq!(counts.get("dialogue"), Some(&11), "{counts:?}");
    assert_eq!(counts.get("action"), Some(&7), "{counts:?}");
    assert_eq!(
        texts(&play, ElementKind::Dialogue)[4],
        "Then you know why I came back here."
    );
}

#[test]
fn a_page_of_speeches_drifted_left_is_matched_on_its_columns_not_its_margin() {
    // The drifted page has no action: its leftmost lines are dialogue, two
    // columns left of the dialogue column. Counting how full each column is
    // pulled the page onto the busier action column, four columns right.
    let mut lines = Vec::new();
    for _ in 0..3 {
        lines.extend(three_speeches());
    }
    lines.push(None);
    for k in 0..4 {
        lines.extend([
            Some((33, if k % 2 == 0 { "MARA" } else { "QUINTON" })),
            Some((20, "You were selling novelty products in")),
            Some((20, "Wichita the day I was born.")),
            Some((0, "")),
        ]);
    }
    lines.push(Some((8, "He turns away from her.")));
    let play = read(&lines);
    let counts = kind_counts(&play);
    assert_eq!(counts.get("character"), Some(&13), "{counts:?}");
    assert_eq!(counts.get("dialogue"), Some(&13), "{counts:?}");
    assert_eq!(counts.get("action"), Some(&10), "{counts:?}");
}

#[test]
fn a_page_drifted_six_columns_either_way_is_moved_back() {
    // Six columns left, its dialogue stood where action may stand; a page
    // was only moved back when its margin was within three columns.
    // A blank line under each cue, so only the columns tell a speech.
    let page = || {
        let mut v = Vec::new();
        for _ in 0..3 {
            v.extend([
                Some((10, "Mara crosses to the counter and sets the key down.")),
                Some((0, "")),
            ]);
            v.extend(loose_speech(
                "MARA",
                "I know what you did. I know all of it.",
            ));
        }
        v
    };
    for shift in [-6isize, 6] {
        let mut lines = page();
        lines.push(None);
        for (indent, text) in page().into_iter().flatten() {
            let moved = if text.is_empty() {
                0
            } else {
                (indent as isize + shift) as usize
            };
            lines.push(Some((moved, text)));
        }
        let play = read(&lines);
        let counts = kind_counts(&play);
        assert_eq!(counts.get("dialogue"), Some(&6), "{shift}: {counts:?}");
        assert_eq!(counts.get("action"), Some(&6), "{shift}: {counts:?}");
    }
}

#[test]
fn headings_without_int_ext_in_any_case_and_with_glued_numbers() {
    // Each alone at the action column between two blank lines.
    let cases = [
        // An unknown word after the dash: still a place and a part of it.
        (
            "FURTHER ALONG - ROUGH PATH",
            "FURTHER ALONG - ROUGH PATH",
            None,
        ),
        // Lower case, with a time of day.
        ("hospital room - night", "hospital room - night", None),
        // A scene number glued to its heading.
        ("12INT. HALL - DAY", "INT. HALL - DAY", Some("12")),
    ];
    for (written, read_as, number) in cases {
        let mut lines = three_speeches();
        lines.extend([Some((10, written)), Some((0, ""))]);
        lines.extend(three_speeches());
        let play = read(&lines);
        let headings: Vec<_> = play.of_kind(ElementKind::SceneHeading).collect();
        assert_eq!(headings.len(), 1, "{written}: {:?}", play.elements);
        assert_eq!(headings[0].text, read_as, "{written}");
        assert_eq!(headings[0].scene_number.as_deref(), number, "{written}");
    }
}

#[test]
fn upper_case_lines_alone_with_no_dash_stay_action_or_shots() {
    // `THE EMPTY LOT` is set as a heading by some writers and as action by
    // others; a line with no dash and no time of day does not start a scene.
    for line in ["THE EMPTY LOT", "OPENING TITLES", "BOOM!"] {
        let mut lines = three_speeches();
        lines.extend([Some((10, line)), Some((0, ""))]);
        lines.extend(three_speeches());
        let play = read(&lines);
        assert_eq!(
            play.of_kind(ElementKind::SceneHeading).count(),
            0,
            "{line}: {:?}",
            play.elements
        );
    }
}

#[test]
fn numbers_on_both_margins_make_a_lower_case_line_a_heading() {
    let mut lines = three_speeches();
    lines.extend([
        Some((
            0,
            "29    upstairs hallway - day                             29",
        )),
        Some((0, "")),
    ]);
    lines.extend(three_speeches());
    let play = read(&lines);
    let headings = texts(&play, ElementKind::SceneHeading);
    assert_eq!(headings, vec!["upstairs hallway - day"]);
}

#[test]
fn a_number_glued_to_a_bare_heading_counts_when_it_is_next_in_sequence() {
    // `15KITCHEN` after scene 14 is scene 15; `3 MEN ENTER` after scene 15
    // is action that starts with a number.
    let mut lines = vec![Some((0, "14  INT. HALL - DAY  14")), Some((0, ""))];
    lines.extend(three_speeches());
    lines.extend([Some((10, "15KITCHEN")), Some((0, ""))]);
    lines.extend(three_speeches());
    lines.extend([Some((10, "3 MEN ENTER")), Some((0, ""))]);
    lines.extend(three_speeches());
    let play = read(&lines);
    let headings: Vec<_> = play
        .of_kind(ElementKind::SceneHeading)
        .map(|e| (e.text.as_str(), e.scene_number.as_deref()))
        .collect();
    assert_eq!(
        headings,
        vec![("INT. HALL - DAY", Some("14")), ("KITCHEN", Some("15"))]
    );
    assert!(texts(&play, ElementKind::Action).contains(&"3 MEN ENTER"));
}

#[test]
fn a_script_that_opens_with_a_page_of_speeches_has_no_title_page() {
    // No heading and no action on the first page, a blank line under each
    // cue, and a second page of speeches set three columns right: the whole
    // first page was taken for a title page.
    let mut lines = Vec::new();
    for k in 0..6 {
        lines.extend(loose_speech(
            if k % 2 == 0 { "ADAM" } else { "EVE" },
            "I like to write. What kind of writing?",
        ));
    }
    lines.extend([
        Some((35, "R2D2")),
        Some((0, "")),
        Some((22, "Bleep boop.")),
        Some((24, "(a long pause, and a")),
        Some((24, "longer one)")),
        Some((0, "")),
        Some((35, "ADAM")),
        Some((0, "")),
        Some((22, "That was really weird.")),
        None,
        Some((25, "And I can be weird too. There is a")),
        Some((25, "blank line in this speech for no")),
        Some((25, "good reason at all.")),
        Some((0, "")),
        Some((38, "EVE")),
        Some((0, "")),
        Some((27, "(smug)")),
        Some((25, "Well, then I will just indent!")),
    ]);
    let play = read(&lines);
    let counts = kind_counts(&play);
    assert_eq!(counts.get("title"), None, "{counts:?}");
    assert_eq!(counts.get("character"), Some(&9), "{counts:?}");
    assert_eq!(play.elements[0].kind, ElementKind::Character);
}

/// Pages with no form feed, each `page(k)` lines of story: speeches and
/// action, laid out at the usual columns, the last line a speech's.
fn page_of_story(k: usize) -> Vec<(usize, String)> {
    let mut lines = Vec::new();
    for s in 0..3 {
        lines.extend([
            (
                10,
                format!("Rain on the tin roof, page {k}, beat {s}. Nell counts the jars."),
            ),
            (
                10,
                "She stacks them by the door without a sound.".to_owned(),
            ),
            (0, String::new()),
            (35, "NELL".to_owned()),
            (22, "We leave before the river rises.".to_owned()),
            (22, "Not one jar stays behind.".to_owned()),
            (0, String::new()),
            (35, "OSWIN".to_owned()),
            (22, "Then we carry them ourselves.".to_owned()),
        ]);
        if s < 2 {
            lines.push((0, String::new()));
        }
    }
    lines
}

fn script_of(pages: Vec<Vec<(usize, String)>>) -> Screenplay {
    let mut text = String::from("                         FADE IN:\n\nEXT. ORCHARD - DAY\n\n");
    for page in pages {
        for (indent, line) in page {
            if line.is_empty() {
                text.push('\n');
            } else {
                text.push_str(&format!("{}{line}\n", " ".repeat(indent)));
            }
        }
    }
    screenplay::parse_text(&text, Some(Format::Text), None).unwrap()
}

/// No story element holds a line that is only a page's furniture.
fn story_has_none_of(play: &Screenplay, what: &dyn Fn(&str) -> bool) {
    for e in &play.elements {
        for line in e.text.lines() {
            assert!(
                !what(line.trim()),
                "{:?} holds furniture: {:?}",
                e.kind,
                e.text
            );
        }
    }
}

/// Real scripts without form feeds set the page number right under a page's
/// last line, with no blank between (`...for all this.` / `78.`): numbers
/// that count up a page apart are page numbers, glued or not.
#[test]
fn page_numbers_glued_under_a_pages_last_line_are_not_story() {
    let pages: Vec<Vec<(usize, String)>> = (2..8)
        .map(|k| {
            let mut page = page_of_story(k);
            page.push((11, format!("{k}.")));
            page.push((0, String::new()));
            page
        })
        .collect();
    let play = script_of(pages);
    story_has_none_of(&play, &|l| {
        l.trim_end_matches('.').chars().all(|c| c.is_ascii_digit())
    });
    let numbers = play
        .noise
        .iter()
        .filter(|n| n.kind == screenplay::NoiseKind::PageNumber)
        .count();
    assert!(numbers >= 4, "{:?}", play.noise);
}

/// A running header that carries the page number (`THE ORCHARD LINE   12.`),
/// in a script with no form feeds and no draft or date in the header: the
/// rising page number says what it is.
#[test]
fn a_running_header_numbering_its_pages_is_not_story_without_form_feeds() {
    let pages: Vec<Vec<(usize, String)>> = (2..8)
        .map(|k| {
            let gap = " ".repeat(40 + k % 3);
            let mut page = vec![
                (10, format!("THE ORCHARD LINE{gap}{k}.")),
                (0, String::new()),
            ];
            page.extend(page_of_story(k));
            page.push((0, String::new()));
            page
        })
        .collect();
    let play = script_of(pages);
    story_has_none_of(&play, &|l| l.contains("ORCHARD LINE"));
    assert_eq!(texts(&play, ElementKind::Character).len(), 36);
}

/// Headings real scripts number in ways the reader read as action: a
/// sub-numbered scene (`3.71 INT. CELLAR  NIGHT`) and a numbered heading
/// that names the place before INT./EXT. (`65. THE BOATHOUSE. INT. NIGHT.`).
#[test]
fn numbered_headings_with_sub_numbers_or_int_after_the_place_are_headings() {
    let mut lines = vec![Some((0, "3.71 INT. CELLAR  NIGHT")), Some((0, ""))];
    lines.extend(three_speeches());
    lines.extend([
        Some((10, "65. THE BOATHOUSE. INT. NIGHT. 1994")),
        Some((0, "")),
    ]);
    lines.extend(three_speeches());
    lines.extend([Some((10, "66. THE YARD. EXT AND INT. DAY")), Some((0, ""))]);
    lines.extend(three_speeches());
    let play = read(&lines);
    assert_eq!(
        texts(&play, ElementKind::SceneHeading),
        [
            "INT. CELLAR NIGHT",
            "THE BOATHOUSE. INT. NIGHT. 1994",
            "THE YARD. EXT AND INT. DAY"
        ],
        "{:?}",
        play.elements
    );
    let numbers: Vec<Option<&str>> = play
        .of_kind(ElementKind::SceneHeading)
        .map(|e| e.scene_number.as_deref())
        .collect();
    assert_eq!(numbers, [Some("3.71"), Some("65"), Some("66")]);
    assert_eq!(texts(&play, ElementKind::Character).len(), 9);
}

/// Scripts whose action is indented to the dialogue's column while their
/// headings stay at the margin (only the cue above a speech tells action and
/// speech apart): a paragraph there with no cue before it is action, not
/// sung words.
#[test]
fn action_at_the_dialogue_column_is_action_not_a_lyric() {
    let mut lines = Vec::new();
    for _ in 0..4 {
        lines.extend([Some((0, "INT. BOATYARD - NIGHT")), Some((0, ""))]);
        lines.extend([
            Some((15, "Rain on the tin roof. Mara pulls the tarp off the hull")),
            Some((15, "and runs her hand along the new planks.")),
            Some((0, "")),
            Some((30, "MARA")),
            Some((15, "Nobody touches this boat until I say.")),
            Some((0, "")),
            Some((15, "She locks the shed behind her.")),
            Some((0, "")),
        ]);
    }
    let play = read(&lines);
    assert!(
        texts(&play, ElementKind::Lyric).is_empty(),
        "{:?}",
        play.elements
    );
    assert_eq!(texts(&play, ElementKind::Dialogue).len(), 4);
    let action = texts(&play, ElementKind::Action);
    assert_eq!(action.len(), 8, "{action:?}");
    assert_eq!(
        action[0].replace('\n', " "),
        "Rain on the tin roof. Mara pulls the tarp off the hull and runs her hand along the new planks."
    );
}

/// Parentheticals where real scripts put them: between the cue's and the
/// speech's columns, wrapped over two lines, and in the middle of a speech.
/// None is read as action or as words spoken.
#[test]
fn parentheticals_between_the_columns_wrapped_or_mid_speech_are_parentheticals() {
    let mut lines = three_speeches();
    lines.extend([
        Some((35, "GUS")),
        Some((28, "(not looking up,")),
        Some((29, "still counting)")),
        Some((22, "Forty. Forty-one.")),
        Some((28, "(beat)")),
        Some((22, "You were saying?")),
        Some((0, "")),
        Some((10, "Mara waits him out.")),
        Some((0, "")),
        Some((35, "MARA")),
        Some((29, "(quietly)")),
        Some((22, "I was saying it's gone.")),
        Some((0, "")),
    ]);
    lines.extend(three_speeches());
    let play = read(&lines);
    assert_eq!(
        texts(&play, ElementKind::Parenthetical),
        ["(not looking up, still counting)", "(beat)", "(quietly)"],
        "{:?}",
        play.elements
    );
    let spoken = texts(&play, ElementKind::Dialogue);
    assert!(spoken.contains(&"Forty. Forty-one."), "{spoken:?}");
    assert!(spoken.contains(&"You were saying?"), "{spoken:?}");
    assert!(spoken.iter().all(|d| !d.contains('(')), "{spoken:?}");
    assert!(texts(&play, ElementKind::Action).contains(&"Mara waits him out."));
}
