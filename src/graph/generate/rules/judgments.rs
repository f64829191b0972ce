//! What a speaker judges in a line that has no mental verb: the speaker's
//! belief (or suspicion), read from the shape of the sentence.
//!
//! - A doubt: `Are you sure you two were talking about the same thing?` —
//!   the speaker suspects the opposite (the content says `not`, written out).
//! - A flat contradiction of the line before: `No, you weren't.` after `I was
//!   about to call you` — the speaker believes, negated, what the other
//!   speaker claimed of themself.
//! - An inference: `So you're paying me in jewellery.`
//! - A hedged guess: `Torn. With teeth, I'd say.` (`I reckon`, `I think`,
//!   `I bet`… as a tag after a comma; the verbless fragment before it is part
//!   of the guess).
//! - A prediction about someone else: `If I ask, he'll lie.`, `He's going to
//!   let me help.` Not where the narration right after says the speaker does
//!   not believe it, and not where `he` points back to a person the text
//!   names only by a noun (`A dealer comes up on Friday. He'll give me…`).
//! - An explanation: `I've been saying no to him for twenty years, because
//!   Dad never did.`
//! - A claim about what a family member did (`Dad threw his key off the
//!   end`), the backstory a drama turns on.
//! - A denial of the addressee's act (`You weren't setting me up.`), a
//!   request of them (`Ask me properly.`: a desire), and an answer to
//!   `Should I call the police?` (`Not yet.`: an intention, negated).
//! - An evaluation: `It's not enough.`, `It's worth more than I owe.`, `This
//!   time it's true.` A judgment that names nothing but its verdict is about
//!   what was said just before (`Teo's offering six. It's not enough.`).
//!
//! Questions other than a doubt, recordings, and sentences that already gave
//! the speaker a state of the same family are left alone.

use super::commitments::SpeakerState;
use super::ellipsis;
use super::mental::Voice;
use super::Extractor;
use crate::graph::schema::*;
use crate::screenplay::ElementKind;
use crate::text::content_words;
use crate::text::spans::{char_slice, sentences, words, Span};

/// Words that make an `it`/`that` sentence a verdict on something.
const VERDICTS: &[&str] = &[
    "enough", "worth", "true", "untrue", "false", "wrong", "fair", "unfair", "fault", "last",
    "late", "lie", "mistake", "real", "fake", "over",
];

/// Tags that hedge a sentence into a guess (`…, I'd say.`).
const HEDGES: &[&[&str]] = &[
    &["i'd", "say"],
    &["i", "reckon"],
    &["i", "think"],
    &["i", "bet"],
    &["i", "guess"],
    &["i'd", "guess"],
    &["i", "suppose"],
    &["i", "imagine"],
    &["i", "expect"],
    &["i", "believe"],
];

/// Third-person subjects a prediction can have (names are checked apart).
const THIRD_PERSONS: &[&str] = &["he", "she", "they"];

/// A sentence of a line, where it stands, and who `I` and `you` are in it.
#[derive(Clone, Copy)]
struct Said<'a> {
    i: usize,
    s: &'a Span,
    ws: &'a [Span],
    lower: &'a [String],
    own: &'a (Option<String>, Option<String>),
}

/// How a line is answered by the next one.
enum Answer {
    /// `No.`, `It wasn't.`, `That's not true.`
    Denied,
    /// `Are you sure…?`
    Doubted,
}

/// A judgment found in a sentence: the word its quote starts at, what it is,
/// and its content as written (persons not yet spelled out).
struct Judgment {
    at: usize,
    attitude: Attitude,
    negated: bool,
    /// The content, and who `I` and `you` mean in it (speaker, addressee).
    content: String,
    persons: (Option<String>, Option<String>),
    reason: &'static str,
}

impl Judgment {
    /// The speaker's belief, held (not negated), quoted from the sentence's
    /// start.
    fn belief(
        content: String,
        own: &(Option<String>, Option<String>),
        reason: &'static str,
    ) -> Self {
        Judgment {
            at: 0,
            attitude: Attitude::Belief,
            negated: false,
            content,
            persons: own.clone(),
            reason,
        }
    }
}

