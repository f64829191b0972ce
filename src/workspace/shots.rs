//! Shots, keyframes and subtitles from a film's video file, written into its
//! film folder in MovieNet's layout (`FILM_DIR/keyframes/`) and as
//! `FILM_DIR/subtitles.srt`, where the aligner reads them. One use case for
//! `moviegraph shots` and for `run`'s shots stage.

use std::fmt::Write as _;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::media::video::detect::{AdaptiveSettings, ContentSettings, Detector, RobustSettings};
use crate::media::video::layout::{shots_from_cuts, write_layout, LayoutRequest, Provenance};
use crate::media::video::subtitle_track::{choose_track, extract_track};
use crate::media::video::transnet::{
    cuts_of_predictions, weights_in, TransNet, TransNetStream, FRAME_HEIGHT, FRAME_WIDTH,
    TRANSNET_FOLDER,
};
use crate::media::video::{
    probe, DecodeSettings, FrameReader, ShotDetector, TransNetSettings, VideoInfo,
};
use crate::util::report::Bar;

use super::film::{self, SUBTITLE_FILES};
use super::{Context, Result};

/// Frames decoded ahead of the detector.
const PREFETCH_FRAMES: usize = 8;

/// Width frames are decoded at for detection (PySceneDetect's working width).
pub const DETECTION_WIDTH: u32 = 256;

/// The detectors `--detector` names.
pub const DETECTORS: [&str; 4] = ["adaptive", "content", "robust", "transnet"];

/// Where TransNetV2's weights are looked for: `$MOVIEGRAPH_MODELS/transnetv2`,
/// else `${XDG_CACHE_HOME:-~/.cache}/moviegraph/models/transnetv2` (where
/// `scripts/setup-models` installs them).
pub fn transnet_dir() -> Option<PathBuf> {
    crate::llm::model_dir::models_root_with(|k| std::env::var_os(k))
        .map(|root| root.join(TRANSNET_FOLDER))
}

/// The detector `moviegraph shots` uses by default, and why: the most
/// accurate one installed (TransNetV2 when its weights are there).
pub fn default_detector() -> (ShotDetector, String) {
    match transnet_dir().filter(|d| weights_in(d).is_some()) {
        Some(dir) => (
            ShotDetector::TransNet(TransNetSettings::default()),
            format!(
                "the most accurate detector installed: TransNetV2, weights in {}",
                dir.display()
            ),
        ),
        None => (
            ShotDetector::Frames(Detector::Robust(RobustSettings::default())),
            "the most accurate detector installed: adaptive's cuts without flashes; TransNetV2's weights are not installed (scripts/setup-models --only transnetv2)".to_string(),
        ),
    }
}

/// A detector by its command-line name, with its defaults (PySceneDetect's
/// for `content` and `adaptive`, the reference's for `transnet`).
pub fn detector_named(name: &str) -> Option<ShotDetector> {
    let frames = |d| Some(ShotDetector::Frames(d));
    match name {
        "adaptive" => frames(Detector::Adaptive(AdaptiveSettings::default())),
        "content" => frames(Detector::Content(ContentSettings::default())),
        "robust" => frames(Detector::Robust(RobustSettings::default())),
        "transnet" => Some(ShotDetector::TransNet(TransNetSettings::default())),
        _ => None,
    }
}

/// What to do.
#[derive(Debug, Clone)]
pub struct ShotsRequest {
    /// The video file.
    pub video: PathBuf,
    /// The film folder written into (`FILM_DIR/keyframes/`, `FILM_DIR/subtitles.srt`).
    pub film_dir: PathBuf,
    /// The detector.
    pub detector: ShotDetector,
    /// Keyframe width in pixels (`None`: the video's own).
    pub keyframe_width: Option<u32>,
    /// Subtitle language to take out when the folder has no subtitles
    /// (`None`: the first English track, else the first text track).
    pub subtitle_lang: Option<String>,
    /// Replace keyframes moviegraph did not make, and remake current ones.
    pub force: bool,
}

