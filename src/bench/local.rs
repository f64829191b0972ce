//! `moviegraph bench local`: throughput of the in-process GGUF backend, with
//! and without schema-constrained decoding, measured in the same run.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use moviegraph::llm::local::{
    resolve_model_path, ChatTurn, GenParams, Generation, LoadOptions, LocalModel,
};

use super::emit;

/// Options of `bench local`.
#[derive(Debug, Args)]
pub struct BenchLocalArgs {
    /// The GGUF model (default: as `local generate` finds it).
    #[arg(long)]
    model: Option<PathBuf>,
    /// Screenplay whose opening is the prompt's material.
    #[arg(long, default_value = "screenplays/the-second-key/script.fountain")]
    script: PathBuf,
    /// Characters of the script put in the prompt.
    #[arg(long, default_value_t = 2500)]
    script_chars: usize,
    /// Most tokens generated per run.
    #[arg(long, default_value_t = 160)]
    max_tokens: usize,
    /// Runs of each configuration (after one warm-up run).
    #[arg(long, default_value_t = 2)]
    runs: usize,
    /// A Python interpreter with `llama-cpp-python` (benches/local.sh builds
    /// one): llama.cpp then runs the same file and prompt in this run, as the
    /// peer; without it that comparison is skipped.
    #[arg(long)]
    python: Option<String>,
}

const PEER_SCRIPT: &str = include_str!("../../benches/llama_cpp_peer.py");

/// What llama.cpp measured on the same file and prompt.
#[derive(Debug, serde::Deserialize)]
struct Peer {
    version: String,
    threads: usize,
    prompt_tokens: usize,
    prompt_secs: f64,
    tokens: usize,
    gen_secs: f64,
}

/// Runs [`PEER_SCRIPT`] under `python`; `Err` carries why it was skipped.
fn llama_cpp_peer(
    python: &str,
    model: &std::path::Path,
    prompt: &[u32],
    max_tokens: usize,
    runs: usize,
) -> Result<Peer, String> {
    let input = serde_json::json!({
        "model": model,
        "prompt": prompt,
        "max_tokens": max_tokens,
        "runs": runs,
        "threads": moviegraph::llm::local::llama::engine_threads(),
        "batch": moviegraph::llm::local::PREFILL_CHUNK,
    });
    let output = std::process::Command::new(python)
        .args(["-c", PEER_SCRIPT, &input.to_string()])
        .output()
        .map_err(|e| format!("cannot run {python}: {e}"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(stderr.lines().last().unwrap_or("no message").to_string());
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    serde_json::from_str(stdout.trim())
        .map_err(|e| format!("unreadable peer output ({e}): {stdout}"))
}

/// The schema of the constrained runs: shaped like a pipeline role's output.
fn bench_schema() -> serde_json::Value {
    serde_json::json!({
        "type": "object",
        "properties": {
            "characters": {"type": "array", "minItems": 1, "maxItems": 4, "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "maxLength": 40},
                    "feeling": {"enum": ["happy", "sad", "angry", "afraid", "surprised", "neutral"]},
                    "wants": {"type": "string", "maxLength": 160},
                    "certain": {"type": "boolean"}
                },
                "required": ["name", "feeling", "wants", "certain"]
            }},
            "summary": {"type": "string", "maxLength": 400}
        },
        "required": ["characters", "summary"]
    })
}

/// CPU seconds (user + system, all threads) of this process so far, from
/// `/proc/self/stat` (Linux, USER_HZ = 100); `None` elsewhere.
fn cpu_secs() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name; utime and stime are the 14th and 15th.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

#[derive(Default)]
struct Sum {
    cpu_secs: Option<f64>,
    wall_secs: f64,
    prompt_tokens: usize,
    prompt_secs: f64,
    tokens: usize,
    secs: f64,
    mask_secs: f64,
    sample_secs: f64,
    detokenize_secs: f64,
    generations: usize,
    computed: u64,
    cached: u64,
    skipped: u64,
}

