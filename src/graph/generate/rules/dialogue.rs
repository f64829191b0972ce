//! Dialogue lines: the parenthetical's state of mind, the line's speech act
//! (heard by the addressee; a lie conceals what the liar knows or wants, a
//! confession reveals an earlier pretense), and mental-state, relation and
//! goal cues in the line.

use super::lexicon::{act_phrase, emotion_noun, paren_state, speech_act, RECORDED};
use super::mental::Voice;
use super::{Extractor, MentalRec};
use crate::graph::schema::*;
use crate::text::spans::{gloss, sentences, words};

impl Extractor<'_, '_> {
    pub(super) fn dialogue(&mut self, i: usize, text: &str, paren: Option<(usize, String)>) {
        let Some(speaker) = self.speaker_at(i) else {
            return;
        };
        // A narrating voice-over speaks to the audience, not to anyone in
        // the scene.
        let narrating = self.narrating(i);
        let addressee = if narrating {
            None
        } else {
            self.addressee(i, &speaker)
        };
        let paren_text = paren
            .as_ref()
            .map(|(_, p)| p.trim_matches(['(', ')']).to_lowercase())
            .unwrap_or_default();
        self.recorded = words(&paren_text, 0)
            .iter()
            .any(|w| RECORDED.contains(&w.text.as_str()));
        let n = text.chars().count();
        let line_ev = self.evidence(i, 0, n, text);
        let speaker_name = self.display(&speaker);
        let addressee_name = addressee.as_deref().map(|a| self.display(a));
        // The parenthetical's state of mind.
        if let Some((pi, ptext)) = &paren {
            if let Some((attitude, phrase)) = words(&paren_text, 0)
                .iter()
                .find_map(|w| paren_state(&w.text))
            {
                let pev = self.evidence(*pi, 0, ptext.chars().count(), ptext);
                let to = match (&attitude, &addressee_name) {
                    (Attitude::Pretense, Some(a)) => format!(" to {a}"),
                    _ => String::new(),
                };
                let mut node = Node::new(
                    format!("mental_state:e{i:04}-000-{}", attitude.as_str()),
                    NodeKind::MentalState,
                    format!("{speaker_name} {phrase}{to}: “{}”", gloss(text, 60)),
                );
                node.attitude = Some(attitude);
                node.holder = Some(speaker.clone());
                let content = self.paren_content(i, text, &paren_text, attitude);
                node.content =
                    Some(self.spell_out(&content, Some(&speaker), addressee.as_deref(), &speaker));
                node.explicit = Some(true);
                node.order = Some(i);
                node.scene = Some(self.ctx.block.scene);
                if attitude == Attitude::Pretense {
                    node.target = addressee.clone();
                }
                node.evidence = vec![pev.clone(), line_ev.clone()];
                let target = node.target.clone();
                let id = self.add_node(node, "state of mind in a parenthetical");
                if let Some(t) = target {
                    self.add_edge(
                        EdgeKind::About,
                        &id,
                        &t,
                        vec![pev.clone()],
                        "deceived character",
                    );
                }
                self.mentals.push(MentalRec {
                    id,
                    holder: speaker.clone(),
                    attitude,
                    order: (i, 0),
                    evidence: pev,
                });
            }
        }
        // Speech act.
        if let Some(act) = speech_act(text, &paren_text) {
            let mut participants = vec![speaker.clone()];
            if let Some(a) = &addressee {
                participants.push(a.clone());
            }
            for w in words(text, 0) {
                if let Some(m) = self.cast.named(&w.text) {
                    if !participants.contains(&m.id) {
                        participants.push(m.id.clone());
                    }
                }
            }
            let to = addressee_name
                .clone()
                .unwrap_or_else(|| "no one".to_owned());
            let name = format!(
                "{speaker_name} {} {to}: “{}”",
                act_phrase(act),
                gloss(text, 60)
            );
            let id = self.event(
                i,
                0,
                act,
                &speaker,
                participants,
                name,
                line_ev.clone(),
                false,
            );
            if let Some(a) = &addressee {
                self.add_edge(
                    EdgeKind::Perceives,
                    a,
                    &id,
                    vec![line_ev.clone()],
                    "the addressee of a speech act hears it",
                );
            }
            if act == Act::Lie {
                self.lies.insert(speaker.clone(), (i, text.to_owned()));
                self.concealment(i, &id, &speaker, &line_ev);
            }
            let l = text.to_lowercase();
            if matches!(act, Act::Confession | Act::Reveal)
                && (l.contains("lied") || l.contains("lie ") || l.contains("lying"))
            {
                // Reveals the speaker's latest deception of this addressee.
                let pretense = self
                    .mentals
                    .iter()
                    .filter(|m| m.attitude == Attitude::Pretense && m.holder == speaker)
                    .map(|m| m.id.clone())
                    .next_back()
                    .or_else(|| {
                        self.ctx
                            .entities
                            .values()
                            .filter(|n| {
                                n.attitude == Some(Attitude::Pretense)
                                    && n.holder.as_deref() == Some(speaker.as_str())
                                    && (addressee.is_none() || n.target == addressee)
                            })
                            .max_by_key(|n| (n.order, n.id.clone()))
                            .map(|n| n.id.clone())
                    });
                if let Some(p) = pretense {
                    self.add_edge(
                        EdgeKind::Reveals,
                        &id,
                        &p,
                        vec![line_ev.clone()],
                        "confession of a lie",
                    );
                }
            }
        }
        // Mental-state verbs in the line.
        for s in sentences(text) {
            let ws = words(&s.text, s.start);
            let lower: Vec<String> = ws
                .iter()
                .map(|w| w.text.to_lowercase().replace('’', "'"))
                .collect();
            for w in &ws {
                if let Some(m) = self.cast.named(&w.text).cloned() {
                    if m.id != speaker {
                        self.recent.retain(|r| r != &m.id);
                        self.recent.push(m.id.clone());
                    }
                }
            }
            let voice = Voice {
                speaker: Some(&speaker),
                addressee: addressee.as_deref(),
                narrating,
            };
            self.mental_states(i, &s, &ws, &lower, voice);
            self.commitments(i, &s, &ws, &lower, voice);
            self.judgments(i, &s, &ws, &lower, voice);
            self.social_relations(i, &s, &ws, &lower, &[], Some(&speaker));
            self.social_goals(i, &s, &ws, &lower, Some(&speaker), addressee.as_deref());
        }
        // The speaker stays the most recent mention after their own line.
        self.recent.retain(|r| r != &speaker);
        self.recent.push(speaker);
    }

