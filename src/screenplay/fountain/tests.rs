//! One test per Fountain rule, on the smallest input that shows it.

use super::read;
use crate::screenplay::element::{Element, ElementKind as K, LineSpan, Severity};

/// `kind text` per element, newlines shown as `⏎`.
fn render(text: &str) -> Vec<String> {
    read(text)
        .elements
        .iter()
        .map(|e| format!("{} {}", e.kind, e.text.replace('\n', "⏎")))
        .collect()
}

fn elements(text: &str) -> Vec<Element> {
    read(text).elements
}

fn warnings(text: &str) -> Vec<(usize, String)> {
    read(text)
        .diagnostics
        .into_iter()
        .filter(|d| d.severity == Severity::Warning)
        .map(|d| (d.line, d.message))
        .collect()
}

#[test]
fn title_page_fields_keys_and_multiline_values() {
    let text = "Title:\n    _**BRICK & STEEL**_\n    _**FULL RETIRED**_\nCredit: Written by\nDraft date: 1/27/2012\n\nEXT. PATIO - DAY\n";
    let els = elements(text);
    let titles: Vec<(&str, &str, LineSpan)> = els
        .iter()
        .filter(|e| e.kind == K::Title)
        .map(|e| (e.key.as_deref().unwrap(), e.text.as_str(), e.lines))
        .collect();
    assert_eq!(
        titles,
        vec![
            (
                "title",
                "_**BRICK & STEEL**_\n_**FULL RETIRED**_",
                LineSpan::new(1, 3)
            ),
            ("credit", "Written by", LineSpan::line(4)),
            ("draft date", "1/27/2012", LineSpan::line(5)),
        ]
    );
    assert_eq!(els[3].kind, K::SceneHeading);
}

#[test]
fn title_page_needs_a_title_key_at_the_top() {
    // `FADE IN:` has the shape of a key but opens a script, not a title page.
    assert_eq!(
        render("FADE IN:\n\nINT. HOUSE - DAY"),
        vec!["action FADE IN:", "scene_heading INT. HOUSE - DAY"]
    );
    // Full-width colon, as Japanese scripts write it.
    let els = elements("Title：电影\nAuthor：匿名\n\n淡入：");
    assert_eq!(els[0].key.as_deref(), Some("title"));
    assert_eq!(els[0].text, "电影");
    assert_eq!(els[1].key.as_deref(), Some("author"));
    // A title line later in the script is action.
    assert_eq!(
        render("Hello.\n\nTitle: Nope"),
        vec!["action Hello.", "action Title: Nope"]
    );
}

#[test]
fn notes_before_the_title_page_come_after_its_fields() {
    let els = elements("[[Script note.]]\n\nTitle: T\nAuthor: A\n\nAction.");
    let kinds: Vec<K> = els.iter().map(|e| e.kind).collect();
    assert_eq!(kinds, vec![K::Title, K::Title, K::Note, K::Action]);
    assert_eq!(els[2].lines, LineSpan::line(1));
}

#[test]
fn scene_headings_need_a_blank_line_before() {
    assert_eq!(
        render("INT. HOUSE - DAY\n\nA man.\nEXT. YARD - NIGHT\n\nint house day\n\n.KITCHEN\n\n... not a heading"),
        vec![
            "scene_heading INT. HOUSE - DAY",
            "action A man.⏎EXT. YARD - NIGHT",
            "scene_heading int house day",
            "scene_heading KITCHEN",
            "action ... not a heading",
        ]
    );
}

#[test]
fn scene_numbers_leave_the_heading() {
    let els = elements("INT. HOUSE - DAY #1A#\n\n.FLASHBACK #I-1-A#");
    assert_eq!(els[0].text, "INT. HOUSE - DAY");
    assert_eq!(els[0].scene_number.as_deref(), Some("1A"));
    assert_eq!(els[1].text, "FLASHBACK");
    assert_eq!(els[1].scene_number.as_deref(), Some("I-1-A"));
}

