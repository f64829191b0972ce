//! A stored evaluation run as an Inspect evaluation log (the JSON log format,
//! version [`INSPECT_LOG_VERSION`], as `inspect_ai` [`INSPECT_TARGET`] writes
//! and `inspect_ai.log.read_eval_log` reads it), so that runs open in
//! Inspect's viewer and pool with its dataframe tools.
//!
//! One sample per tree walk: the whole conversation of both phases as
//! messages, each question's answer, score and correctness in the sample's
//! metadata, and the tree's accuracy, score, RDS, weighted RDS and CRS as its
//! score, computed by [`compute`] on that tree alone (the same code as `eval
//! report`). The run's figures with their bootstrap intervals are the log's
//! results; its subject, judge, settings, seed, trees' provenance and model
//! usage are the log's spec and stats.

use serde_json::{json, Map, Value};

use super::metrics::{compute, BootstrapSettings, Figure, RunMetrics};
use super::parse::Parsed;
use super::prompt::{Message, Role};
use super::protocol::{recorded_conversation, run_display, Display, LoadedRun, WalkSettings};
use crate::store::RoleTotals;
use crate::trees::schema::{Format, Node, Tree};
use crate::util::time::iso_time;

/// The Inspect log format version written.
pub const INSPECT_LOG_VERSION: u32 = 2;

/// The `inspect_ai` release whose reader the logs are tested against.
pub const INSPECT_TARGET: &str = "0.3.285";

/// The name of the score every sample and the results carry.
pub const SCORER: &str = "moviegraph";

/// The results' second score: each phase's figures and CCF per depth.
pub const BREAKDOWN: &str = "moviegraph_by_phase_and_depth";

/// What an export knows about one stored run beyond its answers.
#[derive(Debug, Clone)]
pub struct RunForInspect<'a> {
    /// The run, its trees and its answers.
    pub loaded: &'a LoadedRun,
    /// Its figures with their bootstrap intervals (`eval report`'s).
    pub metrics: &'a RunMetrics,
    /// The person who took a human run (from the walker).
    pub annotator: Option<&'a str>,
    /// Its model calls per role and model (empty for baselines and people).
    pub usage: &'a [RoleTotals],
    /// Why usage may be missing or shared (a note in the log's metadata).
    pub usage_note: Option<String>,
    /// First call's start and last call's end, ms since the epoch.
    pub span_ms: Option<(i64, i64)>,
    /// When the export was made, ms since the epoch.
    pub exported_ms: i64,
}

/// The name Inspect shows as the model: `provider/name`.
pub fn model_name(run: &RunForInspect<'_>) -> String {
    let subject = &run.loaded.run.subject;
    match run.annotator {
        Some(person) => format!("human/{person}"),
        None if super::subject::BASELINES.contains(&subject.as_str()) => {
            format!("moviegraph-baseline/{subject}")
        }
        None => format!("moviegraph/{subject}"),
    }
}

fn message_json(m: &Message) -> Value {
    let role = match m.role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
    };
    let content = if m.images.is_empty() {
        json!(m.text)
    } else {
        let mut parts = vec![json!({"type": "text", "text": m.text})];
        parts.extend(
            m.images
                .iter()
                .map(|i| json!({"type": "image", "image": i})),
        );
        Value::Array(parts)
    };
    let mut out = json!({"role": role, "content": content});
    if m.role == Role::Assistant {
        out["source"] = json!("generate");
    }
    out
}

/// What is right, in words (display-independent): the correct options'
/// texts, or an open question's reference.
fn target_of(node: &Node) -> String {
    match node.format {
        Format::Open => node.reference.clone().unwrap_or_default(),
        _ => node
            .options
            .iter()
            .filter(|o| o.correct)
            .map(|o| o.text.trim())
            .collect::<Vec<_>>()
            .join(" | "),
    }
}

/// A figure's point value, or `null`.
fn figure_value(m: &RunMetrics, section: &str, key: &str, second: bool) -> Value {
    m.figure(section, key).map_or(Value::Null, |f| {
        json!(if second { f.second.mean } else { f.first.mean })
    })
}

/// The tree's own figures, as `eval report` computes them on it alone.
fn tree_scores(loaded: &LoadedRun, tree: &Tree) -> Map<String, Value> {
    let one = LoadedRun {
        run: loaded.run.clone(),
        trees: vec![tree.clone()],
        answers: loaded
            .answers
            .iter()
            .filter(|a| a.tree_id == tree.id)
            .cloned()
            .collect(),
    };
    let m = compute(
        &one,
        BootstrapSettings {
            resamples: 0,
            seed: 0,
        },
    );
    let mut out = Map::new();
    out.insert("accuracy".into(), figure_value(&m, "all", "all", false));
    out.insert("score".into(), figure_value(&m, "all", "all", true));
    out.insert("RDS".into(), figure_value(&m, "tree", "RDS", false));
    out.insert("weighted_RDS".into(), figure_value(&m, "tree", "RDS", true));
    out.insert("CRS".into(), figure_value(&m, "tree", "CRS", false));
    out.insert("CRS_score".into(), figure_value(&m, "tree", "CRS", true));
    out
}

