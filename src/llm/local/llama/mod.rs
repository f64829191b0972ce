//! The llama-layout transformer (Llama, SmolLM2, Mistral) on plain f32
//! buffers: the engine's own forward pass.
//!
//! It gives the logits of candle's `quantized_llama`, bit for bit (a test
//! compares them): every step does the same arithmetic in the same order —
//! RMS norm, rotary embedding, SiLU, the Q4_1 products of [`super::q4_1`],
//! and for attention the very `gemm` calls and softmax reductions candle
//! makes. What it leaves out is candle's per-step overhead: the KV cache
//! grows in place instead of being concatenated and copied every token,
//! grouped-query heads read their shared key/value head instead of a
//! repeated copy, and the work is spread over the engine's own thread pool
//! (sized to the machine, not to `RAYON_NUM_THREADS`, which the sentence
//! embedder sets to 1). Weights of types other than Q4_1 go through candle's
//! `QMatMul`.

use candle_core::quantized::gguf_file::Content;
use candle_core::quantized::{GgmlDType, QMatMul, QTensor};
use candle_core::{Device, Module, Tensor};
use rayon::prelude::*;
use std::io::{Read, Seek};

use super::q4_1::{Q4_1Matrix, Q8_1Rows};

/// Longest sequence (the rotary tables' length, as candle's implementation).
pub const MAX_SEQ_LEN: usize = 4096;

/// Why the file cannot run on this implementation.
#[derive(Debug)]
pub enum Unsupported {
    /// A layout this implementation does not cover (mixture of experts,
    /// partial rotary dimension, …): the caller runs candle's instead.
    Layout(String),
    /// The file is unreadable or inconsistent (a tensor missing or of the
    /// wrong shape): a load error.
    Invalid(String),
}

impl From<candle_core::Error> for Unsupported {
    fn from(e: candle_core::Error) -> Self {
        Unsupported::Invalid(e.to_string())
    }
}

/// A weight matrix and the product that suits its type.
enum Linear {
    /// Our SIMD Q4_1 product.
    Q4_1(Q4_1Matrix),
    /// Any other type, through candle.
    Candle {
        matmul: QMatMul,
        rows: usize,
        cols: usize,
    },
}

impl Linear {
    fn new(q: QTensor) -> Result<Self, Unsupported> {
        let (rows, cols) = q.shape().dims2()?;
        if q.dtype() == GgmlDType::Q4_1 {
            let m = Q4_1Matrix::from_gguf_bytes(&q.data()?, rows, cols)
                .map_err(Unsupported::Invalid)?;
            return Ok(Linear::Q4_1(m));
        }
        Ok(Linear::Candle {
            matmul: QMatMul::from_qtensor(q)?,
            rows,
            cols,
        })
    }

    /// (outputs, inputs).
    fn shape(&self) -> (usize, usize) {
        match self {
            Linear::Q4_1(m) => (m.rows(), m.cols()),
            Linear::Candle { rows, cols, .. } => (*rows, *cols),
        }
    }

    /// An error unless this matrix maps `inputs` features to `outputs`.
    fn expect(&self, name: &str, outputs: usize, inputs: usize) -> Result<(), Unsupported> {
        let (rows, cols) = self.shape();
        if (rows, cols) == (outputs, inputs) {
            return Ok(());
        }
        Err(Unsupported::Invalid(format!(
            "{name} maps {cols} features to {rows}; the metadata needs {inputs} to {outputs}"
        )))
    }

    fn rows(&self) -> usize {
        match self {
            Linear::Q4_1(m) => m.rows(),
            Linear::Candle { rows, .. } => *rows,
        }
    }

    /// `x` (`m` rows of `cols`) times this matrix's transpose into `out`;
    /// `xq` is `x` quantized, shared by the matrices that read the same
    /// input, filled on first use.
    fn forward(
        &self,
        x: &[f32],
        cols: usize,
        xq: &mut Option<Q8_1Rows>,
        out: &mut Vec<f32>,
    ) -> candle_core::Result<()> {
        let m = x.len() / cols;
        out.clear();
        out.resize(m * self.rows(), 0.0);
        match self {
            Linear::Q4_1(w) => {
                let q = xq.get_or_insert_with(|| {
                    let mut q = Q8_1Rows::default();
                    q.quantize(x, cols);
                    q
                });
                w.matmul(q, out);
            }
            Linear::Candle { matmul, .. } => {
                let input = Tensor::from_slice(x, (m, cols), &Device::Cpu)?;
                let y = matmul
                    .forward(&input)?
                    .to_dtype(candle_core::DType::F32)?
                    .flatten_all()?
                    .to_vec1::<f32>()?;
                out.copy_from_slice(&y);
            }
        }
        Ok(())
    }
}

