//! Keyframes out of a video: one ffmpeg pass that keeps only the chosen
//! frames (a `select` filter whose expression is a binary search over their
//! numbers, so a film's thousands of keyframes cost a few comparisons a
//! frame) and writes them as JPEG files, numbered in frame order.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::decode::rate_filter;
use super::probe::VideoInfo;
use super::{ffmpeg_program, last_words, missing, VideoError};

/// JPEG quality on ffmpeg's `-q:v` scale (2 is best, 31 worst).
const JPEG_QUALITY: &str = "2";

/// An ffmpeg expression true exactly when `n` is one of `frames` (sorted,
/// distinct, not empty): nested `if(lt(n,…),…,…)` down to `eq(n,…)` leaves.
pub fn select_expression(frames: &[u64]) -> String {
    match frames {
        [] => "0".to_string(),
        [f] => format!("eq(n\\,{f})"),
        _ => {
            let mid = frames.len() / 2;
            format!(
                "if(lt(n\\,{})\\,{}\\,{})",
                frames[mid],
                select_expression(&frames[..mid]),
                select_expression(&frames[mid..])
            )
        }
    }
}

/// Writes frames `frames` (sorted, distinct) of `info`'s video into `dir` as
/// `00000001.jpg`, `00000002.jpg`, … in that order, `width` pixels wide
/// (full size when `None`), and returns their paths, one per frame. Frames
/// are numbered as the detector numbered them (on the clock of the video's rate). An error when ffmpeg fails or gives fewer
/// frames than asked.
pub fn extract_keyframes(
    info: &VideoInfo,
    frames: &[u64],
    width: Option<u32>,
    dir: &Path,
) -> Result<Vec<PathBuf>, VideoError> {
    std::fs::create_dir_all(dir).map_err(|e| VideoError::io(dir, e))?;
    if frames.is_empty() {
        return Ok(Vec::new());
    }
    // The same clock as detection's (`DecodeSettings::scaled`).
    let mut filters: Vec<String> = rate_filter(Some(info.rate)).into_iter().collect();
    filters.push(format!("select={}", select_expression(frames)));
    if let Some(w) = width.filter(|&w| w < info.width) {
        filters.push(format!("scale={w}:-2:flags=lanczos"));
    }
    let script = dir.join("select.filter");
    std::fs::write(&script, filters.join(",")).map_err(|e| VideoError::io(&script, e))?;
    let out = Command::new(ffmpeg_program())
        .args(["-nostdin", "-hide_banner", "-loglevel", "error", "-i"])
        .arg(&info.path)
        .args(["-map", "0:v:0", "-an", "-sn", "-dn", "-filter_script:v"])
        .arg(&script)
        .args([
            "-fps_mode",
            "passthrough",
            "-q:v",
            JPEG_QUALITY,
            "-f",
            "image2",
        ])
        .arg(dir.join("%08d.jpg"))
        .stdin(Stdio::null())
        .output()
        .map_err(|e| missing("ffmpeg", "MOVIEGRAPH_FFMPEG", &e))?;
    let _ = std::fs::remove_file(&script);
    if !out.status.success() {
        return Err(VideoError::Decode {
            path: info.path.clone(),
            frames: 0,
            message: format!(
                "writing keyframes: {}",
                last_words(&String::from_utf8_lossy(&out.stderr))
            ),
        });
    }
    let paths: Vec<PathBuf> = (1..=frames.len())
        .map(|i| dir.join(format!("{i:08}.jpg")))
        .collect();
    let written = paths.iter().take_while(|p| p.is_file()).count();
    if written < frames.len() {
        return Err(VideoError::Decode {
            path: info.path.clone(),
            frames: written as u64,
            message: format!(
                "ffmpeg gave {written} of {} keyframes (the video ends before frame {}?)",
                frames.len(),
                frames[written]
            ),
        });
    }
    Ok(paths)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Evaluates the expression for `n` the way ffmpeg would.
    fn eval(expr: &str, n: u64) -> bool {
        fn value(e: &str, n: u64) -> (u64, &str) {
            if let Some(rest) = e.strip_prefix("eq(n\\,") {
                let end = rest.find(')').unwrap();
                let v: u64 = rest[..end].parse().unwrap();
                return (u64::from(n == v), &rest[end + 1..]);
            }
            if let Some(rest) = e.strip_prefix("if(lt(n\\,") {
                let end = rest.find(')').unwrap();
                let pivot: u64 = rest[..end].parse().unwrap();
                let rest = rest[end + 1..].strip_prefix("\\,").unwrap();
                let (a, rest) = value(rest, n);
                let rest = rest.strip_prefix("\\,").unwrap();
                let (b, rest) = value(rest, n);
                let rest = rest.strip_prefix(')').unwrap();
                return (if n < pivot { a } else { b }, rest);
            }
            panic!("unexpected {e}");
        }
        let (v, rest) = value(expr, n);
        assert!(rest.is_empty());
        v == 1
    }

    #[test]
    fn the_select_expression_is_true_exactly_on_the_chosen_frames() {
        let frames = [0, 7, 8, 20, 95, 96, 150, 151, 999];
        let expr = select_expression(&frames);
        for n in 0..1100 {
            assert_eq!(eval(&expr, n), frames.contains(&n), "frame {n}");
        }
        assert_eq!(select_expression(&[5]), "eq(n\\,5)");
    }

    #[test]
    fn the_expression_stays_shallow_for_a_long_film() {
        let frames: Vec<u64> = (0..6000).map(|i| i * 37).collect();
        let expr = select_expression(&frames);
        let depth = expr.matches("if(").count();
        assert_eq!(depth, frames.len() - 1);
        let mut max_nesting = 0;
        let mut nesting = 0i32;
        for c in expr.chars() {
            match c {
                '(' => {
                    nesting += 1;
                    max_nesting = max_nesting.max(nesting);
                }
                ')' => nesting -= 1,
                _ => {}
            }
        }
        // log2(6000) ≈ 13 ifs deep, each with its lt( and the leaf's eq(.
        assert!(max_nesting <= 2 * 14 + 1, "{max_nesting}");
        assert!(eval(&expr, 37 * 4321) && !eval(&expr, 37 * 4321 + 1));
    }
}
