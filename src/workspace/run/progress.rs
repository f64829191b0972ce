//! The one progress display of a run: a bar per film, drawn by the caller's
//! [`Reporter`], with a step reported at every item (the hook tests drive).

use super::*;
use crate::util::report::{Bar, Reporter};

/// The progress of a run (a bar per film: stage, items, cost so far), shown
/// through the caller's reporter.
pub struct Progress<'r> {
    pub(super) reporter: &'r dyn Reporter,
}

impl<'r> Progress<'r> {
    /// Progress shown through `reporter`.
    pub fn new(reporter: &'r dyn Reporter) -> Progress<'r> {
        Progress { reporter }
    }

    pub(super) fn film(&self, film: &str) -> FilmBar<'_> {
        FilmBar {
            bar: std::sync::Arc::from(self.reporter.bar(film)),
            film: film.to_owned(),
            stage: Stage::Parse,
            backend: String::new(),
            reporter: self.reporter,
        }
    }
}

pub(super) struct FilmBar<'a> {
    pub(super) bar: std::sync::Arc<dyn Bar + 'a>,
    pub(super) film: String,
    pub(super) stage: Stage,
    pub(super) backend: String,
    pub(super) reporter: &'a dyn Reporter,
}

impl FilmBar<'_> {
    pub(super) fn stage(&mut self, stage: Stage, backend: &str, len: usize, cost: f64) {
        self.stage = stage;
        self.backend = backend.to_owned();
        self.bar.restart(len as u64);
        self.show_cost(cost);
    }

    /// The message: the stage, its backend, and the run's model cost so far.
    pub(super) fn show_cost(&self, cost: f64) {
        self.bar.message(&format!(
            "{:<6} {} · ${cost:.2}",
            self.stage.name(),
            self.backend
        ));
    }

    /// `n` items done: the bar moves and the step is reported.
    pub(super) fn inc(&self, n: u64) {
        let position = self.bar.advance(n);
        self.reporter.step(&self.film, self.stage.name(), position);
    }

    /// `n` items replayed from the store: the bar moves, no step.
    pub(super) fn skip(&self, n: u64) {
        self.bar.advance(n);
    }
}
