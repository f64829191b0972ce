//! Q4_1 weights times Q8_1 activations, the matrix product that dominates a
//! Q4_1 model's forward pass.
//!
//! candle 0.11 multiplies Q4_1 with its scalar reference code on x86; this
//! module does the same arithmetic with AVX2 and gives bit-identical results:
//! each 32-weight block's integer dot product is exact in any order, and the
//! per-block float terms (`sumi·dx·dy + mx·sy`) are formed lane by lane and
//! added to the running sum in block order, as the scalar code does. The
//! activations are quantized to Q8_1 exactly as candle quantizes them.
//! [`Q4_1Matrix::matmul`] spreads the work over the current rayon pool.

use half::f16;
use rayon::prelude::*;

/// Weights per block (Q4_1 and Q8_1 alike).
pub const BLOCK: usize = 32;
/// Bytes of one GGUF Q4_1 block: f16 scale, f16 minimum, 16 bytes of nibbles.
const GGUF_BLOCK_BYTES: usize = 20;
/// Activation rows that share one decoded weight block in prefill.
const ROW_TILE: usize = 4;
/// Activation rows one prefill task owns (its Q8_1 rows stay in L1).
const ROWS_PER_TASK: usize = 16;

/// A Q4_1 weight matrix of `rows` outputs × `cols` inputs, repacked from the
/// GGUF layout into separate nibble, scale and minimum arrays (the f16
/// scales widened to f32, which is exact).
#[derive(Debug, Clone)]
pub struct Q4_1Matrix {
    rows: usize,
    blocks_per_row: usize,
    nibbles: Vec<[u8; 16]>,
    scale: Vec<f32>,
    min: Vec<f32>,
}

/// Rows of activations quantized to Q8_1 (32 signed bytes, an f16 scale and
/// the f16 of scale × the block's sum, both widened to f32).
#[derive(Debug, Clone, Default)]
pub struct Q8_1Rows {
    rows: usize,
    blocks_per_row: usize,
    quants: Vec<[i8; BLOCK]>,
    scale: Vec<f32>,
    scaled_sum: Vec<f32>,
}

impl Q4_1Matrix {
    /// Repacks `bytes`, a row-major GGUF Q4_1 tensor of `rows` × `cols`.
    pub fn from_gguf_bytes(bytes: &[u8], rows: usize, cols: usize) -> Result<Self, String> {
        if cols == 0 || !cols.is_multiple_of(BLOCK) {
            return Err(format!(
                "Q4_1 row length {cols} is not a multiple of {BLOCK}"
            ));
        }
        let blocks_per_row = cols / BLOCK;
        let blocks = rows * blocks_per_row;
        if bytes.len() != blocks * GGUF_BLOCK_BYTES {
            return Err(format!(
                "Q4_1 tensor of {rows}×{cols} needs {} bytes, has {}",
                blocks * GGUF_BLOCK_BYTES,
                bytes.len()
            ));
        }
        let mut m = Q4_1Matrix {
            rows,
            blocks_per_row,
            nibbles: Vec::with_capacity(blocks),
            scale: Vec::with_capacity(blocks),
            min: Vec::with_capacity(blocks),
        };
        for block in bytes.chunks_exact(GGUF_BLOCK_BYTES) {
            m.scale
                .push(f16::from_le_bytes([block[0], block[1]]).to_f32());
            m.min
                .push(f16::from_le_bytes([block[2], block[3]]).to_f32());
            let mut q = [0u8; 16];
            q.copy_from_slice(&block[4..]);
            m.nibbles.push(q);
        }
        Ok(m)
    }

    /// Output features.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Input features.
    pub fn cols(&self) -> usize {
        self.blocks_per_row * BLOCK
    }

