//! The cue words the rules generator reads: mental-state verbs and
//! parentheticals (with the attitude each names), negations and adverbs,
//! emotion nouns, speech-act phrases, and the perception, holding, role,
//! help/hinder and auxiliary word lists.

use crate::graph::schema::{Act, Attitude};
use crate::graph::text::{sentences, words};

/// Mental-state verbs: form → attitude.
pub(super) fn mental_verb(word: &str) -> Option<Attitude> {
    Some(match word {
        "think" | "thinks" | "thought" | "believe" | "believes" | "believed" | "assumes"
        | "assume" => Attitude::Belief,
        "know" | "knows" | "knew" | "realizes" | "realize" | "realized" | "understands"
        | "understand" | "understood" => Attitude::Knowledge,
        "want" | "wants" | "wanted" | "hope" | "hopes" | "hoped" | "wishes" => Attitude::Desire,
        "plan" | "plans" | "planned" | "decides" | "decided" | "intends" | "means" => {
            Attitude::Intention
        }
        "suspect" | "suspects" | "suspected" | "doubt" | "doubts" | "doubted" => {
            Attitude::Suspicion
        }
        "pretend" | "pretends" | "pretended" => Attitude::Pretense,
        "fear" | "fears" | "feared" | "hates" | "hate" | "envies" => Attitude::Emotion,
        _ => return None,
    })
}

pub(super) const NEGATIONS: &[&str] = &[
    "doesn't", "don't", "didn't", "does", "do", "did", "not", "never", "can't", "won't",
];
pub(super) const ADVERBS: &[&str] = &[
    "still", "just", "also", "really", "already", "actually", "only",
];

pub(super) const EMOTION_NOUNS: &[&str] = &[
    "fear", "jealousy", "guilt", "relief", "dread", "anger", "shame", "grief", "panic", "envy",
    "hope", "love", "rage",
];

/// Parenthetical words that name the speaker's state: word → (attitude, gloss).
pub(super) fn paren_state(word: &str) -> Option<(Attitude, &'static str)> {
    Some(match word {
        "lying" => (Attitude::Pretense, "lies"),
        "pretending" => (Attitude::Pretense, "pretends"),
        "realizing" | "realising" => (Attitude::Knowledge, "realizes"),
        "bitter" => (Attitude::Emotion, "feels bitter"),
        "relieved" => (Attitude::Emotion, "feels relieved"),
        "ashamed" => (Attitude::Emotion, "feels ashamed"),
        "horrified" => (Attitude::Emotion, "feels horrified"),
        "uneasy" => (Attitude::Emotion, "feels uneasy"),
        "breaking" => (Attitude::Emotion, "breaks down"),
        "angry" | "furious" => (Attitude::Emotion, "feels angry"),
        "afraid" | "scared" | "terrified" => (Attitude::Emotion, "feels afraid"),
        "guilty" => (Attitude::Emotion, "feels guilty"),
        "jealous" => (Attitude::Emotion, "feels jealous"),
        _ => return None,
    })
}

const ORDER_VERBS: &[&str] = &[
    "sell", "take", "ask", "do", "don't", "come", "go", "find", "tell", "give", "call", "get",
    "open", "stay", "wait", "listen", "look", "leave", "stop", "bring", "keep", "let", "put",
    "read", "run", "show",
];

/// Speech act of a line, by surface cues. `paren` is the manner parenthetical.
pub(super) fn speech_act(line: &str, paren: &str) -> Option<Act> {
    let l = line.to_lowercase().replace('’', "'");
    let has = |p: &str| l.contains(p);
    if paren.contains("lying") {
        return Some(Act::Lie);
    }
    if has("i lied") || has("i stole") || has("it was me") || has("i'm sorry") || has("i found it")
    {
        return Some(Act::Confession);
    }
    if has("don't make me") || has("or else") || has("you'll regret") || has("i'll hurt") {
        return Some(Act::Threat);
    }
    let first = words(&l, 0).into_iter().next().map(|w| w.text);
    if first.as_deref() == Some("no") || has("i'm not ") || has("not yet") || has("i said no") {
        return Some(Act::Refusal);
    }
    if has("i promise") || has("i'll ") || has("i will ") || has("i won't ") {
        return Some(Act::Promise);
    }
    if has("never threw")
        || has("told me")
        || has("the truth")
        || has("know what you did")
        || has("i saw ")
        || has("isn't there")
    {
        return Some(Act::Reveal);
    }
    let imperative = sentences(line).into_iter().any(|s| {
        !s.text.ends_with('?')
            && words(&s.text, 0)
                .first()
                .is_some_and(|w| ORDER_VERBS.contains(&w.text.to_lowercase().as_str()))
    });
    imperative.then_some(Act::Order)
}

pub(super) fn act_phrase(act: Act) -> &'static str {
    match act {
        Act::Action => "acts",
        Act::Reveal => "reveals to",
        Act::Lie => "lies to",
        Act::Promise => "promises",
        Act::Threat => "threatens",
        Act::Order => "tells",
        Act::Confession => "confesses to",
        Act::Refusal => "refuses",
    }
}

/// Verbs of perception that make their subject a witness.
pub(super) const PERCEIVE_VERBS: &[&str] = &[
    "sees",
    "saw",
    "notices",
    "noticed",
    "watches",
    "watched",
    "hears",
    "heard",
    "glances",
    "spots",
    "spotted",
    "overhears",
    "overheard",
    "witnesses",
    "witnessed",
];

/// Verbs that put a prop in the subject's hands.
pub(super) const HOLD_VERBS: &[&str] = &[
    "pockets", "pocketed", "holds", "held", "takes", "took", "grabs", "grabbed", "keeps", "kept",
    "carries", "carried", "clutches", "clutched", "hides", "hid", "owns", "wears", "snatches",
    "snatched",
];

/// Words naming what one person is to another.
pub(super) const ROLES: &[&str] = &[
    "sister",
    "brother",
    "mother",
    "father",
    "son",
    "daughter",
    "wife",
    "husband",
    "apprentice",
    "boss",
    "employer",
    "employee",
    "creditor",
    "debtor",
    "lender",
    "partner",
    "friend",
    "uncle",
    "aunt",
    "cousin",
    "landlord",
    "tenant",
    "client",
    "lawyer",
    "mentor",
    "girlfriend",
    "boyfriend",
    "fiancé",
    "fiancée",
];

/// Verbs of helping and hindering another person.
pub(super) fn goal_verb(word: &str) -> Option<&'static str> {
    Some(match word {
        "help" | "helps" | "helping" | "save" | "saves" | "protect" | "protects" | "protecting"
        | "rescue" | "rescues" => "help",
        "hurt" | "hurts" | "hurting" | "ruin" | "ruins" | "betray" | "betrays" | "hinder"
        | "hinders" | "sabotage" | "sabotages" => "hinder",
        _ => return None,
    })
}

/// Words between a subject and its verb that change nothing about who acts.
pub(super) const AUXILIARIES: &[&str] = &[
    "would", "will", "could", "can", "to", "going", "is", "am", "are", "was", "meant", "want",
    "wants", "wanted", "try", "tries", "tried", "has", "have", "had", "must", "should",
];