/// What happened to the film's subtitles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SubtitleOutcome {
    /// The folder already had them.
    Present(PathBuf),
    /// A track of the video was written out.
    Extracted {
        /// Where.
        path: PathBuf,
        /// Which track (`subtitle track 0 (eng, subrip)`).
        track: String,
    },
    /// None could be had; why.
    Unavailable(String),
}

/// What was made.
#[derive(Debug, Clone)]
pub struct ShotsDone {
    /// What the video holds.
    pub info: VideoInfo,
    /// The layout folder.
    pub root: PathBuf,
    /// The shot file.
    pub shot_file: PathBuf,
    /// Frames decoded.
    pub frames: u64,
    /// Shots found (0 when nothing was redone).
    pub shots: usize,
    /// The detector's name and settings.
    pub detector: String,
    /// Whether the layout was already current (nothing decoded).
    pub current: bool,
    /// Time spent waiting for decoded frames.
    pub decode_time: Duration,
    /// Time spent converting and scoring frames.
    pub detect_time: Duration,
    /// Time spent writing keyframes (a second decoding pass).
    pub keyframe_time: Duration,
    /// Warnings: variable frame rate, rotation, damaged data.
    pub warnings: Vec<String>,
    /// The subtitles.
    pub subtitles: SubtitleOutcome,
}

/// The video's fingerprint: size, modification time and a sha256 of its
/// first and last MiB (reading a whole film would take longer than it is worth).
pub fn video_fingerprint(path: &Path) -> Result<String> {
    const MIB: u64 = 1 << 20;
    let meta = std::fs::metadata(path).with_context(|| format!("reading {}", path.display()))?;
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    let mut file =
        std::fs::File::open(path).with_context(|| format!("reading {}", path.display()))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; MIB as usize];
    let n =
        read_up_to(&mut file, &mut buf).with_context(|| format!("reading {}", path.display()))?;
    hasher.update(&buf[..n]);
    if meta.len() > MIB {
        file.seek(SeekFrom::Start(meta.len().saturating_sub(MIB).max(MIB)))
            .with_context(|| format!("reading {}", path.display()))?;
        let n = read_up_to(&mut file, &mut buf)
            .with_context(|| format!("reading {}", path.display()))?;
        hasher.update(&buf[..n]);
    }
    let digest: String = hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    Ok(format!(
        "{} bytes, mtime {mtime}, ends sha256:{digest}",
        meta.len()
    ))
}

fn read_up_to(file: &mut std::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match file.read(&mut buf[filled..])? {
            0 => break,
            n => filled += n,
        }
    }
    Ok(filled)
}

/// The layout folder of a film folder.
pub fn layout_root(film_dir: &Path) -> PathBuf {
    film_dir.join("keyframes")
}

/// The provenance a run with `request` would write (without frame and shot counts).
fn provenance_of(request: &ShotsRequest, fingerprint: &str) -> Provenance {
    Provenance {
        video: request
            .video
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        fingerprint: fingerprint.to_string(),
        detector: request.detector.name().to_string(),
        settings: request.detector.settings(),
        keyframe_width: request.keyframe_width,
        frames: 0,
        shots: 0,
        moviegraph: env!("CARGO_PKG_VERSION").to_string(),
    }
}

/// Whether two provenances describe the same work (counts aside).
fn same_work(a: &Provenance, b: &Provenance) -> bool {
    a.video == b.video
        && a.fingerprint == b.fingerprint
        && a.detector == b.detector
        && a.settings == b.settings
        && a.keyframe_width == b.keyframe_width
}

