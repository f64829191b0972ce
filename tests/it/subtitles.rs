//! Subtitle reading end to end: the sample film against its gold file, the
//! same cues in every encoding, a WebVTT file with every feature, and files
//! that are not usable subtitles.

use crate::common;

use std::path::Path;

use moviegraph::media::subtitles::{
    self, normalize_for_matching, Cue, SubtitleError, SubtitleFormat, Subtitles, Turn,
};
use moviegraph::screenplay::{LineSpan, Severity};
use serde_json::Value;

fn sample_gold() -> Value {
    let path = common::root().join("screenplays/the-second-key/alignment_gold.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn turn_texts(c: &Cue) -> Vec<&str> {
    c.turns.iter().map(|t| t.text.as_str()).collect()
}

#[test]
fn sample_film_matches_its_gold_cue_list() {
    let path = common::root().join("screenplays/the-second-key/subtitles.srt");
    let subs = subtitles::parse_file(&path, None).unwrap();
    assert_eq!(subs.format, SubtitleFormat::Srt);
    assert_eq!(subs.encoding, "UTF-8");
    assert!(subs.diagnostics.is_empty(), "{:?}", subs.diagnostics);

    let gold = sample_gold();
    let gold_cues = gold["cues"].as_array().unwrap();
    assert_eq!(gold_cues.len(), 106);
    assert_eq!(subs.cues.len(), gold_cues.len());
    for (cue, g) in subs.cues.iter().zip(gold_cues) {
        let n = g["index"].as_u64().unwrap();
        assert_eq!(cue.index as u64, n);
        assert_eq!(cue.id.as_deref(), Some(n.to_string().as_str()));
        assert_eq!(cue.start_ms, g["start_ms"].as_u64().unwrap(), "cue {n}");
        assert_eq!(cue.end_ms, g["end_ms"].as_u64().unwrap(), "cue {n}");
        // The gold keeps the text as written, markup and all.
        assert_eq!(cue.raw, g["text"].as_str().unwrap(), "cue {n}");
        assert!(!cue.text.contains('<'), "cue {n}: {}", cue.text);
        let norm = normalize_for_matching(&cue.text);
        assert!(!norm.text.is_empty() && !norm.sound_only, "cue {n}");
    }

    let first = &subs.cues[0];
    assert_eq!(first.text, "You old liar.");
    assert_eq!(first.lines, LineSpan::new(1, 3));
    assert_eq!(
        (subs.cues[1].start_ms, subs.cues[1].end_ms),
        (16_679, 20_627)
    );
    assert_eq!(
        subs.cues[1].text,
        "Who's aboard?\nI've got a torch and a bad temper."
    );
    assert_eq!(
        turn_texts(&subs.cues[1]),
        ["Who's aboard? I've got a torch and a bad temper."]
    );
    // Phone lines are in italics in the file, plain in the text.
    let phone = &subs.cues[17];
    assert_eq!(
        phone.raw,
        "<i>No, you weren't.\nMen in your position never are.</i>"
    );
    assert_eq!(
        phone.text,
        "No, you weren't.\nMen in your position never are."
    );
    // The six speaker-dash cues (the dual-dialogue pair among them) split in two turns.
    let dashed: Vec<usize> = subs
        .cues
        .iter()
        .filter(|c| c.turns.len() > 1)
        .map(|c| c.index)
        .collect();
    assert_eq!(dashed, [26, 29, 44, 59, 79, 99]);
    assert_eq!(
        turn_texts(&subs.cues[28]),
        ["How much?", "Eight. Maybe ten."]
    );
    let last = subs.cues.last().unwrap();
    assert_eq!(
        (last.index, last.start_ms, last.end_ms, last.text.as_str()),
        (106, 634_482, 635_767, "Nothing to report.")
    );
    assert!(last.lines.last <= 478);
}

/// A small SRT with non-ASCII text, for the encoding round trips.
const SMALL_SRT: &str = "1\n00:00:01,000 --> 00:00:02,500\nCafé crème, £3.\n\n2\n00:00:03,000 --> 00:00:04,000\n- “Où?”\n- Là‑bas… naïve!\n";

#[test]
fn every_encoding_gives_the_same_cues() {
    let want = subtitles::parse_text(SMALL_SRT, None, None).unwrap();
    assert_eq!(want.cues.len(), 2);
    assert_eq!(turn_texts(&want.cues[1]), ["“Où?”", "Là‑bas… naïve!"]);

    let crlf = SMALL_SRT.replace('\n', "\r\n");
    let mut utf8_bom_crlf = b"\xEF\xBB\xBF".to_vec();
    utf8_bom_crlf.extend(crlf.as_bytes());
    let mut utf16le_bom = vec![0xFF, 0xFE];
    utf16le_bom.extend(SMALL_SRT.encode_utf16().flat_map(u16::to_le_bytes));
    let utf16be: Vec<u8> = crlf.encode_utf16().flat_map(u16::to_be_bytes).collect();
    // Windows-1252 has every character but the non-breaking hyphen.
    let latin = SMALL_SRT.replace('\u{2011}', "-");
    let (cp1252, _, unmappable) = encoding_rs::WINDOWS_1252.encode(&latin);
    assert!(!unmappable);
    let want_latin = subtitles::parse_text(&latin, None, None).unwrap();

    let cases: [(&[u8], &str, &Subtitles); 5] = [
        (SMALL_SRT.as_bytes(), "UTF-8", &want),
        (&utf8_bom_crlf, "UTF-8", &want),
        (&utf16le_bom, "UTF-16LE", &want),
        (&utf16be, "UTF-16BE", &want),
        (&cp1252, "Windows-1252", &want_latin),
    ];
    for (bytes, encoding, expected) in cases {
        let got = subtitles::parse_bytes(bytes, None, Path::new("small.srt")).unwrap();
        assert_eq!(got.encoding, encoding);
        assert_eq!(got.cues, expected.cues, "{encoding}");
        assert!(
            got.diagnostics.is_empty(),
            "{encoding}: {:?}",
            got.diagnostics
        );
    }
}

#[test]
fn webvtt_with_every_feature() {
    let vtt = "\u{feff}WEBVTT - The Second Key, test track
Kind: captions
Language: en

NOTE
This file uses every feature the reader knows.
-- a note may hold anything but an arrow

STYLE
::cue(.yellow) { color: yellow; }

REGION
id:fred
width:40%

intro
00:01.000 --> 00:04.000 align:start position:10% line:0
<v.loud Mara>Where's the <c.yellow.bg_blue>key</c>?</v>
<v Quinton>I <i>threw</i> it in the <b>harbour</b>.

NOTE between cues

00:00:05.000 --> 00:00:07.500
<v Teo>Ahoy <00:00:06.000>there &amp; <u>good</u>&nbsp;night,
<lang fr>mon ami</lang>.</v>

3
00:00:08.000 --> 00:00:09.000 vertical:rl
- [DOOR SLAMS]
- <ruby>鍵<rt>かぎ</rt></ruby> &lt;gone&gt;

01:00:00.000 --> 01:00:01.000
Past the hour: &#x2014; &#8230;
";
    let subs = subtitles::parse_bytes(vtt.as_bytes(), None, Path::new("track.vtt")).unwrap();
    assert_eq!(subs.format, SubtitleFormat::WebVtt);
    assert!(subs.diagnostics.is_empty(), "{:?}", subs.diagnostics);
    let summary: Vec<(Option<&str>, u64, u64, &str)> = subs
        .cues
        .iter()
        .map(|c| (c.id.as_deref(), c.start_ms, c.end_ms, c.text.as_str()))
        .collect();
    assert_eq!(
        summary,
        [
            (
                Some("intro"),
                1000,
                4000,
                "Where's the key?\nI threw it in the harbour."
            ),
            (None, 5000, 7500, "Ahoy there & good\u{a0}night,\nmon ami."),
            (Some("3"), 8000, 9000, "- [DOOR SLAMS]\n- 鍵 <gone>"),
            (None, 3_600_000, 3_601_000, "Past the hour: — …"),
        ]
    );
    let c = &subs.cues[0];
    assert_eq!(
        c.settings.as_deref(),
        Some("align:start position:10% line:0")
    );
    assert_eq!(c.lines, LineSpan::new(16, 19));
    assert_eq!(
        c.turns,
        [
            Turn {
                speaker: Some("Mara".into()),
                text: "Where's the key?".into()
            },
            Turn {
                speaker: Some("Quinton".into()),
                text: "I threw it in the harbour.".into()
            },
        ]
    );
    assert_eq!(
        subs.cues[1].turns,
        [Turn {
            speaker: Some("Teo".into()),
            text: "Ahoy there & good night, mon ami.".into()
        }]
    );
    assert_eq!(turn_texts(&subs.cues[2]), ["[DOOR SLAMS]", "鍵 <gone>"]);
    let sound = normalize_for_matching(&subs.cues[2].turns[0].text);
    assert!(sound.sound_only);
    assert_eq!(subs.cues[2].settings.as_deref(), Some("vertical:rl"));
    assert_eq!(subs.cues[3].index, 4);
}

#[test]
fn malformed_files_are_diagnosed_by_line() {
    let srt = "Ripped by somebody

1
00:00:01,000 --> 00:00:02,000
Fine.

3
00:00:02.5 --> 00:00:01,000
Backwards.

2
00:00:03,000 -> 00:00:04,000

00:00:05,000 --> 00:00:06,000
No number, and then

a blank line inside.

4
No timing at all.
";
    let subs = subtitles::parse_text(srt, None, None).unwrap();
    let got: Vec<(usize, Severity, &str)> = subs
        .diagnostics
        .iter()
        .map(|d| (d.line, d.severity, d.message.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (1, Severity::Warning, "1 line of text before the first cue ignored"),
            (8, Severity::Info, "time with fewer than three fraction digits read as milliseconds (`,5` is 5 ms), as players do"),
            (8, Severity::Warning, "cue 3 ends (00:00:01.000) before it starts (00:00:02.005); skipped"),
            // `->` is no arrow, so block 2 has no timing line.
            (11, Severity::Warning, "block `2` has no timing line; skipped (2 lines)"),
            (14, Severity::Info, "cue has no number"),
            (16, Severity::Info, "blank line inside the text of cue; kept as one cue"),
            (19, Severity::Warning, "block `4` has no timing line; skipped (2 lines)"),
        ]
    );
    let texts: Vec<&str> = subs.cues.iter().map(|c| c.text.as_str()).collect();
    assert_eq!(
        texts,
        ["Fine.", "No number, and then\na blank line inside."]
    );
    assert_eq!(subs.cues[0].lines, LineSpan::new(3, 5));
    assert_eq!(subs.cues[1].lines, LineSpan::new(14, 17));
}

#[test]
fn unusable_files_are_errors_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    };
    let shown = |p: &Path| p.display().to_string();

    let p = write("empty.srt", b"\xEF\xBB\xBF\r\n");
    let e = subtitles::parse_file(&p, None).unwrap_err();
    assert_eq!(e.to_string(), format!("{}: the file is empty", shown(&p)));

    let p = write("image.srt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR");
    let e = subtitles::parse_file(&p, None).unwrap_err();
    assert!(matches!(e, SubtitleError::Binary { line: 2, .. }), "{e}");

    let p = write("notes.vtt", b"WEBVTT\n\nNOTE only a note\n");
    let e = subtitles::parse_file(&p, None).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "{}:1: no usable webvtt cue in the file: no cue timing (`00:00:01,000 --> 00:00:02,000`) found",
            shown(&p)
        )
    );

    let p = write("bad.srt", b"1\n00:00:01,000 --> 00:00:02\xFF\n");
    let e = subtitles::parse_file(&p, None).unwrap_err();
    match &e {
        SubtitleError::NothingUsable {
            line, diagnostics, ..
        } => {
            assert_eq!(*line, 2);
            assert_eq!(diagnostics.len(), 1);
        }
        other => panic!("{other}"),
    }
    assert!(
        e.to_string().starts_with(&format!("{}:2: ", shown(&p))),
        "{e}"
    );

    let missing = dir.path().join("missing.srt");
    let e = subtitles::parse_file(&missing, None).unwrap_err();
    assert!(matches!(e, SubtitleError::Io { .. }), "{e}");
    assert!(e.to_string().starts_with(&shown(&missing)));
    let e = subtitles::parse_file(dir.path(), None).unwrap_err();
    assert!(e.to_string().contains("is a directory"), "{e}");
}

#[test]
fn result_serializes_for_later_stages() {
    let subs = subtitles::parse_text(SMALL_SRT, None, Some(Path::new("small.srt"))).unwrap();
    let json = serde_json::to_value(&subs).unwrap();
    assert_eq!(json["format"], "srt");
    assert_eq!(json["cues"][0]["lines"], serde_json::json!([1, 3]));
    assert_eq!(
        json["cues"][1]["turns"][0],
        serde_json::json!({"text": "“Où?”"})
    );
    let back: Subtitles = serde_json::from_value(json).unwrap();
    assert_eq!(back, subs);
}
