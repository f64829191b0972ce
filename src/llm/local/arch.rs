//! The transformer itself: candle's quantized implementations, chosen by the
//! GGUF's `general.architecture`.

use std::fs::File;
use std::io::{Cursor, Read, Seek};
use std::path::Path;

use candle_core::quantized::gguf_file::{self, Content};
use candle_core::quantized::{GgmlDType, QTensor};
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

/// Quantization types candle 0.11 multiplies with scalar code on x86 (it
/// has SIMD dot products for Q4_0, Q8_0 and the K-quants only): a Q4_1
/// model ran its matmuls about 5–8× slower than the hardware allows.
const SCALAR_TYPES: [GgmlDType; 3] = [GgmlDType::Q4_1, GgmlDType::Q5_0, GgmlDType::Q5_1];

/// Whether [`transcode`] would change any tensor of `ct`.
pub fn needs_transcoding(ct: &Content) -> bool {
    ct.tensor_infos
        .values()
        .any(|t| SCALAR_TYPES.contains(&t.ggml_dtype))
}

/// The GGUF of `ct` with every tensor of a [`SCALAR_TYPES`] type re-encoded
/// as Q8_0 (one 8-bit scale per 32 weights: it holds a 4- or 5-bit block's
/// values to within half a Q8_0 step, and has a SIMD dot product), in
/// memory; other tensors and all metadata as they were.
pub fn transcode<R: Read + Seek>(
    ct: &Content,
    file: &mut R,
) -> candle_core::Result<(Content, Cursor<Vec<u8>>)> {
    let dev = Device::Cpu;
    let mut names: Vec<(&String, u64)> = ct
        .tensor_infos
        .iter()
        .map(|(name, info)| (name, info.offset))
        .collect();
    names.sort_by_key(|(_, offset)| *offset);
    let mut tensors: Vec<(String, QTensor)> = Vec::with_capacity(names.len());
    for (name, _) in names {
        let q = ct.tensor(file, name, &dev)?;
        let q = if SCALAR_TYPES.contains(&q.dtype()) {
            QTensor::quantize(&q.dequantize(&dev)?, GgmlDType::Q8_0)?
        } else {
            q
        };
        tensors.push((name.clone(), q));
    }
    let metadata: Vec<(&str, &gguf_file::Value)> =
        ct.metadata.iter().map(|(k, v)| (k.as_str(), v)).collect();
    let refs: Vec<(&str, &QTensor)> = tensors.iter().map(|(n, q)| (n.as_str(), q)).collect();
    let mut out = Cursor::new(Vec::new());
    gguf_file::write(&mut out, &metadata, &refs)?;
    drop(refs);
    drop(tensors);
    out.set_position(0);
    let content = Content::read(&mut out)?;
    Ok((content, out))
}

impl Weights {
    /// Loads the tensors of `ct` from `file`, dispatching on `arch`; with
    /// `requantize`, tensors of a type candle multiplies with scalar code are
    /// re-encoded as Q8_0 first ([`transcode`]).
    pub fn load(
        arch: &str,
        ct: Content,
        file: &mut File,
        path: &Path,
        requantize: bool,
    ) -> Result<Self, LocalError> {
        if requantize && needs_transcoding(&ct) {
            let (ct, mut memory) = transcode(&ct, file).map_err(|e| load_err(path, e))?;
            return Self::from_content(arch, ct, &mut memory, path);
        }
        Self::from_content(arch, ct, file, path)
    }

    fn from_content<R: Read + Seek>(
        arch: &str,
        ct: Content,
        file: &mut R,
        path: &Path,
    ) -> Result<Self, LocalError> {
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