/// The sentence from word `from` on, without its closing `.` or `!`.
fn rest_of(s: &Span, ws: &[Span], from: usize) -> String {
    char_slice(&s.text, ws[from].start - s.start, s.text.chars().count())
        .trim_end_matches(['.', '!'])
        .to_owned()
}

impl Extractor<'_, '_> {
    /// Proposes the belief or suspicion a sentence of a line expresses by its
    /// shape (see the module's list).
    pub(super) fn judgments(
        &mut self,
        i: usize,
        s: &Span,
        ws: &[Span],
        lower: &[String],
        voice: Voice<'_>,
    ) {
        let Some(speaker) = voice.speaker else {
            return;
        };
        if self.recorded || ws.is_empty() {
            return;
        }
        let own = (Some(speaker.to_owned()), voice.addressee.map(str::to_owned));
        let said = Said {
            i,
            s,
            ws,
            lower,
            own: &own,
        };
        let question = s.text.trim_end().ends_with('?');
        let found = if question {
            doubt(lower).map(|(at, content)| Judgment {
                at,
                attitude: Attitude::Suspicion,
                negated: false,
                content,
                persons: own.clone(),
                reason: "a doubt (`are you sure…?`): the speaker suspects the opposite",
            })
        } else {
            self.contradiction(i, s, lower, speaker)
                .or_else(|| self.answer_to_proposal(i, s, lower, speaker))
                .or_else(|| denial(s, ws, lower, &own))
                .or_else(|| request(s, lower, &own))
                .or_else(|| inference(s, ws, lower, &own, &|w| self.is_named(w)))
                .or_else(|| self.hedge(said))
                .or_else(|| self.prediction(said))
                .or_else(|| self.evaluation(said))
                .or_else(|| backstory(s, ws, lower, &own))
                .or_else(|| explanation(s, lower, &own))
        };
        let Some(j) = found else {
            return;
        };
        // What the next line answers: a judgment flatly denied (`No. It
        // wasn't.`) is a false belief; one the next line doubts (`Are you
        // sure…?`) has a truth the script leaves open, and is left out. A
        // conclusion drawn from a line marked `(lying)` rests on the lie.
        let mut truth = None;
        if !j.negated {
            match self.answer_to(i, speaker) {
                Some(Answer::Denied) => truth = Some(false),
                Some(Answer::Doubted) => return,
                None => {}
            }
            if j.attitude == Attitude::Belief && self.follows_lie(i, speaker) && lower[0] == "so" {
                truth = Some(false);
            }
        }
        let family = j.attitude.family();
        let said_here = self.mentals.iter().any(|m| {
            m.holder == speaker
                && m.order.0 == i
                && (s.start..s.end.max(s.start + 1)).contains(&m.order.1)
                && m.attitude.family() == family
        });
        if said_here || content_words(&j.content).is_empty() {
            return;
        }
        let content = if super::lexicon::wished(j.attitude) {
            self.spell_out_wished(
                &j.content,
                j.persons.0.as_deref(),
                j.persons.1.as_deref(),
                speaker,
            )
        } else {
            self.spell_out(
                &j.content,
                j.persons.0.as_deref(),
                j.persons.1.as_deref(),
                speaker,
            )
        };
        self.speaker_state(
            i,
            s,
            ws,
            SpeakerState {
                holder: speaker,
                at: j.at,
                attitude: j.attitude,
                negated: j.negated,
                truth,
                content,
            },
            j.reason,
        );
    }