/// Detects the video's shots and writes the film folder's layout and
/// subtitles; `bar` shows decoding progress (frames of the expected total).
pub fn make_shots(request: &ShotsRequest, bar: &dyn Bar) -> Result<ShotsDone> {
    let info = probe(&request.video)?;
    let mut warnings = Vec::new();
    if info.variable_rate {
        warnings.push(format!(
            "{}: variable frame rate; frames are placed by their timestamps on a {} fps clock (frame numbers are times, not decoded-frame counts)",
            info.path.display(),
            info.rate
        ));
    }
    if info.rotation != 0 {
        warnings.push(format!(
            "{}: the file asks for a {}° rotation; frames and keyframes are turned upright ({}×{})",
            info.path.display(),
            info.rotation,
            info.width,
            info.height
        ));
    }
    let subtitles = film_subtitles(request, &info)?;
    let root = layout_root(&request.film_dir);
    let film_id = film::slug(&request.film_dir);
    let shot_file = root.join("shot_txt").join(format!("{film_id}.txt"));
    let fingerprint = video_fingerprint(&request.video)?;
    let wanted = provenance_of(request, &fingerprint);
    let existing = Provenance::read(&root);
    if root.join("shot_txt").is_dir() && !request.force {
        match &existing {
            None => super::bail!(
                "{}: holds keyframes moviegraph did not make from this video; pass --force to replace them",
                root.display()
            ),
            Some(p) if same_work(p, &wanted) && shot_file.is_file() => {
                return Ok(ShotsDone {
                    info,
                    root,
                    shot_file,
                    frames: p.frames,
                    shots: p.shots,
                    detector: format!("{} ({})", p.detector, p.settings),
                    current: true,
                    decode_time: Duration::ZERO,
                    detect_time: Duration::ZERO,
                    keyframe_time: Duration::ZERO,
                    warnings,
                    subtitles,
                });
            }
            Some(_) => {}
        }
    }

    let detection = detect_cuts(&info, &request.detector, bar)?;
    warnings.extend(detection.warnings);
    let (frames, cuts, decode_time, detect_time) = (
        detection.frames,
        detection.cuts,
        detection.decode_time,
        detection.detect_time,
    );
    bar.set(frames, frames);
    let shots = shots_from_cuts(&cuts, frames);
    let provenance = Provenance {
        frames,
        shots: shots.len(),
        ..wanted
    };
    bar.message(&format!("writing {} shots' keyframes", shots.len()));
    let t = Instant::now();
    write_layout(&LayoutRequest {
        root: &root,
        film_id: &film_id,
        info: &info,
        frames,
        shots: &shots,
        keyframe_width: request.keyframe_width,
        provenance: &provenance,
    })?;
    Ok(ShotsDone {
        info,
        root,
        shot_file,
        frames,
        shots: shots.len(),
        detector: format!(
            "{} ({})",
            request.detector.name(),
            request.detector.settings()
        ),
        current: false,
        decode_time,
        detect_time,
        keyframe_time: t.elapsed(),
        warnings,
        subtitles,
    })
}

/// What `moviegraph shots` prints: the video, the detector, the shots and
/// where they went, the subtitles, the timings, and what to run next.
pub fn render(done: &ShotsDone) -> String {
    let i = &done.info;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: {} {}×{}, {} fps{}, {}",
        i.path.display(),
        i.codec,
        i.width,
        i.height,
        i.rate,
        if i.variable_rate { " (variable)" } else { "" },
        i.duration_s
            .map_or("length unknown".to_string(), |d| format!("{d:.1} s"))
    );
    if done.current {
        let _ = writeln!(
            out,
            "shots: current ({} shots over {} frames by {}); nothing decoded — pass --force to redo",
            done.shots, done.frames, done.detector
        );
    } else {
        let decode = done.decode_time.as_secs_f64();
        let detect = done.detect_time.as_secs_f64();
        let _ = writeln!(
            out,
            "shots: {} over {} frames, detector {} (offline)",
            done.shots, done.frames, done.detector
        );
        let _ = writeln!(
            out,
            "  {:.0} frames/s: waiting for the decoder {decode:.1} s, detection {detect:.2} s (frames are read ahead on a thread, so the two overlap); keyframes {:.1} s",
            done.frames as f64 / (decode + detect).max(1e-9),
            done.keyframe_time.as_secs_f64()
        );
    }
    let _ = writeln!(
        out,
        "  wrote {} and {}",
        done.shot_file.display(),
        done.root.join("shot_keyf").display()
    );
    match &done.subtitles {
        SubtitleOutcome::Present(p) => {
            let _ = writeln!(out, "subtitles: {} (already there)", p.display());
        }
        SubtitleOutcome::Extracted { path, track } => {
            let _ = writeln!(out, "subtitles: {track} written to {}", path.display());
        }
        SubtitleOutcome::Unavailable(why) => {
            let _ = writeln!(out, "subtitles: none taken out: {why}");
        }
    }
    for w in &done.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    out
}

