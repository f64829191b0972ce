//! Anchors: the long causal chains and pivotal mental states trees are built
//! around, alternated and spread over the film's scenes.

use std::collections::BTreeSet;

use crate::graph::analysis::Analysis;
use crate::graph::NodeKind;
use crate::trees::facts::Facts;
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

/// Reorders items round-robin over their scenes, keeping order within a scene.
fn spread<T>(items: Vec<T>, scene: impl Fn(&T) -> usize) -> Vec<T> {
    let mut by: std::collections::BTreeMap<usize, std::collections::VecDeque<T>> =
        Default::default();
    for item in items {
        by.entry(scene(&item)).or_default().push_back(item);
    }
    let mut out = Vec::new();
    while by.values().any(|q| !q.is_empty()) {
        for q in by.values_mut() {
            out.extend(q.pop_front());
        }
    }
    out
}
