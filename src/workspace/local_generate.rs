//! Use case: `moviegraph local generate` — one completion from the
//! in-process local model, with its timing.

use std::fmt::Write as _;
use std::path::PathBuf;

use crate::llm::local::{resolve_model_path, ChatTurn, GenParams, LoadOptions, LocalModel};

use super::{Context, Result};

/// What `local generate` was asked to do.
#[derive(Debug, Clone)]
pub struct LocalRequest {
    /// The .gguf file (default: the installed one).
    pub model: Option<PathBuf>,
    /// The user message.
    pub prompt: String,
    /// A system message.
    pub system: Option<String>,
    /// A JSON schema the answer must follow.
    pub schema: Option<PathBuf>,
    /// Most tokens to generate.
    pub max_tokens: usize,
    /// Sampling temperature (0: greedy).
    pub temperature: f32,
    /// The sampling seed.
    pub seed: u64,
    /// Print JSON instead of text.
    pub json: bool,
}

/// `local generate`: one completion from the local model at `request.model`
/// (default: the installed SmolLM2), as text with a timing line or as JSON.
pub fn generate_locally(request: &LocalRequest) -> Result<String> {
    let args = request;
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
        Ok(format!("{v:#}\n"))
    } else {
        let mut out = format!("{}\n", g.text);
        writeln!(
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
        )?;
        Ok(out)
    }
}
