//! Shot lists from real layouts: the MovieNet sample in `../shared`, the
//! bundled sample film against its alignment gold, the `img0` spelling,
//! manifests, and refusals of paths that leave the film's folder.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};

use moviegraph::media::shots::{FpsSource, FrameRate, MovieNetPaths, ShotError, ShotList};
use moviegraph::screenplay::Diagnostic;
use serde_json::Value;

fn movienet_sample() -> Option<PathBuf> {
    let dir = common::root().join("../shared/movienet-sample");
    if dir.join("shot_txt").is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "SKIPPED: {} is absent (the MovieNet sample lives in ../shared beside the project)",
            dir.display()
        );
        None
    }
}

fn sample_film() -> PathBuf {
    common::root().join("keyframes/the-second-key")
}

fn lines(diags: &[Diagnostic]) -> Vec<usize> {
    diags.iter().map(|d| d.line).collect()
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

#[test]
fn movienet_sample_reads_with_the_stats_csv_rate() {
    let Some(dir) = movienet_sample() else { return };
    let paths = MovieNetPaths::find(&dir, None).unwrap();
    assert_eq!(paths.film_id, "test1");
    assert_eq!(paths.video_info, None);
    let list = ShotList::load_movienet(&paths, None).unwrap();
    assert_eq!(list.fps_source, FpsSource::StatsCsv);
    assert_eq!(list.fps, 23.976);
    assert_eq!(list.frame_rate, FrameRate::parse("23.976").unwrap());
    assert!(list.diagnostics.is_empty(), "{:#?}", list.diagnostics);
    let frames: Vec<(u64, u64, Vec<u64>)> = list
        .shots
        .iter()
        .map(|s| (s.start_frame, s.end_frame, s.keyframe_frames.clone()))
        .collect();
    assert_eq!(
        frames,
        [
            (0, 57, vec![14, 28, 42]),
            (58, 210, vec![96, 134, 172]),
            (211, 481, vec![278, 345, 412])
        ]
    );
    for (i, shot) in list.shots.iter().enumerate() {
        assert_eq!(shot.index, i);
        assert_eq!(shot.keyframes.len(), 3);
        for (k, kf) in shot.keyframes.iter().enumerate() {
            assert_eq!(kf.slot, k);
            assert_eq!(kf.frame, Some(shot.keyframe_frames[k]));
            assert!(kf.path.is_file());
            assert!(kf
                .path
                .ends_with(format!("shot_keyf/test1/shot_{i:04}_img_{k}.jpg")));
        }
    }
    // 58 frames at 23.976 fps: ceil(58000 / 23.976) = 2420 ms.
    assert_eq!((list.shots[0].start_ms, list.shots[0].end_ms), (0, 2420));
    assert_eq!(list.shots[1].start_ms, 2420);
    assert_eq!(list.shots[2].end_ms, 20104);
    // A flag wins, and its disagreement with the CSV is noted.
    let flagged = ShotList::load_movienet(&paths, FrameRate::parse("25")).unwrap();
    assert_eq!(flagged.fps_source, FpsSource::Flag);
    assert_eq!(lines(&flagged.diagnostics), [0]);
    assert!(flagged.diagnostics[0].message.contains("23.976"));
}

#[test]
fn sample_film_matches_the_alignment_gold() {
    let dir = sample_film();
    let paths = MovieNetPaths::find(&dir, None).unwrap();
    assert_eq!(paths.film_id, "the-second-key");
    let list = ShotList::load_movienet(&paths, None).unwrap();
    assert_eq!(list.fps_source, FpsSource::VideoInfo);
    assert_eq!(list.fps, 24.0);
    assert!(list.diagnostics.is_empty(), "{:#?}", list.diagnostics);
    assert_eq!(list.shots.len(), 140);
    assert_eq!(
        list.shots.iter().map(|s| s.keyframes.len()).sum::<usize>(),
        420
    );

    let gold: Value = serde_json::from_str(
        &fs::read_to_string(common::root().join("screenplays/the-second-key/alignment_gold.json"))
            .unwrap(),
    )
    .unwrap();
    let ms = |v: &Value, k: &str| v[k].as_u64().unwrap();
    assert_eq!(list.shots.last().unwrap().end_ms, ms(&gold, "duration_ms"));
    let title = list.shots_overlapping(
        ms(&gold["title_card"], "start_ms"),
        ms(&gold["title_card"], "end_ms"),
    );
    assert_eq!(title.iter().map(|s| s.index).collect::<Vec<_>>(), [0]);
    let end = list.shots_overlapping(
        ms(&gold["end_card"], "start_ms"),
        ms(&gold["end_card"], "end_ms"),
    );
    assert_eq!(end.iter().map(|s| s.index).collect::<Vec<_>>(), [139]);

    let mut checked = 0;
    for scene in gold["scenes"].as_array().unwrap() {
        let (Some(start), Some(end)) = (scene["start_ms"].as_u64(), scene["end_ms"].as_u64())
        else {
            assert!(
                scene["first_shot"].is_null(),
                "a scene without time has no shots"
            );
            continue;
        };
        let shots = list.shots_overlapping(start, end);
        let first = shots.first().unwrap().index as u64;
        let last = shots.last().unwrap().index as u64;
        assert_eq!(
            (first, last),
            (ms(scene, "first_shot"), ms(scene, "last_shot")),
            "scene {}",
            scene["number"]
        );
        // At most five representatives, from the scene's own shots, in time order.
        let reps = list.representative_keyframes(start, end, 5);
        assert_eq!(reps.len(), 5.min(shots.len()));
        let scene_files: Vec<&Path> = shots
            .iter()
            .flat_map(|s| s.keyframes.iter().map(|k| k.path.as_path()))
            .collect();
        let mut at = 0;
        for r in &reps {
            assert_eq!(r.slot, 1, "the middle keyframe is preferred");
            let pos = scene_files.iter().position(|p| *p == r.path).unwrap();
            assert!(pos >= at);
            at = pos + 1;
        }
        checked += 1;
    }
    assert_eq!(checked, 15);

    // The stats CSV agrees with video_info.json; a different flag is noted.
    assert!(paths.stats_csv.is_some());
    let l = ShotList::load_movienet(&paths, FrameRate::parse("25")).unwrap();
    assert_eq!(lines(&l.diagnostics), [0, 0]);
}

#[test]
fn explicit_paths_find_the_rest() {
    let dir = sample_film();
    let shots = dir.join("shot_txt/the-second-key.txt");
    let paths = MovieNetPaths::explicit(&shots, None);
    assert_eq!(
        paths.keyframe_dir,
        Some(dir.join("shot_keyf/the-second-key"))
    );
    assert_eq!(paths.video_info, Some(dir.join("video_info.json")));
    let list = ShotList::load_movienet(&paths, None).unwrap();
    assert_eq!(list.shots.len(), 140);
    assert_eq!(list.source.as_deref(), Some(shots.as_path()));

    // A bare shot file elsewhere, with --keyframes and --fps.
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("cuts.txt");
    write(&file, "0 23 5 12 20\n");
    let kf = tmp.path().join("frames");
    write(&kf.join("shot_0000_img_1.png"), "png");
    let paths = MovieNetPaths::explicit(&file, Some(&kf));
    let err = ShotList::load_movienet(&paths, None).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, ShotError::NoFrameRate { .. }));
    assert!(
        msg.contains("cuts.txt") && msg.contains("--fps") && msg.contains("video_info.json"),
        "{msg}"
    );
    let list = ShotList::load_movienet(&paths, FrameRate::parse("24")).unwrap();
    assert_eq!(list.film_id, "cuts");
    assert_eq!(list.shots[0].keyframes.len(), 1);
    assert_eq!(list.shots[0].keyframes[0].slot, 1);
    assert_eq!(lines(&list.diagnostics), [1]);
    assert!(list.diagnostics[0]
        .message
        .contains("shot_0000_img_0, shot_0000_img_2"));
}

