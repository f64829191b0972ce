//! Context and order links over the block's events and mental states:
//! participants and location, holders, and story order (`precedes`). No
//! causal edge is drawn here from nearness alone: causes come from causal
//! language where it is read (connectives, `lets`, `stops … from`, an
//! emotion that makes a decision).

use super::Extractor;
use crate::graph::schema::*;

impl Extractor<'_, '_> {
    /// Context and order edges over the block's events and mental states.
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
        }
        // Story order: each event precedes the next, the block's first
        // following the latest event known before it. Nothing here claims a
        // cause: that needs causal language (see `events` and `action`).
        let before = self
            .ctx
            .entities
            .values()
            .filter(|n| n.kind == NodeKind::Event)
            .max_by_key(|n| (n.order, n.evidence.first().map(|e| e.start), n.id.clone()))
            .map(|n| (n.id.clone(), n.evidence.first().cloned()));
        let mut ordered = events.clone();
        ordered.sort_by(|a, b| (a.order, &a.id).cmp(&(b.order, &b.id)));
        let mut last = before;
        for e in &ordered {
            if let Some((prev, prev_ev)) = &last {
                let mut ev: Vec<Evidence> = prev_ev.iter().cloned().collect();
                ev.push(e.evidence.clone());
                self.add_edge(
                    EdgeKind::Precedes,
                    prev,
                    &e.id,
                    ev,
                    "story order: the next event (no causal claim)",
                );
            }
            last = Some((e.id.clone(), Some(e.evidence.clone())));
        }
    }
}