struct Layer {
    attn_norm: Vec<f32>,
    wq: Linear,
    wk: Linear,
    wv: Linear,
    wo: Linear,
    ffn_norm: Vec<f32>,
    gate: Linear,
    up: Linear,
    down: Linear,
    /// Keys after rotation, one `[position][head_dim]` buffer per key/value
    /// head (the layout candle's attention multiplies, so the products are
    /// the same).
    keys: Vec<Vec<f32>>,
    /// Values, same layout.
    values: Vec<Vec<f32>>,
}

/// A loaded llama-layout model with its KV cache.
pub struct Llama {
    embeddings: Vec<f32>,
    vocab: usize,
    dim: usize,
    n_head: usize,
    n_kv_head: usize,
    head_dim: usize,
    eps: f32,
    /// `cos`/`sin` of position × frequency, `[position][head_dim / 2]`.
    cos: Vec<f32>,
    sin: Vec<f32>,
    layers: Vec<Layer>,
    norm: Vec<f32>,
    output: Linear,
    /// Positions in the KV cache.
    cached: usize,
    pool: std::sync::Arc<rayon::ThreadPool>,
}

impl std::fmt::Debug for Llama {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Llama")
            .field("layers", &self.layers.len())
            .field("dim", &self.dim)
            .field("cached", &self.cached)
            .finish()
    }
}

