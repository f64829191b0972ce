//! What is asked: the moments a question is about, the follow-up questions
//! an option opens, and a question's category, type and taxonomy tags.

use std::collections::BTreeSet;

use crate::graph::{Attitude, NodeKind};
use crate::trees::facts::{Ask, Facts, Verdict};
use crate::trees::schema::{Category, DistractorReason, QuestionKind, QuestionType, Tags};

use super::{Candidate, Spec};

/// The moments a question is about.
pub fn focus_of(ask: &Ask) -> Vec<usize> {
    match *ask {
        Ask::Origin { end } => vec![end],
        Ask::Cause { target } => vec![target],
        Ask::Effect { source } => vec![source],
        Ask::Participants { event } => vec![event],
        Ask::Holder { state } => vec![state],
        Ask::Order { a, b } => vec![a, b],
        Ask::MindBefore { moment, .. }
        | Ask::KnowsAt { moment, .. }
        | Ask::FalseBelief { moment, .. }
        | Ask::NoLonger { moment, .. } => vec![moment],
    }
}

/// Follow-up questions for an option, most telling first: the justification
/// or consequence of what the option names, or, for a wrong option, the fact
/// that shows why it is wrong (which came first, who really holds it).
pub fn follow_up_asks(f: &Facts<'_>, ask: &Ask, cand: &Candidate) -> Vec<Ask> {
    let mut out = Vec::new();
    let moment = focus_of(ask)[0];
    match (cand.node, cand.character) {
        (None, Some(c)) => out.extend(mind_asks(c, moment)),
        (Some(x), _) if f.node(x).kind == NodeKind::Character => out.extend(mind_asks(x, moment)),
        // An option about the asked character's mind: what they know,
        // believe wrongly, no longer hold or have on their mind when what
        // the option says holds (why the reader chose it), then at the
        // asked moment, then what the option's state came from and led to.
        // The tree stays on the asked character, never the option's holder.
        (Some(x), _) if ask.character().is_some() && f.node(x).kind == NodeKind::MentalState => {
            let c = ask.character().expect("checked");
            out.extend(mind_asks(c, x));
            out.extend(mind_asks(c, moment).into_iter().filter(|a| a != ask));
            out.push(Ask::Cause { target: x });
            out.push(Ask::Effect { source: x });
        }
        (Some(x), _) => {
            if matches!(
                cand.verdict,
                Verdict::Wrong(DistractorReason::LaterEvent | DistractorReason::EffectForCause)
            ) && !matches!(ask, Ask::Order { .. })
            {
                out.push(Ask::Order { a: moment, b: x });
            }
            if let Verdict::Wrong(DistractorReason::OtherCharacter) = cand.verdict {
                if f.node(x).kind == NodeKind::MentalState {
                    out.push(Ask::Holder { state: x });
                }
            }
            let effect_first = matches!(ask, Ask::Effect { .. });
            if effect_first {
                out.push(Ask::Effect { source: x });
                out.push(Ask::Cause { target: x });
            } else {
                out.push(Ask::Cause { target: x });
                out.push(Ask::Effect { source: x });
            }
            match f.node(x).kind {
                NodeKind::MentalState => out.push(Ask::Holder { state: x }),
                _ => out.push(Ask::Participants { event: x }),
            }
            for &c in f.people(x) {
                out.push(Ask::MindBefore {
                    character: c,
                    moment: x,
                });
            }
        }
        (None, None) => {}
    }
    out
}

/// The asks about one character's mind at a moment, the most telling
/// first: what they know, which belief is false, what has changed, what is
/// on their mind.
fn mind_asks(character: usize, moment: usize) -> [Ask; 4] {
    [
        Ask::KnowsAt { character, moment },
        Ask::FalseBelief { character, moment },
        Ask::NoLonger { character, moment },
        Ask::MindBefore { character, moment },
    ]
}