#[test]
fn heading_without_blank_after_still_counts_and_says_so() {
    let r = read("INT. HOUSE - DAY\nEXT. HOUSE - DAY\nBOB\nHi.");
    let kinds: Vec<K> = r.elements.iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        vec![K::SceneHeading, K::SceneHeading, K::Character, K::Dialogue]
    );
    assert_eq!(r.diagnostics.len(), 2);
    assert!(r.diagnostics.iter().all(|d| d.severity == Severity::Info));
}

#[test]
fn character_cues() {
    assert_eq!(
        render("MOM (O. S.)\nLuke!\n\n@McCLANE\nYippee.\n\n23 (O.S.)\nNot a cue.\n\nSteel\nNot a cue either.\n\nLOUD NOISE\n\nText."),
        vec![
            "character MOM (O. S.)",
            "dialogue Luke!",
            "character McCLANE",
            "dialogue Yippee.",
            "action 23 (O.S.)⏎Not a cue.",
            "action Steel⏎Not a cue either.",
            "action LOUD NOISE",
            "action Text.",
        ]
    );
}

#[test]
fn cues_need_a_blank_line_before() {
    assert_eq!(render("Action.\nBOB\nHi."), vec!["action Action.⏎BOB⏎Hi."]);
}

#[test]
fn indented_speech_is_trimmed() {
    assert_eq!(
        render("\t\tEVE\n\t  (feeling cocky)\n\tWell, then I'll just indent!"),
        vec![
            "character EVE",
            "parenthetical (feeling cocky)",
            "dialogue Well, then I'll just indent!",
        ]
    );
}

#[test]
fn dialogue_lines_join_and_parentheticals_split() {
    assert_eq!(
        render("STEEL\nThey're coming!\n(pause)\nNo,\neverybody!\n(pause)\nSniper?"),
        vec![
            "character STEEL",
            "dialogue They're coming!",
            "parenthetical (pause)",
            "dialogue No,⏎everybody!",
            "parenthetical (pause)",
            "dialogue Sniper?",
        ]
    );
}

#[test]
fn two_spaces_keep_a_speech_going() {
    assert_eq!(
        render("DEALER\nDealer gets a seven.\n  \nHit or stand sir?\n\nAction."),
        vec![
            "character DEALER",
            "dialogue Dealer gets a seven.⏎⏎Hit or stand sir?",
            "action Action.",
        ]
    );
}

#[test]
fn multiline_and_unclosed_parentheticals() {
    assert_eq!(
        render("BOB\n(looking at\nthe door)\nHi."),
        vec![
            "character BOB",
            "parenthetical (looking at⏎the door)",
            "dialogue Hi."
        ]
    );
    let r = read("BOB\n(beat\nHi.");
    assert_eq!(r.elements[1].text, "(beat");
    assert_eq!(r.elements[2].text, "Hi.");
    assert_eq!(r.diagnostics.len(), 1);
}

#[test]
fn dual_dialogue_marks_both_speeches() {
    let els =
        elements("BRICK\nScrew retirement.\n\nSTEEL ^\n(beat)\nScrew retirement.\n\nThey laugh.");
    let duals: Vec<(K, bool)> = els.iter().map(|e| (e.kind, e.dual)).collect();
    assert_eq!(
        duals,
        vec![
            (K::Character, true),
            (K::Dialogue, true),
            (K::Character, true),
            (K::Parenthetical, true),
            (K::Dialogue, true),
            (K::Action, false),
        ]
    );
    assert_eq!(els[2].text, "STEEL");
}

#[test]
fn dual_caret_without_a_speech_before_is_a_warning() {
    let text = "Action.\n\nSTEEL ^\nHi.";
    let els = elements(text);
    assert!(els.iter().all(|e| !e.dual));
    assert_eq!(els[1].text, "STEEL");
    assert_eq!(warnings(text).len(), 1);
    assert_eq!(warnings(text)[0].0, 3);
}

#[test]
fn action_paragraphs_keep_indentation_and_never_go_empty() {
    assert_eq!(
        render("\n\nThis is a multi\n    line\n\n\n\taction.\n\n\n"),
        vec!["action This is a multi⏎    line", "action \taction."]
    );
    assert_eq!(
        render("!EXT. FORCED.\nBANG"),
        vec!["action EXT. FORCED.⏎BANG"]
    );
    assert_eq!(
        render("!BANG\n\n!MR. X\nHi"),
        vec!["action BANG", "action MR. X⏎Hi"]
    );
    assert!(render("").is_empty());
    assert!(render("\n\n   \n").is_empty());
}

