//! `moviegraph local`: try the in-process GGUF backend directly.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Subcommand};
use moviegraph::llm::local::{resolve_model_path, ChatTurn, GenParams, LoadOptions, LocalModel};

use super::{emit, Outcome};

/// Run a local GGUF model (backend `local`) by hand.
#[derive(Debug, Subcommand)]
pub enum LocalCommand {
    /// Generate a reply to one prompt, optionally constrained to a JSON schema.
    ///
    /// The model is --model, else $MOVIEGRAPH_LOCAL_MODEL, else the single
    /// .gguf under ~/.cache/moviegraph/models/smollm2-135m-instruct/ (installed
    /// by scripts/setup-models). With --schema the reply always parses and
    /// validates against the schema (unless --max-tokens cuts it short).
    ///
    /// Llama-layout models (SmolLM2, Llama, Mistral) run on the engine's own
    /// forward pass, which gives candle's quantized_llama logits bit for bit,
    /// faster; MOVIEGRAPH_LOCAL_ENGINE=candle runs candle's instead.
    /// MOVIEGRAPH_LOCAL_THREADS sets its threads (default: every CPU).
    ///
    /// Examples:
    ///   moviegraph local generate --prompt "Name three colours."
    ///   moviegraph local generate --prompt "Describe Ann." --schema person.schema.json
    #[command(verbatim_doc_comment)]
    Generate(GenerateArgs),
}

/// Options of `local generate`.
#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// The GGUF model file.
    #[arg(long)]
    model: Option<PathBuf>,
    /// The user message.
    #[arg(long)]
    prompt: String,
    /// An optional system message.
    #[arg(long)]
    system: Option<String>,
    /// A JSON schema file the reply must satisfy.
    #[arg(long, value_name = "FILE")]
    schema: Option<PathBuf>,
    /// Most tokens to generate.
    #[arg(long, default_value_t = 256)]
    max_tokens: usize,
    /// Sampling temperature (0 = greedy).
    #[arg(long, default_value_t = 0.0)]
    temperature: f32,
    /// Sampling seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Print the reply and its figures as one JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs a `local` subcommand.
pub fn local(cmd: LocalCommand) -> anyhow::Result<Outcome> {
    match cmd {
        LocalCommand::Generate(args) => generate(args),
    }
}

fn generate(args: GenerateArgs) -> anyhow::Result<Outcome> {
    let schema = match &args.schema {
        Some(p) => {
            let text =
                std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?;
            let v: serde_json::Value = serde_json::from_str(&text)
                .with_context(|| format!("{}: not JSON", p.display()))?;
            Some(v)
        }
        None => None,
    };
    let path = resolve_model_path(args.model.as_deref())?;
    let model = LocalModel::load(&path, &LoadOptions::default())?;
    let mut turns = Vec::new();
    if let Some(s) = &args.system {
        turns.push(ChatTurn::new("system", s.clone()));
    }
    turns.push(ChatTurn::new("user", args.prompt.clone()));
    let params = GenParams {
        max_tokens: args.max_tokens,
        temperature: args.temperature,
        seed: args.seed,
        top_logprobs: 0,
    };
    let g = model
        .generate(&turns, &params, schema.as_ref())
        .with_context(|| format!("generating with {}", path.display()))?;
    let gen_tps = g.completion_tokens as f64 / g.timing.gen_secs.max(1e-9);
    if args.json {
        let v = serde_json::json!({
            "model": model.info().name,
            "engine": model.info().engine,
            "text": g.text,
            "prompt_tokens": g.prompt_tokens,
            "completion_tokens": g.completion_tokens,
            "finish_reason": g.finish_reason.as_str(),
            "dropped_turns": g.dropped_turns,
            "prompt_secs": g.timing.prompt_secs,
            "gen_secs": g.timing.gen_secs,
            "mask_secs": g.timing.mask_secs,
        });
        emit(&format!("{v:#}\n"))?;
    } else {
        let mut out = format!("{}\n", g.text);
        let _ = writeln!(
            out,
            "-- {} ({}, {}): {} prompt + {} completion tokens, finish {}, {:.1} tok/s{}",
            model.info().name,
            model.info().arch,
            model.info().engine,
            g.prompt_tokens,
            g.completion_tokens,
            g.finish_reason.as_str(),
            gen_tps,
            if schema.is_some() {
                format!(
                    ", masks {:.2} ms/token",
                    1e3 * g.timing.mask_secs / g.completion_tokens.max(1) as f64
                )
            } else {
                String::new()
            }
        );
        emit(&out)?;
    }
    Ok(Outcome::Success)
}
