//! [`Facts::classify`]: whether an option is a gold answer to a question, a
//! distractor wrong for a stated reason, or unusable (true in some other
//! sense, so never offered).

use super::{Ask, Facts, Verdict};
use std::collections::BTreeSet;

use crate::graph::{Attitude, NodeKind};
use crate::trees::pronouns::Pronoun;
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
                            Wrong(R::LaterEvent)
                        } else if self.may_have_ended(option, moment)
                            || self.not_held_as_worded(option)
                        {
                            Unusable
                        } else {
                            Gold
                        }
                    }
                    Some(_) if self.same_content_held(option, character) => Unusable,
                    Some(_) => Wrong(R::OtherCharacter),
                    None => Unusable,
                }
            }
        }
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
