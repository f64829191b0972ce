//! `moviegraph local`: try the in-process GGUF backend directly.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use moviegraph::workspace::local_generate::{generate_locally, LocalRequest};

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
    let request = LocalRequest {
        model: args.model,
        prompt: args.prompt,
        system: args.system,
        schema: args.schema,
        max_tokens: args.max_tokens,
        temperature: args.temperature,
        seed: args.seed,
        json: args.json,
    };
    emit(&generate_locally(&request)?)?;
    Ok(Outcome::Success)
}
