//! Use case: `moviegraph eval run` — one subject walked over tree files, every
//! answer stored as it arrives, a stopped run resumed by the same request.
//! This is the command's whole sequence: who answers and who grades, the
//! store's writer lock, the model layer when a model is cast, the trees, the
//! run (or its five rotation passes) with progress, and the lines it prints.

use std::fmt::Write as _;
use std::path::PathBuf;

use crate::eval::protocol::{rotation_displays, run_stored_with, Display, RunEvent, RunOptions};
use crate::eval::score::NO_JUDGE_LABEL;
use crate::eval::subject::{Judge, BASELINES};
use crate::llm::{Config, Llm, Role};
use crate::store::{EvalRun, Store};
use crate::util::report::Reporter;

use super::cast::{check_subject, is_model, open_llm};
use super::eval::{open_judge, read_valid_trees, run_id, OpenSubject};
use super::lock::{Wait, WriterLock};
use super::{bail, Context, Error, Result};

/// What `eval run` was asked to do.
#[derive(Debug, Clone)]
pub struct EvalRequest {
    /// Tree files, run in file order.
    pub trees: Vec<PathBuf>,
    /// The `--subject` names given (one at most; none: the configured role).
    pub subjects: Vec<String>,
    /// The `--judge` given (none: the configured role).
    pub judge: Option<String>,
    /// The model configuration.
    pub config: Config,
    /// The workspace database.
    pub store: PathBuf,
    /// Stop before model calls cost more than this.
    pub max_cost: Option<f64>,
    /// The run id (default: subject, seed, text-only flag, trees digest).
    pub run: Option<String>,
    /// Seed of the random baseline and of the rotation's shuffle.
    pub seed: u64,
    /// Withhold keyframes.
    pub text_only: bool,
    /// Trees walked at once.
    pub jobs: usize,
    /// Wait for the store's writer lock, or stop.
    pub wait: Wait,
    /// Walk every tree under five option displays, as five runs.
    pub rotate: bool,
}

/// Who answers and who grades, as the request and the configuration say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalCast {
    /// The subject's name.
    pub subject: String,
    /// The subject is a configured model (else an offline baseline).
    pub subject_is_model: bool,
    /// The judge of open answers, when a model is cast.
    pub judge: Option<String>,
}

/// Resolves the subject and the judge against the baselines and the configuration.
pub fn eval_cast(subjects: &[String], judge: Option<&str>, config: &Config) -> Result<EvalCast> {
    if subjects.len() > 1 {
        bail!(
            "`eval run` takes one --subject (got {}); `moviegraph run` evaluates several",
            subjects.join(", ")
        );
    }
    let given = subjects.first();
    let subject = match given {
        Some(name) => name.clone(),
        None => config
            .role(Role::Subject)
            .first()
            .cloned()
            .unwrap_or_default(),
    };
    check_subject(&subject, config).map_err(|e| match given {
        Some(_) => e,
        None => Error::msg(format!("no --subject given and the configured {e}")),
    })?;
    let judge = match judge {
        Some(name) => Some(name.to_string()),
        None => config.role(Role::Judge).first().cloned(),
    }
    .filter(|name| is_model(config, name));
    Ok(EvalCast {
        subject_is_model: !BASELINES.contains(&subject.as_str()),
        subject,
        judge,
    })
}

/// The label of an evaluation run's model calls in the store's accounting
/// (`llm_runs`): a resumed run adds calls under the same label.
pub fn eval_llm_label(run_id: &str) -> String {
    format!("eval run {run_id}")
}

