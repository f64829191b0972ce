//! The two-phase protocol (docs/evaluation.md, the paper's Algorithm 1), one continuous
//! conversation per tree.
//!
//! Phase 1 starts at the root and follows the subject's own answers: after a correct
//! answer, the child of the (first) correct option that has one (`open`: the
//! `correct` branch); after a wrong one, the child of the chosen option (`multi`: the
//! first chosen distractor; `open`: the `incorrect` branch). It stops where that option
//! has no child, and where a wrong answer chose no distractor at all (unparseable, or a
//! strict subset of the correct set), since no branch of the tree follows from it.
//! Phase 2 then asks every node not on the path, by depth then file order, under the
//! premise that its parent's answer was its trigger.
//!
//! Resuming: every answer is recorded as it arrives. A resumed tree replays its
//! conversation from the recorded replies (the protocol is deterministic given the
//! replies, so the conversation is rebuilt exactly) and asks only what is missing.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::pin::Pin;
use std::task::Poll;

use super::parse::{parse_answer, Parsed};
use super::prompt::{render_question, Message, Phase, Role, SYSTEM_PROMPT};
use super::score::{score_choice, score_open, Scored};
use super::subject::{Ask, Judge, QuestionView, Subject, SubjectError};
use crate::store::{EvalAnswer, EvalRun, Store, StoreError};
use crate::trees::schema::{Format, Node, Tree};
use crate::util::hash::fnv1a;
use crate::util::rng::SplitMix64;

/// Why a run stopped.
#[derive(Debug, thiserror::Error)]
pub enum ProtocolError {
    /// The subject failed; the answers before it are recorded.
    #[error("subject failed on {tree}/{node}: {source}")]
    Subject {
        /// The tree.
        tree: String,
        /// The node.
        node: String,
        /// What the subject said.
        source: SubjectError,
    },
    /// The judge failed; the answers before it are recorded.
    #[error("judge failed on {tree}/{node}: {source}")]
    Judge {
        /// The tree.
        tree: String,
        /// The node.
        node: String,
        /// What the judge said.
        source: SubjectError,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A tree is broken or does not match what the run recorded.
    #[error("tree {tree}: {message}")]
    Tree {
        /// The tree.
        tree: String,
        /// The problem.
        message: String,
    },
    /// The run exists with other settings or other trees.
    #[error("run {run}: {message}")]
    Mismatch {
        /// The run id.
        run: String,
        /// What differs.
        message: String,
    },
}

/// Settings of one walk.
#[derive(Debug, Clone, Copy, Default)]
pub struct WalkSettings {
    /// Withhold keyframes.
    pub text_only: bool,
    /// The order choice options are shown in.
    pub display: Display,
}

/// The order a choice question's options are shown in. Labels stay `A, B, C…` in
/// display order; answers are mapped back to the original options before scoring.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Display {
    /// As in the tree file.
    #[default]
    Original,
    /// Cyclic rotation by k: display position j shows original option (j + k) mod n.
    Rotate(usize),
    /// A shuffle seeded by this seed, the tree id and the node id.
    Shuffle(u64),
}