impl Sum {
    fn add(&mut self, g: &Generation) {
        self.prompt_tokens += g.prompt_tokens;
        self.prompt_secs += g.timing.prompt_secs;
        self.tokens += g.completion_tokens;
        self.secs += g.timing.gen_secs;
        self.mask_secs += g.timing.mask_secs;
        self.sample_secs += g.timing.sample_secs;
        self.detokenize_secs += g.timing.detokenize_secs;
        self.generations += 1;
        self.computed += g.timing.masks_computed;
        self.cached += g.timing.masks_cached;
        self.skipped += g.timing.masks_skipped;
    }
    /// Runs `f`, adding its generation and its wall and CPU time.
    fn run(
        &mut self,
        f: impl FnOnce() -> Result<Generation, moviegraph::llm::local::LocalError>,
    ) -> anyhow::Result<Generation> {
        let (c0, t0) = (cpu_secs(), std::time::Instant::now());
        let g = f()?;
        self.wall_secs += t0.elapsed().as_secs_f64();
        if let (Some(a), Some(b)) = (c0, cpu_secs()) {
            *self.cpu_secs.get_or_insert(0.0) += b - a;
        }
        self.add(&g);
        Ok(g)
    }
    fn pps(&self) -> f64 {
        self.prompt_tokens as f64 / self.prompt_secs.max(1e-9)
    }
    fn ms_per_token(&self) -> f64 {
        1e3 * self.secs / self.tokens.max(1) as f64
    }
    fn cpu(&self) -> String {
        match self.cpu_secs {
            Some(c) => format!(
                "CPU {c:.2} s over {:.2} s wall ({:.2} cores busy)",
                self.wall_secs,
                c / self.wall_secs.max(1e-9)
            ),
            None => "CPU time unavailable".into(),
        }
    }
    fn tps(&self) -> f64 {
        self.tokens as f64 / self.secs.max(1e-9)
    }
    /// Per generated token: forward pass, sampling, masks (ms); and
    /// detokenization per generation (ms).
    fn phases(&self) -> String {
        let per_token = |secs: f64| 1e3 * secs / self.tokens.max(1) as f64;
        format!(
            "forward {:.2} ms/token, sampling {:.3} ms/token, masks {:.3} ms/token, detokenization {:.3} ms per generation",
            per_token(self.secs - self.sample_secs - self.mask_secs),
            per_token(self.sample_secs),
            per_token(self.mask_secs),
            1e3 * self.detokenize_secs / self.generations.max(1) as f64
        )
    }
    fn mask_ms(&self) -> f64 {
        1e3 * self.mask_secs / self.tokens.max(1) as f64
    }
}

/// One short unconstrained generation (allocator, caches), so the measured
/// runs start warm.
fn warm_up(model: &LocalModel, turns: &[ChatTurn], params: &GenParams) -> anyhow::Result<()> {
    model.generate(
        turns,
        &GenParams {
            max_tokens: 8,
            ..*params
        },
        None,
    )?;
    Ok(())
}

