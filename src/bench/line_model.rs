//! `bench parse --real DIR --cv` and `--fit FILE`: the plain-text reader's
//! line model fitted on real scripts with line tags and on rendered layouts,
//! cross-validated by script (fit on all scripts but one, score that one),
//! and the shipped weights regenerated.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use moviegraph::screenplay::layouts::{render, tags_of, Layout, Tag};
use moviegraph::screenplay::plaintext::sequence::{class_of, fit, Example, Model};
use moviegraph::screenplay::plaintext::{observe_text, read_with};

use super::layouts::renderable;
use super::real::{confuse, read_tagged, render_matrix, Confusion, TaggedScript};

/// Seed of the fitting order.
pub const FIT_SEED: u64 = 41;

/// What the model is fitted on, besides the real scripts, and how.
#[derive(Debug, Clone)]
pub struct Training {
    /// Folders or files of Fountain/FDX scripts to render.
    pub roots: Vec<PathBuf>,
    /// Rendered layouts per source script (development seeds `0..layouts`).
    pub layouts: usize,
    /// Size of a rendered layout's updates beside a real script's (1): the
    /// renderer's layouts are many and long, and only like real ones.
    pub layout_weight: f32,
    /// Passes over the examples.
    pub epochs: usize,
}

/// The training sequences of a tagged script: runs of consecutive tagged
/// non-blank lines.
fn script_examples(s: &TaggedScript) -> Vec<Example> {
    let (observed, _) = observe_text(&s.text);
    let fresh = || Example {
        weight: 1.0,
        ..Example::default()
    };
    let mut out: Vec<Example> = Vec::new();
    let mut run = fresh();
    for (features, no) in observed.features.into_iter().zip(observed.lines) {
        match s.gold.get(&no) {
            Some(&tag) => {
                run.features.push(features);
                run.gold.push(class_of(tag));
            }
            None if !run.gold.is_empty() => out.push(std::mem::replace(&mut run, fresh())),
            None => {}
        }
    }
    if !run.gold.is_empty() {
        out.push(run);
    }
    out
}

/// Training sequences from rendered layouts of the Fountain/FDX scripts
/// under `roots` (development seeds `0..layouts`, never the held-out ones).
pub fn layout_examples(training: &Training) -> Vec<Example> {
    let mut out = Vec::new();
    for (k, _, play) in renderable(&training.roots) {
        for seed in 0..training.layouts as u64 {
            let rendered = render(&play, &Layout::draw(seed), seed ^ (k as u64) << 32);
            let (observed, _) = observe_text(&rendered.text);
            let gold: Vec<usize> = observed
                .lines
                .iter()
                .map(|&no| class_of(rendered.tags.get(no - 1).copied().flatten()))
                .collect();
            out.push(Example {
                features: observed.features,
                gold,
                weight: training.layout_weight,
            });
        }
    }
    out
}

/// The model's tags of every line of `text`.
fn model_tags(text: &str, model: &Model) -> Vec<Option<Tag>> {
    let reading = read_with(text, Some(model));
    let tags = tags_of(&reading.elements, &reading.noise, text.split('\n').count());
    super::real::blank_lines_as_furniture(tags, text)
}

/// Fits on every tagged script of `dir` and the rendered layouts.
pub fn fit_all(dir: &Path, training: &Training) -> anyhow::Result<Model> {
    let scripts = read_tagged(dir)?;
    let mut examples: Vec<Example> = scripts.iter().flat_map(script_examples).collect();
    examples.extend(layout_examples(training));
    Ok(fit(&examples, training.epochs, FIT_SEED))
}

/// Thresholds the cross-validation compares (path-score margins a line's
/// change must clear).
pub const THRESHOLDS: [f32; 8] = [0.0, 20.0, 80.0, 160.0, 320.0, 640.0, 1280.0, f32::INFINITY];