    /// How the next line in the scene, by someone else, answers line `i`.
    fn answer_to(&self, i: usize, speaker: &str) -> Option<Answer> {
        let [_, last] = self.ctx.play.scenes[self.ctx.block.scene].elements;
        let last = last.min(self.ctx.play.elements.len().saturating_sub(1));
        let j = (i + 1..=last).find(|&j| {
            matches!(
                self.ctx.play.elements[j].kind,
                ElementKind::Dialogue | ElementKind::Action
            )
        })?;
        let next = &self.ctx.play.elements[j];
        if next.kind != ElementKind::Dialogue || self.speaker_at(j).as_deref() == Some(speaker) {
            return None;
        }
        let first = sentences(&next.text).into_iter().next()?;
        let lower: Vec<String> = words(&first.text, 0)
            .iter()
            .map(|w| w.text.to_lowercase().replace('’', "'"))
            .collect();
        let denied = matches!(lower.as_slice(), [no] if no == "no")
            || lower
                .first()
                .is_some_and(|w| matches!(w.as_str(), "it" | "that" | "he" | "she"))
                && ellipsis::ends_elided(&lower).is_some()
                && lower.iter().any(|w| super::lexicon::is_negation(w))
            || first.text.to_lowercase().contains("not true")
            || first.text.to_lowercase().contains("you're wrong");
        if denied {
            return Some(Answer::Denied);
        }
        doubt(&lower).map(|_| Answer::Doubted).or_else(|| {
            matches!(lower.as_slice(), [a, b] if a == "you" && b == "sure")
                .then_some(Answer::Doubted)
        })
    }

    /// Whether the line just before line `i` is another speaker's, marked
    /// `(lying)`.
    fn follows_lie(&self, i: usize, speaker: &str) -> bool {
        let before = self.speakers.iter().rev().find(|(j, _)| *j < i);
        before.is_some_and(|(j, who)| {
            who != speaker && self.lies.get(who).is_some_and(|(at, _)| at == j)
        })
    }

    fn is_named(&self, word: &str) -> bool {
        self.cast.named(word).is_some()
    }

    /// Whether `s` is the first sentence of element `i`.
    fn opens_line(&self, i: usize, s: &Span) -> bool {
        self.ctx.play.elements.get(i).is_some_and(|e| {
            sentences(&e.text)
                .first()
                .is_some_and(|f| f.start == s.start)
        })
    }

    /// The block's line just before line `i` (its element and speaker) when
    /// someone other than `speaker` said it.
    fn line_before(&self, i: usize, speaker: &str) -> Option<(usize, String)> {
        let [block_start, _] = self.ctx.block.elements;
        self.speakers
            .iter()
            .rev()
            .find(|(j, _)| *j < i)
            .filter(|(j, sp)| sp != speaker && *j >= block_start)
            .cloned()
    }

    /// `No, you weren't.` as a line's first sentence, right after another
    /// speaker's line that said `I was…`: the speaker believes, negated, the
    /// other's claim.
    fn contradiction(
        &self,
        i: usize,
        s: &Span,
        lower: &[String],
        speaker: &str,
    ) -> Option<Judgment> {
        let from = usize::from(lower.first().is_some_and(|w| w == "no"));
        let rest = &lower[from.min(lower.len())..];
        if !self.opens_line(i, s) || rest.first().map(String::as_str) != Some("you") {
            return None;
        }
        let aux = ellipsis::ends_elided(rest)?;
        if !rest.iter().skip(1).any(|w| super::lexicon::is_negation(w)) {
            return None;
        }
        // The line just before, by someone else.
        let (j, other) = self.line_before(i, speaker)?;
        let text = &self.ctx.play.elements[j].text;
        let claim = sentences(text).into_iter().rev().find_map(|p| {
            let cs = ellipsis::antecedents(&p.text, &|_| false);
            cs.into_iter()
                .rev()
                .find(|c| c.subject.eq_ignore_ascii_case("i") && c.aux == aux)
                .map(|c| {
                    let ws = words(&p.text, 0);
                    char_slice(&p.text, ws[c.at].start, p.text.chars().count())
                        .trim_end_matches(['.', '!', ',', ';', '…'])
                        .to_owned()
                })
        })?;
        Some(Judgment {
            at: 0,
            attitude: Attitude::Belief,
            negated: true,
            content: claim,
            persons: (Some(other.clone()), Some(speaker.to_owned())),
            reason: "a flat contradiction of the line before: the speaker believes, negated, what the other claimed",
        })
    }

