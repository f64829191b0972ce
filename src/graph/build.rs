//! `graph build`: generate → resolve → audit → consensus → adjudicate, block by
//! block, each block committed to the store before the next starts.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::align::Block;
use crate::graph::consensus::{decide, settle, Rule};
use crate::graph::resolve::{resolve, ResolveOptions};
use crate::graph::schema::*;
use crate::graph::store::GraphStore;
use crate::graph::{
    merge_node, Adjudicator, Auditor, BlockContext, Generator, GraphError, Proposal,
};
use crate::screenplay::{ElementKind, Screenplay};
use crate::store::{BlockProgress, GraphBuildId, Store};

/// The model roles of a build.
pub struct Roles<'a> {
    /// Proposes candidates.
    pub generator: &'a dyn Generator,
    /// Two or more independent auditors.
    pub auditors: Vec<&'a dyn Auditor>,
    /// Decides split votes (unless `review` sends them to a person).
    pub adjudicator: Option<&'a dyn Adjudicator>,
}

/// Settings that define a build; the same settings resume the same build.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// Generator name.
    pub generator: String,
    /// Auditor names, in order.
    pub auditors: Vec<String>,
    /// Adjudicator name.
    pub adjudicator: Option<String>,
    /// Consensus rule.
    pub rule: Rule,
    /// Escalations go to the human review queue instead of the adjudicator.
    pub review: bool,
    /// Entity-resolution thresholds and cap.
    pub resolve: ResolveOptions,
    /// Keyframes per block shown to a model.
    pub max_keyframes: usize,
    /// The model-backed roles' identities (backend, model, sampling), in role
    /// order: a changed configuration is a different build. Empty (and left
    /// out of the key) when every role is a rules role.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<String>,
}

impl Settings {
    /// The settings of a build with these roles and options.
    pub fn of(roles: &Roles<'_>, opts: &BuildOptions) -> Settings {
        Settings {
            generator: roles.generator.name(),
            auditors: roles.auditors.iter().map(|a| a.name()).collect(),
            adjudicator: roles.adjudicator.map(|a| a.name()),
            rule: opts.rule,
            review: opts.review,
            resolve: opts.resolve,
            max_keyframes: opts.max_keyframes,
            models: std::iter::once(roles.generator.identity())
                .chain(roles.auditors.iter().map(|a| a.identity()))
                .chain(std::iter::once(
                    roles.adjudicator.and_then(|a| a.identity()),
                ))
                .flatten()
                .collect(),
        }
    }

    /// Canonical JSON, the build's key in the store.
    pub fn key(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// Build knobs that are not roles.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BuildOptions {
    /// Consensus rule.
    pub rule: Rule,
    /// Send escalations to the review queue.
    pub review: bool,
    /// Resolution thresholds.
    pub resolve: ResolveOptions,
    /// Keyframes per block for models.
    pub max_keyframes: usize,
    /// Stop after processing this many new blocks (a partial build, as a kill leaves it).
    pub stop_after: Option<usize>,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            rule: Rule::Unanimous,
            review: false,
            resolve: ResolveOptions::default(),
            max_keyframes: 5,
            stop_after: None,
        }
    }
}

/// A film ready for the graph stage.
#[derive(Debug, Clone, Copy)]
pub struct FilmInput<'a> {
    /// Slug (the film folder's name).
    pub slug: &'a str,
    /// Title, if known.
    pub title: Option<&'a str>,
    /// The screenplay.
    pub play: &'a Screenplay,
    /// Its aligned blocks.
    pub blocks: &'a [Block],
}

/// What a build run did.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BuildReport {
    /// The build in the store.
    pub build: Option<GraphBuildId>,
    /// The settings key.
    pub settings: String,
    /// Blocks in the film.
    pub blocks: usize,
    /// Blocks already finished by an earlier run, skipped.
    pub skipped: usize,
    /// Blocks processed by this run.
    pub processed: usize,
    /// Calls and time of this run's blocks.
    pub totals: BlockProgress,
    /// Candidates this run proposed.
    pub candidates: usize,
    /// Why items were dropped before judging in this run (`block N: reason`).
    pub dropped: Vec<String>,
    /// Every block is finished.
    pub complete: bool,
}

