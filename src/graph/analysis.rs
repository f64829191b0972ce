//! Graph analysis with `petgraph`: long-range causal chains, cycles in the
//! causal subgraph (defects), connected components, pivotal mental states and
//! per-character timelines of mental states.

use std::collections::BTreeMap;

use petgraph::algo::{connected_components, kosaraju_scc, toposort};
use petgraph::graph::{DiGraph, NodeIndex};
use serde::{Deserialize, Serialize};

use crate::graph::schema::{EdgeFamily, EdgeKind, NodeKind};
use crate::graph::Graph;

/// A path through the causal subgraph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chain {
    /// Node ids in causal order.
    pub nodes: Vec<String>,
    /// How many of them are events.
    pub events: usize,
    /// Distinct scenes the chain spans, ascending.
    pub scenes: Vec<usize>,
}

/// A mental state ranked by its place in the graph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pivotal {
    /// Node id.
    pub id: String,
    /// In + out degree over all edges.
    pub degree: usize,
    /// Causal paths through it (paths into it × paths out of it).
    pub paths: u64,
}

/// One entry of a character's timeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimelineEntry {
    /// Story time (element index).
    pub order: usize,
    /// Mental-state id.
    pub id: String,
    /// Attitude.
    pub attitude: String,
}

/// The analysis of a graph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    /// The longest causal chains (most events first), at most 10, no two ending at the same node.
    pub chains: Vec<Chain>,
    /// Cycles in the causal subgraph: each a set of node ids (a defect).
    pub cycles: Vec<Vec<String>>,
    /// Weakly connected components of the whole graph.
    pub components: usize,
    /// Mental states by degree and by the causal paths through them, at most 10.
    pub pivotal: Vec<Pivotal>,
    /// Per character (id): mental states held, in story order.
    pub timelines: BTreeMap<String, Vec<TimelineEntry>>,
}

