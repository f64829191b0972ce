//! [`Facts::classify`]: whether an option is a gold answer to a question, a
//! distractor wrong for a stated reason, or unusable (true in some other
//! sense, so never offered).

use super::{Ask, Facts, Verdict};
use std::collections::BTreeSet;

use super::pronouns::Pronoun;
use crate::graph::{Attitude, NodeKind};
use crate::trees::schema::DistractorReason;

impl<'g> Facts<'g> {
    /// Judges `option` (a node index) as an answer to `ask`.
    pub fn classify(&self, ask: &Ask, option: usize) -> Verdict {
        use DistractorReason as R;
        use Verdict::*;
        let kind = self.node(option).kind;
        let moment = matches!(kind, NodeKind::Event | NodeKind::MentalState);
        match *ask {
            Ask::Origin { end } => {
                if option == end || !moment {
                    Unusable
                } else if self.ancestors(end).contains(&option) {
                    Gold
                } else if self.descendants(end).contains(&option) {
                    Wrong(R::EffectForCause)
                } else if self.order(option) > self.order(end) {
                    Wrong(R::LaterEvent)
                } else if kind == NodeKind::Event
                    && (!self.can_reach(option, end) || self.led_elsewhere(option))
                {
                    Wrong(R::NotTheCause)
                } else {
                    Unusable
                }
            }
            Ask::Cause { target } => {
                if option == target || !moment {
                    return Unusable;
                }
                if self.causes(target).contains(&option) {
                    return Gold;
                }
                if self.ancestors(target).contains(&option) {
                    return Unusable;
                }
                if self.descendants(target).contains(&option) {
                    return Wrong(R::EffectForCause);
                }
                if self.order(option) > self.order(target) {
                    return Wrong(R::LaterEvent);
                }
                // Earlier and unlinked is weak evidence in a graph that says
                // little: only a moment that cannot have reached the target
                // (no character in contact with it before the target), or an
                // event whose own consequences are known and lead elsewhere
                // while the target's causes are known, is offered as not the
                // cause.
                if kind == NodeKind::Event
                    && !self.causes(target).is_empty()
                    && self.led_elsewhere(option)
                {
                    return Wrong(R::NotTheCause);
                }
                if self.can_reach(option, target) {
                    return Unusable;
                }
                if kind == NodeKind::MentalState {
                    let golds: BTreeSet<usize> = self
                        .causes(target)
                        .iter()
                        .filter_map(|&c| self.holder(c))
                        .collect();
                    return match self.holder(option) {
                        Some(h) if !golds.is_empty() && !golds.contains(&h) => {
                            Wrong(R::OtherCharacter)
                        }
                        _ => Unusable,
                    };
                }
                Wrong(R::NotTheCause)
            }
            Ask::Effect { source } => {
                if option == source || !moment {
                    return Unusable;
                }
                if self.effects(source).contains(&option) {
                    return Gold;
                }
                if self.descendants(source).contains(&option) {
                    return Unusable;
                }
                if self.ancestors(source).contains(&option) {
                    return Wrong(R::EffectForCause);
                }
                if self.order(option) < self.order(source) {
                    // Before the source: it cannot be what the source led to.
                    return Wrong(R::LaterEvent);
                }
                // After the source and unlinked: only a moment the source
                // cannot have reached, or one with a known different cause
                // (an event, or a state of mind something else brought
                // about), is offered as not what it led to. States count as
                // events do: when every wrong answer were an event, the one
                // state of mind among the options would be the answer.
                let other_cause = !self.causes(option).is_empty();
                if !self.can_reach(source, option) || other_cause {
                    Wrong(R::NotTheCause)
                } else {
                    Unusable
                }
            }
            Ask::Participants { event } => {
                if kind != NodeKind::Character {
                    Unusable
                } else if self.people(event).contains(&option) {
                    Gold
                } else {
                    Wrong(R::OtherCharacter)
                }
            }
            Ask::Holder { state } => {
                if kind != NodeKind::Character {
                    Unusable
                } else if self.holder(state) == Some(option) {
                    Gold
                } else if self.same_content_held(state, option) {
                    Unusable
                } else {
                    Wrong(R::OtherCharacter)
                }
            }
            Ask::Order { a, b } => {
                if option != a && option != b || self.order(a) == self.order(b) {
                    return Unusable;
                }
                let first = if self.order(a) < self.order(b) { a } else { b };
                if option == first {
                    Gold
                } else {
                    Wrong(R::LaterEvent)
                }
            }
            Ask::MindBefore { character, moment } => {
                if kind != NodeKind::MentalState || option == moment || !self.says_something(option)
                {
                    return Unusable;
                }
                match self.holder(option) {
                    Some(h) if h == character => {
                        if self.order(option) > self.order(moment) {
                            self.later_own_state(option, moment)
                        } else if self.may_have_ended(option, moment)
                            || self.not_held_as_worded(option)
                        {
                            Unusable
                        } else {
                            Gold
                        }
                    }
                    Some(_) if self.same_content_held(option, character) => Unusable,
                    // Another's state about this character ("Mara does not
                    // intend to stand in Quinton's way"), said of them,
                    // reads as nonsense or as what they do hold.
                    Some(_) if self.mentions(option, character) => Unusable,
                    // What another holds in a scene this character is in
                    // (told, overheard, shared) may be theirs too.
                    Some(_) if self.in_scene_of(character, option) => Unusable,
                    // Not knowing or not wanting something is true of
                    // anyone not told.
                    Some(_) if self.node(option).negated => Unusable,
                    Some(_) => Wrong(R::OtherCharacter),
                    None => Unusable,
                }
            }
            // Only the character's own states: whether they also know what
            // another knows the graph does not say.
            Ask::KnowsAt { character, moment } => {
                if !self.own_telling_state(option, character, moment) {
                    return Unusable;
                }
                let node = self.node(option);
                match node.attitude {
                    Some(Attitude::Knowledge) if !node.negated => {
                        if self.order(option) > self.order(moment) {
                            self.later_own_state(option, moment)
                        } else if self.over_by(option, moment) || self.ends_at(option, moment) {
                            Unusable
                        } else {
                            Gold
                        }
                    }
                    // Not knowing ends when they find out: a known end, or
                    // anything they come to know since.
                    Some(Attitude::Knowledge)
                        if self.order(option) <= self.order(moment)
                            && !self.over_by(option, moment)
                            && !self.ends_at(option, moment) =>
                    {
                        Wrong(R::NotKnown)
                    }
                    // A false belief is never knowledge, whenever held.
                    Some(Attitude::Belief | Attitude::Suspicion)
                        if !node.negated && node.truth == Some(false) =>
                    {
                        Wrong(R::Mistaken)
                    }
                    _ => Unusable,
                }
            }
            Ask::FalseBelief { character, moment } => {
                if !self.own_telling_state(option, character, moment) {
                    return Unusable;
                }
                let node = self.node(option);
                let believed =
                    matches!(node.attitude, Some(Attitude::Belief | Attitude::Suspicion))
                        && !node.negated;
                if believed && self.order(option) > self.order(moment) {
                    return self.later_own_state(option, moment);
                }
                if self.order(option) > self.order(moment)
                    || self.over_by(option, moment)
                    || self.ends_at(option, moment)
                {
                    return Unusable;
                }
                match node.attitude {
                    _ if believed && node.truth == Some(false) => Gold,
                    _ if believed && node.truth == Some(true) => Wrong(R::TrueBelief),
                    // What they know is true by definition.
                    Some(Attitude::Knowledge) if !node.negated => Wrong(R::TrueBelief),
                    _ => Unusable,
                }
            }
            Ask::NoLonger { character, moment } => {
                if !self.own_telling_state(option, character, moment) {
                    return Unusable;
                }
                let node = self.node(option);
                if self.order(option) > self.order(moment) {
                    return self.later_own_state(option, moment);
                }
                if self.ended_by(option, moment) {
                    return Gold;
                }
                // Still held: the graph records ends, and this one's end,
                // if any, is after the moment; a state whose end the graph
                // cannot know (ignorance, false belief) is never offered.
                match (node.until_scene, self.node(moment).scene) {
                    (Some(end), Some(now)) if end > now => Wrong(R::StillHeld),
                    // No recorded end, in a graph that records ends: still
                    // held only when it began in this scene or the last
                    // (a feeling from the first act may have passed
                    // unrecorded).
                    (None, Some(now))
                        if self.ends_recorded(character)
                            && node.scene.is_some_and(|s| s + 1 >= now) =>
                    {
                        let ignorance = node.negated || node.truth == Some(false);
                        if ignorance || self.learned_since(option, moment) {
                            Unusable
                        } else {
                            Wrong(R::StillHeld)
                        }
                    }
                    _ => Unusable,
                }
            }
        }
    }

