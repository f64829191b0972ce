//! Who is who: characters mentioned in the block, the latest character a
//! pronoun refers to, a character's display name, and a line's speaker and
//! addressee.

use super::Extractor;
use crate::graph::generate::cast::pronoun_gender;
use crate::graph::schema::*;
use crate::graph::text::Span;

impl Extractor<'_, '_> {
    pub(super) fn mention(&mut self, id: &str, ev: Evidence) {
        let m = self.cast.by_id(id).cloned();
        let name = m.map(|m| m.display).unwrap_or_else(|| id.to_owned());
        let mut node = Node::new(id, NodeKind::Character, name);
        node.evidence = vec![ev];
        self.add_node(node, "character named in the block");
        self.recent.retain(|r| r != id);
        self.recent.push(id.to_owned());
    }

    /// The most recent character of the pronoun's gender, not in `exclude`.
    pub(super) fn resolve(&self, pronoun: &str, exclude: &[&str]) -> Option<String> {
        let gender = pronoun_gender(pronoun)?;
        self.recent
            .iter()
            .rev()
            .filter(|id| !exclude.contains(&id.as_str()))
            .find(|id| {
                self.cast
                    .by_id(id)
                    .and_then(|m| m.gender)
                    .is_none_or(|g| g == gender)
            })
            .cloned()
    }

    /// The person a word refers to: a name, `I`/`me` (the speaker), `you` (the
    /// addressee) or a personal pronoun (the latest character of its gender).
    pub(super) fn person(
        &self,
        ws: &[Span],
        lower: &[String],
        j: usize,
        speaker: Option<&str>,
        addressee: Option<&str>,
        exclude: &[&str],
    ) -> Option<String> {
        let w = lower.get(j)?.as_str();
        let base = w.split('\'').next().unwrap_or(w);
        match base {
            "i" | "me" => speaker.map(str::to_owned),
            "you" => addressee.map(str::to_owned),
            "he" | "she" | "him" | "her" => self.resolve(base, exclude),
            _ => self.cast.named(&ws[j].text).map(|m| m.id.clone()),
        }
    }

    pub(super) fn display(&self, id: &str) -> String {
        self.cast
            .by_id(id)
            .map(|m| m.display.clone())
            .unwrap_or_else(|| id.trim_start_matches("character:").to_owned())
    }

    pub(super) fn speaker_at(&self, element: usize) -> Option<String> {
        self.speakers
            .iter()
            .find(|(i, _)| *i == element)
            .map(|(_, s)| s.clone())
    }

    /// The nearest other speaker before this line, else after it.
    pub(super) fn addressee(&self, element: usize, speaker: &str) -> Option<String> {
        let before = self
            .speakers
            .iter()
            .rev()
            .filter(|(i, s)| *i < element && s != speaker)
            .map(|(_, s)| s.clone())
            .next();
        before.or_else(|| {
            self.speakers
                .iter()
                .filter(|(i, s)| *i > element && s != speaker)
                .map(|(_, s)| s.clone())
                .next()
        })
    }
}