/// The five displays of `--rotate`: the four cyclic rotations, then one seeded shuffle,
/// with the suffix each one's run id carries (none for rotation 0).
pub fn rotation_displays(seed: u64) -> [(Display, &'static str); 5] {
    [
        (Display::Rotate(0), ""),
        (Display::Rotate(1), "@rot1"),
        (Display::Rotate(2), "@rot2"),
        (Display::Rotate(3), "@rot3"),
        (Display::Shuffle(seed), "@shuffle"),
    ]
}

/// Display position j shows original option `order[j]`.
pub fn display_order(display: Display, tree_id: &str, node_id: &str, n: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    match display {
        Display::Original => {}
        Display::Rotate(k) => {
            if n > 0 {
                order.rotate_left(k % n);
            }
        }
        Display::Shuffle(seed) => {
            let mut rng = SplitMix64::new(
                seed ^ fnv1a(tree_id.as_bytes()) ^ fnv1a(node_id.as_bytes()).rotate_left(23),
            );
            for i in (1..n).rev() {
                order.swap(i, rng.below(i + 1));
            }
        }
    }
    order
}

/// The node as displayed: options reordered by `order`, labels kept in sequence.
fn displayed(node: &Node, order: &[usize]) -> Node {
    let mut shown = node.clone();
    for (j, &i) in order.iter().enumerate() {
        shown.options[j] = node.options[i].clone();
        shown.options[j].label = node.options[j].label.clone();
    }
    shown
}

/// Displayed labels back to the original options' labels, in original option order.
fn map_back(node: &Node, order: &[usize], parsed: Parsed) -> Parsed {
    let Parsed::Choice(labels) = parsed else {
        return parsed;
    };
    let mut original: Vec<usize> = labels
        .iter()
        .filter_map(|l| node.options.iter().position(|o| &o.label == l))
        .map(|j| order[j])
        .collect();
    original.sort_unstable();
    original.dedup();
    Parsed::Choice(
        original
            .into_iter()
            .map(|i| node.options[i].label.clone())
            .collect(),
    )
}

/// The display a stored run was walked with, read from its id: the passes
/// of `--rotate` carry the suffix of [`rotation_displays`]; any other run
/// showed the options as in the tree file.
pub fn run_display(run: &EvalRun) -> Display {
    rotation_displays(run.seed)
        .into_iter()
        .skip(1)
        .find(|(_, suffix)| run.id.ends_with(suffix))
        .map_or(Display::Original, |(display, _)| display)
}

/// The conversation of a recorded walk of `tree`, rebuilt from its answers
/// exactly as the subject saw it (the walk is deterministic given the
/// replies): the system prompt, then each question as displayed, in
/// conversation order, and the reply verbatim.
pub fn recorded_conversation(
    tree: &Tree,
    answers: &[EvalAnswer],
    settings: WalkSettings,
) -> Vec<Message> {
    let mut ordered: Vec<&EvalAnswer> = answers.iter().filter(|a| a.tree_id == tree.id).collect();
    ordered.sort_by_key(|a| a.seq);
    let mut out = vec![Message::text(Role::System, SYSTEM_PROMPT)];
    for answer in ordered {
        let Some(node) = tree.node(&answer.node_id) else {
            continue;
        };
        let phase = Phase::from_number(answer.phase).unwrap_or(Phase::Path);
        let shown = if node.format == Format::Open || settings.display == Display::Original {
            node.clone()
        } else {
            let order = display_order(settings.display, &tree.id, &node.id, node.options.len());
            displayed(node, &order)
        };
        out.push(render_question(tree, &shown, phase, settings.text_only));
        out.push(Message::text(Role::Assistant, answer.raw.clone()));
    }
    out
}

/// One tree's walk: every answer in conversation order and how many were new.
#[derive(Debug, Clone)]
pub struct TreeWalk {
    /// The answers, phase 1 then phase 2.
    pub answers: Vec<EvalAnswer>,
    /// How many the subject was asked for in this walk (the rest were replayed).
    pub asked: usize,
    /// The full conversation.
    pub conversation: Vec<Message>,
}

/// Walks one tree: phase 1, then phase 2. `prior` holds recorded answers of this tree
/// by node id; `record` is called with each new answer before the walk moves on.
pub async fn walk_tree(
    tree: &Tree,
    subject: &dyn Subject,
    judge: Option<&dyn Judge>,
    settings: WalkSettings,
    prior: &HashMap<String, EvalAnswer>,
    record: &mut dyn FnMut(&EvalAnswer) -> Result<(), StoreError>,
) -> Result<TreeWalk, ProtocolError> {
    let mut walk = TreeWalk {
        answers: Vec::new(),
        asked: 0,
        conversation: vec![Message::text(Role::System, SYSTEM_PROMPT)],
    };
    let Some(root) = tree.root() else {
        return Ok(walk);
    };
    let mut visited: HashSet<&str> = HashSet::new();
    let mut current = Some(root);
    while let Some(node) = current {
        if !visited.insert(node.id.as_str()) {
            return Err(tree_error(
                tree,
                format!("node {} is reached twice", node.id),
            ));
        }
        let (parsed, answer) = ask(
            tree,
            node,
            Phase::Path,
            subject,
            judge,
            settings,
            prior,
            record,
            &mut walk,
        )
        .await?;
        current = match next_on_path(node, &parsed, answer.correct) {
            Some(id) => Some(tree.node(id).ok_or_else(|| {
                tree_error(tree, format!("node {} leads to missing node {id}", node.id))
            })?),
            None => None,
        };
    }
    let mut rest: Vec<(usize, &Node)> = tree
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| !visited.contains(n.id.as_str()))
        .collect();
    rest.sort_by_key(|&(index, node)| (node.depth, index));
    for (_, node) in rest {
        ask(
            tree,
            node,
            Phase::Counterfactual,
            subject,
            judge,
            settings,
            prior,
            record,
            &mut walk,
        )
        .await?;
    }
    Ok(walk)
}

