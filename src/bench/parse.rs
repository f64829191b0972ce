//! `bench parse`: parsing speed per format on a full-length script, beside
//! screenplain when asked, or (`--layouts`) the plain-text reader's per-tag
//! F1 on rendered real-world layouts, or (`--real`) on real scripts with
//! line tags.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use anyhow::{bail, Context};
use clap::Args;
use moviegraph::screenplay::{self, Format};

use super::{emit, layouts, line_model, measure, real};

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
    /// Instead of timing: render every Fountain/FDX script under --sources
    /// into this many real-world plain-text layouts (drifting columns, tabs,
    /// margin scene numbers, glued scene numbers, page furniture, headings
    /// without INT./EXT. or in lower case, time cards, names holding INT or
    /// CUT, letter slips of PDF-to-text, loose transitions, wrapped
    /// parentheticals…), parse each as plain text and print per-tag line F1
    /// (S N C D E T) against the known gold.
    #[arg(long, value_name = "N")]
    layouts: Option<usize>,
    /// With --layouts: the first layout seed (layouts are seeds SEED..SEED+N).
    /// Seeds from 2000 on are held out: none was read while the reader's
    /// rules were written, so measure with `--seed 2000`.
    #[arg(long, default_value_t = 0, requires = "layouts")]
    seed: u64,
    /// With --layouts (or --real with --cv or --fit): folders or files of
    /// Fountain/FDX scripts to render.
    #[arg(
        long = "sources",
        value_name = "PATH",
        default_values = ["../shared/conformance", "screenplays", "tests/fixtures"]
    )]
    sources: Vec<PathBuf>,
    /// With --layouts: also write each rendered script and its gold tags to
    /// this folder, to read what the reader got wrong.
    #[arg(long, value_name = "DIR", requires = "layouts")]
    keep: Option<PathBuf>,
    /// Instead of timing: read every script of DIR/scripts/ as plain text
    /// and score it against DIR/tags.csv (`script,line,tag`, tags S N C D E
    /// T O, as ../shared/realscripts-dev/ holds them): per-tag P/R/F1 over
    /// the tagged lines, the confusion matrix, the hardest scripts.
    #[arg(long, value_name = "DIR", conflicts_with = "layouts")]
    real: Option<PathBuf>,
    /// With --real: cross-validate the reader's line model by script (fit on
    /// every script but one and the rendered layouts, score the one left
    /// out), beside the rules reader alone.
    #[arg(long, requires = "real")]
    cv: bool,
    /// With --real: fit the line model on every script of DIR and the
    /// rendered layouts and write its weights to FILE (the shipped ones are
    /// src/screenplay/plaintext/line_model.txt; rebuild to ship a new fit).
    #[arg(long, value_name = "FILE", requires = "real")]
    fit: Option<PathBuf>,
    /// With --cv or --fit: rendered layouts per source script added to the
    /// training data (development seeds 0..N; held-out seeds are never used).
    #[arg(long, value_name = "N", default_value_t = 1)]
    train_layouts: usize,
    /// With --cv or --fit: size of a rendered layout's updates beside a real
    /// script's (1).
    #[arg(long, value_name = "W", default_value_t = 0.2)]
    layout_weight: f32,
    /// With --cv or --fit: passes of the perceptron over the examples.
    #[arg(long, default_value_t = 8)]
    epochs: usize,
    /// With --cv or --fit: the path-score margin by which the model's class
    /// of a line must beat the rules reader's for the line to change (the
    /// defaults of these flags regenerate the shipped model).
    #[arg(long, default_value_t = 1280.0)]
    threshold: f32,
}

struct Input {
    label: String,
    format: Format,
    text: String,
}

pub(super) fn bench_parse(args: BenchParseArgs) -> anyhow::Result<()> {
    if cfg!(debug_assertions) {
        tracing::warn!("this is a debug build: figures are not representative; use --release");
    }
    if let Some(dir) = &args.real {
        let training = line_model::Training {
            roots: args.sources.clone(),
            layouts: args.train_layouts,
            layout_weight: args.layout_weight,
            epochs: args.epochs,
        };
        if let Some(out) = &args.fit {
            return emit(&line_model::fit_and_write(
                dir,
                &training,
                args.threshold,
                out,
            )?);
        }
        if args.cv {
            return emit(&line_model::cross_validate(dir, &training, args.threshold)?);
        }
        return emit(&real::bench_real(dir)?);
    }
    if let Some(n) = args.layouts {
        return emit(&layouts::bench_layouts(
            &args.sources,
            n,
            args.seed,
            args.keep.as_deref(),
        )?);
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
        if input.format == Format::Text {
            // The reader without its line model, timed in the same run: what
            // the model costs.
            let rules = measure(Duration::from_millis(args.min_ms), || {
                let reading = screenplay::plaintext::read_with(&input.text, None);
                elements = reading.elements.len();
            });
            let rules = rules.as_secs_f64();
            let _ = writeln!(
                out,
                "{:<10} {:<28} {:>8.1} {:>10.3} {:>8.1} {:>12.0} {:>9}  (rules reader alone, no line model, no assembly; the model costs {:.2}x)",
                "text",
                input.label,
                input.text.len() as f64 / 1024.0,
                rules * 1e3,
                input.text.len() as f64 / 1e6 / rules,
                elements as f64 / rules,
                elements,
                secs / rules
            );
        }
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
    Ok(())
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
