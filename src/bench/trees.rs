//! `moviegraph bench trees`: tree generation over a synthetic 30-film corpus
//! (rules backend), with the graph analysis alone as the in-run baseline.

use std::fmt::Write as _;
use std::time::Instant;

use anyhow::Context as _;
use clap::Args;
use moviegraph::graph::analysis::analyse;
use moviegraph::trees::audit::{audit, Thresholds};
use moviegraph::trees::facts::Facts;
use moviegraph::trees::generate::rules::RulesWriter;
use moviegraph::trees::generate::{generate, GenerateOptions};
use moviegraph::trees::jsonl::write_trees;
use moviegraph::trees::schema::Tree;
use moviegraph::trees::source::Source;
use moviegraph::trees::synth::corpus;
use moviegraph::trees::validate::{is_valid, validate};
use moviegraph::workspace::audit::AUDIT_SEED;
use rayon::prelude::*;

use super::emit;

/// One film's generation: its trees, invalid trees and JSONL bytes.
type Made = (Vec<Tree>, usize, usize);

/// Options of `bench trees`.
#[derive(Debug, Args)]
pub struct BenchTreesArgs {
    /// Films in the synthetic corpus.
    #[arg(long, default_value_t = 30)]
    films: usize,
    /// Scenes per film (about eight events each; 40 ≈ a feature film).
    #[arg(long, default_value_t = 40)]
    scenes: usize,
    /// Trees per film.
    #[arg(long, default_value_t = 30)]
    max_trees: usize,
    /// Also write each synthetic film's trees to DIR/<film>.jsonl (outside
    /// the timing), to read them or audit them one by one.
    #[arg(long, value_name = "DIR")]
    keep: Option<std::path::PathBuf>,
}

fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// Runs the benchmark.
pub fn bench_trees(a: BenchTreesArgs) -> anyhow::Result<()> {
    let t = Instant::now();
    let graphs = corpus(a.films, a.scenes);
    let synth_s = t.elapsed().as_secs_f64();
    let nodes: usize = graphs.iter().map(|g| g.nodes.len()).sum();
    let edges: usize = graphs.iter().map(|g| g.edges.len()).sum();

    let t = Instant::now();
    let mut chains = 0;
    for g in &graphs {
        chains += analyse(g).chains.len();
    }
    let analyse_s = t.elapsed().as_secs_f64();

    let opts = GenerateOptions {
        max_trees: Some(a.max_trees),
        ..GenerateOptions::default()
    };
    // Films are independent: rayon deals them to every core, a free core
    // taking the next film (films differ in size, so no fixed split).
    let threads = rayon::current_num_threads();
    let t = Instant::now();
    let made: Vec<Made> = graphs
        .par_iter()
        .map(|g| -> anyhow::Result<Made> {
            let facts = Facts::new(g);
            let source = Source::from_evidence(g);
            let out = generate(&facts, &analyse(g), &source, &RulesWriter, &opts);
            let invalid = out
                .trees
                .iter()
                .filter(|tree| !is_valid(&validate(tree)))
                .count();
            let mut buf = Vec::new();
            write_trees(&mut buf, &out.trees)?;
            Ok((out.trees, invalid, buf.len()))
        })
        .collect::<anyhow::Result<_>>()?;
    let trees: usize = made.iter().map(|m| m.0.len()).sum();
    let questions: usize = made.iter().flat_map(|m| &m.0).map(|t| t.nodes.len()).sum();
    let invalid: usize = made.iter().map(|m| m.1).sum();
    let bytes: usize = made.iter().map(|m| m.2).sum();
    let films: Vec<Vec<Tree>> = made.into_iter().map(|m| m.0).collect();
    let gen_s = t.elapsed().as_secs_f64();

    // The validity audit of each film's trees, as `trees generate` runs it
    // (no film layout: the synthetic films have no subtitles).
    let t = Instant::now();
    let reports: Vec<_> = films
        .par_iter()
        .map(|film| audit(film, None, false, Thresholds::default(), AUDIT_SEED))
        .collect();
    let (mut passed, mut worst) = (0, (0.0f64, String::new()));
    for report in &reports {
        passed += usize::from(report.passed());
        for r in &report.readers {
            if r.excess > worst.0 {
                worst = (r.excess, format!("{} {}", r.reader, r.format));
            }
        }
    }
    let audit_s = t.elapsed().as_secs_f64();
    if let Some(dir) = &a.keep {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        for (g, film) in graphs.iter().zip(&films) {
            let path = dir.join(format!("{}.jsonl", g.film));
            let mut file = std::fs::File::create(&path)
                .with_context(|| format!("cannot write {}", path.display()))?;
            write_trees(&mut file, film)?;
        }
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "corpus: {} synthetic films, {nodes} nodes, {edges} edges (made in {synth_s:.3} s)",
        a.films
    );
    let _ = writeln!(
        out,
        "baseline  graph analysis only:                 {analyse_s:>8.3} s ({chains} chains)"
    );
    let _ = writeln!(
        out,
        "trees     analysis + generate + validate + JSONL: {gen_s:>8.3} s ({trees} trees, {questions} questions, {invalid} invalid, {:.1} MB JSONL; {:.0} questions/s; {threads} threads, a film each at a time)",
        bytes as f64 / 1e6,
        questions as f64 / gen_s.max(1e-9)
    );
    let _ = writeln!(
        out,
        "audit     validity audit of each film's trees (same threads):  {audit_s:>8.3} s ({passed} of {} films pass the default thresholds; largest reader excess {:+.3}, {})",
        films.len(),
        worst.0,
        if worst.1.is_empty() { "none" } else { &worst.1 }
    );
    let _ = writeln!(
        out,
        "goal: generation under 10 s → {}; peak memory (VmHWM): {}",
        if gen_s < 10.0 { "met" } else { "missed" },
        peak_rss_kb().map_or("unknown".into(), |kb| format!(
            "{:.1} MB",
            kb as f64 / 1024.0
        ))
    );
    emit(&out)?;
    Ok(())
}