/// Builds (or resumes) the graph of a film.
pub fn build(
    store: &Store,
    film: &FilmInput<'_>,
    roles: &Roles<'_>,
    opts: &BuildOptions,
) -> Result<BuildReport, GraphError> {
    if roles.auditors.len() < 2 {
        return Err(GraphError::Input {
            film: film.slug.to_owned(),
            message: "at least two auditors are needed".to_owned(),
        });
    }
    let settings = Settings::of(roles, opts);
    let key = settings.key();
    let film_id = store.ensure_film(film.slug, film.title)?;
    let build = store.graph_build(film_id, &key)?;
    let done: BTreeSet<usize> = store
        .graph_progress(build)?
        .iter()
        .map(|p| p.block)
        .collect();
    let mut entities = entity_list(&store.graph_candidates(build)?);
    let mut report = BuildReport {
        build: Some(build),
        settings: key,
        blocks: film.blocks.len(),
        ..BuildReport::default()
    };
    for block in film.blocks {
        if done.contains(&block.id) {
            report.skipped += 1;
            continue;
        }
        if opts.stop_after.is_some_and(|n| report.processed >= n) {
            break;
        }
        let started = Instant::now();
        let ctx = BlockContext {
            film: film.slug,
            block,
            play: film.play,
            entities: &entities,
            max_keyframes: opts.max_keyframes,
        };
        let mut progress = BlockProgress {
            block: block.id,
            ..BlockProgress::default()
        };
        let proposal = roles.generator.generate(&ctx)?;
        progress.generator_calls += 1;
        let prepared = prepare(&ctx, proposal, &opts.resolve);
        progress.dropped = prepared.dropped as u64;
        report.dropped.extend(
            prepared
                .reasons
                .iter()
                .map(|r| format!("block {}: {r}", block.id)),
        );
        let mut batch = prepared.candidates;
        // An empty block asks no auditor: there is nothing to judge.
        let auditors = if batch.is_empty() {
            &[][..]
        } else {
            &roles.auditors[..]
        };
        for auditor in auditors {
            // Each auditor sees the candidates without anyone's votes.
            let clean: Vec<Candidate> = batch
                .iter()
                .map(|c| Candidate {
                    votes: Vec::new(),
                    ..c.clone()
                })
                .collect();
            let votes = auditor.audit(&ctx, &clean)?;
            progress.auditor_calls += 1;
            if votes.len() != batch.len() {
                return Err(GraphError::Role {
                    role: format!("auditor {}", auditor.name()),
                    block: block.id,
                    message: format!("{} votes for {} candidates", votes.len(), batch.len()),
                });
            }
            for (c, v) in batch.iter_mut().zip(votes) {
                c.votes.push(v);
            }
        }
        // The adjudicator sees the block's candidates with their votes (for
        // names), never another adjudication.
        let audited = batch.clone();
        for c in &mut batch {
            c.status = decide(opts.rule, &c.votes);
            if c.status == Status::Escalated && !opts.review {
                if let Some(adj) = roles.adjudicator {
                    let v = adj.adjudicate(&ctx, c, &audited)?;
                    progress.adjudicator_calls += 1;
                    c.status = settle(&v);
                    c.votes.push(v);
                }
            }
        }
        reject_dangling(&mut batch, &entities);
        progress.elapsed_us = started.elapsed().as_micros() as u64;
        store.graph_commit_block(build, &progress, &batch, &prepared.merges)?;
        tracing::debug!(
            block = block.id,
            candidates = batch.len(),
            "graph block committed"
        );
        add_entities(&mut entities, &batch);
        report.processed += 1;
        report.candidates += batch.len();
        report.totals.generator_calls += progress.generator_calls;
        report.totals.auditor_calls += progress.auditor_calls;
        report.totals.adjudicator_calls += progress.adjudicator_calls;
        report.totals.dropped += progress.dropped;
        report.totals.elapsed_us += progress.elapsed_us;
    }
    report.complete = report.skipped + report.processed == film.blocks.len();
    Ok(report)
}

