//! Monotone many-to-many alignment of dialogue lines to cues by dynamic programming.
//!
//! State `(i, j)`: the first `i` lines and the first `j` cues are decided.
//! Moves into `(i, j)`:
//!
//! | move | from | score |
//! |---|---|---|
//! | 1:1, 1:k (a line split over k ≤ 3 cues), k:1 (k ≤ 3 lines in one cue) | `(i − kl, j − kc)` | `(kl + kc)/2 · (sim − tau)`, only when `sim ≥ min_sim` |
//! | skip line (cut from the film) | `(i − 1, j)` | `− skip_line` |
//! | skip cue (ad-lib, sound) | `(i, j − 1)` | `− skip_cue` |
//!
//! `sim` is the hybrid similarity of the concatenated group texts
//! ([`super::similarity`]). Because no match below `min_sim` is ever allowed,
//! unrelated text is left unmatched instead of being forced.
//!
//! [`banded_dp`] evaluates only the cells of a [`Band`] (per row a cue range)
//! built around the anchor chain ([`super::anchors`]): between two consecutive
//! anchors the band spans exactly the cues between them plus a margin, so its
//! width adapts to the local density of anchors and the cost is O(n · w).
//! [`naive_full_dp`] fills the whole matrix with identical scoring and
//! tie-breaking (moves tried in a fixed order, replaced only when strictly
//! better), for comparison.

use super::anchors::Anchor;
use super::similarity::{dot, hybrid_cos_floor, hybrid_floor, word_dice, Side, W_EMBED};

/// Scoring parameters of the dynamic programme.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DpParams {
    /// Largest group on either side of a move (lines per cue, cues per line).
    pub max_group: usize,
    /// Similarity at which a match scores zero.
    pub tau: f32,
    /// No match below this similarity is allowed.
    pub min_sim: f32,
    /// In a 1:k or k:1 move, each edge member of the group must have at least
    /// this share of its words in the other side's text (see `members_belong`).
    pub min_member: f32,
    /// Penalty for leaving a line unmatched.
    pub skip_line: f32,
    /// Penalty for leaving a cue unmatched.
    pub skip_cue: f32,
}

impl Default for DpParams {
    fn default() -> Self {
        DpParams {
            max_group: 3,
            tau: 0.45,
            min_sim: 0.45,
            min_member: 0.25,
            skip_line: 0.01,
            skip_cue: 0.01,
        }
    }
}

/// One matched group: `lines` consecutive lines from `line` to `cues`
/// consecutive cues from `cue`, with their similarity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pair {
    /// First line of the group.
    pub line: usize,
    /// Number of lines.
    pub lines: usize,
    /// First cue of the group.
    pub cue: usize,
    /// Number of cues.
    pub cues: usize,
    /// Hybrid similarity of the concatenated texts.
    pub sim: f32,
}

/// For each row `i` (lines decided) the inclusive range of `j` (cues decided)
/// that is evaluated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Band {
    /// Lowest `j` per row.
    pub lo: Vec<usize>,
    /// Highest `j` per row.
    pub hi: Vec<usize>,
}

impl Band {
    /// The full matrix for `n` lines and `m` cues.
    pub fn full(n: usize, m: usize) -> Band {
        Band {
            lo: vec![0; n + 1],
            hi: vec![m; n + 1],
        }
    }