/// Runs the benchmark and prints its figures.
pub fn bench_local(args: BenchLocalArgs) -> anyhow::Result<()> {
    let path = resolve_model_path(args.model.as_deref())?;
    let script = std::fs::read_to_string(&args.script)
        .with_context(|| format!("reading {}", args.script.display()))?;
    let excerpt: String = script.chars().take(args.script_chars).collect();
    let turns = vec![
        ChatTurn::new("system", "You read screenplays and describe what the characters feel and want."),
        ChatTurn::new(
            "user",
            format!("Screenplay excerpt:\n\n{excerpt}\n\nList the characters, what each feels and wants, then summarise."),
        ),
    ];
    let params = GenParams {
        max_tokens: args.max_tokens,
        temperature: 0.0,
        seed: 0,
        top_logprobs: 0,
    };
    let schema = bench_schema();
    let t = std::time::Instant::now();
    let model = LocalModel::load(&path, &LoadOptions::default())?;
    let load_secs = t.elapsed().as_secs_f64();
    let info = model.info();

    // Warm-up (allocator, caches) without a schema, so the constrained cold run is really cold.
    warm_up(&model, &turns, &params)?;
    let mut free = Sum::default();
    for _ in 0..args.runs {
        free.run(|| model.generate(&turns, &params, None))?;
    }
    let mut cold_sum = Sum::default();
    let cold = cold_sum.run(|| model.generate(&turns, &params, Some(&schema)))?;
    let mut warm = Sum::default();
    for _ in 0..args.runs {
        warm.run(|| model.generate(&turns, &params, Some(&schema)))?;
    }

    let mut out = String::new();
    let _ = writeln!(
        out,
        "model {} ({}, {}, {}), vocab {}, context {}, loaded in {:.2} s, {} threads, {} CPUs online",
        info.name,
        info.arch,
        info.engine,
        path.display(),
        info.vocab_size,
        info.context_len,
        load_secs,
        moviegraph::llm::local::llama::engine_threads(),
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    let _ = writeln!(
        out,
        "prompt processing: unconstrained {} tokens in {:.3} s = {:.1} tokens/s; constrained (warm) {} tokens in {:.3} s = {:.1} tokens/s",
        free.prompt_tokens,
        free.prompt_secs,
        free.pps(),
        warm.prompt_tokens,
        warm.prompt_secs,
        warm.pps()
    );
    let _ = writeln!(
        out,
        "generation, greedy, up to {} tokens per run, {} runs:",
        args.max_tokens, args.runs
    );
    let _ = writeln!(
        out,
        "  unconstrained:            {:6.1} tokens/s ({} tokens, {:.2} ms/token); {}",
        free.tps(),
        free.tokens,
        free.ms_per_token(),
        free.cpu()
    );
    for (label, s) in [
        ("constrained, cold cache: ", &cold_sum),
        ("constrained, warm cache: ", &warm),
    ] {
        let _ = writeln!(
            out,
            "  {label} {:6.1} tokens/s ({} tokens, {:.2} ms/token), time per token {:.3}x unconstrained, masks {:.3} ms/token ({} computed, {} cached, {} steps needed none); {}",
            s.tps(),
            s.tokens,
            s.ms_per_token(),
            s.ms_per_token() / free.ms_per_token().max(1e-9),
            s.mask_ms(),
            s.computed,
            s.cached,
            s.skipped,
            s.cpu()
        );
    }
    for (label, sum) in [("unconstrained", &free), ("constrained (warm)", &warm)] {
        let _ = writeln!(out, "  where the time goes, {label}: {}", sum.phases());
    }
    let _ = writeln!(
        out,
        "constrained output ({}): {}",
        cold.finish_reason.as_str(),
        cold.text
    );
    emit(&out)?;

    let mut out = String::new();
    match &args.python {
        None => out.push_str(
            "llama.cpp peer: skipped (no --python with llama-cpp-python; benches/local.sh installs it)\n",
        ),
        Some(python) => {
            let prompt = model.tokenize(&model.render_prompt(&turns)?)?;
            match llama_cpp_peer(python, &path, &prompt, args.max_tokens, args.runs) {
                Err(why) => {
                    let _ = writeln!(out, "llama.cpp peer: skipped ({why})");
                }
                Ok(peer) => {
                    let peer_pps = peer.prompt_tokens as f64 / peer.prompt_secs.max(1e-9);
                    let peer_tps = peer.tokens as f64 / peer.gen_secs.max(1e-9);
                    let _ = writeln!(
                        out,
                        "llama.cpp peer (llama-cpp-python {}, {} threads, same file and prompt, {} tokens): prompt {:.1} tokens/s, generation {:.1} tokens/s ({} tokens)",
                        peer.version, peer.threads, prompt.len(), peer_pps, peer_tps, peer.tokens
                    );
                    let _ = writeln!(
                        out,
                        "moviegraph / llama.cpp: prompt {:.2}x, generation {:.2}x unconstrained, {:.2}x constrained (warm)",
                        free.pps() / peer_pps.max(1e-9),
                        free.tps() / peer_tps.max(1e-9),
                        warm.tps() / peer_tps.max(1e-9)
                    );
                }
            }
        }
    }
    emit(&out)?;

    // The same prompts on candle's quantized_llama, the implementation the
    // engine's own llama pass replaced and reproduces bit for bit.
    let mut out = String::new();
    if info.engine == "moviegraph llama pass" {
        let reference = LocalModel::load(
            &path,
            &LoadOptions {
                candle_llama: true,
                ..LoadOptions::default()
            },
        )?;
        warm_up(&reference, &turns, &params)?;
        let mut sum = Sum::default();
        let mut same = true;
        for _ in 0..args.runs {
            let theirs = sum.run(|| reference.generate(&turns, &params, None))?;
            let ours = model.generate(&turns, &params, None)?;
            same &= theirs.text == ours.text;
        }
        let _ = writeln!(
            out,
            "candle quantized_llama (the reference, MOVIEGRAPH_LOCAL_ENGINE=candle): prompt {:.1} tokens/s, generation {:.1} tokens/s; this engine {:.2}x its prompt speed, {:.2}x its generation; greedy output {}",
            sum.pps(),
            sum.tps(),
            free.pps() / sum.pps().max(1e-9),
            free.tps() / sum.tps().max(1e-9),
            if same { "identical" } else { "DIFFERS" }
        );
    }

    // The same prompts on the file requantized to Q8_0 (`requantize = "q8_0"`).
    let requantized = LocalModel::load(
        &path,
        &LoadOptions {
            requantize: true,
            ..LoadOptions::default()
        },
    )?;
    if !requantized.info().requantized {
        let _ = writeln!(
            out,
            "requantize = \"q8_0\": nothing to re-encode (no tensor of a type this engine multiplies with scalar code)"
        );
    } else {
        warm_up(&requantized, &turns, &params)?;
        let mut q8 = Sum::default();
        let mut last = None;
        for _ in 0..args.runs {
            last = Some(q8.run(|| requantized.generate(&turns, &params, None))?);
        }
        let own = model.generate(&turns, &params, None)?;
        let _ = writeln!(
            out,
            "requantized to Q8_0 (requantize = \"q8_0\"): prompt {:.1} tokens/s ({:.2}x the file's own types), generation {:.1} tokens/s ({:.2}x); greedy output {} the file's own",
            q8.pps(),
            q8.pps() / free.pps().max(1e-9),
            q8.tps(),
            q8.tps() / free.tps().max(1e-9),
            if last.is_some_and(|g| g.text == own.text) { "equals" } else { "differs from" }
        );
    }
    emit(&out)?;
    Ok(())
}