/// An edge accepted by the auditors whose endpoint was rejected in this block
/// (and is not an entity already) cannot stand: it is rejected with the node.
fn reject_dangling(batch: &mut [Candidate], entities: &BTreeMap<String, Node>) {
    let alive: BTreeSet<String> = batch
        .iter()
        .filter(|c| c.status != Status::Rejected)
        .filter_map(|c| match &c.item {
            Item::Node(n) => Some(n.id.clone()),
            Item::Edge(_) => None,
        })
        .collect();
    for c in batch.iter_mut() {
        if let Item::Edge(e) = &c.item {
            let ok = |id: &str| alive.contains(id) || entities.contains_key(id);
            if c.status != Status::Rejected && !(ok(&e.source) && ok(&e.target)) {
                tracing::debug!(candidate = %c.id, "rejected with its endpoint");
                c.status = Status::Rejected;
            }
        }
    }
}

/// The entities known after these candidates: every node not rejected, folded by id.
pub fn entity_list(candidates: &[Candidate]) -> BTreeMap<String, Node> {
    let mut map = BTreeMap::new();
    add_entities(&mut map, candidates);
    map
}

fn add_entities(map: &mut BTreeMap<String, Node>, candidates: &[Candidate]) {
    for c in candidates.iter().filter(|c| c.status != Status::Rejected) {
        if let Item::Node(n) = &c.item {
            match map.get_mut(&n.id) {
                Some(have) => merge_node(have, n),
                None => {
                    map.insert(n.id.clone(), n.clone());
                }
            }
        }
    }
}

/// A block's proposal after validation and resolution.
#[derive(Debug, Clone, PartialEq)]
pub struct Prepared {
    /// Candidates sorted by id, not yet judged.
    pub candidates: Vec<Candidate>,
    /// Merges made.
    pub merges: Vec<Merge>,
    /// Items dropped by validation (each logged with its reason), the
    /// generator's own drops included.
    pub dropped: usize,
    /// The reasons, one per dropped item.
    pub reasons: Vec<String>,
}

