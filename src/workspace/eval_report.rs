//! Use case: `moviegraph eval report` — stored runs' metrics side by side in
//! one form, with the text-only ablation, the corpus pool and, when several
//! people walked the same trees, their agreement.

use std::path::PathBuf;

use crate::eval::metrics::BootstrapSettings;
use crate::eval::{agreement, html, report};
use crate::store::Store;

use super::eval::{pooled_metrics, run_metrics, StoredMetrics};
use super::{bail, Result};

/// Forms of the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportForm {
    /// Aligned text table.
    Table,
    /// JSON array, one object per run.
    Json,
    /// One figure per line.
    Csv,
    /// A self-contained HTML page with SVG charts.
    Html,
}

/// What `eval report` was asked to do.
#[derive(Debug, Clone)]
pub struct ReportRequest {
    /// The workspace database (it must exist).
    pub store: PathBuf,
    /// Run ids, in the order shown.
    pub runs: Vec<String>,
    /// The form.
    pub form: ReportForm,
    /// Resamples and seed of the bootstrap intervals.
    pub bootstrap: BootstrapSettings,
    /// Add the text-only ablation (exactly two runs, keyframes then text only).
    pub ablation: bool,
    /// Pool each subject's runs into one corpus run.
    pub pool: bool,
}

/// The report's text.
pub fn report_runs(request: &ReportRequest) -> Result<String> {
    if !request.store.exists() {
        bail!("{}: no such store", request.store.display());
    }
    let store = Store::open(&request.store)?;
    let StoredMetrics { metrics, humans } = if request.pool {
        StoredMetrics {
            metrics: pooled_metrics(&store, &request.runs, request.bootstrap)?,
            humans: Vec::new(),
        }
    } else {
        run_metrics(&store, &request.runs, request.bootstrap)?
    };
    if request.ablation {
        if request.form != ReportForm::Table {
            bail!("--ablation prints a table; leave out --format");
        }
        match metrics.as_slice() {
            [with, without] if !with.text_only && without.text_only => {}
            _ => bail!(
                "--ablation takes exactly two runs: one with keyframes, then one run with --text-only"
            ),
        }
    }
    let text = match request.form {
        ReportForm::Table if request.ablation => format!(
            "{}\n{}",
            report::table(&metrics),
            report::ablation_table(&metrics[0], &metrics[1])
        ),
        ReportForm::Table => report::table(&metrics),
        ReportForm::Json => report::json(&metrics),
        ReportForm::Csv => report::csv(&metrics),
        ReportForm::Html => html::html(&metrics)?,
    };
    if humans.len() < 2 {
        return Ok(text);
    }
    // Several annotators on the same trees: how far they agree (walk's human runs).
    let annotators: Vec<_> = humans
        .iter()
        .map(|(run, name)| (run, name.as_str()))
        .collect();
    let pairs = agreement::all_pairs(&annotators);
    Ok(match request.form {
        ReportForm::Table => format!("{text}\n{}", agreement::table(&pairs)),
        ReportForm::Csv => format!("{text}{}", agreement::csv_rows(&pairs)),
        ReportForm::Json | ReportForm::Html => text,
    })
}
