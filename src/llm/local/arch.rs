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
    /// Llama, SmolLM2, Mistral (llama layout): the engine's own forward
    /// pass ([`super::llama`]).
    Llama(Box<super::llama::Llama>),
    /// A llama-layout file the engine's own pass does not cover (mixture of
    /// experts, partial rotary dimension), or any llama-layout file under
    /// `MOVIEGRAPH_LOCAL_ENGINE=candle`: candle's implementation.
    LlamaCandle(quantized_llama::ModelWeights),
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
            Weights::LlamaCandle(_) => "Weights::LlamaCandle",
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

/// Quantization types a forward pass of `arch` multiplies with scalar
/// code on x86: candle 0.11 has SIMD dot products for Q4_0, Q8_0 and the
/// K-quants only; the engine's own llama pass ([`super::llama`]) adds Q4_1.
pub fn scalar_types(arch: &str, candle_llama: bool) -> &'static [GgmlDType] {
    if uses_own_llama(arch, candle_llama) {
        &[GgmlDType::Q5_0, GgmlDType::Q5_1]
    } else {
        &[GgmlDType::Q4_1, GgmlDType::Q5_0, GgmlDType::Q5_1]
    }
}

/// Environment variable that selects candle's `quantized_llama` instead of
/// the engine's own llama pass (`MOVIEGRAPH_LOCAL_ENGINE=candle`): the same
/// logits, slower; for comparing the two.
pub const ENGINE_ENV: &str = "MOVIEGRAPH_LOCAL_ENGINE";

/// Whether `arch` runs on the engine's own pass: the llama layout, unless
/// `candle_llama` or [`ENGINE_ENV`] asks for candle's.
pub fn uses_own_llama(arch: &str, candle_llama: bool) -> bool {
    matches!(arch, "llama" | "mistral")
        && !candle_llama
        && std::env::var(ENGINE_ENV).map_or(true, |v| !v.eq_ignore_ascii_case("candle"))
}

/// Whether [`transcode`] would change any tensor of `ct`, an `arch` model.
pub fn needs_transcoding(ct: &Content, arch: &str, candle_llama: bool) -> bool {
    let slow = scalar_types(arch, candle_llama);
    ct.tensor_infos
        .values()
        .any(|t| slow.contains(&t.ggml_dtype))
}

/// The GGUF of `ct` with every tensor of one of the `slow` types re-encoded
/// as Q8_0 (one 8-bit scale per 32 weights: it holds a 4- or 5-bit block's
/// values to within half a Q8_0 step, and has a SIMD dot product), in
/// memory; other tensors and all metadata as they were.
pub fn transcode<R: Read + Seek>(
    ct: &Content,
    file: &mut R,
    slow: &[GgmlDType],
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
        let q = if slow.contains(&q.dtype()) {
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
        opts: &super::LoadOptions,
    ) -> Result<Self, LocalError> {
        let own = uses_own_llama(arch, opts.candle_llama);
        if opts.requantize && needs_transcoding(&ct, arch, opts.candle_llama) {
            let slow = scalar_types(arch, opts.candle_llama);
            let (ct, mut memory) = transcode(&ct, file, slow).map_err(|e| load_err(path, e))?;
            return Self::from_content(arch, own, ct, &mut memory, path);
        }
        Self::from_content(arch, own, ct, file, path)
    }

    fn from_content<R: Read + Seek>(
        arch: &str,
        own_llama: bool,
        ct: Content,
        file: &mut R,
        path: &Path,
    ) -> Result<Self, LocalError> {
        let dev = Device::Cpu;
        Ok(match arch {
            "llama" | "mistral" => {
                if own_llama {
                    use super::llama::{Llama, Unsupported};
                    match Llama::from_gguf(&ct, file) {
                        Ok(model) => return Ok(Weights::Llama(Box::new(model))),
                        Err(Unsupported::Invalid(why)) => return Err(load_err(path, why)),
                        Err(Unsupported::Layout(why)) => {
                            tracing::info!("{}: {why}; running candle's llama", path.display())
                        }
                    }
                }
                Weights::LlamaCandle(
                    quantized_llama::ModelWeights::from_gguf(ct, file, &dev)
                        .map_err(|e| load_err(path, e))?,
                )
            }
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

    /// Which implementation runs the forward pass.
    pub fn engine(&self) -> &'static str {
        match self {
            Weights::Llama(_) => "moviegraph llama pass",
            Weights::LlamaCandle(_) => "candle quantized_llama",
            Weights::Qwen2(_) => "candle quantized_qwen2",
            Weights::Qwen3(_) => "candle quantized_qwen3",
            Weights::Gemma3(_) => "candle quantized_gemma3",
        }
    }

    /// Longest sequence candle's implementation handles (its rotary tables).
    pub fn max_positions(&self) -> usize {
        match self {
            Weights::Llama(_) => super::llama::MAX_SEQ_LEN,
            Weights::LlamaCandle(_) => quantized_llama::MAX_SEQ_LEN,
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
                Weights::Llama(m) => {
                    return m.forward(tokens, pos).map_err(candle_core::Error::msg)
                }
                Weights::LlamaCandle(m) => m.forward(&input, pos)?,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A GGUF in memory with one Q4_1 and one F32 tensor.
    fn small_gguf(arch: &str) -> Cursor<Vec<u8>> {
        let dev = Device::Cpu;
        let values: Vec<f32> = (0..32 * 64)
            .map(|i| ((i * 37) % 101) as f32 / 50.0 - 1.0)
            .collect();
        let w = Tensor::from_vec(values, (32, 64), &dev).unwrap();
        let q = QTensor::quantize(&w, GgmlDType::Q4_1).unwrap();
        let norm = QTensor::quantize(
            &Tensor::ones(64, candle_core::DType::F32, &dev).unwrap(),
            GgmlDType::F32,
        )
        .unwrap();
        let arch_value = gguf_file::Value::String(arch.to_string());
        let mut out = Cursor::new(Vec::new());
        gguf_file::write(
            &mut out,
            &[("general.architecture", &arch_value)],
            &[("w", &q), ("norm", &norm)],
        )
        .unwrap();
        out.set_position(0);
        out
    }

    #[test]
    fn transcoding_re_encodes_only_the_slow_types_and_keeps_values() {
        let mut file = small_gguf("qwen2");
        let ct = Content::read(&mut file).unwrap();
        assert!(
            needs_transcoding(&ct, "qwen2", false),
            "candle's qwen2 multiplies Q4_1 scalar"
        );
        assert!(
            !needs_transcoding(&ct, "llama", false),
            "the llama pass has a SIMD Q4_1 product"
        );
        let before = ct
            .tensor(&mut file, "w", &Device::Cpu)
            .unwrap()
            .dequantize(&Device::Cpu)
            .unwrap();
        let (ct2, mut memory) = transcode(&ct, &mut file, scalar_types("qwen2", false)).unwrap();
        assert_eq!(ct2.tensor_infos["w"].ggml_dtype, GgmlDType::Q8_0);
        assert_eq!(ct2.tensor_infos["norm"].ggml_dtype, GgmlDType::F32);
        let after = ct2
            .tensor(&mut memory, "w", &Device::Cpu)
            .unwrap()
            .dequantize(&Device::Cpu)
            .unwrap();
        let worst: f32 = (before - after)
            .unwrap()
            .abs()
            .unwrap()
            .max_all()
            .unwrap()
            .to_scalar()
            .unwrap();
        assert!(
            worst < 0.01,
            "Q8_0 holds the Q4_1 values to within half a step: {worst}"
        );
    }
}
