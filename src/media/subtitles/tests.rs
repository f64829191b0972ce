//! Unit tests of the subtitle readers, the markup cleaner and the matching form.

use super::markup::{strip_markup, Markup};
use super::timing::{parse_timestamp, parse_timing};
use super::*;

fn srt(text: &str) -> Subtitles {
    read(text, SubtitleFormat::Srt)
}

fn vtt(text: &str) -> Subtitles {
    read(text, SubtitleFormat::WebVtt)
}

fn texts(s: &Subtitles) -> Vec<&str> {
    s.cues.iter().map(|c| c.text.as_str()).collect()
}

fn diags(s: &Subtitles) -> Vec<(usize, &str)> {
    s.diagnostics
        .iter()
        .map(|d| (d.line, d.message.as_str()))
        .collect()
}

#[test]
fn timestamps_in_every_spelling() {
    fn ok(s: &str) -> Result<(u64, &str), String> {
        parse_timestamp(s).map(|(ms, rest, _)| (ms, rest))
    }
    assert_eq!(ok("00:00:14,898"), Ok((14_898, "")));
    assert_eq!(ok("01:02:03.004"), Ok((3_723_004, "")));
    assert_eq!(ok("02:03.004"), Ok((123_004, "")), "hours omitted");
    assert_eq!(ok("1:02:03,5"), Ok((3_723_005, "")), "short fraction is ms");
    assert_eq!(ok("100:00:00.000"), Ok((360_000_000, "")), "long hours");
    assert_eq!(ok("00:00:01"), Ok((1000, "")), "no fraction");
    assert_eq!(ok("00:00:01,000 X1:1"), Ok((1000, " X1:1")));
    assert!(ok("00:60:00,000").is_err());
    assert!(ok("00:00:01,0000").is_err());
    assert!(ok("00:00:01,").is_err());
    assert!(ok("5").is_err());
    assert!(ok("99999999999:00:00,000").is_err());
}

#[test]
fn timing_lines_with_spaces_settings_and_coordinates() {
    let t = parse_timing("00:00:01,000  -->   00:00:02,500").unwrap();
    assert_eq!((t.start, t.end, t.settings.as_str()), (1000, 2500, ""));
    let t = parse_timing("00:00:01,000-->00:00:02,500\tX1:40 X2:600 Y1:20 Y2:50").unwrap();
    assert_eq!(t.settings, "X1:40 X2:600 Y1:20 Y2:50");
    let t = parse_timing("00:01.000 --> 00:02.000 align:start position:10%").unwrap();
    assert_eq!((t.start, t.end), (1000, 2000));
    assert_eq!(t.settings, "align:start position:10%");
    assert!(parse_timing("00:00:01,000 --> 00:00:02,000x").is_err());
    assert!(parse_timing("00:00:01,000 00:00:02,000 -->").is_err());
}

#[test]
fn srt_basic_blocks_and_lines() {
    let s = srt("1\n00:00:01,000 --> 00:00:02,000\nHello.\nSecond line.\n\n2\n00:00:03,000 --> 00:00:04,000\nBye.\n");
    assert_eq!(texts(&s), ["Hello.\nSecond line.", "Bye."]);
    let c = &s.cues[1];
    assert_eq!(
        (c.index, c.id.as_deref(), c.start_ms, c.end_ms),
        (2, Some("2"), 3000, 4000)
    );
    assert_eq!(s.cues[0].lines, LineSpan::new(1, 4));
    assert_eq!(c.lines, LineSpan::new(6, 8));
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
}

#[test]
fn srt_blank_lines_inside_text_keep_the_cue_together() {
    let s = srt("1\n00:00:01,000 --> 00:00:02,000\nOne.\n\nStill one.\n\n2\n00:00:03,000 --> 00:00:04,000\nTwo.\n");
    assert_eq!(texts(&s), ["One.\nStill one.", "Two."]);
    assert_eq!(s.cues[0].raw, "One.\n\nStill one.");
    assert_eq!(s.cues[0].lines, LineSpan::new(1, 5));
    assert_eq!(
        diags(&s),
        [(4, "blank line inside the text of cue 1; kept as one cue")]
    );
}

