//! Hand-built tree sets, one per leak: the audit flags each with its figure,
//! and a set with no leak passes.

use super::*;
use crate::trees::schema::{
    Anchor, AnchorKind, AnswerOption, Category, Context, OpenBranches, QuestionKind, QuestionType,
    Tags, Trigger,
};
use crate::trees::validate::label_for;

fn node(id: &str, question: &str, excerpt: &str, options: &[(&str, bool)]) -> Node {
    let multi = options.len() == 4;
    Node {
        id: id.to_owned(),
        depth: id.matches('.').count() as u32 + 1,
        parent: id.rsplit_once('.').map(|(p, _)| p.to_owned()),
        trigger: None,
        premise: None,
        question: question.to_owned(),
        format: if multi { Format::Multi } else { Format::Single },
        options: options
            .iter()
            .enumerate()
            .map(|(k, (text, correct))| AnswerOption {
                label: label_for(k),
                text: (*text).to_owned(),
                correct: *correct,
                reason: None,
                child: None,
            })
            .collect(),
        reference: None,
        open_branches: OpenBranches::default(),
        category: Category {
            level1: "Behavior Understanding".into(),
            level2: "Causal Attribution".into(),
        },
        question_type: QuestionType::ComplexReasoning,
        tags: Tags::default(),
        derived_from: Vec::new(),
        context: Context {
            blocks: vec![0],
            excerpt: excerpt.to_owned(),
            keyframes: Vec::new(),
        },
    }
}

fn tree(k: usize, nodes: Vec<Node>) -> Tree {
    Tree {
        id: format!("film/t{k:02}"),
        film: "film".into(),
        anchor: Anchor {
            kind: AnchorKind::CausalChain,
            elements: Vec::new(),
        },
        nodes,
    }
}

/// Six letters each, so every option has the same length.
const WORDS: &[&str] = &[
    "ledger", "anchor", "window", "ticket", "bridge", "garden", "violin", "mirror", "bottle",
    "carpet", "engine", "pocket", "letter", "bucket", "candle", "basket", "saddle", "needle",
    "marble", "pillow", "barrel", "hammer", "copper", "silver", "timber", "velvet", "meadow",
    "rocket", "parcel", "kettle", "button", "helmet", "jacket", "lizard", "magnet", "napkin",
];

/// Option text `k` of question `q`: same length and shape for every option.
fn option(q: usize, k: usize) -> String {
    format!("the {} moved", WORDS[(q * 5 + k) % WORDS.len()])
}

/// A set with no leak: options of one length, no overlap with anything,
/// gold letters and correct counts rotating.
fn clean(n: usize) -> Vec<Tree> {
    (0..n)
        .map(|q| {
            let texts: Vec<String> = (0..4).map(|k| option(q, k)).collect();
            let single: Vec<(&str, bool)> =
                (0..3).map(|k| (texts[k].as_str(), k == q % 3)).collect();
            let count = 1 + q % 3;
            let multi: Vec<(&str, bool)> = (0..4)
                .map(|k| (texts[k].as_str(), (k + q) % 4 < count))
                .collect();
            tree(
                q,
                vec![
                    node(
                        "n1",
                        &format!("Question {q} about nothing?"),
                        "Nothing here.",
                        &single,
                    ),
                    node(
                        "n1.1",
                        &format!("Follow-up {q}, choose all?"),
                        "Nothing here.",
                        &multi,
                    ),
                ],
            )
        })
        .collect()
}

fn excess(a: &Audit, reader: &str, format: &str) -> f64 {
    a.readers
        .iter()
        .find(|r| r.reader == reader && r.format == format)
        .map(|r| r.excess)
        .unwrap_or_else(|| panic!("no {reader} on {format}"))
}

fn run(trees: &[Tree]) -> Audit {
    audit(trees, None, false, Thresholds::default(), 7)
}

#[test]
fn a_set_with_no_leak_passes() {
    let a = run(&clean(30));
    assert!(a.passed(), "{}", a.render());
    assert_eq!(a.balance.multi_top_count_share, Some(1.0 / 3.0));
    for r in &a.readers {
        assert!(r.excess <= 0.05, "{r:?}");
    }
}

/// Rewrites the single-choice root of every tree.
fn leak(f: impl Fn(usize, &mut Node)) -> Vec<Tree> {
    let mut trees = clean(30);
    for (q, t) in trees.iter_mut().enumerate() {
        f(q, &mut t.nodes[0]);
    }
    trees
}

fn assert_flagged(a: &Audit, reader: &str, at_least: f64) {
    let e = excess(a, reader, "single");
    assert!(e >= at_least, "{reader}: excess {e}\n{}", a.render());
    assert!(
        a.failures.iter().any(|f| f.contains(reader)),
        "{:?}",
        a.failures
    );
}