    fn row(&self, r: usize) -> WeightRow<'_> {
        let span = r * self.blocks_per_row..(r + 1) * self.blocks_per_row;
        WeightRow {
            nibbles: &self.nibbles[span.clone()],
            scale: &self.scale[span.clone()],
            min: &self.min[span],
        }
    }

    /// `out[i][j] = x[i] · w[j]` for every activation row `i` of `x` and
    /// weight row `j`; `out` is row-major, `x.rows() × self.rows()`.
    pub fn matmul(&self, x: &Q8_1Rows, out: &mut [f32]) {
        assert_eq!(
            x.blocks_per_row, self.blocks_per_row,
            "inner dimensions differ"
        );
        assert_eq!(out.len(), x.rows * self.rows, "output size");
        let n = self.rows;
        if x.rows == 1 {
            let cols_per_task = n.div_ceil(rayon::current_num_threads() * 4).max(16);
            let act = x.row(0);
            out.par_chunks_mut(cols_per_task)
                .enumerate()
                .for_each(|(task, dst)| {
                    let first = task * cols_per_task;
                    for (j, d) in dst.iter_mut().enumerate() {
                        *d = dot::<1>(self.row(first + j), [act])[0];
                    }
                });
            return;
        }
        out.par_chunks_mut(ROWS_PER_TASK * n)
            .enumerate()
            .for_each(|(task, dst)| {
                let first_row = task * ROWS_PER_TASK;
                let rows = dst.len() / n;
                for j in 0..n {
                    let w = self.row(j);
                    let mut i = 0;
                    while i < rows {
                        let left = rows - i;
                        let r = first_row + i;
                        let take = match left {
                            1 => {
                                dst[i * n + j] = dot::<1>(w, [x.row(r)])[0];
                                1
                            }
                            2 => {
                                let s = dot::<2>(w, [x.row(r), x.row(r + 1)]);
                                dst[i * n + j] = s[0];
                                dst[(i + 1) * n + j] = s[1];
                                2
                            }
                            3 => {
                                let s = dot::<3>(w, [x.row(r), x.row(r + 1), x.row(r + 2)]);
                                for (t, v) in s.into_iter().enumerate() {
                                    dst[(i + t) * n + j] = v;
                                }
                                3
                            }
                            _ => {
                                let s = dot::<ROW_TILE>(
                                    w,
                                    [x.row(r), x.row(r + 1), x.row(r + 2), x.row(r + 3)],
                                );
                                for (t, v) in s.into_iter().enumerate() {
                                    dst[(i + t) * n + j] = v;
                                }
                                ROW_TILE
                            }
                        };
                        i += take;
                    }
                }
            });
    }
}

impl Q8_1Rows {
    /// Quantizes `xs`, rows of `cols` floats each, reusing this buffer.
    pub fn quantize(&mut self, xs: &[f32], cols: usize) {
        assert!(cols.is_multiple_of(BLOCK) && xs.len().is_multiple_of(cols));
        self.rows = xs.len() / cols;
        self.blocks_per_row = cols / BLOCK;
        let blocks = xs.len() / BLOCK;
        self.quants.resize(blocks, [0; BLOCK]);
        self.scale.resize(blocks, 0.0);
        self.scaled_sum.resize(blocks, 0.0);
        let per_row = self.blocks_per_row;
        self.quants
            .par_chunks_mut(per_row)
            .zip(self.scale.par_chunks_mut(per_row))
            .zip(self.scaled_sum.par_chunks_mut(per_row))
            .zip(xs.par_chunks(cols))
            .for_each(|(((q, d), s), x)| {
                for (b, x) in x.chunks_exact(BLOCK).enumerate() {
                    (q[b], d[b], s[b]) = quantize_block(x);
                }
            });
    }

    /// Rows held.
    pub fn rows(&self) -> usize {
        self.rows
    }

    fn row(&self, r: usize) -> ActRow<'_> {
        let span = r * self.blocks_per_row..(r + 1) * self.blocks_per_row;
        ActRow {
            quants: &self.quants[span.clone()],
            scale: &self.scale[span.clone()],
            scaled_sum: &self.scaled_sum[span],
        }
    }
}

/// candle's `quantize_row_q8_1` for one block, with the f16 fields widened.
fn quantize_block(x: &[f32]) -> ([i8; BLOCK], f32, f32) {
    let mut amax = 0f32;
    for &v in x {
        amax = amax.max(v.abs());
    }
    let d = amax / 127.0;
    let id = if d != 0.0 { 1.0 / d } else { 0.0 };
    let d16 = f16::from_f32(d);
    let mut q = [0i8; BLOCK];
    let mut sum = 0i32;
    for j in 0..BLOCK / 2 {
        q[j] = (x[j] * id).round() as i8;
        q[j + BLOCK / 2] = (x[j + BLOCK / 2] * id).round() as i8;
        sum += q[j] as i32 + q[j + BLOCK / 2] as i32;
    }
    let s16 = f16::from_f32(sum as f32) * d16;
    (q, d16.to_f32(), s16.to_f32())
}

#[derive(Clone, Copy)]
struct WeightRow<'a> {
    nibbles: &'a [[u8; 16]],
    scale: &'a [f32],
    min: &'a [f32],
}

