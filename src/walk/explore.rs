//! Explore mode: browsing any branch of a tree with its gold answers, why each
//! distractor is wrong, and the graph elements behind each node. Shared by the
//! terminal and web walkers, which only lay it out.

use std::collections::HashMap;
use std::path::Path;

use crate::trees::schema::{DistractorReason, Format, Node, Tree, Trigger};

/// Graph elements in words for explore mode: each node's name, kind and
/// first quote, each edge as "source kind target", read from the films'
/// exported graphs (`graphs/<film>.json` beside the trees' folder, as `run`
/// writes them). An element the graphs do not hold is shown by its id.
#[derive(Debug, Clone, Default)]
pub struct GraphLabels {
    labels: HashMap<String, String>,
}

impl GraphLabels {
    /// The labels of one exported graph (`moviegraph.graph` JSON).
    pub fn from_export(text: &str) -> Result<GraphLabels, serde_json::Error> {
        let mut out = GraphLabels::default();
        out.add_export(text)?;
        Ok(out)
    }

    fn add_export(&mut self, text: &str) -> Result<(), serde_json::Error> {
        let v: serde_json::Value = serde_json::from_str(text)?;
        let empty = Vec::new();
        let mut names: HashMap<&str, &str> = HashMap::new();
        let nodes = v["nodes"].as_array().unwrap_or(&empty);
        for n in nodes {
            if let (Some(id), Some(name)) = (n["id"].as_str(), n["name"].as_str()) {
                names.insert(id, name);
            }
        }
        for n in nodes {
            let (Some(id), Some(name)) = (n["id"].as_str(), n["name"].as_str()) else {
                continue;
            };
            let kind = n["kind"].as_str().unwrap_or("element").replace('_', " ");
            let quote = n["evidence"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|e| e["quote"].as_str())
                .find(|q| q.len() > 12 && !name.to_lowercase().contains(&q.to_lowercase()));
            let label = match quote {
                Some(q) => format!("{name} ({kind}) — “{q}”"),
                None => format!("{name} ({kind})"),
            };
            self.labels.insert(id.to_owned(), label);
        }
        for e in v["edges"].as_array().unwrap_or(&empty) {
            let (Some(id), Some(kind)) = (e["id"].as_str(), e["kind"].as_str()) else {
                continue;
            };
            let end = |key: &str| {
                let id = e[key].as_str().unwrap_or("?");
                names.get(id).copied().unwrap_or(id).to_owned()
            };
            let label = format!(
                "{} {} {}",
                end("source"),
                kind.replace('_', " "),
                end("target")
            );
            self.labels.insert(id.to_owned(), label);
        }
        Ok(())
    }

    /// The labels of the graphs of `trees`' films, found beside the trees
    /// files: `<trees folder>/../graphs/<film>.json`. A missing or unreadable
    /// graph leaves its elements as ids.
    pub fn beside(trees_files: &[impl AsRef<Path>], trees: &[Tree]) -> GraphLabels {
        let mut out = GraphLabels::default();
        let mut films: Vec<&str> = trees.iter().map(|t| t.film.as_str()).collect();
        films.sort_unstable();
        films.dedup();
        for file in trees_files {
            let Some(folder) = file.as_ref().parent() else {
                continue;
            };
            let graphs = folder.join("..").join("graphs");
            for film in &films {
                if let Ok(text) = std::fs::read_to_string(graphs.join(format!("{film}.json"))) {
                    let _ = out.add_export(&text);
                }
            }
        }
        out
    }

    /// A tree's anchor in words: its elements, in order, joined by arrows.
    pub fn describe_anchor(&self, tree: &Tree) -> String {
        let parts: Vec<&str> = tree
            .anchor
            .elements
            .iter()
            .map(|id| self.describe(id))
            .collect();
        parts.join(" → ")
    }

    /// The element in words, or its id when no graph names it.
    pub fn describe<'a>(&'a self, id: &'a str) -> &'a str {
        self.labels.get(id).map_or(id, String::as_str)
    }
}

/// Why a distractor with this reason is wrong, in words (docs/trees-format.md).
pub fn reason_text(reason: DistractorReason) -> &'static str {
    match reason {
        DistractorReason::NotTheCause => "a real event of the film, but not the cause",
        DistractorReason::EffectForCause => "the effect mistaken for the cause",
        DistractorReason::OtherCharacter => "another character's mental state",
        DistractorReason::LaterEvent => "an event that happens later (anachronism)",
        DistractorReason::UnsupportedMotive => "a plausible motive the film does not support",
        DistractorReason::TrueBelief => "held, but true: the holder is right about it",
        DistractorReason::NotKnown => "something the holder does not know",
        DistractorReason::Mistaken => "believed, but false: believed, not known",
        DistractorReason::StillHeld => "still held at that point: it has not changed",
    }
}

