//! A mental state as a sentence a person reads: its holder (or the asked
//! character), a verb for its attitude, its content ("Conrad intends to get
//! Licence 118", "Marta does not know the ute stopped"), and a moment as a
//! time in the story ("When Hollis pockets the note").

use super::pronouns::Pronoun;
use super::Facts;
use crate::graph::{Attitude, NodeKind};

/// Words after which a name is the subject of a clause ("that Mara left").
const OPENS_A_CLAUSE: &[&str] = &[
    "that", "and", "but", "when", "if", "because", "so", "before", "after", "while", "until", "or",
    "since", "though", "than",
];

/// Words after which a name is an object, not a clause's subject ("ask
/// Mara properly", "bailed Mara out", "told Mara to go"); any other word
/// after it is taken as its verb ("Mara would", "Mara took").
const FOLLOWS_AN_OBJECT: &[&str] = &[
    "a", "about", "again", "alone", "an", "anything", "at", "back", "down", "for", "from", "in",
    "into", "of", "off", "on", "out", "over", "that", "the", "to", "too", "up", "with",
];

/// `content` with `name` (its sentence's subject) as a pronoun after the
/// first mention: "Mara believes Mara has saved Mara's brother" reads "Mara
/// believes she has saved her brother". Subject, object and possessive
/// forms by the words around the name.
fn pronominalise(content: &str, name: &str, pronoun: Pronoun) -> String {
    let (subject, object, possessive) = match pronoun {
        Pronoun::He => ("he", "him", "his"),
        Pronoun::She => ("she", "her", "her"),
    };
    let words: Vec<&str> = content.split(' ').collect();
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    for (i, w) in words.iter().enumerate() {
        let core = w.trim_end_matches(|c: char| !c.is_alphanumeric());
        let tail = &w[core.len()..];
        let replaced = if let Some(stem) = core.strip_suffix("'s").or(core.strip_suffix("’s")) {
            (stem == name).then(|| format!("{possessive}{tail}"))
        } else if core == name {
            let before = i.checked_sub(1).map(|j| words[j].to_lowercase());
            let after = words.get(i + 1).map(|w| w.to_lowercase());
            let opens = before.as_deref().is_none_or(|b| {
                OPENS_A_CLAUSE.contains(&b) || b.ends_with([',', '.', ':', ';', '!', '?', '('])
            });
            // A verb after it: a lower-case word that is no preposition,
            // article or adverb, with nothing between (no comma or stop).
            let verb_follows = tail.is_empty()
                && after.as_deref().is_some_and(|a| {
                    a.starts_with(char::is_lowercase)
                        && !FOLLOWS_AN_OBJECT
                            .contains(&a.trim_end_matches(|c: char| !c.is_alphanumeric()))
                        && !a
                            .trim_end_matches(|c: char| !c.is_alphanumeric())
                            .ends_with("ly")
                });
            let is_subject = opens || verb_follows;
            Some(format!(
                "{}{tail}",
                if is_subject { subject } else { object }
            ))
        } else {
            None
        };
        out.push(replaced.unwrap_or_else(|| (*w).to_owned()));
    }
    out.join(" ")
}

/// Words that open a noun phrase or clause, not a verb: a content starting
/// with one is no infinitive ("her lifeguards get paid" is wished, not "to
/// her lifeguards").
const NOT_A_VERB: &[&str] = &[
    "a", "all", "an", "any", "every", "everyone", "he", "her", "his", "i", "if", "it", "its", "my",
    "no", "nobody", "nothing", "one", "our", "she", "some", "someone", "that", "the", "their",
    "them", "these", "they", "this", "those", "to", "we", "what", "which", "who", "whose", "you",
    "your",
];

/// A content with its first word lower-cased where a line's capital opened
/// it ("That was the last thing of hers" is believed as "that was …"); names
/// and "I" keep theirs.
fn sentence_case(content: &str) -> String {
    let first = content.split_whitespace().next().unwrap_or("");
    let word = first.trim_matches(|c: char| !c.is_alphanumeric());
    let lower = word.to_lowercase();
    if word != lower && word != "I" && NOT_A_VERB.contains(&lower.as_str()) {
        let mut chars = content.chars();
        let head = chars.next().map(|c| c.to_lowercase().collect::<String>());
        return head.unwrap_or_default() + chars.as_str();
    }
    content.to_owned()
}

