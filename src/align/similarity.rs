//! Hybrid similarity of a script text and a subtitle text.
//!
//! Both sides are first reduced with [`normalize_for_matching`] and split into words (interned as ids). The score of a script group (one or
//! more consecutive dialogue lines) against a cue group (one or more
//! consecutive cues) is
//!
//! ```text
//! sim = W_EMBED · cosine(embedding) + (1 − W_EMBED) · fuzzy
//! fuzzy = ½ · (1 − word_levenshtein / max_words) + ½ · word_dice
//! ```
//!
//! with [`W_EMBED`] = 0.5. The word-level Levenshtein distance comes from
//! `strsim::generic_levenshtein` over word ids; `word_dice` is the Dice
//! coefficient of the two word multisets. When the embedding cosine is below
//! [`PRUNE_COSINE`] the pair is unrelated and the fuzzy part is not computed
//! (taken as 0), which keeps a full quadratic pass affordable.
//!
//! The embedding comes from an [`Embedder`] (`crate::embed`): all-MiniLM-L6-v2
//! when its files are installed, else the offline [`HashedNgramEmbedder`]
//! (whose groups of consecutive items use the sum of their members' n-gram
//! counts). Group texts of a model embedder are embedded in one batch.

use std::collections::HashMap;

use crate::embed::l2_normalize as normalize;
pub use crate::embed::{EmbedError, Embedder, HashedNgramEmbedder, HASH_DIMS};
use crate::media::subtitles::normalize_for_matching;

/// Weight of the embedding cosine in the hybrid score (the fuzzy part gets the rest).
pub const W_EMBED: f32 = 0.5;
/// Below this embedding cosine a pair is treated as unrelated (fuzzy part skipped).
pub const PRUNE_COSINE: f32 = 0.3;
/// Dot product of two equally long vectors (eight lanes, so it vectorizes).
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ca.zip(cb) {
        for k in 0..8 {
            acc[k] += x[k] * y[k];
        }
    }
    acc.iter().sum::<f32>() + tail
}

/// One side of the alignment (script lines or cues), prepared for scoring
/// groups of up to `max_group` consecutive items.
#[derive(Debug, Clone)]
pub struct Side {
    /// Normalized text of each item.
    pub texts: Vec<String>,
    /// All word ids, item after item.
    words: Vec<u32>,
    /// `offsets[i]..offsets[i + 1]` are item `i`'s words.
    offsets: Vec<usize>,
    /// `groups[k - 1][i]`: embedding of items `i..i + k` (concatenated text).
    groups: Vec<Vec<Vec<f32>>>,
}

impl Side {
    /// Number of items.
    pub fn len(&self) -> usize {
        self.texts.len()
    }

    /// True when there are no items.
    pub fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }

    /// Words of items `i..i + k`.
    pub fn words(&self, i: usize, k: usize) -> &[u32] {
        &self.words[self.offsets[i]..self.offsets[i + k]]
    }

    /// Word count of item `i`.
    pub fn word_count(&self, i: usize) -> usize {
        self.offsets[i + 1] - self.offsets[i]
    }

    /// Embedding of items `i..i + k`.
    pub fn embedding(&self, i: usize, k: usize) -> &[f32] {
        &self.groups[k - 1][i]
    }
}

/// Word interner shared by both sides so word ids compare across them.
#[derive(Debug, Default)]
pub struct Vocabulary {
    ids: HashMap<String, u32>,
}

impl Vocabulary {
    /// The id of `word`, allocated on first sight.
    pub fn id(&mut self, word: &str) -> u32 {
        let next = self.ids.len() as u32;
        *self.ids.entry(word.to_owned()).or_insert(next)
    }
}

/// Prepares raw texts (normalized here) for scoring groups of up to `max_group` items.
pub fn prepare(
    raw: &[&str],
    max_group: usize,
    vocab: &mut Vocabulary,
    embedder: &dyn Embedder,
) -> Result<Side, EmbedError> {
    let texts: Vec<String> = raw.iter().map(|t| normalize_for_matching(t).text).collect();
    let mut words = Vec::new();
    let mut offsets = vec![0];
    for t in &texts {
        words.extend(t.split(' ').filter(|w| !w.is_empty()).map(|w| vocab.id(w)));
        offsets.push(words.len());
    }
    let max_group = max_group.max(1);
    let raw: Option<Vec<Vec<f32>>> = texts.iter().map(|t| embedder.additive(t)).collect();
    // A model embedder gets every group text in one batch (it batches and pads).
    let mut embedded = match &raw {
        Some(_) => Vec::new(),
        None => {
            let joined: Vec<String> = (1..=max_group)
                .flat_map(|k| (0..texts.len().saturating_sub(k - 1)).map(move |i| (i, k)))
                .map(|(i, k)| texts[i..i + k].join(" "))
                .collect();
            let refs: Vec<&str> = joined.iter().map(String::as_str).collect();
            embedder.embed_batch(&refs)?
        }
    }
    .into_iter();
    let mut groups = Vec::with_capacity(max_group);
    for k in 1..=max_group {
        let g: Vec<Vec<f32>> = (0..texts.len())
            .map(|i| {
                if i + k > texts.len() {
                    Vec::new()
                } else if let Some(raw) = &raw {
                    let mut v = raw[i].clone();
                    for r in &raw[i + 1..i + k] {
                        v.iter_mut().zip(r).for_each(|(x, y)| *x += y);
                    }
                    normalize(&mut v);
                    v
                } else {
                    embedded.next().unwrap_or_default()
                }
            })
            .collect();
        groups.push(g);
    }
    Ok(Side {
        texts,
        words,
        offsets,
        groups,
    })
}