/// One pass of a detector over a video.
#[derive(Debug, Clone)]
pub struct Detection {
    /// Frames that start a shot, in order.
    pub cuts: Vec<u64>,
    /// Frames decoded.
    pub frames: u64,
    /// Time spent waiting for decoded frames.
    pub decode_time: Duration,
    /// Time spent converting and scoring frames.
    pub detect_time: Duration,
    /// TransNetV2's probability that each frame is a transition frame
    /// (empty for the other detectors).
    pub probabilities: Vec<f32>,
    /// Damaged data, a short file.
    pub warnings: Vec<String>,
}

/// Frames to shot starts, one detector's way.
enum Finder {
    /// An HSV rule over frames at the detection width.
    Frames(crate::media::video::CutDetector),
    /// TransNetV2, and every frame's probability so far.
    Net {
        stream: TransNetStream,
        threshold: f32,
        single: Vec<f32>,
    },
}

impl Finder {
    fn push(&mut self, n: u64, frame: &[u8], cuts: &mut Vec<u64>) -> Result<()> {
        match self {
            Finder::Frames(d) => cuts.extend(d.push_rgb(n, frame)),
            Finder::Net { stream, single, .. } => single.extend(stream.push(frame)?.single),
        }
        Ok(())
    }

    fn finish(&mut self, cuts: &mut Vec<u64>) -> Result<()> {
        match self {
            Finder::Frames(d) => cuts.extend(d.finish()),
            Finder::Net {
                stream,
                threshold,
                single,
            } => {
                single.extend(stream.finish()?.single);
                cuts.extend(cuts_of_predictions(single, *threshold));
            }
        }
        Ok(())
    }
}

/// TransNetV2 from its installed weights, or why it cannot run.
pub fn load_transnet() -> Result<TransNet> {
    let dir = transnet_dir().context(
        "no models folder: set MOVIEGRAPH_MODELS or HOME, then run scripts/setup-models --only transnetv2",
    )?;
    Ok(TransNet::load(&dir)?)
}

/// Decodes `info`'s video at the detection width (48×27 for TransNetV2) and
/// runs `detector` over its frames, streamed (memory stays flat); `bar`
/// shows frames, rate and ETA.
pub fn detect_cuts(info: &VideoInfo, detector: &ShotDetector, bar: &dyn Bar) -> Result<Detection> {
    let (settings, mut finder) = match *detector {
        ShotDetector::TransNet(s) => (
            DecodeSettings::squeezed(info, FRAME_WIDTH as u32, FRAME_HEIGHT as u32),
            Finder::Net {
                stream: TransNetStream::new(load_transnet()?),
                threshold: s.threshold,
                single: Vec::new(),
            },
        ),
        ShotDetector::Frames(d) => (
            DecodeSettings::scaled(info, DETECTION_WIDTH),
            Finder::Frames(d.start()),
        ),
    };
    let mut reader = FrameReader::open(info, settings)?.prefetch(PREFETCH_FRAMES);
    let expected = info.expected_frames().unwrap_or(0);
    bar.restart(expected);
    let mut cuts = Vec::new();
    let (mut decode_time, mut detect_time) = (Duration::ZERO, Duration::ZERO);
    let started = Instant::now();
    let mut shown = Instant::now();
    loop {
        let t = Instant::now();
        let next = reader.next_frame()?;
        decode_time += t.elapsed();
        let Some(frame) = next else { break };
        let t = Instant::now();
        let n = reader.frames() - 1;
        finder.push(n, &frame, &mut cuts)?;
        reader.recycle(frame);
        detect_time += t.elapsed();
        if shown.elapsed() >= Duration::from_millis(250) {
            bar.set(n + 1, expected.max(n + 1));
            bar.message(&progress_message(
                n + 1,
                expected,
                started.elapsed(),
                cuts.len(),
            ));
            shown = Instant::now();
        }
    }
    let t = Instant::now();
    finder.finish(&mut cuts)?;
    detect_time += t.elapsed();
    let probabilities = match finder {
        Finder::Net { single, .. } => single,
        Finder::Frames(_) => Vec::new(),
    };
    let frames = reader.frames();
    let mut warnings = Vec::new();
    if let Some(complaint) = reader.finish()? {
        warnings.push(format!(
            "{}: ffmpeg reported damaged data (the {frames} frames it could decode were used): {complaint}",
            info.path.display()
        ));
    }
    if expected > 0 && frames + frames / 50 + 2 < expected {
        warnings.push(format!(
            "{}: {frames} frames decoded of the {expected} its header announces (truncated file?)",
            info.path.display()
        ));
    }
    Ok(Detection {
        cuts,
        frames,
        decode_time,
        detect_time,
        probabilities,
        warnings,
    })
}

