//! Stage graph: the verified graph, block by block; `graphs/<film>.json`.

use super::*;

pub(super) fn graph_stage(film: &mut Film<'_>) -> anyhow::Result<()> {
    let t = Instant::now();
    let p = film.p;
    let cast = &p.cast;
    let owned = cast
        .graph
        .open_on(cast.llm.as_ref(), Some(Arc::clone(&cast.runtime)))?;
    let roles = owned.roles();
    let mut opts = BuildOptions::default();
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
            let cands = film.store.graph_candidates(build)?;
            let graph = Graph::assemble(&film.slug, &cands);
            let st = stats(&cands, &film.store.graph_merges(build)?);
            film.out.graph = Some(graph_figures(&st, &graph));
            film.skipped(
                Stage::Graph,
                fp,
                format!("{} ({backend})", json_path.display()),
                t,
            );
            return Ok(());
        }
        Plan::Run { why, fresh } => (why, fresh),
    };
    if fresh && film.store.graph_discard_build(film.id, &key)? {
        tracing::debug!("discarded the earlier graph build of {}", film.slug);
    }
    film.begin(Stage::Graph, &fp, &inputs)?;
    let (play, blocks, _) = crate::cli::graph::load(&film.dir, None, &film.store, &film.slug)
        .with_context(|| format!("stage graph, film {}", film.slug))?;
    let title = play.title_field("title").map(str::to_owned);
    let input = FilmInput {
        slug: &film.slug,
        title: title.as_deref(),
        play: &play,
        blocks: &blocks,
    };
    film.bar
        .stage(Stage::Graph, backend, blocks.len(), film.p.cast.cost());
    // A build is committed block by block; running it in slices is what lets the bar
    // move (and a test stop it) without reaching into the graph stage. Each slice
    // re-reads the build's candidates, so a tenth of the film at a time.
    let slice = if film.bar.progress.hook == Hook::Off {
        (blocks.len() / 10).max(1)
    } else {
        1
    };
    opts.stop_after = Some(slice);
    let (mut resumed, mut built, mut candidates) = (None, 0, 0);
    let build_id = loop {
        let r = build(&film.store, &input, &roles, &opts)
            .with_context(|| format!("stage graph, film {}", film.slug))?;
        if resumed.is_none() {
            resumed = Some(r.skipped);
            film.bar.bar.set_position(r.skipped as u64);
        }
        built += r.processed;
        candidates += r.candidates;
        if r.processed > 0 {
            film.bar.show_cost(film.p.cast.cost());
            film.bar.inc(r.processed as u64);
        }
        if r.complete || r.processed == 0 {
            break r.build.context("the graph build has no id")?;
        }
    };
    let cands = film.store.graph_candidates(build_id)?;
    let graph = Graph::assemble(&film.slug, &cands);
    let st = stats(&cands, &film.store.graph_merges(build_id)?);
    let json = to_json(&graph, &key, &st, &analyse(&graph));
    write_atomic(&json_path, json.as_bytes())?;
    let figures = graph_figures(&st, &graph);
    film.out.graph = Some(figures);
    let resumed = resumed.unwrap_or(0);
    let detail = format!(
        "{backend}: {} blocks ({built} built now{}), {candidates} candidates proposed now; {} candidates, {} verified ({:.1} %), {} nodes, {} edges → {}",
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
    );
    let mut outputs = BTreeMap::new();
    outputs.insert(json_path.display().to_string(), sha(json.as_bytes()));
    film.done(Stage::Graph, &fp, &outputs)?;
    let action = if resumed > 0 && !fresh {
        Action::Resumed
    } else {
        Action::Ran
    };
    film.record(Stage::Graph, action, why, detail, t);
    Ok(())
}
