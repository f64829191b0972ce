//! The synthetic videos of `bench shots`: ffmpeg's own sources cut, faded,
//! dissolved, flashed, panned and strobed, each with its known boundaries.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context};

/// A boundary a video really has: a hard cut (`start == end`, the first
/// frame of the new shot) or a gradual transition over `start..=end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Truth {
    /// First frame of the transition (a cut: the new shot's first frame).
    pub start: u64,
    /// Last frame of the transition.
    pub end: u64,
}

impl Truth {
    fn cut(frame: u64) -> Truth {
        Truth {
            start: frame,
            end: frame,
        }
    }

    fn span(from_s: f64, seconds: f64) -> Truth {
        let start = (from_s * FPS as f64).round() as u64;
        let end = ((from_s + seconds) * FPS as f64).round() as u64 - 1;
        Truth { start, end }
    }
}

/// What a synthetic video is meant to test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Hard cuts only.
    Cuts,
    /// Fades and dissolves.
    Gradual,
    /// No boundary at all: anything found is a false cut.
    NoBoundary,
}

impl Class {
    /// The class's name in the table.
    pub fn name(self) -> &'static str {
        match self {
            Class::Cuts => "hard cuts",
            Class::Gradual => "gradual",
            Class::NoBoundary => "no boundary",
        }
    }
}

/// One synthetic video.
#[derive(Debug, Clone)]
pub struct Synthetic {
    /// Its name.
    pub name: &'static str,
    /// What it tests.
    pub class: Class,
    /// Its file.
    pub path: PathBuf,
    /// Its boundaries.
    pub truth: Vec<Truth>,
}

const FPS: u64 = 24;
const SIZE: &str = "640x360";

/// The sources shots are made of: each looks unlike the others.
fn source(i: usize, seconds: f64) -> String {
    let base = match i % 8 {
        0 => "testsrc2=size=SIZE:rate=24".to_string(),
        1 => "smptebars=size=SIZE:rate=24".to_string(),
        2 => "mandelbrot=size=SIZE:rate=24".to_string(),
        3 => "life=size=SIZE:rate=24:mold=10:ratio=0.5:death_color=#203040:life_color=#e0c060"
            .to_string(),
        4 => "gradients=size=SIZE:rate=24:speed=0.05".to_string(),
        5 => "cellauto=size=SIZE:rate=24:rule=110".to_string(),
        6 => "rgbtestsrc=size=SIZE:rate=24".to_string(),
        _ => "color=c=0x305080:size=SIZE:rate=24,noise=alls=20:allf=t".to_string(),
    };
    format!(
        "{},trim=duration={seconds},setpts=PTS-STARTPTS,format=yuv420p",
        base.replace("SIZE", SIZE)
    )
}

fn encode(graph: &str, out: &Path) -> anyhow::Result<()> {
    let status = Command::new("ffmpeg")
        .args([
            "-v",
            "error",
            "-y",
            "-nostdin",
            "-filter_complex",
            graph,
            "-map",
            "[v]",
        ])
        .args([
            "-c:v", "libx264", "-preset", "veryfast", "-crf", "18", "-pix_fmt", "yuv420p",
        ])
        .arg(out)
        .output()
        .context("running ffmpeg (install Debian's ffmpeg package)")?;
    if !status.status.success() {
        bail!(
            "ffmpeg could not make {}: {}",
            out.display(),
            String::from_utf8_lossy(&status.stderr)
        );
    }
    Ok(())
}

