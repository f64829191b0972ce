//! Pronouns the block leaves open. A narrated event or state whose holder
//! or agent is only a he/she that several characters of the block fit is
//! proposed once per reading: the one the generator's own bookkeeping
//! picks (the latest mention), and each other character it can mean. The
//! auditors choose, each by its own route (the quote auditor by the
//! nearest antecedent in the script, the scene auditor by the scene's
//! focus), so that what they agree on is which reading is true.

use super::Extractor;
use crate::graph::generate::cast::pronoun_gender;
use crate::graph::schema::*;
use crate::screenplay::ElementKind;
use crate::text::spans::words;

impl Extractor<'_, '_> {
    /// The other characters of the block so far that a narrated node's
    /// pronoun can mean (none when its quote names its holder or agent, or
    /// it stands in a line, whose speaker is its holder).
    pub(super) fn pronoun_readings(&self, node: &Node) -> Vec<String> {
        if !matches!(node.kind, NodeKind::Event | NodeKind::MentalState) {
            return Vec::new();
        }
        let Some(who) = node.holder.as_deref().or(node.agent.as_deref()) else {
            return Vec::new();
        };
        let Some(ev) = node.evidence.last() else {
            return Vec::new();
        };
        let narrated = self
            .ctx
            .play
            .elements
            .get(ev.element)
            .is_some_and(|e| e.kind == ElementKind::Action);
        if !narrated {
            return Vec::new();
        }
        let quoted = words(&ev.quote, 0);
        let Some(at) = quoted
            .iter()
            .position(|w| pronoun_gender(&w.text.to_lowercase()).is_some())
        else {
            return Vec::new();
        };
        let named = quoted[..at]
            .iter()
            .any(|w| self.cast.named(&w.text).is_some_and(|m| m.id == who));
        if named {
            return Vec::new();
        }
        let Some(gender) = pronoun_gender(&quoted[at].text.to_lowercase()) else {
            return Vec::new();
        };
        // Who the pronoun cannot mean: the characters named after it only.
        let after: Vec<String> = quoted[at + 1..]
            .iter()
            .filter_map(|w| self.cast.named(&w.text).map(|m| m.id.clone()))
            .collect();
        self.recent
            .iter()
            .rev()
            .filter(|id| id.as_str() != who && !after.contains(id))
            .filter(|id| {
                self.cast
                    .by_id(id)
                    .is_some_and(|m| m.gender.is_none_or(|g| g == gender))
            })
            .cloned()
            .collect()
    }

    /// Proposes each recorded node again with each other character its
    /// pronoun can mean, with the edge that ties the character to it.
    pub(super) fn other_readings(&mut self) {
        for (id, others) in std::mem::take(&mut self.readings) {
            let Some(Item::Node(node)) = self.node_index.get(&id).map(|&k| self.items[k].0.clone())
            else {
                continue;
            };
            let Some(who) = node.holder.clone().or_else(|| node.agent.clone()) else {
                continue;
            };
            let (was, display_was) = (self.first_name(&who), self.display(&who));
            for other in others {
                let (now, display_now) = (self.first_name(&other), self.display(&other));
                let mut alt = node.clone();
                alt.id = format!("{}~{}", node.id, other.trim_start_matches("character:"));
                if alt.holder.as_deref() == Some(who.as_str()) {
                    alt.holder = Some(other.clone());
                }
                if alt.agent.as_deref() == Some(who.as_str()) {
                    alt.agent = Some(other.clone());
                }
                for p in &mut alt.participants {
                    if *p == who {
                        *p = other.clone();
                    }
                }
                if let Some(rest) = alt.name.strip_prefix(&display_was) {
                    alt.name = format!("{display_now}{rest}");
                }
                alt.content = alt.content.as_deref().map(|c| swap_word(c, &was, &now));
                let reason =
                    format!("another reading of the pronoun: {display_now}, not {display_was}");
                let alt_id = self.add_node(alt.clone(), &reason);
                let ev = node.evidence.clone();
                match node.kind {
                    NodeKind::MentalState => {
                        self.add_edge(
                            EdgeKind::Holds,
                            &other,
                            &alt_id,
                            ev.clone(),
                            "holder of the mental state",
                        );
                        if let Some(t) = &node.target {
                            self.add_edge(
                                EdgeKind::About,
                                &alt_id,
                                t,
                                ev,
                                "content of the mental state",
                            );
                        }
                    }
                    _ => {
                        for p in &alt.participants {
                            self.add_edge(
                                EdgeKind::ParticipatesIn,
                                p,
                                &alt_id,
                                ev.clone(),
                                "participant of the event",
                            );
                        }
                    }
                }
            }
        }
    }
}

impl Extractor<'_, '_> {
    fn first_name(&self, id: &str) -> String {
        self.display(id)
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .to_owned()
    }
}

/// `text` with the whole word `from` replaced by `to`.
fn swap_word(text: &str, from: &str, to: &str) -> String {
    if from.is_empty() {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    for c in text.chars().chain(std::iter::once('\u{0}')) {
        if c.is_alphanumeric() {
            word.push(c);
            continue;
        }
        out.push_str(if word == from { to } else { &word });
        word.clear();
        if c != '\u{0}' {
            out.push(c);
        }
    }
    out
}
