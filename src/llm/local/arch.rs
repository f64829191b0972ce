//! The transformer itself: candle's quantized implementations, chosen by the
//! GGUF's `general.architecture`.

use std::fs::File;
use std::path::Path;

use candle_core::quantized::gguf_file::Content;
use candle_core::{Device, Tensor};
use candle_transformers::models::{
    quantized_gemma3, quantized_llama, quantized_qwen2, quantized_qwen3,
};

use super::LocalError;

/// Architectures this backend runs.
pub const SUPPORTED: &[&str] = &["llama", "mistral", "qwen2", "qwen3", "gemma3"];

/// A loaded model of one of the supported architectures.
pub enum Weights {
    /// Llama, SmolLM2, Mistral (llama layout).
    Llama(quantized_llama::ModelWeights),
    /// Qwen2 / Qwen2.5.
    Qwen2(quantized_qwen2::ModelWeights),
    /// Qwen3.
    Qwen3(quantized_qwen3::ModelWeights),
    /// Gemma 3.
    Gemma3(quantized_gemma3::ModelWeights),
}

impl std::fmt::Debug for Weights {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Weights::Llama(_) => "Weights::Llama",
            Weights::Qwen2(_) => "Weights::Qwen2",
            Weights::Qwen3(_) => "Weights::Qwen3",
            Weights::Gemma3(_) => "Weights::Gemma3",
        })
    }
}

fn load_err(path: &Path, e: impl std::fmt::Display) -> LocalError {
    LocalError::Load {
        path: path.to_path_buf(),
        problem: e.to_string(),
    }
}

impl Weights {
    /// Loads the tensors of `ct` from `file`, dispatching on `arch`.
    pub fn load(arch: &str, ct: Content, file: &mut File, path: &Path) -> Result<Self, LocalError> {
        let dev = Device::Cpu;
        Ok(match arch {
            "llama" | "mistral" => Weights::Llama(
                quantized_llama::ModelWeights::from_gguf(ct, file, &dev)
                    .map_err(|e| load_err(path, e))?,
            ),
            "qwen2" => Weights::Qwen2(
                quantized_qwen2::ModelWeights::from_gguf(ct, file, &dev)
                    .map_err(|e| load_err(path, e))?,
            ),
            "qwen3" => Weights::Qwen3(
                quantized_qwen3::ModelWeights::from_gguf(ct, file, &dev)
                    .map_err(|e| load_err(path, e))?,
            ),
            "gemma3" => Weights::Gemma3(
                quantized_gemma3::ModelWeights::from_gguf(ct, file, &dev)
                    .map_err(|e| load_err(path, e))?,
            ),
            other => {
                return Err(LocalError::UnsupportedArchitecture {
                    path: path.to_path_buf(),
                    arch: other.to_string(),
                })
            }
        })
    }

    /// Longest sequence candle's implementation handles (its rotary tables).
    pub fn max_positions(&self) -> usize {
        match self {
            Weights::Llama(_) => quantized_llama::MAX_SEQ_LEN,
            Weights::Gemma3(_) => quantized_gemma3::MAX_SEQ_LEN,
            Weights::Qwen2(_) | Weights::Qwen3(_) => usize::MAX,
        }
    }

    /// Runs `tokens` at positions `pos..`, extending the KV cache (position 0
    /// starts a fresh sequence); returns the logits of the last position.
    pub fn forward(&mut self, tokens: &[u32], pos: usize) -> Result<Vec<f32>, LocalError> {
        let run = |w: &mut Weights| -> candle_core::Result<Vec<f32>> {
            let input = Tensor::new(tokens, &Device::Cpu)?.unsqueeze(0)?;
            let logits = match w {
                Weights::Llama(m) => m.forward(&input, pos)?,
                Weights::Qwen2(m) => m.forward(&input, pos)?,
                Weights::Qwen3(m) => {
                    if pos == 0 {
                        m.clear_kv_cache();
                    }
                    m.forward(&input, pos)?
                }
                Weights::Gemma3(m) => m.forward(&input, pos)?,
            };
            logits
                .squeeze(0)?
                .to_dtype(candle_core::DType::F32)?
                .flatten_all()?
                .to_vec1::<f32>()
        };
        run(self).map_err(|e| LocalError::Generation(format!("forward pass: {e}")))
    }
}
