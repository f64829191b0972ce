//! Shot boundaries in a stream of frames, as PySceneDetect (0.6–0.7) defines
//! its `content` and `adaptive` detectors, with the same defaults, so results
//! can be compared:
//!
//! - each frame is converted to HSV exactly as OpenCV converts 8-bit images
//!   (hue 0–179), and its score is the mean absolute difference from the
//!   previous frame, averaged over the three channels;
//! - `content` cuts where the score reaches a threshold (27), merging cuts
//!   closer than the minimum shot length (15 frames) as PySceneDetect's flash
//!   filter does in its default `merge` mode;
//! - `adaptive` cuts where the score is at least 3 times the average of the
//!   two frames on each side, and at least 15, no sooner than 15 frames after
//!   the last cut.

use std::sync::OnceLock;

mod robust;

pub use robust::RobustSettings;
use robust::RobustState;

/// One frame in HSV, one plane per channel, as OpenCV's `COLOR_RGB2HSV` gives
/// it for 8-bit images.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HsvFrame {
    hue: Vec<u8>,
    sat: Vec<u8>,
    val: Vec<u8>,
}

const HSV_SHIFT: u32 = 12;

fn tables() -> &'static ([i32; 256], [i32; 256]) {
    static TABLES: OnceLock<([i32; 256], [i32; 256])> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut sdiv = [0i32; 256];
        let mut hdiv = [0i32; 256];
        for i in 1..256 {
            sdiv[i] = ((255 << HSV_SHIFT) as f64 / i as f64).round_ties_even() as i32;
            hdiv[i] = ((180 << HSV_SHIFT) as f64 / (6.0 * i as f64)).round_ties_even() as i32;
        }
        (sdiv, hdiv)
    })
}

impl HsvFrame {
    /// Converts packed RGB bytes (3 per pixel).
    pub fn from_rgb(rgb: &[u8]) -> HsvFrame {
        let n = rgb.len() / 3;
        let mut frame = HsvFrame {
            hue: Vec::with_capacity(n),
            sat: Vec::with_capacity(n),
            val: Vec::with_capacity(n),
        };
        frame.fill(rgb);
        frame
    }

    /// Converts packed RGB bytes into this frame's planes, reusing them.
    pub fn fill(&mut self, rgb: &[u8]) {
        let (sdiv, hdiv) = tables();
        let n = rgb.len() / 3;
        self.hue.resize(n, 0);
        self.sat.resize(n, 0);
        self.val.resize(n, 0);
        let round = 1 << (HSV_SHIFT - 1);
        let planes = self
            .hue
            .iter_mut()
            .zip(self.sat.iter_mut())
            .zip(self.val.iter_mut());
        for (px, ((h_out, s_out), v_out)) in rgb.chunks_exact(3).zip(planes) {
            let (r, g, b) = (i32::from(px[0]), i32::from(px[1]), i32::from(px[2]));
            let v = r.max(g).max(b);
            let diff = v - r.min(g).min(b);
            let s = (diff * sdiv[v as usize] + round) >> HSV_SHIFT;
            // OpenCV's branch-free selection: red's formula where the
            // maximum is red, else green's where it is green, else blue's.
            let vr = -i32::from(v == r);
            let vg = -i32::from(v == g);
            let h =
                (vr & (g - b)) + (!vr & ((vg & (b - r + 2 * diff)) + (!vg & (r - g + 4 * diff))));
            let h = (h * hdiv[diff as usize] + round) >> HSV_SHIFT;
            let h = h + (180 & (h >> 31));
            *h_out = h as u8;
            *s_out = s as u8;
            *v_out = v as u8;
        }
    }

    /// Pixels in the frame.
    pub fn pixels(&self) -> usize {
        self.val.len()
    }

