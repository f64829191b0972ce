//! The model's tokenizer: a `tokenizer.json` beside the GGUF file when there is
//! one, else a byte-level BPE tokenizer built from the GGUF metadata
//! (`tokenizer.ggml.*`, the GPT-2 style used by SmolLM2, Qwen2 and Llama 3).
//! Also gives each token's raw bytes, which output assembly and the
//! constrained-decoding masks work on.

use std::collections::HashMap;
use std::path::Path;

use candle_core::quantized::gguf_file::{Content, Value};
use tokenizers::decoders::byte_level::ByteLevel as ByteLevelDecoder;
use tokenizers::models::bpe::{Vocab, BPE};
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::pre_tokenizers::digits::Digits;
use tokenizers::pre_tokenizers::sequence::Sequence;
use tokenizers::pre_tokenizers::split::{Split, SplitPattern};
use tokenizers::{AddedToken, PreTokenizerWrapper, SplitDelimiterBehavior, Tokenizer};

use super::LocalError;

/// GGUF token types (llama.cpp's `llama_token_type`).
const TYPE_NORMAL: i32 = 1;
const TYPE_BYTE: i32 = 6;

/// Qwen2's split regex (llama.cpp pre-tokenizer `qwen2`).
const QWEN2_SPLIT: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";
/// Llama 3's split regex (llama.cpp pre-tokenizer `llama-bpe`).
const LLAMA3_SPLIT: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";

/// A loaded tokenizer plus what generation needs to know about its tokens.
pub struct ModelTokenizer {
    inner: Tokenizer,
    /// Raw bytes of each token id; empty for special/control tokens.
    pub token_bytes: Vec<Vec<u8>>,
    /// Token ids that end a generation.
    pub stop_ids: Vec<u32>,
    /// The BOS text, for chat templates.
    pub bos_text: String,
    /// The EOS text, for chat templates.
    pub eos_text: String,
    /// Where the tokenizer came from (for reports).
    pub source: String,
}

impl std::fmt::Debug for ModelTokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelTokenizer")
            .field("vocab", &self.token_bytes.len())
            .field("stop_ids", &self.stop_ids)
            .field("source", &self.source)
            .finish()
    }
}

impl ModelTokenizer {
    /// Loads the tokenizer for the GGUF file at `gguf_path` with metadata `ct`.
    pub fn load(gguf_path: &Path, ct: &Content) -> Result<Self, LocalError> {
        let beside = gguf_path.with_file_name("tokenizer.json");
        if beside.is_file() {
            let inner = Tokenizer::from_file(&beside).map_err(|e| LocalError::Tokenizer {
                path: beside.clone(),
                problem: e.to_string(),
            })?;
            return Self::from_tokenizer_json(inner, ct, &beside);
        }
        Self::from_gguf(gguf_path, ct)
    }

