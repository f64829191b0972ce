//! Synthetic verified graphs for `moviegraph bench trees`: feature-film sized
//! (hundreds of events and mental states, causal chains across scenes),
//! deterministic from a seed. Their texts are plain sentences drawn from
//! small vocabularies, each distinct within a film and none telling its
//! place in story time (a text like "… (moment 144)" would give every
//! question about order away), so trees made from them are well formed and
//! can be audited, though not meant to be read as a story.

use crate::graph::{Act, Attitude, Edge, EdgeKind, Evidence, Graph, Node, NodeKind};

const NAMES: [&str; 8] = [
    "Alma", "Bruno", "Cleo", "Dario", "Edith", "Felix", "Greta", "Hugo",
];
const VERBS: [&str; 10] = [
    "hides the letter",
    "calls the bank",
    "breaks the lock",
    "sells the car",
    "burns the photo",
    "follows the courier",
    "signs the lease",
    "opens the vault",
    "misses the train",
    "pawns the watch",
];
const PLACES: [&str; 10] = [
    "at the pier",
    "in the cellar",
    "by the station",
    "on the roof",
    "in the rain",
    "at the office",
    "behind the bar",
    "near the docks",
    "in the hallway",
    "at the market",
];
/// How the other character is there (`{}`: their name).
const WITNESS: [&str; 5] = [
    "while {} watches",
    "with {}",
    "as {} looks on",
    "before {} arrives",
    "behind {}'s back",
];
const OBJECTS: [&str; 8] = [
    "letter", "money", "car", "photo", "watch", "key", "ledger", "ring",
];
/// States of mind (`{o}`: another character, `{x}`: an object).
const STATES: [(Attitude, &str); 15] = [
    (Attitude::Belief, "believes {o} lied about the {x}"),
    (Attitude::Belief, "believes the deal is off"),
    (Attitude::Belief, "believes the {x} is gone"),
    (Attitude::Desire, "wants the {x} back"),
    (Attitude::Desire, "wants {o} to leave town"),
    (Attitude::Desire, "wishes {o} had kept the {x}"),
    (Attitude::Emotion, "feels betrayed by {o}"),
    (Attitude::Emotion, "is afraid of {o}"),
    (Attitude::Emotion, "feels guilty about the {x}"),
    (Attitude::Intention, "means to leave at dawn"),
    (Attitude::Intention, "plans to take the {x}"),
    (Attitude::Intention, "means to warn {o}"),
    (Attitude::Suspicion, "suspects {o} of taking the {x}"),
    (Attitude::Suspicion, "suspects a trap"),
    (Attitude::Suspicion, "suspects {o} knows about the {x}"),
];

