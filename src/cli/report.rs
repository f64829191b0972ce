//! The terminal's [`Reporter`]: notes on stderr, a bar per film drawn with
//! indicatif (only on a terminal), and the step hook tests drive through
//! `MOVIEGRAPH_RUN_EVENTS`.

use std::io::{BufRead, Write as _};
use std::sync::Mutex;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use moviegraph::util::report::{Bar, Reporter};

/// How `MOVIEGRAPH_RUN_EVENTS` asks the run to show its steps: a test hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hook {
    Off,
    /// A line `moviegraph-event FILM STAGE N` on stderr per step.
    Print,
    /// As `Print`, then wait for a line on stdin (end of input: stop waiting), so a
    /// test can kill the process at a chosen step.
    Step,
}

/// Notes and progress on stderr.
pub struct Terminal {
    multi: MultiProgress,
    hook: Hook,
    stdin_open: Mutex<bool>,
}

impl Terminal {
    /// Bars on stderr (hidden when stderr is not a terminal, or `quiet`);
    /// notes always.
    pub fn new(quiet: bool) -> Terminal {
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
        Terminal {
            multi: MultiProgress::with_draw_target(target),
            hook,
            stdin_open: Mutex::new(true),
        }
    }
}

impl Terminal {
    /// Notes on stderr, no bars: for commands whose only messages are notes
    /// (a wait for the store, a fallback taken).
    pub fn notes() -> Terminal {
        Terminal::new(true)
    }
}

impl Reporter for Terminal {
    fn note(&self, message: &str) {
        self.multi.suspend(|| eprintln!("{message}"));
    }

    fn bar(&self, label: &str) -> Box<dyn Bar + '_> {
        let bar = self.multi.add(ProgressBar::new(0));
        bar.set_style(
            ProgressStyle::with_template(
                "{prefix:>18} {msg:<44} [{bar:20}] {pos:>5}/{len:<5} {per_sec:>11} ETA {eta:>3}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        bar.set_prefix(label.to_owned());
        Box::new(TerminalBar {
            bar,
            multi: &self.multi,
        })
    }

    fn step(&self, label: &str, stage: &str, position: u64) {
        if self.hook == Hook::Off {
            return;
        }
        let mut open = self.stdin_open.lock().unwrap_or_else(|e| e.into_inner());
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "moviegraph-event {label} {stage} {position}");
        let _ = err.flush();
        drop(err);
        if self.hook == Hook::Step && *open {
            let mut line = String::new();
            if std::io::stdin().lock().read_line(&mut line).unwrap_or(0) == 0 {
                *open = false;
            }
        }
    }

    fn watches_steps(&self) -> bool {
        self.hook != Hook::Off
    }
}

struct TerminalBar<'a> {
    bar: ProgressBar,
    multi: &'a MultiProgress,
}

impl Bar for TerminalBar<'_> {
    fn restart(&self, len: u64) {
        self.bar.reset();
        self.bar.set_length(len);
    }
    fn message(&self, text: &str) {
        self.bar.set_message(text.to_owned());
    }
    fn advance(&self, n: u64) -> u64 {
        self.bar.inc(n);
        self.bar.position()
    }
    fn set(&self, position: u64, len: u64) {
        self.bar.set_length(len);
        self.bar.set_position(position);
    }
}

impl Drop for TerminalBar<'_> {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
        self.multi.remove(&self.bar);
    }
}