    /// Whether `option` is a telling state of `character`'s other than
    /// `moment` (what the character-at-a-moment asks draw on).
    fn own_telling_state(&self, option: usize, character: usize, moment: usize) -> bool {
        self.node(option).kind == NodeKind::MentalState
            && option != moment
            && self.says_something(option)
            && self.holder(option) == Some(character)
    }

    /// Whether the graph ends a state in the moment's own scene: before or
    /// after the moment the graph does not say, so it is neither held nor
    /// over there.
    fn ends_at(&self, state: usize, moment: usize) -> bool {
        matches!(
            (self.node(state).until_scene, self.node(moment).scene),
            (Some(end), Some(now)) if now == end
        )
    }

    /// Whether the graph says a state ended before the moment's scene.
    pub fn ended_by(&self, state: usize, moment: usize) -> bool {
        matches!(
            (self.node(state).until_scene, self.node(moment).scene),
            (Some(end), Some(now)) if now > end
        )
    }

    /// Whether a state may be over by the moment: its recorded end where the
    /// graph records its holder's ends, else [`Facts::may_have_ended`]'s
    /// cautious guess.
    fn over_by(&self, state: usize, moment: usize) -> bool {
        match self.holder(state) {
            Some(h) if self.ends_recorded(h) => self.ended_by(state, moment),
            _ => self.may_have_ended(state, moment),
        }
    }