#[test]
fn srt_missing_numbers_and_missing_blank_lines() {
    let s = srt("00:00:01,000 --> 00:00:02,000\nNo number.\n2\n00:00:03,000 --> 00:00:04,000\nNo blank before.\n00:00:05,000 --> 00:00:06,000\nBare timing.\n");
    assert_eq!(
        texts(&s),
        ["No number.", "No blank before.", "Bare timing."]
    );
    assert_eq!(s.cues[0].id, None);
    assert_eq!(s.cues[1].id.as_deref(), Some("2"));
    assert_eq!(
        diags(&s),
        [(1, "cue has no number"), (6, "cue has no number")]
    );
}

#[test]
fn srt_numbers_out_of_order_are_kept_in_file_order() {
    let s = srt("2\n00:00:03,000 --> 00:00:04,000\nB\n\n1\n00:00:01,000 --> 00:00:02,000\nA\n\n1\n00:00:05,000 --> 00:00:06,000\nC\n");
    assert_eq!(texts(&s), ["B", "A", "C"]);
    assert_eq!(
        s.cues.iter().map(|c| c.index).collect::<Vec<_>>(),
        [1, 2, 3]
    );
    assert_eq!(
        diags(&s),
        [
            (5, "cue number 1 comes after 2: out of order (kept, in file order)"),
            (6, "cue 1 starts (00:00:01.000) before the cue before it (00:00:03.000); kept in file order"),
            (9, "cue number 1 repeats the one before (kept, in file order)"),
        ]
    );
}

#[test]
fn srt_end_before_start_is_skipped() {
    let s = srt(
        "1\n00:00:05,000 --> 00:00:04,000\nBackwards.\n\n2\n00:00:06,000 --> 00:00:07,000\nFine.\n",
    );
    assert_eq!(texts(&s), ["Fine."]);
    assert_eq!(s.cues[0].index, 1);
    assert_eq!(
        diags(&s),
        [(
            2,
            "cue 1 ends (00:00:04.000) before it starts (00:00:05.000); skipped"
        )]
    );
}

#[test]
fn srt_overlapping_cues_are_kept() {
    let s = srt("1\n00:00:01,000 --> 00:00:05,000\nA\n\n2\n00:00:02,000 --> 00:00:03,000\nB\n");
    assert_eq!(texts(&s), ["A", "B"]);
    assert!(s.diagnostics.is_empty());
}

#[test]
fn srt_malformed_timing_and_missing_timing() {
    let s = srt("1\n00:00:01,000 --> 00:00:xx,000\nLost.\n\n2\n00:00:02,000 --> 00:00:03,000\nKept.\n\n3\nNo timing here.\n\n4\n00:00:04,000 --> 00:00:05,000\nAlso kept.\n");
    assert_eq!(texts(&s), ["Kept.", "Also kept."]);
    assert_eq!(
        diags(&s),
        [
            (2, "malformed timing line (end time `00:00:xx,000`: not a time of the form `HH:MM:SS,mmm`); cue skipped"),
            (9, "block `3` has no timing line; skipped (2 lines)"),
        ]
    );
}

#[test]
fn srt_text_before_first_cue_and_empty_cues() {
    let s = srt("Subtitles by nobody\nreally\n\n1\n00:00:01,000 --> 00:00:02,000\n\n2\n00:00:03,000 --> 00:00:04,000\n{\\an8}<i></i>\n\n3\n00:00:05,000 --> 00:00:06,000\nText\n");
    assert_eq!(texts(&s), ["Text"]);
    assert_eq!(
        diags(&s),
        [
            (1, "2 lines of text before the first cue ignored"),
            (5, "cue 1 has no text; skipped"),
            (8, "cue 2 has only markup, no text; skipped"),
        ]
    );
}

#[test]
fn srt_short_fractions_are_noted_once() {
    let s = srt("1\n0:0:1,5 --> 0:0:2,25\nA\n\n2\n00:00:03.5 --> 00:00:04.000\nB\n");
    assert_eq!((s.cues[0].start_ms, s.cues[0].end_ms), (1005, 2025));
    assert_eq!(s.cues[1].start_ms, 3005);
    assert_eq!(s.diagnostics.len(), 1);
    assert_eq!(s.diagnostics[0].line, 2);
}

