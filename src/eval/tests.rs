use super::parse::Parsed;
use super::prompt::{render_question, Phase};
use super::protocol::next_on_path;
use super::score::score_choice;
use super::subject::{
    Ask, FirstOptionBaseline, LexicalBaseline, QuestionView, RandomBaseline, Subject,
};
use super::synth::synthetic_trees;
use crate::trees::schema::{Format, Trigger};

fn choice(labels: &[&str]) -> Parsed {
    Parsed::Choice(labels.iter().map(|s| s.to_string()).collect())
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(f)
}

#[test]
fn choice_scores_are_exact_match_and_jaccard() {
    let tree = &synthetic_trees(3)[0];
    // Tree 0: depth 1 is multi ((0 + 1) % 3 == 1), depth 2 open, depth 3 single.
    let multi = tree.root().unwrap();
    assert_eq!(multi.format, Format::Multi);
    assert_eq!(multi.correct_labels(), vec!["A", "B"]);
    let s = score_choice(multi, &choice(&["A", "B"]));
    assert!(s.correct && s.score == 1.0);
    let s = score_choice(multi, &choice(&["A"]));
    assert!(!s.correct && s.score == 0.5);
    let s = score_choice(multi, &choice(&["A", "C"]));
    assert!(!s.correct && (s.score - 1.0 / 3.0).abs() < 1e-12);
    let s = score_choice(multi, &Parsed::Unparseable);
    assert!(!s.correct && s.score == 0.0);
    let single = tree
        .nodes
        .iter()
        .find(|n| n.format == Format::Single)
        .unwrap();
    assert_eq!(score_choice(single, &choice(&["A"])).score, 1.0);
    // Two letters on a single-choice question are wrong, with no partial credit.
    let s = score_choice(single, &choice(&["A", "B"]));
    assert!(!s.correct && s.score == 0.0);
}

#[test]
fn the_path_follows_the_rules_of_design_section_4() {
    let tree = &synthetic_trees(3)[0];
    let multi = tree.root().unwrap();
    // Correct: the child of the first correct option that has one.
    assert_eq!(
        next_on_path(multi, &choice(&["A", "B"]), true),
        Some("n1.1")
    );
    // Wrong: the first chosen distractor's child (C leads to n1.2, D to nothing).
    assert_eq!(
        next_on_path(multi, &choice(&["A", "C"]), false),
        Some("n1.2")
    );
    assert_eq!(next_on_path(multi, &choice(&["D"]), false), None);
    // Wrong without a distractor (a subset of the correct set, or unreadable): stop.
    assert_eq!(next_on_path(multi, &choice(&["A"]), false), None);
    assert_eq!(next_on_path(multi, &Parsed::Unparseable, false), None);
    let open = tree.node("n1.1").unwrap();
    assert_eq!(open.format, Format::Open);
    assert_eq!(
        next_on_path(open, &Parsed::Open("x".into()), true),
        Some("n1.1.1")
    );
    assert_eq!(
        next_on_path(open, &Parsed::Unparseable, false),
        Some("n1.1.2")
    );
}

#[test]
fn premises_fall_back_to_the_trigger_option() {
    let mut tree = synthetic_trees(1).remove(0);
    let child = tree.nodes.iter_mut().find(|n| n.id == "n1.2").unwrap();
    assert_eq!(child.trigger, Some(Trigger::Option { label: "C".into() }));
    child.premise = None;
    let child = tree.node("n1.2").unwrap().clone();
    assert_eq!(
        tree.premise_text(&child).as_deref(),
        Some("She wants the money n1")
    );
    let text = render_question(&tree, &child, Phase::Counterfactual, false).text;
    assert!(
        text.starts_with(
            "Thought experiment. Assuming the previous answer was \"She wants the money n1\""
        ),
        "{text}"
    );
    // An open parent's incorrect branch without a premise says the answer was wrong.
    let mut tree = synthetic_trees(1).remove(0);
    let wrong = tree.nodes.iter_mut().find(|n| n.id == "n1.1.2").unwrap();
    wrong.premise = None;
    let wrong = tree.node("n1.1.2").unwrap().clone();
    let text = render_question(&tree, &wrong, Phase::Counterfactual, true).text;
    assert!(text.contains("was wrong"), "{text}");
}

