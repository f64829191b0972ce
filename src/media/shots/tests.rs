use super::manifest::{parse_manifest, ManifestFormat, Resolution};
use super::*;

fn r24() -> FrameRate {
    FrameRate::parse("24").unwrap()
}

fn list(text: &str) -> ShotList {
    ShotList::from_shot_lines(
        "film",
        r24(),
        FpsSource::Flag,
        parse_shot_txt(text),
        &KeyframeDir::none(),
    )
}

/// Every MovieNet keyframe name for shots `0..n`, three each.
fn all_names(n: usize) -> Vec<String> {
    (0..n)
        .flat_map(|i| (0..3).map(move |k| format!("shot_{i:04}_img_{k}.jpg")))
        .collect()
}

#[test]
fn movienet_lines_with_blanks_tabs_and_trailing_spaces() {
    let parsed =
        parse_shot_txt("0 57 14 28 42  \n\n58\t210\t96 134 172\t\r\n  211 481 278 345 412\n\n");
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    let got: Vec<(usize, usize, u64, u64)> = parsed
        .shots
        .iter()
        .map(|s| (s.line, s.index, s.start_frame, s.end_frame))
        .collect();
    assert_eq!(got, [(1, 0, 0, 57), (3, 1, 58, 210), (4, 2, 211, 481)]);
    assert_eq!(parsed.shots[1].keyframe_frames, [96, 134, 172]);
}

#[test]
fn malformed_lines_are_diagnosed_with_their_lines() {
    let text = "0 10 2 5 8\n11\n12 x 13 14 15\n20 15 16 17 18\n21 30 22 25 28 31\n31 40 50 35 38\n-1 5\n41 50\n";
    let parsed = parse_shot_txt(text);
    let lines: Vec<usize> = parsed.diagnostics.iter().map(|d| d.line).collect();
    assert_eq!(lines, [2, 3, 4, 5, 6, 7], "{:#?}", parsed.diagnostics);
    assert!(parsed.diagnostics[0].message.contains("found 1 fields"));
    assert!(parsed.diagnostics[1].message.contains("`x`"));
    assert!(parsed.diagnostics[2].message.contains("before it starts"));
    assert!(parsed.diagnostics[3].message.contains("more than 5"));
    assert!(parsed.diagnostics[4].message.contains("outside the shot"));
    // The shot with a stray keyframe frame is kept; indices count every non-blank line.
    let kept: Vec<(usize, usize)> = parsed.shots.iter().map(|s| (s.line, s.index)).collect();
    assert_eq!(kept, [(1, 0), (6, 5), (8, 7)]);
    assert_eq!(parsed.shots[2].keyframe_frames, Vec::<u64>::new());
}

#[test]
fn huge_numbers_are_not_frames() {
    let parsed = parse_shot_txt("0 99999999999999999999999\n0 1099511627777\n0 1099511627776\n");
    assert_eq!(parsed.diagnostics.len(), 2);
    assert_eq!(parsed.shots.len(), 1);
}

#[test]
fn out_of_order_shots_are_sorted_and_overlaps_skipped() {
    let l = list("100 199\n0 99\n50 120\n200 299\n250 260\n");
    let got: Vec<(usize, u64)> = l.shots.iter().map(|s| (s.index, s.start_frame)).collect();
    assert_eq!(got, [(1, 0), (0, 100), (3, 200)]);
    let lines: Vec<usize> = l.diagnostics.iter().map(|d| d.line).collect();
    assert_eq!(lines, [2, 3, 5], "{:#?}", l.diagnostics);
    assert!(l.diagnostics[0].message.contains("order"));
    assert!(l.diagnostics[1].message.contains("overlap"));
}

#[test]
fn end_ms_is_exclusive_and_contiguous() {
    let l = list("0 95\n96 1184\n1185 1200\n");
    let ms: Vec<(u64, u64)> = l.shots.iter().map(|s| (s.start_ms, s.end_ms)).collect();
    assert_eq!(ms, [(0, 4000), (4000, 49375), (49375, 50042)]);
    assert_eq!(l.shot_at(3999).unwrap().index, 0);
    assert_eq!(l.shot_at(4000).unwrap().index, 1);
    assert_eq!(l.shot_at(50042), None);
    assert_eq!(l.frame_to_ms(96), 4000);
    assert_eq!(l.ms_to_frame(4000), 96);
}