/// How a child is reached from its parent, in words.
pub fn trigger_text(trigger: &Trigger) -> String {
    match trigger {
        Trigger::Option { label } => format!("option {label}"),
        Trigger::OpenCorrect => "a correct answer".into(),
        Trigger::OpenIncorrect => "an incorrect answer".into(),
    }
}

/// The nodes from the root down to `node_id` (empty when the node is missing or the
/// parent links loop).
pub fn path_to<'a>(tree: &'a Tree, node_id: &str) -> Vec<&'a Node> {
    let mut path = Vec::new();
    let mut current = tree.node(node_id);
    while let Some(node) = current {
        if path.len() > tree.nodes.len() {
            return Vec::new();
        }
        path.push(node);
        current = node.parent.as_deref().and_then(|p| tree.node(p));
    }
    path.reverse();
    path
}

/// The child a key leads to in explore mode: an option's letter for choice questions,
/// `c` (correct branch) or `i` (incorrect branch) for open ones.
pub fn child_for_key(node: &Node, key: char) -> Option<&str> {
    match node.format {
        Format::Open => match key.to_ascii_lowercase() {
            'c' => node.open_branches.correct.as_deref(),
            'i' => node.open_branches.incorrect.as_deref(),
            _ => None,
        },
        Format::Single | Format::Multi => {
            let label = key.to_ascii_uppercase().to_string();
            node.option(&label).and_then(|o| o.child.as_deref())
        }
    }
}

/// The gold answer of a node in words: the correct labels, or the reference.
pub fn gold_text(node: &Node) -> String {
    match node.format {
        Format::Open => node.reference.clone().unwrap_or_else(|| "(none)".into()),
        Format::Single | Format::Multi => node.correct_labels().join(", "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::synth::synthetic_trees;

    #[test]
    fn paths_and_children_follow_the_tree() {
        let trees = synthetic_trees(3);
        for tree in &trees {
            for node in &tree.nodes {
                let path = path_to(tree, &node.id);
                assert_eq!(
                    path.first().map(|n| n.id.as_str()),
                    Some(tree.nodes[0].id.as_str())
                );
                assert_eq!(path.last().map(|n| n.id.as_str()), Some(node.id.as_str()));
                assert_eq!(path.len() as u32, node.depth);
                for child in node.children() {
                    let key = match tree.node(child).and_then(|c| c.trigger.clone()) {
                        Some(Trigger::Option { label }) => label.chars().next().unwrap(),
                        Some(Trigger::OpenCorrect) => 'c',
                        Some(Trigger::OpenIncorrect) => 'i',
                        None => panic!("a child without trigger"),
                    };
                    assert_eq!(child_for_key(node, key), Some(child));
                }
            }
        }
        assert!(path_to(&trees[0], "missing").is_empty());
    }
}

#[cfg(test)]
mod graph_label_tests {
    use super::GraphLabels;

    #[test]
    fn elements_read_as_names_and_quotes_and_unknown_ones_as_ids() {
        let graph = r#"{"format":"moviegraph.graph","nodes":[
            {"id":"character:quinton","kind":"character","name":"Quinton Ellis","evidence":[{"quote":"QUINTON"}]},
            {"id":"mental_state:m1","kind":"mental_state","name":"Quinton lies to Teo","evidence":[{"quote":"(lying)"},{"quote":"Old charts. Bills. Nothing."}]}
          ],"edges":[
            {"id":"holds:character:quinton->mental_state:m1","kind":"holds","source":"character:quinton","target":"mental_state:m1"}
          ]}"#;
        let labels = GraphLabels::from_export(graph).unwrap();
        assert_eq!(
            labels.describe("character:quinton"),
            "Quinton Ellis (character)"
        );
        assert_eq!(
            labels.describe("mental_state:m1"),
            "Quinton lies to Teo (mental state) — “Old charts. Bills. Nothing.”"
        );
        assert_eq!(
            labels.describe("holds:character:quinton->mental_state:m1"),
            "Quinton Ellis holds Quinton lies to Teo"
        );
        assert_eq!(labels.describe("event:unknown"), "event:unknown");
    }
}
