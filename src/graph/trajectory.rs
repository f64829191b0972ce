//! Per-character mental-state trajectories: for each main character, the
//! mental states they hold scene by scene (from the graph's `holds` edges and
//! each state's scene), by family — belief (B: belief, knowledge, suspicion),
//! desire (D: desire, social goal), intention (I), emotion (E) and pretense
//! (P). The view the mental-state-trajectory benchmarks report; `graph
//! stats` prints it and the report draws it.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use super::schema::{EdgeKind, NodeKind};
use super::Graph;

/// How many characters `graph stats` and the report show: the main ones.
pub const TRAJECTORY_CHARACTERS: usize = 6;

/// The families in the order cells list them, with their letters.
pub const FAMILIES: [(&str, char); 5] = [
    ("belief", 'B'),
    ("desire", 'D'),
    ("intention", 'I'),
    ("emotion", 'E'),
    ("pretense", 'P'),
];

/// One character's states per scene.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Trajectory {
    /// The character's node id.
    pub id: String,
    /// The character's name.
    pub name: String,
    /// Mental states held in all.
    pub states: usize,
    /// Per scene (index 0 = the first scene): states held there per family,
    /// in [`FAMILIES`] order.
    pub scenes: Vec<[usize; 5]>,
}

/// The trajectories of a graph's main characters.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Trajectories {
    /// Scenes on the time axis (the highest scene holding a state, plus one).
    pub scene_count: usize,
    /// Characters holding the most states first (ties by name), at most the
    /// number asked for.
    pub characters: Vec<Trajectory>,
}

/// The trajectories of the `max` characters holding the most mental states.
/// A state without a scene is left out of the cells but counted in `states`.
pub fn trajectories(g: &Graph, max: usize) -> Trajectories {
    let mut per: BTreeMap<&str, (usize, BTreeMap<usize, [usize; 5]>)> = BTreeMap::new();
    let mut scene_count = 0;
    for e in g.edges.iter().filter(|e| e.kind == EdgeKind::Holds) {
        let Some(state) = g.node(&e.target) else {
            continue;
        };
        let entry = per.entry(e.source.as_str()).or_default();
        entry.0 += 1;
        let (Some(scene), Some(attitude)) = (state.scene, state.attitude) else {
            continue;
        };
        let family = attitude.family();
        if let Some(k) = FAMILIES.iter().position(|(f, _)| *f == family) {
            entry.1.entry(scene).or_insert([0; 5])[k] += 1;
            scene_count = scene_count.max(scene + 1);
        }
    }
    let mut characters: Vec<Trajectory> = per
        .into_iter()
        .filter_map(|(id, (states, by_scene))| {
            let node = g.node(id).filter(|n| n.kind == NodeKind::Character)?;
            let mut scenes = vec![[0usize; 5]; scene_count];
            for (s, counts) in by_scene {
                scenes[s] = counts;
            }
            Some(Trajectory {
                id: id.to_owned(),
                name: node.name.clone(),
                states,
                scenes,
            })
        })
        .collect();
    characters.sort_by(|a, b| b.states.cmp(&a.states).then_with(|| a.name.cmp(&b.name)));
    characters.truncate(max);
    Trajectories {
        scene_count,
        characters,
    }
}

/// A cell in letters: each family held, its letter, with a count above one
/// (`B2E`); `·` for a scene without states.
pub fn cell_text(counts: &[usize; 5]) -> String {
    let mut out = String::new();
    for (k, (_, letter)) in FAMILIES.iter().enumerate() {
        match counts[k] {
            0 => {}
            1 => out.push(*letter),
            n => {
                let _ = write!(out, "{letter}{n}");
            }
        }
    }
    if out.is_empty() {
        out.push('·');
    }
    out
}