    /// `Not yet.` (or `No.`, `Yes.`) as the first sentence of a line that
    /// answers another speaker's `Should I call the police?`: the speaker's
    /// decision on that act, an intention negated or not.
    fn answer_to_proposal(
        &self,
        i: usize,
        s: &Span,
        lower: &[String],
        speaker: &str,
    ) -> Option<Judgment> {
        if !self.opens_line(i, s) {
            return None;
        }
        let negated = match lower
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .as_slice()
        {
            ["no"] | ["not", "yet"] | ["not", "now"] | ["no", "not", "yet"] => true,
            ["yes"] | ["do", "it"] => false,
            _ => return None,
        };
        let (j, other) = self.line_before(i, speaker)?;
        let question = sentences(&self.ctx.play.elements[j].text).pop()?;
        if !question.text.trim_end().ends_with('?') {
            return None;
        }
        let qw: Vec<String> = words(&question.text, 0)
            .iter()
            .map(|w| w.text.to_lowercase())
            .collect();
        let from = match qw.as_slice() {
            [a, b, ..]
                if matches!(a.as_str(), "should" | "shall") && matches!(b.as_str(), "i" | "we") =>
            {
                2
            }
            _ => return None,
        };
        if qw.len() <= from {
            return None;
        }
        Some(Judgment {
            at: 0,
            attitude: Attitude::Intention,
            negated,
            content: qw[from..].join(" "),
            persons: (Some(other.clone()), Some(speaker.to_owned())),
            reason: "an answer to `should I…?`: the speaker's decision on that act",
        })
    }

    /// `…, I'd say.`: the sentence before the tag, with a verbless fragment
    /// just before it in the line (`Torn. With teeth, I'd say.`).
    fn hedge(&self, said: Said<'_>) -> Option<Judgment> {
        let Said {
            i,
            s,
            ws,
            lower,
            own,
        } = said;
        let tag = HEDGES.iter().find(|h| {
            lower.len() >= h.len()
                && lower[lower.len() - h.len()..]
                    .iter()
                    .zip(h.iter())
                    .all(|(a, b)| a == b)
        })?;
        let cut = lower.len() - tag.len();
        if cut == 0 {
            return None;
        }
        let gap = char_slice(&s.text, ws[cut - 1].end - s.start, ws[cut].start - s.start);
        if !gap.contains(',') {
            return None;
        }
        let mut content = char_slice(&s.text, 0, ws[cut - 1].end - s.start);
        let fragment = sentences(&self.ctx.play.elements[i].text)
            .into_iter()
            .rfind(|p| p.end <= s.start)
            .filter(|p| words(&p.text, 0).len() <= 3);
        if let Some(f) = fragment {
            content = format!("{}, {content}", f.text.trim_end_matches(['.', '!']));
        }
        Some(Judgment::belief(
            content,
            own,
            "a hedged guess (`…, I'd say`): the speaker's belief",
        ))
    }

