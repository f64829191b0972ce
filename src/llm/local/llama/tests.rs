//! Tests of the llama pass: its pieces, a synthetic model, and the
//! installed model against candle's implementation.

use super::*;

#[test]
fn attention_of_one_position_returns_its_value() {
    let (q, k, v) = (
        vec![1.0; 8],
        vec![vec![0.5; 4]],
        vec![vec![3.0, 4.0, 5.0, 6.0]],
    );
    let mut out = vec![0.0; 8];
    let s = Shape {
        n_head: 2,
        n_kv_head: 1,
        head_dim: 4,
        first: 0,
    };
    attention(&q, &k, &v, s, &mut out);
    assert_eq!(out, [3.0, 4.0, 5.0, 6.0, 3.0, 4.0, 5.0, 6.0]);
}

#[test]
fn attention_is_causal() {
    // Two positions, one head: row 0 sees only value 0.
    let q = vec![1.0, 0.0, 1.0, 0.0];
    let k = vec![vec![1.0, 0.0, 1.0, 0.0]];
    let v = vec![vec![1.0, 1.0, 3.0, 3.0]];
    let mut out = vec![0.0; 4];
    let s = Shape {
        n_head: 1,
        n_kv_head: 1,
        head_dim: 2,
        first: 0,
    };
    attention(&q, &k, &v, s, &mut out);
    assert_eq!(&out[..2], &[1.0, 1.0]);
    assert!(
        (out[2] - 2.0).abs() < 1e-6,
        "equal scores average: {}",
        out[2]
    );
}

#[test]
fn rope_at_angle_zero_is_identity_and_quarter_turn_rotates() {
    let mut x = vec![1.0, 2.0];
    rope_interleaved(&mut x, &[1.0], &[0.0]);
    assert_eq!(x, [1.0, 2.0]);
    rope_interleaved(&mut x, &[0.0], &[1.0]);
    assert_eq!(x, [-2.0, 1.0]);
}

/// A one-layer llama GGUF in memory (width 32, vocabulary 8), its Q4_1
/// key matrix given `k_rows` rows (32 when well formed).
fn tiny_gguf(k_rows: usize) -> std::io::Cursor<Vec<u8>> {
    use candle_core::quantized::gguf_file::{self, Value};
    let dev = Device::Cpu;
    let tensor = |rows: usize, cols: usize, dtype: GgmlDType, seed: usize| {
        let v: Vec<f32> = (0..rows * cols)
            .map(|i| (((i + seed) * 37) % 97) as f32 / 97.0 - 0.5)
            .collect();
        let t = Tensor::from_vec(v, (rows, cols), &dev).unwrap();
        QTensor::quantize(&t, dtype).unwrap()
    };
    let norm = || {
        QTensor::quantize(
            &Tensor::ones(32, candle_core::DType::F32, &dev).unwrap(),
            GgmlDType::F32,
        )
        .unwrap()
    };
    let u = Value::U32;
    let meta = [
        ("general.architecture", Value::String("llama".into())),
        ("llama.attention.head_count", u(1)),
        ("llama.attention.head_count_kv", u(1)),
        ("llama.block_count", u(1)),
        ("llama.embedding_length", u(32)),
        ("llama.rope.dimension_count", u(32)),
        ("llama.attention.layer_norm_rms_epsilon", Value::F32(1e-5)),
    ];
    let q = GgmlDType::Q4_1;
    let tensors = [
        ("token_embd.weight", tensor(8, 32, GgmlDType::F32, 1)),
        ("output_norm.weight", norm()),
        ("blk.0.attn_norm.weight", norm()),
        ("blk.0.ffn_norm.weight", norm()),
        ("blk.0.attn_q.weight", tensor(32, 32, q, 2)),
        ("blk.0.attn_k.weight", tensor(k_rows, 32, q, 3)),
        ("blk.0.attn_v.weight", tensor(32, 32, q, 4)),
        ("blk.0.attn_output.weight", tensor(32, 32, q, 5)),
        ("blk.0.ffn_gate.weight", tensor(64, 32, q, 6)),
        ("blk.0.ffn_up.weight", tensor(64, 32, q, 7)),
        ("blk.0.ffn_down.weight", tensor(32, 64, q, 8)),
    ];
    let meta: Vec<(&str, &Value)> = meta.iter().map(|(k, v)| (*k, v)).collect();
    let tensors: Vec<(&str, &QTensor)> = tensors.iter().map(|(k, v)| (*k, v)).collect();
    let mut out = std::io::Cursor::new(Vec::new());
    gguf_file::write(&mut out, &meta, &tensors).unwrap();
    out.set_position(0);
    out
}

