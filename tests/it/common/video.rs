//! Videos the tests make with ffmpeg (never a video file in the repository):
//! lavfi sources with known cuts, and the sample film rendered from its
//! keyframes with its shot cuts and a soft subtitle track.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Whether ffmpeg and ffprobe run; prints why a test is skipped when not.
pub fn have_ffmpeg() -> bool {
    let ok = ["ffmpeg", "ffprobe"].iter().all(|tool| {
        Command::new(tool)
            .arg("-version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    });
    if !ok {
        eprintln!("SKIPPED: ffmpeg/ffprobe are not installed (Debian: apt-get install ffmpeg; .ci/run installs them)");
    }
    ok
}

/// Runs ffmpeg with `args` (quiet, overwriting); panics with its message on failure.
pub fn ffmpeg(args: &[&str]) {
    let out = Command::new("ffmpeg")
        .args(["-v", "error", "-y", "-nostdin"])
        .args(args)
        .output()
        .expect("ffmpeg runs");
    assert!(
        out.status.success(),
        "ffmpeg {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Three 3-second, 24 fps shots from different lavfi sources, hard cuts at
/// frames 72 and 144, 320×180: `path`.
pub fn three_shots(path: &Path, extra: &[&str]) {
    let mut args = vec![
        "-f",
        "lavfi",
        "-i",
        "testsrc2=size=320x180:rate=24:duration=3",
        "-f",
        "lavfi",
        "-i",
        "smptebars=size=320x180:rate=24:duration=3",
        "-f",
        "lavfi",
        "-i",
        "color=c=0x2050a0:size=320x180:rate=24:duration=3,noise=alls=30:allf=t",
        "-filter_complex",
        "[0:v][1:v][2:v]concat=n=3:v=1[v]",
        "-map",
        "[v]",
    ];
    args.extend_from_slice(extra);
    args.extend_from_slice(&[
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        "-pix_fmt",
        "yuv420p",
    ]);
    let p = path.to_str().unwrap();
    args.push(p);
    ffmpeg(&args);
}

/// A SubRip file of two cues.
pub fn srt(path: &Path, words: &str) {
    std::fs::write(
        path,
        format!("1\n00:00:00,500 --> 00:00:01,500\n{words}\n\n2\n00:00:04,000 --> 00:00:05,000\nAnd then some.\n"),
    )
    .unwrap();
}

/// The sample film as a video: each shot of its committed shot list holds
/// its middle keyframe for exactly its frames (24 fps, 160×90), with the
/// sample's subtitles as an English soft track. Returns the video's path.
pub fn render_sample(root: &Path, dir: &Path) -> PathBuf {
    let keyframes = root.join("keyframes/the-second-key");
    let shots = std::fs::read_to_string(keyframes.join("shot_txt/the-second-key.txt")).unwrap();
    let video = dir.join("film.mp4");
    let subtitles = root.join("screenplays/the-second-key/subtitles.srt");
    let mut child = Command::new("ffmpeg")
        .args([
            "-v", "error", "-y", "-nostdin", "-f", "rawvideo", "-pix_fmt", "rgb24",
        ])
        .args(["-s", "160x90", "-r", "24", "-i", "-", "-i"])
        .arg(&subtitles)
        .args([
            "-map",
            "0:v",
            "-map",
            "1",
            "-c:v",
            "libx264",
            "-preset",
            "ultrafast",
        ])
        .args(["-qp", "10", "-pix_fmt", "yuv420p", "-c:s", "mov_text"])
        .args(["-metadata:s:s:0", "language=eng"])
        .arg(&video)
        .stdin(Stdio::piped())
        .spawn()
        .expect("ffmpeg runs");
    let mut stdin = child.stdin.take().unwrap();
    for (i, line) in shots.lines().filter(|l| !l.trim().is_empty()).enumerate() {
        let n: Vec<u64> = line
            .split_whitespace()
            .map(|x| x.parse().unwrap())
            .collect();
        let image = keyframes.join(format!("shot_keyf/the-second-key/shot_{i:04}_img_1.jpg"));
        let rgb = image::open(&image).unwrap().to_rgb8();
        assert_eq!(rgb.dimensions(), (160, 90), "{}", image.display());
        for _ in n[0]..=n[1] {
            stdin.write_all(rgb.as_raw()).unwrap();
        }
    }
    drop(stdin);
    assert!(child.wait().unwrap().success(), "ffmpeg encodes the sample");
    video
}
