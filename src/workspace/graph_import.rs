//! Use case: a film's expert annotation (`gold.json`, docs/graph-format.md) as a
//! graph build (`moviegraph graph import --gold`), so that trees can be
//! generated from a graph people made and measured with the generator's
//! errors taken out.
//!
//! Every element is accepted with one vote by `expert annotation`. Each state
//! and each end of a causal link is placed where its evidence quote stands in
//! the script (the element of its scene that holds the quote, else the
//! element sharing most of its words, else the scene's first line): that
//! element gives its story order, its block and its evidence offsets.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use crate::align::Block;
use crate::graph::build::{BuildOptions, Settings};
use crate::graph::gold::{read_gold, story_name};
use crate::graph::schema::{Candidate, Evidence, Item, Node, NodeKind, Role, Status, Vote};
use crate::graph::store::GraphStore;
use crate::screenplay::Screenplay;
use crate::store::{BlockProgress, GraphBuildId, Store};
use crate::text::content_words;
use crate::util::report::Reporter;

use super::align::film_blocks;
use super::film::{fingerprint, FilmFolder};
use super::lock::{Wait, WriterLock};
use super::Result;

/// The generator name an imported annotation's build records.
pub const EXPERT: &str = "expert-annotation";

/// What an import did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Imported {
    /// The build in the store.
    pub build: GraphBuildId,
    /// Whether the same annotation was already imported (nothing written).
    pub already: bool,
    /// Nodes and edges of the imported graph.
    pub nodes: usize,
    /// Edges.
    pub edges: usize,
    /// Quotes not found in the script word for word (placed by their words).
    pub unplaced: usize,
}

/// Where a quote stands: (element, start, end) in characters.
fn place(play: &Screenplay, blocks: &[Block], scene: usize, quote: &str) -> (usize, usize, usize) {
    let in_scene: Vec<usize> = blocks
        .iter()
        .filter(|b| b.scene == scene)
        .flat_map(|b| b.elements[0]..=b.elements[1])
        .collect();
    let quote = quote.trim();
    for &e in &in_scene {
        let text = &play.elements[e].text;
        if let Some(at) = text.find(quote).filter(|_| !quote.is_empty()) {
            let start = text[..at].chars().count();
            return (e, start, start + quote.chars().count());
        }
    }
    let words = content_words(quote);
    let best = in_scene
        .iter()
        .map(|&e| {
            (
                content_words(&play.elements[e].text)
                    .intersection(&words)
                    .count(),
                e,
            )
        })
        .filter(|(n, _)| *n > 0)
        .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    let e = best.map_or(in_scene.first().copied().unwrap_or(0), |(_, e)| e);
    (
        e,
        0,
        play.elements.get(e).map_or(0, |el| el.text.chars().count()),
    )
}

fn block_of(blocks: &[Block], element: usize) -> usize {
    blocks
        .iter()
        .find(|b| (b.elements[0]..=b.elements[1]).contains(&element))
        .map_or(0, |b| b.id)
}

