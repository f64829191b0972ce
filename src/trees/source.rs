//! What a question may show: script lines and keyframes per block. A node's
//! context is cut from here around the evidence of the graph elements it
//! derives from, so the answer is in what the subject sees (never the graph).

use std::collections::{BTreeMap, BTreeSet};

use crate::align::Block;
use crate::graph::Graph;
use crate::screenplay::{ElementKind, Screenplay};

use super::schema::Context;
use super::validate::MAX_KEYFRAMES;

/// One block's shown material.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SourceBlock {
    /// (element index, the line as shown), in script order.
    pub lines: Vec<(usize, String)>,
    /// Keyframe paths, representatives first.
    pub keyframes: Vec<String>,
}

/// The shown material of a film, by block id.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Source {
    /// Blocks by id.
    pub blocks: BTreeMap<usize, SourceBlock>,
}

/// Script lines shown on each side of an evidence element.
const WINDOW: usize = 2;

impl Source {
    /// The film's screenplay cut into its aligned blocks. Only what the film
    /// contains is shown: a block with no timed subtitle cue (`start_ms` is
    /// `None`: a cut scene, or a script that is not the film's) is left out,
    /// so no context can be cut from it — unless `text_only`, where the
    /// script alone is the source and every block is kept.
    pub fn from_play(play: &Screenplay, blocks: &[Block], text_only: bool) -> Source {
        let mut out = Source::default();
        for block in blocks.iter().filter(|b| text_only || b.start_ms.is_some()) {
            let [first, last] = block.elements;
            let mut sb = SourceBlock::default();
            for i in first..=last.min(play.elements.len().saturating_sub(1)) {
                let Some(el) = play.elements.get(i) else {
                    break;
                };
                let shown = match el.kind {
                    ElementKind::SceneHeading
                    | ElementKind::Action
                    | ElementKind::Character
                    | ElementKind::Dialogue
                    | ElementKind::Parenthetical
                    | ElementKind::Shot
                    | ElementKind::Lyric
                    | ElementKind::Centered => el.text.trim(),
                    _ => "",
                };
                if !shown.is_empty() {
                    sb.lines.push((i, shown.to_owned()));
                }
            }
            let mut frames: Vec<String> = block
                .keyframes
                .iter()
                .filter(|k| k.representative)
                .map(|k| clean_path(&k.path))
                .collect();
            frames.extend(
                block
                    .keyframes
                    .iter()
                    .filter(|k| !k.representative)
                    .map(|k| clean_path(&k.path)),
            );
            sb.keyframes = frames;
            out.blocks.insert(block.id, sb);
        }
        out
    }

    /// Rewrites keyframe paths under `root` relative to it, so a tree file
    /// names keyframes relative to the workspace whatever path the command got.
    pub fn relative_to(&mut self, root: &std::path::Path) {
        for sb in self.blocks.values_mut() {
            for k in &mut sb.keyframes {
                if let Ok(rel) = std::path::Path::new(k.as_str()).strip_prefix(root) {
                    *k = rel.to_string_lossy().into_owned();
                }
            }
        }
    }

    /// A source made of the graph's own evidence quotes (for graphs without a
    /// screenplay at hand, such as the synthetic benchmark corpus).
    pub fn from_evidence(graph: &Graph) -> Source {
        let mut out = Source::default();
        let mut seen = BTreeSet::new();
        for ev in graph
            .nodes
            .iter()
            .flat_map(|n| &n.evidence)
            .chain(graph.edges.iter().flat_map(|e| &e.evidence))
        {
            if !seen.insert((ev.block, ev.element)) {
                continue;
            }
            let sb = out.blocks.entry(ev.block).or_default();
            sb.lines.push((ev.element, ev.quote.clone()));
            for k in &ev.keyframes {
                if !sb.keyframes.contains(k) {
                    sb.keyframes.push(k.clone());
                }
            }
        }
        for sb in out.blocks.values_mut() {
            sb.lines.sort();
        }
        out
    }

    /// The context of a question whose evidence is at these (block, element)
    /// places, with these evidence keyframes: the lines around each piece of
    /// evidence, block by block, and up to five keyframes (evidence first).
    pub fn context(&self, places: &BTreeSet<(usize, usize)>, frames: &[String]) -> Context {
        let mut by_block: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for &(block, element) in places {
            by_block.entry(block).or_default().push(element);
        }
        let mut parts = Vec::new();
        let mut keyframes: Vec<String> = Vec::new();
        for k in frames {
            if keyframes.len() < MAX_KEYFRAMES && !keyframes.contains(k) {
                keyframes.push(k.clone());
            }
        }
        let mut blocks = Vec::new();
        for (block, elements) in &by_block {
            let Some(sb) = self.blocks.get(block) else {
                continue;
            };
            let keep: Vec<&(usize, String)> = sb
                .lines
                .iter()
                .filter(|(i, _)| {
                    elements
                        .iter()
                        .any(|&e| *i + WINDOW >= e && *i <= e + WINDOW)
                })
                .collect();
            if keep.is_empty() {
                continue;
            }
            blocks.push(*block);
            let mut text = String::new();
            let mut last: Option<usize> = None;
            for (i, line) in keep {
                if let Some(prev) = last {
                    text.push_str(if *i > prev + 1 { "\n…\n" } else { "\n" });
                }
                text.push_str(line);
                last = Some(*i);
            }
            parts.push(text);
            if let Some(k) = sb.keyframes.first() {
                if keyframes.len() < MAX_KEYFRAMES && !keyframes.contains(k) {
                    keyframes.push(k.clone());
                }
            }
        }
        Context {
            blocks,
            excerpt: parts.join("\n\n"),
            keyframes,
        }
    }
}

/// A path with `x/..` pairs and `.` segments removed, lexically, so contexts
/// name keyframes the same way whichever film path the command was given.
pub fn clean_path(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "." | "" if !out.is_empty() => {}
            ".." if out.last().is_some_and(|p| *p != ".." && !p.is_empty()) => {
                out.pop();
            }
            _ => out.push(part),
        }
    }
    out.join("/")
}