/// What a question asks ([`QuestionKind`]), from its ask and the state it
/// rests on.
pub fn kind_of(f: &Facts<'_>, ask: &Ask, state: Option<usize>) -> QuestionKind {
    use QuestionKind as K;
    let by_attitude = |s: usize| {
        let node = f.node(s);
        // A state about another's state of mind is higher-order.
        let about_mind = node
            .target
            .as_deref()
            .and_then(|t| f.index_of(t))
            .is_some_and(|t| f.node(t).kind == NodeKind::MentalState && f.holder(t) != f.holder(s));
        match node.attitude {
            _ if about_mind => K::HigherOrder,
            Some(Attitude::Belief | Attitude::Suspicion) if node.truth == Some(false) => {
                K::FalseBelief
            }
            Some(Attitude::Belief | Attitude::Suspicion | Attitude::Knowledge) | None => K::Belief,
            Some(Attitude::Desire | Attitude::Intention | Attitude::SocialGoal) => K::Intention,
            Some(Attitude::Emotion) => K::Emotion,
            Some(Attitude::Pretense) => K::Deception,
        }
    };
    match *ask {
        Ask::KnowsAt { .. } => K::KnowledgeAccess,
        Ask::FalseBelief { .. } => K::FalseBelief,
        Ask::NoLonger { .. } => K::BeliefChange,
        // Who deceives whom is a question about deception, not about who
        // spoke a line: the reader must see through the pretence.
        Ask::Holder { state } if f.node(state).attitude == Some(Attitude::Pretense) => K::Deception,
        Ask::Holder { .. } => K::Holder,
        Ask::Participants { .. } => K::Participants,
        Ask::Order { .. } => K::Order,
        Ask::Origin { .. } => K::Cause,
        Ask::Effect { source } if f.node(source).kind == NodeKind::MentalState => K::Prediction,
        Ask::Cause { .. } | Ask::Effect { .. } => state.map_or(K::Cause, by_attitude),
        Ask::MindBefore { .. } => state.map_or(K::Belief, by_attitude),
    }
}

/// The kind an ask will have before its gold is chosen: exact but for a
/// question of what is on a character's mind, taken as a belief.
pub fn rough_kind(f: &Facts<'_>, ask: &Ask) -> QuestionKind {
    let state = match *ask {
        Ask::Holder { state } => Some(state),
        Ask::Cause { target } | Ask::Effect { source: target }
            if f.node(target).kind == NodeKind::MentalState =>
        {
            Some(target)
        }
        _ => None,
    };
    kind_of(f, ask, state)
}

