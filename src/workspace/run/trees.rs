//! Stage trees: question trees from the graph; `trees/<film>.jsonl`.

use super::*;

pub(super) fn trees_stage(film: &mut Film<'_>) -> Result<()> {
    let t = Instant::now();
    let path = film.out_path(&format!("trees/{}.jsonl", film.slug));
    let mix = parse_mix(TREES_MIX)?;
    let opts = GenerateOptions {
        depth: TREES_DEPTH,
        max_trees: None,
        mix,
        seed: TREES_SEED,
        ..GenerateOptions::default()
    };
    let p = film.p;
    let writer_id = match &p.cast.trees {
        Some(name) => format!("model {}", p.cast.identity(name, Role::Generator)?),
        None => "rules".to_owned(),
    };
    let mut inputs = BTreeMap::new();
    inputs.insert("graph".to_owned(), film.upstream(Stage::Graph));
    inputs.insert(
        "settings".to_owned(),
        format!(
            "generator {writer_id} (balanced v2); depth {}; max trees {}; mix {TREES_MIX}; seed {}; {} single / {} multi options{}",
            opts.depth,
            opts.max_trees.map_or("by film length".to_owned(), |n| n.to_string()),
            opts.seed,
            opts.single_options,
            opts.multi_options,
            if p.text_only { "; text-only" } else { "" }
        ),
    );
    let (fp, plan) = film.plan(Stage::Trees, &inputs, std::slice::from_ref(&path))?;
    let backend = match &p.cast.trees {
        Some(name) => format!(
            "model {name} (each question checked against the graph; rules wording where it fails)"
        ),
        None => "rules templates, a baseline, offline".to_owned(),
    };
    let backend = if p.text_only {
        format!("{backend}; text-only: script-only trees, scenes the film may not contain included")
    } else {
        backend
    };
    let backend = backend.as_str();
    let why = match plan {
        Plan::Skip => {
            let trees = read_trees(&path)?;
            film.out.trees = Some((trees.len(), trees.iter().map(|t| t.nodes.len()).sum()));
            film.skipped(
                Stage::Trees,
                fp,
                format!("{} ({backend})", path.display()),
                t,
            );
            return Ok(());
        }
        Plan::Run { why, .. } => why,
    };
    film.begin(Stage::Trees, &fp, &inputs)?;
    film.bar.stage(Stage::Trees, backend, 2, p.cast.cost());
    // As `trees generate`: the graph of the film's build, the blocks of its alignment.
    let key = film
        .graph_key
        .clone()
        .context("the trees stage runs after the graph stage")?;
    let build_id = film.store.graph_build(film.id, &key)?;
    let graph = crate::graph::Graph::assemble(&film.slug, &film.store.graph_candidates(build_id)?);
    let settings = super::super::graph::build_settings(&key);
    let (play, alignment, _) = film_alignment(&film.store, &film.folder, None)
        .with_context(|| format!("stage trees, film {}", film.slug))?;
    let model = match &p.cast.trees {
        Some(name) => {
            let handle = p.cast.llm()?.model(name, Role::Generator.name())?;
            Some(
                BlockingModel::all_on(vec![handle], Arc::clone(&p.cast.runtime))
                    .pop()
                    .context("no model handle")?,
            )
        }
        None => None,
    };
    let input = TreesInput {
        graph: &graph,
        graph_settings: settings.as_ref(),
        play: &play,
        alignment: &alignment,
        film_dir: Some(&film.folder.dir),
        text_only: p.text_only,
    };
    let generated = generate_trees(&input, model, &opts)?;
    film.bar.show_cost(p.cast.cost());
    film.bar.inc(1);
    film.out.invalid_trees += generated.invalid;
    let mut problems_text = String::new();
    for p in &generated.problems {
        let _ = writeln!(problems_text, "  {p}");
    }
    let kept = &generated.trees;
    let bytes = &generated.jsonl;
    write_atomic(&path, bytes)?;
    film.bar.inc(1);
    let questions: usize = kept.iter().map(|t| t.nodes.len()).sum();
    film.out.trees = Some((kept.len(), questions));
    let mut detail = format!(
        "{backend}: {} trees, {questions} questions → {}; {} questions not asked (not in the film: no timed subtitle cue), {} not worded or rejected, {} invalid trees left out",
        kept.len(),
        path.display(),
        generated.not_in_film,
        generated.rejected.len(),
        film.out.invalid_trees
    );
    detail.push_str(&format!("\n  {}", generated.audit.summary()));
    if !problems_text.is_empty() {
        detail.push('\n');
        detail.push_str(problems_text.trim_end());
    }
    let mut outputs = BTreeMap::new();
    outputs.insert(path.display().to_string(), sha(bytes));
    film.done(Stage::Trees, &fp, &outputs)?;
    film.record(Stage::Trees, Action::Ran, why, detail, t);
    Ok(())
}