/// Analyses an assembled graph.
pub fn analyse(g: &Graph) -> Analysis {
    let mut dg: DiGraph<usize, EdgeKind> = DiGraph::new();
    let idx: BTreeMap<&str, NodeIndex> = g
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.id.as_str(), dg.add_node(i)))
        .collect();
    let mut causal: DiGraph<usize, ()> = DiGraph::new();
    for i in 0..g.nodes.len() {
        causal.add_node(i);
    }
    for e in &g.edges {
        let (Some(&s), Some(&t)) = (idx.get(e.source.as_str()), idx.get(e.target.as_str())) else {
            continue;
        };
        dg.add_edge(s, t, e.kind);
        if e.kind.family() == EdgeFamily::Causal {
            causal.add_edge(s, t, ());
        }
    }
    let components = connected_components(&dg);
    let mut cycles: Vec<Vec<String>> = kosaraju_scc(&causal)
        .into_iter()
        .filter(|scc| scc.len() > 1 || causal.contains_edge(scc[0], scc[0]))
        .map(|scc| {
            let mut ids: Vec<String> = scc.iter().map(|&i| g.nodes[causal[i]].id.clone()).collect();
            ids.sort();
            ids
        })
        .collect();
    cycles.sort();
    // Chains: longest paths by event count over the DAG (cycles removed by
    // dropping every edge inside a strongly connected component).
    let in_cycle: std::collections::BTreeSet<NodeIndex> = kosaraju_scc(&causal)
        .into_iter()
        .filter(|scc| scc.len() > 1)
        .flatten()
        .collect();
    let mut dag: DiGraph<usize, ()> = DiGraph::new();
    for i in 0..g.nodes.len() {
        dag.add_node(i);
    }
    for e in causal.edge_indices() {
        if let Some((s, t)) = causal.edge_endpoints(e) {
            if s != t && !(in_cycle.contains(&s) && in_cycle.contains(&t)) {
                dag.add_edge(s, t, ());
            }
        }
    }
    let is_event = |i: NodeIndex| u64::from(g.nodes[dag[i]].kind == NodeKind::Event);
    let order = toposort(&dag, None).unwrap_or_default();
    let n = g.nodes.len();
    let mut best = vec![0u64; n];
    let mut prev: Vec<Option<NodeIndex>> = vec![None; n];
    let mut paths_in = vec![1u64; n];
    for &v in &order {
        best[v.index()] += is_event(v);
        let mut preds: Vec<NodeIndex> = dag
            .neighbors_directed(v, petgraph::Direction::Incoming)
            .collect();
        preds.sort_by_key(|p| g.nodes[dag[*p]].id.clone());
        for p in preds {
            paths_in[v.index()] = paths_in[v.index()].saturating_add(paths_in[p.index()]);
            let cand = best[p.index()] + is_event(v);
            if cand > best[v.index()] {
                best[v.index()] = cand;
                prev[v.index()] = Some(p);
            }
        }
    }
    let mut paths_out = vec![1u64; n];
    for &v in order.iter().rev() {
        for s in dag.neighbors_directed(v, petgraph::Direction::Outgoing) {
            paths_out[v.index()] = paths_out[v.index()].saturating_add(paths_out[s.index()]);
        }
    }
    let mut ends: Vec<NodeIndex> = order.clone();
    ends.retain(|v| {
        dag.neighbors_directed(*v, petgraph::Direction::Outgoing)
            .count()
            == 0
    });
    ends.sort_by(|a, b| {
        best[b.index()]
            .cmp(&best[a.index()])
            .then_with(|| g.nodes[dag[*a]].id.cmp(&g.nodes[dag[*b]].id))
    });
    let chains = ends
        .into_iter()
        .filter(|v| best[v.index()] >= 2)
        .take(10)
        .map(|end| {
            let mut path = vec![end];
            while let Some(p) = prev[path[path.len() - 1].index()] {
                path.push(p);
            }
            path.reverse();
            let nodes: Vec<&crate::graph::Node> = path.iter().map(|&i| &g.nodes[dag[i]]).collect();
            let mut scenes: Vec<usize> = nodes.iter().filter_map(|n| n.scene).collect();
            scenes.sort();
            scenes.dedup();
            Chain {
                events: nodes.iter().filter(|n| n.kind == NodeKind::Event).count(),
                nodes: nodes.iter().map(|n| n.id.clone()).collect(),
                scenes,
            }
        })
        .collect();
    let mut pivotal: Vec<Pivotal> = g
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.kind == NodeKind::MentalState)
        .map(|(i, nd)| {
            let v = idx[nd.id.as_str()];
            Pivotal {
                id: nd.id.clone(),
                degree: dg.neighbors_undirected(v).count(),
                paths: if dag.neighbors_undirected(NodeIndex::new(i)).next().is_some() {
                    paths_in[i].saturating_mul(paths_out[i])
                } else {
                    0
                },
            }
        })
        .collect();
    pivotal.sort_by(|a, b| {
        (b.paths, b.degree)
            .cmp(&(a.paths, a.degree))
            .then_with(|| a.id.cmp(&b.id))
    });
    pivotal.truncate(10);
    let mut timelines: BTreeMap<String, Vec<TimelineEntry>> = BTreeMap::new();
    for e in g.edges.iter().filter(|e| e.kind == EdgeKind::Holds) {
        if let Some(ms) = g.node(&e.target) {
            timelines
                .entry(e.source.clone())
                .or_default()
                .push(TimelineEntry {
                    order: ms.order.unwrap_or(0),
                    id: ms.id.clone(),
                    attitude: ms
                        .attitude
                        .map(|a| a.as_str().to_owned())
                        .unwrap_or_default(),
                });
        }
    }
    for list in timelines.values_mut() {
        list.sort_by(|a, b| (a.order, &a.id).cmp(&(b.order, &b.id)));
    }
    Analysis {
        chains,
        cycles,
        components,
        pivotal,
        timelines,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::schema::{Edge, Node};

    fn ev(id: &str, order: usize, scene: usize) -> Node {
        let mut n = Node::new(id, NodeKind::Event, id);
        n.order = Some(order);
        n.scene = Some(scene);
        n
    }

    #[test]
    fn chains_cycles_and_components() {
        let nodes = vec![
            ev("a", 1, 0),
            ev("b", 2, 1),
            ev("c", 3, 2),
            ev("d", 4, 2),
            ev("x", 5, 3),
            ev("y", 6, 3),
        ];
        let edges = vec![
            Edge::new(EdgeKind::Causes, "a", "b"),
            Edge::new(EdgeKind::Causes, "b", "c"),
            Edge::new(EdgeKind::Enables, "c", "d"),
            Edge::new(EdgeKind::Causes, "x", "y"),
            Edge::new(EdgeKind::Causes, "y", "x"),
        ];
        let g = Graph {
            film: "t".into(),
            nodes,
            edges,
        };
        let a = analyse(&g);
        assert_eq!(a.chains[0].nodes, vec!["a", "b", "c", "d"]);
        assert_eq!(a.chains[0].events, 4);
        assert_eq!(a.chains[0].scenes, vec![0, 1, 2]);
        assert_eq!(a.cycles, vec![vec!["x".to_string(), "y".to_string()]]);
        assert_eq!(a.components, 2);
    }
}
