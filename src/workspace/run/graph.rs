//! Stage graph: the verified graph, block by block; `graphs/<film>.json`.

use super::*;
use crate::graph::review_store::ReviewStore;
use crate::workspace::bail;

pub(super) fn graph_stage(film: &mut Film<'_>) -> Result<()> {
    let t = Instant::now();
    let p = film.p;
    let cast = &p.cast;
    let owned = cast
        .graph
        .open(cast.llm.as_ref(), Some(Arc::clone(&cast.runtime)))?;
    let roles = owned.roles();
    let opts = BuildOptions::default();
    let key = settings_key(&roles, &opts);
    film.graph_key = Some(key.clone());
    let json_path = film.out_path(&format!("graphs/{}.json", film.slug));
    let mut inputs = BTreeMap::new();
    inputs.insert("align".to_owned(), film.upstream(Stage::Align));
    inputs.insert("settings".to_owned(), key.clone());
    let (fp, plan) = film.plan(Stage::Graph, &inputs, std::slice::from_ref(&json_path))?;
    let backend = cast.graph.describe();
    let backend = backend.as_str();
    let (why, fresh) = match plan {
        Plan::Skip => {
            let build = film.store.graph_build(film.id, &key)?;
            let export = export_graph(&film.store, &film.slug, build, &key)?;
            film.out.graph = Some(graph_figures(&export));
            film.out.graph_score = score_against_folder_gold(&film.folder.dir, &export.graph)?;
            let reviewed = film.store.review_all(build)?.len();
            let digest = sha(export.json.as_bytes());
            if reviewed > 0 && file_sha(&json_path)? != digest {
                // People decided since the graph was written: the models' work
                // stands, the verified graph is written again, and what was
                // made from it is made again.
                write_atomic(&json_path, export.json.as_bytes())?;
                let mut outputs = BTreeMap::new();
                outputs.insert(json_path.display().to_string(), digest.clone());
                film.done(Stage::Graph, &fp, &outputs)?;
                film.record(
                    Stage::Graph,
                    Action::Ran,
                    format!("people's review ({reviewed} decisions) changed the verified graph"),
                    format!(
                        "re-exported {} from the reviewed build ({backend}; nothing rebuilt)",
                        json_path.display()
                    ),
                    t,
                );
            } else {
                film.skipped(
                    Stage::Graph,
                    fp.clone(),
                    format!("{} ({backend})", json_path.display()),
                    t,
                );
            }
            film.fps
                .insert(Stage::Graph, reviewed_fingerprint(&fp, reviewed, &digest));
            return Ok(());
        }
        Plan::Run { why, fresh } => (why, fresh),
    };
    if fresh {
        // People's review decisions are work nobody can redo by rerunning: a
        // build that holds them is never discarded by `run`.
        let build = film.store.graph_build(film.id, &key)?;
        let reviewed = film.store.review_decisions(build)?.len();
        if reviewed > 0 {
            bail!(
                "film {}: the graph must be rebuilt ({why}), but its build holds {reviewed} review \
                 decision(s) by people, which a rebuild would discard. Keep them first: \
                 `moviegraph graph review {} --decisions decisions.jsonl` and \
                 `moviegraph graph export {} --format gold` (the verified graph as an annotation, \
                 which `graph import` and `graph score` read); then run with another --store",
                film.slug,
                film.folder.dir.display(),
                film.folder.dir.display()
            );
        }
    }
    if fresh && film.store.graph_discard_build(film.id, &key)? {
        tracing::debug!("discarded the earlier graph build of {}", film.slug);
    }
    film.begin(Stage::Graph, &fp, &inputs)?;
    let (play, blocks, _) = film_blocks(&film.store, &film.folder, None)
        .with_context(|| format!("stage graph, film {}", film.slug))?;
    film.bar
        .stage(Stage::Graph, backend, blocks.len(), film.p.cast.cost());
    // A build is committed block by block; running it in slices is what lets the bar
    // move (and a test stop it) without reaching into the graph stage. Each slice
    // re-reads the build's candidates, so a tenth of the film at a time.
    let slice = if !film.bar.reporter.watches_steps() {
        (blocks.len() / 10).max(1)
    } else {
        1
    };
    let mut first = true;
    let bar = &film.bar;
    let title = play.title_field("title").map(str::to_owned);
    let input = FilmInput {
        slug: &film.slug,
        title: title.as_deref(),
        play: &play,
        blocks: &blocks,
    };
    let built = build_graph(&film.store, &input, &roles, &opts, Some(slice), &mut |r| {
        if first {
            first = false;
            bar.bar.set(r.skipped as u64, blocks.len() as u64);
        }
        if r.processed > 0 {
            bar.show_cost(cast.cost());
            bar.inc(r.processed as u64);
        }
    })?;
    let (resumed, built_now, candidates) = (
        built.report.skipped,
        built.report.processed,
        built.report.candidates,
    );
    let export = export_graph(&film.store, &film.slug, built.build, &key)?;
    write_atomic(&json_path, export.json.as_bytes())?;
    let figures = graph_figures(&export);
    film.out.graph = Some(figures);
    film.out.graph_score = score_against_folder_gold(&film.folder.dir, &export.graph)?;
    let gold = film
        .out
        .graph_score
        .as_ref()
        .map(|s| format!("\n{}", gold_line(s)))
        .unwrap_or_default();
    let detail = format!(
        "{backend}: {} blocks ({built_now} built now{}), {candidates} candidates proposed now; {} candidates, {} verified ({:.1} %), {} nodes, {} edges → {}",
        blocks.len(),
        if resumed > 0 {
            format!(", {resumed} finished before")
        } else {
            String::new()
        },
        figures.0,
        figures.1,
        pct(figures.1, figures.0),
        figures.2,
        figures.3,
        json_path.display()
    ) + &gold;
    let mut outputs = BTreeMap::new();
    outputs.insert(json_path.display().to_string(), sha(export.json.as_bytes()));
    film.done(Stage::Graph, &fp, &outputs)?;
    let reviewed = film.store.review_all(built.build)?.len();
    let digest = sha(export.json.as_bytes());
    film.fps
        .insert(Stage::Graph, reviewed_fingerprint(&fp, reviewed, &digest));
    let action = if resumed > 0 && !fresh {
        Action::Resumed
    } else {
        Action::Ran
    };
    film.record(Stage::Graph, action, why, detail, t);
    Ok(())
}

/// The fingerprint the stages after the graph see: the stage's own, or, once
/// people have decided on the build, the stage's and the verified graph's, so
/// that a review remakes the trees, runs and report without a rebuild (which
/// would discard it). A build nobody reviewed keeps its fingerprint.
fn reviewed_fingerprint(fp: &str, reviewed: usize, graph_sha: &str) -> String {
    if reviewed == 0 {
        fp.to_owned()
    } else {
        sha(format!("{fp}\nreviewed graph {graph_sha}").as_bytes())
    }
}

/// One line of a graph's score against the film's gold annotation.
pub(super) fn gold_line(s: &crate::graph::score::GraphScore) -> String {
    format!(
        "against gold.json ({}): mental states P {:.2} R {:.2} F1 {:.2} (explicit R {:.2}); causal links P {:.2} R {:.2}; higher-order {} of {}; polarity errors {}",
        s.similarity,
        s.states.precision(),
        s.states.recall(),
        s.states.f1(),
        s.explicit.recall(),
        s.causal.precision(),
        s.causal.recall(),
        s.higher_order.matched_gold,
        s.higher_order.gold,
        s.errors
            .get(&crate::graph::score::ErrorKind::Polarity)
            .copied()
            .unwrap_or(0)
    )
}