    /// A band around an anchor chain (monotone in both coordinates): line `l`
    /// may use cues from the previous anchor's cue − `margin` to the next
    /// anchor's cue + `margin`.
    pub fn around(chain: &[Anchor], n: usize, m: usize, margin: usize) -> Band {
        if m == 0 || n == 0 {
            return Band::full(n, m);
        }
        let mut a = vec![0usize; n];
        let mut b = vec![m - 1; n];
        let mut k = 0;
        for l in 0..n {
            while k < chain.len() && chain[k].line <= l {
                k += 1;
            }
            // chain[..k] have line <= l.
            if k > 0 {
                a[l] = chain[k - 1].cue.saturating_sub(margin);
            }
            if let Some(next) = chain[k.saturating_sub(1)..].iter().find(|x| x.line >= l) {
                b[l] = (next.cue + margin).min(m - 1);
            }
        }
        let mut lo = vec![0; n + 1];
        let mut hi = vec![m; n + 1];
        for i in 0..=n {
            lo[i] = if i == 0 { 0 } else { a[i - 1] };
            hi[i] = if i == n { m } else { (b[i] + 1).min(m) };
            if i > 0 {
                lo[i] = lo[i].max(lo[i - 1]);
            }
        }
        for i in (0..n).rev() {
            hi[i] = hi[i].min(hi[i + 1]);
        }
        for i in 0..=n {
            if i > 0 {
                // Stay connected: a row must reach the previous row's end.
                lo[i] = lo[i].min(hi[i - 1]);
            }
            hi[i] = hi[i].max(lo[i]);
        }
        Band { lo, hi }
    }

    /// Number of cells the band holds.
    pub fn cells(&self) -> usize {
        self.lo.iter().zip(&self.hi).map(|(l, h)| h - l + 1).sum()
    }
}

const SKIP_LINE: u8 = 1;
const SKIP_CUE: u8 = 2;
const START: u8 = 0;
// Match moves are encoded as 16 + kl * 4 + kc.

/// Share of `part`'s words that occur in `whole`.
fn contained(part: &[u32], whole: &[u32]) -> f32 {
    if part.is_empty() {
        return 0.0;
    }
    part.iter().filter(|w| whole.contains(w)).count() as f32 / part.len() as f32
}

/// Whether a 1:k or k:1 group is better than its parts: each edge member
/// must hold at least `min` of its words in the other side's text, and the
/// group must be closer to the other side than the group without either edge
/// member (so an ad-lib cue is not absorbed into a neighbouring line's match,
/// nor a cut line into its neighbour's cue). A middle member of a 3-group is
/// free: a phrase added or dropped inside a long line.
///
/// "Closer" is measured by [`order_free`]: the hybrid score's word-order
/// term would reject a member whose clause the film says first, and a
/// sentence model's cosine saturates near 1, so with it a part that belongs
/// can raise the cosine too little to make up for that term.
fn members_belong(
    lines: &Side,
    (la, kl): (usize, usize),
    cues: &Side,
    (ca, kc): (usize, usize),
    min: f32,
) -> bool {
    let (lw, cw) = (lines.words(la, kl), cues.words(ca, kc));
    let edges_belong = if kc > 1 {
        contained(cues.words(ca, 1), lw) >= min && contained(cues.words(ca + kc - 1, 1), lw) >= min
    } else if kl > 1 {
        contained(lines.words(la, 1), cw) >= min
            && contained(lines.words(la + kl - 1, 1), cw) >= min
    } else {
        return true;
    };
    if !edges_belong {
        return false;
    }
    let whole = order_free(lines, (la, kl), cues, (ca, kc));
    let (without_first, without_last) = if kc > 1 {
        (
            order_free(lines, (la, kl), cues, (ca + 1, kc - 1)),
            order_free(lines, (la, kl), cues, (ca, kc - 1)),
        )
    } else {
        (
            order_free(lines, (la + 1, kl - 1), cues, (ca, kc)),
            order_free(lines, (la, kl - 1), cues, (ca, kc)),
        )
    };
    whole > without_first && whole > without_last
}

/// How close a line group and a cue group are whatever their word order:
/// `W_EMBED · cosine + (1 − W_EMBED) · word Dice`, with the groups'
/// normalized embeddings.
fn order_free(
    lines: &Side,
    (la, kl): (usize, usize),
    cues: &Side,
    (ca, kc): (usize, usize),
) -> f32 {
    let cos = dot(lines.embedding(la, kl), cues.embedding(ca, kc)).clamp(0.0, 1.0);
    let dice = word_dice(lines.words(la, kl), cues.words(ca, kc));
    W_EMBED * cos + (1.0 - W_EMBED) * dice
}

