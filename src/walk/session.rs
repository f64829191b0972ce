//! Test mode: a person answers through the eval protocol itself.
//!
//! [`HumanSubject`] is an ordinary [`Subject`]: when the protocol asks it a question
//! it hands a [`Prompt`] to the user interface over a channel and waits for the
//! person's reply. [`TestSession::start`] runs [`run_stored_with`] on its own thread
//! with its own store connection, so the walk, the scoring and the resumable run in the
//! store are exactly those of `moviegraph eval run`; the interface only shows prompts
//! and sends replies.

use std::path::PathBuf;
use std::thread::JoinHandle;

use async_trait::async_trait;
use tokio::sync::{mpsc, oneshot};

use crate::eval::prompt::Phase;
use crate::eval::protocol::{run_stored_with, RunEvent, RunOptions, RunProgress};
use crate::eval::subject::{fnv1a, Ask, QuestionView, Subject, SubjectError};
use crate::store::{EvalRun, Store};
use crate::trees::schema::{Format, Tree};

/// The subject name every human run carries; the person is the run's annotator.
pub const HUMAN_SUBJECT: &str = "human";

/// Why a session could not start.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The annotator name is not usable in a run id.
    #[error(
        "annotator {0:?}: use 1 to 40 letters, digits, '.', '_' or '-' (it becomes part of the run id)"
    )]
    BadAnnotator(String),
}

/// Checks an annotator name: 1–40 ASCII letters, digits, `.`, `_`, `-`.
pub fn check_annotator(name: &str) -> Result<(), SessionError> {
    let ok = !name.is_empty()
        && name.len() <= 40
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if ok {
        Ok(())
    } else {
        Err(SessionError::BadAnnotator(name.to_string()))
    }
}

/// The run id of `annotator` on `trees`: `human-<annotator>-<hash of the trees>`, the
/// hash as `eval run` computes its default ids, so the same person on the same trees
/// always resumes the same run.
pub fn human_run_id(annotator: &str, trees: &[Tree]) -> String {
    let digest = serde_json::to_vec(trees).unwrap_or_default();
    format!("human-{annotator}-{:08x}", fnv1a(&digest) as u32)
}

/// One question waiting for the person's answer.
#[derive(Debug)]
pub struct Prompt {
    /// Position of the tree in the session's trees.
    pub tree_index: usize,
    /// The tree's id.
    pub tree_id: String,
    /// The node asked.
    pub node_id: String,
    /// The phase it is asked in.
    pub phase: Phase,
    /// What the person reads: premise (phase 2), excerpt, keyframe note and
    /// question, as a model's user turn has them, without the lettered options
    /// (in `view`, shown as choices) or the model's answer-format instruction.
    pub text: String,
    /// Keyframe paths shown with it (workspace-relative).
    pub images: Vec<String>,
    /// The question as shown, without its gold answer.
    pub view: QuestionView,
    reply: oneshot::Sender<String>,
}

impl Prompt {
    /// Answers with the chosen option labels (`single`, `multi`) or the typed text
    /// (`open`), in the bracketed form the protocol's parser reads.
    pub fn answer(self, choice: &[String], text: &str) {
        let reply = reply_text(self.view.format, choice, text);
        // A closed session dropped its receiver; there is nothing left to tell.
        let _ = self.reply.send(reply);
    }
}

/// The reply the person's answer becomes: `[[A, C]]` for choices (labels kept in the
/// order the options are shown), `[[text]]` for open answers (brackets inside the text
/// are flattened so the parser cannot mistake them for the answer's end).
pub fn reply_text(format: Format, choice: &[String], text: &str) -> String {
    match format {
        Format::Open => {
            let clean = text.replace("[[", "[").replace("]]", "]");
            format!(
                "[[{}]]",
                clean.split_whitespace().collect::<Vec<_>>().join(" ")
            )
        }
        Format::Single | Format::Multi => format!("[[{}]]", choice.join(", ")),
    }
}

/// A stored reply as the person gave it, for showing back to them: the
/// answer inside the `[[…]]` the protocol stores (a person never sees the
/// models' format).
pub fn shown_reply(reply: &str) -> &str {
    let r = reply.trim();
    r.strip_prefix("[[")
        .and_then(|r| r.strip_suffix("]]"))
        .unwrap_or(r)
        .trim()
}

/// What a session tells the interface.
#[derive(Debug)]
pub enum SessionEvent {
    /// A question to answer.
    Ask(Prompt),
    /// An answer was stored (replayed answers of a resumed run are not reported).
    Recorded {
        /// The tree's id.
        tree_id: String,
    },
    /// A tree is walked to its end.
    TreeDone {
        /// The tree's id.
        tree_id: String,
        /// Answers recorded for it in all.
        answers: usize,
    },
    /// The run ended: its totals, or why it stopped.
    Finished(Result<RunProgress, String>),
}

/// The subject a person answers through.
#[derive(Debug)]
pub struct HumanSubject {
    trees: Vec<String>,
    events: mpsc::UnboundedSender<SessionEvent>,
}

#[async_trait]
impl Subject for HumanSubject {
    fn name(&self) -> &str {
        HUMAN_SUBJECT
    }

