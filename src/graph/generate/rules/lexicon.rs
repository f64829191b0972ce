//! The cue words the rules generator reads: mental-state verbs and
//! parentheticals (with the attitude each names), negations and adverbs,
//! emotion nouns, speech-act phrases, and the perception, holding, role,
//! help/hinder and auxiliary word lists.

use crate::graph::schema::{Act, Attitude};
use crate::text::spans::{sentences, words};

/// Mental-state verbs: form → attitude. `mean` and `need` are read with the
/// word after them (see [`mental_cue`]).
pub(super) fn mental_verb(word: &str) -> Option<Attitude> {
    Some(match word {
        "think" | "thinks" | "thought" | "believe" | "believes" | "believed" | "assumes"
        | "assume" | "assumed" | "suppose" | "supposes" | "supposed" | "reckon" | "reckons"
        | "reckoned" | "expect" | "expects" | "expected" | "imagine" | "imagines" | "imagined" => {
            Attitude::Belief
        }
        "know" | "knows" | "knew" | "realizes" | "realize" | "realized" | "realises"
        | "realise" | "realised" | "understands" | "understand" | "understood" | "learns"
        | "learned" | "learnt" | "discovers" | "discovered" => Attitude::Knowledge,
        "want" | "wants" | "wanted" | "hope" | "hopes" | "hoped" | "wish" | "wishes" | "wished"
        | "longs" | "longed" | "craves" | "craved" => Attitude::Desire,
        "plan" | "plans" | "planned" | "decide" | "decides" | "decided" | "intend" | "intends"
        | "intended" | "resolves" | "resolved" | "vows" | "vowed" => Attitude::Intention,
        "suspect" | "suspects" | "suspected" => Attitude::Suspicion,
        "pretend" | "pretends" | "pretended" => Attitude::Pretense,
        "fear" | "fears" | "feared" | "hates" | "hate" | "hated" | "envies" | "envy" | "dreads"
        | "dread" | "resents" | "resent" | "resented" | "regrets" | "regret" | "regretted"
        | "worries" | "worried" => Attitude::Emotion,
        _ => return None,
    })
}

/// Whether an attitude is toward something to happen (a desire, an
/// intention, a social goal), whose content keeps its verbs as written.
pub(super) fn wished(a: Attitude) -> bool {
    matches!(
        a,
        Attitude::Desire | Attitude::Intention | Attitude::SocialGoal
    )
}

/// Adjectives that name a state of mind after a copula (`she is sure…`,
/// `he was not aware…`, `I'm determined to…`): form → attitude.
pub(super) fn mental_adjective(word: &str) -> Option<Attitude> {
    Some(match word {
        "sure" | "certain" | "convinced" | "positive" => Attitude::Belief,
        "aware" => Attitude::Knowledge,
        "determined" => Attitude::Intention,
        "desperate" | "eager" | "keen" => Attitude::Desire,
        "afraid" | "frightened" => Attitude::Emotion,
        _ => return None,
    })
}

/// Words of degree between a copula and its adjective (`is quite sure`).
pub(super) const DEGREE_WORDS: &[&str] = &[
    "so",
    "quite",
    "absolutely",
    "very",
    "more",
    "less",
    "fully",
    "perfectly",
    "completely",
    "not",
];

/// Copulas that join a subject to a [`mental_adjective`].
pub(super) const COPULAS: &[&str] = &[
    "is", "was", "are", "were", "am", "be", "been", "being", "'s", "'m", "'re", "feels", "felt",
    "seems", "seemed", "remains", "remained", "grows", "grew",
];

/// A mental-state cue at word `k`: the attitude, the word its content starts
/// at, and whether it says the holder mistakes one thing for another (a false
/// belief whose content follows `for`).
pub(super) struct Cue {
    pub attitude: Attitude,
    pub content: usize,
    pub mistaken: bool,
    /// `saw`, `heard`: knowledge only in the speaker's own words (`I saw
    /// Quinton pocket something`).
    pub witnessed: bool,
    /// An adjective after a copula (`is sure`): the subject stands before
    /// the copula.
    pub copular: bool,
}

/// Words a content does not start with after an adjective or a verb
/// (`she is sure, too, that…`, `he is certain now that…`).
const CONTENT_OPENERS: &[&str] = &["too", "now", "also", "still", "again", "then", "that"];

