//! Use cases over a film's latest graph build: `graph stats`, `graph export`
//! and `graph review` (the decisions a person records on escalated
//! candidates).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::graph::export::{to_dot, to_graphml, to_neo4j_csv};
use crate::graph::generate::gates::{family_rows, render_families};
use crate::graph::generate::rules::GATED;
use crate::graph::gold::Gold;
use crate::graph::stats::{render, stats};
use crate::graph::store::GraphStore;
use crate::graph::trajectory::{render_text, trajectories, TRAJECTORY_CHARACTERS};
use crate::graph::{Candidate, Graph, Item, Role, Status, Vote};
use crate::store::{GraphBuildId, Store};
use crate::util::report::Reporter;

use super::film;
use super::graph::{build_settings, export_graph, latest_build};
use super::lock::{Wait, WriterLock};
use super::review_figures::{render_summary, review_summary};
use super::{bail, Context, Result};

/// The forms `graph export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GraphForm {
    /// The graph JSON.
    Json,
    /// GraphML.
    Graphml,
    /// Graphviz DOT.
    Dot,
    /// Neo4j's CSV import (nodes and edges).
    Neo4jCsv,
    /// The gold annotation format (`<film>.gold.json`), which `graph score`
    /// and `graph import` read.
    Gold,
}

/// `graph stats`: the latest build's construction table, the rules
/// generator's families and the characters' trajectories, as text or JSON.
pub fn graph_stats(film_dir: &Path, store: &Path, json: bool) -> Result<String> {
    let slug = film::slug(film_dir);
    let store = Store::open(store)?;
    let (build, settings) = latest_build(&store, &slug)?;
    let candidates = store.graph_candidates(build)?;
    let s = stats(&candidates, &store.graph_merges(build)?);
    let paths = trajectories(&Graph::assemble(&slug, &candidates), TRAJECTORY_CHARACTERS);
    // The rules generator's families (a model's notes are no families).
    let generator = build_settings(&settings).map(|s| s.generator);
    let families = generator
        .as_deref()
        .filter(|g| matches!(*g, "rules" | GATED))
        .map(|g| (g, family_rows(&candidates)));
    if json {
        // The construction figures as before, with the trajectories beside them.
        let mut v = serde_json::to_value(&s)?;
        if let Some(o) = v.as_object_mut() {
            o.insert("trajectories".into(), serde_json::to_value(&paths)?);
            let review = review_summary(
                &store,
                build,
                &slug,
                generator.as_deref().unwrap_or("unknown"),
            )?;
            if review.decided > 0 || review.added > 0 {
                o.insert("review".into(), serde_json::to_value(&review)?);
            }
            if let Some((g, rows)) = &families {
                o.insert(
                    "rule_families".into(),
                    serde_json::json!({"generator": g, "families": rows}),
                );
            }
        }
        Ok(serde_json::to_string_pretty(&v)? + "\n")
    } else {
        let families = families.map_or(String::new(), |(g, rows)| {
            format!("\n{}", render_families(g, &rows))
        });
        let review = review_summary(
            &store,
            build,
            &slug,
            generator.as_deref().unwrap_or("unknown"),
        )?;
        let review = if review.decided > 0 || review.added > 0 {
            format!("\n{}", render_summary(&review))
        } else {
            String::new()
        };
        Ok(format!(
            "{}{families}{review}\n{}",
            render(&s),
            render_text(&paths)
        ))
    }
}

/// `graph export`: the latest build written to `out` in `form`; returns the
/// lines naming each file written.
pub fn export_files(film_dir: &Path, store: &Path, form: GraphForm, out: &Path) -> Result<String> {
    let slug = film::slug(film_dir);
    let store = Store::open(store)?;
    let (build, settings) = latest_build(&store, &slug)?;
    let candidates = store.graph_candidates(build)?;
    let g = Graph::assemble(&slug, &candidates);
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let write = |ext: &str, text: &str| -> Result<PathBuf> {
        let path = out.join(format!("{slug}.{ext}"));
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        Ok(path)
    };
    let written = match form {
        GraphForm::Json => vec![write(
            "json",
            &export_graph(&store, &slug, build, &settings)?.json,
        )?],
        GraphForm::Graphml => vec![write("graphml", &to_graphml(&g))?],
        GraphForm::Dot => vec![write("dot", &to_dot(&g))?],
        GraphForm::Neo4jCsv => {
            let (nodes, rels) = to_neo4j_csv(&g);
            vec![write("nodes.csv", &nodes)?, write("edges.csv", &rels)?]
        }
        GraphForm::Gold => {
            let gold = Gold::from_graph(&g);
            vec![write(
                "gold.json",
                &(serde_json::to_string_pretty(&gold)? + "\n"),
            )?]
        }
    };
    let mut text = String::new();
    for p in written {
        writeln!(
            text,
            "wrote {} ({} nodes, {} edges)",
            p.display(),
            g.nodes.len(),
            g.edges.len()
        )?;
    }
    Ok(text)
}

/// A candidate as the review prompt shows it: what it is, why it was
/// proposed, its evidence and keyframes, and the auditors' votes.
pub fn describe(c: &Candidate) -> String {
    let mut out = String::new();
    let what = match &c.item {
        Item::Node(n) => format!("{} {}", n.kind.as_str(), n.name),
        Item::Edge(e) => format!("{} {} -> {}", e.kind.as_str(), e.source, e.target),
    };
    let _ = writeln!(
        out,
        "── {} (block {})\n   {what}\n   proposed because: {}",
        c.id, c.block, c.reason
    );
    for ev in c.item.evidence() {
        let _ = writeln!(
            out,
            "   evidence [element {} {}..{}]: “{}”",
            ev.element, ev.start, ev.end, ev.quote
        );
        for k in &ev.keyframes {
            let _ = writeln!(out, "     keyframe {k}");
        }
    }
    for v in &c.votes {
        let _ = writeln!(
            out,
            "   {} says {}: {}",
            v.judge,
            if v.accept { "accept" } else { "reject" },
            v.rationale
        );
    }
    out
}

/// A review of a film's escalated candidates, holding the store's writer lock.
pub struct Review {
    _lock: WriterLock,
    store: Store,
    build: GraphBuildId,
    /// The film's name.
    pub slug: String,
    /// The escalated candidates of the latest build, waiting for a person.
    pub pending: Vec<Candidate>,
}

impl Review {
    /// Opens the latest build of the film at `film_dir` for review.
    pub fn open(
        film_dir: &Path,
        store: &Path,
        wait: Wait,
        reporter: &dyn Reporter,
    ) -> Result<Review> {
        let slug = film::slug(film_dir);
        let lock = WriterLock::acquire(store, "moviegraph graph review", wait, reporter)?;
        let store = Store::open(store)?;
        let (build, _) = latest_build(&store, &slug)?;
        let pending = store
            .graph_candidates(build)?
            .into_iter()
            .filter(|c| c.status == Status::Escalated)
            .collect();
        Ok(Review {
            _lock: lock,
            store,
            build,
            slug,
            pending,
        })
    }

    /// Records a person's decision on the escalated candidate `id`, with
    /// `note` as the reason; returns the candidate's new status.
    pub fn decide(&self, id: &str, accept: bool, note: &str) -> Result<Status> {
        if !self.pending.iter().any(|c| c.id == id) {
            bail!("{id}: not an escalated candidate of film {}", self.slug);
        }
        let vote = Vote {
            judge: "human".to_owned(),
            role: Role::Human,
            accept,
            rationale: note.to_owned(),
        };
        Ok(self.store.graph_review(self.build, id, &vote)?)
    }
}