    /// PySceneDetect's `content_val`: the mean absolute difference of hue,
    /// saturation and value from `previous`, averaged (weights 1, 1, 1; edges 0).
    pub fn score(&self, previous: &HsvFrame) -> f64 {
        let n = self.pixels().min(previous.pixels());
        if n == 0 {
            return 0.0;
        }
        let distance = |a: &[u8], b: &[u8]| -> f64 {
            // Sums in u32 chunks (64 Ki pixels of at most 255 each cannot
            // overflow), which the compiler vectorizes.
            let sum: u64 = a[..n]
                .chunks(1 << 16)
                .zip(b[..n].chunks(1 << 16))
                .map(|(x, y)| {
                    let part: u32 = x
                        .iter()
                        .zip(y)
                        .map(|(&p, &q)| u32::from(p.abs_diff(q)))
                        .sum();
                    u64::from(part)
                })
                .sum();
            sum as f64 / n as f64
        };
        (distance(&self.hue, &previous.hue)
            + distance(&self.sat, &previous.sat)
            + distance(&self.val, &previous.val))
            / 3.0
    }
}

/// The `content` detector's settings (PySceneDetect's defaults).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContentSettings {
    /// Score at which a frame starts a new shot.
    pub threshold: f64,
    /// Fewest frames in a shot; closer cuts are merged.
    pub min_shot_frames: u64,
}

impl Default for ContentSettings {
    fn default() -> Self {
        ContentSettings {
            threshold: 27.0,
            min_shot_frames: 15,
        }
    }
}

/// The `adaptive` detector's settings (PySceneDetect's defaults).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdaptiveSettings {
    /// How many times the neighbours' average score a cut's score must be.
    pub ratio: f64,
    /// Fewest frames in a shot.
    pub min_shot_frames: u64,
    /// Frames on each side averaged.
    pub window: usize,
    /// Lowest score a cut may have.
    pub min_score: f64,
}

impl Default for AdaptiveSettings {
    fn default() -> Self {
        AdaptiveSettings {
            ratio: 3.0,
            min_shot_frames: 15,
            window: 2,
            min_score: 15.0,
        }
    }
}

/// A detector and its settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Detector {
    /// A fixed threshold on the score (PySceneDetect's `detect-content`).
    Content(ContentSettings),
    /// The score against its neighbours' (PySceneDetect's `detect-adaptive`).
    Adaptive(AdaptiveSettings),
    /// Adaptive, with flashes and strobing checked (moviegraph's own; see
    /// [`RobustSettings`]).
    Robust(RobustSettings),
}

impl Detector {
    /// The detector's name on the command line and in outputs.
    pub fn name(&self) -> &'static str {
        match self {
            Detector::Content(_) => "content",
            Detector::Adaptive(_) => "adaptive",
            Detector::Robust(_) => "robust",
        }
    }

    /// The settings in one line (part of a run's fingerprint).
    pub fn settings(&self) -> String {
        match self {
            Detector::Content(s) => format!(
                "threshold {}, min shot {} frames",
                s.threshold, s.min_shot_frames
            ),
            Detector::Adaptive(s) => adaptive_settings(s),
            Detector::Robust(s) => format!(
                "{}; flash check {} frames later at {}",
                adaptive_settings(&s.adaptive),
                s.flash_frames,
                s.flash_ratio
            ),
        }
    }

    /// A fresh cut finder for one video.
    pub fn start(&self) -> CutDetector {
        let robust = match *self {
            Detector::Robust(s) => Some(Box::new(RobustState::new(s))),
            _ => None,
        };
        let rule = match *self {
            Detector::Content(s) => Rule::Content {
                threshold: s.threshold,
                flash: FlashFilter::new(s.min_shot_frames),
            },
            Detector::Adaptive(s) | Detector::Robust(RobustSettings { adaptive: s, .. }) => {
                Rule::Adaptive {
                    settings: s,
                    buffer: Vec::with_capacity(2 * s.window + 1),
                    last_cut: None,
                }
            }
        };
        CutDetector {
            previous: None,
            spare: None,
            rule,
            robust,
        }
    }
}

/// PySceneDetect's flash filter in `merge` mode: cuts closer than the
/// minimum shot length are merged into one, placed at the last frame above
/// the threshold.
#[derive(Debug, Clone)]
struct FlashFilter {
    length: u64,
    last_above: Option<u64>,
    merge_enabled: bool,
    merge_triggered: bool,
    merge_start: u64,
}

impl FlashFilter {
    fn new(length: u64) -> FlashFilter {
        FlashFilter {
            length,
            last_above: None,
            merge_enabled: false,
            merge_triggered: false,
            merge_start: 0,
        }
    }

