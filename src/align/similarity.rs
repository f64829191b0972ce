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
//! with [`W_EMBED`] = 0.5. The word-level Levenshtein distance is
//! [`word_levenshtein`] over word ids; `word_dice` is the Dice
//! coefficient of the two word multisets. When the embedding cosine is below
//! [`PRUNE_COSINE`] the pair is unrelated and the fuzzy part is not computed
//! (taken as 0), which keeps a full quadratic pass affordable.
//!
//! The embedding comes from an [`Embedder`] (`crate::embed`): all-MiniLM-L6-v2
//! when its files are installed, else the offline [`HashedNgramEmbedder`]
//! (whose groups of consecutive items use the sum of their members' n-gram
//! counts). Group texts of a model embedder are embedded in one batch.

use std::collections::HashMap;

pub use crate::embed::{EmbedError, Embedder, HashedNgramEmbedder, HASH_DIMS};
use crate::media::subtitles::normalize_for_matching;

/// Weight of the embedding cosine in the hybrid score (the fuzzy part gets the rest).
pub const W_EMBED: f32 = 0.5;
/// Below this embedding cosine a pair is treated as unrelated (fuzzy part skipped).
pub const PRUNE_COSINE: f32 = 0.3;
/// Where an embedder puts a film's unrelated line–cue pairs: line `i`
/// against the cue half the film away from where it should be, for up to
/// 600 lines spread evenly. A sentence model and the hashed baseline put
/// unrelated text at different cosines (about 0.12 and 0.18 at the median,
/// and their tails differ more), so a cosine means "related" only against
/// this level, measured per film and embedder.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct UnrelatedLevel {
    /// Median cosine of the unrelated pairs.
    pub median: f32,
    /// 99th percentile: above it a pair's cosine says "related".
    pub high: f32,
    /// Pairs measured.
    pub pairs: usize,
}

/// The [`UnrelatedLevel`] of a film; `None` when the film is too short to
/// measure (fewer than 40 items a side).
pub fn unrelated_level(lines: &Side, cues: &Side) -> Option<UnrelatedLevel> {
    const MIN_PAIRS: usize = 20;
    const MAX_PAIRS: usize = 600;
    let (n, m) = (lines.len(), cues.len());
    if n < 2 * MIN_PAIRS || m < 2 * MIN_PAIRS {
        return None;
    }
    let k = n.min(MAX_PAIRS);
    let mut cosines: Vec<f32> = (0..k)
        .map(|t| t * n / k)
        .filter(|&i| lines.word_count(i) > 0)
        .filter_map(|i| {
            let j = (i * m / n + m / 2) % m;
            (cues.word_count(j) > 0).then(|| dot(lines.embedding(i, 1), cues.embedding(j, 1)))
        })
        .filter(|c| c.is_finite())
        .collect();
    if cosines.len() < MIN_PAIRS {
        return None;
    }
    cosines.sort_by(f32::total_cmp);
    let at = |q: f32| cosines[((cosines.len() - 1) as f32 * q).round() as usize];
    Some(UnrelatedLevel {
        median: at(0.5),
        high: at(0.99),
        pairs: cosines.len(),
    })
}

/// Scales `v` to unit length; returns the length it had.
fn normalize(v: &mut [f32]) -> f32 {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n > 0.0 {
        v.iter_mut().for_each(|x| *x /= n);
    }
    n
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
    /// For an additive embedder: each item's unnormalized vector, and
    /// `norms[k - 1][i]`, the length of the sum over items `i..i + k`.
    additive: Option<Additive>,
}

/// Per-item unnormalized vectors and per-group norms (see [`Side::item_vector`]).
type Additive = (Vec<Vec<f32>>, Vec<Vec<f32>>);

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

    /// Item `i`'s unnormalized vector, when the embedder is additive: the
    /// cosine of two groups is then the sum of their items' pairwise dot
    /// products over the product of [`Side::group_norm`]s.
    pub fn item_vector(&self, i: usize) -> Option<&[f32]> {
        self.additive.as_ref().map(|(v, _)| v[i].as_slice())
    }

    /// Length of the summed unnormalized vectors of items `i..i + k`, when additive.
    pub fn group_norm(&self, i: usize, k: usize) -> Option<f32> {
        self.additive.as_ref().map(|(_, n)| n[k - 1][i])
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
        // Look up before inserting: most words are seen before, and `entry`
        // would allocate an owned key every time.
        if let Some(&id) = self.ids.get(word) {
            return id;
        }
        let next = self.ids.len() as u32;
        self.ids.insert(word.to_owned(), next);
        next
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
    let mut norms: Vec<Vec<f32>> = Vec::with_capacity(max_group);
    for k in 1..=max_group {
        let mut g: Vec<Vec<f32>> = Vec::with_capacity(texts.len());
        let mut kn: Vec<f32> = Vec::with_capacity(texts.len());
        for i in 0..texts.len() {
            if i + k > texts.len() {
                g.push(Vec::new());
                kn.push(0.0);
            } else if let Some(raw) = &raw {
                let mut v = raw[i].clone();
                for r in &raw[i + 1..i + k] {
                    v.iter_mut().zip(r).for_each(|(x, y)| *x += y);
                }
                kn.push(normalize(&mut v));
                g.push(v);
            } else {
                g.push(embedded.next().unwrap_or_default());
                kn.push(0.0);
            }
        }
        groups.push(g);
        norms.push(kn);
    }
    Ok(Side {
        texts,
        words,
        offsets,
        groups,
        additive: raw.map(|raw| (raw, norms)),
    })
}