/// Full-matrix alignment of `lines[l0..l0+n]` to `cues[c0..c0+m]` (same scoring as [`banded_dp`]).
pub fn naive_full_dp(lines: &Side, cues: &Side, params: &DpParams) -> Vec<Pair> {
    let band = Band::full(lines.len(), cues.len());
    dp_in(lines, cues, 0, lines.len(), 0, cues.len(), &band, params)
}

/// Alignment of all lines to all cues, evaluating only the cells of `band`.
pub fn banded_dp(lines: &Side, cues: &Side, band: &Band, params: &DpParams) -> Vec<Pair> {
    dp_in(lines, cues, 0, lines.len(), 0, cues.len(), band, params)
}

/// The dynamic programme over lines `l0..l0 + n` and cues `c0..c0 + m`
/// (band rows/columns relative to `l0`/`c0`); returns matched groups in order.
// Index loops: each index addresses several parallel arrays.
#[allow(clippy::too_many_arguments, clippy::needless_range_loop)]
pub fn dp_in(
    lines: &Side,
    cues: &Side,
    l0: usize,
    n: usize,
    c0: usize,
    m: usize,
    band: &Band,
    params: &DpParams,
) -> Vec<Pair> {
    let mut offsets = Vec::with_capacity(n + 2);
    offsets.push(0usize);
    for i in 0..=n {
        offsets.push(offsets[i] + band.hi[i] - band.lo[i] + 1);
    }
    let total = offsets[n + 1];
    let mut score = vec![f32::NEG_INFINITY; total];
    let mut back = vec![START; total];
    let mut sims = vec![0f32; total];
    let get = |score: &[f32], i: usize, j: usize| -> f32 {
        if j < band.lo[i] || j > band.hi[i] {
            f32::NEG_INFINITY
        } else {
            score[offsets[i] + j - band.lo[i]]
        }
    };
    let g = params.max_group.clamp(1, 3);
    let mut moves = vec![(1usize, 1usize)];
    for k in 2..=g {
        moves.push((1, k));
        moves.push((k, 1));
    }
    // With an additive embedder a group's cosine is the sum of its items'
    // pairwise dot products (unnormalized vectors) over the groups' norms, so
    // each cell computes one vector dot product, of the line and cue it ends
    // with (`pair_dots`), and the five moves' cosines reuse its neighbours'.
    let additive =
        n > 0 && m > 0 && lines.item_vector(l0).is_some() && cues.item_vector(c0).is_some();
    let mut pair_dots = vec![f32::NAN; if additive { total } else { 0 }];
    let pair = |pair_dots: &[f32], l: usize, c: usize| -> f32 {
        let (pi, pj) = (l - l0 + 1, c - c0 + 1);
        if pj >= band.lo[pi] && pj <= band.hi[pi] {
            let v = pair_dots[offsets[pi] + pj - band.lo[pi]];
            if !v.is_nan() {
                return v;
            }
        }
        dot(
            lines.item_vector(l).unwrap_or(&[]),
            cues.item_vector(c).unwrap_or(&[]),
        )
    };
    let sim_of = |pair_dots: &[f32], la: usize, kl: usize, ca: usize, kc: usize| -> f32 {
        if !additive {
            return hybrid_floor(
                lines.words(la, kl),
                lines.embedding(la, kl),
                cues.words(ca, kc),
                cues.embedding(ca, kc),
                params.min_sim,
            );
        }
        let mut sum = 0.0f32;
        for l in la..la + kl {
            for c in ca..ca + kc {
                sum += pair(pair_dots, l, c);
            }
        }
        let norm = lines.group_norm(la, kl).unwrap_or(0.0) * cues.group_norm(ca, kc).unwrap_or(0.0);
        let cos = if norm > 0.0 { sum / norm } else { 0.0 };
        hybrid_cos_floor(lines.words(la, kl), cues.words(ca, kc), cos, params.min_sim)
    };
    for i in 0..=n {
        for j in band.lo[i]..=band.hi[i] {
            let cell = offsets[i] + j - band.lo[i];
            if i == 0 && j == 0 {
                score[cell] = 0.0;
                continue;
            }
            if additive && i > 0 && j > 0 {
                pair_dots[cell] = dot(
                    lines.item_vector(l0 + i - 1).unwrap_or(&[]),
                    cues.item_vector(c0 + j - 1).unwrap_or(&[]),
                );
            }
            let mut best = f32::NEG_INFINITY;
            let mut mv = START;
            let mut best_sim = 0.0;
            // Match moves in a fixed order: 1:1, 1:2, 2:1, 1:3, 3:1, ...
            for &(kl, kc) in &moves {
                if kl > i || kc > j {
                    continue;
                }
                let (la, ca) = (l0 + i - kl, c0 + j - kc);
                let sim = sim_of(&pair_dots, la, kl, ca, kc);
                let prev = get(&score, i - kl, j - kc);
                if prev == f32::NEG_INFINITY || sim < params.min_sim {
                    continue;
                }
                let belongs = members_belong(lines, (la, kl), cues, (ca, kc), params.min_member);
                if !belongs {
                    continue;
                }
                let s = prev + (kl + kc) as f32 / 2.0 * (sim - params.tau);
                if s > best {
                    best = s;
                    mv = 16 + (kl as u8) * 4 + kc as u8;
                    best_sim = sim;
                }
            }
            if i > 0 {
                let s = get(&score, i - 1, j) - params.skip_line;
                if s > best {
                    best = s;
                    mv = SKIP_LINE;
                }
            }
            if j > 0 {
                let s = get(&score, i, j - 1) - params.skip_cue;
                if s > best {
                    best = s;
                    mv = SKIP_CUE;
                }
            }
            score[cell] = best;
            back[cell] = mv;
            sims[cell] = best_sim;
        }
    }
    // Trace back from (n, m).
    let mut pairs = Vec::new();
    let (mut i, mut j) = (n, m);
    while i > 0 || j > 0 {
        let cell = offsets[i] + j - band.lo[i];
        match back[cell] {
            SKIP_LINE => i -= 1,
            SKIP_CUE => j -= 1,
            START => break,
            code => {
                let kl = ((code - 16) / 4) as usize;
                let kc = ((code - 16) % 4) as usize;
                pairs.push(Pair {
                    line: l0 + i - kl,
                    lines: kl,
                    cue: c0 + j - kc,
                    cues: kc,
                    sim: sims[cell],
                });
                i -= kl;
                j -= kc;
            }
        }
    }
    pairs.reverse();
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::similarity::{prepare, HashedNgramEmbedder, Vocabulary};

    /// A test embedder whose cosines crowd near 1, as a sentence model's do
    /// for texts that share most of their words: one large constant
    /// dimension plus a bag of hashed words.
    struct SaturatingEmbedder;

    impl crate::embed::Embedder for SaturatingEmbedder {
        fn name(&self) -> &str {
            "saturating"
        }
        fn model_id(&self) -> &str {
            "test-saturating"
        }
        fn dims(&self) -> usize {
            65
        }
        fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, crate::embed::EmbedError> {
            Ok(texts
                .iter()
                .map(|t| {
                    let mut v = vec![0f32; 65];
                    v[64] = 6.0;
                    for w in t.split_whitespace() {
                        let h = w
                            .bytes()
                            .fold(7u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b)));
                        v[h as usize % 64] += 1.0;
                    }
                    crate::embed::l2_normalize(&mut v);
                    v
                })
                .collect())
        }
    }

    #[test]
    fn a_split_line_whose_last_clause_the_film_says_first_is_one_group() {
        let line = "I tied my ring to the strongest line they made -- strong enough to hold up \
                    a bridge, they said, if just for a few minutes -- and I cast upriver.";
        let cues = [
            "They told, if only for a few minutes -- and I",
            "cast upriver, I tied my ring to the strongest line they",
            "made -- strong enough to hold up a bridge.",
        ];
        let mut v = Vocabulary::default();
        let ls = prepare(&[line], 3, &mut v, &SaturatingEmbedder).unwrap();
        let cs = prepare(&cues, 3, &mut v, &SaturatingEmbedder).unwrap();
        // The hybrid score falls when the reordered first cue joins: its
        // word-order term loses more than the saturated cosine gains. A
        // gain check on it rejected the group and lost the line's first cue.
        let hybrid = |ca: usize, kc: usize| {
            hybrid_floor(
                ls.words(0, 1),
                ls.embedding(0, 1),
                cs.words(ca, kc),
                cs.embedding(ca, kc),
                0.0,
            )
        };
        assert!(
            hybrid(0, 3) <= hybrid(1, 2),
            "{} vs {}",
            hybrid(0, 3),
            hybrid(1, 2)
        );
        let pairs = naive_full_dp(&ls, &cs, &DpParams::default());
        assert_eq!(pairs.len(), 1, "{pairs:?}");
        assert_eq!((pairs[0].cue, pairs[0].cues), (0, 3), "{pairs:?}");
    }

    fn sides(lines: &[&str], cues: &[&str]) -> (Side, Side) {
        let mut v = Vocabulary::default();
        let e = HashedNgramEmbedder;
        (
            prepare(lines, 3, &mut v, &e).unwrap(),
            prepare(cues, 3, &mut v, &e).unwrap(),
        )
    }

    #[test]
    fn splits_merges_and_gaps() {
        let (l, c) = sides(
            &[
                "I found it the night we buried him and I kept it",
                "Do you?",
                "Usually.",
                "This line was cut from the film entirely",
                "Take it and go.",
            ],
            &[
                "I found it the night we buried him",
                "and I kept it",
                "Do you? Usually.",
                "Morning, morning, says the postman",
                "Take it and go.",
            ],
        );
        let p = naive_full_dp(&l, &c, &DpParams::default());
        let got: Vec<_> = p.iter().map(|p| (p.line, p.lines, p.cue, p.cues)).collect();
        assert_eq!(got, vec![(0, 1, 0, 2), (1, 2, 2, 1), (4, 1, 4, 1)]);
        let band = Band::around(&[], 5, 5, 2);
        assert_eq!(banded_dp(&l, &c, &band, &DpParams::default()), p);
    }

    #[test]
    fn group_cosines_from_pair_dots_match_the_group_embeddings() {
        let (l, c) = sides(
            &[
                "I found it the night we buried him",
                "and I kept it",
                "Do you?",
                "Usually, when the tide is out.",
            ],
            &[
                "I found it the night we buried him and I kept it",
                "Do you? Usually.",
                "The tide is out",
                "Morning, morning, says the postman",
            ],
        );
        for (la, kl) in [(0, 1), (0, 2), (1, 3), (3, 1)] {
            for (ca, kc) in [(0, 1), (1, 2), (1, 3), (3, 1)] {
                let mut sum = 0.0;
                for x in la..la + kl {
                    for y in ca..ca + kc {
                        sum += dot(l.item_vector(x).unwrap(), c.item_vector(y).unwrap());
                    }
                }
                let cos = sum / (l.group_norm(la, kl).unwrap() * c.group_norm(ca, kc).unwrap());
                let direct = dot(l.embedding(la, kl), c.embedding(ca, kc));
                assert!(
                    (cos - direct).abs() < 1e-5,
                    "{la},{kl} {ca},{kc}: {cos} vs {direct}"
                );
            }
        }
    }

    #[test]
    fn band_is_connected_and_ends_at_corner() {
        let chain = [Anchor { line: 2, cue: 3 }, Anchor { line: 6, cue: 9 }];
        let b = Band::around(&chain, 8, 12, 1);
        assert_eq!(b.lo[0], 0);
        assert_eq!(b.hi[8], 12);
        for i in 1..=8 {
            assert!(b.lo[i] <= b.hi[i - 1] && b.lo[i] >= b.lo[i - 1]);
        }
        assert!(b.cells() < 9 * 13);
    }
}