/// `1,234 / 5,000 frames · 412 frames/s · ETA 0:09 · 12 cuts`.
fn progress_message(done: u64, expected: u64, elapsed: Duration, cuts: usize) -> String {
    let rate = done as f64 / elapsed.as_secs_f64().max(1e-9);
    let eta = if expected > done && rate > 0.0 {
        let s = ((expected - done) as f64 / rate).round() as u64;
        format!(" · ETA {}:{:02}", s / 60, s % 60)
    } else {
        String::new()
    };
    format!("decoding {done} frames · {rate:.0} frames/s{eta} · {cuts} cuts")
}

fn film_subtitles(request: &ShotsRequest, info: &VideoInfo) -> Result<SubtitleOutcome> {
    subtitles_from_video(&request.film_dir, info, request.subtitle_lang.as_deref())
}

/// The film folder's subtitles, or the video's text track (in `language`,
/// else English, else the first) written out as `FILM_DIR/subtitles.srt`
/// when it has none; why not, when the video has no usable track.
pub fn subtitles_from_video(
    film_dir: &Path,
    info: &VideoInfo,
    language: Option<&str>,
) -> Result<SubtitleOutcome> {
    if let Some(present) = SUBTITLE_FILES
        .iter()
        .map(|f| film_dir.join(f))
        .find(|p| p.is_file())
    {
        return Ok(SubtitleOutcome::Present(present));
    }
    let track = match choose_track(info, language) {
        Ok(t) => t,
        Err(e) => return Ok(SubtitleOutcome::Unavailable(e.to_string())),
    };
    std::fs::create_dir_all(film_dir)
        .with_context(|| format!("creating {}", film_dir.display()))?;
    let path = film_dir.join(SUBTITLE_FILES[0]);
    extract_track(info, track, &path)?;
    Ok(SubtitleOutcome::Extracted {
        path,
        track: track.describe(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_progress_line_gives_rate_and_eta() {
        let m = progress_message(500, 1500, Duration::from_secs(2), 3);
        assert_eq!(m, "decoding 500 frames · 250 frames/s · ETA 0:04 · 3 cuts");
        let m = progress_message(500, 0, Duration::from_secs(1), 0);
        assert_eq!(m, "decoding 500 frames · 500 frames/s · 0 cuts");
    }

    #[test]
    fn detectors_are_named_as_the_command_line_names_them() {
        for name in DETECTORS {
            assert_eq!(detector_named(name).unwrap().name(), name);
        }
        assert!(detector_named("shotdetect").is_none());
    }

    #[test]
    fn the_fingerprint_reads_both_ends_of_a_file() {
        let dir = std::env::temp_dir().join(format!("mg-fp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("v.mp4");
        let mut bytes = vec![7u8; 3 << 20];
        std::fs::write(&f, &bytes).unwrap();
        let a = video_fingerprint(&f).unwrap();
        let last = bytes.len() - 1;
        bytes[last] = 8;
        std::fs::write(&f, &bytes).unwrap();
        let b = video_fingerprint(&f).unwrap();
        assert_ne!(a.split("sha256:").nth(1), b.split("sha256:").nth(1));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