/// Dice coefficient of two word multisets (sorted copies, merged).
pub fn word_dice(a: &[u32], b: &[u32]) -> f32 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    const STACK: usize = 96;
    let (mut sa, mut sb) = ([0u32; STACK], [0u32; STACK]);
    let (mut va, mut vb);
    let a_sorted: &mut [u32] = if a.len() <= STACK {
        sa[..a.len()].copy_from_slice(a);
        &mut sa[..a.len()]
    } else {
        va = a.to_vec();
        &mut va
    };
    let b_sorted: &mut [u32] = if b.len() <= STACK {
        sb[..b.len()].copy_from_slice(b);
        &mut sb[..b.len()]
    } else {
        vb = b.to_vec();
        &mut vb
    };
    a_sorted.sort_unstable();
    b_sorted.sort_unstable();
    let (mut i, mut j, mut common) = (0, 0, 0usize);
    while i < a_sorted.len() && j < b_sorted.len() {
        match a_sorted[i].cmp(&b_sorted[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    2.0 * common as f32 / (a.len() + b.len()) as f32
}

/// A word slice as `strsim`'s generic functions take it (`&T: IntoIterator`).
struct Words<'a>(&'a [u32]);

impl<'s> IntoIterator for &'s Words<'_> {
    type Item = &'s u32;
    type IntoIter = std::slice::Iter<'s, u32>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

/// The fuzzy part: mean of word-level normalized Levenshtein similarity and word Dice.
pub fn fuzzy(a: &[u32], b: &[u32]) -> f32 {
    let longest = a.len().max(b.len());
    if longest == 0 {
        return 0.0;
    }
    let lev = strsim::generic_levenshtein(&Words(a), &Words(b)) as f32 / longest as f32;
    0.5 * (1.0 - lev) + 0.5 * word_dice(a, b)
}

/// Hybrid similarity of two prepared groups given their words and embeddings.
pub fn hybrid(a_words: &[u32], a_emb: &[f32], b_words: &[u32], b_emb: &[f32]) -> f32 {
    hybrid_floor(a_words, a_emb, b_words, b_emb, 0.0)
}

/// [`hybrid`], exact when the result is at least `floor`; below `floor` it
/// may return any value below `floor` (cheap upper bounds skip the word
/// Levenshtein distance and Dice coefficient when they cannot lift the score
/// to `floor`: `1 − lev/max ≤ common/max` and `common ≤ min(len)`).
pub fn hybrid_floor(
    a_words: &[u32],
    a_emb: &[f32],
    b_words: &[u32],
    b_emb: &[f32],
    floor: f32,
) -> f32 {
    if a_words.is_empty() || b_words.is_empty() {
        return 0.0;
    }
    let cos = dot(a_emb, b_emb).clamp(0.0, 1.0);
    let base = W_EMBED * cos;
    if cos < PRUNE_COSINE {
        return base;
    }
    let (la, lb) = (a_words.len() as f32, b_words.len() as f32);
    let (min, max) = (la.min(lb), la.max(lb));
    let bound =
        |common: f32| base + (1.0 - W_EMBED) * 0.5 * (common / max + 2.0 * common / (la + lb));
    if bound(min) < floor {
        return base;
    }
    let dice = word_dice(a_words, b_words);
    let common = dice * (la + lb) / 2.0;
    if bound(common) < floor {
        return base;
    }
    let lev = strsim::generic_levenshtein(&Words(a_words), &Words(b_words)) as f32 / max;
    base + (1.0 - W_EMBED) * (0.5 * (1.0 - lev) + 0.5 * dice)
}

/// Similarity of two raw texts (normalized here) with the given embedder.
pub fn text_similarity(a: &str, b: &str, embedder: &dyn Embedder) -> Result<f32, EmbedError> {
    let mut vocab = Vocabulary::default();
    let sa = prepare(&[a], 1, &mut vocab, embedder)?;
    let sb = prepare(&[b], 1, &mut vocab, embedder)?;
    Ok(hybrid(
        sa.words(0, 1),
        sa.embedding(0, 1),
        sb.words(0, 1),
        sb.embedding(0, 1),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_texts_score_one() {
        let s = text_similarity("You old liar.", "You old LIAR!", &HashedNgramEmbedder).unwrap();
        assert!((s - 1.0).abs() < 1e-4, "{s}");
    }

    #[test]
    fn rewording_scores_above_unrelated() {
        let e = HashedNgramEmbedder;
        let close = text_similarity(
            "It's worth more than he owes. Take it and go.",
            "It's worth more than he owes. Take it.",
            &e,
        )
        .unwrap();
        let far = text_similarity(
            "It's worth more than he owes. Take it and go.",
            "The harbour office called about the boat.",
            &e,
        )
        .unwrap();
        assert!(close > 0.75, "{close}");
        assert!(far < 0.35, "{far}");
    }

    #[test]
    fn dice_counts_multisets() {
        assert_eq!(word_dice(&[1, 1, 2], &[1, 2, 2]), 2.0 * 2.0 / 6.0);
        assert_eq!(word_dice(&[], &[1]), 0.0);
    }
}