    fn filter(&mut self, frame: u64, above: bool) -> Option<u64> {
        if self.length == 0 {
            return above.then_some(frame);
        }
        let last_above = *self.last_above.get_or_insert(frame);
        let min_length_met = frame.saturating_sub(last_above) >= self.length;
        if above {
            self.last_above = Some(frame);
        }
        let last_above = self.last_above.unwrap_or(frame);
        if self.merge_triggered {
            if min_length_met
                && !above
                && last_above.saturating_sub(self.merge_start) >= self.length
            {
                self.merge_triggered = false;
                return Some(last_above);
            }
            return None;
        }
        if !above {
            return None;
        }
        if min_length_met {
            self.merge_enabled = true;
            return Some(frame);
        }
        if self.merge_enabled {
            self.merge_triggered = true;
            self.merge_start = frame;
        }
        None
    }
}

#[derive(Debug, Clone)]
enum Rule {
    Content {
        threshold: f64,
        flash: FlashFilter,
    },
    Adaptive {
        settings: AdaptiveSettings,
        buffer: Vec<(u64, f64)>,
        last_cut: Option<u64>,
    },
}

/// Finds cuts in one video's frames, given in order.
#[derive(Debug, Clone)]
pub struct CutDetector {
    previous: Option<HsvFrame>,
    spare: Option<HsvFrame>,
    rule: Rule,
    robust: Option<Box<RobustState>>,
}

impl CutDetector {
    /// Takes frame number `frame` (0-based, consecutive); returns the frame
    /// that starts a new shot, if one is decided now (adaptive decides a
    /// few frames late).
    pub fn push(&mut self, frame: u64, hsv: HsvFrame) -> Option<u64> {
        let score = match &self.previous {
            Some(prev) => hsv.score(prev),
            None => 0.0,
        };
        self.previous = Some(hsv);
        self.push_score(frame, score)
    }

    /// The same as [`CutDetector::push`] for a frame of packed RGB bytes,
    /// converted into planes this detector reuses (no allocation per frame).
    pub fn push_rgb(&mut self, frame: u64, rgb: &[u8]) -> Option<u64> {
        let mut hsv = self.spare.take().unwrap_or_else(|| HsvFrame {
            hue: Vec::new(),
            sat: Vec::new(),
            val: Vec::new(),
        });
        hsv.fill(rgb);
        let score = match &self.previous {
            Some(prev) => hsv.score(prev),
            None => 0.0,
        };
        let mut cut = self.push_score(frame, score);
        if let Some(robust) = &mut self.robust {
            robust.observe(&hsv, score, cut.take());
        }
        self.spare = self.previous.replace(hsv);
        cut
    }

    /// The cuts decided only at the end of the video (the robust detector's,
    /// in order); nothing for the others, which decide as they go.
    pub fn finish(&mut self) -> Vec<u64> {
        match &mut self.robust {
            Some(robust) => robust.finish(),
            None => Vec::new(),
        }
    }

    /// The same as [`CutDetector::push`] for a frame already scored.
    pub fn push_score(&mut self, frame: u64, score: f64) -> Option<u64> {
        match &mut self.rule {
            Rule::Content { threshold, flash } => flash.filter(frame, score >= *threshold),
            Rule::Adaptive {
                settings,
                buffer,
                last_cut,
            } => {
                let last = *last_cut.get_or_insert(frame);
                let needed = 2 * settings.window + 1;
                buffer.push((frame, score));
                if buffer.len() < needed {
                    return None;
                }
                if buffer.len() > needed {
                    buffer.remove(0);
                }
                let (target, target_score) = buffer[settings.window];
                let others: f64 = buffer
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| *i != settings.window)
                    .map(|(_, (_, s))| s)
                    .sum();
                let average = others / (2 * settings.window) as f64;
                let ratio = if average.abs() >= 0.00001 {
                    (target_score / average).min(255.0)
                } else if target_score >= settings.min_score {
                    255.0
                } else {
                    0.0
                };
                let met = ratio >= settings.ratio && target_score >= settings.min_score;
                if met && target.saturating_sub(last) >= settings.min_shot_frames {
                    *last_cut = Some(target);
                    return Some(target);
                }
                None
            }
        }
    }
}

