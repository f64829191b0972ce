//! Unit tests of the judgment shapes.

use super::*;
use crate::graph::{Generator, OneBlock};

/// The mental states the rules propose for a one-scene script:
/// (holder, attitude, negated, truth, content).
/// (holder, attitude, negated, truth, content).
type State = (String, Attitude, bool, Option<bool>, String);

fn states(script: &str) -> Vec<State> {
    let one = OneBlock::parse(script);
    let p = super::super::RulesGenerator::all_families()
        .generate(&one.ctx())
        .unwrap();
    p.items
        .iter()
        .filter_map(|(item, _)| match item {
            Item::Node(n) if n.kind == NodeKind::MentalState => Some((
                n.holder
                    .clone()
                    .unwrap_or_default()
                    .replace("character:", ""),
                n.attitude.unwrap(),
                n.negated,
                n.truth,
                n.content.clone().unwrap_or_default(),
            )),
            _ => None,
        })
        .collect()
}

fn expect(all: &[State], who: &str, a: Attitude, content: &str) {
    assert!(
        has(all, who, a, content),
        "no {a:?} of {who} “{content}”: {all:?}"
    );
}

fn has(all: &[State], who: &str, a: Attitude, content: &str) -> bool {
    all.iter().any(|s| s.0 == who && s.1 == a && s.4 == content)
}

const HEAD: &str = "INT. SHOP - DAY\n\nAnna and Ben talk.\n\n";

#[test]
fn inferences_guesses_verdicts_and_explanations_are_the_speaker_s_beliefs() {
    let all = states(&format!(
        "{HEAD}BEN\nCarl's offering six. It's not enough.\n\n\
         ANNA\nSo you're paying him in jewellery.\n\n\
         BEN\nTorn. With teeth, I'd say.\n\n\
         ANNA\nI've said no for years, because Dad never did.\n"
    ));
    expect(
        &all,
        "ben",
        Attitude::Belief,
        "Carl's offering six; It's not enough",
    );
    expect(
        &all,
        "anna",
        Attitude::Belief,
        "Ben is paying him in jewellery",
    );
    expect(&all, "ben", Attitude::Belief, "Torn, With teeth");
    expect(
        &all,
        "anna",
        Attitude::Belief,
        "Anna has said no for years, because Dad never did",
    );
}

#[test]
fn a_contradiction_a_denial_and_a_refused_proposal_are_negated() {
    let all = states(&format!(
        "{HEAD}BEN\nI was about to call you.\n\n\
         ANNA\nNo, you weren't.\n\n\
         BEN\nShould I call the police?\n\n\
         ANNA\nNot yet.\n\n\
         BEN\nYou weren't setting me up.\n"
    ));
    let find = |who: &str, a: Attitude| {
        all.iter()
            .find(|s| s.0 == who && s.1 == a)
            .unwrap_or_else(|| panic!("no {a:?} of {who}: {all:?}"))
            .clone()
    };
    let b = find("anna", Attitude::Belief);
    assert!(b.2 && b.4 == "Ben was about to call Anna", "{b:?}");
    let i = find("anna", Attitude::Intention);
    assert!(i.2 && i.4 == "call the police", "{i:?}");
    let d = find("ben", Attitude::Belief);
    assert!(d.2 && d.4 == "Anna was setting Ben up", "{d:?}");
}

#[test]
fn predictions_follow_the_line_s_answer_and_the_narration() {
    // Denied by the next line: a false belief.
    let all = states(&format!(
        "{HEAD}BEN\nThat was the last thing of hers.\n\nANNA\nNo. It wasn't.\n"
    ));
    assert!(
        all.iter().any(|s| s.0 == "ben" && s.3 == Some(false)),
        "{all:?}"
    );
    // Doubted by the next line: left out.
    let all = states(&format!(
        "{HEAD}ANNA\nHe's going to let me help.\n\n\
         BEN\nAre you sure you two were talking about the same thing?\n"
    ));
    assert!(
        !all.iter().any(|s| s.0 == "anna" && s.1 == Attitude::Belief),
        "{all:?}"
    );
    expect(
        &all,
        "ben",
        Attitude::Suspicion,
        "the two of them were not talking about the same thing",
    );
    // Disbelieved by the narration, or about someone named by a noun.
    let all = states(&format!(
        "{HEAD}BEN\n(to himself)\nShe'll claim the insurance.\n\nHe doesn't believe it.\n\n\
         ANNA\nA dealer comes on Friday. He'll give me fourteen for it.\n"
    ));
    assert!(
        !all.iter()
            .any(|s| s.4.contains("claim the insurance") && !s.2),
        "{all:?}"
    );
    assert!(!all.iter().any(|s| s.4.contains("fourteen")), "{all:?}");
    // A conclusion drawn from a lie rests on it.
    let all = states(&format!(
        "{HEAD}BEN\n(lying)\nI threw it in the sea.\n\n\
         ANNA\nSo there's one key in the world.\n"
    ));
    assert!(
        all.iter()
            .any(|s| s.0 == "anna" && s.4.starts_with("there's one key") && s.3 == Some(false)),
        "{all:?}"
    );
}

#[test]
fn backstory_requests_and_named_feelings() {
    let all = states(&format!(
        "{HEAD}ANNA\nDad threw his key off the pier.\n\n\
         BEN\nAsk me properly.\n\n\
         ANNA\n(relieved)\nWe're both here.\n"
    ));
    expect(
        &all,
        "anna",
        Attitude::Belief,
        "Dad threw his key off the pier",
    );
    expect(&all, "ben", Attitude::Desire, "Anna ask Ben properly");
    expect(&all, "anna", Attitude::Emotion, "relief: We're both here.");
}

fn lower(s: &str) -> Vec<String> {
    words(s, 0)
        .into_iter()
        .map(|w| w.text.to_lowercase())
        .collect()
}

#[test]
fn a_doubt_suspects_the_opposite_written_out() {
    let (_, c) = doubt(&lower(
        "Are you sure you two were talking about the same thing?",
    ))
    .unwrap();
    assert_eq!(c, "the two of them were not talking about the same thing");
    let (_, c) = doubt(&lower("You sure he didn't see you?")).unwrap();
    assert_eq!(c, "he did see you");
    assert!(doubt(&lower("Are you hungry?")).is_none());
    assert!(doubt(&lower("Are you sure?")).is_none());
}