#[test]
fn overlap_queries_use_half_open_intervals() {
    let l = list("0 95\n96 1184\n1185 1200\n1300 1400\n");
    let idx = |a, b| -> Vec<usize> { l.shots_overlapping(a, b).iter().map(|s| s.index).collect() };
    assert_eq!(idx(4000, 49375), [1]);
    assert_eq!(idx(3999, 49376), [0, 1, 2]);
    assert_eq!(idx(0, 1), [0]);
    // Frame 1300 starts at ceil(54166.67) = 54167; before it is a gap.
    assert_eq!(idx(50042, 54167), Vec::<usize>::new());
    assert_eq!(idx(50042, 54168), [3]);
    assert_eq!(idx(10, 10), Vec::<usize>::new());
    assert_eq!(idx(20, 10), Vec::<usize>::new());
    assert_eq!(idx(0, u64::MAX), [0, 1, 2, 3]);
    assert_eq!(idx(u64::MAX - 1, u64::MAX), Vec::<usize>::new());
    // Against a linear scan, for many intervals.
    for a in (0..60_000).step_by(997) {
        for len in [1, 10, 500, 4000, 30_000] {
            let want: Vec<usize> = l
                .shots
                .iter()
                .filter(|s| s.start_ms < a + len && s.end_ms > a)
                .map(|s| s.index)
                .collect();
            assert_eq!(idx(a, a + len), want, "[{a}, {})", a + len);
        }
    }
}

#[test]
fn keyframes_found_in_both_spellings_and_missing_ones_diagnosed() {
    let dir = Path::new("/film/shot_keyf/f");
    let names = [
        "shot_0000_img_0.jpg",
        "shot_0000_img_1.jpg",
        "shot_0000_img_2.jpg",
        "shot_0001_img0.jpg",
        "shot_0001_img1.png",
        "shot_0001_img2.JPG",
        "shot_0002_img_0.jpg",
        "shot_0002_img_2.jpg",
    ];
    let kd = KeyframeDir::from_names(dir, names);
    let l = ShotList::from_shot_lines(
        "f",
        r24(),
        FpsSource::Flag,
        parse_shot_txt("0 9 1 5 8\n10 19 11 15 18\n20 29 21 25 28\n"),
        &kd,
    );
    let files: Vec<Vec<String>> = l
        .shots
        .iter()
        .map(|s| {
            s.keyframes
                .iter()
                .map(|k| k.path.file_name().unwrap().to_string_lossy().into_owned())
                .collect()
        })
        .collect();
    assert_eq!(
        files[1],
        [
            "shot_0001_img0.jpg",
            "shot_0001_img1.png",
            "shot_0001_img2.JPG"
        ]
    );
    assert_eq!(files[2], ["shot_0002_img_0.jpg", "shot_0002_img_2.jpg"]);
    assert_eq!(l.shots[2].keyframes[1].slot, 2);
    assert_eq!(l.shots[2].keyframes[1].frame, Some(28));
    assert_eq!(l.diagnostics.len(), 1);
    assert_eq!(l.diagnostics[0].line, 3);
    assert!(l.diagnostics[0].message.contains("shot_0002_img_1"));
}

#[test]
fn representatives_spread_evenly_and_prefer_the_middle() {
    // 10 shots of 100 frames at 24 fps (4166 ms each), all keyframes present.
    let text: String = (0..10)
        .map(|i| {
            let s = i * 100;
            format!("{s} {} {} {} {}\n", s + 99, s + 10, s + 50, s + 90)
        })
        .collect();
    let kd = KeyframeDir::from_names(Path::new("/k"), all_names(10));
    let l = ShotList::from_shot_lines("f", r24(), FpsSource::Flag, parse_shot_txt(&text), &kd);
    let end = l.shots[9].end_ms;
    let picks = |a, b, max| -> Vec<String> {
        l.representative_keyframes(a, b, max)
            .iter()
            .map(|k| k.path.file_stem().unwrap().to_string_lossy().into_owned())
            .collect()
    };
    assert_eq!(
        picks(0, end, 5),
        [
            "shot_0001_img_1",
            "shot_0003_img_1",
            "shot_0005_img_1",
            "shot_0007_img_1",
            "shot_0009_img_1"
        ]
    );
    assert_eq!(picks(0, end, 1), ["shot_0005_img_1"]);
    assert_eq!(picks(0, end, 0), Vec::<String>::new());
    // Two shots, room for five: both middles, then the others spread.
    let two = picks(l.shots[3].start_ms, l.shots[4].end_ms, 5);
    assert_eq!(
        two,
        [
            "shot_0003_img_0",
            "shot_0003_img_1",
            "shot_0004_img_0",
            "shot_0004_img_1",
            "shot_0004_img_2"
        ]
    );
    // Everything when max is large; never more than exists.
    assert_eq!(picks(0, end, 100).len(), 30);
    // An interval inside one shot's last part prefers the keyframe shown there.
    let s = &l.shots[2];
    assert_eq!(picks(l.frame_to_ms(285), s.end_ms, 1), ["shot_0002_img_2"]);
    assert_eq!(picks(end, end + 1000, 5), Vec::<String>::new());
}

#[test]
fn representatives_skip_shots_without_keyframes() {
    let kd = KeyframeDir::from_names(Path::new("/k"), ["shot_0001_img_0.jpg"]);
    let l = ShotList::from_shot_lines(
        "f",
        r24(),
        FpsSource::Flag,
        parse_shot_txt("0 9\n10 19\n20 29\n"),
        &kd,
    );
    let got = l.representative_keyframes(0, 10_000, 5);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].slot, 0);
    assert_eq!(got[0].frame, None);
}