#[test]
fn srt_styling_tags_and_ass_overrides_are_stripped() {
    let s = srt("1\n00:00:01,000 --> 00:00:02,000 X1:10 X2:20 Y1:30 Y2:40\n{\\an8}<i>Up <b>here</b></i>,\n<font color=\"#ffff00\">in <u>yellow</u></font>{\\i1}!{\\i0}\n");
    let c = &s.cues[0];
    assert_eq!(c.text, "Up here,\nin yellow!");
    assert_eq!(c.raw, "{\\an8}<i>Up <b>here</b></i>,\n<font color=\"#ffff00\">in <u>yellow</u></font>{\\i1}!{\\i0}");
    assert_eq!(c.settings.as_deref(), Some("X1:10 X2:20 Y1:30 Y2:40"));
    assert_eq!(
        c.turns,
        [Turn {
            speaker: None,
            text: "Up here, in yellow!".into()
        }]
    );
}

#[test]
fn unknown_tags_and_lone_brackets_stay() {
    let mut v = Markup::default();
    let one = |s: &str, v: &mut Markup| -> String {
        strip_markup(s, v).into_iter().map(|p| p.1).collect()
    };
    assert_eq!(one("I <3 you > me", &mut v), "I <3 you > me");
    assert_eq!(one("a <blink>b</blink>", &mut v), "a <blink>b</blink>");
    assert_eq!(one("x < <i>y</i>", &mut v), "x < y");
    assert_eq!(
        one("{not an override} {\\unclosed", &mut v),
        "{not an override} {\\unclosed"
    );
    assert_eq!(one("<00:01.500>ka<00:02.000>ra", &mut v), "kara");
    assert_eq!(one("<ruby>港<rt>みなと</rt></ruby>!", &mut v), "港!");
}

#[test]
fn entities_are_decoded() {
    let s = srt("1\n00:00:01,000 --> 00:00:02,000\nFish &amp; chips &lt;i&gt; &quot;x&quot; &#39;y&#39; a&nbsp;b &#x263A; &#233; &bogus; & &#0;\n");
    assert_eq!(
        s.cues[0].text,
        "Fish & chips <i> \"x\" 'y' a\u{a0}b ☺ é &bogus; & &#0;"
    );
}

#[test]
fn speaker_dashes_make_turns() {
    let s = srt("1\n00:00:01,000 --> 00:00:02,000\n- Where?\n- Here.\n\n2\n00:00:03,000 --> 00:00:04,000\nFirst speaker, no dash,\nsecond line.\n-Second speaker.\n\n3\n00:00:05,000 --> 00:00:06,000\n<i>- On the phone.</i>\n– Beside him.\n\n4\n00:00:07,000 --> 00:00:08,000\n-5 degrees\n--and falling\n");
    let turns: Vec<Vec<&str>> = s
        .cues
        .iter()
        .map(|c| c.turns.iter().map(|t| t.text.as_str()).collect())
        .collect();
    assert_eq!(
        turns,
        [
            vec!["Where?", "Here."],
            vec!["First speaker, no dash, second line.", "Second speaker."],
            vec!["On the phone.", "Beside him."],
            vec!["-5 degrees --and falling"],
        ]
    );
    assert_eq!(
        s.cues[0].text, "- Where?\n- Here.",
        "dashes stay in the display text"
    );
}

/// Found by the srt fuzz target: a cue whose only text is a dash had
/// display text but no turn.
#[test]
fn a_lone_dash_is_text_not_a_speaker_dash() {
    let s = srt(
        "1\n00:00:01,000 --> 00:00:02,000\n-\n\n2\n00:00:03,000 --> 00:00:04,000\n- Yes.\n-   \n",
    );
    assert_eq!(texts(&s), ["-", "- Yes.\n-"]);
    assert_eq!(
        s.cues[0].turns,
        [Turn {
            speaker: None,
            text: "-".into()
        }]
    );
    assert_eq!(
        s.cues[1].turns,
        [Turn {
            speaker: None,
            text: "Yes. -".into()
        }]
    );
}

#[test]
fn ass_line_breaks_split_display_lines() {
    let s = srt("1\n00:00:01,000 --> 00:00:02,000\n- One\\N- Two\n");
    assert_eq!(s.cues[0].text, "- One\n- Two");
    assert_eq!(s.cues[0].turns.len(), 2);
}