#[test]
fn the_longest_option_leak_is_flagged_by_the_length_and_learned_readers() {
    let a = run(&leak(|_, n| {
        for o in &mut n.options {
            if o.correct {
                o.text.push_str(" across the whole grey harbour");
            }
        }
    }));
    assert_flagged(&a, "longest", 0.6);
    assert_flagged(&a, "options-only-learned", 0.3);
    assert_flagged(&a, "learned", 0.3);
    assert!(a.balance.gold_chars > a.balance.distractor_chars);
}

#[test]
fn a_fixed_letter_leak_is_flagged() {
    let a = run(&leak(|_, n| {
        let gold = n.options.iter().position(|o| o.correct).unwrap();
        let texts: Vec<String> = n.options.iter().map(|o| o.text.clone()).collect();
        n.options[0].text = texts[gold].clone();
        n.options[gold].text = texts[0].clone();
        for (k, o) in n.options.iter_mut().enumerate() {
            o.correct = k == 0;
        }
    }));
    assert_flagged(&a, "letter-A", 0.6);
    assert_eq!(a.balance.single_gold_letters.get("A"), Some(&30));
}

#[test]
fn word_overlap_with_the_excerpt_is_flagged() {
    let a = run(&leak(|_, n| {
        let gold = n.options.iter().find(|o| o.correct).unwrap().text.clone();
        n.context.excerpt = format!("Nothing here.\nThen {gold}.");
    }));
    assert_flagged(&a, "context-overlap-most", 0.6);
}

#[test]
fn the_option_sharing_fewest_words_with_the_question_is_flagged() {
    // The synthetic films' "Why does Edith come to…" named Edith in every
    // distractor (her other states) and not in the gold (another's act):
    // the learned question reader found it (+0.06 to +0.12 on 4 of 30 films)
    // before a reader of its own did.
    let a = run(&leak(|q, n| {
        let wrong: Vec<String> = n
            .options
            .iter()
            .filter(|o| !o.correct)
            .map(|o| o.text.replace("the ", "").replace(" moved", ""))
            .collect();
        n.question = format!("Question {q}: was it the {} or the {}?", wrong[0], wrong[1]);
    }));
    assert_flagged(&a, "question-overlap-least", 0.6);
}

#[test]
fn the_line_nearest_before_the_quoted_target_is_flagged() {
    let a = run(&leak(|q, n| {
        let texts: Vec<(String, bool)> = n
            .options
            .iter()
            .map(|o| (o.text.clone(), o.correct))
            .collect();
        let gold = texts.iter().find(|t| t.1).unwrap().0.clone();
        let wrong: Vec<&String> = texts.iter().filter(|t| !t.1).map(|t| &t.0).collect();
        let target = format!("the {} fell", WORDS[(q + 11) % WORDS.len()]);
        n.question = format!("Why did this happen: {target}?");
        n.context.excerpt = format!("{}\n{gold}.\n{target}.\n{}", wrong[0], wrong[1]);
    }));
    assert_flagged(&a, "nearest-before-quote", 0.3);
}

#[test]
fn the_speaker_cue_above_a_quoted_line_is_flagged() {
    let names = ["MARA", "QUINTON", "JUNE", "TEO"];
    let a = run(&leak(|q, n| {
        let gold = q % 3;
        n.question = format!("Who says this: “The {} is gone”?", WORDS[q % WORDS.len()]);
        n.context.excerpt = format!(
            "{}\nHello there.\n{}\nThe {} is gone.",
            names[(gold + 1) % 3],
            names[gold],
            WORDS[q % WORDS.len()]
        );
        for (k, o) in n.options.iter_mut().enumerate() {
            o.text = names[k][..1].to_owned() + &names[k][1..].to_lowercase();
        }
    }));
    assert_flagged(&a, "speaker-cue", 0.6);
}

#[test]
fn a_dominant_correct_count_is_flagged() {
    let mut trees = clean(30);
    for t in &mut trees {
        for (k, o) in t.nodes[1].options.iter_mut().enumerate() {
            o.correct = k < 2;
        }
    }
    let a = run(&trees);
    assert_eq!(a.balance.multi_top_count_share, Some(1.0));
    assert!(a
        .failures
        .iter()
        .any(|f| f.contains("same number of correct")));
}