fn manifest_list(text: &str, fps: Option<FrameRate>, duration: Option<u64>) -> ShotList {
    let m = parse_manifest(text, ManifestFormat::detect(None, text)).unwrap();
    ShotList::from_manifest(
        "film",
        m,
        fps.map(|r| (r, FpsSource::Flag)),
        duration,
        |e| {
            if e.path.to_string_lossy().contains("missing") {
                Resolution::Missing("gone".into())
            } else if e.path.to_string_lossy().contains("outside") {
                Resolution::Refused("outside".into())
            } else {
                Resolution::Found(Path::new("/film").join(&e.path))
            }
        },
    )
}

#[test]
fn manifest_keyframes_become_spans_until_the_next() {
    let l = manifest_list("a.jpg,0\nb.jpg,2.5\nc.jpg,00:00:04\n", None, Some(10_000));
    assert_eq!(l.fps_source, FpsSource::Manifest);
    assert_eq!(l.frame_rate, FrameRate::MILLISECONDS);
    let spans: Vec<(u64, u64)> = l.shots.iter().map(|s| (s.start_ms, s.end_ms)).collect();
    assert_eq!(spans, [(0, 2500), (2500, 4000), (4000, 10_000)]);
    assert_eq!(
        l.shot_at(3000).unwrap().keyframes[0].path,
        Path::new("/film/b.jpg")
    );
    // Without a duration the last shot lasts one frame.
    let l = manifest_list("a.jpg,0\nb.jpg,2.5\n", Some(r24()), None);
    let frames: Vec<(u64, u64)> = l
        .shots
        .iter()
        .map(|s| (s.start_frame, s.end_frame))
        .collect();
    assert_eq!(frames, [(0, 59), (60, 60)]);
    assert_eq!(l.fps_source, FpsSource::Flag);
}

#[test]
fn manifest_rows_sorted_grouped_refused_and_missing() {
    let text = "c.jpg,3\na.jpg,1\nb.jpg,1.01\noutside.jpg,2\nmissing.jpg,5\n";
    let l = manifest_list(text, Some(r24()), None);
    // a and b fall in frame 24 and share a shot; outside.jpg is refused.
    let got: Vec<(usize, u64, usize, LineSpan)> = l
        .shots
        .iter()
        .map(|s| (s.index, s.start_frame, s.keyframes.len(), s.lines))
        .collect();
    assert_eq!(
        got,
        [
            (0, 24, 2, LineSpan::new(2, 3)),
            (1, 72, 1, LineSpan::line(1)),
            (2, 120, 0, LineSpan::line(5)),
        ]
    );
    let lines: Vec<usize> = l.diagnostics.iter().map(|d| d.line).collect();
    assert_eq!(lines, [2, 4, 5], "{:#?}", l.diagnostics);
    assert_eq!(l.shots[0].keyframes[1].slot, 1);
}

#[test]
fn manifest_fps_from_json_and_disagreement_with_flag() {
    let text = r#"{"fps": 25, "keyframes": [{"path": "a.jpg", "time": 1}]}"#;
    let l = manifest_list(text, None, None);
    assert_eq!(l.fps, 25.0);
    assert_eq!(l.shots[0].start_frame, 25);
    let l = manifest_list(text, Some(r24()), None);
    assert_eq!(l.fps, 24.0);
    assert!(l.diagnostics[0]
        .message
        .contains("the manifest says 25 fps"));
}

#[test]
fn shot_list_serializes() {
    let kd = KeyframeDir::from_names(Path::new("/k"), all_names(1));
    let l = ShotList::from_shot_lines(
        "f",
        r24(),
        FpsSource::VideoInfo,
        parse_shot_txt("0 9 1 5 8\n"),
        &kd,
    );
    let json = serde_json::to_string(&l).unwrap();
    assert!(json.contains("\"frame_rate\":\"24\""), "{json}");
    assert!(json.contains("\"fps_source\":\"video_info\""), "{json}");
    let back: ShotList = serde_json::from_str(&json).unwrap();
    assert_eq!(back, l);
}

#[test]
fn keyframe_names_and_their_preference() {
    let kd = KeyframeDir::from_names(
        Path::new("/k"),
        [
            "shot_0003_img1.png",
            "shot_0003_img_1.png",
            "shot_0003_img_1.jpeg",
            "shot_12345_img_0.jpg",
            "shot_012345_img_0.jpg",
            "shot_003_img_0.jpg",
            "shot_0004_img_0.gif",
            "shot_0004_img_x.jpg",
            "shot_0004_img_0",
            "notes.txt",
        ],
    );
    assert_eq!(kd.find(3, 1), Some(PathBuf::from("/k/shot_0003_img_1.png")));
    assert_eq!(
        kd.find(12345, 0),
        Some(PathBuf::from("/k/shot_12345_img_0.jpg"))
    );
    assert_eq!(kd.find(3, 0), None);
    assert_eq!(kd.find(4, 0), None);
    assert_eq!(KeyframeDir::none().find(3, 1), None);
}