#[test]
fn a_tiny_model_runs_and_a_misshapen_one_is_a_load_error() {
    let mut file = tiny_gguf(32);
    let ct = Content::read(&mut file).unwrap();
    let mut model = Llama::from_gguf(&ct, &mut file).unwrap();
    let logits = model.forward(&[1, 2, 3], 0).unwrap();
    assert_eq!(logits.len(), 8);
    assert!(logits.iter().all(|l| l.is_finite()));
    assert!(
        model.forward(&[9], 3).is_err(),
        "token outside the vocabulary"
    );

    let mut file = tiny_gguf(64);
    let ct = Content::read(&mut file).unwrap();
    match Llama::from_gguf(&ct, &mut file) {
        Err(Unsupported::Invalid(why)) => assert!(why.contains("blk.0.attn_k"), "{why}"),
        other => panic!("expected a load error, got {other:?}"),
    }
}

/// The installed model file and our pass loaded from it; None (with a
/// message) when no model is installed.
fn installed_model() -> Option<(std::path::PathBuf, Llama)> {
    let path = match crate::llm::local::resolve_model_path(None) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("skipping: no local model ({e})");
            return None;
        }
    };
    let mut file = std::fs::File::open(&path).unwrap();
    let ct = Content::read(&mut file).unwrap();
    let model = Llama::from_gguf(&ct, &mut file).unwrap();
    Some((path, model))
}

/// Our pass against candle's `quantized_llama` (the engine's previous
/// implementation) on the installed model: the same logits, bit for bit,
/// through a batched prefill, a second chunk, single-token steps and a
/// restart (so greedy outputs cannot change).
#[test]
fn logits_match_candles_implementation_on_the_installed_model() {
    let Some((path, mut ours)) = installed_model() else {
        return;
    };
    let mut file = std::fs::File::open(&path).unwrap();
    let ct = Content::read(&mut file).unwrap();
    let mut theirs = candle_transformers::models::quantized_llama::ModelWeights::from_gguf(
        ct,
        &mut file,
        &Device::Cpu,
    )
    .unwrap();
    let mut candle_forward = |tokens: &[u32], pos: usize| -> Vec<f32> {
        let input = Tensor::new(tokens, &Device::Cpu)
            .unwrap()
            .unsqueeze(0)
            .unwrap();
        theirs
            .forward(&input, pos)
            .unwrap()
            .flatten_all()
            .unwrap()
            .to_vec1()
            .unwrap()
    };
    let argmax = |l: &[f32]| {
        l.iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map(|(i, _)| i)
            .unwrap()
    };
    let prompt: Vec<u32> = (0..40).map(|i| 100 + 37 * i).collect();
    let steps: [(&[u32], usize); 6] = [
        (&prompt[..3], 0),
        (&prompt[..30], 0),
        (&prompt[30..], 30),
        (&[5], 40),
        (&[6], 41),
        (&prompt[..12], 0),
    ];
    for (tokens, pos) in steps {
        let a = ours.forward(tokens, pos).unwrap();
        let b = candle_forward(tokens, pos);
        assert_eq!(
            argmax(&a),
            argmax(&b),
            "next token at {pos}+{}",
            tokens.len()
        );
        let worst = a
            .iter()
            .zip(&b)
            .map(|(x, y)| (x - y).abs())
            .fold(0f32, f32::max);
        assert_eq!(
            worst,
            0.0,
            "logits differ by {worst} at {pos}+{}",
            tokens.len()
        );
    }
}

/// Rewinding into the KV cache (a position below its end) keeps the
/// positions before it: the logits equal those of the same pieces run
/// fresh, bit for bit; a gap past the cache's end is an error.
#[test]
fn rewinding_the_cache_equals_a_fresh_run() {
    let Some((_, mut model)) = installed_model() else {
        return;
    };
    let prompt: Vec<u32> = (0..45).map(|i| 200 + 91 * i).collect();
    model.forward(&prompt[..20], 0).unwrap();
    let fresh = model.forward(&prompt[20..], 20).unwrap();
    model.forward(&prompt[..20], 0).unwrap();
    model.forward(&prompt[20..33], 20).unwrap();
    let rewound = model.forward(&prompt[20..], 20).unwrap();
    assert!(fresh
        .iter()
        .zip(&rewound)
        .all(|(a, b)| a.to_bits() == b.to_bits()));
    assert!(
        model.forward(&prompt, 50).is_err(),
        "a gap in the cache is an error"
    );
}
