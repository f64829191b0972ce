//! A film's video file: what it holds ([`probe`]), its frames streamed
//! through ffmpeg ([`decode`]), shot boundaries found in them ([`detect`]),
//! MovieNet's layout written from them ([`layout`], [`keyframes`]), and its
//! text subtitle track taken out ([`subtitle_track`]).
//!
//! ffmpeg and ffprobe are run as programs (Debian's `ffmpeg` package, or the
//! binaries named by `$MOVIEGRAPH_FFMPEG` / `$MOVIEGRAPH_FFPROBE`): frames
//! come downscaled through a pipe, one at a time, so memory stays flat on a
//! four-hour file.

use std::path::{Path, PathBuf};

pub mod decode;
pub mod detect;
pub mod keyframes;
pub mod layout;
pub mod probe;
pub mod subtitle_track;
pub mod transnet;

pub use decode::{DecodeSettings, FrameReader, Scaler};
pub use detect::{
    AdaptiveSettings, ContentSettings, CutDetector, Detector, HsvFrame, RobustSettings,
};
pub use layout::{write_layout, LayoutRequest, ShotBounds, VIDEO_INFO_FILE};
pub use probe::{probe, SubtitleTrack, VideoInfo};

/// A shot detector: one of the HSV rules over frames at the detection
/// width, or TransNetV2 over 48×27 frames.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ShotDetector {
    /// `content`, `adaptive` or `robust` (see [`detect`]).
    Frames(Detector),
    /// TransNetV2 (see [`transnet`]).
    TransNet(TransNetSettings),
}

/// TransNetV2's settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TransNetSettings {
    /// A frame whose single-frame probability is above this is a
    /// transition frame (the reference's default, 0.5).
    pub threshold: f32,
}

impl Default for TransNetSettings {
    fn default() -> Self {
        TransNetSettings { threshold: 0.5 }
    }
}

impl ShotDetector {
    /// The detector's name on the command line and in outputs.
    pub fn name(&self) -> &'static str {
        match self {
            ShotDetector::Frames(d) => d.name(),
            ShotDetector::TransNet(_) => "transnet",
        }
    }

    /// The settings in one line (part of a run's fingerprint).
    pub fn settings(&self) -> String {
        match self {
            ShotDetector::Frames(d) => d.settings(),
            ShotDetector::TransNet(s) => format!(
                "threshold {}, windows of {} frames by 50, weights sha256 {}",
                s.threshold,
                transnet::WINDOW,
                &transnet::TRANSNET_WEIGHTS.1[..12]
            ),
        }
    }
}

/// File name extensions `run` takes for a film's video, lower case.
pub const VIDEO_EXTENSIONS: [&str; 5] = ["mp4", "mkv", "mov", "avi", "webm"];

/// Why a video could not be read or its shots written.
#[derive(Debug, thiserror::Error)]
pub enum VideoError {
    /// ffmpeg or ffprobe is not installed.
    #[error("{tool} not found ({hint}); install Debian's ffmpeg package (`apt-get install ffmpeg`) or set {env} to the program")]
    ToolMissing {
        /// `ffmpeg` or `ffprobe`.
        tool: &'static str,
        /// The environment variable that names it.
        env: &'static str,
        /// What went wrong when it was started.
        hint: String,
    },
    /// The file is empty.
    #[error("{path}: empty file (0 bytes); expected a video")]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// ffprobe could not read the file as media.
    #[error("{path}: not a video ffmpeg can read: {reason}")]
    NotVideo {
        /// The file.
        path: PathBuf,
        /// ffprobe's reason.
        reason: String,
    },
    /// The file holds no video stream (audio only, subtitles only).
    #[error("{path}: no video stream (it holds {holds}); expected a film")]
    NoVideoStream {
        /// The file.
        path: PathBuf,
        /// The streams it does hold.
        holds: String,
    },
    /// Decoding failed part way or at the start.
    #[error("{path}: decoding failed after {frames} frames: {message}")]
    Decode {
        /// The file.
        path: PathBuf,
        /// Frames read before it failed.
        frames: u64,
        /// ffmpeg's last words.
        message: String,
    },
    /// A subtitle track cannot be used as text.
    #[error("{path}: {message}")]
    Subtitles {
        /// The file.
        path: PathBuf,
        /// What is wrong and what to do.
        message: String,
    },
    /// The shot-detection network's weights are missing, corrupt or not
    /// the network's, or the network failed to run.
    #[error("{path}: {problem}")]
    Model {
        /// The weights file (or its folder).
        path: PathBuf,
        /// What is wrong and what to do.
        problem: String,
    },
    /// A file or folder could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },
}

impl VideoError {
    /// An I/O error about `path`.
    pub fn io(path: &Path, source: std::io::Error) -> VideoError {
        VideoError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// The ffmpeg program: `$MOVIEGRAPH_FFMPEG`, else `ffmpeg` on the PATH.
pub fn ffmpeg_program() -> PathBuf {
    program("MOVIEGRAPH_FFMPEG", "ffmpeg")
}

/// The ffprobe program: `$MOVIEGRAPH_FFPROBE`, else `ffprobe` on the PATH.
pub fn ffprobe_program() -> PathBuf {
    program("MOVIEGRAPH_FFPROBE", "ffprobe")
}

fn program(env: &str, name: &str) -> PathBuf {
    std::env::var_os(env)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(name))
}

/// The error for a program that would not start.
fn missing(tool: &'static str, env: &'static str, e: &std::io::Error) -> VideoError {
    VideoError::ToolMissing {
        tool,
        env,
        hint: e.to_string(),
    }
}

/// The first line of `ffmpeg -version` (`ffmpeg version 5.1.9-0+deb12u1 …`),
/// or why ffmpeg cannot be run.
pub fn ffmpeg_version() -> Result<String, VideoError> {
    let out = std::process::Command::new(ffmpeg_program())
        .arg("-version")
        .output()
        .map_err(|e| missing("ffmpeg", "MOVIEGRAPH_FFMPEG", &e))?;
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(text.lines().next().unwrap_or("ffmpeg").trim().to_string())
}

/// Whether `path` is named like a video `run` takes.
pub fn is_video_file(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| VIDEO_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

/// The videos in a folder (not its subfolders), by name.
pub fn videos_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.is_file() && is_video_file(p))
        .collect();
    found.sort();
    found
}

/// The last non-empty lines of a program's error output, joined, for a message.
fn last_words(stderr: &str) -> String {
    let lines: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let tail = &lines[lines.len().saturating_sub(3)..];
    if tail.is_empty() {
        "no message".to_string()
    } else {
        tail.join("; ")
    }
}