/// A small open-addressing map from word ids to 64-bit values, on the stack,
/// for the word lists of one pair (at most 64 distinct keys, load ≤ ½).
struct WordTable {
    keys: [u32; 128],
    values: [u64; 128],
}

impl WordTable {
    const EMPTY: u32 = u32::MAX;

    fn new() -> WordTable {
        WordTable {
            keys: [Self::EMPTY; 128],
            values: [0; 128],
        }
    }

    fn slot(&self, word: u32) -> usize {
        let mut i = (word.wrapping_mul(0x9e37_79b1) >> 25) as usize;
        while self.keys[i] != word && self.keys[i] != Self::EMPTY {
            i = (i + 1) & 127;
        }
        i
    }

    fn entry(&mut self, word: u32) -> &mut u64 {
        let i = self.slot(word);
        self.keys[i] = word;
        &mut self.values[i]
    }

    fn get(&self, word: u32) -> u64 {
        self.values[self.slot(word)]
    }
}

/// Dice coefficient of two word multisets.
pub fn word_dice(a: &[u32], b: &[u32]) -> f32 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    2.0 * common_words(a, b) as f32 / (a.len() + b.len()) as f32
}

/// Size of the multiset intersection of two word lists: the shorter list's
/// word counts in a [`WordTable`] when it has at most 64 words (a line or a
/// group of three: the usual case), else two sorted copies merged.
fn common_words(a: &[u32], b: &[u32]) -> usize {
    let (a, b) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if a.len() <= 64 {
        let mut counts = WordTable::new();
        for &w in a {
            *counts.entry(w) += 1;
        }
        let mut common = 0;
        for &w in b {
            let i = counts.slot(w);
            if counts.values[i] > 0 {
                counts.values[i] -= 1;
                common += 1;
            }
        }
        return common;
    }
    let (mut sa, mut sb) = (a.to_vec(), b.to_vec());
    sa.sort_unstable();
    sb.sort_unstable();
    crate::util::sorted::common_count(&sa, &sb)
}

/// Word-level Levenshtein distance (insertions, deletions and substitutions
/// of whole words). This is the aligner's innermost loop: when the shorter
/// list has at most 64 words it runs Myers' bit-parallel algorithm (Hyyrö's
/// formulation for global distance), one machine word per column of the
/// table; longer lists use one row of the classic table.
pub fn word_levenshtein(a: &[u32], b: &[u32]) -> usize {
    // `p`: the pattern (shorter), `t`: the text (longer).
    let (t, p) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    let m = p.len();
    if m == 0 {
        return t.len();
    }
    if m <= 64 {
        let mut peq = WordTable::new();
        for (i, &w) in p.iter().enumerate() {
            *peq.entry(w) |= 1 << i;
        }
        let last = 1u64 << (m - 1);
        let mut pv = u64::MAX >> (64 - m);
        let mut mv = 0u64;
        let mut score = m;
        for &w in t {
            let eq = peq.get(w);
            let xv = eq | mv;
            let xh = ((eq & pv).wrapping_add(pv) ^ pv) | eq;
            let mut ph = mv | !(xh | pv);
            let mut mh = pv & xh;
            if ph & last != 0 {
                score += 1;
            } else if mh & last != 0 {
                score -= 1;
            }
            ph = (ph << 1) | 1;
            mh <<= 1;
            pv = mh | !(xv | ph);
            mv = ph & xv;
        }
        return score;
    }
    let mut row: Vec<usize> = (0..=m).collect();
    for (i, &wt) in t.iter().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, &wp) in p.iter().enumerate() {
            let up = row[j + 1];
            let sub = diag + usize::from(wt != wp);
            row[j + 1] = sub.min(up + 1).min(row[j] + 1);
            diag = up;
        }
    }
    row[m]
}

