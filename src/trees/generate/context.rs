//! A question's context: the moments whose evidence the excerpt must hold
//! (the focus, the golds, the premise, a witness for each named character),
//! the graph ids it derives from, and their evidence places and keyframes.

use std::collections::BTreeSet;

use crate::graph::{EdgeKind, NodeKind};
use crate::trees::facts::{Ask, Facts};

use super::{focus_of, Spec};

/// The moment that shows `character` on screen nearest the question's focus:
/// in the focus's scene, closest in story order (for a character option's
/// context, so every named option is seen in the excerpt).
pub(super) fn witness(f: &Facts<'_>, character: usize, focus: &[usize]) -> Option<usize> {
    let at = *focus.first()?;
    let scene = f.node(at).scene?;
    f.moments
        .iter()
        .copied()
        .filter(|&m| f.node(m).scene == Some(scene) && f.people(m).contains(&character))
        .min_by_key(|&m| (f.order(m).abs_diff(f.order(at)), m))
}

/// Where a state ends: the first moment of the scene the graph ends it in
/// (`until_scene`) that involves its holder, else the scene's first moment.
pub(super) fn end_witness(f: &Facts<'_>, state: usize) -> Option<usize> {
    let end = f.node(state).until_scene?;
    let holder = f.holder(state);
    let in_scene = || {
        f.moments
            .iter()
            .copied()
            .filter(move |&m| m != state && f.node(m).scene == Some(end))
    };
    in_scene()
        .find(|&m| holder.is_some_and(|h| f.holder(m) == Some(h) || f.people(m).contains(&h)))
        .or_else(|| in_scene().next())
}

/// The moments whose evidence a question's context must hold, and the graph
/// ids it derives from (nodes, then the edges that connect them).
pub(super) fn evidence_of(
    f: &Facts<'_>,
    spec: &Spec,
    premise: Option<usize>,
) -> (Vec<usize>, Vec<String>) {
    let focus = focus_of(&spec.ask);
    let golds: Vec<usize> = spec.golds().filter_map(|c| c.node).collect();
    let mut shown: Vec<usize> = focus.clone();
    for &g in &golds {
        if f.node(g).kind != NodeKind::Character {
            shown.push(g);
        }
    }
    // What changed a state, or showed a belief false, is what such a
    // question asks the reader to have seen.
    if matches!(spec.ask, Ask::NoLonger { .. } | Ask::FalseBelief { .. }) {
        for &g in &golds {
            if let Some(w) = end_witness(f, g).filter(|w| !shown.contains(w)) {
                shown.push(w);
            }
        }
    }
    shown.extend(premise.filter(|&p| f.node(p).kind != NodeKind::Character));
    let mut ids: Vec<String> = focus.iter().map(|&i| f.node(i).id.clone()).collect();
    for &g in &golds {
        let id = &f.node(g).id;
        if !ids.contains(id) {
            ids.push(id.clone());
        }
    }
    let node_ids: BTreeSet<&str> = ids.iter().map(String::as_str).collect();
    let nodes: Vec<usize> = ids.iter().filter_map(|id| f.index_of(id)).collect();
    let wanted = |k: EdgeKind| match spec.ask {
        Ask::Cause { .. } | Ask::Effect { .. } | Ask::Origin { .. } => matches!(
            k,
            EdgeKind::Causes | EdgeKind::Enables | EdgeKind::Motivates | EdgeKind::Triggers
        ),
        Ask::Participants { .. } => k == EdgeKind::ParticipatesIn,
        Ask::Holder { .. }
        | Ask::MindBefore { .. }
        | Ask::KnowsAt { .. }
        | Ask::FalseBelief { .. }
        | Ask::NoLonger { .. } => k == EdgeKind::Holds,
        Ask::Order { .. } => false,
    };
    let mut edges: Vec<String> = nodes
        .iter()
        .flat_map(|&i| f.edges_from(i))
        .filter(|e| {
            wanted(e.kind)
                && node_ids.contains(e.source.as_str())
                && node_ids.contains(e.target.as_str())
        })
        .map(|e| e.id.clone())
        .collect();
    edges.sort();
    edges.dedup();
    ids.extend(edges);
    (shown, ids)
}

/// (block, element) evidence places and evidence keyframes of these nodes.
pub(super) fn places(f: &Facts<'_>, nodes: &[usize]) -> (BTreeSet<(usize, usize)>, Vec<String>) {
    let mut places = BTreeSet::new();
    let mut frames = Vec::new();
    for &n in nodes {
        for ev in &f.node(n).evidence {
            places.insert((ev.block, ev.element));
            for k in &ev.keyframes {
                if !frames.contains(k) {
                    frames.push(k.clone());
                }
            }
        }
    }
    (places, frames)
}
