//! `moviegraph bench`: measured performance figures, printed, never asserted.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::{Args, Subcommand};
use moviegraph::screenplay::{self, Format};

use super::{emit, Outcome};

/// Benchmarks that print figures (build with --release for meaningful numbers).
#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Parsing speed per format: MB/s and elements/s on a full-length script,
    /// optionally side by side with the screenplain Python parser.
    Parse(BenchParseArgs),
    /// Alignment speed and accuracy on a feature-length synthetic film: the
    /// anchor-banded DP against a naive full-matrix DP in the same run.
    Align(BenchAlignArgs),
    /// Question-tree generation (rules backend) over a synthetic 30-film
    /// corpus: time, throughput and peak memory, next to graph analysis alone.
    Trees(super::bench_trees::BenchTreesArgs),
}

/// Options of `bench align`.
#[derive(Debug, Args)]
pub struct BenchAlignArgs {
    /// Fountain scripts concatenated into one long script (default: Big Fish,
    /// Gumshoe and Mostly Genius from the shared conformance corpus, ≈1,400 lines).
    #[arg(long = "script", value_name = "FILE")]
    scripts: Vec<PathBuf>,
    /// Seed of the synthetic subtitles.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Minimum measuring time of the banded alignment, in milliseconds.
    #[arg(long, default_value_t = 1500)]
    min_ms: u64,
    /// Runs of the naive full-matrix alignment (it is slow).
    #[arg(long, default_value_t = 3)]
    naive_runs: usize,
}

/// Options of `bench parse`.
#[derive(Debug, Args)]
pub struct BenchParseArgs {
    /// The film folder whose script.fountain, script.fdx and script.txt are
    /// scaled up (story repeated) to a full-length script.
    #[arg(long, default_value = "screenplays/the-second-key")]
    film: PathBuf,
    /// Size to scale each script to, in KB (a feature script is ~200 KB).
    #[arg(long, default_value_t = 200)]
    target_kb: usize,
    /// Extra files to benchmark as they are (format detected).
    #[arg(long = "file", value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Minimum measuring time per input, in milliseconds.
    #[arg(long, default_value_t = 1500)]
    min_ms: u64,
    /// Also time screenplain (`pip install screenplain`) on the same Fountain
    /// text in this run, and print the speed ratio.
    #[arg(long)]
    screenplain: bool,
    /// The Python interpreter for --screenplain.
    #[arg(long, default_value = "python3")]
    python: String,
}

/// Runs the selected benchmark.
pub fn bench(cmd: BenchCommand) -> anyhow::Result<Outcome> {
    match cmd {
        BenchCommand::Parse(args) => bench_parse(args),
        BenchCommand::Align(args) => bench_align(args),
        BenchCommand::Trees(args) => super::bench_trees::bench_trees(args),
    }
}

struct Input {
    label: String,
    format: Format,
    text: String,
}

fn bench_parse(args: BenchParseArgs) -> anyhow::Result<Outcome> {
    if cfg!(debug_assertions) {
        tracing::warn!("this is a debug build: figures are not representative; use --release");
    }
    let mut inputs = Vec::new();
    let target = args.target_kb * 1024;
    for (file, format) in [
        ("script.fountain", Format::Fountain),
        ("script.fdx", Format::Fdx),
        ("script.txt", Format::Text),
    ] {
        let path = args.film.join(file);
        if !path.exists() {
            continue;
        }
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        let scaled = scale(&text, format, target);
        inputs.push(Input {
            label: format!("{file} ×{}", scaled.1),
            format,
            text: scaled.0,
        });
    }
    for path in &args.files {
        let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        let (text, _) = screenplay::decode::decode(&bytes)
            .map_err(|e| anyhow::anyhow!("{}: not a text file ({e:?})", path.display()))?;
        let format = Format::detect(Some(path), &text);
        inputs.push(Input {
            label: path.display().to_string(),
            format,
            text,
        });
    }
    if inputs.is_empty() {
        bail!(
            "nothing to benchmark: {} has no script.fountain/.fdx/.txt and no --file was given",
            args.film.display()
        );
    }

    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<10} {:<28} {:>8} {:>10} {:>8} {:>12} {:>9}",
        "format", "input", "KB", "median ms", "MB/s", "elements/s", "elements"
    );
    let mut fountain_runs: Vec<(String, f64, String)> = Vec::new();
    for input in &inputs {
        let mut elements = 0;
        let median = measure(Duration::from_millis(args.min_ms), || {
            let play = screenplay::parse_text(&input.text, Some(input.format), None)
                .expect("benchmark inputs parse");
            elements = play.elements.len();
        });
        let secs = median.as_secs_f64();
        if input.format == Format::Fountain {
            fountain_runs.push((input.label.clone(), secs, input.text.clone()));
        }
        let _ = writeln!(
            out,
            "{:<10} {:<28} {:>8.1} {:>10.3} {:>8.1} {:>12.0} {:>9}",
            input.format.as_str(),
            input.label,
            input.text.len() as f64 / 1024.0,
            secs * 1e3,
            input.text.len() as f64 / 1e6 / secs,
            elements as f64 / secs,
            elements
        );
    }
    if args.screenplain {
        if fountain_runs.is_empty() {
            let _ = writeln!(out, "screenplain: skipped (no Fountain input)");
        }
        for (label, ours, text) in &fountain_runs {
            match time_screenplain(&args.python, text, args.min_ms) {
                Ok(theirs) => {
                    let _ = writeln!(
                        out,
                        "screenplain on {label}: median {:.3} ms; moviegraph {:.3} ms, {:.0}× faster",
                        theirs * 1e3,
                        ours * 1e3,
                        theirs / ours
                    );
                }
                Err(why) => {
                    let _ = writeln!(out, "screenplain: skipped ({why:#})");
                    break;
                }
            }
        }
    }
    emit(&out)?;
    Ok(Outcome::Success)
}