/// One tree walk as an Inspect sample.
fn sample(run: &RunForInspect<'_>, tree: &Tree, settings: WalkSettings, model: &str) -> Value {
    let loaded = run.loaded;
    let mut answers: Vec<_> = loaded
        .answers
        .iter()
        .filter(|a| a.tree_id == tree.id)
        .collect();
    answers.sort_by_key(|a| a.seq);
    let owned: Vec<_> = answers.iter().map(|a| (*a).clone()).collect();
    let conversation = recorded_conversation(tree, &owned, settings);
    let mut questions = Vec::new();
    let mut targets = Vec::new();
    let mut path = Vec::new();
    for a in &answers {
        let Some(node) = tree.node(&a.node_id) else {
            continue;
        };
        if a.phase == 1 {
            path.push(json!(node.id));
        }
        let parsed: Parsed = serde_json::from_str(&a.parsed).unwrap_or(Parsed::Unparseable);
        targets.push(json!(target_of(node)));
        questions.push(json!({
            "node": node.id,
            "position": a.seq,
            "phase": a.phase,
            "on_path": a.phase == 1,
            "depth": node.depth,
            "format": node.format.as_str(),
            "type": node.question_type,
            "category": format!("{} / {}", node.category.level1, node.category.level2),
            "group_level": node.tags.group_level,
            "belief_goal": node.tags.belief_goal,
            "counterfactual_premise": if a.phase == 2 { tree.counterfactual_lead(node) } else { None },
            "question": node.question,
            "target": target_of(node),
            "answer": a.raw,
            "parsed": parsed,
            "correct": a.correct,
            "score": a.score,
            "rouge": a.rouge,
            "judge": a.judge,
        }));
    }
    let scores = tree_scores(loaded, tree);
    let correct = answers.iter().filter(|a| a.correct).count();
    let last = answers.last().map_or(String::new(), |a| a.raw.clone());
    let input = conversation
        .iter()
        .find(|m| m.role == Role::User)
        .map_or(String::new(), |m| m.text.clone());
    json!({
        "id": tree.id,
        "epoch": 1,
        "input": input,
        "target": targets,
        "messages": conversation.iter().map(message_json).collect::<Vec<_>>(),
        "output": {
            "model": model,
            "choices": [{
                "message": {"role": "assistant", "content": last, "source": "generate", "model": model},
                "stop_reason": "stop"
            }],
            "completion": last
        },
        "scores": {
            SCORER: {
                "value": Value::Object(scores),
                "answer": format!("{} of {} answers correct", correct, answers.len()),
                "explanation": format!(
                    "phase 1 path {}; {} counterfactual answers",
                    if path.is_empty() { "empty".to_owned() } else {
                        path.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" → ")
                    },
                    answers.iter().filter(|a| a.phase == 2).count()
                ),
                "history": []
            }
        },
        "metadata": {
            "film": tree.film,
            "tree": tree.id,
            "anchor": {"kind": tree.anchor.kind, "elements": tree.anchor.elements},
            "path": path,
            "depth_reached": path.len(),
            "max_depth": tree.max_depth(),
            "questions_in_tree": tree.nodes.len(),
            "questions": questions
        },
        "store": {},
        "events": [],
        "model_usage": {},
        "attachments": {}
    })
}

/// The run's figures with their intervals as Inspect metrics, the interval
/// and n in each one's metadata: the overall figures (accuracy, score, RDS,
/// weighted RDS, CRS), which Inspect's viewer heads the log with, then each
/// phase's accuracy and score and CCF per depth.
fn metrics_json(m: &RunMetrics) -> (Map<String, Value>, Map<String, Value>) {
    let mut overall = Map::new();
    let mut breakdown = Map::new();
    let mut put = |name: String, f: &Figure, second: bool| {
        let e = if second { &f.second } else { &f.first };
        let out = if matches!(f.section, "all" | "tree") {
            &mut overall
        } else {
            &mut breakdown
        };
        out.insert(
            name.clone(),
            json!({
                "name": name,
                "value": e.mean,
                "params": {},
                "metadata": {"ci95": [e.lo, e.hi], "n": f.n, "resamples": m.resamples}
            }),
        );
    };
    for f in &m.figures {
        match (f.section, f.key.as_str()) {
            ("all", _) | ("tree", _) => {
                put(f.first_name.to_owned(), f, false);
                put(f.second_name.to_owned(), f, true);
            }
            ("phase", k) => {
                put(format!("phase{k}_accuracy"), f, false);
                put(format!("phase{k}_score"), f, true);
            }
            ("ccf", k) => {
                put(format!("CCF_depth{k}"), f, false);
                put(format!("CCF_depth{k}_score"), f, true);
            }
            _ => {}
        }
    }
    (overall, breakdown)
}