/// The trajectories as a text table: a row per character, a column per scene.
pub fn render_text(t: &Trajectories) -> String {
    let mut out = String::new();
    if t.characters.is_empty() {
        out.push_str("mental-state trajectories: no character holds a mental state\n");
        return out;
    }
    let _ = writeln!(
        out,
        "mental-state trajectories (states held per scene; B belief, D desire, I intention, E emotion, P pretense):"
    );
    let name_width = t
        .characters
        .iter()
        .map(|c| c.name.chars().count())
        .max()
        .unwrap_or(0)
        .clamp(9, 24);
    let cells: Vec<Vec<String>> = t
        .characters
        .iter()
        .map(|c| c.scenes.iter().map(cell_text).collect())
        .collect();
    let width: Vec<usize> = (0..t.scene_count)
        .map(|s| {
            cells
                .iter()
                .map(|row| row[s].chars().count())
                .chain(std::iter::once((s + 1).to_string().len()))
                .max()
                .unwrap_or(1)
        })
        .collect();
    let _ = write!(out, "  {:<name_width$} {:>6}", "character", "states");
    for (s, w) in width.iter().enumerate() {
        let _ = write!(out, " {:>w$}", s + 1);
    }
    out.push('\n');
    for (c, row) in t.characters.iter().zip(&cells) {
        let name: String = c.name.chars().take(name_width).collect();
        let _ = write!(out, "  {name:<name_width$} {:>6}", c.states);
        for (cell, w) in row.iter().zip(&width) {
            let _ = write!(out, " {cell:>w$}");
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::schema::{Attitude, Edge, Node};

    fn state(id: &str, attitude: Attitude, scene: Option<usize>) -> Node {
        let mut n = Node::new(id, NodeKind::MentalState, id);
        n.attitude = Some(attitude);
        n.scene = scene;
        n
    }

    #[test]
    fn states_are_counted_per_scene_and_family_for_the_busiest_characters() {
        let nodes = vec![
            Node::new("character:mara", NodeKind::Character, "Mara"),
            Node::new("character:teo", NodeKind::Character, "Teo"),
            Node::new("character:june", NodeKind::Character, "June"),
            state("m1", Attitude::Belief, Some(0)),
            state("m2", Attitude::Suspicion, Some(0)),
            state("m3", Attitude::Emotion, Some(2)),
            state("m4", Attitude::Desire, None),
            state("t1", Attitude::Pretense, Some(1)),
            state("j1", Attitude::Intention, Some(1)),
        ];
        let holds = |c: &str, m: &str| Edge::new(EdgeKind::Holds, c, m);
        let edges = vec![
            holds("character:mara", "m1"),
            holds("character:mara", "m2"),
            holds("character:mara", "m3"),
            holds("character:mara", "m4"),
            holds("character:teo", "t1"),
            holds("character:june", "j1"),
        ];
        let mut nodes = nodes;
        // An assembled graph keeps its nodes sorted by id.
        nodes.sort_by(|a, b| a.id.cmp(&b.id));
        let g = Graph {
            film: "t".into(),
            nodes,
            edges,
        };
        let t = trajectories(&g, 2);
        assert_eq!(t.scene_count, 3);
        let names: Vec<&str> = t.characters.iter().map(|c| c.name.as_str()).collect();
        // Mara holds four; June and Teo one each, June first by name.
        assert_eq!(names, ["Mara", "June"]);
        let mara = &t.characters[0];
        assert_eq!(mara.states, 4, "the state without a scene still counts");
        assert_eq!(
            mara.scenes[0],
            [2, 0, 0, 0, 0],
            "belief and suspicion are beliefs"
        );
        assert_eq!(mara.scenes[1], [0; 5]);
        assert_eq!(mara.scenes[2], [0, 0, 0, 1, 0]);
        let cells: Vec<String> = mara.scenes.iter().map(cell_text).collect();
        assert_eq!(cells, ["B2", "·", "E"]);
        let text = render_text(&t);
        assert!(text.contains("Mara"), "{text}");
        assert!(
            text.lines().nth(2).unwrap().trim_end().ends_with("B2 · E"),
            "{text}"
        );
    }
}