/// Repeats the story part of a script until it reaches `target` bytes; returns
/// the text and the repeat count. FDX repeats the paragraphs inside `<Content>`
/// so the document stays well-formed.
fn scale(text: &str, format: Format, target: usize) -> (String, usize) {
    let copies = target.div_ceil(text.len().max(1)).max(1);
    match format {
        Format::Fdx => {
            let (Some(start), Some(end)) = (text.find("<Content>"), text.find("</Content>")) else {
                return (text.to_string(), 1);
            };
            let body = &text[start + "<Content>".len()..end];
            let mut s = String::with_capacity(text.len() * copies);
            s.push_str(&text[..start + "<Content>".len()]);
            for _ in 0..copies {
                s.push_str(body);
            }
            s.push_str(&text[end..]);
            (s, copies)
        }
        _ => {
            let mut s = String::with_capacity(text.len() * copies);
            for _ in 0..copies {
                s.push_str(text);
                s.push('\n');
            }
            (s, copies)
        }
    }
}

/// Median wall time of `f` over repeated runs lasting at least `min` (and at least 5 runs).
fn measure(min: Duration, mut f: impl FnMut()) -> Duration {
    for _ in 0..2 {
        f();
    }
    let mut samples = Vec::new();
    let start = Instant::now();
    while samples.len() < 5 || start.elapsed() < min {
        let t = Instant::now();
        f();
        samples.push(t.elapsed());
        if samples.len() >= 100_000 {
            break;
        }
    }
    samples.sort();
    samples[samples.len() / 2]
}

const SCREENPLAIN_TIMER: &str = r#"
import io, sys, time, statistics
from screenplain.parsers import fountain
path, min_s = sys.argv[1], float(sys.argv[2])
with open(path, encoding="utf-8") as f:
    text = f.read()
def once():
    # list() forces every paragraph, in case parsing is ever made lazy.
    return len(list(fountain.parse(io.StringIO(text))))
once()
samples = []
start = time.perf_counter()
while len(samples) < 3 or time.perf_counter() - start < min_s:
    t = time.perf_counter()
    once()
    samples.append(time.perf_counter() - t)
print(statistics.median(samples))
"#;

