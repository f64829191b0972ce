//! `moviegraph shots` on videos made by ffmpeg: cuts found where they are,
//! MovieNet's layout written and read back by the aligner, subtitles taken
//! out of the file, and clear errors for files that are not films.

use std::path::Path;

use crate::common::video::{ffmpeg, have_ffmpeg, srt, three_shots};
use crate::common::{moviegraph_in, said};

/// Whether TransNetV2's weights are installed where moviegraph looks (a
/// printed reason when not: its cases are skipped).
fn transnet_installed() -> bool {
    let dir = moviegraph::workspace::shots::transnet_dir();
    let there = dir
        .as_deref()
        .and_then(moviegraph::media::video::transnet::weights_in)
        .is_some();
    if !there {
        eprintln!("transnet cases skipped: no TransNetV2 weights (scripts/setup-models --only transnetv2)");
    }
    there
}

fn shots(dir: &Path, args: &[&str]) -> (bool, String) {
    let mut all = vec!["shots"];
    all.extend_from_slice(args);
    let out = moviegraph_in(dir, &all);
    (out.status.success(), said(&out))
}

#[test]
fn cuts_become_movienets_layout_which_the_aligner_reads() {
    if !have_ffmpeg() {
        return;
    }
    let ws = tempfile::tempdir().unwrap();
    let film = ws.path().join("cuts");
    std::fs::create_dir_all(&film).unwrap();
    three_shots(&film.join("film.mp4"), &[]);
    // What a run killed while writing leaves behind: never read, cleared.
    std::fs::create_dir_all(ws.path().join("cuts/.keyframes.partial/shot_txt")).unwrap();
    std::fs::write(
        ws.path().join("cuts/.keyframes.partial/shot_txt/cuts.txt"),
        "0 5 0 2 5\n",
    )
    .unwrap();
    let mut detectors = vec!["adaptive", "content", "robust"];
    if transnet_installed() {
        detectors.push("transnet");
    }
    let last = *detectors.last().unwrap();
    for detector in detectors {
        let (ok, text) = shots(
            ws.path(),
            &[
                "cuts/film.mp4",
                "--detector",
                detector,
                "--force",
                "--keyframe-width",
                "160",
            ],
        );
        assert!(ok, "{text}");
        assert!(
            text.contains(&format!("shots: 3 over 216 frames, detector {detector}")),
            "{text}"
        );
        let listed = std::fs::read_to_string(film.join("keyframes/shot_txt/cuts.txt")).unwrap();
        assert_eq!(
            listed, "0 71 0 35 71\n72 143 72 107 143\n144 215 144 179 215\n",
            "{detector}"
        );
    }
    for shot in 0..3 {
        for slot in 0..3 {
            let jpg = film.join(format!(
                "keyframes/shot_keyf/cuts/shot_{shot:04}_img_{slot}.jpg"
            ));
            let img = image::open(&jpg).unwrap();
            assert_eq!((img.width(), img.height()), (160, 90), "{}", jpg.display());
        }
    }
    let info: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(film.join("keyframes/video_info.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(info["fps"], "24/1");
    assert_eq!(info["frames"], 216);
    assert_eq!(info["duration_ms"], 9000);
    // The middle keyframe of the second shot is a colour-bar frame: the
    // extracted frame is the one the shot list names.
    let bars = image::open(film.join("keyframes/shot_keyf/cuts/shot_0001_img_1.jpg"))
        .unwrap()
        .to_rgb8();
    let top_left = bars.get_pixel(5, 5);
    assert!(
        top_left[0] > 150 && top_left[1] > 150 && top_left[2] > 150,
        "{top_left:?}"
    );

    // The aligner reads the layout as it reads MovieNet's.
    let list = moviegraph::media::shots::ShotList::load_movienet(
        &moviegraph::media::shots::MovieNetPaths::find(&film.join("keyframes"), None).unwrap(),
        None,
    )
    .unwrap();
    assert_eq!(list.shots.len(), 3);
    assert_eq!(list.frame_to_ms(72), 3000);

    assert!(!ws.path().join("cuts/.keyframes.partial").exists());
    // Again with the same settings: current, nothing decoded.
    let (ok, text) = shots(
        ws.path(),
        &[
            "cuts/film.mp4",
            "--detector",
            last,
            "--keyframe-width",
            "160",
        ],
    );
    assert!(
        ok && text.contains("shots: current (3 shots over 216 frames"),
        "{text}"
    );
}

#[test]
fn keyframes_moviegraph_did_not_make_are_kept_unless_forced() {
    if !have_ffmpeg() {
        return;
    }
    let ws = tempfile::tempdir().unwrap();
    let film = ws.path().join("f");
    std::fs::create_dir_all(film.join("keyframes/shot_txt")).unwrap();
    std::fs::write(film.join("keyframes/shot_txt/f.txt"), "0 9 1 5 8\n").unwrap();
    three_shots(&film.join("film.mkv"), &[]);
    let (ok, text) = shots(ws.path(), &["f/film.mkv"]);
    assert!(!ok, "{text}");
    assert!(
        text.contains(
            "f/keyframes: holds keyframes moviegraph did not make from this video; pass --force"
        ),
        "{text}"
    );
    assert_eq!(
        std::fs::read_to_string(film.join("keyframes/shot_txt/f.txt")).unwrap(),
        "0 9 1 5 8\n"
    );
    let (ok, text) = shots(ws.path(), &["f/film.mkv", "--force"]);
    assert!(ok, "{text}");
    assert!(
        std::fs::read_to_string(film.join("keyframes/shot_txt/f.txt"))
            .unwrap()
            .starts_with("0 71 ")
    );
    // A stopped run's leftovers are cleared, never read.
    assert!(!film.join(".keyframes.partial").exists() && !film.join(".keyframes.old").exists());
}

#[test]
fn the_english_text_track_is_taken_out_unless_another_language_is_asked() {
    if !have_ffmpeg() {
        return;
    }
    let ws = tempfile::tempdir().unwrap();
    let film = ws.path().join("subs");
    std::fs::create_dir_all(&film).unwrap();
    let plain = ws.path().join("plain.mp4");
    three_shots(&plain, &[]);
    srt(&ws.path().join("fr.srt"), "Bonjour.");
    srt(&ws.path().join("en.srt"), "Hello there.");
    let video = film.join("film.mkv");
    ffmpeg(&[
        "-i",
        plain.to_str().unwrap(),
        "-i",
        ws.path().join("fr.srt").to_str().unwrap(),
        "-i",
        ws.path().join("en.srt").to_str().unwrap(),
        "-map",
        "0",
        "-map",
        "1",
        "-map",
        "2",
        "-c:v",
        "copy",
        "-c:s",
        "srt",
        "-metadata:s:s:0",
        "language=fre",
        "-metadata:s:s:1",
        "language=eng",
        video.to_str().unwrap(),
    ]);
    let (ok, text) = shots(ws.path(), &["subs/film.mkv"]);
    assert!(ok, "{text}");
    assert!(
        text.contains("subtitles: subtitle track 1 (eng, subrip) written to subs/subtitles.srt"),
        "{text}"
    );
    let got = std::fs::read_to_string(film.join("subtitles.srt")).unwrap();
    assert!(
        got.contains("Hello there.") && got.contains("00:00:04,000 --> 00:00:05,000"),
        "{got}"
    );
    // Present subtitles are kept; a language is asked for on a fresh folder.
    let (ok, text) = shots(ws.path(), &["subs/film.mkv", "--subtitle-lang", "fre"]);
    assert!(ok && text.contains("(already there)"), "{text}");
    std::fs::remove_file(film.join("subtitles.srt")).unwrap();
    let (ok, text) = shots(ws.path(), &["subs/film.mkv", "--subtitle-lang", "fre"]);
    assert!(
        ok && text.contains("subtitle track 0 (fre, subrip)"),
        "{text}"
    );
    assert!(std::fs::read_to_string(film.join("subtitles.srt"))
        .unwrap()
        .contains("Bonjour."));
    std::fs::remove_file(film.join("subtitles.srt")).unwrap();
    let (ok, text) = shots(ws.path(), &["subs/film.mkv", "--subtitle-lang", "spa"]);
    assert!(ok, "{text}");
    assert!(text.contains("subtitles: none taken out: subs/film.mkv: no text subtitle track in `spa`; text tracks: subtitle track 0 (fre, subrip), subtitle track 1 (eng, subrip)"), "{text}");
}

#[test]
fn files_that_are_not_films_get_a_clear_error_naming_them() {
    if !have_ffmpeg() {
        return;
    }
    let ws = tempfile::tempdir().unwrap();
    let d = ws.path();
    std::fs::write(d.join("empty.mp4"), b"").unwrap();
    std::fs::write(
        d.join("notes.mp4"),
        b"INT. KITCHEN - NIGHT\nThis is a screenplay, not a video.\n",
    )
    .unwrap();
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "sine=duration=1",
        d.join("sound.m4a").to_str().unwrap(),
    ]);
    let cases = [
        (
            "empty.mp4",
            "empty.mp4: empty file (0 bytes); expected a video",
        ),
        ("notes.mp4", "notes.mp4: not a video ffmpeg can read: "),
        (
            "sound.m4a",
            "sound.m4a: no video stream (it holds audio (aac)); expected a film",
        ),
        ("missing.mp4", "missing.mp4: No such file or directory"),
    ];
    for (file, expected) in cases {
        let out = moviegraph_in(d, &["shots", file, "--film", "out"]);
        let text = said(&out);
        assert_eq!(out.status.code(), Some(2), "{file}: {text}");
        assert!(text.contains(expected), "{file}: {text}");
        assert!(!text.contains("panicked"), "{file}: {text}");
    }
    assert!(!d.join("out/keyframes").exists());

    // A file cut in half: the frames before the cut are used, and it says so.
    three_shots(&d.join("whole.mkv"), &[]);
    let bytes = std::fs::read(d.join("whole.mkv")).unwrap();
    std::fs::write(d.join("cut.mkv"), &bytes[..bytes.len() / 2]).unwrap();
    let out = moviegraph_in(d, &["shots", "cut.mkv", "--film", "cut"]);
    let text = said(&out);
    assert!(!text.contains("panicked"), "{text}");
    if out.status.success() {
        let frames: u64 = text
            .split(" over ")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(frames > 24 && frames < 216, "{text}");
    } else {
        assert!(text.contains("cut.mkv: decoding failed"), "{text}");
    }
}

