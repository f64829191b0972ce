//! Use case: the validity audit of a tree set — `moviegraph trees audit`,
//! and the audit `trees generate`, `run` and `eval report` print beside
//! what they produce. The film's layout (its scenes, and which blocks it
//! contains) comes from its alignment, read without writing anything.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::align::Block;
use crate::graph::schema::NodeKind;
use crate::graph::Graph;
use crate::screenplay::Screenplay;
use crate::store::Store;
use crate::trees::audit::{audit, Audit, FilmLayout, StateEnds, Thresholds};
use crate::trees::jsonl::read_trees;
use crate::trees::schema::Tree;

use super::align::film_blocks_read_only;
use super::film::FilmFolder;
use super::graph::{load_graph, read_graph_export};
use super::{bail, Result};

/// Seed of the audit's bootstrap (fixed: the same trees give the same report).
pub const AUDIT_SEED: u64 = 0;

/// When `graph`'s states end, for the audit; `source` says where the graph
/// came from.
pub fn state_ends(graph: &Graph, source: &str) -> StateEnds {
    let states = graph
        .nodes
        .iter()
        .filter(|n| n.kind == NodeKind::MentalState);
    StateEnds {
        source: source.to_owned(),
        states: states.clone().count(),
        scenes: graph
            .nodes
            .iter()
            .filter_map(|n| n.scene.map(|s| (n.id.clone(), s)))
            .collect(),
        ends: states
            .filter_map(|n| n.until_scene.map(|u| (n.id.clone(), u)))
            .collect(),
    }
}

/// The layout the audit needs from a film's script and aligned blocks, and
/// the ends its graph knows (`None`: no graph at hand).
pub fn film_layout(
    play: &Screenplay,
    blocks: &[Block],
    state_ends: Option<StateEnds>,
) -> FilmLayout {
    let scenes = blocks
        .iter()
        .map(|b| b.scene + 1)
        .max()
        .unwrap_or(0)
        .max(play.scenes.len());
    FilmLayout {
        scenes,
        block_scene: blocks.iter().map(|b| (b.id, b.scene)).collect(),
        block_time: blocks
            .iter()
            .map(|b| (b.id, b.start_ms.zip(b.end_ms)))
            .collect(),
        state_ends,
    }
}

/// The layout of the film in `folder`: its stored alignment from the store
/// at `store_path` when current (the store is only read, and not created),
/// else a fresh offline alignment kept in memory; with the ends of the graph
/// in `graph_file`, else of the store's latest build of the film, else none.
pub fn folder_layout(
    store_path: &Path,
    folder: &Path,
    graph_file: Option<&Path>,
) -> Result<FilmLayout> {
    let film = FilmFolder::open(folder)?;
    let store = if store_path.exists() {
        Some(Store::open(store_path)?)
    } else {
        None
    };
    let (play, blocks, _) = film_blocks_read_only(store.as_ref(), &film, None)?;
    let ends = match (graph_file, &store) {
        (Some(file), _) => Some(state_ends(
            &read_graph_export(file)?.0,
            &file.display().to_string(),
        )),
        // A store without a build of this film: nothing to measure against.
        (None, Some(store)) => {
            let built = match store.film_id(&film.slug)? {
                Some(id) => store.graph_latest_build(id)?.is_some(),
                None => false,
            };
            if built {
                let graph = load_graph(store, &film.slug, None)?;
                Some(state_ends(
                    &graph,
                    &format!("the latest build in {}", store_path.display()),
                ))
            } else {
                None
            }
        }
        (None, None) => None,
    };
    Ok(film_layout(&play, &blocks, ends))
}

/// Audits one film's trees with the default seed.
pub fn audit_trees(
    trees: &[Tree],
    layout: Option<&FilmLayout>,
    text_only: bool,
    thresholds: Thresholds,
) -> Audit {
    audit(trees, layout, text_only, thresholds, AUDIT_SEED)
}

/// `trees audit` over tree files: each file's report (its film's layout from
/// `film`, or `screenplays/<film>` when that folder exists; the graph's ends
/// from `graph` or the store), as text or JSON, and whether every file
/// passed.
pub fn audit_files(
    files: &[PathBuf],
    film: Option<&Path>,
    graph: Option<&Path>,
    store: &Path,
    text_only: bool,
    thresholds: Thresholds,
    json: bool,
) -> Result<(String, bool)> {
    if film.is_some() && files.len() > 1 {
        bail!("--film names one film: audit one file with it");
    }
    if graph.is_some() && files.len() > 1 {
        bail!("--graph is one film's graph: audit one file with it");
    }
    let mut reports: Vec<(PathBuf, Audit)> = Vec::new();
    let mut text = String::new();
    for file in files {
        let trees = read_trees(file)?;
        let folder = match film {
            Some(f) => Some(f.to_path_buf()),
            None => trees
                .first()
                .map(|t| PathBuf::from("screenplays").join(&t.film))
                .filter(|p| p.is_dir()),
        };
        let layout: Option<FilmLayout> = match &folder {
            Some(f) => Some(folder_layout(store, f, graph)?),
            None => None,
        };
        let audit = audit_trees(&trees, layout.as_ref(), text_only, thresholds);
        writeln!(
            text,
            "{}{}\n{}",
            file.display(),
            folder
                .as_ref()
                .map(|f| format!(" (film {})", f.display()))
                .unwrap_or_default(),
            audit.render()
        )?;
        reports.push((file.clone(), audit));
    }
    let passed = reports.iter().all(|(_, a)| a.passed());
    if json {
        let json: Vec<serde_json::Value> = reports
            .iter()
            .map(|(f, a)| serde_json::json!({"file": f, "passed": a.passed(), "audit": a}))
            .collect();
        text = serde_json::to_string_pretty(&json)? + "\n";
    }
    Ok((text, passed))
}
