//! MovieNet's layout written from detected shots: `shot_txt/<id>.txt`,
//! `shot_keyf/<id>/shot_NNNN_img_{0,1,2}.jpg` and `video_info.json`, plus
//! `moviegraph-shots.json` saying how they were made. Everything is written
//! in a sibling folder first and swapped in whole, so a crash leaves either
//! the old layout or the new one, never half of one.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::keyframes::extract_keyframes;
use super::probe::VideoInfo;
use super::VideoError;

/// The frame-rate file of MovieNet's layout.
pub const VIDEO_INFO_FILE: &str = "video_info.json";

/// How the layout was made: written beside it by moviegraph, read back to
/// know whether it is current.
pub const PROVENANCE_FILE: &str = "moviegraph-shots.json";

/// One shot: its first and last frame (inclusive).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShotBounds {
    /// First frame.
    pub start: u64,
    /// Last frame, inclusive.
    pub end: u64,
}

impl ShotBounds {
    /// The three keyframes MovieNet's tools pick: first, middle and last frame.
    pub fn keyframes(&self) -> [u64; 3] {
        [
            self.start,
            self.start + (self.end - self.start) / 2,
            self.end,
        ]
    }
}

/// The shots of a `frames`-frame video cut at `cuts` (frames that start a
/// shot, in order; 0 and out-of-range cuts are ignored).
pub fn shots_from_cuts(cuts: &[u64], frames: u64) -> Vec<ShotBounds> {
    if frames == 0 {
        return Vec::new();
    }
    let mut starts: Vec<u64> = std::iter::once(0)
        .chain(cuts.iter().copied().filter(|&c| c > 0 && c < frames))
        .collect();
    starts.sort_unstable();
    starts.dedup();
    starts
        .iter()
        .enumerate()
        .map(|(i, &start)| ShotBounds {
            start,
            end: starts.get(i + 1).map_or(frames - 1, |next| next - 1),
        })
        .collect()
}

/// How a layout was made (`moviegraph-shots.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// The video's file name.
    pub video: String,
    /// The video's fingerprint (size, modification time, a hash of its ends).
    pub fingerprint: String,
    /// The detector's name.
    pub detector: String,
    /// The detector's settings in one line.
    pub settings: String,
    /// Keyframe width asked for (`None`: full size).
    pub keyframe_width: Option<u32>,
    /// Frames decoded.
    pub frames: u64,
    /// Shots found.
    pub shots: usize,
    /// The moviegraph version that wrote it.
    pub moviegraph: String,
}

impl Provenance {
    /// The provenance file of a layout folder, if moviegraph wrote one.
    pub fn read(root: &Path) -> Option<Provenance> {
        let text = std::fs::read_to_string(root.join(PROVENANCE_FILE)).ok()?;
        serde_json::from_str(&text).ok()
    }
}

/// What to write.
#[derive(Debug, Clone)]
pub struct LayoutRequest<'a> {
    /// The layout's folder (a film folder's `keyframes/`).
    pub root: &'a Path,
    /// The film's id: the name of its shot file and keyframe folder.
    pub film_id: &'a str,
    /// The video.
    pub info: &'a VideoInfo,
    /// Frames decoded.
    pub frames: u64,
    /// The shots.
    pub shots: &'a [ShotBounds],
    /// Keyframe width (`None`: the video's own).
    pub keyframe_width: Option<u32>,
    /// How it was made.
    pub provenance: &'a Provenance,
}

/// `shot_txt/<id>.txt`: `start end kf0 kf1 kf2` per shot.
pub fn shot_txt(shots: &[ShotBounds]) -> String {
    let mut out = String::new();
    for s in shots {
        let [a, b, c] = s.keyframes();
        let _ = writeln!(out, "{} {} {a} {b} {c}", s.start, s.end);
    }
    out
}

/// `video_info.json`: the rate as an exact fraction, frames, duration.
pub fn video_info_json(info: &VideoInfo, frames: u64) -> serde_json::Value {
    let rate = info.rate;
    let duration_ms = (u128::from(frames) * 1000 * u128::from(rate.denominator())
        / u128::from(rate.numerator())) as u64;
    serde_json::json!({
        "fps": format!("{}/{}", rate.numerator(), rate.denominator()),
        "fps_decimal": (rate.as_f64() * 1000.0).round() / 1000.0,
        "frames": frames,
        "duration_ms": duration_ms,
        "width": info.width,
        "height": info.height,
        "rotation": info.rotation,
        "variable_frame_rate": info.variable_rate,
        "video": info.path.file_name().map(|n| n.to_string_lossy().into_owned()),
    })
}