/// Runs (or resumes) the request; returns what the command prints on stdout.
/// Who answers and grades is noted on `reporter` first; progress goes to a
/// `trees` and a `questions` bar.
pub fn run_eval(request: &EvalRequest, reporter: &dyn Reporter) -> Result<String> {
    let cast = eval_cast(&request.subjects, request.judge.as_deref(), &request.config)?;
    let _lock = WriterLock::acquire(
        &request.store,
        "moviegraph eval run",
        request.wait,
        reporter,
    )?;
    let (trees, digest) = read_valid_trees(&request.trees, "evaluating")?;
    let id = request
        .run
        .clone()
        .unwrap_or_else(|| run_id(&cast.subject, request.seed, request.text_only, &digest));
    // The model calls are accounted under the run's id, so an export of the
    // run (`eval export`) finds its tokens and cost.
    let llm: Option<Llm> = if cast.subject_is_model || cast.judge.is_some() {
        Some(open_llm(
            request.config.clone(),
            &request.store,
            &eval_llm_label(&id),
            request.max_cost,
        )?)
    } else {
        None
    };
    let opened = OpenSubject::open(&cast.subject, request.seed, llm.as_ref())?;
    let subject = opened.subject();
    let judge = open_judge(cast.judge.as_deref(), llm.as_ref())?;
    note_cast(&cast, request.text_only, reporter);
    let run = EvalRun {
        id: id.clone(),
        subject: subject.name().to_string(),
        judge: cast.judge.clone(),
        text_only: request.text_only,
        seed: request.seed,
        source: request
            .trees
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(" "),
    };
    let store = Store::open(&request.store)?;
    let total = trees.len();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let passes: Vec<(Display, String)> = if request.rotate {
        rotation_displays(request.seed)
            .iter()
            .map(|(display, suffix)| (*display, format!("{id}{suffix}")))
            .collect()
    } else {
        vec![(Display::Original, id.clone())]
    };
    let questions: usize = trees.iter().map(|t| t.nodes.len()).sum();
    let tree_bar = reporter.bar("trees");
    tree_bar.restart((trees.len() * passes.len()) as u64);
    let question_bar = reporter.bar("questions");
    question_bar.restart((questions * passes.len()) as u64);
    let cost = |llm: &Llm| cost_text(llm, request.max_cost);
    if let Some(llm) = &llm {
        question_bar.message(&cost(llm));
    }
    let (mut trees_done, mut answers, mut asked) = (0, 0, 0);
    for (display, pass_id) in &passes {
        let pass = EvalRun {
            id: pass_id.clone(),
            ..run.clone()
        };
        let options = RunOptions {
            display: *display,
            jobs: request.jobs,
        };
        let on_event = |event: RunEvent<'_>| match event {
            RunEvent::Answered { .. } => {
                question_bar.advance(1);
                if let Some(llm) = &llm {
                    question_bar.message(&cost(llm));
                }
            }
            RunEvent::TreeDone {
                tree,
                replayed,
                done,
            } => {
                question_bar.advance(replayed as u64);
                tree_bar.advance(1);
                tracing::info!(
                    "{pass_id}: tree {}/{total} {}: {} answers so far, {} asked now",
                    done.trees,
                    tree.id,
                    done.answers,
                    done.asked
                );
            }
        };
        let pass_done = runtime
            .block_on(run_stored_with(
                &store,
                &pass,
                &trees,
                subject,
                judge.as_ref().map(|j| j as &dyn Judge),
                options,
                &on_event,
            ))
            .with_context(|| {
                format!(
                    "run {pass_id} stopped; its answers so far are stored, rerun the same command to resume"
                )
            })?;
        trees_done += pass_done.trees;
        answers += pass_done.answers;
        asked += pass_done.asked;
    }
    drop((tree_bar, question_bar));
    let id = if request.rotate {
        format!("{id} (and its four rotation runs)")
    } else {
        id
    };
    let mut out = String::new();
    writeln!(
        out,
        "run {id}: {trees_done} trees, {answers} answers ({asked} asked now, {} from an earlier start), store {}",
        answers - asked,
        request.store.display()
    )?;
    if let Some(llm) = &llm {
        let stats = llm.stats();
        writeln!(
            out,
            "model calls: {} ({} from the cache), {}",
            stats.calls,
            stats.cache_hits,
            cost(llm)
        )?;
    }
    if opened.missing_images() > 0 {
        reporter.note(&format!(
            "warning: {} keyframe(s) could not be read and were left out (see the warnings above)",
            opened.missing_images()
        ));
    }
    Ok(out)
}

/// Says who answers and how open answers are graded.
fn note_cast(cast: &EvalCast, text_only: bool, reporter: &dyn Reporter) {
    if cast.subject_is_model {
        let images = if text_only {
            ", text only"
        } else {
            ", with keyframes"
        };
        reporter.note(&format!(
            "subject: model {} through the model layer{images}",
            cast.subject
        ));
    } else {
        reporter.note(&format!(
            "subject: offline baseline {} (not a reasoner)",
            cast.subject
        ));
    }
    reporter.note(&match &cast.judge {
        Some(name) => format!(
            "open answers: judge {name} (score = 0.7 x judge + 0.3 x ROUGE-L F1, correct at >= 0.7)"
        ),
        None => format!("open answers: {NO_JUDGE_LABEL}; every report of this run says so"),
    });
}

/// The run's model cost so far (and the cap, when there is one).
fn cost_text(llm: &Llm, cap: Option<f64>) -> String {
    match cap {
        Some(cap) => format!("cost {:.4} of {cap:.4}", llm.spent()),
        None => format!("cost {:.4}", llm.spent()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_baseline_is_cast_without_a_model_and_two_subjects_are_refused() {
        let config = Config::offline();
        let cast = eval_cast(&["random".to_owned()], None, &config).unwrap();
        assert_eq!(
            cast,
            EvalCast {
                subject: "random".to_owned(),
                subject_is_model: false,
                judge: None
            }
        );
        let two = eval_cast(&["random".to_owned(), "lexical".to_owned()], None, &config);
        assert!(two
            .unwrap_err()
            .to_string()
            .contains("takes one --subject (got random, lexical)"));
    }
}