fn adaptive_settings(s: &AdaptiveSettings) -> String {
    format!(
        "ratio {}, min shot {} frames, window {}, min score {}",
        s.ratio, s.min_shot_frames, s.window, s.min_score
    )
}

/// The cuts of a whole score sequence (frame `i` has `scores[i]`).
pub fn cuts_of_scores(detector: &Detector, scores: &[f64]) -> Vec<u64> {
    let mut d = detector.start();
    scores
        .iter()
        .enumerate()
        .filter_map(|(i, &s)| d.push_score(i as u64, s))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hsv_of(r: u8, g: u8, b: u8) -> (u8, u8, u8) {
        let f = HsvFrame::from_rgb(&[r, g, b]);
        (f.hue[0], f.sat[0], f.val[0])
    }

    #[test]
    fn hsv_matches_opencv_on_known_colours() {
        // Values from cv2.cvtColor(np.uint8([[[r, g, b]]]), cv2.COLOR_RGB2HSV).
        assert_eq!(hsv_of(255, 0, 0), (0, 255, 255));
        assert_eq!(hsv_of(0, 255, 0), (60, 255, 255));
        assert_eq!(hsv_of(0, 0, 255), (120, 255, 255));
        assert_eq!(hsv_of(0, 0, 0), (0, 0, 0));
        assert_eq!(hsv_of(128, 128, 128), (0, 0, 128));
        assert_eq!(hsv_of(255, 0, 128), (165, 255, 255));
        assert_eq!(hsv_of(10, 200, 90), (73, 242, 200));
        assert_eq!(hsv_of(250, 240, 30), (29, 224, 250));
    }

    #[test]
    fn the_score_is_the_mean_channel_difference() {
        let black = HsvFrame::from_rgb(&[0; 12]);
        let white = HsvFrame::from_rgb(&[255; 12]);
        assert_eq!(white.score(&black), 255.0 / 3.0);
        assert_eq!(white.score(&white), 0.0);
    }

    fn content() -> Detector {
        Detector::Content(ContentSettings::default())
    }

    fn adaptive() -> Detector {
        Detector::Adaptive(AdaptiveSettings::default())
    }

    fn scores(len: usize, spikes: &[(usize, f64)]) -> Vec<f64> {
        let mut s = vec![1.0; len];
        s[0] = 0.0;
        for &(i, v) in spikes {
            s[i] = v;
        }
        s
    }

    #[test]
    fn content_cuts_at_the_threshold_and_merges_cuts_closer_than_a_shot() {
        let s = scores(100, &[(20, 40.0), (50, 27.0), (55, 60.0), (80, 26.9)]);
        // 55 comes 5 frames after the cut at 50: merged away, as PySceneDetect
        // 0.7.2 does (its outputs on these scores are the expectations here).
        assert_eq!(cuts_of_scores(&content(), &s), vec![20, 50]);
        // The first cut is never merged away, even right after the start.
        let s = scores(60, &[(3, 40.0), (30, 40.0)]);
        assert_eq!(cuts_of_scores(&content(), &s), vec![30]);
    }

    #[test]
    fn adaptive_cuts_where_a_score_stands_out_from_its_neighbours() {
        let s = scores(100, &[(20, 40.0), (30, 14.0), (60, 30.0), (61, 30.0)]);
        // 30 is under the 15 floor; 61 comes too soon after 60.
        assert_eq!(cuts_of_scores(&adaptive(), &s), vec![20, 60]);
        // A cut too near the start is dropped; zero neighbours give the cap.
        let mut s = vec![0.0; 60];
        s[10] = 50.0;
        s[20] = 50.0;
        s[40] = 50.0;
        assert_eq!(cuts_of_scores(&adaptive(), &s), vec![20, 40]);
    }

    #[test]
    fn a_steady_pan_scores_high_but_does_not_stand_out() {
        let s: Vec<f64> = (0..80).map(|i| if i == 0 { 0.0 } else { 30.0 }).collect();
        assert_eq!(cuts_of_scores(&adaptive(), &s), Vec::<u64>::new());
        // Nor does the fixed threshold cut it: every frame above it keeps
        // pushing the flash filter's window on.
        assert_eq!(cuts_of_scores(&content(), &s), Vec::<u64>::new());
    }
}
