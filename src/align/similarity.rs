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
//! The embedding comes from an [`Embedder`]. The built-in
//! [`HashedNgramEmbedder`] is the deterministic offline fallback: character
//! 3- to 5-grams of the normalized text (padded with a space at each end) are
//! hashed (FNV-1a) into [`HASH_DIMS`] buckets, counted and L2-normalized (a
//! group of consecutive items uses the sum of its members' counts). A
//! sentence-embedding model (all-MiniLM-L6-v2) can be plugged in later through
//! the same trait.

use std::collections::HashMap;

use crate::media::subtitles::normalize_for_matching;

/// Weight of the embedding cosine in the hybrid score (the fuzzy part gets the rest).
pub const W_EMBED: f32 = 0.5;
/// Below this embedding cosine a pair is treated as unrelated (fuzzy part skipped).
pub const PRUNE_COSINE: f32 = 0.3;
/// Dimensions of the hashed character-n-gram embedding.
pub const HASH_DIMS: usize = 512;

/// Turns a normalized text into a fixed-size vector; cosine of two vectors is
/// their semantic similarity. Implementations must be deterministic.
pub trait Embedder {
    /// A short name for reports (`hashed-char-ngram-512`).
    fn name(&self) -> &str;
    /// The length of every vector [`Embedder::embed`] returns.
    fn dims(&self) -> usize;
    /// The L2-normalized embedding of `text` (already normalized for matching);
    /// an all-zero vector for an empty text.
    fn embed(&self, text: &str) -> Vec<f32>;
    /// An unnormalized vector whose sums stand for concatenated texts, when
    /// the embedder has one (count-based embedders); [`prepare`] then builds
    /// group embeddings by adding instead of embedding joined texts.
    fn additive(&self, _text: &str) -> Option<Vec<f32>> {
        None
    }
}

/// The offline fallback embedder: hashed character 3–5-grams, L2-normalized.
#[derive(Debug, Clone, Copy, Default)]
pub struct HashedNgramEmbedder;

fn fnv1a_step(mut h: u64, x: u32) -> u64 {
    for b in x.to_le_bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

impl Embedder for HashedNgramEmbedder {
    fn name(&self) -> &str {
        "hashed-char-ngram-512"
    }

    fn dims(&self) -> usize {
        HASH_DIMS
    }

    fn embed(&self, text: &str) -> Vec<f32> {
        let mut v = ngram_counts(text);
        normalize(&mut v);
        v
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
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for (n, &c) in padded[start..].iter().take(5).enumerate() {
            h = fnv1a_step(h, c as u32);
            if n >= 2 {
                v[(h % HASH_DIMS as u64) as usize] += 1.0;
            }
        }
    }
    v
}

fn normalize(v: &mut [f32]) {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n > 0.0 {
        v.iter_mut().for_each(|x| *x /= n);
    }
}

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
) -> Side {
    let texts: Vec<String> = raw.iter().map(|t| normalize_for_matching(t).text).collect();
    let mut words = Vec::new();
    let mut offsets = vec![0];
    for t in &texts {
        words.extend(t.split(' ').filter(|w| !w.is_empty()).map(|w| vocab.id(w)));
        offsets.push(words.len());
    }
    let max_group = max_group.max(1);
    let raw: Option<Vec<Vec<f32>>> = texts.iter().map(|t| embedder.additive(t)).collect();
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
                } else if k == 1 {
                    embedder.embed(&texts[i])
                } else {
                    embedder.embed(&texts[i..i + k].join(" "))
                }
            })
            .collect();
        groups.push(g);
    }
    Side {
        texts,
        words,
        offsets,
        groups,
    }
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
pub fn text_similarity(a: &str, b: &str, embedder: &dyn Embedder) -> f32 {
    let mut vocab = Vocabulary::default();
    let sa = prepare(&[a], 1, &mut vocab, embedder);
    let sb = prepare(&[b], 1, &mut vocab, embedder);
    hybrid(
        sa.words(0, 1),
        sa.embedding(0, 1),
        sb.words(0, 1),
        sb.embedding(0, 1),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_texts_score_one() {
        let s = text_similarity("You old liar.", "You old LIAR!", &HashedNgramEmbedder);
        assert!((s - 1.0).abs() < 1e-4, "{s}");
    }

    #[test]
    fn rewording_scores_above_unrelated() {
        let e = HashedNgramEmbedder;
        let close = text_similarity(
            "It's worth more than he owes. Take it and go.",
            "It's worth more than he owes. Take it.",
            &e,
        );
        let far = text_similarity(
            "It's worth more than he owes. Take it and go.",
            "The harbour office called about the boat.",
            &e,
        );
        assert!(close > 0.75, "{close}");
        assert!(far < 0.35, "{far}");
    }

    #[test]
    fn embedding_is_normalized_and_deterministic() {
        let e = HashedNgramEmbedder;
        let a = e.embed("hello there");
        assert_eq!(a, e.embed("hello there"));
        assert!((dot(&a, &a) - 1.0).abs() < 1e-5);
        assert!(e.embed("").iter().all(|x| *x == 0.0));
    }

    #[test]
    fn dice_counts_multisets() {
        assert_eq!(word_dice(&[1, 1, 2], &[1, 2, 2]), 2.0 * 2.0 / 6.0);
        assert_eq!(word_dice(&[], &[1]), 0.0);
    }
}