#[test]
fn baselines_answer_in_the_requested_form() {
    let tree = &synthetic_trees(3)[2];
    for node in &tree.nodes {
        let view = QuestionView::of(node);
        let ask = Ask {
            tree_id: &tree.id,
            node_id: &node.id,
            phase: Phase::Path,
            conversation: &[],
            question: &view,
        };
        for subject in [
            &RandomBaseline { seed: 5 } as &dyn Subject,
            &FirstOptionBaseline,
            &LexicalBaseline,
        ] {
            let reply = block_on(subject.answer(&ask)).unwrap();
            let labels: Vec<&str> = node.options.iter().map(|o| o.label.as_str()).collect();
            let parsed = super::parse::parse_answer(node.format, &labels, &reply);
            assert_ne!(
                parsed,
                Parsed::Unparseable,
                "{} on {}: {reply}",
                subject.name(),
                node.id
            );
        }
        // The same seed gives the same draw.
        let a = block_on(RandomBaseline { seed: 5 }.answer(&ask)).unwrap();
        let b = block_on(RandomBaseline { seed: 5 }.answer(&ask)).unwrap();
        assert_eq!(a, b);
    }
}

#[test]
fn lexical_picks_the_option_sharing_most_words_with_the_context() {
    let view = QuestionView {
        format: Format::Single,
        question: "Who hid the key?".into(),
        options: vec![
            ("A".into(), "Teo did".into()),
            ("B".into(), "June hid the brass key".into()),
            ("C".into(), "Nobody".into()),
        ],
        excerpt: "JUNE\nI hid the brass key under the stair.".into(),
    };
    let ask = Ask {
        tree_id: "t",
        node_id: "n",
        phase: Phase::Path,
        conversation: &[],
        question: &view,
    };
    assert_eq!(block_on(LexicalBaseline.answer(&ask)).unwrap(), "[[B]]");
    let open = QuestionView {
        format: Format::Open,
        question: "Where is the key?".into(),
        options: Vec::new(),
        excerpt: "Teo sleeps. The key is under the stair. June waits.".into(),
    };
    let ask = Ask {
        question: &open,
        ..ask
    };
    assert_eq!(
        block_on(LexicalBaseline.answer(&ask)).unwrap(),
        "[[The key is under the stair]]"
    );
}

#[test]
fn a_recorded_walk_rebuilds_the_conversation_the_subject_saw() {
    use super::protocol::{recorded_conversation, run_display, walk_tree, Display, WalkSettings};
    use crate::store::EvalRun;
    use std::collections::HashMap;
    let trees = synthetic_trees(3);
    let subject = RandomBaseline { seed: 3 };
    for display in [Display::Original, Display::Rotate(2), Display::Shuffle(9)] {
        let settings = WalkSettings {
            text_only: false,
            display,
        };
        for tree in &trees {
            let walk = block_on(walk_tree(
                tree,
                &subject,
                None,
                settings,
                &HashMap::new(),
                &mut |_| Ok(()),
            ))
            .unwrap();
            assert!(walk.answers.len() > 1);
            assert_eq!(
                recorded_conversation(tree, &walk.answers, settings),
                walk.conversation,
                "{display:?}"
            );
        }
    }
    let run = |id: &str| EvalRun {
        id: id.into(),
        subject: "random".into(),
        judge: None,
        text_only: false,
        seed: 4,
        source: String::new(),
    };
    assert_eq!(run_display(&run("random-s4-1")), Display::Original);
    assert_eq!(run_display(&run("random-s4-1@rot3")), Display::Rotate(3));
    assert_eq!(
        run_display(&run("random-s4-1@shuffle")),
        Display::Shuffle(4)
    );
}
