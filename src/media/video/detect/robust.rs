//! The `robust` detector: PySceneDetect's adaptive rule for hard cuts, with a
//! check of moviegraph's own on top: **flashes and strobing are not cuts**.
//! A cut at frame `t` stands only if the frame a few frames later still
//! differs from the frame before `t` by at least half the cut's own score; a
//! camera flash, a lightning strike or a strobe returns to the picture it
//! interrupted, a cut does not. Gradual transitions (fades, dissolves) are
//! found no better than by `adaptive`.
//!
//! It keeps the last few frames and two numbers per frame (8 bytes).

use std::collections::VecDeque;

use super::HsvFrame;

/// The `robust` detector's settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RobustSettings {
    /// The hard-cut rule (PySceneDetect's adaptive, same defaults).
    pub adaptive: super::AdaptiveSettings,
    /// Frames after a cut compared with the frame before it (a flash lasts fewer).
    pub flash_frames: u64,
    /// A cut stands when that later difference is at least this share of the cut's score.
    pub flash_ratio: f64,
}

impl Default for RobustSettings {
    fn default() -> Self {
        RobustSettings {
            adaptive: super::AdaptiveSettings::default(),
            flash_frames: 4,
            flash_ratio: 0.5,
        }
    }
}

/// What the robust detector has seen so far.
#[derive(Debug, Clone)]
pub(super) struct RobustState {
    settings: RobustSettings,
    /// The last `flash_frames + 1` frames, oldest first.
    recent: VecDeque<HsvFrame>,
    /// Per frame: its score.
    scores: Vec<f32>,
    /// Per frame `j`: its difference from frame `j - flash_frames - 1`.
    far: Vec<f32>,
    /// Hard-cut candidates of the adaptive rule.
    candidates: Vec<u64>,
}

impl RobustState {
    pub(super) fn new(settings: RobustSettings) -> RobustState {
        RobustState {
            settings,
            recent: VecDeque::new(),
            scores: Vec::new(),
            far: Vec::new(),
            candidates: Vec::new(),
        }
    }

    /// Takes the next frame, its score, and the adaptive rule's decision made at it.
    pub(super) fn observe(&mut self, hsv: &HsvFrame, score: f64, candidate: Option<u64>) {
        let keep = self.settings.flash_frames as usize + 1;
        self.scores.push(score as f32);
        self.candidates.extend(candidate);
        let far = if self.recent.len() == keep {
            hsv.score(&self.recent[0]) as f32
        } else {
            f32::MAX
        };
        self.far.push(far);
        if self.recent.len() == keep {
            let mut old = self.recent.pop_front().expect("not empty");
            old.hue.clone_from(&hsv.hue);
            old.sat.clone_from(&hsv.sat);
            old.val.clone_from(&hsv.val);
            self.recent.push_back(old);
        } else {
            self.recent.push_back(hsv.clone());
        }
    }

    /// The adaptive rule's cuts that are not flashes, in order.
    pub(super) fn finish(&mut self) -> Vec<u64> {
        let s = self.settings;
        let n = self.scores.len() as u64;
        self.candidates
            .iter()
            .copied()
            .filter(|&t| {
                let later = t + s.flash_frames;
                later >= n
                    || f64::from(self.far[later as usize])
                        >= s.flash_ratio * f64::from(self.scores[t as usize])
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Detector, HsvFrame};
    use super::*;

    fn frame(level: u8) -> Vec<u8> {
        vec![level; 3 * 64]
    }

    fn cuts(detector: Detector, levels: &[u8]) -> Vec<u64> {
        let mut d = detector.start();
        let mut found: Vec<u64> = levels
            .iter()
            .enumerate()
            .filter_map(|(i, &l)| d.push_rgb(i as u64, &frame(l)))
            .collect();
        found.extend(d.finish());
        found
    }

    #[test]
    fn a_flash_is_not_a_cut_and_a_cut_still_is() {
        // Grey, a two-frame white flash at 40, grey again, a cut to dark at 80.
        let mut levels = vec![100u8; 120];
        levels[40] = 250;
        levels[41] = 250;
        for l in &mut levels[80..] {
            *l = 20;
        }
        let adaptive = Detector::Adaptive(super::super::AdaptiveSettings::default());
        assert_eq!(cuts(adaptive, &levels), vec![40, 80]);
        let robust = Detector::Robust(RobustSettings::default());
        assert_eq!(cuts(robust, &levels), vec![80]);
        let _ = HsvFrame::from_rgb(&frame(0));
    }

    #[test]
    fn strobing_light_gives_no_cut() {
        let levels: Vec<u8> = (0..150)
            .map(|i| if (i / 3) % 2 == 0 { 200 } else { 60 })
            .collect();
        let robust = Detector::Robust(RobustSettings::default());
        assert_eq!(cuts(robust, &levels), Vec::<u64>::new());
    }
}
