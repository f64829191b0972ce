//! Anchors: the long causal chains and pivotal mental states trees are built
//! around, alternated and spread over the film's scenes.

use std::collections::BTreeSet;

use crate::graph::analysis::Analysis;
use crate::graph::NodeKind;
use crate::trees::facts::{Ask, Facts};
use crate::trees::schema::AnchorKind;

/// Anchors: long causal chains and pivotal mental states, alternated and
/// spread over the film (round-robin over scenes).
pub fn anchors(facts: &Facts<'_>, analysis: &Analysis) -> Vec<(AnchorKind, Vec<usize>)> {
    let mut chains: Vec<Vec<usize>> = Vec::new();
    let mut ends = BTreeSet::new();
    for chain in &analysis.chains {
        let nodes: Vec<usize> = chain
            .nodes
            .iter()
            .filter_map(|id| facts.index_of(id))
            .collect();
        if let Some(&end) = nodes.last() {
            if nodes.len() >= 3 && ends.insert(end) {
                chains.push(nodes);
            }
        }
    }
    for &m in &facts.moments {
        if facts.node(m).kind != NodeKind::Event || ends.contains(&m) {
            continue;
        }
        let chain = longest_back(facts, m);
        if chain.len() >= 3 {
            ends.insert(m);
            chains.push(chain);
        }
    }
    let mut states: Vec<usize> = Vec::new();
    for p in &analysis.pivotal {
        if let Some(i) = facts.index_of(&p.id) {
            states.push(i);
        }
    }
    let mut rest: Vec<usize> = facts
        .moments
        .iter()
        .copied()
        .filter(|&m| {
            facts.node(m).kind == NodeKind::MentalState
                && facts.holder(m).is_some()
                && !states.contains(&m)
        })
        .collect();
    rest.sort_by_key(|&m| {
        (
            facts.causes(m).is_empty() && facts.effects(m).is_empty(),
            facts.order(m),
        )
    });
    states.extend(rest);
    let scene = |i: usize| facts.node(i).scene.unwrap_or(usize::MAX);
    let chains = spread(chains, |c| scene(*c.last().expect("non-empty")));
    let states = spread(states.into_iter().map(|m| vec![m]).collect(), |c| {
        scene(c[0])
    });
    let mut out = Vec::new();
    let (mut a, mut b) = (chains.into_iter(), states.into_iter());
    loop {
        let x = a.next();
        let y = b.next();
        if x.is_none() && y.is_none() {
            break;
        }
        out.extend(x.map(|c| (AnchorKind::CausalChain, c)));
        out.extend(y.map(|c| (AnchorKind::MentalState, c)));
    }
    out
}

/// The longest causal path ending at `end` (ties: the earlier cause).
fn longest_back(facts: &Facts<'_>, end: usize) -> Vec<usize> {
    let mut path = vec![end];
    let mut seen = BTreeSet::from([end]);
    let mut v = end;
    while let Some(&p) = facts
        .causes(v)
        .iter()
        .filter(|p| !seen.contains(*p))
        .max_by_key(|&&p| (facts.ancestors(p).len(), std::cmp::Reverse(facts.order(p))))
    {
        seen.insert(p);
        path.push(p);
        v = p;
    }
    path.reverse();
    path
}

/// Reorders items round-robin over their scenes, keeping order within a
/// scene; each round visits the scenes in a low-discrepancy order (0, ½, ¼,
/// ¾… of the film), so any prefix of the anchors spans the whole film.
fn spread<T>(items: Vec<T>, scene: impl Fn(&T) -> usize) -> Vec<T> {
    let mut by: std::collections::BTreeMap<usize, std::collections::VecDeque<T>> =
        Default::default();
    for item in items {
        by.entry(scene(&item)).or_default().push_back(item);
    }
    let mut queues: Vec<std::collections::VecDeque<T>> = by.into_values().collect();
    let mut visit: Vec<usize> = (0..queues.len()).collect();
    visit.sort_by_key(|&r| (radical_inverse(r as u32), r));
    let mut out = Vec::new();
    while queues.iter().any(|q| !q.is_empty()) {
        for &k in &visit {
            out.extend(queues[k].pop_front());
        }
    }
    out
}

/// The base-2 radical inverse of `i` (its bits mirrored), as an ordering key.
fn radical_inverse(i: u32) -> u32 {
    i.reverse_bits()
}

/// The questions that may open a tree on this anchor, the most telling
/// first: a chain asks where it began, else what caused its end; a state of
/// mind asks what caused it, what it led to, or who holds it.
pub(super) fn root_asks(facts: &Facts<'_>, kind: AnchorKind, elements: &[usize]) -> Vec<Ask> {
    match kind {
        AnchorKind::CausalChain => {
            let end = *elements.last().expect("chains are non-empty");
            vec![Ask::Origin { end }, Ask::Cause { target: end }]
        }
        AnchorKind::MentalState => {
            let m = elements[0];
            let mut asks = Vec::new();
            if !facts.causes(m).is_empty() {
                asks.push(Ask::Cause { target: m });
            }
            if !facts.effects(m).is_empty() {
                asks.push(Ask::Effect { source: m });
            }
            asks.push(Ask::Holder { state: m });
            asks
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_prefix_of_the_spread_spans_the_film() {
        let items: Vec<usize> = (0..40).collect();
        let out = spread(items, |&i| i / 2);
        let first: Vec<usize> = out[..4].iter().map(|i| i / 2).collect();
        assert_eq!(first, [0, 16, 8, 4]);
        assert_eq!(out.len(), 40);
    }
}