#[derive(Clone, Copy)]
struct ActRow<'a> {
    quants: &'a [[i8; BLOCK]],
    scale: &'a [f32],
    scaled_sum: &'a [f32],
}

/// The dot products of one weight row with `R` activation rows.
fn dot<const R: usize>(w: WeightRow<'_>, x: [ActRow<'_>; R]) -> [f32; R] {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 is present; the slices' lengths are checked inside.
            return unsafe { avx2::dot::<R>(w, x) };
        }
    }
    x.map(|x| dot_scalar(w, x))
}

/// candle's `vec_dot_q4_1_q8_1` (the reference the SIMD path must equal).
fn dot_scalar(w: WeightRow<'_>, x: ActRow<'_>) -> f32 {
    let mut sumf = 0f32;
    for b in 0..w.nibbles.len() {
        let mut sumi = 0i32;
        for j in 0..BLOCK / 2 {
            let v0 = (w.nibbles[b][j] & 0x0F) as i32;
            let v1 = (w.nibbles[b][j] >> 4) as i32;
            sumi += v0 * x.quants[b][j] as i32 + v1 * x.quants[b][j + BLOCK / 2] as i32;
        }
        sumf += sumi as f32 * w.scale[b] * x.scale[b] + w.min[b] * x.scaled_sum[b];
    }
    sumf
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{ActRow, WeightRow, BLOCK};
    use std::arch::x86_64::*;

    /// The 32 weights of a block as bytes 0..=15: low nibbles in the low
    /// lane (they pair with activations 0..16), high nibbles in the high.
    #[inline(always)]
    unsafe fn unpack(nibbles: &[u8; 16]) -> __m256i {
        let packed = _mm_loadu_si128(nibbles.as_ptr() as *const __m128i);
        let mask = _mm_set1_epi8(0x0F);
        let lo = _mm_and_si128(packed, mask);
        let hi = _mm_and_si128(_mm_srli_epi16(packed, 4), mask);
        _mm256_set_m128i(hi, lo)
    }

    /// Eight i32 partial sums of one block's products.
    #[inline(always)]
    unsafe fn products(w: __m256i, x: &[i8; BLOCK]) -> __m256i {
        let x = _mm256_loadu_si256(x.as_ptr() as *const __m256i);
        // u8 (≤ 15) × i8 pairs: at most 2·15·128, no saturation.
        let pairs = _mm256_maddubs_epi16(w, x);
        _mm256_madd_epi16(pairs, _mm256_set1_epi16(1))
    }

    /// The exact integer dot products of four blocks, one per lane.
    #[inline(always)]
    unsafe fn sums4(p: [__m256i; 4]) -> __m128i {
        let a = _mm256_hadd_epi32(p[0], p[1]);
        let b = _mm256_hadd_epi32(p[2], p[3]);
        let c = _mm256_hadd_epi32(a, b);
        _mm_add_epi32(_mm256_castsi256_si128(c), _mm256_extracti128_si256(c, 1))
    }

    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn dot<const R: usize>(w: WeightRow<'_>, x: [ActRow<'_>; R]) -> [f32; R] {
        let blocks = w.nibbles.len();
        for x in &x {
            assert!(x.quants.len() == blocks && x.scale.len() == blocks);
        }
        assert!(w.scale.len() == blocks && w.min.len() == blocks);
        let mut sumf = [0f32; R];
        let mut b = 0;
        while b + 4 <= blocks {
            let wq = [
                unpack(&w.nibbles[b]),
                unpack(&w.nibbles[b + 1]),
                unpack(&w.nibbles[b + 2]),
                unpack(&w.nibbles[b + 3]),
            ];
            let wd = _mm_loadu_ps(w.scale.as_ptr().add(b));
            let wm = _mm_loadu_ps(w.min.as_ptr().add(b));
            for r in 0..R {
                let xr = &x[r];
                let s = sums4([
                    products(wq[0], &xr.quants[b]),
                    products(wq[1], &xr.quants[b + 1]),
                    products(wq[2], &xr.quants[b + 2]),
                    products(wq[3], &xr.quants[b + 3]),
                ]);
                let xd = _mm_loadu_ps(xr.scale.as_ptr().add(b));
                let xs = _mm_loadu_ps(xr.scaled_sum.as_ptr().add(b));
                // sumi·dx·dy + mx·sy, lane by lane as the scalar code rounds it.
                let t = _mm_add_ps(
                    _mm_mul_ps(_mm_mul_ps(_mm_cvtepi32_ps(s), wd), xd),
                    _mm_mul_ps(wm, xs),
                );
                let mut lanes = [0f32; 4];
                _mm_storeu_ps(lanes.as_mut_ptr(), t);
                for v in lanes {
                    sumf[r] += v;
                }
            }
            b += 4;
        }
        while b < blocks {
            let wq = unpack(&w.nibbles[b]);
            for r in 0..R {
                let xr = &x[r];
                let p = products(wq, &xr.quants[b]);
                let mut lanes = [0i32; 8];
                _mm256_storeu_si256(lanes.as_mut_ptr() as *mut __m256i, p);
                let sumi: i32 = lanes.iter().sum();
                sumf[r] += sumi as f32 * w.scale[b] * xr.scale[b] + w.min[b] * xr.scaled_sum[b];
            }
            b += 1;
        }
        sumf
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::quantized::{GgmlDType, QMatMul, QTensor};
    use candle_core::{Device, Module, Tensor};

    /// Deterministic values in [-scale, scale).
    fn values(n: usize, seed: u64, scale: f32) -> Vec<f32> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((s >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * scale
            })
            .collect()
    }

    fn q4_1(rows: usize, cols: usize, seed: u64) -> (QTensor, Q4_1Matrix) {
        let w =
            Tensor::from_vec(values(rows * cols, seed, 0.2), (rows, cols), &Device::Cpu).unwrap();
        let q = QTensor::quantize(&w, GgmlDType::Q4_1).unwrap();
        let m = Q4_1Matrix::from_gguf_bytes(&q.data().unwrap(), rows, cols).unwrap();
        (q, m)
    }

    #[test]
    fn simd_dot_equals_the_scalar_reference_bit_for_bit() {
        for cols in [32, 64, 96, 128, 576, 1536, 1568] {
            let (_, w) = q4_1(3, cols, cols as u64);
            let mut x = Q8_1Rows::default();
            x.quantize(&values(5 * cols, 7, 3.0), cols);
            for j in 0..3 {
                let rows = [x.row(0), x.row(1), x.row(2), x.row(3)];
                let tile = dot::<4>(w.row(j), rows);
                for (r, v) in tile.into_iter().enumerate() {
                    assert_eq!(v.to_bits(), dot_scalar(w.row(j), rows[r]).to_bits());
                }
                let one = dot::<1>(w.row(j), [x.row(4)])[0];
                assert_eq!(one.to_bits(), dot_scalar(w.row(j), x.row(4)).to_bits());
            }
        }
    }

    /// The product equals candle's own QMatMul on the same Q4_1 tensor
    /// (what the engine used before), for one row and for prefill tiles.
    #[test]
    fn matmul_equals_candle_bit_for_bit() {
        for (k, n) in [(576, 200), (1536, 576), (576, 1536)] {
            let (qt, w) = q4_1(n, k, 11);
            let candle = QMatMul::from_qtensor(qt).unwrap();
            for m in [1, 2, 3, 4, 5, 8, 17, 40] {
                let xs = values(m * k, m as u64, 2.5);
                let input = Tensor::from_vec(xs.clone(), (m, k), &Device::Cpu).unwrap();
                let want: Vec<f32> = candle
                    .forward(&input)
                    .unwrap()
                    .flatten_all()
                    .unwrap()
                    .to_vec1()
                    .unwrap();
                let mut x = Q8_1Rows::default();
                x.quantize(&xs, k);
                let mut got = vec![0f32; m * n];
                w.matmul(&x, &mut got);
                let same = want
                    .iter()
                    .zip(&got)
                    .all(|(a, b)| a.to_bits() == b.to_bits());
                assert!(same, "{m}×{k} by {n}: differs from candle");
            }
        }
    }

    #[test]
    fn quantization_rounds_half_away_from_zero_and_keeps_zero_blocks() {
        let mut x = vec![0f32; 64];
        x[32] = 127.0;
        x[33] = 0.5;
        x[34] = -0.5;
        x[35] = 2.5;
        let mut q = Q8_1Rows::default();
        q.quantize(&x, 64);
        assert_eq!(q.quants[0], [0; 32]);
        assert_eq!(q.scale[0], 0.0);
        assert_eq!(&q.quants[1][..4], &[127, 1, -1, 3]);
        assert_eq!(q.scaled_sum[1], 130.0);
    }

    #[test]
    fn bad_shapes_are_errors() {
        assert!(Q4_1Matrix::from_gguf_bytes(&[0; 20], 1, 31).is_err());
        assert!(Q4_1Matrix::from_gguf_bytes(&[0; 19], 1, 32).is_err());
    }
}