    fn from_gguf(path: &Path, ct: &Content) -> Result<Self, LocalError> {
        let bad = |problem: String| LocalError::Tokenizer {
            path: path.to_path_buf(),
            problem,
        };
        let model = md_str(ct, "tokenizer.ggml.model").unwrap_or_default();
        if model != "gpt2" {
            return Err(bad(format!(
                "tokenizer model `{model}` in the GGUF metadata is not byte-level BPE (gpt2); \
                 put the model's tokenizer.json beside the .gguf file"
            )));
        }
        let tokens: Vec<String> = md_array(ct, "tokenizer.ggml.tokens")
            .ok_or_else(|| bad("no tokenizer.ggml.tokens in the metadata".into()))?
            .iter()
            .map(|v| v.to_string().cloned().map_err(|e| bad(e.to_string())))
            .collect::<Result<_, _>>()?;
        let types: Vec<i32> = match md_array(ct, "tokenizer.ggml.token_type") {
            Some(a) => a
                .iter()
                .map(|v| v.to_i32().unwrap_or(TYPE_NORMAL))
                .collect(),
            None => vec![TYPE_NORMAL; tokens.len()],
        };
        let merges: Vec<(String, String)> = md_array(ct, "tokenizer.ggml.merges")
            .ok_or_else(|| bad("no tokenizer.ggml.merges in the metadata".into()))?
            .iter()
            .map(|v| {
                let s = v.to_string().map_err(|e| bad(e.to_string()))?;
                let (a, b) = s
                    .split_once(' ')
                    .ok_or_else(|| bad(format!("merge `{s}` is not two symbols")))?;
                Ok((a.to_string(), b.to_string()))
            })
            .collect::<Result<_, LocalError>>()?;
        let vocab: Vocab = tokens
            .iter()
            .enumerate()
            .map(|(i, t)| (t.clone(), i as u32))
            .collect();
        let bpe = BPE::builder()
            .vocab_and_merges(vocab, merges)
            .build()
            .map_err(|e| bad(format!("building BPE: {e}")))?;
        let mut inner = Tokenizer::new(bpe);
        let pre = md_str(ct, "tokenizer.ggml.pre").unwrap_or_default();
        let byte_level = ByteLevel::new(false, true, true);
        let pre_tokenizer: PreTokenizerWrapper = match pre.as_str() {
            "qwen2" | "llama-bpe" | "llama3" => {
                let regex = if pre == "qwen2" {
                    QWEN2_SPLIT
                } else {
                    LLAMA3_SPLIT
                };
                let split = Split::new(
                    SplitPattern::Regex(regex.into()),
                    SplitDelimiterBehavior::Isolated,
                    false,
                )
                .map_err(|e| bad(format!("split regex: {e}")))?;
                Sequence::new(vec![split.into(), byte_level.use_regex(false).into()]).into()
            }
            // SmolLM's tokenizer.json: single digits, then GPT-2 byte-level.
            "smollm" => Sequence::new(vec![Digits::new(true).into(), byte_level.into()]).into(),
            _ => byte_level.into(),
        };
        inner.with_pre_tokenizer(Some(pre_tokenizer));
        inner.with_decoder(Some(ByteLevelDecoder::default()));
        let specials: Vec<AddedToken> = tokens
            .iter()
            .zip(&types)
            .filter(|(_, &t)| t != TYPE_NORMAL && t != TYPE_BYTE)
            .map(|(s, _)| AddedToken::from(s.clone(), true))
            .collect();
        let _added = inner.add_special_tokens(specials);
        let unmap = byte_decoder();
        let token_bytes = tokens
            .iter()
            .zip(&types)
            .map(|(t, &ty)| {
                if ty != TYPE_NORMAL {
                    return Vec::new();
                }
                t.chars()
                    .map(|c| unmap.get(&c).copied())
                    .collect::<Option<Vec<u8>>>()
                    .unwrap_or_default()
            })
            .collect();
        let id_text = |key: &str| {
            ct.metadata
                .get(key)
                .and_then(|v| v.to_u32().ok())
                .and_then(|id| tokens.get(id as usize).cloned())
        };
        let bos_text = id_text("tokenizer.ggml.bos_token_id").unwrap_or_default();
        let eos_text = id_text("tokenizer.ggml.eos_token_id").unwrap_or_default();
        let eos_id = ct
            .metadata
            .get("tokenizer.ggml.eos_token_id")
            .and_then(|v| v.to_u32().ok());
        let stop_ids = stop_ids(&tokens, eos_id);
        Ok(ModelTokenizer {
            inner,
            token_bytes,
            stop_ids,
            bos_text,
            eos_text,
            source: format!("GGUF metadata (pre-tokenizer `{pre}`)"),
        })
    }

    fn from_tokenizer_json(
        inner: Tokenizer,
        ct: &Content,
        path: &Path,
    ) -> Result<Self, LocalError> {
        let n = inner.get_vocab_size(true);
        let mut tokens = vec![String::new(); n];
        for (t, id) in inner.get_vocab(true) {
            if let Some(slot) = tokens.get_mut(id as usize) {
                *slot = t;
            }
        }
        let specials: std::collections::HashSet<u32> = inner
            .get_added_tokens_decoder()
            .iter()
            .filter(|(_, t)| t.special)
            .map(|(id, _)| *id)
            .collect();
        let byte_level = tokens.iter().any(|t| t.starts_with('Ġ'));
        let unmap = byte_decoder();
        let token_bytes = tokens
            .iter()
            .enumerate()
            .map(|(id, t)| {
                if specials.contains(&(id as u32)) || t.is_empty() {
                    Vec::new()
                } else if byte_level {
                    t.chars()
                        .map(|c| unmap.get(&c).copied())
                        .collect::<Option<Vec<u8>>>()
                        .unwrap_or_default()
                } else {
                    spm_bytes(t)
                }
            })
            .collect();
        let id_text = |key: &str| {
            ct.metadata
                .get(key)
                .and_then(|v| v.to_u32().ok())
                .and_then(|id| tokens.get(id as usize).cloned())
        };
        let eos_id = ct
            .metadata
            .get("tokenizer.ggml.eos_token_id")
            .and_then(|v| v.to_u32().ok());
        Ok(ModelTokenizer {
            bos_text: id_text("tokenizer.ggml.bos_token_id").unwrap_or_default(),
            eos_text: id_text("tokenizer.ggml.eos_token_id").unwrap_or_default(),
            stop_ids: stop_ids(&tokens, eos_id),
            token_bytes,
            inner,
            source: path.display().to_string(),
        })
    }