fn usage_json(t: &RoleTotals) -> Value {
    json!({
        "input_tokens": t.input_tokens,
        "output_tokens": t.output_tokens,
        "total_tokens": t.input_tokens + t.output_tokens,
        "total_cost": t.cost
    })
}

/// The run as an Inspect evaluation log (JSON).
pub fn eval_log(run: &RunForInspect<'_>) -> Value {
    let loaded = run.loaded;
    let r = &loaded.run;
    let m = run.metrics;
    let model = model_name(run);
    let display = run_display(r);
    let settings = WalkSettings {
        text_only: r.text_only,
        display,
    };
    let samples: Vec<Value> = loaded
        .trees
        .iter()
        .filter(|t| loaded.answers.iter().any(|a| a.tree_id == t.id))
        .map(|t| sample(run, t, settings, &model))
        .collect();
    let (start, end) = run.span_ms.unwrap_or((run.exported_ms, run.exported_ms));
    let created = iso_time(start).replace('Z', "+00:00");
    let mut model_usage = Map::new();
    let mut role_usage = Map::new();
    for t in run.usage {
        model_usage.insert(t.model.clone(), usage_json(t));
        role_usage.insert(t.role.clone(), usage_json(t));
    }
    let films = m.films.join(", ");
    let (overall, breakdown) = metrics_json(m);
    let display_name = match display {
        Display::Original => "as in the tree file".to_owned(),
        Display::Rotate(k) => format!("options rotated by {k}"),
        Display::Shuffle(seed) => format!("options shuffled (seed {seed})"),
    };
    json!({
        "version": INSPECT_LOG_VERSION,
        "status": if m.trees_answered == m.trees { "success" } else { "started" },
        "eval": {
            "eval_id": format!("moviegraph-{}", r.id),
            "run_id": r.id,
            "created": created,
            "task": format!("moviegraph-{}", m.films.join("+")),
            "task_id": r.id,
            "task_version": 0,
            "task_display_name": format!("moviegraph two-phase ToM trees: {films}"),
            "task_attribs": {},
            "task_args": {},
            "task_args_passed": {},
            "solver_args_passed": {},
            "tags": ["moviegraph", "theory-of-mind", "two-phase"],
            "dataset": {
                "name": r.source,
                "location": r.source,
                "samples": loaded.trees.len(),
                "sample_ids": loaded.trees.iter().map(|t| t.id.clone()).collect::<Vec<_>>(),
                "shuffled": false
            },
            "model": model,
            "model_generate_config": {},
            "model_args": {},
            "config": {},
            "packages": {"moviegraph": env!("CARGO_PKG_VERSION")},
            "metadata": {
                "exporter": format!("moviegraph {} eval export --to inspect", env!("CARGO_PKG_VERSION")),
                "subject": m.subject,
                "annotator": run.annotator,
                "judge": m.judge,
                "seed": r.seed,
                "text_only": r.text_only,
                "keyframes": m.keyframes_label(),
                "option_display": display_name,
                "films": m.films,
                "trees_made": m.made,
                "usage_note": run.usage_note,
                "protocol": "phase 1 follows the subject's own answers from the root; phase 2 asks every node not on the path under a counterfactual premise (docs/evaluation.md)"
            }
        },
        "plan": {"name": "plan", "steps": [], "config": {}},
        "results": {
            "total_samples": loaded.trees.len(),
            "completed_samples": samples.len(),
            "scores": [{
                "name": SCORER,
                "scorer": SCORER,
                "scored_samples": samples.len(),
                "unscored_samples": loaded.trees.len() - samples.len(),
                "params": {},
                "metrics": Value::Object(overall),
                "metadata": {
                    "answers": m.answers,
                    "questions": m.questions,
                    "unparseable": m.unparseable,
                    "dependency": m.dependency,
                    "distractors": m.distractors
                }
            }, {
                "name": BREAKDOWN,
                "scorer": SCORER,
                "scored_samples": samples.len(),
                "unscored_samples": loaded.trees.len() - samples.len(),
                "params": {},
                "metrics": Value::Object(breakdown)
            }]
        },
        "stats": {
            "started_at": created,
            "completed_at": iso_time(end).replace('Z', "+00:00"),
            "model_usage": Value::Object(model_usage),
            "role_usage": Value::Object(role_usage)
        },
        "invalidated": false,
        "tags": [],
        "metadata": {},
        "samples": samples
    })
}