#[test]
fn action_lines_carry_their_own_spans() {
    let els = elements("\nOne\nTwo\n\nThree");
    assert_eq!(els[0].lines, LineSpan::new(2, 3));
    assert_eq!(els[1].lines, LineSpan::line(5));
}

#[test]
fn transitions() {
    assert_eq!(
        render(
            "CUT TO:\n\nCUT TO:  \n\n> Burn to White.\n\n>fade to black\n\nText.\nSMASH CUT TO:"
        ),
        vec![
            "transition CUT TO:",
            "action CUT TO:  ",
            "transition Burn to White.",
            "transition fade to black",
            "action Text.⏎SMASH CUT TO:",
        ]
    );
}

#[test]
fn centered_lyrics_sections_synopses_page_breaks() {
    assert_eq!(
        render("> THE END <\n>Really<\n\n~Willy Wonka!\n~The amazing!\n\n# Act One\n## Seq 1\n= The first act.\n\n===\n\n=========="),
        vec![
            "centered THE END⏎Really",
            "lyric Willy Wonka!⏎The amazing!",
            "section Act One",
            "section Seq 1",
            "synopsis The first act.",
            "page_break ",
            "page_break ",
        ]
    );
    let els = elements("# A\n\n### C");
    assert_eq!(els[0].depth, Some(1));
    assert_eq!(els[1].depth, Some(3));
}

#[test]
fn lyrics_inside_a_speech() {
    assert_eq!(
        render("SINGER\n~These are the songs\n~That I sing."),
        vec!["character SINGER", "lyric These are the songs⏎That I sing."]
    );
}

#[test]
fn notes_follow_their_element_or_stand_alone() {
    let els = elements(
        "A line.\n\n[[A note.]]\n\n[[This spans\n  two lines.]]\n\nThis is an [[internal]] note.",
    );
    let got: Vec<(K, &str, LineSpan)> = els
        .iter()
        .map(|e| (e.kind, e.text.as_str(), e.lines))
        .collect();
    assert_eq!(
        got,
        vec![
            (K::Action, "A line.", LineSpan::line(1)),
            (K::Note, "A note.", LineSpan::line(3)),
            (K::Note, "This spans\ntwo lines.", LineSpan::new(5, 6)),
            (K::Action, "This is an note.", LineSpan::line(8)),
            (K::Note, "internal", LineSpan::line(8)),
        ]
    );
}

#[test]
fn notes_inside_speeches_and_headings() {
    assert_eq!(
        render("INT. ROOM - DAY [[fix]]\n\nBOB\nHi [[say it slower]] there.\n[[whole line]]\nBye."),
        vec![
            "scene_heading INT. ROOM - DAY",
            "note fix",
            "character BOB",
            "dialogue Hi there.⏎Bye.",
            "note say it slower",
            "note whole line",
        ]
    );
}

#[test]
fn unclosed_note_is_kept_as_text() {
    let text = "This is not [[\na note\n\nbecause ]]";
    assert_eq!(
        render(text),
        vec!["action This is not [[⏎a note", "action because ]]"]
    );
    assert_eq!(warnings(text).len(), 1);
}

#[test]
fn boneyard_is_removed_and_line_numbers_hold() {
    let els = elements("One.\n/*\nnope\n\nnope\n*/\nTwo.\n\n/* gone */\n\nBOB\nHi /* x */ there.");
    let got: Vec<(K, &str, LineSpan)> = els
        .iter()
        .map(|e| (e.kind, e.text.as_str(), e.lines))
        .collect();
    assert_eq!(
        got,
        vec![
            (K::Action, "One.\nTwo.", LineSpan::new(1, 7)),
            (K::Character, "BOB", LineSpan::line(11)),
            (K::Dialogue, "Hi there.", LineSpan::line(12)),
        ]
    );
}

