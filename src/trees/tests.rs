use super::jsonl::{read_trees, save_trees};
use super::schema::*;
use super::validate::{is_valid, label_for, validate, Severity};

fn option(label: &str, text: &str, correct: bool, child: Option<&str>) -> AnswerOption {
    AnswerOption {
        label: label.into(),
        text: text.into(),
        correct,
        reason: (!correct).then_some(DistractorReason::NotTheCause),
        child: child.map(Into::into),
    }
}

fn node(id: &str, depth: u32, parent: Option<(&str, Trigger, &str)>, format: Format) -> Node {
    let (parent, trigger, premise) = match parent {
        Some((p, t, premise)) => (Some(p.to_string()), Some(t), Some(premise.to_string())),
        None => (None, None, None),
    };
    Node {
        id: id.into(),
        depth,
        parent,
        trigger,
        premise,
        question: format!("Question {id}?"),
        format,
        options: Vec::new(),
        reference: None,
        open_branches: OpenBranches::default(),
        category: Category {
            level1: "Theory of Mind".into(),
            level2: "Belief Tracking".into(),
        },
        question_type: QuestionType::BasicTom,
        tags: Tags::default(),
        derived_from: vec!["ms:mara-believes-key".into()],
        context: Context {
            blocks: vec![3],
            excerpt: "MARA\nI never touched the key.".into(),
            keyframes: vec!["keyframes/f/shot_0001_img_0.jpg".into()],
        },
    }
}

/// A sound depth-3 tree: single root → (A correct → open n2, B → multi n3); open n2 → n4 on incorrect.
fn sound_tree() -> Tree {
    let mut root = node("n1", 1, None, Format::Single);
    root.options = vec![
        option("A", "She believes the key is lost", true, Some("n2")),
        option("B", "She wants to leave town", false, Some("n3")),
        option("C", "She suspects June", false, None),
    ];
    let mut n2 = node(
        "n2",
        2,
        Some((
            "n1",
            Trigger::Option { label: "A".into() },
            "She believes the key is lost",
        )),
        Format::Open,
    );
    n2.reference = Some("Because Quinton told her so".into());
    n2.open_branches.incorrect = Some("n4".into());
    let mut n3 = node(
        "n3",
        2,
        Some((
            "n1",
            Trigger::Option { label: "B".into() },
            "She wants to leave town",
        )),
        Format::Multi,
    );
    n3.options = vec![
        option("A", "Teo", true, None),
        option("B", "June", true, None),
        option("C", "Hollis", false, None),
    ];
    let mut n4 = node(
        "n4",
        3,
        Some(("n2", Trigger::OpenIncorrect, "Because she found it broken")),
        Format::Single,
    );
    n4.options = vec![
        option("A", "Yes", true, None),
        option("B", "No", false, None),
    ];
    Tree {
        id: "the-second-key/t01".into(),
        film: "the-second-key".into(),
        anchor: Anchor {
            kind: AnchorKind::MentalState,
            elements: vec!["ms:mara-believes-key".into()],
        },
        nodes: vec![root, n2, n3, n4],
    }
}

fn errors(tree: &Tree) -> Vec<String> {
    validate(tree)
        .into_iter()
        .filter(|p| p.severity == Severity::Error)
        .map(|p| p.to_string())
        .collect()
}

#[test]
fn a_sound_tree_has_no_errors() {
    let tree = sound_tree();
    assert_eq!(errors(&tree), Vec::<String>::new());
    assert!(is_valid(&validate(&tree)));
    assert_eq!(tree.max_depth(), 3);
    assert_eq!(tree.root().unwrap().children(), vec!["n2", "n3"]);
}

#[test]
fn two_correct_single_choice_options_are_rejected() {
    let mut tree = sound_tree();
    tree.nodes[0].options[2].correct = true;
    assert_eq!(
        errors(&tree),
        vec![
            "error: tree the-second-key/t01, node n1: a single-choice question needs exactly one \
             correct option, it has 2 (A, C)"
        ]
    );
}

#[test]
fn a_missing_trigger_option_is_rejected() {
    let mut tree = sound_tree();
    tree.nodes[2].trigger = Some(Trigger::Option { label: "D".into() });
    assert_eq!(
        errors(&tree),
        vec!["error: tree the-second-key/t01, node n3: trigger option \"D\" does not exist in parent \"n1\""]
    );
}

#[test]
fn a_graph_id_in_a_question_is_rejected() {
    let mut tree = sound_tree();
    tree.nodes[1].question = "Why does ms:mara-believes-key hold?".into();
    assert_eq!(
        errors(&tree),
        vec![
            "error: tree the-second-key/t01, node n2: graph id \"ms:mara-believes-key\" leaks into \
             the question"
        ]
    );
}

#[test]
fn structural_defects_are_each_named() {
    let mut tree = sound_tree();
    tree.nodes[3].depth = 2;
    tree.nodes[1].reference = None;
    tree.nodes[2].context.excerpt.clear();
    tree.nodes[0].options[1].child = Some("n9".into());
    let found = errors(&tree);
    for needle in [
        "node n4: depth 2 under a parent at depth 2; expected 3",
        "node n2: an open question has no reference answer",
        "node n3: the context has no script excerpt",
        "node n1: child \"n9\" does not exist",
        "node n3: trigger option \"B\" of parent \"n1\" does not lead to this node",
    ] {
        assert!(
            found.iter().any(|e| e.contains(needle)),
            "missing {needle:?} in {found:#?}"
        );
    }
}

#[test]
fn a_distractor_without_reason_is_a_warning_only() {
    let mut tree = sound_tree();
    tree.nodes[0].options[1].reason = None;
    let problems = validate(&tree);
    assert!(is_valid(&problems));
    assert_eq!(problems.len(), 1);
    assert!(problems[0].to_string().starts_with("warning:"));
}

#[test]
fn labels_run_a_to_z_then_aa() {
    assert_eq!(label_for(0), "A");
    assert_eq!(label_for(25), "Z");
    assert_eq!(label_for(26), "AA");
    assert_eq!(label_for(27), "AB");
}

#[test]
fn jsonl_round_trips_byte_identically() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trees/f.jsonl");
    let trees = vec![sound_tree(), sound_tree()];
    save_trees(&path, &trees).unwrap();
    let first = std::fs::read(&path).unwrap();
    let read = read_trees(&path).unwrap();
    assert_eq!(read, trees);
    save_trees(&path, &read).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), first);
}

#[test]
fn a_bad_line_names_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    let good = serde_json::to_string(&sound_tree()).unwrap();
    std::fs::write(&path, format!("{good}\n\n{{\"id\": 3}}\n")).unwrap();
    let err = read_trees(&path).unwrap_err().to_string();
    assert!(err.contains("t.jsonl:3: not a tree"), "{err}");
}
