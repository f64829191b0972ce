//! The reference's reading of a video in overlapping windows, as frames
//! arrive, and its reading of predictions as shots.

use super::{Predictions, FRAME_BYTES, WINDOW};
use crate::media::video::VideoError;

/// Frames a window advances by; each window keeps the predictions of the
/// `STEP` frames in its middle.
const STEP: usize = 50;
/// Copies of the first frame before it (and frames of context on each side
/// of the kept middle).
const CONTEXT: usize = 25;

/// Frames buffered for the next window, with the reference's padding:
/// 25 copies of the first frame before it and, at the end, copies of the
/// last frame up to a whole window.
#[derive(Debug, Clone, Default)]
pub struct WindowPlan {
    buffer: Vec<u8>,
    frames: usize,
    given: usize,
}

impl WindowPlan {
    /// An empty plan.
    pub fn new() -> WindowPlan {
        WindowPlan::default()
    }

    /// Takes the next frame; runs `run` on each window now complete and
    /// returns the predictions it kept.
    pub fn push(
        &mut self,
        frame: &[u8],
        run: impl FnMut(&[u8]) -> Result<Predictions, VideoError>,
    ) -> Result<Predictions, VideoError> {
        debug_assert_eq!(frame.len(), FRAME_BYTES);
        if self.frames == 0 {
            for _ in 0..CONTEXT {
                self.buffer.extend_from_slice(frame);
            }
        }
        self.buffer.extend_from_slice(frame);
        self.frames += 1;
        self.drain(run)
    }

    /// Pads with the last frame as the reference does and runs the last
    /// windows; returns the predictions of the frames not yet given (none
    /// for an empty video).
    pub fn finish(
        &mut self,
        run: impl FnMut(&[u8]) -> Result<Predictions, VideoError>,
    ) -> Result<Predictions, VideoError> {
        if self.frames == 0 {
            return Ok(Predictions::default());
        }
        let rest = match self.frames % STEP {
            0 => STEP,
            r => r,
        };
        let pad = CONTEXT + STEP - rest;
        let last = self.buffer[self.buffer.len() - FRAME_BYTES..].to_vec();
        for _ in 0..pad {
            self.buffer.extend_from_slice(&last);
        }
        let mut out = self.drain(run)?;
        let wanted = self.frames - (self.given - out.single.len());
        out.single.truncate(wanted);
        out.many.truncate(wanted);
        self.given = self.frames;
        self.buffer.clear();
        Ok(out)
    }

    fn drain(
        &mut self,
        mut run: impl FnMut(&[u8]) -> Result<Predictions, VideoError>,
    ) -> Result<Predictions, VideoError> {
        let mut out = Predictions::default();
        while self.buffer.len() >= WINDOW * FRAME_BYTES {
            let p = run(&self.buffer[..WINDOW * FRAME_BYTES])?;
            out.single
                .extend_from_slice(&p.single[CONTEXT..CONTEXT + STEP]);
            out.many.extend_from_slice(&p.many[CONTEXT..CONTEXT + STEP]);
            self.buffer.drain(..STEP * FRAME_BYTES);
            self.given += STEP;
        }
        Ok(out)
    }
}

/// The frames that start a new shot, from per-frame transition
/// probabilities: a run of frames above `threshold` is one transition (one
/// frame for a cut, several for a fade or a dissolve) and the shot after it
/// starts at the first frame below again, where the reference's
/// `predictions_to_scenes` starts its next scene. The frames of a
/// transition stay with the shot before it; a transition at the very start
/// (a fade-in) starts no shot.
pub fn cuts_of_predictions(single: &[f32], threshold: f32) -> Vec<u64> {
    let mut cuts = Vec::new();
    let mut seen_below = false;
    let mut previous_above = false;
    for (i, &p) in single.iter().enumerate() {
        let above = p > threshold;
        if !above {
            if previous_above && seen_below {
                cuts.push(i as u64);
            }
            seen_below = true;
        }
        previous_above = above;
    }
    cuts
}