#[test]
fn boneyard_before_a_heading_leaves_it_at_the_start() {
    assert_eq!(
        render("/*\nnope nope\n*/\nEXT. MANSION\n\nThe mansion."),
        vec!["scene_heading EXT. MANSION", "action The mansion."]
    );
}

#[test]
fn unclosed_boneyard_is_kept_as_text() {
    let text = "Action.\n\n/* never closed\n\nMore.";
    assert_eq!(
        render(text),
        vec!["action Action.", "action /* never closed", "action More."]
    );
    assert_eq!(
        warnings(text),
        vec![(
            3,
            "boneyard `/*` is never closed with `*/`; kept as text".to_string()
        )]
    );
}

#[test]
fn emphasis_and_escapes_are_kept_as_written() {
    assert_eq!(
        render("What the f\\*ck! **Bold** _under_ *it*."),
        vec!["action What the f\\*ck! **Bold** _under_ *it*."]
    );
}

#[test]
fn crlf_and_bom_are_harmless() {
    assert_eq!(
        render("\u{feff}INT. HOUSE - DAY\r\n\r\nBOB\r\nHi.\r\n"),
        vec![
            "scene_heading INT. HOUSE - DAY",
            "character BOB",
            "dialogue Hi."
        ]
    );
}

#[test]
fn cyrillic_and_japanese() {
    assert_eq!(
        render("ИНТ. КВАРТИРА – ДЕНЬ\n\nМАША\nСит хабео.\n(солута)\nЕтиам."),
        vec![
            "scene_heading ИНТ. КВАРТИРА – ДЕНЬ",
            "character МАША",
            "dialogue Сит хабео.",
            "parenthetical (солута)",
            "dialogue Етиам.",
        ]
    );
    assert_eq!(
        render("INT。 医院-天\n\n约翰（20）进入医院。\n\n约翰\n（丢失）\n这是什么地方？"),
        vec![
            "scene_heading INT。 医院-天",
            "action 约翰（20）进入医院。",
            "character 约翰",
            "parenthetical （丢失）",
            "dialogue 这是什么地方？",
        ]
    );
}

/// A small deterministic generator, so the test needs no dependency.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

#[test]
fn arbitrary_input_never_panics_and_spans_stay_in_range() {
    const PIECES: &[&str] = &[
        "\n", "\n\n", "  \n", "\r", "\u{feff}", "/*", "*/", "[[", "]]", "^", "@", "!", ".", "..",
        "~", ">", "<", "=", "===", "#", "##", "(", ")", "（", "）", "INT. ", "EXT ", "CUT TO:",
        "BOB", "Bob", "é", "日本", "\t", "#1A#", ":", "Title:", "  ", "x",
    ];
    let mut rng = Lcg(7);
    for _ in 0..3000 {
        let len = (rng.next() % 40) as usize;
        let text: String = (0..len)
            .map(|_| PIECES[(rng.next() as usize) % PIECES.len()])
            .collect();
        let total = text.split(['\n', '\r']).count().max(1);
        let r = read(&text);
        for e in &r.elements {
            assert!(
                e.lines.first >= 1 && e.lines.first <= e.lines.last,
                "{text:?}: {e:?}"
            );
            assert!(e.lines.last <= total + 1, "{text:?}: {e:?}");
            if e.kind == K::Action {
                assert!(!e.text.trim().is_empty(), "{text:?}: empty action");
            }
        }
    }
}

#[test]
fn pathological_inputs_finish() {
    for text in [
        "/*".repeat(50_000),
        "[[".repeat(50_000),
        "[[a]]".repeat(50_000),
        "(\n".repeat(50_000),
        "BOB\n(\n".repeat(20_000),
        "A ^\nx\n\n".repeat(20_000),
        "#".repeat(100_000),
        "\n".repeat(100_000),
    ] {
        let r = read(&text);
        assert!(r.elements.len() <= text.len());
    }
}

#[test]
fn wryly_followed_by_words_is_dialogue() {
    assert_eq!(
        render("BOB\n(softly) Come here.\n(beat)\nNow."),
        vec![
            "character BOB",
            "dialogue (softly) Come here.",
            "parenthetical (beat)",
            "dialogue Now."
        ]
    );
}