/// Keyframe file names: `shot_NNNN_img_K.jpg`, shot numbers `%04d` as in
/// MovieNet's release (four digits, more without leading zeros).
pub fn keyframe_name(shot: usize, slot: usize) -> String {
    format!("shot_{shot:04}_img_{slot}.jpg")
}

/// Writes the layout into `request.root`, replacing what was there.
pub fn write_layout(request: &LayoutRequest<'_>) -> Result<PathBuf, VideoError> {
    let root = request.root;
    let parent = root.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(|e| VideoError::io(parent, e))?;
    let name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "keyframes".into());
    let partial = parent.join(format!(".{name}.partial"));
    if partial.exists() {
        // Left by a run that was stopped: start it over.
        std::fs::remove_dir_all(&partial).map_err(|e| VideoError::io(&partial, e))?;
    }
    let shot_dir = partial.join("shot_txt");
    std::fs::create_dir_all(&shot_dir).map_err(|e| VideoError::io(&shot_dir, e))?;
    let shot_file = shot_dir.join(format!("{}.txt", request.film_id));
    std::fs::write(&shot_file, shot_txt(request.shots))
        .map_err(|e| VideoError::io(&shot_file, e))?;
    let info_file = partial.join(VIDEO_INFO_FILE);
    let info = video_info_json(request.info, request.frames);
    std::fs::write(&info_file, format!("{info:#}\n")).map_err(|e| VideoError::io(&info_file, e))?;

    let mut wanted: Vec<u64> = request.shots.iter().flat_map(|s| s.keyframes()).collect();
    wanted.sort_unstable();
    wanted.dedup();
    let staging = partial.join(".frames");
    let files = extract_keyframes(request.info, &wanted, request.keyframe_width, &staging)?;
    let keyf_dir = partial.join("shot_keyf").join(request.film_id);
    std::fs::create_dir_all(&keyf_dir).map_err(|e| VideoError::io(&keyf_dir, e))?;
    for (i, shot) in request.shots.iter().enumerate() {
        for (slot, frame) in shot.keyframes().iter().enumerate() {
            let at = wanted
                .binary_search(frame)
                .expect("every keyframe was asked for");
            let target = keyf_dir.join(keyframe_name(i, slot));
            std::fs::copy(&files[at], &target).map_err(|e| VideoError::io(&target, e))?;
        }
    }
    std::fs::remove_dir_all(&staging).map_err(|e| VideoError::io(&staging, e))?;
    let prov_file = partial.join(PROVENANCE_FILE);
    let prov = serde_json::to_string_pretty(request.provenance).expect("provenance serializes");
    std::fs::write(&prov_file, prov + "\n").map_err(|e| VideoError::io(&prov_file, e))?;

    // Swap in whole: the old layout moves aside, the new one takes its name.
    let old = parent.join(format!(".{name}.old"));
    if old.exists() {
        std::fs::remove_dir_all(&old).map_err(|e| VideoError::io(&old, e))?;
    }
    if root.exists() {
        std::fs::rename(root, &old).map_err(|e| VideoError::io(root, e))?;
    }
    std::fs::rename(&partial, root).map_err(|e| VideoError::io(root, e))?;
    if old.exists() {
        std::fs::remove_dir_all(&old).map_err(|e| VideoError::io(&old, e))?;
    }
    Ok(root
        .join("shot_txt")
        .join(format!("{}.txt", request.film_id)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_become_inclusive_shots_with_movienets_three_keyframes() {
        let shots = shots_from_cuts(&[96, 151, 0, 151, 400], 224);
        assert_eq!(
            shots,
            vec![
                ShotBounds { start: 0, end: 95 },
                ShotBounds {
                    start: 96,
                    end: 150
                },
                ShotBounds {
                    start: 151,
                    end: 223
                },
            ]
        );
        assert_eq!(
            shot_txt(&shots),
            "0 95 0 47 95\n96 150 96 123 150\n151 223 151 187 223\n"
        );
        assert_eq!(
            shots_from_cuts(&[], 1),
            vec![ShotBounds { start: 0, end: 0 }]
        );
        assert!(shots_from_cuts(&[3], 0).is_empty());
        assert_eq!(ShotBounds { start: 5, end: 5 }.keyframes(), [5, 5, 5]);
    }

    #[test]
    fn keyframe_names_have_at_least_four_digits() {
        assert_eq!(keyframe_name(7, 2), "shot_0007_img_2.jpg");
        assert_eq!(keyframe_name(12_345, 0), "shot_12345_img_0.jpg");
    }
}