/// Threads of the engine's pool: `MOVIEGRAPH_LOCAL_THREADS` when set, else
/// the CPUs this process may use.
pub fn engine_threads() -> usize {
    std::env::var("MOVIEGRAPH_LOCAL_THREADS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

fn to_vec(q: QTensor) -> candle_core::Result<Vec<f32>> {
    q.dequantize(&Device::Cpu)?.flatten_all()?.to_vec1::<f32>()
}

impl Llama {
    /// Loads a llama-layout GGUF; [`Unsupported::Layout`] for files this
    /// implementation does not cover.
    pub fn from_gguf<R: Read + Seek>(ct: &Content, file: &mut R) -> Result<Self, Unsupported> {
        let md = |k: &str| {
            ct.metadata
                .get(k)
                .ok_or_else(|| Unsupported::Layout(format!("no {k} in the metadata")))
        };
        let arch = md("general.architecture")?.to_string()?.clone();
        let u = |k: &str| -> Result<usize, Unsupported> {
            Ok(md(&format!("{arch}.{k}"))?.to_u32()? as usize)
        };
        let experts = md(&format!("{arch}.expert_count"))
            .ok()
            .and_then(|v| v.to_u32().ok())
            .unwrap_or(0);
        if experts > 1 {
            return Err(Unsupported::Layout("mixture of experts".into()));
        }
        let n_head = u("attention.head_count")?;
        let n_kv_head = u("attention.head_count_kv")?;
        let layers = u("block_count")?;
        let dim = u("embedding_length")?;
        let rope_dim = u("rope.dimension_count")?;
        let eps = md(&format!("{arch}.attention.layer_norm_rms_epsilon"))?.to_f32()?;
        let freq_base = md(&format!("{arch}.rope.freq_base"))
            .ok()
            .and_then(|v| v.to_f32().ok())
            .unwrap_or(10000.0);
        if n_head == 0
            || n_kv_head == 0
            || !dim.is_multiple_of(n_head)
            || !n_head.is_multiple_of(n_kv_head)
        {
            return Err(Unsupported::Layout(format!(
                "{n_head} heads, {n_kv_head} key/value heads, width {dim}"
            )));
        }
        let head_dim = dim / n_head;
        if rope_dim != head_dim || !head_dim.is_multiple_of(2) {
            return Err(Unsupported::Layout(format!(
                "rotary dimension {rope_dim} of head size {head_dim}"
            )));
        }
        let dev = Device::Cpu;
        let mut tensor = |name: &str| ct.tensor(file, name, &dev);
        let embd = tensor("token_embd.weight")?;
        let (vocab, width) = embd.shape().dims2()?;
        if width != dim {
            return Err(Unsupported::Layout(format!(
                "embedding width {width}, model width {dim}"
            )));
        }
        let embeddings = to_vec(embd)?;
        let norm = to_vec(tensor("output_norm.weight")?)?;
        let output = match tensor("output.weight") {
            Ok(t) => t,
            // Tied embeddings: the output head is the embedding table.
            Err(_) => tensor("token_embd.weight")?,
        };
        let output = Linear::new(output)?;
        let mut blocks = Vec::with_capacity(layers);
        for l in 0..layers {
            let mut w = |n: &str| tensor(&format!("blk.{l}.{n}.weight"));
            blocks.push(Layer {
                attn_norm: to_vec(w("attn_norm")?)?,
                wq: Linear::new(w("attn_q")?)?,
                wk: Linear::new(w("attn_k")?)?,
                wv: Linear::new(w("attn_v")?)?,
                wo: Linear::new(w("attn_output")?)?,
                ffn_norm: to_vec(w("ffn_norm")?)?,
                gate: Linear::new(w("ffn_gate")?)?,
                up: Linear::new(w("ffn_up")?)?,
                down: Linear::new(w("ffn_down")?)?,
                keys: vec![Vec::new(); n_kv_head],
                values: vec![Vec::new(); n_kv_head],
            });
        }
        let kv_dim = n_kv_head * head_dim;
        let vector = |name: String, v: &[f32]| {
            if v.len() == dim {
                Ok(())
            } else {
                Err(Unsupported::Invalid(format!(
                    "{name} has {} values, the width is {dim}",
                    v.len()
                )))
            }
        };
        vector("output_norm.weight".into(), &norm)?;
        output.expect("the output head", output.rows(), dim)?;
        for (l, b) in blocks.iter().enumerate() {
            let hidden = b.gate.rows();
            let name = |n: &str| format!("blk.{l}.{n}.weight");
            vector(name("attn_norm"), &b.attn_norm)?;
            vector(name("ffn_norm"), &b.ffn_norm)?;
            b.wq.expect(&name("attn_q"), dim, dim)?;
            b.wk.expect(&name("attn_k"), kv_dim, dim)?;
            b.wv.expect(&name("attn_v"), kv_dim, dim)?;
            b.wo.expect(&name("attn_output"), dim, dim)?;
            b.gate.expect(&name("ffn_gate"), hidden, dim)?;
            b.up.expect(&name("ffn_up"), hidden, dim)?;
            b.down.expect(&name("ffn_down"), dim, hidden)?;
        }
        // As candle: θ_i = 1 / base^(2i/d), angle = position · θ_i in f32.
        let half = head_dim / 2;
        let theta: Vec<f32> = (0..head_dim)
            .step_by(2)
            .map(|i| 1f32 / freq_base.powf(i as f32 / head_dim as f32))
            .collect();
        let mut cos = Vec::with_capacity(MAX_SEQ_LEN * half);
        let mut sin = Vec::with_capacity(MAX_SEQ_LEN * half);
        for p in 0..MAX_SEQ_LEN {
            for t in &theta {
                let angle = p as f32 * t;
                cos.push(angle.cos());
                sin.push(angle.sin());
            }
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(engine_threads())
            .thread_name(|i| format!("moviegraph-llm-{i}"))
            .build()
            .map(std::sync::Arc::new)
            .map_err(|e| Unsupported::Invalid(format!("thread pool: {e}")))?;
        Ok(Llama {
            embeddings,
            vocab,
            dim,
            n_head,
            n_kv_head,
            head_dim,
            eps,
            cos,
            sin,
            layers: blocks,
            norm,
            output,
            cached: 0,
            pool,
        })
    }

    /// Runs `tokens` at positions `pos..` (0 starts a fresh sequence; a
    /// position below the cache's end drops the cache from there) and
    /// returns the logits of the last one.
    pub fn forward(&mut self, tokens: &[u32], pos: usize) -> Result<Vec<f32>, String> {
        if tokens.is_empty() {
            return Err("no tokens to run".into());
        }
        if pos > self.cached {
            return Err(format!("position {pos} is past the {} cached", self.cached));
        }
        if pos + tokens.len() > MAX_SEQ_LEN {
            return Err(format!(
                "{} positions exceed the {MAX_SEQ_LEN} supported",
                pos + tokens.len()
            ));
        }
        if let Some(&bad) = tokens.iter().find(|&&t| t as usize >= self.vocab) {
            return Err(format!(
                "token {bad} is outside the vocabulary of {}",
                self.vocab
            ));
        }
        let pool = self.pool.clone();
        pool.install(|| self.forward_in_pool(tokens, pos))
            .map_err(|e| e.to_string())
    }

    fn forward_in_pool(&mut self, tokens: &[u32], pos: usize) -> candle_core::Result<Vec<f32>> {
        let (dim, m) = (self.dim, tokens.len());
        let kv_dim = self.n_kv_head * self.head_dim;
        let mut x = Vec::with_capacity(m * dim);
        for &t in tokens {
            x.extend_from_slice(&self.embeddings[t as usize * dim..(t as usize + 1) * dim]);
        }
        let mut h = vec![0f32; m * dim];
        let (mut q, mut k, mut v, mut y, mut o) = (
            Vec::new(),
            Vec::new(),
            Vec::new(),
            vec![0f32; m * dim],
            Vec::new(),
        );
        let (mut g, mut u, mut down) = (Vec::new(), Vec::new(), Vec::new());
        for li in 0..self.layers.len() {
            let layer = &mut self.layers[li];
            for (keys, values) in layer.keys.iter_mut().zip(layer.values.iter_mut()) {
                keys.truncate(pos * self.head_dim);
                values.truncate(pos * self.head_dim);
            }
            rms_norm(&x, &layer.attn_norm, self.eps, &mut h);
            let mut hq = None;
            layer.wq.forward(&h, dim, &mut hq, &mut q)?;
            layer.wk.forward(&h, dim, &mut hq, &mut k)?;
            layer.wv.forward(&h, dim, &mut hq, &mut v)?;
            let half = self.head_dim / 2;
            for i in 0..m {
                let (c, s) = (
                    &self.cos[(pos + i) * half..(pos + i + 1) * half],
                    &self.sin[(pos + i) * half..(pos + i + 1) * half],
                );
                for head in q[i * dim..(i + 1) * dim].chunks_exact_mut(self.head_dim) {
                    rope_interleaved(head, c, s);
                }
                for head in k[i * kv_dim..(i + 1) * kv_dim].chunks_exact_mut(self.head_dim) {
                    rope_interleaved(head, c, s);
                }
            }
            let hd = self.head_dim;
            for (row_k, row_v) in k.chunks_exact(kv_dim).zip(v.chunks_exact(kv_dim)) {
                for (g, (keys, values)) in layer
                    .keys
                    .iter_mut()
                    .zip(layer.values.iter_mut())
                    .enumerate()
                {
                    keys.extend_from_slice(&row_k[g * hd..(g + 1) * hd]);
                    values.extend_from_slice(&row_v[g * hd..(g + 1) * hd]);
                }
            }
            attention(
                &q,
                &layer.keys,
                &layer.values,
                Shape {
                    n_head: self.n_head,
                    n_kv_head: self.n_kv_head,
                    head_dim: self.head_dim,
                    first: pos,
                },
                &mut y,
            );
            layer.wo.forward(&y, dim, &mut None, &mut o)?;
            for (x, o) in x.iter_mut().zip(&o) {
                *x += *o;
            }
            rms_norm(&x, &layer.ffn_norm, self.eps, &mut h);
            let mut hq = None;
            layer.gate.forward(&h, dim, &mut hq, &mut g)?;
            layer.up.forward(&h, dim, &mut hq, &mut u)?;
            for (g, u) in g.iter_mut().zip(&u) {
                *g = *g / (1.0 + (-*g).exp()) * *u;
            }
            let hidden = layer.gate.rows();
            layer.down.forward(&g, hidden, &mut None, &mut down)?;
            for (x, d) in x.iter_mut().zip(&down) {
                *x += *d;
            }
        }
        self.cached = pos + m;
        let last = &x[(m - 1) * dim..];
        let mut normed = vec![0f32; dim];
        rms_norm(last, &self.norm, self.eps, &mut normed);
        let mut logits = Vec::new();
        self.output.forward(&normed, dim, &mut None, &mut logits)?;
        Ok(logits)
    }
}

/// candle's `rms_norm` row by row: `x / sqrt(mean(x²) + eps) · w`.
fn rms_norm(x: &[f32], w: &[f32], eps: f32, out: &mut [f32]) {
    let n = w.len();
    for (row, dst) in x.chunks_exact(n).zip(out.chunks_exact_mut(n)) {
        let sum2 = row.iter().map(|&v| v * v).sum::<f32>();
        let m = (sum2 / n as f32 + eps).sqrt();
        for ((d, s), a) in dst.iter_mut().zip(row).zip(w) {
            *d = *s / m * *a;
        }
    }
}

/// candle's `rope_i`: each pair `(x[2i], x[2i+1])` rotated by angle `i`.
fn rope_interleaved(x: &mut [f32], cos: &[f32], sin: &[f32]) {
    for (i, pair) in x.chunks_exact_mut(2).enumerate() {
        let (a, b) = (pair[0], pair[1]);
        pair[0] = a * cos[i] - b * sin[i];
        pair[1] = a * sin[i] + b * cos[i];
    }
}

struct Shape {
    n_head: usize,
    n_kv_head: usize,
    head_dim: usize,
    /// Position of the first query row.
    first: usize,
}

/// `dst = lhs · rhs` (`m × k` by `k × n`) with `gemm`, strides in elements
/// as (row, column); the call candle's CPU matmul makes, so the sums run in
/// the same order.
#[allow(clippy::too_many_arguments)]
fn matmul(
    (m, n, k): (usize, usize, usize),
    dst: &mut [f32],
    lhs: &[f32],
    (lhs_rs, lhs_cs): (usize, usize),
    rhs: &[f32],
    (rhs_rs, rhs_cs): (usize, usize),
) {
    assert!(dst.len() >= m * n);
    assert!(m == 0 || k == 0 || lhs.len() > (m - 1) * lhs_rs + (k - 1) * lhs_cs);
    assert!(n == 0 || k == 0 || rhs.len() > (k - 1) * rhs_rs + (n - 1) * rhs_cs);
    // SAFETY: the asserts above keep every index gemm touches inside the slices.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst.as_mut_ptr(),
            1,
            n as isize,
            false,
            lhs.as_ptr(),
            lhs_cs as isize,
            lhs_rs as isize,
            rhs.as_ptr(),
            rhs_cs as isize,
            rhs_rs as isize,
            0.0,
            1.0,
            false,
            false,
            false,
            gemm::Parallelism::None,
        )
    }
}

/// Causal attention of the query rows `q` (`[row][head][head_dim]`) over
/// the cached keys and values (one buffer per key/value head), into `out`
/// (same layout as `q`); query head `h` reads key/value head
/// `h / (n_head / n_kv_head)`. Per head it computes what candle's
/// `quantized_llama` computes — `softmax(q·kᵀ / √d, causal mask) · v` with
/// the same products, scaling and softmax — without copying the cache.
fn attention(q: &[f32], keys: &[Vec<f32>], values: &[Vec<f32>], s: Shape, out: &mut [f32]) {
    use candle_core::cpu::kernels::VecOps;
    let hd = s.head_dim;
    let dim = s.n_head * hd;
    let rows = q.len() / dim;
    let group = s.n_head / s.n_kv_head;
    let len = s.first + rows;
    let scale = (1.0 / (hd as f64).sqrt()) as f32;
    let heads: Vec<Vec<f32>> = (0..s.n_head)
        .into_par_iter()
        .map(|h| {
            let kv = h / group;
            let query: Vec<f32> = q
                .chunks_exact(dim)
                .flat_map(|row| &row[h * hd..(h + 1) * hd])
                .copied()
                .collect();
            let mut att = vec![0f32; rows * len];
            matmul(
                (rows, len, hd),
                &mut att,
                &query,
                (hd, 1),
                &keys[kv],
                (1, hd),
            );
            for (i, row) in att.chunks_exact_mut(len).enumerate() {
                for (j, a) in row.iter_mut().enumerate() {
                    *a = if rows > 1 && j > s.first + i {
                        f32::NEG_INFINITY
                    } else {
                        *a * scale + 0.0
                    };
                }
                let mut max = 0f32;
                let mut sum = 0f32;
                // SAFETY: `row` holds `len` ≥ 1 floats.
                unsafe { f32::vec_reduce_max(row.as_ptr(), &mut max, len) };
                for a in row.iter_mut() {
                    *a = (*a - max).exp();
                }
                // SAFETY: as above.
                unsafe { f32::vec_reduce_sum(row.as_ptr(), &mut sum, len) };
                for a in row.iter_mut() {
                    *a /= sum;
                }
            }
            let mut y = vec![0f32; rows * hd];
            matmul(
                (rows, hd, len),
                &mut y,
                &att,
                (len, 1),
                &values[kv],
                (hd, 1),
            );
            y
        })
        .collect();
    for (h, y) in heads.iter().enumerate() {
        for (row, src) in out.chunks_exact_mut(dim).zip(y.chunks_exact(hd)) {
            row[h * hd..(h + 1) * hd].copy_from_slice(src);
        }
    }
}

#[cfg(test)]
mod tests;
