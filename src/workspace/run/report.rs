//! Stage report: `reports/<film>/report.{html,json,csv}`.

use super::*;

pub(super) fn report_stage(film: &mut Film<'_>) -> Result<()> {
    let t = Instant::now();
    let dir = film.out_path(&format!("reports/{}", film.slug));
    let files: Vec<PathBuf> = ["html", "json", "csv"]
        .iter()
        .map(|ext| dir.join(format!("report.{ext}")))
        .collect();
    let mut inputs = BTreeMap::new();
    inputs.insert("eval".to_owned(), film.upstream(Stage::Eval));
    inputs.insert(
        "bootstrap".to_owned(),
        format!("{} resamples, seed 0", film.p.bootstrap),
    );
    // The graph's score against gold.json is part of the page.
    if let Some(score) = &film.out.graph_score {
        inputs.insert(
            "graph score".to_owned(),
            sha(serde_json::to_string(score).unwrap_or_default().as_bytes()),
        );
    }
    // People's review of the graph (who, how much, agreement, precision).
    let review = match &film.graph_key {
        Some(key) => {
            let build = film.store.graph_build(film.id, key)?;
            let generator = crate::workspace::graph::build_settings(key)
                .map_or_else(|| "unknown".to_owned(), |s| s.generator);
            let s = crate::workspace::review_figures::review_summary(
                &film.store,
                build,
                &film.slug,
                &generator,
            )?;
            (s.decided > 0 || s.added > 0).then_some(s)
        }
        None => None,
    };
    if let Some(s) = &review {
        inputs.insert(
            "people's review".to_owned(),
            sha(serde_json::to_string(s).unwrap_or_default().as_bytes()),
        );
    }
    let (fp, plan) = film.plan(Stage::Report, &inputs, &files)?;
    let ids: Vec<String> = film.out.runs.iter().map(|(_, id)| id.clone()).collect();
    // The summary's point estimates: cheap without the bootstrap and without
    // the trees' validity audit, which only the report shows (so a rerun
    // with everything current does not audit every trees file again).
    film.out.metrics = crate::workspace::eval::run_metrics_with(
        &film.store,
        &ids,
        BootstrapSettings {
            resamples: 0,
            seed: 0,
        },
        false,
    )?
    .metrics;
    film.out.report = Some(dir.clone());
    let why = match plan {
        Plan::Skip => {
            film.skipped(Stage::Report, fp, format!("{}/", dir.display()), t);
            return Ok(());
        }
        Plan::Run { why, .. } => why,
    };
    film.begin(Stage::Report, &fp, &inputs)?;
    film.bar.stage(Stage::Report, "metrics", files.len(), 0.0);
    let settings = BootstrapSettings {
        resamples: film.p.bootstrap,
        seed: 0,
    };
    let mut report = report(run_metrics(&film.store, &ids, settings)?.metrics)?;
    if let Some(score) = &film.out.graph_score {
        report.html = crate::eval::html::with_graph_score(&report.html, score);
    }
    // The main characters' trajectories, from the graph the trees came from.
    if let Some(key) = &film.graph_key {
        let build = film.store.graph_build(film.id, key)?;
        let graph = crate::graph::Graph::assemble(&film.slug, &film.store.graph_candidates(build)?);
        let paths = crate::graph::trajectory::trajectories(
            &graph,
            crate::graph::trajectory::TRAJECTORY_CHARACTERS,
        );
        report.html = crate::eval::html::with_trajectories(&report.html, &paths);
    }
    if let Some(s) = &review {
        let sec = crate::workspace::review_figures::summary_html(s);
        report.html = match report.html.rfind("</body>") {
            Some(at) => format!("{}{sec}{}", &report.html[..at], &report.html[at..]),
            None => format!("{}{sec}", report.html),
        };
    }
    let texts = [&report.html, &report.json, &report.csv];
    let mut outputs = BTreeMap::new();
    for (path, text) in files.iter().zip(&texts) {
        write_atomic(path, text.as_bytes())?;
        outputs.insert(path.display().to_string(), sha(text.as_bytes()));
        film.bar.inc(1);
    }
    film.done(Stage::Report, &fp, &outputs)?;
    let detail = format!(
        "{}/report.{{html,json,csv}} ({} runs side by side, {} bootstrap resamples)",
        dir.display(),
        report.metrics.len(),
        film.p.bootstrap
    );
    film.record(Stage::Report, Action::Ran, why, detail, t);
    Ok(())
}

/// The folder of the corpus report under `out` (`reports/corpus`, or
/// `reports/corpus-all` when a film of the run is itself named `corpus`).
fn corpus_dir(p: &Pipeline, films: &[&FilmOutcome]) -> PathBuf {
    let name = if films.iter().any(|o| o.film == "corpus") {
        "corpus-all"
    } else {
        "corpus"
    };
    p.out.join("reports").join(name)
}

/// The corpus report of a run over several films:
/// `reports/corpus/report.{html,json,csv}`, each subject's runs pooled over
/// the films that reached the report stage (trees resampled over the whole
/// corpus; see [`crate::workspace::eval::pooled_metrics`]). `None` when fewer
/// than two films have runs. Returns the folder and the pooled metrics
/// (point estimates come from the same bootstrap settings as the films').
pub fn corpus_report(
    p: &Pipeline,
    films: &[&FilmOutcome],
) -> Result<Option<(PathBuf, Vec<RunMetrics>)>> {
    let with_runs: Vec<&FilmOutcome> = films
        .iter()
        .copied()
        .filter(|o| !o.runs.is_empty())
        .collect();
    if with_runs.len() < 2 {
        return Ok(None);
    }
    let ids: Vec<String> = with_runs
        .iter()
        .flat_map(|o| o.runs.iter().map(|(_, id)| id.clone()))
        .collect();
    let store = Store::open(&p.store)?;
    let settings = BootstrapSettings {
        resamples: p.bootstrap,
        seed: 0,
    };
    let metrics = super::super::eval::pooled_metrics(&store, &ids, settings)?;
    let report = report(metrics)?;
    let dir = corpus_dir(p, films);
    for (ext, text) in [
        ("html", &report.html),
        ("json", &report.json),
        ("csv", &report.csv),
    ] {
        write_atomic(&dir.join(format!("report.{ext}")), text.as_bytes())?;
    }
    Ok(Some((dir, report.metrics)))
}
