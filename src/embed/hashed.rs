//! The offline baseline embedder: hashed character 3–5-grams.
//!
//! Character 3- to 5-grams of the text (padded with a space at each end) are
//! hashed (FNV-1a over code points) into [`HASH_DIMS`] buckets, counted and
//! L2-normalized. It knows spelling, not meaning: a baseline for when the
//! MiniLM files are absent.

use super::{l2_normalize, EmbedError, Embedder};
use crate::util::hash::{fnv1a_extend, FNV_OFFSET};

/// Dimensions of the hashed character-n-gram embedding.
pub const HASH_DIMS: usize = 512;

/// The offline fallback embedder: hashed character 3–5-grams, L2-normalized.
#[derive(Debug, Clone, Copy, Default)]
pub struct HashedNgramEmbedder;

impl HashedNgramEmbedder {
    /// The L2-normalized embedding of one text (all zeros for "").
    pub fn vector(&self, text: &str) -> Vec<f32> {
        let mut v = ngram_counts(text);
        l2_normalize(&mut v);
        v
    }
}

impl Embedder for HashedNgramEmbedder {
    fn name(&self) -> &str {
        "hashed-char-ngram-512"
    }

    fn model_id(&self) -> &str {
        "hashed-char-ngram-512"
    }

    fn dims(&self) -> usize {
        HASH_DIMS
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Ok(texts.iter().map(|t| self.vector(t)).collect())
    }

    /// The n-gram counts (a group's counts are the sum of its members',
    /// less the few n-grams that would span the joins).
    fn additive(&self, text: &str) -> Option<Vec<f32>> {
        Some(ngram_counts(text))
    }
}

/// Unnormalized hashed 3–5-gram counts of `text` padded with a space at each end.
fn ngram_counts(text: &str) -> Vec<f32> {
    let mut v = vec![0f32; HASH_DIMS];
    if text.is_empty() {
        return v;
    }
    let padded: Vec<char> = std::iter::once(' ')
        .chain(text.chars())
        .chain(std::iter::once(' '))
        .collect();
    for start in 0..padded.len() {
        // FNV-1a over the chars' code points; the 3-, 4- and 5-gram hashes
        // starting here are successive prefixes of one pass.
        let mut h: u64 = FNV_OFFSET;
        for (n, &c) in padded[start..].iter().take(5).enumerate() {
            h = fnv1a_extend(h, &(c as u32).to_le_bytes());
            if n >= 2 {
                v[(h % HASH_DIMS as u64) as usize] += 1.0;
            }
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedding_is_normalized_and_deterministic() {
        let e = HashedNgramEmbedder;
        let a = e.embed("hello there").unwrap();
        assert_eq!(a, e.embed("hello there").unwrap());
        assert!((a.iter().map(|x| x * x).sum::<f32>() - 1.0).abs() < 1e-5);
        assert!(e.embed("").unwrap().iter().all(|x| *x == 0.0));
        assert_eq!(e.embed_batch(&["a", "bb"]).unwrap().len(), 2);
    }

    #[test]
    fn sums_of_counts_stand_for_joined_texts() {
        let e = HashedNgramEmbedder;
        let mut sum = e.additive("take it").unwrap();
        sum.iter_mut()
            .zip(e.additive("and go").unwrap())
            .for_each(|(x, y)| *x += y);
        l2_normalize(&mut sum);
        let joined = e.vector("take it and go");
        let cos: f32 = sum.iter().zip(&joined).map(|(a, b)| a * b).sum();
        assert!(cos > 0.8, "{cos}");
    }
}
