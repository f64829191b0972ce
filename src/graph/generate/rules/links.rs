//! Context and causal links over the block's events and mental states:
//! participants and location, holders, reactions (triggers), motives, the
//! deception a lie expresses, and one character's act answering another's.

use super::{EventRec, Extractor};
use crate::graph::schema::*;

impl Extractor<'_, '_> {
    /// Context and causal edges over the block's events and mental states.
    pub(super) fn link(&mut self) {
        let events = self.events.clone();
        let mentals = self.mentals.clone();
        for e in &events {
            for p in &e.participants {
                self.add_edge(
                    EdgeKind::ParticipatesIn,
                    p,
                    &e.id,
                    vec![e.evidence.clone()],
                    "participant of the event",
                );
            }
            if let Some(loc) = self.location.clone() {
                self.add_edge(
                    EdgeKind::LocatedAt,
                    &e.id,
                    &loc,
                    vec![e.evidence.clone()],
                    "the scene's location",
                );
            }
        }
        for m in &mentals {
            self.add_edge(
                EdgeKind::Holds,
                &m.holder,
                &m.id,
                vec![m.evidence.clone()],
                "holder of the mental state",
            );
            // A narrated state follows from the event just before it (a reaction).
            if m.narrated {
                if let Some(e) = events
                    .iter()
                    .rev()
                    .find(|e| e.order < m.order && e.participants.contains(&m.holder))
                {
                    self.add_edge(
                        EdgeKind::Triggers,
                        &e.id,
                        &m.id,
                        vec![e.evidence.clone(), m.evidence.clone()],
                        "reaction: state after an event involving the holder",
                    );
                }
            } else if m.attitude == Attitude::Pretense {
                // A lie told is the event that expresses the deception.
                if let Some(e) = events
                    .iter()
                    .find(|e| e.order.0 == m.order.0 + 1 || e.order.0 == m.order.0)
                {
                    self.add_edge(
                        EdgeKind::Motivates,
                        &m.id,
                        &e.id,
                        vec![m.evidence.clone(), e.evidence.clone()],
                        "deception expressed by the lie",
                    );
                }
            }
            if matches!(
                m.attitude,
                Attitude::Intention | Attitude::Desire | Attitude::Emotion | Attitude::SocialGoal
            ) {
                let next = events
                    .iter()
                    .find(|e| e.order > m.order && e.agent == m.holder);
                let prev = events
                    .iter()
                    .rev()
                    .find(|e| e.order < m.order && e.agent == m.holder);
                if let Some(e) = next.or(prev) {
                    self.add_edge(
                        EdgeKind::Motivates,
                        &m.id,
                        &e.id,
                        vec![m.evidence.clone(), e.evidence.clone()],
                        "state of the agent nearest the act",
                    );
                }
            }
        }
        // Reactions: an event by B involving A follows the latest event by A
        // involving B (earlier in this block or in an earlier block).
        let mut prior: Vec<EventRec> = self
            .ctx
            .entities
            .values()
            .filter(|n| n.kind == NodeKind::Event && n.agent.is_some())
            .map(|n| EventRec {
                id: n.id.clone(),
                agent: n.agent.clone().unwrap_or_default(),
                participants: n.participants.clone(),
                order: (
                    n.order.unwrap_or(0),
                    n.evidence.first().map_or(0, |e| e.start),
                ),
                evidence: n
                    .evidence
                    .first()
                    .cloned()
                    .unwrap_or_else(|| self.evidence(0, 0, 0, "")),
            })
            .collect();
        prior.sort_by(|a, b| (a.order, &a.id).cmp(&(b.order, &b.id)));
        for e2 in &events {
            let cause = prior
                .iter()
                .rev()
                .find(|e1| {
                    e1.agent != e2.agent
                        && e1.participants.contains(&e2.agent)
                        && e2.participants.contains(&e1.agent)
                })
                .cloned();
            if let Some(e1) = cause {
                self.add_edge(
                    EdgeKind::Causes,
                    &e1.id,
                    &e2.id,
                    vec![e1.evidence.clone(), e2.evidence.clone()],
                    "reaction: the other character's latest act involving the agent",
                );
            }
            prior.push(e2.clone());
        }
    }
}