/// A verb phrase of `head` ("wants", "intends") and a content: "wants to
/// help", "intends to help" for an infinitive (with or without its "to"),
/// `gerund_head` before an -ing form ("is set on selling the boat"), else
/// `clause_head` and a that-clause.
fn with_content(head: &str, gerund_head: &str, clause_head: &str, content: &str) -> String {
    let first = content.split_whitespace().next().unwrap_or("");
    // A short noun phrase is wanted as a thing: "wants a loan".
    let noun_phrase = content.split_whitespace().count() <= 3
        && [
            "a", "an", "the", "some", "more", "his", "her", "their", "my", "your", "its",
        ]
        .contains(&first);
    if content.starts_with("to ") || noun_phrase {
        format!("{head} {content}")
    } else if is_infinitive(content) {
        format!("{head} to {content}")
    } else if first.ends_with("ing") && first.chars().next().is_some_and(char::is_lowercase) {
        format!("{gerund_head} {content}")
    } else if content.starts_with("that ") {
        format!("{clause_head} {content}")
    } else {
        format!("{clause_head} that {content}")
    }
}

/// Whether a content reads as a bare infinitive ("get the licence"): its
/// first word is lower case, no determiner or pronoun, and no -ing or -ed form.
fn is_infinitive(content: &str) -> bool {
    let Some(first) = content.split_whitespace().next() else {
        return false;
    };
    let word = first.trim_matches(|c: char| !c.is_alphanumeric());
    word.chars().next().is_some_and(char::is_lowercase)
        && !NOT_A_VERB.contains(&word)
        && !word.ends_with("ing")
        && !word.ends_with("ed")
}

/// A content without an annotator's trailing tag ("help Marta (help)").
fn clean(content: &str) -> &str {
    let c = content.trim().trim_end_matches('.');
    for tag in ["(help)", "(hinder)"] {
        if let Some(rest) = c.strip_suffix(tag) {
            return rest.trim_end();
        }
    }
    c
}