#[test]
fn a_narration_line_stating_the_gold_state_is_a_giveaway() {
    let a = run(&leak(|_, n| {
        n.category.level1 = "Theory of Mind".into();
        n.question_type = QuestionType::BasicTom;
        let gold = n.options.iter().find(|o| o.correct).unwrap().text.clone();
        n.context.excerpt = format!("QUINTON\nNothing.\nQuinton thinks {gold}. He smiles.");
        n.options.iter_mut().find(|o| o.correct).unwrap().text = format!("Quinton thinks {gold}");
    }));
    assert_eq!(a.giveaways.len(), 30, "{}", a.render());
    assert!(a
        .giveaways
        .iter()
        .all(|g| g.kind == "context-states-answer"));
    assert!(a.failures.iter().any(|f| f.contains("give-aways")));
}

#[test]
fn a_question_holding_its_own_answer_is_a_giveaway() {
    let a = run(&leak(|_, n| {
        let gold = n.options.iter().find(|o| o.correct).unwrap().text.clone();
        n.question = format!("Is it true that {gold}?");
    }));
    assert!(
        a.giveaways
            .iter()
            .filter(|g| g.kind == "answer-in-question")
            .count()
            >= 30
    );
}

#[test]
fn duplicates_and_near_duplicates_within_a_film_are_flagged() {
    let mut trees = clean(30);
    trees[5].nodes[0] = trees[4].nodes[0].clone();
    let mut near = trees[7].nodes[0].clone();
    near.question.push_str(" really");
    trees[8].nodes[0] = near;
    let a = run(&trees);
    assert_eq!(a.redundancy.duplicates.len(), 1);
    assert_eq!(a.redundancy.near_duplicates.len(), 1);
    assert!(a.failures.iter().any(|f| f.contains("duplicate")));
    // Another film may ask the same.
    trees[5].film = "other".into();
    trees[8].film = "other".into();
    let a = run(&trees);
    assert!(a.redundancy.duplicates.is_empty() && a.redundancy.near_duplicates.is_empty());
}

#[test]
fn a_follow_up_re_asking_its_parent_is_flagged() {
    let mut trees = clean(30);
    let parent = &mut trees[3].nodes[0];
    parent.question = "What did this lead to: Hollis threatens Quinton on the phone?".into();
    let gold = parent
        .options
        .iter()
        .find(|o| o.correct)
        .unwrap()
        .text
        .clone();
    let child = &mut trees[3].nodes[1];
    child.premise = Some(gold.clone());
    child.trigger = Some(Trigger::Option { label: "A".into() });
    child.question = format!("What was the main reason for this: {gold}?");
    child.options[0].text = "Hollis threatens Quinton on the phone".into();
    for (k, o) in child.options.iter_mut().enumerate() {
        o.correct = k == 0;
    }
    let a = run(&trees);
    assert_eq!(a.redundancy.reasks.len(), 1, "{}", a.render());
    assert_eq!(a.redundancy.reasks[0].at, "film/t03/n1.1");
    // The same link by graph ids is caught without any wording.
    let mut trees = clean(30);
    trees[2].nodes[0].derived_from = vec!["causes:event:a->event:b".into()];
    trees[2].nodes[1].derived_from = vec!["causes:event:a->event:b".into()];
    assert_eq!(run(&trees).redundancy.reasks.len(), 1);
}

fn layout(scenes: usize, untimed: &[usize]) -> FilmLayout {
    FilmLayout {
        scenes,
        block_scene: (0..scenes).map(|b| (b, b)).collect(),
        block_time: (0..scenes)
            .map(|b| {
                let t = b as u64 * 60_000;
                (b, (!untimed.contains(&b)).then_some((t, t + 60_000)))
            })
            .collect(),
        state_ends: None,
    }
}

#[test]
fn anchors_bunched_at_the_start_and_blocks_outside_the_film_are_flagged() {
    let mut trees = clean(30);
    for (q, t) in trees.iter_mut().enumerate() {
        for n in &mut t.nodes {
            n.context.blocks = vec![q % 3];
        }
    }
    let a = audit(
        &trees,
        Some(&layout(10, &[1])),
        false,
        Thresholds::default(),
        7,
    );
    let c = a.coverage.as_ref().unwrap();
    assert_eq!(c.anchor_scenes, 3);
    assert!((c.scene_span - 0.3).abs() < 1e-9);
    assert_eq!(c.outside_film.len(), 20);
    assert!(a.failures.iter().any(|f| f.contains("span 30%")));
    assert!(a.failures.iter().any(|f| f.contains("does not contain")));
    // Text-only trees may use blocks outside the film.
    let a = audit(
        &trees,
        Some(&layout(10, &[1])),
        true,
        Thresholds::default(),
        7,
    );
    assert!(!a.failures.iter().any(|f| f.contains("does not contain")));
    // Spread over every scene, all timed: passes.
    for (q, t) in trees.iter_mut().enumerate() {
        for n in &mut t.nodes {
            n.context.blocks = vec![q % 10];
        }
    }
    let a = audit(
        &trees,
        Some(&layout(10, &[])),
        false,
        Thresholds::default(),
        7,
    );
    assert!(a.passed(), "{}", a.render());
    assert_eq!(a.coverage.unwrap().scene_span, 1.0);
}