/// Category, type and taxonomy tags of a question.
pub fn describe(f: &Facts<'_>, spec: &Spec) -> (Category, QuestionType, Tags) {
    let cat = |a: &str, b: &str| Category {
        level1: a.to_owned(),
        level2: b.to_owned(),
    };
    let gold_state = spec
        .golds()
        .filter_map(|c| c.node)
        .find(|&g| f.node(g).kind == NodeKind::MentalState);
    let focus = focus_of(&spec.ask)[0];
    let state = match spec.ask {
        Ask::Holder { state } => Some(state),
        Ask::Cause { target } | Ask::Effect { source: target }
            if f.node(target).kind == NodeKind::MentalState =>
        {
            Some(target)
        }
        _ => gold_state,
    };
    let by_attitude = |a: Option<Attitude>| match a {
        Some(Attitude::Belief | Attitude::Knowledge | Attitude::Suspicion) => {
            cat("Theory of Mind", "Belief Tracking")
        }
        Some(Attitude::Desire | Attitude::Intention | Attitude::SocialGoal) => {
            cat("Theory of Mind", "Intention Recognition")
        }
        Some(Attitude::Emotion) => cat("Emotion", "Emotion Inference"),
        Some(Attitude::Pretense) => cat("Communication", "Deception Detection"),
        None => cat("Theory of Mind", "Mental State Attribution"),
    };
    let (category, qtype) = match spec.ask {
        Ask::Origin { .. } => (
            cat("Behavior Understanding", "Causal Attribution"),
            QuestionType::ComplexReasoning,
        ),
        Ask::Order { .. } => (
            cat("Behavior Understanding", "Temporal Reasoning"),
            QuestionType::ComplexReasoning,
        ),
        Ask::Participants { event } => {
            let act = f.node(event).act;
            let c = match act {
                Some(crate::graph::Act::Action) | None => {
                    cat("Social Relations", "Interaction Recognition")
                }
                Some(_) => cat("Communication", "Speech Act Understanding"),
            };
            (c, QuestionType::BasicTom)
        }
        Ask::Holder { .. } | Ask::MindBefore { .. } => (
            by_attitude(state.and_then(|s| f.node(s).attitude)),
            QuestionType::BasicTom,
        ),
        Ask::KnowsAt { .. } | Ask::FalseBelief { .. } => (
            cat("Theory of Mind", "Belief Tracking"),
            QuestionType::BasicTom,
        ),
        Ask::NoLonger { .. } => (
            cat("Theory of Mind", "Belief Tracking"),
            QuestionType::ComplexReasoning,
        ),
        Ask::Cause { .. } | Ask::Effect { .. } => match state {
            Some(s) => (
                by_attitude(f.node(s).attitude),
                QuestionType::ComplexReasoning,
            ),
            None if matches!(spec.ask, Ask::Effect { .. }) => (
                cat("Behavior Understanding", "Behavior Prediction"),
                QuestionType::ComplexReasoning,
            ),
            None => (
                cat("Behavior Understanding", "Causal Attribution"),
                QuestionType::ComplexReasoning,
            ),
        },
    };
    let mut tags = Tags {
        kind: Some(kind_of(f, &spec.ask, state)),
        ..Tags::default()
    };
    if let Some(s) = state {
        let node = f.node(s);
        let about = node.target.as_deref().and_then(|t| f.index_of(t));
        let about_kind = about.map(|a| f.node(a).kind);
        tags.belief_goal = match node.attitude {
            Some(Attitude::Belief | Attitude::Knowledge | Attitude::Suspicion) => {
                let goal = about.is_some_and(|a| {
                    matches!(
                        f.node(a).attitude,
                        Some(Attitude::Desire | Attitude::Intention | Attitude::SocialGoal)
                    )
                });
                Some(if goal { "belief_of_goal" } else { "belief" })
            }
            Some(Attitude::SocialGoal) => Some("social_goal"),
            Some(Attitude::Desire | Attitude::Intention)
                if about_kind == Some(NodeKind::Character) =>
            {
                Some("social_goal")
            }
            _ => None,
        }
        .map(str::to_owned);
        let ability = match node.attitude {
            Some(Attitude::Belief | Attitude::Suspicion) => "beliefs",
            Some(Attitude::Knowledge) => "knowledge",
            Some(Attitude::Desire) => "desires",
            Some(Attitude::Intention | Attitude::SocialGoal) => "intentions",
            Some(Attitude::Emotion) => "emotions",
            Some(Attitude::Pretense) => "non_literal_communication",
            None => "beliefs",
        };
        tags.atoms.push(ability.to_owned());
    }
    if let Some(act) = f.node(focus).act {
        if matches!(act, crate::graph::Act::Lie)
            && !tags.atoms.iter().any(|a| a == "non_literal_communication")
        {
            tags.atoms.push("non_literal_communication".to_owned());
        }
    }
    // GroupToM-Bench's levels, where three or more characters share the
    // scene and the graph supports the level (see group_level.rs).
    let scene = f.node(focus).scene;
    let cast: BTreeSet<usize> = f
        .moments
        .iter()
        .filter(|&&m| scene.is_some() && f.node(m).scene == scene)
        .flat_map(|&m| f.people(m))
        .copied()
        .collect();
    let golds: Vec<usize> = spec.golds().filter_map(|c| c.node).collect();
    tags.group_level = super::group_level::level(f, &spec.ask, state, &golds, &cast);
    (category, qtype, tags)
}
