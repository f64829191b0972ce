//! Synthetic question trees for benchmarks and tests: full binary trees of depth 4
//! (15 nodes) that pass validation, with formats, types, categories, films and group
//! levels varied so every breakdown of a report has several groups.

use crate::trees::schema::{
    Anchor, AnchorKind, AnswerOption, Category, Context, DistractorReason, Format, Node,
    OpenBranches, QuestionType, Tags, Tree, Trigger,
};

/// Depth of every synthetic tree.
pub const SYNTH_DEPTH: u32 = 4;

const CATEGORIES: [(&str, &str); 5] = [
    ("Theory of Mind", "Belief Tracking"),
    ("Emotion", "Emotion Inference"),
    ("Behavior Understanding", "Behavior Prediction"),
    ("Communication", "Intention Recognition"),
    ("Social Norms", "Norm Violation"),
];

const REASONS: [DistractorReason; 5] = [
    DistractorReason::NotTheCause,
    DistractorReason::EffectForCause,
    DistractorReason::OtherCharacter,
    DistractorReason::LaterEvent,
    DistractorReason::UnsupportedMotive,
];

/// `count` synthetic trees, the same for the same `count`.
pub fn synthetic_trees(count: usize) -> Vec<Tree> {
    (0..count).map(synthetic_tree).collect()
}

fn synthetic_tree(index: usize) -> Tree {
    let mut nodes = Vec::new();
    build(index, "n1".into(), 1, None, &mut nodes);
    Tree {
        id: format!("synthetic/t{index:05}"),
        film: format!("synthetic-{}", index % 5),
        anchor: Anchor {
            kind: AnchorKind::CausalChain,
            elements: vec![format!("ev:synthetic-{index}")],
        },
        nodes,
    }
}

/// Adds the node `id` and its subtree, pre-order (root first).
fn build(
    tree: usize,
    id: String,
    depth: u32,
    parent: Option<(String, Trigger, String)>,
    out: &mut Vec<Node>,
) {
    let format = match (tree + depth as usize) % 3 {
        0 => Format::Single,
        1 => Format::Multi,
        _ => Format::Open,
    };
    let (category1, category2) = CATEGORIES[(tree + out.len()) % CATEGORIES.len()];
    let (parent, trigger, premise) = match parent {
        Some((p, t, premise)) => (Some(p), Some(t), Some(premise)),
        None => (None, None, None),
    };
    let leaf = depth == SYNTH_DEPTH;
    let (left, right) = (format!("{id}.1"), format!("{id}.2"));
    let child = |c: &String| (!leaf).then(|| c.clone());
    let reason = |k: usize| Some(REASONS[(tree + depth as usize + k) % REASONS.len()]);
    let option =
        |label: &str, text: String, correct: bool, k: usize, to: Option<String>| AnswerOption {
            label: label.into(),
            text,
            correct,
            reason: if correct { None } else { reason(k) },
            child: to,
        };
    let (options, reference, open_branches) = match format {
        Format::Single => (
            vec![
                option(
                    "A",
                    format!("Mara hides the key {id}"),
                    true,
                    0,
                    child(&left),
                ),
                option(
                    "B",
                    format!("June finds the letter {id}"),
                    false,
                    1,
                    child(&right),
                ),
                option("C", format!("Teo leaves the house {id}"), false, 2, None),
                option("D", format!("Hollis calls the police {id}"), false, 3, None),
            ],
            None,
            OpenBranches::default(),
        ),
        Format::Multi => (
            vec![
                option("A", format!("She fears June {id}"), true, 0, child(&left)),
                option("B", format!("She protects Teo {id}"), true, 1, None),
                option(
                    "C",
                    format!("She wants the money {id}"),
                    false,
                    2,
                    child(&right),
                ),
                option("D", format!("She forgot the key {id}"), false, 3, None),
            ],
            None,
            OpenBranches::default(),
        ),
        Format::Open => (
            Vec::new(),
            Some(format!("Because Quinton told her the key was lost {id}")),
            OpenBranches {
                correct: child(&left),
                incorrect: child(&right),
            },
        ),
    };
    let node = Node {
        id: id.clone(),
        depth,
        parent,
        trigger,
        premise,
        question: format!("Why does Mara act as she does at step {id}?"),
        format,
        options,
        reference,
        open_branches,
        category: Category {
            level1: category1.into(),
            level2: category2.into(),
        },
        question_type: if depth % 2 == 1 {
            QuestionType::BasicTom
        } else {
            QuestionType::ComplexReasoning
        },
        tags: Tags {
            group_level: (!tree.is_multiple_of(8)).then_some((tree % 8) as u8),
            ..Tags::default()
        },
        derived_from: vec![format!("ev:synthetic-{tree}")],
        context: Context {
            blocks: vec![tree % 40],
            excerpt: format!(
                "MARA\nI never touched the key. June has the letter.\nTEO\nThen who hid it? ({id})"
            ),
            keyframes: Vec::new(),
        },
    };
    let branches: Vec<(String, Trigger, String)> = if leaf {
        Vec::new()
    } else {
        match format {
            Format::Open => vec![
                (
                    left.clone(),
                    Trigger::OpenCorrect,
                    node.reference.clone().unwrap_or_default(),
                ),
                (
                    right.clone(),
                    Trigger::OpenIncorrect,
                    "She found out on her own".into(),
                ),
            ],
            _ => node
                .options
                .iter()
                .filter_map(|o| {
                    o.child.clone().map(|c| {
                        (
                            c,
                            Trigger::Option {
                                label: o.label.clone(),
                            },
                            o.text.clone(),
                        )
                    })
                })
                .collect(),
        }
    };
    out.push(node);
    for (child_id, trigger, premise) in branches {
        build(
            tree,
            child_id,
            depth + 1,
            Some((id.clone(), trigger, premise)),
            out,
        );
    }
}
