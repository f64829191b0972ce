//! Entity resolution across blocks, in tiers: normalized exact match (names and
//! aliases), the screenplay's character identities, then fuzzy (`strsim`) and
//! embedding similarity for objects, locations and events. An event merges only
//! with one of the same agent, act and story moment (the same line proposed
//! twice); mental states are never merged by name.
//!
//! Fuzzy and embedding tiers compare a name only with an entity's canonical
//! name, never with names merged into it, and a group holds at most `cap`
//! names: so a chain A≈B≈C cannot pull unrelated entities together.

use std::collections::BTreeMap;

use crate::align::similarity::{text_similarity, HashedNgramEmbedder};
use crate::graph::generate::cast::character_id;
use crate::graph::schema::{Merge, Node, NodeKind};
use crate::screenplay::Screenplay;
use crate::text::spans::normalize;

/// Thresholds and the group cap.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ResolveOptions {
    /// Most names one entity may gather.
    pub cap: usize,
    /// Normalized Levenshtein similarity for the fuzzy tier.
    pub fuzzy: f64,
    /// Hashed-n-gram cosine for the embedding tier.
    pub embedding: f64,
}

impl Default for ResolveOptions {
    fn default() -> Self {
        ResolveOptions {
            cap: 6,
            fuzzy: 0.85,
            embedding: 0.9,
        }
    }
}

/// Where a proposed node goes: an existing id (with the merge recorded) or itself.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolution {
    /// The id the node gets in the graph.
    pub id: String,
    /// The merge, when it joined an existing entity under another id.
    pub merge: Option<Merge>,
}