#[test]
fn vtt_header_blocks_ids_settings() {
    let s = vtt("WEBVTT - a test\nKind: captions\n\nNOTE a comment\nover two lines\n\nSTYLE\n::cue { color: red }\n\nREGION\nid:top\n\nintro\n00:01.000 --> 00:02.000 align:start position:10%\n<v Mara>Hello</v>\n\n00:00:03.000 --> 00:00:04.000\nNo id.\n");
    assert_eq!(texts(&s).last(), Some(&"No id."));
    let intro = s
        .cues
        .iter()
        .find(|c| c.id.as_deref() == Some("intro"))
        .unwrap();
    assert_eq!((intro.start_ms, intro.end_ms), (1000, 2000));
    assert_eq!(intro.settings.as_deref(), Some("align:start position:10%"));
    assert_eq!(
        intro.turns,
        [Turn {
            speaker: Some("Mara".into()),
            text: "Hello".into()
        }]
    );
}

#[test]
fn vtt_note_line_with_timing_is_a_cue_per_spec() {
    // A timing on a block's second line makes the first an identifier,
    // even `NOTE …`; the spec forbids `-->` in notes for this reason.
    let s = vtt("WEBVTT\n\nNOTE x\n00:01.000 --> 00:02.000\nText\n");
    assert_eq!(s.cues[0].id.as_deref(), Some("NOTE x"));
}

#[test]
fn vtt_voices_classes_and_timestamps() {
    let s = vtt("WEBVTT\n\n1\n00:00:01.000 --> 00:00:04.000\n<v.loud Mara Ellis><c.yellow>Where</c> is it?</v>\n<v Quinton>I <i>don't</i> know.\n\n2\n00:00:05.000 --> 00:00:06.000\n<v Teo>Ahoy <00:05.500>there,\nboat.\n\n3\n00:00:07.000 --> 00:00:08.000\n<v A>Hi.</v> <v B>Hello.</v>\n");
    assert_eq!(s.cues[0].text, "Where is it?\nI don't know.");
    let turns = |c: &Cue| -> Vec<(Option<String>, String)> {
        c.turns
            .iter()
            .map(|t| (t.speaker.clone(), t.text.clone()))
            .collect()
    };
    assert_eq!(
        turns(&s.cues[0]),
        [
            (Some("Mara Ellis".to_string()), "Where is it?".to_string()),
            (Some("Quinton".to_string()), "I don't know.".to_string())
        ]
    );
    assert_eq!(
        turns(&s.cues[1]),
        [(Some("Teo".to_string()), "Ahoy there, boat.".to_string())]
    );
    assert_eq!(
        turns(&s.cues[2]),
        [
            (Some("A".to_string()), "Hi.".to_string()),
            (Some("B".to_string()), "Hello.".to_string())
        ]
    );
}

#[test]
fn vtt_blank_line_ends_a_cue_and_junk_is_reported() {
    let s = vtt("WEBVTT\n\n00:01.000 --> 00:02.000\nOne.\n\nOrphan text.\n\na\nb\n00:03.000 --> 00:04.000\nTwo.\n00:05.000 --> 00:06.000\nThree.\n");
    assert_eq!(texts(&s), ["One.", "Two.", "Three."]);
    assert_eq!(
        diags(&s),
        [
            (6, "line without a cue timing; skipped"),
            (8, "lines without a cue timing; skipped")
        ]
    );
}

#[test]
fn vtt_without_header_still_reads() {
    let s = vtt("00:01.000 --> 00:02.000\nHi.\n");
    assert_eq!(texts(&s), ["Hi."]);
    assert_eq!(
        diags(&s),
        [(1, "no `WEBVTT` header; reading the cues anyway")]
    );
}

#[test]
fn detection_by_content_then_extension() {
    let p = |s: &str| Some(Path::new(s).to_owned());
    assert_eq!(
        SubtitleFormat::detect(p("a.srt").as_deref(), "\u{feff}WEBVTT\n"),
        SubtitleFormat::WebVtt
    );
    assert_eq!(
        SubtitleFormat::detect(None, "WEBVTT\tx\n"),
        SubtitleFormat::WebVtt
    );
    assert_eq!(
        SubtitleFormat::detect(None, "WEBVTTX\n"),
        SubtitleFormat::Srt
    );
    assert_eq!(
        SubtitleFormat::detect(p("a.VTT").as_deref(), "1\n"),
        SubtitleFormat::WebVtt
    );
    assert_eq!(
        SubtitleFormat::detect(p("a.txt").as_deref(), "1\n"),
        SubtitleFormat::Srt
    );
    assert_eq!("vtt".parse::<SubtitleFormat>(), Ok(SubtitleFormat::WebVtt));
}