/// Draws texts until one is new to the film (a few tries; then the last).
fn distinct(
    used: &mut std::collections::HashSet<String>,
    mut draw: impl FnMut() -> String,
) -> String {
    let mut text = draw();
    for _ in 0..16 {
        if !used.contains(&text) {
            break;
        }
        text = draw();
    }
    used.insert(text.clone());
    text
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One synthetic film graph: `scenes` scenes of about eight events each.
pub fn film(seed: u64, scenes: usize) -> Graph {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let film = format!("synthetic-{seed:03}");
    let cast = 5 + rng.below(4);
    let mut nodes = Vec::new();
    let mut edges = Vec::new();
    let chars: Vec<String> = NAMES[..cast]
        .iter()
        .map(|n| format!("character:{}", n.to_lowercase()))
        .collect();
    for (i, id) in chars.iter().enumerate() {
        nodes.push(Node::new(id.clone(), NodeKind::Character, NAMES[i]));
    }
    let mut events: Vec<String> = Vec::new();
    let mut used = std::collections::HashSet::new();
    let mut order = 0;
    for scene in 0..scenes {
        for k in 0..8 {
            order += 3;
            let agent = rng.below(cast);
            let other = (agent + 1 + rng.below(cast - 1)) % cast;
            let id = format!("event:e{order:05}-{k}");
            let text = distinct(&mut used, || {
                let verb = VERBS[rng.below(VERBS.len())];
                let place = PLACES[rng.below(PLACES.len())];
                let witness = WITNESS[rng.below(WITNESS.len())].replace("{}", NAMES[other]);
                format!("{} {verb} {place} {witness}", NAMES[agent])
            });
            let mut n = Node::new(id.clone(), NodeKind::Event, text.clone());
            n.agent = Some(chars[agent].clone());
            n.participants = vec![chars[agent].clone(), chars[other].clone()];
            n.act = Some(Act::Action);
            n.order = Some(order);
            n.scene = Some(scene);
            n.blocks = vec![scene];
            n.evidence = vec![Evidence {
                block: scene,
                element: order,
                start: 0,
                end: text.chars().count(),
                quote: text,
                keyframes: vec![format!("keyframes/{film}/shot_{scene:04}_img_{k}.jpg")],
            }];
            nodes.push(n);
            for c in [agent, other] {
                let mut e = Edge::new(EdgeKind::ParticipatesIn, &chars[c], &id);
                e.blocks = vec![scene];
                edges.push(e);
            }
            if events.len() > 2 && rng.below(10) < 6 {
                let back = 1 + rng.below(events.len().min(40));
                let cause = &events[events.len() - back];
                edges.push(Edge::new(EdgeKind::Causes, cause, &id));
            }
            if rng.below(3) == 0 {
                let (attitude, _) = STATES[rng.below(STATES.len())];
                let holder = rng.below(cast);
                let ms = format!("mental_state:e{:05}-{k}-{}", order + 1, attitude.as_str());
                let text = distinct(&mut used, || {
                    let of_kind: Vec<&str> = STATES
                        .iter()
                        .filter(|(a, _)| *a == attitude)
                        .map(|(_, w)| *w)
                        .collect();
                    let what = of_kind[rng.below(of_kind.len())];
                    let o = (holder + 1 + rng.below(cast - 1)) % cast;
                    let what = what
                        .replace("{o}", NAMES[o])
                        .replace("{x}", OBJECTS[rng.below(OBJECTS.len())]);
                    format!("{} {what}", NAMES[holder])
                });
                let mut m = Node::new(ms.clone(), NodeKind::MentalState, text.clone());
                m.attitude = Some(attitude);
                m.holder = Some(chars[holder].clone());
                m.order = Some(order + 1);
                m.scene = Some(scene);
                m.blocks = vec![scene];
                m.evidence = vec![Evidence {
                    block: scene,
                    element: order + 1,
                    start: 0,
                    end: text.chars().count(),
                    quote: text,
                    keyframes: Vec::new(),
                }];
                nodes.push(m);
                edges.push(Edge::new(EdgeKind::Holds, &chars[holder], &ms));
                edges.push(Edge::new(EdgeKind::Triggers, &id, &ms));
                pending_motive(&mut edges, &ms, order, &mut rng);
            }
            events.push(id);
        }
    }
    // Motivations point from a mental state to an event a little later.
    let later: Vec<(String, usize)> = edges
        .iter()
        .filter(|e| e.kind == EdgeKind::Motivates && e.target.is_empty())
        .map(|e| (e.source.clone(), e.blocks[0]))
        .collect();
    edges.retain(|e| !(e.kind == EdgeKind::Motivates && e.target.is_empty()));
    for (ms, at) in later {
        if let Some(target) = events
            .iter()
            .find(|id| id[7..12].parse::<usize>().is_ok_and(|o| o > at + 6))
        {
            edges.push(Edge::new(EdgeKind::Motivates, &ms, target));
        }
    }
    nodes.sort_by(|a, b| a.id.cmp(&b.id));
    edges.sort_by(|a, b| a.id.cmp(&b.id));
    edges.dedup_by(|a, b| a.id == b.id);
    Graph { film, nodes, edges }
}

/// Marks a mental state to motivate a later event (resolved once events exist).
fn pending_motive(edges: &mut Vec<Edge>, ms: &str, order: usize, rng: &mut Rng) {
    if rng.below(2) == 0 {
        let mut e = Edge::new(EdgeKind::Motivates, ms, "");
        e.blocks = vec![order];
        edges.push(e);
    }
}

/// The benchmark corpus: `films` synthetic films.
pub fn corpus(films: usize, scenes: usize) -> Vec<Graph> {
    (1..=films as u64).map(|s| film(s, scenes)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_are_distinct_and_do_not_tell_story_time() {
        let g = film(3, 40);
        let texts: Vec<&str> = g
            .nodes
            .iter()
            .filter(|n| n.kind != NodeKind::Character)
            .map(|n| n.name.as_str())
            .collect();
        assert!(texts.len() > 300);
        assert!(texts.iter().all(|t| !t.chars().any(|c| c.is_ascii_digit())));
        let distinct: std::collections::HashSet<&&str> = texts.iter().collect();
        assert!(
            distinct.len() * 100 >= texts.len() * 99,
            "{} of {}",
            distinct.len(),
            texts.len()
        );
    }
}