/// Median seconds screenplain takes to parse `text`, measured by a Python child process.
fn time_screenplain(python: &str, text: &str, min_ms: u64) -> anyhow::Result<f64> {
    let dir = std::env::temp_dir().join(format!("moviegraph-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let file = dir.join("script.fountain");
    std::fs::write(&file, text)?;
    let output = Command::new(python)
        .arg("-c")
        .arg(SCREENPLAIN_TIMER)
        .arg(&file)
        .arg(format!("{}", min_ms as f64 / 1000.0))
        .output()
        .with_context(|| format!("running {python}"));
    let _ = std::fs::remove_dir_all(&dir);
    let output = output?;
    if !output.status.success() {
        let err = String::from_utf8_lossy(&output.stderr);
        let last = err.lines().last().unwrap_or("failed");
        bail!("{last}; install it with `pip install screenplain`");
    }
    let secs: f64 = String::from_utf8_lossy(&output.stdout)
        .trim()
        .parse()
        .context("screenplain timer printed no number")?;
    Ok(secs)
}

const DEFAULT_ALIGN_SCRIPTS: [&str; 3] = [
    "../shared/conformance/jumpcut/corpus/big-fish/source/source.fountain",
    "../shared/conformance/jumpcut/corpus/gumshoe/source/source.fountain",
    "../shared/conformance/jumpcut/corpus/mostly-genius/source/source.fountain",
];

fn bench_align(args: BenchAlignArgs) -> anyhow::Result<Outcome> {
    use moviegraph::align::dp::{self, Band};
    use moviegraph::align::eval::evaluate;
    use moviegraph::align::similarity::{prepare, HashedNgramEmbedder, Vocabulary};
    use moviegraph::align::synth::{synth, SynthOptions};
    use moviegraph::align::{align, anchors, AlignOptions};

    if cfg!(debug_assertions) {
        tracing::warn!("this is a debug build: figures are not representative; use --release");
    }
    let paths: Vec<PathBuf> = if args.scripts.is_empty() {
        DEFAULT_ALIGN_SCRIPTS.iter().map(PathBuf::from).collect()
    } else {
        args.scripts.clone()
    };
    let mut text = String::new();
    for path in &paths {
        let part = std::fs::read_to_string(path)
            .with_context(|| format!("reading {} (pass --script FILE)", path.display()))?;
        text.push_str(&part);
        text.push_str("\n\n");
    }
    let play = screenplay::parse_text(&text, Some(Format::Fountain), None)?;
    let case = synth(
        &play,
        &SynthOptions {
            seed: args.seed,
            ..SynthOptions::default()
        },
    );
    let subs = &case.subtitles;
    let banded_opts = AlignOptions::default();
    let naive_opts = AlignOptions {
        naive: true,
        ..AlignOptions::default()
    };
    let banded = align(&play, subs, &banded_opts);
    let naive = align(&play, subs, &naive_opts);
    let t_banded = measure(Duration::from_millis(args.min_ms), || {
        std::hint::black_box(align(&play, subs, &banded_opts));
    });
    let mut naive_samples: Vec<Duration> = (0..args.naive_runs.max(1))
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(align(&play, subs, &naive_opts));
            t.elapsed()
        })
        .collect();
    naive_samples.sort();
    let t_naive = naive_samples[naive_samples.len() / 2];

    // The DP alone, on prepared sides.
    let lines: Vec<&str> = play
        .elements
        .iter()
        .filter(|e| e.kind == screenplay::ElementKind::Dialogue)
        .map(|e| e.text.as_str())
        .collect();
    let cues: Vec<&str> = subs.cues.iter().map(|c| c.text.as_str()).collect();
    let params = banded_opts.params;
    let mut vocab = Vocabulary::default();
    let t_prep = Instant::now();
    let ls = prepare(&lines, params.max_group, &mut vocab, &HashedNgramEmbedder);
    let cs = prepare(&cues, params.max_group, &mut vocab, &HashedNgramEmbedder);
    let prep = t_prep.elapsed();
    let chain = anchors::monotone_chain(&anchors::find_anchors(&ls, &cs));
    let band = Band::around(&chain, ls.len(), cs.len(), banded_opts.band_margin);
    let t_dp_banded = measure(Duration::from_millis(args.min_ms), || {
        std::hint::black_box(dp::banded_dp(&ls, &cs, &band, &params));
    });
    let t = Instant::now();
    let naive_pairs = dp::naive_full_dp(&ls, &cs, &params);
    let t_dp_naive = t.elapsed();
    let same_dp = naive_pairs == dp::banded_dp(&ls, &cs, &band, &params);

    let rb = evaluate(&banded, &case.gold, subs);
    let rn = evaluate(&naive, &case.gold, subs);
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "synthetic film: {} dialogue lines, {} cues (seed {}, moved scene {:?}); anchors in chain: {}",
        lines.len(),
        cs.len(),
        args.seed,
        case.moved_scene,
        chain.len()
    );
    let _ = writeln!(
        out,
        "{:<8} {:>12} {:>10} {:>12} {:>10} {:>8} {:>8}",
        "dp", "align ms", "dp ms", "cells", "precision", "recall", "verdict"
    );
    for (name, total, dp_ms, cells, r, a) in [
        ("banded", t_banded, t_dp_banded, band.cells(), &rb, &banded),
        (
            "naive",
            t_naive,
            t_dp_naive,
            (ls.len() + 1) * (cs.len() + 1),
            &rn,
            &naive,
        ),
    ] {
        let _ = writeln!(
            out,
            "{:<8} {:>12.2} {:>10.2} {:>12} {:>10.4} {:>8.4} {:>8}",
            name,
            ms(total),
            ms(dp_ms),
            cells,
            r.precision,
            r.recall,
            a.summary.verdict.as_str()
        );
    }
    let _ = writeln!(
        out,
        "naive / banded: {:.1}x end to end, {:.1}x DP alone; preparation (normalize + embed both sides): {:.2} ms; DP results identical: {}",
        ms(t_naive) / ms(t_banded),
        ms(t_dp_naive) / ms(t_dp_banded),
        ms(prep),
        same_dp
    );
    emit(&out)?;
    Ok(Outcome::Success)
}