    /// `He'll…`, `She's going to…`, `Quinton will…` opening a clause of the
    /// line: the speaker's belief about what that person will do.
    fn prediction(&self, said: Said<'_>) -> Option<Judgment> {
        let Said {
            i,
            s,
            ws,
            lower,
            own,
        } = said;
        let opens_clause = |k: usize| {
            k == 0
                || char_slice(&s.text, ws[k - 1].end - s.start, ws[k].start - s.start)
                    .contains([',', ';', ':'])
        };
        let next = |k: usize, n: usize| lower.get(k + n).map(String::as_str);
        let subject = (0..lower.len()).find(|&k| {
            if !opens_clause(k) {
                return false;
            }
            let w = lower[k].as_str();
            let (base, tail) = w.split_once('\'').unwrap_or((w, ""));
            let person = THIRD_PERSONS.contains(&base) || self.is_named(&ws[k].text);
            if !person || base == "i" {
                return false;
            }
            match tail {
                "ll" => true,
                "s" | "re" => next(k, 1) == Some("going") && next(k, 2) == Some("to"),
                "" => match next(k, 1) {
                    Some("will" | "won't") => true,
                    Some("is" | "are") => next(k, 2) == Some("going") && next(k, 3) == Some("to"),
                    _ => false,
                },
                _ => false,
            }
        })?;
        let pronoun = THIRD_PERSONS.contains(&lower[subject].split('\'').next().unwrap_or(""));
        let element = &self.ctx.play.elements[i].text;
        // `A dealer comes up on Friday. He'll give me fourteen for it.`: the
        // pronoun means the person the sentence before names by a noun.
        let noun_before = sentences(element)
            .into_iter()
            .rfind(|p| p.end <= s.start)
            .and_then(|p| words(&p.text, 0).into_iter().next())
            .is_some_and(|w| {
                matches!(
                    w.text.to_lowercase().as_str(),
                    "a" | "an" | "the" | "some" | "this" | "that"
                )
            });
        if (pronoun && noun_before) || self.disbelieved_after(i) {
            return None;
        }
        Some(Judgment::belief(
            s.text.trim_end_matches(['.', '!']).to_owned(),
            own,
            "a prediction about someone else: the speaker's belief",
        ))
    }

    /// Whether the narration right after line `i` says its speaker does not
    /// believe it (`He doesn't believe it.`).
    fn disbelieved_after(&self, i: usize) -> bool {
        // The scene's elements, not the block's: the narration may open the
        // next block.
        let [_, last] = self.ctx.play.scenes[self.ctx.block.scene].elements;
        (i + 1..=last.min(self.ctx.play.elements.len().saturating_sub(1)))
            .map(|j| &self.ctx.play.elements[j])
            .take_while(|e| e.kind != ElementKind::Dialogue)
            .filter(|e| e.kind == ElementKind::Action)
            .take(1)
            .any(|e| {
                let l = e.text.to_lowercase().replace('’', "'");
                ["n't believe", "not believe", "n't buy it", "not buy it"]
                    .iter()
                    .any(|p| l.contains(p))
            })
    }

    /// `It's not enough.`, `That was the last thing of hers.`: a verdict on
    /// `it`/`that`/`this`; one that names nothing but the verdict is about
    /// the sentence before (in the line, else the line or action before).
    fn evaluation(&self, said: Said<'_>) -> Option<Judgment> {
        let Said {
            i, s, lower, own, ..
        } = said;
        let mut k = 0;
        while k < lower.len() && matches!(lower[k].as_str(), "well" | "but" | "and" | "no" | "yes")
        {
            k += 1;
        }
        if lower.get(k).is_some_and(|w| w == "this")
            && lower.get(k + 1).is_some_and(|w| w == "time")
        {
            k += 2;
        }
        let subject = lower.get(k)?.as_str();
        let (base, tail) = subject.split_once('\'').unwrap_or((subject, ""));
        if !matches!(base, "it" | "that" | "this") {
            return None;
        }
        let copula = match tail {
            "s" => true,
            "" => lower
                .get(k + 1)
                .is_some_and(|w| matches!(w.as_str(), "is" | "was" | "isn't" | "wasn't")),
            _ => false,
        };
        if !copula || !lower[k..].iter().any(|w| VERDICTS.contains(&w.as_str())) {
            return None;
        }
        let sentence = s.text.trim_end_matches(['.', '!']).to_owned();
        let names_something = content_words(&sentence)
            .iter()
            .any(|w| !VERDICTS.contains(&w.as_str()) && !matches!(w.as_str(), "it's" | "that's"));
        let (content, persons) = if names_something {
            (sentence, own.clone())
        } else {
            match self.said_before(i, s) {
                Some((before, by)) if by.as_deref() == own.0.as_deref() || by.is_none() => {
                    (format!("{before}; {sentence}"), own.clone())
                }
                Some((before, by)) => {
                    // The sentence before is another speaker's: spell its
                    // persons out from their side first.
                    let theirs = self.spell_out(
                        &before,
                        by.as_deref(),
                        own.0.as_deref(),
                        by.as_deref().unwrap_or_default(),
                    );
                    (format!("{theirs}; {sentence}"), own.clone())
                }
                None => (sentence, own.clone()),
            }
        };
        Some(Judgment::belief(
            content,
            &persons,
            "a verdict on what was said or done (`it's not enough`): the speaker's belief",
        ))
    }