    /// Whether the graph records when any of a character's states end: only
    /// then is a state with no recorded end taken as still held.
    fn ends_recorded(&self, character: usize) -> bool {
        self.held_by(character)
            .iter()
            .any(|&s| self.node(s).until_scene.is_some())
    }

    /// Whether a state may have ended by `moment`: any state the graph says
    /// ended in an earlier scene (`until_scene`), and a state of ignorance —
    /// a false belief, or not knowing or not believing something — whose end
    /// the graph does not record: such states end when the truth comes out ("Quinton
    /// doesn't know the ring has left the safe" no longer holds once he has
    /// opened the empty safe). One from more than a scene before, or one
    /// whose holder has learned something since (a later knowledge or
    /// realization: Mara's "she has just saved her brother" after she
    /// understands, in the next scene), is not offered as held then.
    ///
    /// Feelings, wishes and plans pass too, but leaving out those from more
    /// than a scene before put the golds of "on X's mind by this point" next
    /// to the asked moment in its excerpt, where a reader of positions looks
    /// (3 of 30 synthetic films failed their audit; at three scenes, 2): they
    /// stay, and a reader is told "by this point", not "now".
    fn may_have_ended(&self, state: usize, moment: usize) -> bool {
        let node = self.node(state);
        // A known end (`until_scene`: corrected, given up, carried out)
        // before the moment's scene: no longer held, whatever it is.
        if let (Some(end), Some(now)) = (node.until_scene, self.node(moment).scene) {
            if now > end {
                return true;
            }
        }
        let ignorance = matches!(
            node.attitude,
            Some(Attitude::Belief | Attitude::Knowledge | Attitude::Suspicion)
        ) && (node.truth == Some(false) || node.negated);
        if !ignorance {
            return false;
        }
        if self.learned_since(state, moment) {
            return true;
        }
        match (node.scene, self.node(moment).scene) {
            (Some(held), Some(now)) => now > held + 1,
            _ => true,
        }
    }

    /// Whether a state's words, read as what is on its holder's mind, say
    /// the opposite of it: a negated state ("does not want Bev to see the
    /// note" worded "Bev see the note") or a pretense (what the holder
    /// pretends, not what they think).
    fn not_held_as_worded(&self, state: usize) -> bool {
        let node = self.node(state);
        node.negated || node.attitude == Some(Attitude::Pretense)
    }

    /// The pronoun the narration uses for a character, where it says.
    pub fn pronoun(&self, character: usize) -> Option<Pronoun> {
        self.pronouns.get(character).copied().flatten()
    }

    /// Whether a state's words, read as an option, say something: two
    /// content words or more (“I know” alone names nothing a reader could
    /// pick for what it is).
    /// A character's own state first voiced after the moment, offered as
    /// held then: wrong only where the graph shows it began later (a cause
    /// after the moment: what they learn or are told there). A state is
    /// voiced where a line first says it, and is often held long before
    /// (a wish already written in a note, a pride implied scenes earlier).
    fn later_own_state(&self, state: usize, moment: usize) -> Verdict {
        let begins_later = self
            .causes(state)
            .iter()
            .any(|&c| self.order(c) > self.order(moment));
        if begins_later {
            Verdict::Wrong(DistractorReason::LaterEvent)
        } else {
            Verdict::Unusable
        }
    }

    /// Whether `character` is in the scene where `state` is voiced (as an
    /// agent, participant or holder of any of its moments).
    fn in_scene_of(&self, character: usize, state: usize) -> bool {
        let Some(scene) = self.node(state).scene else {
            return false;
        };
        self.moments
            .iter()
            .filter(|&&m| self.node(m).scene == Some(scene))
            .any(|&m| self.people(m).contains(&character))
    }

    /// Whether a state's content names `character` (by first name).
    fn mentions(&self, state: usize, character: usize) -> bool {
        let name = self.first_name(character);
        let content = match &self.node(state).content {
            Some(c) => c.clone(),
            None => self.content(state),
        };
        content
            .split(|ch: char| !ch.is_alphanumeric())
            .any(|w| w == name)
    }

    fn says_something(&self, state: usize) -> bool {
        self.telling[state]
    }

    /// Whether the holder of `state` comes to know something after it and
    /// by `moment` (a knowledge or realization that is not itself a
    /// not-knowing).
    fn learned_since(&self, state: usize, moment: usize) -> bool {
        let Some(holder) = self.holder(state) else {
            return false;
        };
        let (from, to) = (self.order(state), self.order(moment));
        self.held.get(&holder).is_some_and(|held| {
            held.iter().any(|&k| {
                let n = self.node(k);
                k != state
                    && n.attitude == Some(Attitude::Knowledge)
                    && !n.negated
                    && self.order(k) > from
                    && self.order(k) <= to
            })
        })
    }
}
