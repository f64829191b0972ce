//! What a video file holds, as ffprobe reads it: the first video stream's
//! size, frame rate, rotation and length, and the subtitle tracks.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::{ffprobe_program, last_words, missing, VideoError};
use crate::media::shots::FrameRate;

/// Subtitle codecs that are text (`ffmpeg -f srt` can write them).
const TEXT_SUBTITLE_CODECS: [&str; 7] =
    ["subrip", "srt", "ass", "ssa", "mov_text", "webvtt", "text"];

/// One subtitle track of a video.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubtitleTrack {
    /// Position among the file's subtitle streams (ffmpeg's `0:s:N`).
    pub ordinal: usize,
    /// The stream's index in the file.
    pub stream: usize,
    /// ffmpeg's codec name (`subrip`, `mov_text`, `hdmv_pgs_subtitle`, …).
    pub codec: String,
    /// The language tag (`eng`, `fre`, …), when the file names one.
    pub language: Option<String>,
    /// The track's title, when the file names one.
    pub title: Option<String>,
}

impl SubtitleTrack {
    /// Whether the track is text (pictures of text, like PGS and VobSub, are not).
    pub fn is_text(&self) -> bool {
        TEXT_SUBTITLE_CODECS.contains(&self.codec.as_str())
    }

    /// Whether the language tag says English.
    pub fn is_english(&self) -> bool {
        self.language
            .as_deref()
            .is_some_and(|l| matches!(l.to_ascii_lowercase().as_str(), "en" | "eng" | "english"))
    }

    /// `track 2 (eng, subrip, "SDH")`, for messages.
    pub fn describe(&self) -> String {
        let mut parts = vec![self
            .language
            .clone()
            .unwrap_or_else(|| "no language".into())];
        parts.push(self.codec.clone());
        if let Some(t) = &self.title {
            parts.push(format!("\"{t}\""));
        }
        format!("subtitle track {} ({})", self.ordinal, parts.join(", "))
    }
}

/// What a video file holds.
#[derive(Debug, Clone, PartialEq)]
pub struct VideoInfo {
    /// The file.
    pub path: PathBuf,
    /// Its size in bytes.
    pub bytes: u64,
    /// The container, as ffmpeg names it (`mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`).
    pub container: String,
    /// The video codec (`h264`, `vp9`, …).
    pub codec: String,
    /// Width of the frames as shown (after rotation).
    pub width: u32,
    /// Height of the frames as shown (after rotation).
    pub height: u32,
    /// Clockwise rotation the file asks players to apply (0, 90, 180, 270).
    pub rotation: u32,
    /// The frame rate frames are numbered at: the stream's average rate
    /// (its nominal rate when the average is unknown).
    pub rate: FrameRate,
    /// Whether the stream's frames are not evenly spaced (its nominal and
    /// average rates differ, or its first frames' timestamps are uneven).
    /// Frames are always placed on [`VideoInfo::rate`]'s clock by their
    /// timestamps, so frame numbers are times either way.
    pub variable_rate: bool,
    /// Length in seconds, when known.
    pub duration_s: Option<f64>,
    /// Frames the container says the stream holds, when it says.
    pub frames: Option<u64>,
    /// The subtitle tracks, in file order.
    pub subtitles: Vec<SubtitleTrack>,
}

impl VideoInfo {
    /// Frames expected: the container's count, else duration × rate.
    pub fn expected_frames(&self) -> Option<u64> {
        self.frames.filter(|&f| f > 0).or_else(|| {
            self.duration_s
                .map(|d| (d * self.rate.as_f64()).round() as u64)
                .filter(|&f| f > 0)
        })
    }
}

/// Reads what `path` holds with ffprobe. Errors name the file: empty, not
/// media, no video stream, or ffprobe missing.
pub fn probe(path: &Path) -> Result<VideoInfo, VideoError> {
    let meta = std::fs::metadata(path).map_err(|e| VideoError::io(path, e))?;
    if meta.is_dir() {
        return Err(VideoError::NotVideo {
            path: path.to_path_buf(),
            reason: "it is a folder".into(),
        });
    }
    if meta.len() == 0 {
        return Err(VideoError::Empty {
            path: path.to_path_buf(),
        });
    }
    let out = Command::new(ffprobe_program())
        .args([
            "-v",
            "error",
            "-print_format",
            "json",
            "-show_format",
            "-show_streams",
        ])
        .arg(path)
        .output()
        .map_err(|e| missing("ffprobe", "MOVIEGRAPH_FFPROBE", &e))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(VideoError::NotVideo {
            path: path.to_path_buf(),
            reason: last_words(&stderr),
        });
    }
    let json: Value = serde_json::from_slice(&out.stdout).map_err(|e| VideoError::NotVideo {
        path: path.to_path_buf(),
        reason: format!("ffprobe's answer is not JSON: {e}"),
    })?;
    let mut info = read_probe(path, meta.len(), &json)?;
    if !info.variable_rate {
        info.variable_rate = irregular_timing(path);
    }
    Ok(info)
}