#[test]
fn rotation_and_a_variable_frame_rate_are_handled_and_said() {
    if !have_ffmpeg() {
        return;
    }
    let ws = tempfile::tempdir().unwrap();
    let d = ws.path();
    three_shots(&d.join("flat.mp4"), &[]);
    ffmpeg(&[
        "-i",
        d.join("flat.mp4").to_str().unwrap(),
        "-c",
        "copy",
        "-metadata:s:v:0",
        "rotate=90",
        d.join("turned.mp4").to_str().unwrap(),
    ]);
    let out = moviegraph_in(d, &["shots", "turned.mp4", "--film", "turned"]);
    let text = said(&out);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("asks for a 90° rotation; frames and keyframes are turned upright (180×320)"),
        "{text}"
    );
    let img = image::open(d.join("turned/keyframes/shot_keyf/turned/shot_0000_img_0.jpg")).unwrap();
    assert_eq!((img.width(), img.height()), (180, 320));
    assert!(text.contains("shots: 3 over 216 frames"), "{text}");

    // The first second at 24 fps, then 12 fps: frames are placed by their
    // timestamps on the average rate's clock.
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "testsrc2=size=160x90:rate=24:duration=4",
        "-vf",
        "select='lt(n\\,24)+not(mod(n\\,2))'",
        "-fps_mode",
        "vfr",
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        d.join("vfr.mkv").to_str().unwrap(),
    ]);
    let out = moviegraph_in(d, &["shots", "vfr.mkv", "--film", "vfr"]);
    let text = said(&out);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("variable frame rate; frames are placed by their timestamps"),
        "{text}"
    );
    let info: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(d.join("vfr/keyframes/video_info.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(info["variable_frame_rate"], true);
    let ms = info["duration_ms"].as_u64().unwrap();
    assert!((3800..=4200).contains(&ms), "{info}");
}