    /// Token ids of `text` (special tokens written in the text are recognised).
    pub fn encode(&self, text: &str) -> Result<Vec<u32>, LocalError> {
        self.inner
            .encode_fast(text, false)
            .map(|e| e.get_ids().to_vec())
            .map_err(|e| LocalError::Generation(format!("tokenizing: {e}")))
    }

    /// The text of `ids`, special tokens dropped, invalid UTF-8 replaced.
    pub fn decode(&self, ids: &[u32]) -> String {
        let bytes: Vec<u8> = ids
            .iter()
            .flat_map(|&id| {
                self.token_bytes
                    .get(id as usize)
                    .into_iter()
                    .flatten()
                    .copied()
            })
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// Vocabulary size.
    pub fn vocab_size(&self) -> usize {
        self.token_bytes.len()
    }
}

/// The end-of-generation ids: the declared EOS and the usual end-of-turn
/// markers, where the vocabulary has them.
fn stop_ids(tokens: &[String], eos: Option<u32>) -> Vec<u32> {
    let mut ids: Vec<u32> = eos.into_iter().collect();
    for (i, t) in tokens.iter().enumerate() {
        if matches!(
            t.as_str(),
            "<|im_end|>"
                | "<|eot_id|>"
                | "<|endoftext|>"
                | "<end_of_turn>"
                | "</s>"
                | "<|end_of_text|>"
        ) && !ids.contains(&(i as u32))
        {
            ids.push(i as u32);
        }
    }
    ids
}

/// SentencePiece pieces: `▁` is a space, `<0xAB>` a raw byte.
fn spm_bytes(t: &str) -> Vec<u8> {
    if t.len() == 6 && t.starts_with("<0x") && t.ends_with('>') {
        if let Ok(b) = u8::from_str_radix(&t[3..5], 16) {
            return vec![b];
        }
    }
    t.replace('\u{2581}', " ").into_bytes()
}

/// GPT-2's byte-to-character table, inverted.
fn byte_decoder() -> HashMap<char, u8> {
    let mut visible: Vec<u8> = (b'!'..=b'~')
        .chain(0xA1..=0xAC)
        .chain(0xAE..=0xFF)
        .collect();
    let mut chars: Vec<u32> = visible.iter().map(|&b| b as u32).collect();
    let mut n = 0;
    for b in 0..=255u8 {
        if !visible.contains(&b) {
            visible.push(b);
            chars.push(256 + n);
            n += 1;
        }
    }
    visible
        .into_iter()
        .zip(chars)
        .map(|(b, c)| (char::from_u32(c).expect("valid char"), b))
        .collect()
}

fn md_str(ct: &Content, key: &str) -> Option<String> {
    ct.metadata
        .get(key)
        .and_then(|v| v.to_string().ok())
        .cloned()
}

fn md_array<'a>(ct: &'a Content, key: &str) -> Option<&'a Vec<Value>> {
    ct.metadata.get(key).and_then(|v| v.to_vec().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpt2_byte_table_is_a_bijection() {
        let d = byte_decoder();
        assert_eq!(d.len(), 256);
        assert_eq!(d[&'Ġ'], b' ');
        assert_eq!(d[&'Ċ'], b'\n');
        assert_eq!(d[&'a'], b'a');
    }

    #[test]
    fn spm_pieces() {
        assert_eq!(spm_bytes("\u{2581}the"), b" the");
        assert_eq!(spm_bytes("<0x0A>"), b"\n");
    }
}
