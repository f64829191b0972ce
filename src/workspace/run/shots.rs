//! Stage shots: a film folder that holds a video (`*.mp4|mkv|mov|avi|webm`)
//! and no keyframes gets them from the video, in MovieNet's layout, before
//! align; one with no subtitles gets the video's text track. Folders without
//! a video do not have this stage.

use super::*;
use crate::media::video::layout::Provenance;
use crate::media::video::{probe, videos_in};
use crate::workspace::shots::{
    layout_root, make_shots, render, subtitles_from_video, video_fingerprint, ShotsRequest,
    SubtitleOutcome,
};

/// Shots: detect, write the layout and subtitles, and reopen the folder so
/// align finds them.
pub(super) fn shots_stage(film: &mut Film<'_>) -> Result<()> {
    let videos = videos_in(&film.folder.dir);
    let Some(video) = videos.first().cloned() else {
        return Ok(());
    };
    let t = Instant::now();
    let root = layout_root(&film.folder.dir);
    let others = if videos.len() > 1 {
        format!(" ({} other videos in the folder ignored)", videos.len() - 1)
    } else {
        String::new()
    };
    // Keyframes someone else made (MovieNet's, a manifest) are the film's
    // shots; the video only fills in missing subtitles.
    let foreign = film.folder.shots().is_some() && Provenance::read(&root).is_none();
    let lang = film.p.video.subtitle_lang.clone();
    let mut inputs = BTreeMap::new();
    let name = video
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    inputs.insert("video".to_owned(), name.clone());
    inputs.insert(
        "video file".to_owned(),
        video_fingerprint(&video).with_context(|| format!("stage shots, film {}", film.slug))?,
    );
    if foreign {
        inputs.insert("keyframes".to_owned(), "already there".to_owned());
    } else {
        let d = film.p.video.detector;
        inputs.insert("detector".to_owned(), d.name().to_owned());
        inputs.insert("detector settings".to_owned(), d.settings());
    }
    inputs.insert(
        "subtitle language".to_owned(),
        lang.clone()
            .unwrap_or_else(|| "first English, else first".into()),
    );
    inputs.insert(
        "moviegraph".to_owned(),
        env!("CARGO_PKG_VERSION").to_owned(),
    );
    let shot_file = root
        .join("shot_txt")
        .join(format!("{}.txt", film::slug(&film.folder.dir)));
    let files: Vec<PathBuf> = if foreign {
        Vec::new()
    } else {
        vec![shot_file.clone()]
    };
    let (fp, plan) = film.plan(Stage::Shots, &inputs, &files)?;
    let Plan::Run { why, .. } = plan else {
        film.skipped(Stage::Shots, fp, format!("{}{others}", root.display()), t);
        return Ok(());
    };
    film.begin(Stage::Shots, &fp, &inputs)?;
    let detail = if foreign {
        film.bar
            .stage(Stage::Shots, "subtitles from the video", 1, 0.0);
        let info = probe(&video)?;
        let outcome = subtitles_from_video(&film.folder.dir, &info, lang.as_deref())?;
        format!(
            "film {}: stage shots: keyframes already in {} (not made from {name}); {}{others}",
            film.slug,
            root.display(),
            subtitle_line(&outcome)
        )
    } else {
        film.bar.stage(
            Stage::Shots,
            &format!("{} detector, offline", film.p.video.detector.name()),
            0,
            0.0,
        );
        let request = ShotsRequest {
            video: video.clone(),
            film_dir: film.folder.dir.clone(),
            detector: film.p.video.detector,
            keyframe_width: None,
            subtitle_lang: lang,
            // The stage's own fingerprint decides; a layout it wrote before
            // for other settings is remade.
            force: true,
        };
        let bar = film.bar.bar.clone();
        let done = make_shots(&request, bar.as_ref())
            .with_context(|| format!("stage shots, film {}", film.slug))?;
        format!("film {}: stage shots{others}\n{}", film.slug, render(&done))
    };
    let mut outputs = BTreeMap::new();
    if shot_file.is_file() {
        outputs.insert(shot_file.display().to_string(), file_sha(&shot_file)?);
    }
    // Align reads what this stage wrote.
    let allow = film.folder.allow_bad_cues;
    film.folder = FilmFolder::open(&film.folder.dir)?;
    film.folder.allow_bad_cues = allow;
    film.done(Stage::Shots, &fp, &outputs)?;
    film.record(Stage::Shots, Action::Ran, why, detail, t);
    Ok(())
}

fn subtitle_line(outcome: &SubtitleOutcome) -> String {
    match outcome {
        SubtitleOutcome::Present(p) => format!("subtitles: {} (already there)", p.display()),
        SubtitleOutcome::Extracted { path, track } => {
            format!("subtitles: {track} written to {}", path.display())
        }
        SubtitleOutcome::Unavailable(why) => format!("subtitles: none taken out: {why}"),
    }
}