#[test]
fn img0_spelling_and_video_info_variants() {
    let tmp = tempfile::tempdir().unwrap();
    let film = tmp.path().join("tt0000001");
    write(
        &film.join("shot_txt/tt0000001.txt"),
        "0 10 2 5 8\n11 20 12 15 18\n",
    );
    for i in 0..2 {
        for k in 0..3 {
            write(
                &film.join(format!("shot_keyf/tt0000001/shot_{i:04}_img{k}.jpg")),
                "jpg",
            );
        }
    }
    write(
        &film.join("video_info.json"),
        r#"{"avg_frame_rate": "24000/1001"}"#,
    );
    let list = ShotList::load_movienet(&MovieNetPaths::find(&film, None).unwrap(), None).unwrap();
    assert_eq!(list.frame_rate.to_string(), "24000/1001");
    assert_eq!(list.fps_source, FpsSource::VideoInfo);
    assert!(list.diagnostics.is_empty(), "{:#?}", list.diagnostics);
    for s in &list.shots {
        let names: Vec<String> = s
            .keyframes
            .iter()
            .map(|k| k.path.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        let i = s.index;
        assert_eq!(names, [0, 1, 2].map(|k| format!("shot_{i:04}_img{k}.jpg")));
    }

    // A broken video_info falls back to the stats CSV, with a note.
    write(&film.join("video_info.json"), r#"{"fps": "fast"}"#);
    write(
        &film.join("shot_stats/tt0000001.csv"),
        "\u{feff}Frame Rate:,25.0000000000\r\nFrame Number,Timecode\n",
    );
    let list = ShotList::load_movienet(&MovieNetPaths::find(&film, None).unwrap(), None).unwrap();
    assert_eq!(list.fps_source, FpsSource::StatsCsv);
    assert_eq!(list.fps, 25.0);
    assert_eq!(lines(&list.diagnostics), [0]);
    assert!(list.diagnostics[0].message.contains("`fps` \"fast\""));

    // No rate anywhere: the error says why and how.
    fs::remove_file(film.join("shot_stats/tt0000001.csv")).unwrap();
    let err =
        ShotList::load_movienet(&MovieNetPaths::find(&film, None).unwrap(), None).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("tt0000001.txt") && msg.contains("--fps") && msg.contains("\"fast\""),
        "{msg}"
    );
}

#[test]
fn finder_errors_name_what_is_missing() {
    let tmp = tempfile::tempdir().unwrap();
    let err = MovieNetPaths::find(&tmp.path().join("nope"), None).unwrap_err();
    assert!(err.to_string().contains("not a folder"));
    let err = MovieNetPaths::find(tmp.path(), None).unwrap_err();
    assert!(err.to_string().contains("shot_txt"), "{err}");
    write(&tmp.path().join("shot_txt/a.txt"), "0 1\n");
    write(&tmp.path().join("shot_txt/b.txt"), "0 1\n");
    let err = MovieNetPaths::find(tmp.path(), None).unwrap_err();
    assert!(err.to_string().contains("2 films (a, b)"), "{err}");
    let paths = MovieNetPaths::find(tmp.path(), Some("b")).unwrap();
    assert_eq!(paths.film_id, "b");
    assert!(MovieNetPaths::find(tmp.path(), Some("../b")).is_err());
    assert!(MovieNetPaths::find(tmp.path(), Some("c")).is_err());
    // A missing keyframe folder is one diagnostic, not one per shot.
    let list = ShotList::load_movienet(&paths, FrameRate::parse("24")).unwrap();
    assert_eq!(lines(&list.diagnostics), [0]);
    assert!(list.diagnostics[0]
        .message
        .contains("cannot list keyframes"));
}

#[test]
fn malformed_shot_lines_are_reported_with_their_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let film = tmp.path().join("f");
    write(
        &film.join("shot_txt/f.txt"),
        "0 10 2 5 8\r\n\r\nten 20 12 15 18\r\n21 30\t22 25 28   \r\n25 40 26 30 35\r\n41\r\n",
    );
    let paths = MovieNetPaths::find(&film, None).unwrap();
    let list = ShotList::load_movienet(&paths, FrameRate::parse("24")).unwrap();
    assert_eq!(
        list.shots.iter().map(|s| s.index).collect::<Vec<_>>(),
        [0, 2]
    );
    // Line 0: no keyframe folder; then the bad lines by number.
    assert_eq!(
        lines(&list.diagnostics),
        [0, 3, 5, 6],
        "{:#?}",
        list.diagnostics
    );
    assert!(list.diagnostics[1].message.contains("`ten`"));
    assert!(list.diagnostics[2].message.contains("overlap"));
}