#[test]
fn the_audit_is_deterministic_and_renders_every_reader() {
    let trees = leak(|_, n| {
        for o in &mut n.options {
            if o.correct {
                o.text.push_str(" slowly");
            }
        }
    });
    let a = run(&trees);
    assert_eq!(a, run(&trees));
    let text = a.render();
    for r in readers::readers() {
        assert!(text.contains(r.name), "{}", r.name);
    }
    assert!(a.summary().starts_with("validity audit FAILED"));
}

#[test]
fn the_audit_counts_what_the_questions_ask() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("trees/the-second-key.jsonl");
    let trees = crate::trees::jsonl::read_trees(&path).unwrap();
    let a = checks::asks(&trees);
    let total: usize = a.by_category.values().sum();
    assert_eq!(total, a.questions);
    assert_eq!(a.trivia + a.minds_or_causes, a.questions);
    assert_eq!(a.by_type.values().sum::<usize>(), a.questions);
    assert!(a.largest_share > 0.0 && a.largest_share <= 1.0);
    assert_eq!(a.by_kind.values().sum::<usize>(), a.questions);
    assert!(a.largest_kind_share > 0.0 && a.largest_kind_share <= 1.0);
    // A tree whose every question asks the line order is all trivia, by its
    // kind where the file tags one, by its category where it does not.
    let mut t = trees[0].clone();
    for n in &mut t.nodes {
        n.tags.kind = Some(crate::trees::schema::QuestionKind::Order);
    }
    let one = checks::asks(std::slice::from_ref(&t));
    assert_eq!((one.trivia, one.minds_or_causes), (t.nodes.len(), 0));
    assert_eq!(one.largest_kind_share, 1.0);
    for n in &mut t.nodes {
        n.tags.kind = None;
        n.category.level1 = "Behavior Understanding".into();
        n.category.level2 = "Temporal Reasoning".into();
    }
    let one = checks::asks(std::slice::from_ref(&t));
    assert_eq!((one.trivia, one.minds_or_causes), (t.nodes.len(), 0));
    assert_eq!(one.largest_share, 1.0);
}

/// A gold that ended before the scene the question is set in is flagged; a
/// gold ending in that very scene, a question about the change, and a set
/// audited without its graph are not.
#[test]
fn golds_resting_on_a_state_ended_before_the_questions_scene_are_counted() {
    let mut trees = clean(3);
    let ask = |n: &mut Node, moment: &str, gold: &str| {
        n.derived_from = vec![moment.into(), gold.into()];
    };
    // Set in scene 6 (0-based 5) on a belief that ended in scene 3: flagged.
    ask(
        &mut trees[0].nodes[0],
        "mental_state:moment",
        "mental_state:over",
    );
    // Ends in the question's own scene: still held there.
    ask(
        &mut trees[1].nodes[0],
        "mental_state:moment",
        "mental_state:ends-here",
    );
    // What is no longer held: a question about the change.
    ask(
        &mut trees[2].nodes[0],
        "mental_state:moment",
        "mental_state:over",
    );
    trees[2].nodes[0].tags.kind = Some(QuestionKind::BeliefChange);
    let mut film = layout(10, &[]);
    film.state_ends = Some(StateEnds {
        source: "test graph".into(),
        states: 3,
        scenes: [
            ("mental_state:moment".to_owned(), 5),
            ("mental_state:over".to_owned(), 1),
            ("mental_state:ends-here".to_owned(), 2),
        ]
        .into_iter()
        .collect(),
        ends: [
            ("mental_state:over".to_owned(), 2),
            ("mental_state:ends-here".to_owned(), 5),
        ]
        .into_iter()
        .collect(),
    });
    let a = audit(&trees, Some(&film), false, Thresholds::default(), 7);
    let e = a.ended.as_ref().expect("measured with the graph's ends");
    assert_eq!(e.placed, 3);
    assert_eq!(e.about_the_change, 1);
    assert_eq!(e.on_ended.len(), 1, "{:?}", e.on_ended);
    assert_eq!(e.on_ended[0].at, format!("{}/n1", trees[0].id));
    assert!((e.share() - 0.5).abs() < 1e-9);
    assert!(a
        .render()
        .contains("1 of 2 questions (50%) rest on a state"));
    // Without the graph it is not measured.
    let a = audit(
        &trees,
        Some(&layout(10, &[])),
        false,
        Thresholds::default(),
        7,
    );
    assert!(a.ended.is_none());
}
