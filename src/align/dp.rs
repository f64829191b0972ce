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
use super::similarity::{dot, hybrid_cos_floor, hybrid_floor, Side};

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
/// group's similarity must exceed that of the group without either edge
/// member (so an ad-lib cue is not absorbed into a neighbouring line's match,
/// nor a cut line into its neighbour's cue). A middle member of a 3-group is
/// free: a phrase added or dropped inside a long line.
///
/// `without_first` and `without_last` are the similarities of the group
/// without its first or last edge member, as [`hybrid_floor`] with floor
/// `min_sim` gives them: exact at or above the floor, and below it otherwise,
/// which decides `sim > x` the same way because `sim ≥ min_sim`.
#[allow(clippy::too_many_arguments)]
fn members_belong(
    lines: &Side,
    la: usize,
    kl: usize,
    cues: &Side,
    ca: usize,
    kc: usize,
    min: f32,
    sim: f32,
    without_first: impl FnOnce() -> f32,
    without_last: impl FnOnce() -> f32,
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
    edges_belong && sim > without_first() && sim > without_last()
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
    let nm = moves.len();
    // The move that drops one edge member of move `m` (`(1, k)` → `(1, k − 1)`).
    let sub: Vec<usize> = moves
        .iter()
        .map(|&(kl, kc)| {
            let want = if kc > 1 {
                (1, kc - 1)
            } else {
                (kl.saturating_sub(1), 1)
            };
            moves.iter().position(|&x| x == want).unwrap_or(0)
        })
        .collect();
    // `raw[cell * nm + m]`: similarity of move `m` ending at the cell, with floor
    // `min_sim` (NaN where the move does not fit). A 1:k or k:1 move's parts are
    // the smaller moves ending at the same cell or at its left/upper
    // neighbour, so `members_belong` reads them here instead of scoring again.
    let mut raw = vec![f32::NAN; total * nm];
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
            for (m, &(kl, kc)) in moves.iter().enumerate() {
                if kl > i || kc > j {
                    continue;
                }
                let (la, ca) = (l0 + i - kl, c0 + j - kc);
                let sim = sim_of(&pair_dots, la, kl, ca, kc);
                raw[cell * nm + m] = sim;
                let prev = get(&score, i - kl, j - kc);
                if prev == f32::NEG_INFINITY || sim < params.min_sim {
                    continue;
                }
                let part = sub[m];
                let (pl, pc) = moves[part];
                let belongs = members_belong(
                    lines,
                    la,
                    kl,
                    cues,
                    ca,
                    kc,
                    params.min_member,
                    sim,
                    // Without the first member: the smaller move ending here.
                    || raw[cell * nm + part],
                    // Without the last member: the smaller move ending one
                    // cue (1:k) or one line (k:1) earlier.
                    || {
                        let (pi, pj) = if kc > 1 { (i, j - 1) } else { (i - 1, j) };
                        if pj >= band.lo[pi] && pj <= band.hi[pi] {
                            let v = raw[(offsets[pi] + pj - band.lo[pi]) * nm + part];
                            if !v.is_nan() {
                                return v;
                            }
                        }
                        sim_of(&pair_dots, la, pl, ca, pc)
                    },
                );
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