#[test]
fn nothing_usable_is_an_error_naming_the_line() {
    let e = parse_text(
        "1\n00:00:02,000 --> 00:00:01,000\nX\n",
        None,
        Some(Path::new("f.srt")),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "f.srt:2: no usable srt cue in the file: cue 1 ends (00:00:01.000) before it starts (00:00:02.000); skipped"
    );
    let e = parse_text("just some words\n", None, Some(Path::new("f.srt"))).unwrap_err();
    assert!(
        matches!(e, SubtitleError::NothingUsable { line: 1, .. }),
        "{e}"
    );
    let e = parse_text("WEBVTT\n", None, None).unwrap_err();
    assert_eq!(e.to_string(), "<input>:1: no usable webvtt cue in the file: no cue timing (`00:00:01,000 --> 00:00:02,000`) found");
    assert!(matches!(
        parse_text(" \n\n", None, None),
        Err(SubtitleError::Empty { .. })
    ));
    assert!(matches!(
        parse_bytes(b"1\n\x00\x01\x02", None, Path::new("b.srt")),
        Err(SubtitleError::Binary { line: 2, .. })
    ));
}

#[test]
fn crlf_lone_cr_and_bom_count_lines_the_same() {
    let lf = "1\n00:00:01,000 --> 00:00:02,000\nA\n\n2\n00:00:03,000 --> 00:00:04,000\nB\n";
    let want = srt(lf);
    assert_eq!(srt(&format!("\u{feff}{}", lf.replace('\n', "\r\n"))), want);
    assert_eq!(srt(&lf.replace('\n', "\r")), want);
}

#[test]
fn pathological_markup_is_linear() {
    // Quadratic scanning would take minutes on these; linear is instant.
    for unit in ["<", "<i", "{\\", "{\\{", "&#", "&amp", "-->", "0-->"] {
        let line = unit.repeat(200_000);
        let text = format!("1\n00:00:01,000 --> 00:00:02,000\n{line}\n");
        let s = srt(&text);
        assert!(s.cues.len() <= 1);
        let _ = normalize_for_matching(&line);
    }
    let many = "[(".repeat(100_000) + &")]".repeat(100_000);
    assert_eq!(normalize_for_matching(&many).text, "");
}

#[test]
fn normalize_words_apostrophes_dashes_and_descriptions() {
    let n = normalize_for_matching(
        "- Who's aboard?\n- [DOOR SLAMS] I've got a torch (laughs)... ‘Tis Mara’s.",
    );
    assert_eq!(n.text, "who's aboard i've got a torch tis mara's");
    assert!(!n.sound_only);
    let n = normalize_for_matching("Sister-in-law! £11,000, payable\n  by the 31st.  ÉTÉ");
    assert_eq!(n.text, "sister in law 11 000 payable by the 31st été");
    let n = normalize_for_matching("[DOOR SLAMS]\n(laughs [softly])");
    assert_eq!((n.text.as_str(), n.sound_only), ("", true));
    assert!(normalize_for_matching("♪ ♪").sound_only);
    assert!(!normalize_for_matching("...").sound_only);
    assert_eq!(
        normalize_for_matching("(unclosed thought").text,
        "unclosed thought"
    );
    assert_eq!(
        normalize_for_matching("'quoted' rock'n'roll").text,
        "quoted rock'n'roll"
    );
}

#[test]
fn diagnostics_quote_at_most_forty_characters() {
    let junk = "9".repeat(100);
    let s = srt(&format!(
        "1\n00:00:01,000 --> {junk}\nX\n\n{junk}\n00:00:02,000 --> 00:00:01,000\nY\n"
    ));
    assert!(s.cues.is_empty());
    let short = format!("{}…", &junk[..40]);
    assert_eq!(
        diags(&s),
        [
            (2, format!("malformed timing line (end time `{short}`: expected minutes and seconds (`MM:SS.mmm`)); cue skipped").as_str()),
            (6, format!("cue {short} ends (00:00:01.000) before it starts (00:00:02.000); skipped").as_str()),
        ]
    );
}

#[test]
fn format_ms_pads() {
    assert_eq!(format_ms(0), "00:00:00.000");
    assert_eq!(format_ms(3_723_004), "01:02:03.004");
    assert_eq!(format_ms(360_000_000), "100:00:00.000");
}