/// Validates a proposal (dropping what cannot be repaired, with a logged
/// reason), resolves its nodes, rewrites edge endpoints and node references to
/// resolved ids, and attaches the block's keyframes to action and heading quotes.
pub fn prepare(ctx: &BlockContext<'_>, proposal: Proposal, opts: &ResolveOptions) -> Prepared {
    let block = ctx.block.id;
    let mut map: BTreeMap<String, String> = BTreeMap::new();
    let mut local: BTreeMap<String, Node> = BTreeMap::new();
    let mut out: BTreeMap<String, Candidate> = BTreeMap::new();
    let mut merges: Vec<Merge> = Vec::new();
    let mut reasons: Vec<String> = proposal.dropped;
    let drop = |why: String, reasons: &mut Vec<String>| {
        tracing::warn!(block, "dropped a candidate: {why}");
        reasons.push(why);
    };
    let frames: Vec<String> = ctx
        .keyframes()
        .into_iter()
        .take(2)
        .map(str::to_owned)
        .collect();
    let visual = |evs: &mut Vec<Evidence>| {
        for ev in evs.iter_mut() {
            let kind = ctx.play.elements.get(ev.element).map(|e| e.kind);
            if ev.block == block
                && matches!(kind, Some(ElementKind::Action | ElementKind::SceneHeading))
            {
                ev.keyframes = frames.clone();
            }
        }
    };
    let mut edges = Vec::new();
    for (item, reason) in proposal.items {
        let mut n = match item {
            Item::Node(n) => n,
            Item::Edge(e) => {
                edges.push((e, reason));
                continue;
            }
        };
        let prefix = format!("{}:", n.kind.as_str());
        if n.name.trim().is_empty() || !n.id.starts_with(&prefix) || n.id.len() == prefix.len() {
            drop(
                format!(
                    "node {:?} has no name or an id without the `{prefix}` prefix",
                    n.id
                ),
                &mut reasons,
            );
            continue;
        }
        if n.evidence.is_empty() {
            drop(format!("node {} has no evidence", n.id), &mut reasons);
            continue;
        }
        let mut r = resolve(&n, block, ctx.entities, ctx.play, opts);
        if r.merge.is_none() && r.id == n.id && !ctx.entities.contains_key(&n.id) {
            let local_r = resolve(&n, block, &local, ctx.play, opts);
            if local_r.merge.is_some() {
                r = local_r;
            }
        }
        if let Some(m) = r.merge {
            let canonical = ctx
                .entities
                .get(&r.id)
                .or_else(|| local.get(&r.id))
                .map(|e| e.name.clone());
            if let Some(name) = canonical {
                if name != n.name {
                    n.aliases.push(std::mem::replace(&mut n.name, name));
                }
            }
            merges.push(m);
        }
        map.insert(n.id.clone(), r.id.clone());
        n.id = r.id;
        n.blocks = vec![block];
        visual(&mut n.evidence);
        n.evidence.sort();
        n.evidence.dedup();
        n.aliases.sort();
        n.aliases.dedup();
        local
            .entry(n.id.clone())
            .and_modify(|have| merge_node(have, &n))
            .or_insert_with(|| n.clone());
        let cid = Candidate::make_id(&n.id, block);
        match out.get_mut(&cid) {
            Some(have) => {
                if let Item::Node(h) = &mut have.item {
                    merge_node(h, &n);
                }
            }
            None => {
                out.insert(
                    cid.clone(),
                    Candidate {
                        id: cid,
                        block,
                        item: Item::Node(n),
                        reason,
                        status: Status::Candidate,
                        votes: Vec::new(),
                    },
                );
            }
        }
    }
    let remap = |id: &str| map.get(id).cloned().unwrap_or_else(|| id.to_owned());
    for c in out.values_mut() {
        if let Item::Node(n) = &mut c.item {
            n.holder = n.holder.as_deref().map(remap);
            n.agent = n.agent.as_deref().map(remap);
            n.target = n.target.as_deref().map(remap);
            let mut seen = BTreeSet::new();
            n.participants = n
                .participants
                .iter()
                .map(|p| remap(p))
                .filter(|p| seen.insert(p.clone()))
                .collect();
        }
    }
    let known = |id: &str| ctx.entities.contains_key(id) || local.contains_key(id);
    for (mut e, reason) in edges {
        let (s, t) = (remap(&e.source), remap(&e.target));
        if !known(&s) || !known(&t) {
            drop(
                format!("edge {} has an endpoint outside the entity list", e.id),
                &mut reasons,
            );
            continue;
        }
        if e.evidence.is_empty() {
            drop(format!("edge {} has no evidence", e.id), &mut reasons);
            continue;
        }
        e.id = Edge::make_id(e.kind, &s, &t);
        e.source = s;
        e.target = t;
        e.blocks = vec![block];
        visual(&mut e.evidence);
        e.evidence.sort();
        e.evidence.dedup();
        let cid = Candidate::make_id(&e.id, block);
        match out.get_mut(&cid) {
            Some(have) => {
                if let Item::Edge(h) = &mut have.item {
                    h.evidence.extend(e.evidence);
                    h.evidence.sort();
                    h.evidence.dedup();
                }
            }
            None => {
                out.insert(
                    cid.clone(),
                    Candidate {
                        id: cid,
                        block,
                        item: Item::Edge(e),
                        reason,
                        status: Status::Candidate,
                        votes: Vec::new(),
                    },
                );
            }
        }
    }
    merges.sort_by(|a, b| a.proposed.cmp(&b.proposed));
    merges.dedup_by(|a, b| a.proposed == b.proposed);
    Prepared {
        candidates: out.into_values().collect(),
        merges,
        dropped: reasons.len(),
        reasons,
    }
}