/// The next node of phase 1 after `node` was answered.
pub fn next_on_path<'a>(node: &'a Node, parsed: &Parsed, correct: bool) -> Option<&'a str> {
    match node.format {
        Format::Open => {
            if correct {
                node.open_branches.correct.as_deref()
            } else {
                node.open_branches.incorrect.as_deref()
            }
        }
        Format::Single | Format::Multi => {
            if correct {
                node.options
                    .iter()
                    .find(|o| o.correct && o.child.is_some())
                    .and_then(|o| o.child.as_deref())
            } else {
                let Parsed::Choice(chosen) = parsed else {
                    return None;
                };
                node.options
                    .iter()
                    .find(|o| !o.correct && chosen.contains(&o.label))
                    .and_then(|o| o.child.as_deref())
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
async fn ask(
    tree: &Tree,
    node: &Node,
    phase: Phase,
    subject: &dyn Subject,
    judge: Option<&dyn Judge>,
    settings: WalkSettings,
    prior: &HashMap<String, EvalAnswer>,
    record: &mut dyn FnMut(&EvalAnswer) -> Result<(), StoreError>,
    walk: &mut TreeWalk,
) -> Result<(Parsed, EvalAnswer), ProtocolError> {
    let order = display_order(settings.display, &tree.id, &node.id, node.options.len());
    let shown = if node.format == Format::Open || settings.display == Display::Original {
        None
    } else {
        Some(displayed(node, &order))
    };
    let shown_node = shown.as_ref().unwrap_or(node);
    walk.conversation
        .push(render_question(tree, shown_node, phase, settings.text_only));
    let seq = walk.answers.len() as u32;
    let answer = if let Some(stored) = prior.get(&node.id) {
        if stored.phase != phase.number() || stored.seq != seq {
            return Err(tree_error(
                tree,
                format!(
                    "recorded answer to {} (phase {}, position {}) does not fit the walk \
                     (phase {}, position {seq}); the tree changed since the run began",
                    node.id,
                    stored.phase,
                    stored.seq,
                    phase.number()
                ),
            ));
        }
        stored.clone()
    } else {
        let view = QuestionView::of(shown_node);
        let raw = subject
            .answer(&Ask {
                tree_id: &tree.id,
                node_id: &node.id,
                phase,
                conversation: &walk.conversation,
                question: &view,
            })
            .await
            .map_err(|source| ProtocolError::Subject {
                tree: tree.id.clone(),
                node: node.id.clone(),
                source,
            })?;
        walk.asked += 1;
        let labels: Vec<&str> = node.options.iter().map(|o| o.label.as_str()).collect();
        let mut parsed = parse_answer(node.format, &labels, &raw);
        if shown.is_some() {
            parsed = map_back(node, &order, parsed);
        }
        let scored = score_node(tree, node, &parsed, judge).await?;
        let answer = EvalAnswer {
            tree_id: tree.id.clone(),
            node_id: node.id.clone(),
            phase: phase.number(),
            seq,
            parsed: serde_json::to_string(&parsed).unwrap_or_default(),
            raw,
            correct: scored.correct,
            score: scored.score,
            rouge: scored.rouge,
            judge: scored.judge,
        };
        record(&answer)?;
        answer
    };
    let parsed: Parsed = serde_json::from_str(&answer.parsed).unwrap_or(Parsed::Unparseable);
    walk.conversation
        .push(Message::text(Role::Assistant, answer.raw.clone()));
    walk.answers.push(answer.clone());
    Ok((parsed, answer))
}

async fn score_node(
    tree: &Tree,
    node: &Node,
    parsed: &Parsed,
    judge: Option<&dyn Judge>,
) -> Result<Scored, ProtocolError> {
    if node.format != Format::Open {
        return Ok(score_choice(node, parsed));
    }
    let reference = node.reference.as_deref().unwrap_or("");
    let grade = match (judge, parsed) {
        (Some(judge), Parsed::Open(text)) => Some(
            judge
                .grade(&node.question, reference, text)
                .await
                .map_err(|source| ProtocolError::Judge {
                    tree: tree.id.clone(),
                    node: node.id.clone(),
                    source,
                })?,
        ),
        _ => None,
    };
    Ok(score_open(parsed, reference, grade))
}

fn tree_error(tree: &Tree, message: String) -> ProtocolError {
    ProtocolError::Tree {
        tree: tree.id.clone(),
        message,
    }
}

/// What a stored run did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunProgress {
    /// Trees walked to the end.
    pub trees: usize,
    /// Answers recorded in all (replayed and new).
    pub answers: usize,
    /// Questions the subject was asked in this invocation.
    pub asked: usize,
}

/// Runs (or resumes) `run` on `trees` in the store: creates the run on first use,
/// refuses to resume with other settings or trees, walks every tree in order, and
/// records each answer as it arrives. `progress` is called after each tree.
pub async fn run_stored(
    store: &Store,
    run: &EvalRun,
    trees: &[Tree],
    subject: &dyn Subject,
    judge: Option<&dyn Judge>,
    progress: &mut dyn FnMut(&Tree, &RunProgress),
) -> Result<RunProgress, ProtocolError> {
    let progress = RefCell::new(progress);
    run_stored_with(
        store,
        run,
        trees,
        subject,
        judge,
        RunOptions::default(),
        &|event| {
            if let RunEvent::TreeDone { tree, done, .. } = event {
                (progress.borrow_mut())(tree, done);
            }
        },
    )
    .await
}

/// How [`run_stored_with`] runs.
#[derive(Debug, Clone, Copy)]
pub struct RunOptions {
    /// The order choice options are shown in (one display per run; `--rotate` makes
    /// five runs, see [`rotation_displays`]).
    pub display: Display,
    /// Trees walked at once (at least 1). Each tree is its own conversation, so the
    /// answers do not depend on this; only the order in which they arrive does.
    pub jobs: usize,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            display: Display::Original,
            jobs: 1,
        }
    }
}

