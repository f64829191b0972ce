//! A video's own subtitles: choose a text track by language and write it
//! out as SubRip with ffmpeg. Picture tracks (PGS, VobSub, DVB) hold images
//! of text and are refused by name.

use std::path::Path;
use std::process::{Command, Stdio};

use super::probe::{SubtitleTrack, VideoInfo};
use super::{ffmpeg_program, last_words, missing, VideoError};

/// The track to take: the first text track in `language` when one is asked
/// (`en`, `eng` or `english` all match English; otherwise the tag as written),
/// else the first English text track, else the first text track. An error
/// names the tracks when none fits, and says why picture tracks cannot be used.
pub fn choose_track<'a>(
    info: &'a VideoInfo,
    language: Option<&str>,
) -> Result<&'a SubtitleTrack, VideoError> {
    let refuse = |message: String| VideoError::Subtitles {
        path: info.path.clone(),
        message,
    };
    if info.subtitles.is_empty() {
        return Err(refuse(
            "no subtitle track in the file; put subtitles.srt beside the script".into(),
        ));
    }
    let text: Vec<&SubtitleTrack> = info.subtitles.iter().filter(|t| t.is_text()).collect();
    let pictures: Vec<String> = info
        .subtitles
        .iter()
        .filter(|t| !t.is_text())
        .map(SubtitleTrack::describe)
        .collect();
    let picture_note = if pictures.is_empty() {
        String::new()
    } else {
        format!(
            "; {} hold pictures of text, not text (they would need OCR, which moviegraph does not do)",
            pictures.join(", ")
        )
    };
    let chosen = match language {
        Some(lang) => text.iter().copied().find(|t| matches_language(t, lang)),
        None => text
            .iter()
            .copied()
            .find(|t| t.is_english())
            .or_else(|| text.first().copied()),
    };
    chosen.ok_or_else(|| {
        let wanted = language.map_or("text subtitle track".to_string(), |l| {
            format!("text subtitle track in `{l}`")
        });
        let have: Vec<String> = text.iter().map(|t| t.describe()).collect();
        let have = if have.is_empty() {
            String::new()
        } else {
            format!("; text tracks: {}", have.join(", "))
        };
        refuse(format!(
            "no {wanted}{have}{picture_note}; put subtitles.srt beside the script"
        ))
    })
}

fn matches_language(track: &SubtitleTrack, wanted: &str) -> bool {
    let wanted = wanted.trim().to_ascii_lowercase();
    if matches!(wanted.as_str(), "en" | "eng" | "english") {
        return track.is_english();
    }
    track
        .language
        .as_deref()
        .is_some_and(|l| l.eq_ignore_ascii_case(&wanted))
}

/// Writes `track` of `info`'s video to `target` as SubRip (through a
/// temporary file beside it, renamed when complete).
pub fn extract_track(
    info: &VideoInfo,
    track: &SubtitleTrack,
    target: &Path,
) -> Result<(), VideoError> {
    let partial = target.with_extension("srt.partial");
    let out = Command::new(ffmpeg_program())
        .args(["-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-i"])
        .arg(&info.path)
        .args([
            "-map",
            &format!("0:s:{}", track.ordinal),
            "-c:s",
            "srt",
            "-f",
            "srt",
        ])
        .arg(&partial)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| missing("ffmpeg", "MOVIEGRAPH_FFMPEG", &e))?;
    if !out.status.success() {
        let _ = std::fs::remove_file(&partial);
        return Err(VideoError::Subtitles {
            path: info.path.clone(),
            message: format!(
                "could not take out {}: {}",
                track.describe(),
                last_words(&String::from_utf8_lossy(&out.stderr))
            ),
        });
    }
    std::fs::rename(&partial, target).map_err(|e| VideoError::io(target, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::media::shots::FrameRate;
    use std::path::PathBuf;

    fn track(ordinal: usize, codec: &str, lang: Option<&str>) -> SubtitleTrack {
        SubtitleTrack {
            ordinal,
            stream: ordinal + 1,
            codec: codec.into(),
            language: lang.map(str::to_string),
            title: None,
        }
    }

    fn video(subtitles: Vec<SubtitleTrack>) -> VideoInfo {
        VideoInfo {
            path: PathBuf::from("/films/f.mkv"),
            bytes: 1,
            container: "matroska,webm".into(),
            codec: "h264".into(),
            width: 8,
            height: 8,
            rotation: 0,
            rate: FrameRate::new(24, 1).unwrap(),
            variable_rate: false,
            duration_s: Some(1.0),
            frames: None,
            subtitles,
        }
    }

    #[test]
    fn english_text_comes_first_and_a_language_can_be_asked() {
        let v = video(vec![
            track(0, "hdmv_pgs_subtitle", Some("eng")),
            track(1, "subrip", Some("fre")),
            track(2, "ass", Some("eng")),
        ]);
        assert_eq!(choose_track(&v, None).unwrap().ordinal, 2);
        assert_eq!(choose_track(&v, Some("fre")).unwrap().ordinal, 1);
        assert_eq!(choose_track(&v, Some("en")).unwrap().ordinal, 2);
        let v = video(vec![
            track(0, "subrip", Some("ger")),
            track(1, "subrip", None),
        ]);
        assert_eq!(choose_track(&v, None).unwrap().ordinal, 0);
    }

    #[test]
    fn picture_tracks_are_named_and_refused() {
        let v = video(vec![
            track(0, "hdmv_pgs_subtitle", Some("eng")),
            track(1, "dvd_subtitle", None),
        ]);
        let msg = choose_track(&v, None).unwrap_err().to_string();
        assert!(
            msg.starts_with("/films/f.mkv: no text subtitle track; "),
            "{msg}"
        );
        assert!(
            msg.contains("subtitle track 0 (eng, hdmv_pgs_subtitle)"),
            "{msg}"
        );
        assert!(
            msg.contains("subtitle track 1 (no language, dvd_subtitle)"),
            "{msg}"
        );
        assert!(msg.contains("pictures of text"), "{msg}");
        let msg = choose_track(&video(vec![]), None).unwrap_err().to_string();
        assert!(msg.contains("no subtitle track in the file"), "{msg}");
        let v = video(vec![track(0, "subrip", Some("eng"))]);
        let msg = choose_track(&v, Some("spa")).unwrap_err().to_string();
        assert!(msg.contains("no text subtitle track in `spa`"), "{msg}");
        assert!(
            msg.contains("text tracks: subtitle track 0 (eng, subrip)"),
            "{msg}"
        );
    }
}
