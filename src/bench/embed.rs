//! `moviegraph bench embed`: sentences per second of the embedders.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Args;
use moviegraph::embed::{CachedEmbedder, Embedder, HashedNgramEmbedder};
use moviegraph::media::subtitles::normalize_for_matching;
use moviegraph::screenplay::{self, ElementKind, Format};
use moviegraph::store::Store;

use super::emit;
use super::DEFAULT_ALIGN_SCRIPTS;
use moviegraph::workspace::embedder::load_minilm;

use crate::args::EmbedderArgs;

/// Options of `bench embed`.
#[derive(Debug, Args)]
pub struct BenchEmbedArgs {
    /// The sample film's script (its dialogue lines are the first text set).
    #[arg(long, default_value = "screenplays/the-second-key/script.fountain")]
    film_script: PathBuf,
    /// Fountain scripts whose dialogue lines make the large text set (default:
    /// the three conformance scripts `bench align` uses).
    #[arg(long = "script", value_name = "FILE")]
    scripts: Vec<PathBuf>,
    /// Lines in the large text set.
    #[arg(long, default_value_t = 1200)]
    lines: usize,
    #[command(flatten)]
    embedding: EmbedderArgs,
}

/// Normalized dialogue texts of Fountain files, as the aligner embeds them.
fn dialogue(paths: &[PathBuf]) -> anyhow::Result<Vec<String>> {
    let mut out = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading {} (pass --script FILE)", path.display()))?;
        let play = screenplay::parse_text(&text, Some(Format::Fountain), None)
            .with_context(|| format!("parsing {}", path.display()))?;
        out.extend(
            play.elements
                .iter()
                .filter(|e| e.kind == ElementKind::Dialogue)
                .map(|e| normalize_for_matching(&e.text).text),
        );
    }
    Ok(out)
}

fn rate(n: usize, d: Duration) -> f64 {
    n as f64 / d.as_secs_f64().max(1e-9)
}

/// CPU time of this process so far (user + system, all threads), from
/// `/proc/self/stat` in USER_HZ (100 per second on Linux); `None` elsewhere.
fn cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

/// Wall and CPU time of one call.
struct Timing {
    wall: Duration,
    cpu: Option<Duration>,
}

/// Embeds `texts` once with `e` and returns the time taken.
fn once(e: &dyn Embedder, texts: &[&str]) -> anyhow::Result<Timing> {
    let (t, c) = (Instant::now(), cpu_time());
    std::hint::black_box(e.embed_batch(texts)?);
    let wall = t.elapsed();
    let cpu = cpu_time().zip(c).map(|(b, a)| b.saturating_sub(a));
    Ok(Timing { wall, cpu })
}

/// Runs `bench embed`.
pub fn bench_embed(args: BenchEmbedArgs) -> anyhow::Result<()> {
    if cfg!(debug_assertions) {
        tracing::warn!("this is a debug build: figures are not representative; use --release");
    }
    let film = dialogue(std::slice::from_ref(&args.film_script))?;
    let scripts: Vec<PathBuf> = if args.scripts.is_empty() {
        DEFAULT_ALIGN_SCRIPTS.iter().map(PathBuf::from).collect()
    } else {
        args.scripts.clone()
    };
    let mut large = dialogue(&scripts)?;
    large.truncate(args.lines);
    let t_load = Instant::now();
    let minilm = load_minilm(&args.embedding.spec())?;
    let load = t_load.elapsed();

    let mut out = String::new();
    let load_avg = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let _ = writeln!(
        out,
        "cores: {cores}  load average: {}  (wall-clock rates fall when other processes share the cores; \
         sentences per CPU-second do not)",
        load_avg.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
    );
    let _ = writeln!(
        out,
        "threads per matrix product: {} (RAYON_NUM_THREADS); batches run at once: {}\nall-MiniLM-L6-v2 load (sha256 check + weights): {:.0} ms  [{}]",
        moviegraph::embed::matmul_threads(),
        minilm.workers(),
        load.as_secs_f64() * 1000.0,
        minilm.dir().display()
    );
    let db = std::env::temp_dir().join(format!("moviegraph-bench-embed-{}.db", std::process::id()));
    for (label, texts) in [("sample film dialogue", &film), ("large set", &large)] {
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let n = refs.len();
        let tokens: usize = refs.iter().map(|t| t.split(' ').count()).sum();
        let _ = writeln!(
            out,
            "{label}: {n} lines, {:.1} words/line",
            tokens as f64 / n.max(1) as f64
        );
        let cold = once(&minilm, &refs)?;
        let _ = std::fs::remove_file(&db);
        let store = Store::open(&db)?;
        let cached = CachedEmbedder::new(&minilm, &store);
        let fill = once(&cached, &refs)?;
        let hits = once(&cached, &refs)?;
        drop(store);
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
        }
        // The hashed embedder is fast: repeat it for a stable figure.
        let mut reps = 0;
        let t = Instant::now();
        while reps < 3 || t.elapsed() < Duration::from_millis(500) {
            std::hint::black_box(HashedNgramEmbedder.embed_batch(&refs)?);
            reps += 1;
        }
        let hashed = Timing {
            wall: t.elapsed() / reps,
            cpu: None,
        };
        for (what, d) in [
            ("all-MiniLM-L6-v2 cold (no cache)", cold),
            (
                "all-MiniLM-L6-v2 through the store, misses (embed + write)",
                fill,
            ),
            ("all-MiniLM-L6-v2 through the store, all hits", hits),
            ("hashed-char-ngram-512 (baseline)", hashed),
        ] {
            let per_cpu = match d.cpu {
                Some(c) if c >= Duration::from_millis(200) => {
                    format!("; {:.1} sentences per CPU-second", rate(n, c))
                }
                _ => String::new(),
            };
            let _ = writeln!(
                out,
                "  {what:<62} {:>10.1} sentences/s  ({:.1} ms{per_cpu})",
                rate(n, d.wall),
                d.wall.as_secs_f64() * 1000.0
            );
        }
    }
    emit(&out)?;
    Ok(())
}