/// Leave-one-script-out: the rules reader and the reader with a model
/// fitted without the scored script, side by side, at each threshold; then
/// the model fitted on every script, on held-out rendered layouts.
pub fn cross_validate(dir: &Path, training: &Training, threshold: f32) -> anyhow::Result<String> {
    let started = Instant::now();
    let scripts = read_tagged(dir)?;
    let per_script: Vec<Vec<Example>> = scripts.iter().map(script_examples).collect();
    let rendered = layout_examples(training);
    let mut rules: Confusion = [[0; 7]; 7];
    let mut at: Vec<Confusion> = vec![[[0; 7]; 7]; THRESHOLDS.len()];
    let mut chosen: Confusion = [[0; 7]; 7];
    let mut rows = Vec::new();
    for (held, s) in scripts.iter().enumerate() {
        let mut train: Vec<Example> = per_script
            .iter()
            .enumerate()
            .filter(|&(k, _)| k != held)
            .flat_map(|(_, e)| e.iter().cloned())
            .collect();
        train.extend(rendered.iter().cloned());
        let mut fitted = fit(&train, training.epochs, FIT_SEED);
        let n = s.text.split('\n').count();
        let before = confuse(&s.gold, &reader_classes_rules(&s.text, n), &mut rules);
        for (k, &t) in THRESHOLDS.iter().enumerate() {
            fitted.threshold = t;
            confuse(&s.gold, &model_tags(&s.text, &fitted), &mut at[k]);
        }
        fitted.threshold = threshold;
        let after = confuse(&s.gold, &model_tags(&s.text, &fitted), &mut chosen);
        rows.push((s.name.clone(), accuracy(&before), accuracy(&after)));
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "line model cross-validated by script on {} ({} scripts; each scored by a model fitted on the other {} and {} rendered layouts of the development seeds at weight {}, {} epochs), {:.1} s",
        dir.display(),
        scripts.len(),
        scripts.len().saturating_sub(1),
        rendered.len(),
        training.layout_weight,
        training.epochs,
        started.elapsed().as_secs_f64()
    );
    let _ = writeln!(out, "\nrules reader alone:");
    render_matrix(&rules, &mut out);
    let _ = writeln!(
        out,
        "\nrules reader + line model (cross-validated), threshold {threshold}:"
    );
    render_matrix(&chosen, &mut out);
    let _ = writeln!(
        out,
        "\nper script (tagged story lines read right): rules -> model"
    );
    for (name, a, b) in rows {
        let _ = writeln!(
            out,
            "  {name:<10} {:>5.1} % -> {:>5.1} %",
            100.0 * a,
            100.0 * b
        );
    }
    let all = fit_all(dir, training)?;
    let _ = writeln!(
        out,
        "\nper-tag F1 by threshold: cross-validated on the real scripts | the model fitted on all of them, on held-out rendered layouts (seeds {HELD_OUT}..{})",
        HELD_OUT + CHECK_LAYOUTS
    );
    let _ = writeln!(
        out,
        "  threshold    S     N     C     D     E     T  |    S     N     C     D     E     T"
    );
    for (k, &t) in THRESHOLDS.iter().enumerate() {
        let mut model = all.clone();
        model.threshold = t;
        let held = held_out_layouts(&training.roots, &model)?;
        let label = if t.is_finite() {
            format!("{t:>9.1}")
        } else {
            format!("{:>9}", "rules")
        };
        let _ = writeln!(out, "  {label}  {}  | {}", f1_row(&at[k]), f1_row(&held));
    }
    Ok(out)
}

/// First held-out layout seed (as `bench parse --layouts` counts them).
const HELD_OUT: u64 = 2000;
/// Held-out layouts per source script in the threshold table.
const CHECK_LAYOUTS: u64 = 3;

/// The per-tag F1 of a matrix as one row.
fn f1_row(m: &Confusion) -> String {
    let c = super::real::counts(m);
    Tag::ALL
        .iter()
        .map(|t| format!("{:>5.1}", 100.0 * c[t].f1()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The confusion of `model` on held-out rendered layouts of the sources.
fn held_out_layouts(roots: &[PathBuf], model: &Model) -> anyhow::Result<Confusion> {
    let mut m: Confusion = [[0; 7]; 7];
    for (k, _, play) in renderable(roots) {
        for seed in HELD_OUT..HELD_OUT + CHECK_LAYOUTS {
            let rendered = render(&play, &Layout::draw(seed), seed ^ (k as u64) << 32);
            let gold: std::collections::BTreeMap<usize, Option<Tag>> = rendered
                .text
                .split('\n')
                .enumerate()
                .filter(|(_, l)| !l.trim().is_empty())
                .map(|(i, _)| (i + 1, rendered.tags.get(i).copied().flatten()))
                .collect();
            confuse(&gold, &model_tags(&rendered.text, model), &mut m);
        }
    }
    Ok(m)
}

/// The rules reader's tags (no line model), to compare against.
fn reader_classes_rules(text: &str, n: usize) -> Vec<Option<Tag>> {
    let reading = read_with(text, None);
    super::real::blank_lines_as_furniture(tags_of(&reading.elements, &reading.noise, n), text)
}

fn accuracy(m: &Confusion) -> f64 {
    super::real::story_accuracy(m)
}

/// Fits on everything and writes the model to `out`.
pub fn fit_and_write(
    dir: &Path,
    training: &Training,
    threshold: f32,
    out: &Path,
) -> anyhow::Result<String> {
    let started = Instant::now();
    let mut model = fit_all(dir, training)?;
    model.threshold = threshold;
    std::fs::write(out, model.to_text()).with_context(|| format!("writing {}", out.display()))?;
    Ok(format!(
        "fitted the line model on {} and {} rendered layout(s) per source script at weight {}: {} weighted features, {} epochs, seed {FIT_SEED}, threshold {threshold}, {:.1} s; wrote {} (rebuild to ship it)\n",
        dir.display(),
        training.layouts,
        training.layout_weight,
        model.len(),
        training.epochs,
        started.elapsed().as_secs_f64(),
        out.display()
    ))
}