/// The cue at word `k` of a clause ending before word `to`: the verbs of
/// [`mental_verb`], `mean(s) to` and `need(s) to` (intention), `need`
/// (desire), `tries to` (intention), `finds out` / `works out` / `figures
/// out` (knowledge), an adjective of [`mental_adjective`] after a copula,
/// and `mistake(s) … for …` (false belief).
pub(super) fn mental_cue(lower: &[String], k: usize, to: usize) -> Option<Cue> {
    let w = lower[k].as_str();
    let next = lower.get(k + 1).filter(|_| k + 1 < to).map(String::as_str);
    let cue = |attitude, content| {
        Some(Cue {
            attitude,
            content,
            mistaken: false,
            witnessed: false,
            copular: false,
        })
    };
    match w {
        "mistake" | "mistakes" | "mistook" | "mistaking" => {
            let f = (k + 1..to).find(|&f| lower[f] == "for")?;
            Some(Cue {
                attitude: Attitude::Belief,
                content: f + 1,
                mistaken: true,
                witnessed: false,
                copular: false,
            })
        }
        "saw" | "heard" | "watched" => Some(Cue {
            attitude: Attitude::Knowledge,
            content: k + 1,
            mistaken: false,
            witnessed: true,
            copular: false,
        }),
        "mean" | "means" | "meant" if next == Some("to") => cue(Attitude::Intention, k + 2),
        "mean" | "means" | "meant" => None,
        "need" | "needs" | "needed" if next == Some("to") => cue(Attitude::Intention, k + 2),
        // A bare `need` is a desire only in the speaker's own words (`I need
        // a loan`); `you don't need a drop of it` says nothing of a mind.
        "need" | "needs" | "needed" if k > 0 && lower[k - 1] == "i" => cue(Attitude::Desire, k + 1),
        "need" | "needs" | "needed" => None,
        "try" | "tries" | "tried" if next == Some("to") => cue(Attitude::Intention, k + 2),
        "find" | "finds" | "found" | "work" | "works" | "worked" | "figure" | "figures"
        | "figured"
            if next == Some("out") && k + 2 < to =>
        {
            cue(Attitude::Knowledge, skip_openers(lower, k + 2, to))
        }
        _ => {
            if let Some(attitude) = mental_adjective(w) {
                // Only after a copula (`she is sure`), not as a modifier (`a
                // sure thing`).
                let before = k.checked_sub(1).map(|j| lower[j].as_str());
                let joined = before.is_some_and(|b| {
                    COPULAS.contains(&b)
                        || is_negation(b)
                        || ["'s", "'m", "'re"].iter().any(|c| b.ends_with(c))
                        || ADVERBS.contains(&b)
                        || DEGREE_WORDS.contains(&b)
                });
                if !joined {
                    return None;
                }
                let mut c = skip_openers(lower, k + 1, to);
                if lower
                    .get(c)
                    .is_some_and(|x| matches!(x.as_str(), "of" | "about" | "to"))
                    && c + 1 < to
                {
                    c += 1;
                }
                return Some(Cue {
                    attitude,
                    content: c,
                    mistaken: false,
                    witnessed: false,
                    copular: true,
                });
            }
            let attitude = mental_verb(w)?;
            let mut c = k + 1;
            // `plans to`, `decides to`, `wants to`: the content is the act.
            if matches!(attitude, Attitude::Intention | Attitude::Desire) && next == Some("to") {
                c += 1;
            }
            if lower.get(c).is_some_and(|x| x == "that") && c + 1 < to {
                c += 1;
            } else if let Some(t) = aside_before_that(lower, c, to) {
                // `does not believe for one moment that…`: the aside is not
                // what is believed.
                c = t + 1;
            }
            cue(attitude, c)
        }
    }
}

/// A `that` within a few words after a verb, when what stands before it is
/// an aside (`for one moment`, `for a second`, `at all`, `really`): where
/// the `that` is.
fn aside_before_that(lower: &[String], c: usize, to: usize) -> Option<usize> {
    let opens_aside = lower.get(c).is_some_and(|w| {
        matches!(
            w.as_str(),
            "for" | "at" | "in" | "even" | "really" | "honestly"
        )
    });
    if !opens_aside {
        return None;
    }
    (c + 1..to.min(c + 5)).find(|&t| lower[t] == "that" && t + 1 < to)
}

/// The first word at or after `c` (before `to`) that is not an adverb
/// opening a content, nor `that`.
fn skip_openers(lower: &[String], mut c: usize, to: usize) -> usize {
    while c + 1 < to && CONTENT_OPENERS.contains(&lower[c].as_str()) {
        c += 1;
    }
    c
}

/// Whether a word negates the verb after it (`not`, `never`, `don't`…).
pub(super) fn is_negation(word: &str) -> bool {
    matches!(word, "not" | "never") || word.ends_with("n't")
}

/// Words between a subject and its mental verb that leave the holder and
/// polarity as they are (auxiliaries and modals; negations are read apart).
pub(super) const VERB_AUXILIARIES: &[&str] = &[
    "do", "does", "did", "would", "could", "will", "can", "shall", "should", "must", "might",
    "may", "has", "have", "had", "almost", "always", "suddenly", "now", "finally", "clearly",
];

/// Words that refer back to what was just said or shown.
pub(super) const ANAPHORS: &[&str] = &["it", "this", "that", "so", "them"];

/// Present participles that, after `I'm`, announce what the speaker is about
/// to do (`I'm selling the boat`), not what they are doing.
pub(super) const COMMIT_VERBS: &[&str] = &[
    "giving", "selling", "leaving", "taking", "going", "moving", "buying", "calling", "telling",
    "quitting", "staying", "coming", "keeping", "bringing", "sending", "marrying",
];

/// Words that put a present-tense line in the future.
pub(super) const FUTURE_WORDS: &[&str] = &[
    "tomorrow",
    "tonight",
    "later",
    "soon",
    "next",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "morning",
    "weekend",
];

/// Verbs that say an emotion decided something (`Jealousy made the decision
/// for her`): the emotion motivates the holder's act just before.
pub(super) const DECIDING_VERBS: &[&str] = &["made", "makes", "make", "took", "takes"];

/// The nouns such a verb decides.
pub(super) const DECISION_NOUNS: &[&str] = &["decision", "choice", "call"];

/// Parentheticals that mark a line as a recording (a voicemail greeting):
/// nobody in the scene is addressed.
pub(super) const RECORDED: &[&str] = &["voicemail", "recording", "recorded", "tape", "machine"];

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

/// The feeling a parenthetical's emotion word names, as a noun (`relieved`
/// → `relief`), for a state's content.
pub(super) fn emotion_noun(word: &str) -> Option<&'static str> {
    Some(match word {
        "bitter" => "bitterness",
        "relieved" => "relief",
        "ashamed" => "shame",
        "horrified" => "horror",
        "uneasy" => "unease",
        "breaking" => "distress",
        "angry" | "furious" => "anger",
        "afraid" | "scared" | "terrified" => "fear",
        "guilty" => "guilt",
        "jealous" => "jealousy",
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