#[test]
fn binary_shot_file_is_an_error_with_its_line() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("shot_txt/x.txt");
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    fs::write(&file, b"0 10\n\x00\x01\x02").unwrap();
    let err = ShotList::load_movienet(
        &MovieNetPaths::explicit(&file, None),
        FrameRate::parse("24"),
    )
    .unwrap_err();
    assert!(matches!(err, ShotError::Binary { line: 2, .. }), "{err}");
}

#[test]
fn manifests_in_csv_and_json() {
    let tmp = tempfile::tempdir().unwrap();
    let film = tmp.path().join("my-film");
    for name in ["kf/a.jpg", "kf/b.jpg", "kf/c.png"] {
        write(&film.join(name), "img");
    }
    write(
        &film.join("keyframes.csv"),
        "path,time\nkf/a.jpg,0\nkf/b.jpg,00:00:02.500\nkf/c.png,4\n",
    );
    let list = ShotList::load_manifest(&film.join("keyframes.csv"), None, None).unwrap();
    assert_eq!(list.film_id, "my-film");
    assert_eq!(list.fps_source, FpsSource::Manifest);
    assert!(list.diagnostics.is_empty(), "{:#?}", list.diagnostics);
    let spans: Vec<(u64, u64)> = list.shots.iter().map(|s| (s.start_ms, s.end_ms)).collect();
    assert_eq!(spans, [(0, 2500), (2500, 4000), (4000, 4001)]);
    let canon = film.canonicalize().unwrap();
    assert_eq!(list.shots[1].keyframes[0].path, canon.join("kf/b.jpg"));
    assert_eq!(list.shots[1].lines.first, 3);

    // JSON with time_ms; video_info.json gives the rate and the film's end.
    write(
        &film.join("keyframes.json"),
        "[\n {\"path\": \"kf/a.jpg\", \"time_ms\": 0},\n {\"path\": \"kf/c.png\", \"time\": \"00:00:01.000\"}\n]\n",
    );
    write(
        &film.join("video_info.json"),
        r#"{"fps": 24, "duration_ms": 3000}"#,
    );
    let list = ShotList::load_manifest(&film.join("keyframes.json"), None, None).unwrap();
    assert_eq!(list.fps_source, FpsSource::VideoInfo);
    let frames: Vec<(u64, u64)> = list
        .shots
        .iter()
        .map(|s| (s.start_frame, s.end_frame))
        .collect();
    assert_eq!(frames, [(0, 23), (24, 71)]);
    assert_eq!(list.shots[1].end_ms, 3000);
    assert_eq!(list.representative_keyframes(0, 3000, 5).len(), 2);

    // A syntax error names the manifest, line and column.
    write(&film.join("bad.json"), "[\n {\"path\": \"kf/a.jpg\",,}\n]");
    let err = ShotList::load_manifest(&film.join("bad.json"), None, None).unwrap_err();
    assert!(matches!(err, ShotError::Manifest { line: 2, .. }), "{err}");
    assert!(err.to_string().contains("bad.json:2:"), "{err}");
}

