//! Keyframe previews for the terminal walker: the image decoded (JPEG or PNG)
//! and drawn in text cells, so a person sees the shot without leaving the
//! terminal.
//!
//! Two styles. [`PreviewStyle::Blocks`] draws two pixels per cell with the
//! upper half block `▀` (foreground = upper pixel, background = lower pixel)
//! in 24-bit colour; [`PreviewStyle::Ascii`] shades one cell per character
//! with a brightness ramp, for terminals without colour. Terminal graphics
//! protocols (kitty, iTerm2, sixel) are not used: the preview is text, which
//! every terminal and `tmux capture-pane` shows. The web walker shows the
//! images themselves.

use std::path::{Path, PathBuf};

use image::imageops::FilterType;
use image::RgbImage;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};

/// How a preview is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PreviewStyle {
    /// Coloured half blocks, two pixels per cell (needs 24-bit colour).
    Blocks,
    /// Brightness shading with ASCII characters, one pixel per cell.
    Ascii,
    /// No preview; keyframes are listed by path only.
    Off,
}

/// Characters from dark to bright, for [`PreviewStyle::Ascii`].
const RAMP: &[u8] = b" .:-=+*#%@";

impl PreviewStyle {
    /// Blocks where the terminal says it has 24-bit colour (`COLORTERM` is
    /// `truecolor` or `24bit`) and `NO_COLOR` is unset, else ASCII.
    pub fn detect() -> PreviewStyle {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let truecolor = std::env::var("COLORTERM")
            .is_ok_and(|v| v.eq_ignore_ascii_case("truecolor") || v.eq_ignore_ascii_case("24bit"));
        if truecolor && !no_color {
            PreviewStyle::Blocks
        } else {
            PreviewStyle::Ascii
        }
    }
}

/// Why a keyframe has no preview.
#[derive(Debug, thiserror::Error)]
#[error("{path}: no preview: {problem}", path = .path.display())]
pub struct PreviewError {
    /// The keyframe.
    pub path: PathBuf,
    /// What went wrong (unreadable, not an image, empty).
    pub problem: String,
}

/// The keyframe at `path` drawn in at most `cols` × `rows` cells, its aspect
/// ratio kept (a cell is taken to be twice as tall as it is wide).
pub fn preview(
    path: &Path,
    cols: u16,
    rows: u16,
    style: PreviewStyle,
) -> Result<Vec<Line<'static>>, PreviewError> {
    let fail = |problem: String| PreviewError {
        path: path.to_path_buf(),
        problem,
    };
    if style == PreviewStyle::Off || cols == 0 || rows == 0 {
        return Ok(Vec::new());
    }
    let img = image::ImageReader::open(path)
        .map_err(|e| fail(e.to_string()))?
        .with_guessed_format()
        .map_err(|e| fail(e.to_string()))?
        .decode()
        .map_err(|e| fail(e.to_string()))?
        .to_rgb8();
    if img.width() == 0 || img.height() == 0 {
        return Err(fail("the image is empty".into()));
    }
    Ok(render(&img, cols, rows, style))
}