    async fn answer(&self, ask: &Ask<'_>) -> Result<String, SubjectError> {
        let closed = || SubjectError {
            who: HUMAN_SUBJECT.into(),
            message: "the walker was closed before this question was answered".into(),
        };
        let last = ask.conversation.last();
        let (tx, rx) = oneshot::channel();
        let prompt = Prompt {
            tree_index: self
                .trees
                .iter()
                .position(|t| t == ask.tree_id)
                .unwrap_or(0),
            tree_id: ask.tree_id.to_string(),
            node_id: ask.node_id.to_string(),
            phase: ask.phase,
            text: crate::eval::prompt::for_people(
                last.map_or("", |m| m.text.as_str()),
                &ask.question.question,
                ask.question.format,
            ),
            images: last.map(|m| m.images.clone()).unwrap_or_default(),
            view: ask.question.clone(),
            reply: tx,
        };
        self.events
            .send(SessionEvent::Ask(prompt))
            .map_err(|_| closed())?;
        rx.await.map_err(|_| closed())
    }
}

/// A running test-mode walk: the protocol on its own thread, the interface's end of
/// the channel here.
#[derive(Debug)]
pub struct TestSession {
    /// The run's id in the store.
    pub run_id: String,
    /// Prompts and progress from the protocol.
    pub events: mpsc::UnboundedReceiver<SessionEvent>,
    thread: Option<JoinHandle<()>>,
}

impl TestSession {
    /// Starts (or resumes) `annotator`'s run on `trees` in the store at `store_path`.
    /// `source` names the tree files for the report header.
    pub fn start(
        store_path: PathBuf,
        annotator: &str,
        trees: Vec<Tree>,
        source: String,
    ) -> Result<TestSession, SessionError> {
        check_annotator(annotator)?;
        let run = EvalRun {
            id: human_run_id(annotator, &trees),
            subject: HUMAN_SUBJECT.into(),
            judge: None,
            text_only: false,
            seed: 0,
            source,
        };
        let run_id = run.id.clone();
        let annotator = annotator.to_string();
        let (tx, rx) = mpsc::unbounded_channel();
        let thread = std::thread::spawn(move || {
            let result = run_session(&store_path, &run, &annotator, &trees, tx.clone());
            let _ = tx.send(SessionEvent::Finished(result));
        });
        Ok(TestSession {
            run_id,
            events: rx,
            thread: Some(thread),
        })
    }
}

impl Drop for TestSession {
    fn drop(&mut self) {
        // Closing the receiver makes a waiting HumanSubject fail, which ends the
        // protocol thread with every answer so far stored.
        self.events.close();
        while let Ok(event) = self.events.try_recv() {
            drop(event);
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn run_session(
    store_path: &std::path::Path,
    run: &EvalRun,
    annotator: &str,
    trees: &[Tree],
    tx: mpsc::UnboundedSender<SessionEvent>,
) -> Result<RunProgress, String> {
    let store = Store::open(store_path).map_err(|e| e.to_string())?;
    // The run is created here rather than by run_stored_with so that its annotator can
    // be recorded before the first question; run_stored_with then finds it and checks
    // that the settings and trees match, as on any resume.
    if store
        .eval_run(&run.id)
        .map_err(|e| e.to_string())?
        .is_none()
    {
        let jsons: Vec<(String, String, String)> = trees
            .iter()
            .map(|t| {
                (
                    t.id.clone(),
                    t.film.clone(),
                    serde_json::to_string(t).unwrap_or_default(),
                )
            })
            .collect();
        store
            .create_eval_run(run, &jsons)
            .map_err(|e| e.to_string())?;
    }
    let named = store
        .set_eval_run_annotator(&run.id, annotator)
        .map_err(|e| e.to_string())?;
    if named != annotator {
        return Err(format!(
            "run {} belongs to annotator {named}, not {annotator}",
            run.id
        ));
    }
    let subject = HumanSubject {
        trees: trees.iter().map(|t| t.id.clone()).collect(),
        events: tx.clone(),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .map_err(|e| e.to_string())?;
    runtime
        .block_on(run_stored_with(
            &store,
            run,
            trees,
            &subject,
            None,
            RunOptions::default(),
            &|event| match event {
                RunEvent::Answered { tree } => {
                    let _ = tx.send(SessionEvent::Recorded {
                        tree_id: tree.id.clone(),
                    });
                }
                RunEvent::TreeDone { tree, .. } => {
                    let answers = store
                        .eval_answers(&run.id)
                        .map(|all| all.iter().filter(|a| a.tree_id == tree.id).count())
                        .unwrap_or(0);
                    let _ = tx.send(SessionEvent::TreeDone {
                        tree_id: tree.id.clone(),
                        answers,
                    });
                }
            },
        ))
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_reply_is_shown_back_without_the_models_brackets() {
        assert_eq!(super::shown_reply("[[A, C]]"), "A, C");
        assert_eq!(super::shown_reply(" [[she took it]] "), "she took it");
        assert_eq!(super::shown_reply("no brackets"), "no brackets");
    }

    use super::*;

    #[test]
    fn replies_are_what_the_parser_reads() {
        use crate::eval::parse::{parse_answer, Parsed};
        let labels = ["A", "B", "C"];
        let multi = reply_text(Format::Multi, &["A".into(), "C".into()], "");
        assert_eq!(multi, "[[A, C]]");
        assert_eq!(
            parse_answer(Format::Multi, &labels, &multi),
            Parsed::Choice(vec!["A".into(), "C".into()])
        );
        let open = reply_text(Format::Open, &[], " she [[lied]]\n to him ");
        assert_eq!(open, "[[she [lied] to him]]");
        assert_eq!(
            parse_answer(Format::Open, &labels, &open),
            Parsed::Open("she [lied] to him".into())
        );
    }

    #[test]
    fn annotator_names_fit_a_run_id() {
        assert!(check_annotator("ana.b_2-x").is_ok());
        for bad in ["", "a b", "../x", "ä", &"x".repeat(41)] {
            assert!(check_annotator(bad).is_err(), "{bad:?}");
        }
    }
}
