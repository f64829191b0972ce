//! Explore mode: browsing any branch of a tree with its gold answers, why each
//! distractor is wrong, and the graph elements behind each node. Shared by the
//! terminal and web walkers, which only lay it out.

use crate::trees::schema::{DistractorReason, Format, Node, Tree, Trigger};

/// Why a distractor with this reason is wrong, in words (DESIGN.md §3).
pub fn reason_text(reason: DistractorReason) -> &'static str {
    match reason {
        DistractorReason::NotTheCause => "a real event of the film, but not the cause",
        DistractorReason::EffectForCause => "the effect mistaken for the cause",
        DistractorReason::OtherCharacter => "another character's mental state",
        DistractorReason::LaterEvent => "an event that happens later (anachronism)",
        DistractorReason::UnsupportedMotive => "a plausible motive the film does not support",
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
