//! What a speaker commits to in a line: `I'll…`, `I will…`, `I'm going
//! to…`, and `I'm <verb>ing` with a time ahead or a verb of handing over
//! (`I'm selling Teo the boat`) are the speaker's intention; `I won't…` and
//! `I'm not going to…` are the intention negated. (`I need to…` and `I
//! want…` are mental verbs, read in `mental`.) Questions, conditionals (`if`) and recordings commit
//! no one.

use super::lexicon::{is_negation, ANAPHORS, COMMIT_VERBS, FUTURE_WORDS};
use super::mental::Voice;
use super::{Extractor, MentalRec};
use crate::graph::schema::*;
use crate::text::content_words;
use crate::text::spans::{char_slice, gloss, Span};

/// Participles that say how the speaker is, not what they will do.
const STATE_PARTICIPLES: &[&str] = &[
    "feeling",
    "thinking",
    "hoping",
    "wondering",
    "getting",
    "being",
    "trying",
    "starting",
];

/// A commitment found at word `at`: attitude, polarity and the word its
/// content starts at.
struct Commitment {
    at: usize,
    attitude: Attitude,
    negated: bool,
    content: usize,
}

/// The first commitment in a sentence's lowercase words.
fn commitment(lower: &[String]) -> Option<Commitment> {
    let future = lower.iter().any(|w| FUTURE_WORDS.contains(&w.as_str()));
    for (k, w) in lower.iter().enumerate() {
        let next = |n: usize| lower.get(k + n).map(String::as_str);
        let found = match w.as_str() {
            "i'll" => Some((Attitude::Intention, false, k + 1)),
            "i" if next(1) == Some("will") => Some((Attitude::Intention, false, k + 2)),
            "i" if next(1) == Some("won't") => Some((Attitude::Intention, true, k + 2)),
            "i'm" | "i" => {
                let mut n = if w == "i" {
                    if next(1) != Some("am") {
                        continue;
                    }
                    2
                } else {
                    1
                };
                let negated = next(n).is_some_and(is_negation);
                if negated {
                    n += 1;
                }
                match (next(n), next(n + 1)) {
                    (Some("going"), Some("to")) => Some((Attitude::Intention, negated, k + n + 2)),
                    (Some(v), _)
                        if v.ends_with("ing")
                            && !negated
                            && (COMMIT_VERBS.contains(&v) && v != "going" || future) =>
                    {
                        Some((Attitude::Intention, false, k + n))
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        if let Some((attitude, negated, content)) = found {
            // `I'll be fine` says how things will go, not what I will do;
            // `I'll have to…` is an obligation, not a plan; `I'm feeling
            // generous` is a state.
            let first = lower.get(content).map(String::as_str);
            let obligation =
                first == Some("have") && lower.get(content + 1).is_some_and(|w| w == "to");
            if first == Some("be")
                || obligation
                || first.is_some_and(|w| STATE_PARTICIPLES.contains(&w))
            {
                return None;
            }
            // `I'll go and answer it`, `I won't try to beat them`: a plan
            // whose only object points back is no content a reader can
            // read alone.
            let rest = &lower[content..];
            if rest.len() <= 4 && rest.last().is_some_and(|w| ANAPHORS.contains(&w.as_str())) {
                return None;
            }
            return Some(Commitment {
                at: k,
                attitude,
                negated,
                content,
            });
        }
    }
    None
}

impl Extractor<'_, '_> {
    /// The speaker's intention or desire a sentence of their line commits to.
    pub(super) fn commitments(
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
        if self.recorded
            || s.text.trim_end().ends_with('?')
            || lower.iter().any(|w| w == "if" || w == "unless")
        {
            return;
        }
        let Some(found) = commitment(lower) else {
            return;
        };
        if found.content >= ws.len() {
            return;
        }
        let mut content = char_slice(
            &s.text,
            ws[found.content].start - s.start,
            ws[ws.len() - 1].end - s.start,
        );
        // `I'm giving it to Quinton. Tomorrow, before the dealer comes.`:
        // a fragment that only says when belongs to the plan.
        if let Some(when) = self.when_fragment(i, s) {
            content = format!("{content}, {when}");
        }
        if content_words(&content).is_empty() {
            return;
        }
        let spelled = self.spell_out_wished(&content, Some(speaker), voice.addressee, speaker);
        self.speaker_state(
            i,
            s,
            ws,
            SpeakerState {
                holder: speaker,
                at: found.at,
                attitude: found.attitude,
                negated: found.negated,
                truth: None,
                content: spelled,
            },
            "a commitment in the speaker's own words",
        );
    }
}

/// A state a speaker's own line asserts of them, ready to become a node.
pub(super) struct SpeakerState<'h> {
    /// Who holds it (the speaker).
    pub holder: &'h str,
    /// The sentence's word the evidence quote starts at (it runs to the
    /// sentence's end).
    pub at: usize,
    pub attitude: Attitude,
    pub negated: bool,
    /// `Some(false)` for a belief the script shows to be false.
    pub truth: Option<bool>,
    /// The content, persons already spelled out.
    pub content: String,
}

impl Extractor<'_, '_> {
    /// Proposes a state read from a sentence of its holder's line: the node
    /// (quoting the sentence from word `state.at`) and its record.
    pub(super) fn speaker_state(
        &mut self,
        i: usize,
        s: &Span,
        ws: &[Span],
        state: SpeakerState<'_>,
        reason: &str,
    ) -> String {
        let quote = char_slice(
            &s.text,
            ws[state.at].start - s.start,
            ws[ws.len() - 1].end - s.start,
        );
        let ev = self.evidence(i, ws[state.at].start, ws[ws.len() - 1].end, &quote);
        let display = self.display(state.holder);
        let mut node = Node::new(
            format!(
                "mental_state:e{i:04}-{:03}-{}",
                ws[state.at].start,
                state.attitude.as_str()
            ),
            NodeKind::MentalState,
            format!("{display}: {}", gloss(&quote, 80)),
        );
        node.attitude = Some(state.attitude);
        node.holder = Some(state.holder.to_owned());
        node.content = Some(state.content);
        node.negated = state.negated;
        node.truth = state.truth;
        node.explicit = Some(true);
        node.order = Some(i);
        node.scene = Some(self.ctx.block.scene);
        node.evidence = vec![ev.clone()];
        let id = self.add_node(node, reason);
        self.mentals.push(MentalRec {
            id: id.clone(),
            holder: state.holder.to_owned(),
            attitude: state.attitude,
            order: (i, ws[state.at].start),
            evidence: ev,
        });
        id
    }

    /// The sentence after `s` in its element when it is a fragment that
    /// only says when (`Tomorrow, before the dealer comes.`).
    fn when_fragment(&self, i: usize, s: &Span) -> Option<String> {
        let el = self.ctx.play.elements.get(i)?;
        let next = crate::text::spans::sentences(&el.text)
            .into_iter()
            .find(|p| p.start >= s.end)?;
        let first = crate::text::spans::words(&next.text, 0)
            .into_iter()
            .next()?
            .text
            .to_lowercase();
        let when = FUTURE_WORDS.contains(&first.as_str())
            || matches!(first.as_str(), "before" | "after" | "until" | "by" | "at");
        when.then(|| {
            next.text
                .trim()
                .trim_end_matches(['.', '!', ';'])
                .trim()
                .to_owned()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lower(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_lowercase).collect()
    }

    #[test]
    fn first_person_futures_commit_the_speaker() {
        let c = commitment(&lower("I'll remember the splash")).unwrap();
        assert_eq!(
            (c.attitude, c.negated, c.content),
            (Attitude::Intention, false, 1)
        );
        let c = commitment(&lower("I'm selling Teo the boat")).unwrap();
        assert_eq!((c.attitude, c.content), (Attitude::Intention, 1));
        let c = commitment(&lower("I won't stand in your way")).unwrap();
        assert_eq!((c.attitude, c.negated), (Attitude::Intention, true));
    }

    #[test]
    fn the_present_and_the_weather_commit_no_one() {
        // Doing now, not about to do.
        assert!(commitment(&lower("I'm reading the letter")).is_none());
        assert!(commitment(&lower("I'm not starting with you")).is_none());
        assert!(commitment(&lower("I'll be fine")).is_none());
        // A time ahead makes the present a plan.
        assert!(commitment(&lower("I'm reading it tomorrow")).is_some());
    }
}