/// The fuzzy part: mean of word-level normalized Levenshtein similarity and word Dice.
pub fn fuzzy(a: &[u32], b: &[u32]) -> f32 {
    let longest = a.len().max(b.len());
    if longest == 0 {
        return 0.0;
    }
    let lev = word_levenshtein(a, b) as f32 / longest as f32;
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
    hybrid_cos_floor(a_words, b_words, dot(a_emb, b_emb), floor)
}

/// [`hybrid_floor`] given the embedding cosine `cos` of the two groups
/// (clamped to 0..1 here), for callers that compute it another way.
pub fn hybrid_cos_floor(a_words: &[u32], b_words: &[u32], cos: f32, floor: f32) -> f32 {
    if a_words.is_empty() || b_words.is_empty() {
        return 0.0;
    }
    let cos = cos.clamp(0.0, 1.0);
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
    let lev = word_levenshtein(a_words, b_words) as f32 / max;
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
    fn a_film_s_unrelated_cosine_is_measured_half_the_film_apart() {
        // 60 lines whose cues are copies: pairs half the film apart share a
        // word or two at most, so the level sits well under a true pair's.
        const WORDS: [&str; 23] = [
            "harbour", "key", "letter", "brother", "rain", "window", "money", "ring", "safe",
            "tonight", "station", "promise", "never", "kitchen", "boat", "father", "lie",
            "morning", "jealous", "police", "garden", "ticket", "wedding",
        ];
        let lines: Vec<String> = (0..60)
            .map(|i| {
                (0..6)
                    .map(|k| WORDS[(i * 7 + k * 5 + i * k) % WORDS.len()])
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let mut vocab = Vocabulary::default();
        let a = prepare(&refs, 1, &mut vocab, &HashedNgramEmbedder).unwrap();
        let b = prepare(&refs, 1, &mut vocab, &HashedNgramEmbedder).unwrap();
        let level = unrelated_level(&a, &b).unwrap();
        let unrelated = level.median;
        assert!(unrelated > 0.0 && unrelated < 0.6, "{unrelated}");
        assert!(level.high >= level.median && level.high < 1.0, "{level:?}");
        assert_eq!(level.pairs, 60);
        // Each line against itself is far above that level.
        let same = dot(a.embedding(7, 1), b.embedding(7, 1));
        assert!(same > unrelated + 0.3, "{same} vs {unrelated}");
        // Too short a film to measure.
        let short = prepare(&refs[..10], 1, &mut vocab, &HashedNgramEmbedder).unwrap();
        assert_eq!(unrelated_level(&short, &short), None);
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
    fn word_levenshtein_and_dice_agree_with_the_reference() {
        struct Words<'a>(&'a [u32]);
        impl<'s> IntoIterator for &'s Words<'_> {
            type Item = &'s u32;
            type IntoIter = std::slice::Iter<'s, u32>;
            fn into_iter(self) -> Self::IntoIter {
                self.0.iter()
            }
        }
        let mut rng = crate::align::synth::Rng::new(7);
        for _ in 0..2_000 {
            let la = (rng.next_u64() % 120) as usize;
            let lb = (rng.next_u64() % 120) as usize;
            // Few distinct words (many repeats) or many (mostly unique).
            let alphabet = if rng.next_u64().is_multiple_of(2) {
                6
            } else {
                300
            };
            let a: Vec<u32> = (0..la)
                .map(|_| (rng.next_u64() % alphabet) as u32)
                .collect();
            let b: Vec<u32> = (0..lb)
                .map(|_| (rng.next_u64() % alphabet) as u32)
                .collect();
            let want = strsim::generic_levenshtein(&Words(&a), &Words(&b));
            assert_eq!(word_levenshtein(&a, &b), want, "{a:?} {b:?}");
            // The multiset intersection, counted per word.
            let common: usize = (0..alphabet as u32)
                .map(|w| {
                    let ca = a.iter().filter(|&&x| x == w).count();
                    let cb = b.iter().filter(|&&x| x == w).count();
                    ca.min(cb)
                })
                .sum();
            assert_eq!(common_words(&a, &b), common, "{a:?} {b:?}");
        }
    }

    #[test]
    fn dice_counts_multisets() {
        assert_eq!(word_dice(&[1, 1, 2], &[1, 2, 2]), 2.0 * 2.0 / 6.0);
        assert_eq!(word_dice(&[], &[1]), 0.0);
    }
}