impl Facts<'_> {
    /// A state's content claimed with one verb, whatever its attitude and
    /// polarity: "Marta knows the Trust has no money" for her knowledge,
    /// her false belief or her not knowing alike (the claim is the option;
    /// whether it is right is the question).
    pub fn claim(&self, state: usize, subject: &str, verb: &str) -> String {
        format!("{subject} {verb} {}", self.content_of(state, subject))
    }

    /// A state's content said of `subject`, whose own name in it reads as a
    /// pronoun where the narration gives them one.
    fn content_of(&self, state: usize, subject: &str) -> String {
        let content = self.bare_content(state);
        let pronoun = self
            .characters
            .iter()
            .find(|&&c| self.first_name(c) == subject)
            .and_then(|&c| self.pronoun(c));
        match pronoun {
            Some(p) => pronominalise(&content, subject, p),
            None => content,
        }
    }

    /// A state's content in words, without holder, attitude or annotator's tag.
    fn bare_content(&self, state: usize) -> String {
        self.node(state)
            .content
            .as_deref()
            .map(clean)
            .filter(|c| !c.is_empty())
            .map(sentence_case)
            .unwrap_or_else(|| self.content(state))
    }

    /// A state as a sentence with `subject` (a name) as its holder: the
    /// attitude's verb, negated where the state is, then the content.
    pub fn statement_as(&self, state: usize, subject: &str) -> String {
        let node = self.node(state);
        let content = self.content_of(state, subject);
        let content = content.as_str();
        let not = node.negated;
        let verb_phrase = match node.attitude {
            Some(Attitude::Knowledge) => {
                format!("{} {content}", if not { "does not know" } else { "knows" })
            }
            Some(Attitude::Suspicion) => format!(
                "{} {content}",
                if not { "does not suspect" } else { "suspects" }
            ),
            Some(Attitude::Desire) => {
                let (head, gerund, clause) = if not {
                    ("does not want", "is not keen on", "does not wish")
                } else {
                    ("wants", "is keen on", "wishes")
                };
                with_content(head, gerund, clause, content)
            }
            Some(Attitude::Intention | Attitude::SocialGoal) => {
                let head = if not {
                    "does not intend"
                } else if node.attitude == Some(Attitude::SocialGoal) {
                    "sets out"
                } else {
                    "intends"
                };
                let gerund = if not { "is not set on" } else { "is set on" };
                let clause = if not { "does not intend" } else { "intends" };
                with_content(head, gerund, clause, content)
            }
            Some(Attitude::Emotion) => {
                format!("{} {content}", if not { "does not feel" } else { "feels" })
            }
            // "pretends that she is fine"; a line kept whole after a colon.
            Some(Attitude::Pretense) if content.starts_with(char::is_lowercase) => {
                if content.starts_with("that ") || content.starts_with("to ") {
                    format!("pretends {content}")
                } else {
                    format!("pretends that {content}")
                }
            }
            Some(Attitude::Pretense) => format!("keeps up a pretence: {content}"),
            Some(Attitude::Belief) | None => format!(
                "{} {content}",
                if not { "does not believe" } else { "believes" }
            ),
        };
        format!("{subject} {verb_phrase}")
    }

    /// A state as a sentence with its own holder as the subject.
    pub fn statement(&self, state: usize) -> String {
        let subject = self.holder(state).map_or("Someone", |h| self.first_name(h));
        self.statement_as(state, subject)
    }

    /// A moment as a time in the story, to open a question: "When Hollis
    /// pockets the note", "When Marta comes to believe …", "While Gus does
    /// not know …".
    pub fn when(&self, moment: usize) -> String {
        let node = self.node(moment);
        // A clause of its own: no full stop before the question's comma.
        let event = || {
            let gloss = sentence_case(&self.gloss(moment));
            format!("When {}", gloss.trim_end_matches('.'))
        };
        if node.kind != NodeKind::MentalState {
            return event();
        }
        let Some(holder) = self.holder(moment).map(|h| self.first_name(h)) else {
            return event();
        };
        // One colon at most in a question: a feeling's reason, a pretence's
        // line, go in brackets.
        let mut sentence = self.statement_as(moment, holder);
        if let Some((head, told)) = sentence.split_once(": ") {
            sentence = format!("{head} ({})", told.trim_end_matches('.'));
        }
        if node.negated {
            return format!("While {sentence}");
        }
        let rest = sentence
            .strip_prefix(holder)
            .unwrap_or(&sentence)
            .trim_start();
        // The attitude's verb as the moment it begins: "knows" → "learns".
        const ONSETS: &[(&str, &str)] = &[
            ("believes ", "comes to believe "),
            ("knows ", "learns "),
            ("suspects ", "begins to suspect "),
            ("wants ", "comes to want "),
            ("wishes ", "comes to wish "),
            ("is keen on ", "comes to be keen on "),
            ("intends ", "decides "),
            ("is set on ", "decides on "),
        ];
        let onset = ONSETS
            .iter()
            .find_map(|(verb, onset)| rest.strip_prefix(verb).map(|c| format!("{onset}{c}")))
            .unwrap_or_else(|| rest.to_owned());
        format!("When {holder} {onset}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_verb_is_an_infinitive_a_noun_phrase_is_not() {
        assert!(is_infinitive("get Licence 118 for Halvard"));
        assert!(is_infinitive("keep the second key secret"));
        assert!(!is_infinitive("her twelve lifeguards get paid"));
        assert!(!is_infinitive("Gus raise the question"));
        assert!(!is_infinitive("nothing"));
        assert!(!is_infinitive("running away"));
        assert!(!is_infinitive("to be right"));
        assert_eq!(
            clean("help Marta win the Old Nine (help)"),
            "help Marta win the Old Nine"
        );
    }

    #[test]
    fn contents_join_their_verb_as_english_does() {
        let w = |c: &str| with_content("wants", "is keen on", "wishes", c);
        assert_eq!(w("to be right"), "wants to be right");
        assert_eq!(w("be right"), "wants to be right");
        assert_eq!(w("swimming"), "is keen on swimming");
        assert_eq!(w("the pool stays open"), "wishes that the pool stays open");
        assert_eq!(
            w("that the pool stays open"),
            "wishes that the pool stays open"
        );
        assert_eq!(w("a loan"), "wants a loan");
        assert_eq!(
            sentence_case("That was the last thing of hers"),
            "that was the last thing of hers"
        );
        assert_eq!(sentence_case("I was wrong"), "I was wrong");
        assert_eq!(sentence_case("Mara took it out"), "Mara took it out");
    }

    #[test]
    fn the_subjects_own_name_in_what_they_hold_becomes_a_pronoun() {
        let p = |c: &str| pronominalise(c, "Mara", Pronoun::She);
        assert_eq!(
            p("Mara has just saved Mara's brother"),
            "she has just saved her brother"
        );
        assert_eq!(p("Quinton ask Mara properly"), "Quinton ask her properly");
        assert_eq!(
            p("he knew Mara would open it alone."),
            "he knew she would open it alone."
        );
        assert_eq!(p("it's around Mara's neck"), "it's around her neck");
        assert_eq!(p("Marat is here"), "Marat is here");
        assert_eq!(
            p("it's worth more than Mara owe"),
            "it's worth more than she owe"
        );
        assert_eq!(p("he thinks Mara don't know"), "he thinks she don't know");
        assert_eq!(p("Quinton bailed Mara out"), "Quinton bailed her out");
        assert_eq!(p("shame: Mara found it"), "shame: she found it");
        assert_eq!(p("he told Mara, then left"), "he told her, then left");
    }
}