/// What [`run_stored_with`] reports as it goes.
#[derive(Debug, Clone, Copy)]
pub enum RunEvent<'a> {
    /// The subject answered a question of `tree` and the answer is stored.
    Answered {
        /// The tree.
        tree: &'a Tree,
    },
    /// `tree` is walked to its end.
    TreeDone {
        /// The tree.
        tree: &'a Tree,
        /// Its answers taken from an earlier start rather than asked now.
        replayed: usize,
        /// Totals so far.
        done: &'a RunProgress,
    },
}

type WalkFuture<'a> = Pin<Box<dyn Future<Output = Result<TreeWalk, ProtocolError>> + 'a>>;

/// [`run_stored`] with options: walks up to `options.jobs` trees at once on the
/// calling task (no threads: the subject's awaits interleave), records each answer as
/// it arrives (one store write at a time, since every write happens on this task), and
/// reports every answer and every finished tree to `on_event`.
pub async fn run_stored_with(
    store: &Store,
    run: &EvalRun,
    trees: &[Tree],
    subject: &dyn Subject,
    judge: Option<&dyn Judge>,
    options: RunOptions,
    on_event: &dyn Fn(RunEvent<'_>),
) -> Result<RunProgress, ProtocolError> {
    let mismatch = |message: String| ProtocolError::Mismatch {
        run: run.id.clone(),
        message,
    };
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
    match store.eval_run(&run.id)? {
        Some(existing) => {
            if existing.subject != run.subject
                || existing.judge != run.judge
                || existing.text_only != run.text_only
                || existing.seed != run.seed
            {
                return Err(mismatch(format!(
                    "exists with subject {}, judge {}, text-only {}, seed {}; resume with the same settings or pick another --run",
                    existing.subject,
                    existing.judge.as_deref().unwrap_or("none"),
                    existing.text_only,
                    existing.seed
                )));
            }
            let stored = store.eval_trees(&run.id)?;
            let given: Vec<&str> = jsons.iter().map(|(_, _, j)| j.as_str()).collect();
            if stored != given {
                return Err(mismatch(
                    "exists with other trees; resume with the same tree files or pick another --run"
                        .into(),
                ));
            }
        }
        None => {
            let mut seen = HashSet::new();
            if let Some(dup) = trees.iter().find(|t| !seen.insert(t.id.as_str())) {
                return Err(mismatch(format!("tree id {} appears twice", dup.id)));
            }
            store.create_eval_run(run, &jsons)?;
        }
    }
    let mut prior: HashMap<String, HashMap<String, EvalAnswer>> = HashMap::new();
    for answer in store.eval_answers(&run.id)? {
        prior
            .entry(answer.tree_id.clone())
            .or_default()
            .insert(answer.node_id.clone(), answer);
    }
    let settings = WalkSettings {
        text_only: run.text_only,
        display: options.display,
    };
    let empty = HashMap::new();
    let mut done = RunProgress::default();
    let jobs = options.jobs.max(1);
    let mut waiting = trees.iter();
    let mut running: Vec<(&Tree, WalkFuture<'_>)> = Vec::new();
    loop {
        while running.len() < jobs {
            let Some(tree) = waiting.next() else { break };
            let prior = prior.get(&tree.id).unwrap_or(&empty);
            let walk: WalkFuture<'_> = Box::pin(async move {
                let mut record = |answer: &EvalAnswer| {
                    store.record_eval_answers(&run.id, std::slice::from_ref(answer))?;
                    on_event(RunEvent::Answered { tree });
                    Ok(())
                };
                walk_tree(tree, subject, judge, settings, prior, &mut record).await
            });
            running.push((tree, walk));
        }
        if running.is_empty() {
            break;
        }
        // The first walk (in tree order) that is ready; the others stay suspended.
        let (at, result) = std::future::poll_fn(|cx| {
            for (at, (_, walk)) in running.iter_mut().enumerate() {
                if let Poll::Ready(result) = walk.as_mut().poll(cx) {
                    return Poll::Ready((at, result));
                }
            }
            Poll::Pending
        })
        .await;
        let (tree, _) = running.remove(at);
        let walk = result?;
        done.trees += 1;
        done.answers += walk.answers.len();
        done.asked += walk.asked;
        on_event(RunEvent::TreeDone {
            tree,
            replayed: walk.answers.len() - walk.asked,
            done: &done,
        });
    }
    Ok(done)
}

/// A run's settings, trees and answers, as a report reads them.
#[derive(Debug, Clone)]
pub struct LoadedRun {
    /// The settings.
    pub run: EvalRun,
    /// The trees, in run order.
    pub trees: Vec<Tree>,
    /// The answers, by tree then conversation position.
    pub answers: Vec<EvalAnswer>,
}

/// Loads a run from the store.
pub fn load_run(store: &Store, id: &str) -> Result<LoadedRun, ProtocolError> {
    let run = store.eval_run(id)?.ok_or_else(|| ProtocolError::Mismatch {
        run: id.to_string(),
        message: "no such run in the store".into(),
    })?;
    let trees = store
        .eval_trees(id)?
        .iter()
        .map(|json| {
            serde_json::from_str::<Tree>(json).map_err(|err| ProtocolError::Mismatch {
                run: id.to_string(),
                message: format!("a stored tree does not read: {err}"),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let answers = store.eval_answers(id)?;
    Ok(LoadedRun {
        run,
        trees,
        answers,
    })
}