    /// The sentence before `s`: in its element, else the last sentence of
    /// the block's previous line or action, with who spoke it (none for
    /// action).
    fn said_before(&self, i: usize, s: &Span) -> Option<(String, Option<String>)> {
        let here = sentences(&self.ctx.play.elements[i].text);
        if let Some(p) = here.iter().rfind(|p| p.end <= s.start) {
            return Some((
                p.text.trim_end_matches(['.', '!']).to_owned(),
                self.speaker_at(i),
            ));
        }
        let [first, _] = self.ctx.block.elements;
        (first..i).rev().find_map(|j| {
            let e = &self.ctx.play.elements[j];
            if !matches!(e.kind, ElementKind::Dialogue | ElementKind::Action) {
                return None;
            }
            let last = sentences(&e.text).pop()?;
            let by = (e.kind == ElementKind::Dialogue)
                .then(|| self.speaker_at(j))
                .flatten();
            Some((last.text.trim_end_matches(['.', '!']).to_owned(), by))
        })
    }
}

/// `Are you sure <clause>?`: the clause with its first auxiliary negated (or
/// its negation taken away), and the word the quote starts at.
fn doubt(lower: &[String]) -> Option<(usize, String)> {
    let from = match lower {
        [a, b, c, ..] if a == "are" && b == "you" && c == "sure" => 3,
        [a, b, ..] if a == "you" && b == "sure" => 2,
        _ => return None,
    };
    let mut clause: Vec<String> = lower[from..].to_vec();
    if clause.first().is_some_and(|w| w == "that") {
        clause.remove(0);
    }
    if clause.len() < 3 {
        return None;
    }
    // `you two` asks about a pair; who the pair is the line does not say.
    for pair in [["you", "two"], ["you", "both"]] {
        if clause.starts_with(&pair.map(str::to_owned)) {
            clause.splice(0..2, ["the two of them".to_owned()]);
        }
    }
    let aux = clause.iter().position(|w| ellipsis::Aux::of(w).is_some())?;
    let w = clause[aux].clone();
    if let Some(positive) = w.strip_suffix("n't") {
        clause[aux] = match positive {
            "wo" => "will".to_owned(),
            "ca" => "can".to_owned(),
            p => p.to_owned(),
        };
    } else if clause
        .get(aux + 1)
        .is_some_and(|n| n == "not" || n == "never")
    {
        clause.remove(aux + 1);
    } else {
        clause.insert(aux + 1, "not".to_owned());
    }
    Some((0, clause.join(" ")))
}

/// `You weren't setting me up.`: a line's claim that the addressee did not
/// do something is the speaker's belief, negated.
fn denial(
    s: &Span,
    ws: &[Span],
    lower: &[String],
    own: &(Option<String>, Option<String>),
) -> Option<Judgment> {
    let [you, aux, rest @ ..] = lower else {
        return None;
    };
    if you != "you" || !matches!(aux.as_str(), "weren't" | "didn't" | "hadn't") || rest.len() < 2 {
        return None;
    }
    let positive = match aux.as_str() {
        "weren't" => "was",
        "didn't" => "did",
        _ => "had",
    };
    let phrase = rest_of(s, ws, 2);
    Some(Judgment {
        at: 0,
        attitude: Attitude::Belief,
        negated: true,
        content: format!("you {positive} {phrase}"),
        persons: own.clone(),
        reason: "a claim that the addressee did not do something: the speaker's belief, negated",
    })
}

/// Verbs whose imperative with `me` asks for something the speaker wants of
/// the addressee.
const ASKS: &[&str] = &[
    "ask", "tell", "help", "trust", "forgive", "believe", "call", "give",
];