/// Packets whose timestamps are sampled to tell a variable frame rate.
const TIMING_SAMPLE: usize = 600;

/// Whether the first [`TIMING_SAMPLE`] frames of the video stream are not
/// evenly spaced (a phone's or a screen recording's variable rate, which a
/// container like Matroska does not announce). Unknown counts as even.
fn irregular_timing(path: &Path) -> bool {
    let out = Command::new(ffprobe_program())
        .args([
            "-v",
            "error",
            "-select_streams",
            "v:0",
            "-show_entries",
            "packet=pts_time",
        ])
        .args([
            "-read_intervals",
            &format!("%+#{TIMING_SAMPLE}"),
            "-of",
            "csv=p=0",
        ])
        .arg(path)
        .output();
    let Ok(out) = out else { return false };
    let mut times: Vec<f64> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.trim().trim_end_matches(',').parse::<f64>().ok())
        .collect();
    uneven(&mut times)
}

/// Whether presentation times (in any order) are unevenly spaced: the
/// largest gap more than 1.5 times the smallest (beyond a millisecond of rounding).
fn uneven(times: &mut [f64]) -> bool {
    times.sort_by(f64::total_cmp);
    let gaps: Vec<f64> = times
        .windows(2)
        .map(|w| w[1] - w[0])
        .filter(|g| *g > 0.0)
        .collect();
    let (Some(min), Some(max)) = (
        gaps.iter().copied().reduce(f64::min),
        gaps.iter().copied().reduce(f64::max),
    ) else {
        return false;
    };
    max > 1.5 * min + 0.001
}

/// The [`VideoInfo`] in ffprobe's JSON answer.
pub fn read_probe(path: &Path, bytes: u64, json: &Value) -> Result<VideoInfo, VideoError> {
    let streams = json["streams"].as_array().cloned().unwrap_or_default();
    let format = &json["format"];
    let is_picture = |s: &Value| s["disposition"]["attached_pic"].as_i64() == Some(1);
    let video = streams
        .iter()
        .find(|s| s["codec_type"] == "video" && !is_picture(s));
    let Some(video) = video else {
        let mut kinds: Vec<String> = streams
            .iter()
            .map(|s| {
                let kind = s["codec_type"].as_str().unwrap_or("unknown");
                if is_picture(s) {
                    "a cover picture".to_string()
                } else {
                    format!("{kind} ({})", s["codec_name"].as_str().unwrap_or("?"))
                }
            })
            .collect();
        kinds.dedup();
        let holds = if kinds.is_empty() {
            "no streams".to_string()
        } else {
            kinds.join(", ")
        };
        return Err(VideoError::NoVideoStream {
            path: path.to_path_buf(),
            holds,
        });
    };
    let width = video["width"].as_u64().unwrap_or(0) as u32;
    let height = video["height"].as_u64().unwrap_or(0) as u32;
    if width == 0 || height == 0 {
        return Err(VideoError::NotVideo {
            path: path.to_path_buf(),
            reason: "its video stream has no frame size (damaged header?)".into(),
        });
    }
    let nominal = video["r_frame_rate"].as_str().and_then(FrameRate::parse);
    let average = video["avg_frame_rate"].as_str().and_then(FrameRate::parse);
    let Some(rate) = average.or(nominal) else {
        return Err(VideoError::NotVideo {
            path: path.to_path_buf(),
            reason: "its video stream has no frame rate".into(),
        });
    };
    let variable_rate = match (nominal, average) {
        (Some(n), Some(a)) => (n.as_f64() - a.as_f64()).abs() > 0.01 * a.as_f64(),
        _ => false,
    };
    let rotation = rotation_of(video);
    let (width, height) = if rotation % 180 == 90 {
        (height, width)
    } else {
        (width, height)
    };
    let number = |v: &Value| -> Option<f64> {
        v.as_str()
            .and_then(|s| s.parse::<f64>().ok())
            .or_else(|| v.as_f64())
            .filter(|d| d.is_finite() && *d > 0.0)
    };
    let duration_s = number(&video["duration"]).or_else(|| number(&format["duration"]));
    let frames = video["nb_frames"]
        .as_str()
        .and_then(|s| s.parse::<u64>().ok())
        .filter(|&n| n > 0);
    let subtitles = streams
        .iter()
        .filter(|s| s["codec_type"] == "subtitle")
        .enumerate()
        .map(|(ordinal, s)| SubtitleTrack {
            ordinal,
            stream: s["index"].as_u64().unwrap_or(0) as usize,
            codec: s["codec_name"].as_str().unwrap_or("unknown").to_string(),
            language: tag(s, "language").filter(|l| l != "und"),
            title: tag(s, "title"),
        })
        .collect();
    Ok(VideoInfo {
        path: path.to_path_buf(),
        bytes,
        container: format["format_name"].as_str().unwrap_or("?").to_string(),
        codec: video["codec_name"].as_str().unwrap_or("?").to_string(),
        width,
        height,
        rotation,
        rate,
        variable_rate,
        duration_s,
        frames,
        subtitles,
    })
}