/// Resolves a proposed node against the known entities (by id) and the
/// screenplay's characters.
pub fn resolve(
    node: &Node,
    block: usize,
    entities: &BTreeMap<String, Node>,
    play: &Screenplay,
    opts: &ResolveOptions,
) -> Resolution {
    let same = |id: &str| Resolution {
        id: id.to_owned(),
        merge: None,
    };
    if entities.get(&node.id).is_some_and(|e| e.kind == node.kind) {
        return same(&node.id);
    }
    let merged = |into: &str, tier: &str, score: f64| Resolution {
        id: into.to_owned(),
        merge: Some(Merge {
            block,
            name: node.name.clone(),
            proposed: node.id.clone(),
            into: into.to_owned(),
            tier: tier.to_owned(),
            score,
        }),
    };
    // Mental states are tied to the line that expresses them: never merged by name.
    if node.kind == NodeKind::MentalState {
        return same(&node.id);
    }
    let full = |e: &Node| 1 + e.aliases.len() >= opts.cap;
    let norm = normalize(&node.name);
    // Events with the same words at another moment of the story are other
    // events: an event merges only with one of the same agent, act and moment.
    let comparable = |e: &Node| {
        e.kind == node.kind
            && (node.kind != NodeKind::Event
                || (e.agent == node.agent && e.act == node.act && e.order == node.order))
    };
    let kind_entities = || entities.values().filter(|e| comparable(e));
    // Tier 1: exact normalized name or alias.
    if !norm.is_empty() {
        for e in kind_entities() {
            let hit = normalize(&e.name) == norm || e.aliases.iter().any(|a| normalize(a) == norm);
            if hit && !full(e) {
                return merged(&e.id, "exact", 1.0);
            }
        }
    }
    // Tier 2: the screenplay's character identities (cue names and aliases).
    if node.kind == NodeKind::Character {
        let words: Vec<&str> = norm.split(' ').collect();
        for c in &play.characters {
            let names = std::iter::once(&c.name).chain(c.aliases.iter());
            let hit = names.into_iter().any(|n| {
                let n = normalize(n);
                !n.is_empty() && (n == norm || words.first() == Some(&n.as_str()))
            });
            let id = character_id(&c.name);
            if hit && id != node.id {
                return merged(&id, "identity", 1.0);
            }
        }
        return same(&node.id);
    }
    if norm.is_empty() {
        return same(&node.id);
    }
    // Tier 3: fuzzy and head-word matches against canonical names.
    let mut best: Option<(f64, &Node, &str)> = None;
    for e in kind_entities().filter(|e| !full(e)) {
        let canon = normalize(&e.name);
        let score = strsim::normalized_levenshtein(&canon, &norm);
        let head = node.kind == NodeKind::Object
            && !norm.contains(' ')
            && canon.split(' ').next_back() == Some(norm.as_str());
        let (score, tier) = if head {
            (1.0, "head")
        } else {
            (score, "fuzzy")
        };
        if score >= opts.fuzzy && best.is_none_or(|(b, _, _)| score > b) {
            best = Some((score, e, tier));
        }
    }
    if let Some((score, e, tier)) = best {
        return merged(&e.id, tier, score);
    }
    // Tier 4: embedding similarity (objects and locations).
    if matches!(node.kind, NodeKind::Object | NodeKind::Location) {
        let mut best: Option<(f64, &Node)> = None;
        for e in kind_entities().filter(|e| !full(e)) {
            // The hashed embedder computes locally and cannot fail.
            let score =
                text_similarity(&e.name, &node.name, &HashedNgramEmbedder).map_or(0.0, f64::from);
            if score >= opts.embedding && best.is_none_or(|(b, _)| score > b) {
                best = Some((score, e));
            }
        }
        if let Some((score, e)) = best {
            return merged(&e.id, "embedding", (score * 1000.0).round() / 1000.0);
        }
    }
    same(&node.id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::screenplay::{parse_text, Format};

    fn play() -> Screenplay {
        parse_text(
            "INT. ROOM - DAY\n\nQUINTON ELLIS (34) enters.\n\nQUINTON\nHello.\n",
            Some(Format::Fountain),
            None,
        )
        .unwrap()
    }

    fn known(list: &[Node]) -> BTreeMap<String, Node> {
        list.iter().map(|n| (n.id.clone(), n.clone())).collect()
    }

    #[test]
    fn tiers_exact_identity_head_fuzzy() {
        let p = play();
        let o = ResolveOptions::default();
        let ring = Node::new("object:sapphire-ring", NodeKind::Object, "Sapphire Ring");
        let safe = Node::new("object:safe", NodeKind::Object, "Safe");
        let ents = known(&[ring, safe]);
        let intro = Node::new(
            "character:quinton-ellis",
            NodeKind::Character,
            "Quinton Ellis",
        );
        let r = resolve(&intro, 0, &ents, &p, &o);
        assert_eq!(r.id, "character:quinton");
        assert_eq!(r.merge.unwrap().tier, "identity");
        let r = resolve(
            &Node::new("object:ring", NodeKind::Object, "ring"),
            2,
            &ents,
            &p,
            &o,
        );
        assert_eq!(
            (r.id.as_str(), r.merge.unwrap().tier.as_str()),
            ("object:sapphire-ring", "head")
        );
        let r = resolve(
            &Node::new("object:the-safe", NodeKind::Object, "the SAFE"),
            2,
            &ents,
            &p,
            &o,
        );
        assert_eq!(r.merge.unwrap().tier, "exact");
        let r = resolve(
            &Node::new("object:saphire-ring", NodeKind::Object, "Saphire Ring"),
            2,
            &ents,
            &p,
            &o,
        );
        assert_eq!(
            (r.id.as_str(), r.merge.unwrap().tier.as_str()),
            ("object:sapphire-ring", "fuzzy")
        );
        let r = resolve(
            &Node::new("object:lamp", NodeKind::Object, "Lamp"),
            2,
            &ents,
            &p,
            &o,
        );
        assert_eq!((r.id.as_str(), r.merge), ("object:lamp", None));
    }

    #[test]
    fn the_group_cap_stops_chains() {
        let p = play();
        let o = ResolveOptions {
            cap: 2,
            ..ResolveOptions::default()
        };
        let mut ring = Node::new("object:ring", NodeKind::Object, "Ring");
        ring.aliases = vec!["Rings".into()];
        let ents = known(&[ring]);
        // The group is full: even an exact match starts a new entity.
        let r = resolve(
            &Node::new("object:ring-2", NodeKind::Object, "ring"),
            3,
            &ents,
            &p,
            &o,
        );
        assert_eq!(r.id, "object:ring-2");
        // Fuzzy compares with the canonical name only, not with merged aliases.
        let o = ResolveOptions::default();
        let mut a = Node::new("object:marine-radio", NodeKind::Event, "marine radio");
        a.aliases = vec!["marine radio set".into()];
        let ents = known(&[a]);
        let close = Node::new("object:x", NodeKind::Event, "marine radios");
        let r = resolve(&close, 1, &ents, &p, &o);
        assert_eq!(r.id, "object:marine-radio", "close to the canonical name");
        let far = Node::new("object:y", NodeKind::Event, "marine radio sets");
        let r = resolve(&far, 1, &ents, &p, &o);
        assert_eq!(r.id, "object:y", "close only to a merged alias");
    }
}