/// Imports the annotation at `gold_path` as a graph build of the film in
/// `folder`; importing the same file again writes nothing.
pub fn import_gold(store: &Store, folder: &FilmFolder, gold_path: &Path) -> Result<Imported> {
    let gold = read_gold(gold_path)?;
    let (play, blocks, _) = film_blocks(store, folder, None)?;
    let mut graph = gold.to_graph();
    // A character is named as the story names it (`Marta`, not the cue
    // `MARTA`); the cue stays an alias.
    for n in graph
        .nodes
        .iter_mut()
        .filter(|n| n.kind == NodeKind::Character)
    {
        if n.name.chars().any(char::is_lowercase) {
            continue;
        }
        let named = story_name(&n.name);
        if !n.aliases.contains(&n.name) {
            n.aliases.insert(0, n.name.clone());
        }
        n.name = named;
    }
    let mut unplaced = 0;
    // Each state and link end at its quote.
    let mut quotes: BTreeMap<String, (usize, String)> = BTreeMap::new();
    for s in &gold.mental_states {
        quotes.insert(
            format!("mental_state:{}", s.id),
            (s.scene, s.evidence.clone()),
        );
    }
    for l in &gold.causal_links {
        for (text, scene, quote) in [
            (&l.cause, l.cause_scene, &l.cause_evidence),
            (&l.effect, l.effect_scene, &l.effect_evidence),
        ] {
            if let Some(n) = graph.nodes.iter().find(|n| {
                n.kind == NodeKind::Event && &n.name == text && n.scene == Some(scene - 1)
            }) {
                quotes.entry(n.id.clone()).or_insert((scene, quote.clone()));
            }
        }
    }
    // A quote where it stands: the element of its scene that holds it, else
    // the one holding most of its words (the quote keeps the annotation's
    // words; its offsets span that element).
    let mut evidence_at = |scene: usize, quote: &str| {
        let (element, start, end) = place(&play, &blocks, scene - 1, quote);
        let line = play.elements.get(element).map_or("", |e| e.text.as_str());
        let block = block_of(&blocks, element);
        let text: String = if line.contains(quote.trim()) {
            line.chars().skip(start).take(end - start).collect()
        } else {
            unplaced += 1;
            quote.to_owned()
        };
        Evidence {
            block,
            element,
            start,
            end,
            quote: text,
            keyframes: Vec::new(),
        }
    };
    let mut first_block: BTreeMap<String, usize> = BTreeMap::new();
    for n in &mut graph.nodes {
        let Some((scene, quote)) = quotes.get(&n.id) else {
            continue;
        };
        let ev = evidence_at(*scene, quote);
        n.order = Some(ev.element);
        n.blocks = vec![ev.block];
        first_block.insert(n.id.clone(), ev.block);
        n.evidence = vec![ev];
    }
    // A causal link carries its own two quotes, cause then effect (an event
    // in several links shows only its first quote).
    for e in &mut graph.edges {
        let Some(l) = e
            .link
            .as_ref()
            .and_then(|id| gold.causal_links.iter().find(|l| &l.id == id))
        else {
            continue;
        };
        e.evidence = vec![
            evidence_at(l.cause_scene, &l.cause_evidence),
            evidence_at(l.effect_scene, &l.effect_evidence),
        ];
    }
    // A character is first proposed where it first holds a state.
    let holders: Vec<(String, usize)> = graph
        .nodes
        .iter()
        .filter_map(|n| Some((n.holder.clone()?, *first_block.get(&n.id)?)))
        .collect();
    for (holder, block) in holders {
        let b = first_block.entry(holder).or_insert(block);
        *b = (*b).min(block);
    }
    let settings = Settings {
        generator: EXPERT.to_owned(),
        auditors: Vec::new(),
        adjudicator: None,
        rule: BuildOptions::default().rule,
        review: false,
        resolve: BuildOptions::default().resolve,
        max_keyframes: 0,
        // The annotation's bytes: a changed file is a new build.
        models: vec![format!("gold {}", fingerprint(gold_path)?.sha256)],
    };
    let film = store.ensure_film(&folder.slug, None)?;
    let build = store.graph_build(film, &settings.key())?;
    let (nodes, edges) = (graph.nodes.len(), graph.edges.len());
    if !store.graph_progress(build)?.is_empty() {
        return Ok(Imported {
            build,
            already: true,
            nodes,
            edges,
            unplaced,
        });
    }
    let vote = Vote {
        judge: EXPERT.to_owned(),
        role: Role::Human,
        accept: true,
        rationale: format!("expert annotation ({})", gold_path.display()),
    };
    let candidate = |item: Item, block: usize| Candidate {
        id: Candidate::make_id(item.id(), block),
        block,
        item,
        reason: "expert annotation".to_owned(),
        status: Status::Accepted,
        votes: vec![vote.clone()],
    };
    let mut per_block: BTreeMap<usize, Vec<Candidate>> = BTreeMap::new();
    let node_block: BTreeMap<String, usize> = graph
        .nodes
        .iter()
        .map(|n| (n.id.clone(), first_block.get(&n.id).copied().unwrap_or(0)))
        .collect();
    for n in graph.nodes {
        let b = node_block.get(&n.id).copied().unwrap_or(0);
        per_block
            .entry(b)
            .or_default()
            .push(candidate(Item::Node(with_blocks(n, b)), b));
    }
    for mut e in graph.edges {
        // An edge is proposed where its later end is.
        let at = |id: &String| node_block.get(id).copied().unwrap_or(0);
        let b = at(&e.source).max(at(&e.target));
        e.blocks = vec![b];
        per_block
            .entry(b)
            .or_default()
            .push(candidate(Item::Edge(e), b));
    }
    for b in &blocks {
        let cands = per_block.remove(&b.id).unwrap_or_default();
        let progress = BlockProgress {
            block: b.id,
            ..BlockProgress::default()
        };
        store.graph_commit_block(build, &progress, &cands, &[])?;
    }
    Ok(Imported {
        build,
        already: false,
        nodes,
        edges,
        unplaced,
    })
}

fn with_blocks(mut n: Node, block: usize) -> Node {
    if n.blocks.is_empty() {
        n.blocks = vec![block];
    }
    n
}

/// `graph import`: the annotation `gold` (default: the folder's
/// `gold.json`) stored as the film's graph build, under the store's writer
/// lock; returns the lines the command prints.
pub fn import_gold_file(
    film_dir: &Path,
    gold: Option<&Path>,
    store_path: &Path,
    wait: Wait,
    reporter: &dyn Reporter,
) -> Result<String> {
    let folder = FilmFolder::open(film_dir)?;
    let gold = gold.map_or_else(|| film_dir.join("gold.json"), Path::to_path_buf);
    let _lock = WriterLock::acquire(store_path, "moviegraph graph import", wait, reporter)?;
    let store = Store::open(store_path)?;
    let done = import_gold(&store, &folder, &gold)?;
    let slug = &folder.slug;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "film {slug}: {} {} as graph build {} (generator `{EXPERT}`: every element accepted), {} nodes, {} edges",
        if done.already { "already imported" } else { "imported" },
        gold.display(),
        done.build.0,
        done.nodes,
        done.edges,
    );
    if done.unplaced > 0 {
        let _ = writeln!(
            out,
            "{} evidence quotes are not in the script word for word; each was placed at the line of its scene sharing most of its words",
            done.unplaced
        );
    }
    let _ = writeln!(
        out,
        "next: moviegraph trees generate {} (trees from this graph), moviegraph graph export {}",
        film_dir.display(),
        film_dir.display()
    );
    Ok(out)
}
