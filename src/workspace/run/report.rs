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
    let (fp, plan) = film.plan(Stage::Report, &inputs, &files)?;
    let ids: Vec<String> = film.out.runs.iter().map(|(_, id)| id.clone()).collect();
    // The summary's point estimates: cheap without the bootstrap.
    film.out.metrics = run_metrics(
        &film.store,
        &ids,
        BootstrapSettings {
            resamples: 0,
            seed: 0,
        },
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