/// `img` drawn in at most `cols` × `rows` cells.
pub fn render(img: &RgbImage, cols: u16, rows: u16, style: PreviewStyle) -> Vec<Line<'static>> {
    // Pixels per cell vertically: 2 for half blocks, 1 for ASCII; a cell is
    // about twice as tall as wide, so a block pixel is square and an ASCII
    // pixel is a 1:2 rectangle.
    let per_cell = match style {
        PreviewStyle::Blocks => 2.0,
        PreviewStyle::Ascii => 1.0,
        PreviewStyle::Off => return Vec::new(),
    };
    let aspect = img.height() as f64 / img.width() as f64;
    // Cell rows for a width of `w` columns: `w * aspect` square pixels tall,
    // and a cell is two such pixels tall.
    let rows_for = |w: f64| (w * aspect / 2.0).max(1.0);
    let mut w = f64::from(cols);
    if rows_for(w) > f64::from(rows) {
        w = (f64::from(rows) / (aspect / 2.0)).max(1.0);
    }
    let w = (w.round() as u32).clamp(1, u32::from(cols));
    let h_cells = (rows_for(f64::from(w)).round() as u32).clamp(1, u32::from(rows));
    let h_px = h_cells * per_cell as u32;
    let small = image::imageops::resize(img, w, h_px, FilterType::Triangle);
    // Rec. 709 luma; ASCII shading stretches the frame's own range over the
    // ramp, so a dim or flat shot still shows its shapes.
    let luma =
        |[r, g, b]: [u8; 3]| 0.2126 * f64::from(r) + 0.7152 * f64::from(g) + 0.0722 * f64::from(b);
    let (lo, hi) = small.pixels().fold((255.0f64, 0.0f64), |(lo, hi), p| {
        let l = luma(p.0);
        (lo.min(l), hi.max(l))
    });
    let (lo, span) = if hi - lo >= 8.0 {
        (lo, hi - lo)
    } else {
        (0.0, 255.0)
    };
    let mut lines = Vec::with_capacity(h_cells as usize);
    for row in 0..h_cells {
        let line = match style {
            PreviewStyle::Blocks => Line::from(
                (0..w)
                    .map(|x| {
                        let top = small.get_pixel(x, 2 * row).0;
                        let bottom = small.get_pixel(x, 2 * row + 1).0;
                        Span::styled(
                            "▀",
                            Style::default()
                                .fg(Color::Rgb(top[0], top[1], top[2]))
                                .bg(Color::Rgb(bottom[0], bottom[1], bottom[2])),
                        )
                    })
                    .collect::<Vec<_>>(),
            ),
            _ => Line::from(
                (0..w)
                    .map(|x| {
                        let level = (luma(small.get_pixel(x, row).0) - lo) / span;
                        let i = (level.clamp(0.0, 1.0) * (RAMP.len() - 1) as f64).round() as usize;
                        RAMP[i.min(RAMP.len() - 1)] as char
                    })
                    .collect::<String>(),
            ),
        };
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgb;

    /// 16×8: the left half black, the right half white.
    fn halves() -> RgbImage {
        RgbImage::from_fn(16, 8, |x, _| {
            if x < 8 {
                Rgb([0, 0, 0])
            } else {
                Rgb([255, 255, 255])
            }
        })
    }

    #[test]
    fn ascii_shades_dark_to_bright_and_keeps_the_aspect() {
        let lines = render(&halves(), 16, 20, PreviewStyle::Ascii);
        // 16 columns of a 2:1 image in 1:2 cells: 4 rows.
        assert_eq!(lines.len(), 4);
        for l in &lines {
            let text: String = l.spans.iter().map(|s| s.content.as_ref()).collect();
            assert_eq!(text.len(), 16);
            assert!(text.starts_with("      "), "{text:?}");
            assert!(text.ends_with("@@@@@@"), "{text:?}");
        }
    }

    #[test]
    fn a_dim_frame_is_stretched_over_the_ramp() {
        let dim = RgbImage::from_fn(16, 8, |x, _| {
            if x < 8 {
                Rgb([20, 20, 20])
            } else {
                Rgb([60, 60, 60])
            }
        });
        let lines = render(&dim, 16, 20, PreviewStyle::Ascii);
        let text: String = lines[0].spans.iter().map(|s| s.content.as_ref()).collect();
        assert!(text.starts_with("   ") && text.ends_with("@@@"), "{text:?}");
        // A flat frame is not stretched (nothing to show but its level).
        let flat = RgbImage::from_pixel(8, 8, Rgb([128, 128, 128]));
        let text: String = render(&flat, 8, 8, PreviewStyle::Ascii)[0]
            .spans
            .iter()
            .map(|s| s.content.as_ref())
            .collect();
        assert!(text.chars().all(|c| c == '+' || c == '='), "{text:?}");
    }

    #[test]
    fn blocks_carry_two_pixels_per_cell_in_colour() {
        let img = RgbImage::from_fn(4, 4, |_, y| {
            if y < 2 {
                Rgb([255, 0, 0])
            } else {
                Rgb([0, 0, 255])
            }
        });
        let lines = render(&img, 4, 10, PreviewStyle::Blocks);
        // 4 columns of a square image: 4 pixel rows, 2 cell rows.
        assert_eq!(lines.len(), 2);
        let first = &lines[0].spans[0];
        assert_eq!(first.content, "▀");
        assert_eq!(first.style.fg, Some(Color::Rgb(255, 0, 0)));
        assert_eq!(first.style.bg, Some(Color::Rgb(255, 0, 0)));
        let last = &lines[1].spans[3];
        assert_eq!(last.style.fg, Some(Color::Rgb(0, 0, 255)));
    }

    #[test]
    fn a_tall_image_is_narrowed_to_fit_the_rows() {
        let tall = RgbImage::from_pixel(10, 100, Rgb([128, 128, 128]));
        let lines = render(&tall, 40, 5, PreviewStyle::Ascii);
        assert_eq!(lines.len(), 5);
        assert!(lines[0].width() <= 2, "{}", lines[0].width());
        assert!(render(&tall, 40, 5, PreviewStyle::Off).is_empty());
    }

    #[test]
    fn files_decode_and_bad_ones_name_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let png = dir.path().join("k.png");
        halves().save(&png).unwrap();
        let lines = preview(&png, 8, 8, PreviewStyle::Ascii).unwrap();
        assert_eq!(lines.len(), 2);
        let bad = dir.path().join("not.jpg");
        std::fs::write(&bad, b"not an image").unwrap();
        let err = preview(&bad, 8, 8, PreviewStyle::Ascii).unwrap_err();
        assert!(
            err.to_string().starts_with(&bad.display().to_string()),
            "{err}"
        );
        let missing = dir.path().join("missing.jpg");
        let err = preview(&missing, 8, 8, PreviewStyle::Blocks).unwrap_err();
        assert!(err.to_string().contains("missing.jpg"), "{err}");
    }
}
