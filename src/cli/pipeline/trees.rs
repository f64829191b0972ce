//! Stage trees: question trees from the graph; `trees/<film>.jsonl`.

use super::*;

pub(super) fn trees_stage(film: &mut Film<'_>) -> anyhow::Result<()> {
    let t = Instant::now();
    let path = film.out_path(&format!("trees/{}.jsonl", film.slug));
    let mix = crate::cli::trees::parse_mix(TREES_MIX)?;
    let opts = GenerateOptions {
        depth: TREES_DEPTH,
        max_trees: TREES_MAX,
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
            "generator {writer_id}; depth {}; max trees {}; mix {TREES_MIX}; seed {}; {} single / {} multi options",
            opts.depth, opts.max_trees, opts.seed, opts.single_options, opts.multi_options
        ),
    );
    let (fp, plan) = film.plan(Stage::Trees, &inputs, std::slice::from_ref(&path))?;
    let backend = match &p.cast.trees {
        Some(name) => format!(
            "model {name} (each question checked against the graph; rules wording where it fails)"
        ),
        None => "rules templates, a baseline, offline".to_owned(),
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
    let graph = Graph::assemble(&film.slug, &film.store.graph_candidates(build_id)?);
    let (play, blocks, _) = crate::cli::graph::load(&film.dir, None, &film.store, &film.slug)
        .with_context(|| format!("stage trees, film {}", film.slug))?;
    let mut source = Source::from_play(&play, &blocks);
    if let Ok(cwd) = std::env::current_dir() {
        source.relative_to(&cwd);
    }
    let facts = Facts::new(&graph);
    let analysis = analyse(&graph);
    let generated = match &p.cast.trees {
        Some(name) => {
            let handle = p.cast.llm()?.model(name, Role::Generator.name())?;
            let model = BlockingModel::all_on(vec![handle], Arc::clone(&p.cast.runtime))
                .pop()
                .context("no model handle")?;
            let writer = ModelWriter::new(model);
            generate_with(
                &facts,
                &analysis,
                &source,
                &writer,
                Some(&RulesWriter),
                &opts,
            )
        }
        None => generate_with(&facts, &analysis, &source, &RulesWriter, None, &opts),
    };
    film.bar.show_cost(p.cast.cost());
    film.bar.inc(1);
    let mut kept: Vec<Tree> = Vec::new();
    let mut problems_text = String::new();
    for tree in generated.trees {
        let problems = validate(&tree);
        for p in problems.iter().filter(|p| p.severity == Severity::Error) {
            let _ = writeln!(problems_text, "  {p}");
        }
        if is_valid(&problems) {
            kept.push(tree);
        } else {
            film.out.invalid_trees += 1;
        }
    }
    let mut bytes = Vec::new();
    write_trees(&mut bytes, &kept)?;
    write_atomic(&path, &bytes)?;
    film.bar.inc(1);
    let questions: usize = kept.iter().map(|t| t.nodes.len()).sum();
    film.out.trees = Some((kept.len(), questions));
    let mut detail = format!(
        "{backend}: {} trees, {questions} questions → {}; {} questions not worded or rejected, {} invalid trees left out",
        kept.len(),
        path.display(),
        generated.rejected.len(),
        film.out.invalid_trees
    );
    if !problems_text.is_empty() {
        detail.push('\n');
        detail.push_str(problems_text.trim_end());
    }
    let mut outputs = BTreeMap::new();
    outputs.insert(path.display().to_string(), sha(&bytes));
    film.done(Stage::Trees, &fp, &outputs)?;
    film.record(Stage::Trees, Action::Ran, why, detail, t);
    Ok(())
}