/// `Ask me properly.`: the speaker wants the addressee to do it.
fn request(s: &Span, lower: &[String], own: &(Option<String>, Option<String>)) -> Option<Judgment> {
    let [verb, me, ..] = lower else {
        return None;
    };
    if !ASKS.contains(&verb.as_str()) || me != "me" || own.1.is_none() {
        return None;
    }
    let phrase = char_slice(&s.text, 0, s.text.chars().count())
        .trim_end_matches(['.', '!'])
        .to_owned();
    Some(Judgment {
        at: 0,
        attitude: Attitude::Desire,
        negated: false,
        content: format!("you {}", phrase.to_lowercase()),
        persons: own.clone(),
        reason: "a request of the addressee (`ask me…`): the speaker's desire",
    })
}

/// `I've been saying no to him for twenty years, because Dad never did.`: a
/// line's explanation of something is the speaker's belief, the reason
/// included.
fn explanation(
    s: &Span,
    lower: &[String],
    own: &(Option<String>, Option<String>),
) -> Option<Judgment> {
    let at = lower.iter().position(|w| w == "because")?;
    // A clause on each side: `because` neither opens nor ends the sentence.
    if at < 2 || at + 2 > lower.len() {
        return None;
    }
    Some(Judgment::belief(
        s.text.trim_end_matches(['.', '!']).to_owned(),
        own,
        "an explanation (`…, because…`): the speaker's belief",
    ))
}

/// Family members a line names as its subject (`Dad`, `your father`).
const KIN: &[&str] = &[
    "dad", "mum", "mom", "father", "mother", "grandad", "granddad", "grandpa", "grandma", "gran",
    "nan",
];

/// Past forms that do not end in `-ed`.
const IRREGULAR_PAST: &[&str] = &[
    "threw", "took", "gave", "left", "said", "told", "knew", "made", "kept", "sold", "stole",
    "lost", "hid", "found", "went", "came", "saw", "built", "bought", "got", "wrote", "paid",
    "never",
];

/// `Dad threw his key off the end.`, `Your father never threw his key off
/// that pier.`: a line's claim about what a family member did (the backstory
/// a drama turns on) is the speaker's belief.
fn backstory(
    s: &Span,
    ws: &[Span],
    lower: &[String],
    own: &(Option<String>, Option<String>),
) -> Option<Judgment> {
    let at = usize::from(matches!(
        lower.first().map(String::as_str),
        Some("your" | "my" | "our" | "their" | "his" | "her")
    ));
    let verb = lower.get(at + 1)?;
    if !KIN.contains(&lower.get(at)?.as_str())
        || !(verb.ends_with("ed") || IRREGULAR_PAST.contains(&verb.as_str()))
    {
        return None;
    }
    let content = rest_of(s, ws, 0);
    Some(Judgment::belief(
        content,
        own,
        "a claim about what a family member did: the speaker's belief",
    ))
}

/// `So you're paying me in jewellery.`: a line's sentence opening with `so`
/// and a subject other than the speaker (not `So does Mara`, `So what`).
fn inference(
    s: &Span,
    ws: &[Span],
    lower: &[String],
    own: &(Option<String>, Option<String>),
    is_named: &dyn Fn(&str) -> bool,
) -> Option<Judgment> {
    if lower.len() < 3 || lower[0] != "so" {
        return None;
    }
    let subject = lower[1].as_str();
    let base = subject.split('\'').next().unwrap_or(subject);
    let contracted = subject.contains('\'');
    let person = matches!(
        base,
        "you" | "he" | "she" | "they" | "there" | "it" | "that"
    ) || is_named(&ws[1].text);
    // `So that he can…` is a purpose, not an inference.
    if !person || (base == "that" && !contracted) {
        return None;
    }
    let content = rest_of(s, ws, 1);
    Some(Judgment::belief(
        content,
        own,
        "an inference (`so …`): the speaker's belief",
    ))
}

#[cfg(test)]
mod tests;
