//! Stage eval: every subject on the trees, each answer stored.

use super::*;

pub(super) fn eval_stage(film: &mut Film<'_>) -> Result<()> {
    let t = Instant::now();
    let p = film.p;
    let cast = &p.cast;
    let path = film.out_path(&format!("trees/{}.jsonl", film.slug));
    let is_model = |name: &str| !BASELINES.contains(&name);
    let mut inputs = BTreeMap::new();
    inputs.insert("trees".to_owned(), film.upstream(Stage::Trees));
    inputs.insert("subjects".to_owned(), p.subjects.join(","));
    for name in p.subjects.iter().filter(|n| is_model(n)) {
        inputs.insert(
            format!("subject {name}"),
            cast.identity(name, Role::Subject)?,
        );
    }
    inputs.insert("seed".to_owned(), p.seed.to_string());
    inputs.insert(
        "judge".to_owned(),
        match &cast.judge {
            Some(name) => cast.identity(name, Role::Judge)?,
            None => "none".to_owned(),
        },
    );
    let (fp, mut plan) = film.plan(Stage::Eval, &inputs, &[])?;
    let (model_names, baselines): (Vec<&String>, Vec<&String>) =
        p.subjects.iter().partition(|n| is_model(n));
    let join = |names: &[&String]| {
        names
            .iter()
            .map(|n| n.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut described = Vec::new();
    if !model_names.is_empty() {
        described.push(format!("model subject {}", join(&model_names)));
    }
    match baselines.len() {
        0 => {}
        1 => described.push(format!(
            "offline baseline {} (not a reasoner)",
            join(&baselines)
        )),
        _ => described.push(format!(
            "offline baselines {} (not reasoners)",
            join(&baselines)
        )),
    }
    let backend = format!(
        "{}; open answers: {}",
        described.join(", "),
        match &cast.judge {
            Some(name) => format!("judge {name}"),
            None => NO_JUDGE_LABEL.to_owned(),
        }
    );
    if matches!(plan, Plan::Skip) {
        let rec = film.store.run_stage(film.id, Stage::Eval.name())?;
        let mut runs: Vec<(String, String)> = rec
            .map(|r| r.outputs.into_iter().collect())
            .unwrap_or_default();
        // The record keeps runs by name; the report lists them in the order the
        // subjects were given, as a run that just ran them does.
        runs.sort_by_key(|(name, _)| film.p.subjects.iter().position(|s| s == name));
        let mut missing = None;
        for (_, id) in &runs {
            if film.store.eval_run(id)?.is_none() {
                missing = Some(id.clone());
            }
        }
        match missing {
            Some(id) => {
                plan = Plan::Run {
                    why: format!("run {id} is no longer in the store"),
                    fresh: false,
                }
            }
            None => {
                film.out.runs = runs;
                film.skipped(Stage::Eval, fp, backend, t);
                return Ok(());
            }
        }
    }
    let Plan::Run { why, .. } = plan else {
        unreachable!("a skip returned above")
    };
    film.begin(Stage::Eval, &fp, &inputs)?;
    let trees = read_trees(&path)?;
    let questions: usize = trees.iter().map(|t| t.nodes.len()).sum();
    let models = p.subjects.iter().any(|n| is_model(n));
    film.bar.stage(
        Stage::Eval,
        if models {
            "subjects"
        } else {
            "offline baselines"
        },
        questions * p.subjects.len(),
        cast.cost(),
    );
    let judge = open_judge(cast.judge.as_deref(), cast.llm.as_ref())?;
    let digest = serde_json::to_vec(&trees)?;
    let (mut answers, mut asked) = (0, 0);
    let mut outputs = BTreeMap::new();
    let mut runs = Vec::new();
    for name in &p.subjects {
        let subject = OpenSubject::open(name, p.seed, cast.llm.as_ref())?;
        let subject = subject.subject();
        let id = run_id(name, p.seed, false, &digest);
        let run = EvalRun {
            id: id.clone(),
            subject: subject.name().to_string(),
            judge: cast.judge.clone(),
            text_only: false,
            seed: p.seed,
            source: path.display().to_string(),
        };
        let bar = &film.bar;
        let done = cast
            .runtime
            .block_on(run_stored_with(
                &film.store,
                &run,
                &trees,
                subject,
                judge.as_ref().map(|j| j as &dyn Judge),
                RunOptions {
                    display: Display::Original,
                    jobs: 1,
                },
                &|event| match event {
                    RunEvent::Answered { .. } => {
                        if models {
                            bar.show_cost(cast.cost());
                        }
                        bar.inc(1)
                    }
                    RunEvent::TreeDone { replayed, .. } if replayed > 0 => {
                        bar.skip(replayed as u64)
                    }
                    RunEvent::TreeDone { .. } => {}
                },
            ))
            .with_context(|| format!("stage eval, film {}, run {id}", film.slug))?;
        answers += done.answers;
        asked += done.asked;
        outputs.insert(name.clone(), id.clone());
        runs.push((name.clone(), id));
    }
    film.out.runs = runs;
    let detail = format!(
        "{backend}: {} runs, {answers} answers ({asked} asked now, {} from an earlier start)",
        p.subjects.len(),
        answers - asked
    );
    film.done(Stage::Eval, &fp, &outputs)?;
    let action = if asked < answers {
        Action::Resumed
    } else {
        Action::Ran
    };
    film.record(Stage::Eval, action, why, detail, t);
    Ok(())
}
