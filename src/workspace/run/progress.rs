//! The one progress display of a run: a bar per film, and the step hook tests drive.

use super::*;

/// How `MOVIEGRAPH_RUN_EVENTS` asks the run to show its steps: a test hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Hook {
    Off,
    /// A line `moviegraph-event FILM STAGE N` on stderr per step.
    Print,
    /// As `Print`, then wait for a line on stdin (end of input: stop waiting), so a
    /// test can kill the process at a chosen step.
    Step,
}

/// The one progress display of a run (a bar per film: stage, items, rate, ETA,
/// cost so far), on stderr; drawn only on a terminal.
pub struct Progress {
    pub(super) multi: MultiProgress,
    pub(super) hook: Hook,
    pub(super) stdin_open: Mutex<bool>,
}

impl Progress {
    /// A display on stderr (hidden when stderr is not a terminal, or `quiet`).
    pub fn new(quiet: bool) -> Progress {
        let target = if quiet {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        };
        let hook = match std::env::var("MOVIEGRAPH_RUN_EVENTS").as_deref() {
            Ok("step") => Hook::Step,
            Ok(v) if !v.is_empty() && v != "0" => Hook::Print,
            _ => Hook::Off,
        };
        Progress {
            multi: MultiProgress::with_draw_target(target),
            hook,
            stdin_open: Mutex::new(true),
        }
    }

    /// A display that draws nothing and reports no step (benchmarks).
    pub fn hidden() -> Progress {
        Progress {
            multi: MultiProgress::with_draw_target(ProgressDrawTarget::hidden()),
            hook: Hook::Off,
            stdin_open: Mutex::new(false),
        }
    }

    pub(super) fn film(&self, film: &str) -> FilmBar<'_> {
        let bar = self.multi.add(ProgressBar::new(0));
        bar.set_style(
            ProgressStyle::with_template(
                "{prefix:>18} {msg:<44} [{bar:20}] {pos:>5}/{len:<5} {per_sec:>11} ETA {eta:>3}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        bar.set_prefix(film.to_owned());
        FilmBar {
            bar,
            film: film.to_owned(),
            stage: Stage::Parse,
            backend: String::new(),
            progress: self,
        }
    }

    pub(super) fn event(&self, film: &str, stage: Stage, n: u64) {
        if self.hook == Hook::Off {
            return;
        }
        let mut open = self.stdin_open.lock().unwrap_or_else(|e| e.into_inner());
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "moviegraph-event {film} {} {n}", stage.name());
        let _ = err.flush();
        drop(err);
        if self.hook == Hook::Step && *open {
            let mut line = String::new();
            if std::io::stdin().lock().read_line(&mut line).unwrap_or(0) == 0 {
                *open = false;
            }
        }
    }
}

pub(super) struct FilmBar<'a> {
    pub(super) bar: ProgressBar,
    pub(super) film: String,
    pub(super) stage: Stage,
    pub(super) backend: String,
    pub(super) progress: &'a Progress,
}

impl FilmBar<'_> {
    pub(super) fn stage(&mut self, stage: Stage, backend: &str, len: usize, cost: f64) {
        self.stage = stage;
        self.backend = backend.to_owned();
        self.bar.reset();
        self.bar.set_length(len as u64);
        self.show_cost(cost);
    }

    /// The message: the stage, its backend, and the run's model cost so far.
    pub(super) fn show_cost(&self, cost: f64) {
        self.bar.set_message(format!(
            "{:<6} {} · ${cost:.2}",
            self.stage.name(),
            self.backend
        ));
    }

    pub(super) fn inc(&self, n: u64) {
        self.bar.inc(n);
        self.progress
            .event(&self.film, self.stage, self.bar.position());
    }
}

impl Drop for FilmBar<'_> {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
        self.progress.multi.remove(&self.bar);
    }
}