#[cfg(unix)]
#[test]
fn manifest_paths_cannot_leave_the_film_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let film = tmp.path().join("film");
    write(&film.join("kf/ok.jpg"), "img");
    write(&tmp.path().join("secret.jpg"), "not yours");
    write(&tmp.path().join("x.jpg"), "not yours either");
    std::os::unix::fs::symlink(tmp.path().join("secret.jpg"), film.join("kf/link.jpg")).unwrap();
    std::os::unix::fs::symlink(tmp.path(), film.join("up")).unwrap();
    std::os::unix::fs::symlink(film.join("kf/ok.jpg"), film.join("kf/inside.jpg")).unwrap();
    let csv = "path,time\n\
               kf/ok.jpg,0\n\
               ../x.jpg,1\n\
               /etc/passwd,2\n\
               kf/link.jpg,3\n\
               up/secret.jpg,4\n\
               kf/../../x.jpg,5\n\
               kf/inside.jpg,6\n\
               C:\\Windows\\win.ini,7\n\
               kf/none.jpg,8\n";
    write(&film.join("m.csv"), csv);
    let list = ShotList::load_manifest(&film.join("m.csv"), None, None).unwrap();
    assert_eq!(
        lines(&list.diagnostics),
        [3, 4, 5, 6, 7, 9, 10],
        "{:#?}",
        list.diagnostics
    );
    for d in &list.diagnostics[..6] {
        assert!(
            d.message.contains("outside")
                || d.message.contains("..")
                || d.message.contains("absolute")
                || d.message.contains("drive"),
            "{d:?}"
        );
    }
    assert!(list.diagnostics[6].message.contains("does not exist"));
    let canon = film.canonicalize().unwrap();
    let kept: Vec<&Path> = list
        .shots
        .iter()
        .flat_map(|s| s.keyframes.iter().map(|k| k.path.as_path()))
        .collect();
    assert_eq!(kept, [canon.join("kf/ok.jpg"), canon.join("kf/ok.jpg")]);
    // The refused rows are gone; the missing file's time still starts a shot.
    let starts: Vec<u64> = list.shots.iter().map(|s| s.start_ms).collect();
    assert_eq!(starts, [0, 6000, 8000]);

    // The same in JSON, and an explicit film folder that is narrower than the manifest's.
    let json = r#"[{"path": "../x.jpg", "time": 0}, {"path": "/etc/passwd", "time": 1},
{"path": "link.jpg", "time": 2}, {"path": "ok.jpg", "time": 3}]"#;
    write(&film.join("m.json"), json);
    let list = ShotList::load_manifest(&film.join("m.json"), Some(&film.join("kf")), None).unwrap();
    assert_eq!(
        lines(&list.diagnostics),
        [1, 1, 2],
        "{:#?}",
        list.diagnostics
    );
    assert!(list.diagnostics[2]
        .message
        .contains("outside the film folder"));
    assert_eq!(list.shots.len(), 1);
    assert_eq!(list.shots[0].keyframes[0].path, canon.join("kf/ok.jpg"));
}