fn tag(stream: &Value, key: &str) -> Option<String> {
    stream["tags"][key]
        .as_str()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// The clockwise rotation a stream asks for: its display matrix, else its
/// old-style `rotate` tag; 0, 90, 180 or 270.
fn rotation_of(stream: &Value) -> u32 {
    let from_matrix = stream["side_data_list"]
        .as_array()
        .into_iter()
        .flatten()
        .find_map(|d| d["rotation"].as_f64());
    let from_tag = tag(stream, "rotate").and_then(|r| r.parse::<f64>().ok());
    let degrees = from_matrix.or(from_tag).unwrap_or(0.0);
    let quarter = ((degrees / 90.0).round() as i64).rem_euclid(4);
    (quarter * 90) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn info(json: Value) -> Result<VideoInfo, VideoError> {
        read_probe(Path::new("/films/f.mp4"), 1000, &json)
    }

    #[test]
    fn a_rotated_stream_swaps_its_shown_size_and_subtitles_are_listed() {
        let v = info(json!({
            "format": {"format_name": "mov,mp4", "duration": "2.000"},
            "streams": [
                {"index": 0, "codec_type": "video", "codec_name": "h264", "width": 320, "height": 180,
                 "r_frame_rate": "24000/1001", "avg_frame_rate": "24000/1001", "nb_frames": "48",
                 "side_data_list": [{"rotation": -90}]},
                {"index": 1, "codec_type": "subtitle", "codec_name": "mov_text", "tags": {"language": "eng"}},
                {"index": 2, "codec_type": "subtitle", "codec_name": "hdmv_pgs_subtitle", "tags": {"language": "und"}}
            ]
        }))
        .unwrap();
        assert_eq!((v.width, v.height, v.rotation), (180, 320, 270));
        assert_eq!(v.rate, FrameRate::new(24000, 1001).unwrap());
        assert!(!v.variable_rate);
        assert_eq!(v.expected_frames(), Some(48));
        assert_eq!(v.subtitles.len(), 2);
        assert!(v.subtitles[0].is_text() && v.subtitles[0].is_english());
        assert!(!v.subtitles[1].is_text());
        assert_eq!(v.subtitles[1].language, None);
        assert_eq!(v.subtitles[1].ordinal, 1);
    }

    #[test]
    fn rates_that_differ_mark_a_variable_rate_and_the_average_numbers_frames() {
        let v = info(json!({
            "format": {"format_name": "matroska,webm", "duration": "10.0"},
            "streams": [{"index": 0, "codec_type": "video", "codec_name": "vp9", "width": 64, "height": 64,
                         "r_frame_rate": "60/1", "avg_frame_rate": "2997/100"}]
        }))
        .unwrap();
        assert!(v.variable_rate);
        assert_eq!(v.rate, FrameRate::new(2997, 100).unwrap());
        assert_eq!(v.expected_frames(), Some(300));
    }

    #[test]
    fn uneven_timestamps_tell_a_variable_rate() {
        let mut even: Vec<f64> = (0..48).map(|i| f64::from(i) / 24.0).rev().collect();
        assert!(!uneven(&mut even));
        let mut rounded = vec![0.0, 0.042, 0.083, 0.125, 0.167, 0.208];
        assert!(!uneven(&mut rounded));
        let mut mixed: Vec<f64> = (0..24).map(|i| f64::from(i) / 24.0).collect();
        mixed.extend((0..12).map(|i| 1.0 + f64::from(i) / 12.0));
        assert!(uneven(&mut mixed));
        assert!(!uneven(&mut []));
    }

    #[test]
    fn audio_only_or_a_cover_picture_is_no_video_stream() {
        let e = info(json!({
            "format": {},
            "streams": [
                {"index": 0, "codec_type": "audio", "codec_name": "mp3"},
                {"index": 1, "codec_type": "video", "codec_name": "mjpeg", "width": 300, "height": 300,
                 "disposition": {"attached_pic": 1}}
            ]
        }))
        .unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("/films/f.mp4: no video stream"), "{msg}");
        assert!(
            msg.contains("audio (mp3)") && msg.contains("cover picture"),
            "{msg}"
        );
    }

    #[test]
    fn a_stream_without_size_or_rate_is_refused_with_the_reason() {
        let e = info(json!({"streams": [{"codec_type": "video", "width": 0, "height": 0}]}));
        assert!(e.unwrap_err().to_string().contains("no frame size"));
        let e = info(
            json!({"streams": [{"codec_type": "video", "width": 8, "height": 8,
                                          "r_frame_rate": "0/0", "avg_frame_rate": "0/0"}]}),
        );
        assert!(e.unwrap_err().to_string().contains("no frame rate"));
    }
}
