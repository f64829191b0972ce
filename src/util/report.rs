//! How work below the top tells the person running it what it is doing:
//! notes (a fallback taken, a wait begun), a progress bar per item of long
//! work, and the steps a test can stop at. The front end draws them (the CLI
//! with indicatif on stderr); below the top nothing prints.

use std::sync::Mutex;

/// Where notes and progress go.
pub trait Reporter: Send + Sync {
    /// A one-line notice for the person running the command.
    fn note(&self, message: &str);
    /// A progress bar for one item of long work (a film), labelled `label`.
    fn bar(&self, label: &str) -> Box<dyn Bar + '_>;
    /// A step of `label`'s work ended at `position` of its current stage
    /// `stage` (a hook for tests that stop a run at a chosen step).
    fn step(&self, _label: &str, _stage: &str, _position: u64) {}
    /// Whether someone watches every step, so work that can report in
    /// finer steps should (a test stopping a run at a chosen block).
    fn watches_steps(&self) -> bool {
        false
    }
}

/// One progress bar. It is cleared when dropped.
pub trait Bar: Send + Sync {
    /// Starts over at zero of `len`.
    fn restart(&self, len: u64);
    /// The text beside the bar.
    fn message(&self, text: &str);
    /// Moves `n` forward; returns the position.
    fn advance(&self, n: u64) -> u64;
    /// Puts the bar at `position` of `len` (work whose total is learned as
    /// it goes, like an embedding pass).
    fn set(&self, position: u64, len: u64);
}

/// A reporter that shows nothing (benchmarks, library callers that do not
/// care).
#[derive(Debug, Default, Clone, Copy)]
pub struct Silent;

/// A bar that counts and shows nothing.
#[derive(Debug, Default)]
pub struct CountingBar {
    position: std::sync::atomic::AtomicU64,
}

impl Bar for CountingBar {
    fn restart(&self, _len: u64) {
        self.position.store(0, std::sync::atomic::Ordering::Relaxed);
    }
    fn message(&self, _text: &str) {}
    fn advance(&self, n: u64) -> u64 {
        self.position
            .fetch_add(n, std::sync::atomic::Ordering::Relaxed)
            + n
    }
    fn set(&self, position: u64, _len: u64) {
        self.position
            .store(position, std::sync::atomic::Ordering::Relaxed);
    }
}

impl Reporter for Silent {
    fn note(&self, _message: &str) {}
    fn bar(&self, _label: &str) -> Box<dyn Bar + '_> {
        Box::new(CountingBar::default())
    }
}

/// A reporter that keeps every note and step as a line, for tests.
#[derive(Debug, Default)]
pub struct Recorder {
    lines: Mutex<Vec<String>>,
}

impl Recorder {
    /// The lines recorded so far: `note: …` and `step: LABEL STAGE N`.
    pub fn lines(&self) -> Vec<String> {
        self.lines.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn push(&self, line: String) {
        self.lines
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(line);
    }
}

impl Reporter for Recorder {
    fn note(&self, message: &str) {
        self.push(format!("note: {message}"));
    }
    fn bar(&self, _label: &str) -> Box<dyn Bar + '_> {
        Box::new(CountingBar::default())
    }
    fn step(&self, label: &str, stage: &str, position: u64) {
        self.push(format!("step: {label} {stage} {position}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorder_keeps_notes_and_steps_and_a_bar_counts() {
        let r = Recorder::default();
        r.note("waiting for the store");
        let bar = r.bar("film");
        bar.restart(3);
        assert_eq!(bar.advance(2), 2);
        assert_eq!(bar.advance(1), 3);
        bar.restart(1);
        assert_eq!(bar.advance(1), 1);
        r.step("film", "parse", 1);
        assert_eq!(
            r.lines(),
            vec!["note: waiting for the store", "step: film parse 1"]
        );
    }
}