/// Makes the synthetic set in `dir` (kept when already there).
pub fn make_set(dir: &Path) -> anyhow::Result<Vec<Synthetic>> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut set = Vec::new();
    let mut add = |name: &'static str, class: Class, graph: String, truth: Vec<Truth>| {
        let path = dir.join(format!("{name}.mp4"));
        if !path.is_file() {
            encode(&graph, &path)?;
        }
        set.push(Synthetic {
            name,
            class,
            path,
            truth,
        });
        anyhow::Ok(())
    };
    // Six 2.5 s shots, hard cuts every 60 frames.
    let mut g = String::new();
    for i in 0..6 {
        g.push_str(&format!("{}[s{i}];", source(i, 2.5)));
    }
    g.push_str("[s0][s1][s2][s3][s4][s5]concat=n=6:v=1[v]");
    add(
        "cuts",
        Class::Cuts,
        g,
        (1..6).map(|i| Truth::cut(i * 60)).collect(),
    )?;

    // Fade to black and up again, then through white.
    let g = format!(
        "{},fade=t=out:st=1:d=1[a];{},fade=t=in:st=0:d=1,fade=t=out:st=1.5:d=0.5:color=white[b];\
         {},fade=t=in:st=0:d=0.5:color=white[c];[a][b][c]concat=n=3:v=1[v]",
        source(0, 2.0),
        source(1, 2.0),
        source(6, 2.0)
    );
    add(
        "fades",
        Class::Gradual,
        g,
        vec![Truth::span(1.0, 2.0), Truth::span(3.5, 1.0)],
    )?;

    // Dissolves of 0.5, 1 and 2 seconds.
    let g = format!(
        "{}[a];{}[b];{}[c];{}[d];[a][b]xfade=transition=dissolve:duration=0.5:offset=4.5[ab];\
         [ab][c]xfade=transition=dissolve:duration=1:offset=8.5[abc];\
         [abc][d]xfade=transition=dissolve:duration=2:offset=11.5[v]",
        source(2, 5.0),
        source(3, 5.0),
        source(4, 5.0),
        source(7, 5.0)
    );
    add(
        "dissolves",
        Class::Gradual,
        g,
        vec![
            Truth::span(4.5, 0.5),
            Truth::span(8.5, 1.0),
            Truth::span(11.5, 2.0),
        ],
    )?;

    // Camera flashes: two frames, two frames, one frame of near white.
    let g = format!(
        "{},eq=brightness='0.9*(between(n\\,60\\,61)+between(n\\,150\\,151)+eq(n\\,200))':eval=frame[v]",
        source(0, 10.0)
    );
    add("flashes", Class::NoBoundary, g, Vec::new())?;

    // A fast pan, back and forth over a wide frame (48 pixels a frame).
    let g = "testsrc2=size=2560x360:rate=24,trim=duration=10,setpts=PTS-STARTPTS,\
             crop=640:360:'1920*abs(mod(n/40\\,2)-1)':0,format=yuv420p[v]"
        .to_string();
    add("fast-pan", Class::NoBoundary, g, Vec::new())?;

    // Strobing light: three frames lit, three dark.
    let g = format!(
        "{},eq=brightness='0.35*lt(mod(n\\,6)\\,3)':eval=frame[v]",
        source(7, 8.0)
    );
    add("strobe", Class::NoBoundary, g, Vec::new())?;

    // One static, grainy shot.
    let g = "color=c=0x807060:size=640x360:rate=24,noise=alls=12:allf=t,trim=duration=10,\
             setpts=PTS-STARTPTS,format=yuv420p[v]"
        .to_string();
    add("static", Class::NoBoundary, g, Vec::new())?;
    Ok(set)
}

/// A longer, grainy 1280×720 video for timing (film grain makes decoding
/// the larger cost, as on real films): eight 4-second shots, hard cuts.
pub fn make_grainy(dir: &Path) -> anyhow::Result<PathBuf> {
    let path = dir.join("grainy-720p.mp4");
    if path.is_file() {
        return Ok(path);
    }
    let mut g = String::new();
    for i in 0..8 {
        let src = source(i, 4.0).replace(SIZE, "1280x720");
        g.push_str(&format!("{src},noise=alls=25:allf=t[s{i}];"));
    }
    g.push_str("[s0][s1][s2][s3][s4][s5][s6][s7]concat=n=8:v=1[v]");
    encode(&g, &path)?;
    Ok(path)
}

/// Matches found cuts to the truth: a cut within 2 frames of a hard cut, or
/// within a gradual transition (2 frames of slack at each end). Each truth
/// and each found cut is matched once. Returns (matched, false cuts, missed)
/// and which truths were matched.
pub fn score(truth: &[Truth], found: &[u64]) -> (usize, usize, usize, Vec<bool>) {
    let mut used = vec![false; found.len()];
    let mut hit = vec![false; truth.len()];
    for (t, h) in truth.iter().zip(hit.iter_mut()) {
        let lo = t.start.saturating_sub(2);
        let hi = t.end + 2;
        if let Some(i) = (0..found.len()).find(|&i| !used[i] && (lo..=hi).contains(&found[i])) {
            used[i] = true;
            *h = true;
        }
    }
    let matched = hit.iter().filter(|h| **h).count();
    let false_cuts = used.iter().filter(|u| !**u).count();
    (matched, false_cuts, truth.len() - matched, hit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_match_within_two_frames_and_gradual_ones_anywhere_inside() {
        let truth = [Truth::cut(60), Truth::span(4.5, 0.5)];
        assert_eq!(
            Truth::span(4.5, 0.5),
            Truth {
                start: 108,
                end: 119
            }
        );
        let (m, f, miss, hit) = score(&truth, &[62, 115, 119, 300]);
        assert_eq!((m, f, miss), (2, 2, 0));
        assert_eq!(hit, vec![true, true]);
        let (m, f, miss, _) = score(&truth, &[57]);
        assert_eq!((m, f, miss), (0, 1, 2));
    }
}