    /// What a parenthetical's state is about: a realization is the line's
    /// first sentence (`(realizing) Quinton found it.`); a feigned reaction
    /// (`(pretending surprise)`) is that reaction to what was just said; any
    /// other state is about the whole line.
    fn paren_content(&self, i: usize, text: &str, paren: &str, attitude: Attitude) -> String {
        let first = || sentences(text).into_iter().next().map(|s| s.text);
        match attitude {
            Attitude::Knowledge => first().unwrap_or_else(|| text.to_owned()),
            Attitude::Pretense => {
                let feigned = paren
                    .split_once("pretending")
                    .map(|(_, rest)| rest.trim().to_owned())
                    .filter(|rest| !rest.is_empty());
                let before = sentences(text)
                    .into_iter()
                    .next()
                    .and_then(|s| self.antecedent(i, &s));
                match (feigned, before) {
                    (Some(what), Some(before)) => format!("{what}: {before}"),
                    _ => text.to_owned(),
                }
            }
            // `(relieved) Well. We're both in the room.`: the feeling named,
            // then what it is about.
            Attitude::Emotion => match words(paren, 0).iter().find_map(|w| emotion_noun(&w.text)) {
                Some(noun) => format!("{noun}: {text}"),
                None => text.to_owned(),
            },
            _ => text.to_owned(),
        }
    }

    /// A lie conceals the liar's latest knowledge, intention or desire in this
    /// block (what the scene shows them hiding), else the pretense marked on
    /// the line; a state from scenes before is not guessed at.
    pub(super) fn concealment(&mut self, i: usize, lie: &str, speaker: &str, line_ev: &Evidence) {
        const HIDDEN: [Attitude; 3] = [Attitude::Knowledge, Attitude::Intention, Attitude::Desire];
        let here = self
            .mentals
            .iter()
            .rev()
            .find(|m| m.holder == speaker && HIDDEN.contains(&m.attitude) && m.order.0 < i)
            .map(|m| m.id.clone());
        let pretense = || {
            self.mentals
                .iter()
                .find(|m| m.holder == speaker && m.attitude == Attitude::Pretense && m.order.0 == i)
                .map(|m| m.id.clone())
        };
        if let Some(hidden) = here.or_else(pretense) {
            self.add_edge(
                EdgeKind::Conceals,
                lie,
                &hidden,
                vec![line_ev.clone()],
                "a lie conceals the liar's latest knowledge, intention or desire in the scene",
            );
        }
    }
}
